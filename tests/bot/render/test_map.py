"""The map pictures: reference images, determinism, hidden units, terrain fills, failures.

Reference images live in ``tests/fixtures/maps/``. A render is compared with its
reference with a tolerance (same size, mean absolute difference per channel under
:data:`TOLERANCE` on 0–255), so a Pillow release that antialiases a glyph differently does
not fail the suite — and under :data:`CHANGED_SHARE` of its pixels changed by more than
:data:`CHANGED` in some channel, so a moved counter or a missing line does. After an intended
change of the drawing, regenerate them and look at them before committing::

    ARBITRO_UPDATE_MAPS=1 .venv/bin/python -m pytest tests/bot/render/test_map.py
"""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from bot.render import layout
from bot.render.lettering import FONT_RANGES, font, plain
from bot.render.map import WIDTH, render_map, side_colours, terrain_style, visible_counters
from bot.render.pictures import reply_picture
from bot.service import Reply, StatusReply, channel_map, localized_map, public_status
from rules.core.battlefield import (
    CircleShape,
    Counter,
    MapArea,
    MapView,
    Overlay,
    Point,
    PolygonShape,
)
from rules.core.play import StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.core.seatview import REFEREE, SPECTATOR
from rules.pzgren.surface import PLAY as PZGREN
from tests.bot.render import crowded_maps
from tests.test_typography import typography_faults

MAPS = Path(__file__).resolve().parents[2] / "fixtures" / "maps"
UPDATE = os.environ.get("ARBITRO_UPDATE_MAPS") == "1"
#: Mean absolute difference per channel (0–255) a render may have from its reference.
TOLERANCE = 1.0
#: A pixel differs visibly when a channel moved by more than this; at most this share of
#: the picture may (a counter moved by 10 cm changes about 0.5 %, a line of fire 0.7 %).
CHANGED = 48
CHANGED_SHARE = 0.001
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def measured_view(*, hidden: bool = True) -> MapView:
    """A measured table: terrain of several classes, two sides, every overlay kind."""
    p = Point
    counters = [
        Counter(
            unit_id="squadra_1",
            label="squadra_1",
            side="alleati",
            x=30,
            y=40,
            models=8,
            initial_models=10,
            statuses=("inchiodata",),
        ),
        Counter(
            unit_id="sherman_1",
            label="sherman_1",
            side="alleati",
            x=60,
            y=50,
            models=5,
            initial_models=5,
        ),
        Counter(
            unit_id="panzer_iv",
            label="panzer_iv",
            side="asse",
            x=120,
            y=80,
            models=4,
            initial_models=5,
            statuses=("panico",),
        ),
        Counter(
            unit_id="mg42",
            label="mg42",
            side="asse",
            x=110,
            y=35,
            models=0,
            initial_models=3,
            destroyed=True,
        ),
    ]
    if hidden:
        counters.append(
            Counter(
                unit_id="cecchino",
                label="cecchino",
                side="asse",
                x=150,
                y=30,
                models=1,
                initial_models=1,
                hidden=True,
            )
        )
    return MapView(
        title="Normandia — turno 3",
        sides={"alleati": "Alleati", "asse": "Asse"},
        width_cm=180,
        height_cm=120,
        open_terrain="aperto",
        areas=(
            MapArea(
                shape=CircleShape(center=p(x=40, y=80), radius=18),
                terrain="bosco",
                label="bosco nord",
                blocks_sight=True,
            ),
            MapArea(
                shape=PolygonShape(
                    points=(p(x=100, y=20), p(x=130, y=20), p(x=130, y=45), p(x=100, y=45))
                ),
                terrain="edificio",
                label="fattoria",
                blocks_sight=True,
            ),
            MapArea(
                shape=PolygonShape(
                    points=(p(x=0, y=58), p(x=180, y=62), p(x=180, y=68), p(x=0, y=64))
                ),
                terrain="strada",
                label="strada",
            ),
            MapArea(
                shape=CircleShape(center=p(x=140, y=95), radius=20),
                terrain="collina",
                label="quota 112",
            ),
        ),
        counters=tuple(counters),
        overlays=(
            Overlay(kind="line_of_fire", points=(p(x=60, y=50), p(x=120, y=80)), label="75 mm"),
            Overlay(kind="line_of_fire", points=(p(x=30, y=40), p(x=110, y=35)), blocked=True),
            Overlay(kind="arrow", points=(p(x=100, y=100), p(x=112, y=92)), label="14 cm"),
            Overlay(kind="circle", points=(p(x=112, y=92),), radius=7.5, label="HE 105"),
            Overlay(kind="point", points=(p(x=20, y=100),), label="A"),
        ),
        caption="#12 anna — /fire sherman_1 → panzer_iv",
    )


def pzgren_view() -> MapView:
    """pzgren's bundled scenario as the reply to a fire draws it (localized in French)."""
    document = PZGREN.setup("exemple_ardennes")
    view = channel_map(PZGREN.load(document), "pzgren", "fr")
    assert view is not None
    marks = PZGREN.view(document, REFEREE).marks(
        "fire", {"unit": "us_rifle_2,us_m10", "target": "de_pzgren_1"}
    )
    return view.model_copy(update={"overlays": view.overlays + marks})


def _image(png: bytes) -> Image.Image:
    assert png.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def assert_like_reference(png: bytes, name: str) -> None:
    """Same size as the reference and within :data:`TOLERANCE` of it, pixel by pixel."""
    path = MAPS / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"{path} is missing: ARBITRO_UPDATE_MAPS=1 writes it")
        path.write_bytes(png)
    reference, rendered = _image(path.read_bytes()), _image(png)
    assert rendered.size == reference.size, (rendered.size, reference.size)
    assert differs(rendered, reference) is None, f"{name}: {differs(rendered, reference)}"


def differs(rendered: Image.Image, reference: Image.Image) -> str | None:
    """Why ``rendered`` is not ``reference`` within the tolerance (None: it is)."""
    difference = ImageChops.difference(rendered, reference)
    mean = ImageStat.Stat(difference).mean
    if max(mean) >= TOLERANCE:
        return f"mean difference {mean}"
    red, green, blue = difference.split()
    worst = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    changed = worst.point(lambda value: 255 if value > CHANGED else 0).histogram()[255]
    share = changed / (rendered.width * rendered.height)
    return f"{share:.2%} of the pixels changed" if share > CHANGED_SHARE else None


def test_the_tolerance_still_sees_a_moved_counter_and_a_missing_line() -> None:
    view = measured_view()
    reference = _image(render_map(view, "it"))
    counters = list(view.counters)
    counters[1] = counters[1].model_copy(update={"x": 70})
    moved = view.model_copy(update={"counters": tuple(counters)})
    assert differs(_image(render_map(moved, "it")), reference) is not None
    no_line = view.model_copy(update={"overlays": view.overlays[1:]})
    assert differs(_image(render_map(no_line, "it")), reference) is not None
    assert differs(_image(render_map(view, "it")), reference) is None


@pytest.mark.parametrize(
    ("name", "make", "public"),
    [
        ("measured-public.png", measured_view, True),
        ("measured-owner.png", measured_view, False),
        ("pzgren-fire.png", pzgren_view, True),
        ("crowded-manovra.png", crowded_maps.manovra, True),
        ("crowded-linea_gotica.png", crowded_maps.linea_gotica, True),
        ("crowded-w40k4.png", crowded_maps.w40k4, True),
        ("crowded-pzgren.png", crowded_maps.pzgren, True),
    ],
)
def test_renders_match_their_reference_images(name, make, public) -> None:
    png = render_map(make(), "it", public=public)
    assert _image(png).width == WIDTH
    assert_like_reference(png, name)


def test_the_same_view_gives_the_same_bytes_and_no_metadata() -> None:
    view = measured_view()
    first, second = render_map(view, "en"), render_map(view, "en")
    assert first == second
    # No text, time or other ancillary chunk that could vary: only the picture's.
    chunks, at = [], len(PNG_SIGNATURE)
    while at < len(first):
        length = int.from_bytes(first[at : at + 4], "big")
        chunks.append(first[at + 4 : at + 8].decode("ascii"))
        at += 12 + length
    assert set(chunks) <= {"IHDR", "PLTE", "IDAT", "IEND"}, chunks


def test_a_public_picture_shows_no_trace_of_hidden_units() -> None:
    with_hidden = render_map(measured_view(hidden=True), "it", public=True)
    without = render_map(measured_view(hidden=False), "it", public=True)
    # Byte for byte: no counter, no legend entry, nothing of the hidden unit.
    assert with_hidden == without
    owner = render_map(measured_view(hidden=True), "it", public=False)
    assert owner != without
    assert [c.unit_id for c in visible_counters(measured_view(), public=True)] == [
        "squadra_1",
        "sherman_1",
        "panzer_iv",
        "mg42",
    ]


def test_the_channel_map_drops_hidden_units_a_ruleset_left_in_its_public_view(caplog) -> None:
    class LeakyView:
        def map(self, language="it"):
            return measured_view(hidden=True)

    class LeakyGame:
        def view(self, seat):
            return LeakyView()

    caplog.set_level(logging.ERROR, logger="bot.service")
    view = channel_map(LeakyGame(), "manovra", "it")  # type: ignore[arg-type]
    assert view is not None and not any(c.hidden for c in view.counters)
    assert "hidden units" in caplog.text


def test_the_channel_status_does_not_list_hidden_units() -> None:
    line = UnitLine("a", "A", "x", "", 1, 1, (), "", False)
    ghost = UnitLine("b", "B", "y", "", 1, 1, (), "", False, hidden=True)
    view = StatusView("t", 1, Outcome.of("x"), None, {}, {}, (line, ghost))
    assert [u.id for u in public_status(view).units] == ["a"]


def test_terrain_fills_by_name_then_keyword_then_a_stable_colour() -> None:
    assert terrain_style("woods") == terrain_style("Bosco fitto") == terrain_style("bois")
    assert terrain_style("edificio in rovina").fill != terrain_style("aperto").fill
    assert terrain_style("strada bianca") == terrain_style("road")
    assert terrain_style("zzz-unknown") == terrain_style("zzz-unknown")
    assert terrain_style("zzz-unknown") != terrain_style("qqq-other")


def _ink(text: str, size: int = 20) -> bytes:
    return bytes(font(size).getmask(text))


def test_accents_are_drawn_as_glyphs_not_boxes() -> None:
    """The bundled font covers Latin-1 and Latin Extended-A: every letter draws ink, unlike
    the font's empty glyph (U+E000 has none), and "é" is not drawn as "e"."""
    missing = _ink("\ue000")
    for word in ("décembre", "Américains", "Żółć", "Épine", "città", "Œuvre"):
        assert plain(word) == word
        for char in word:
            assert _ink(char) != missing and any(_ink(char)), (word, char)
    assert _ink("é") != _ink("e") and _ink("Ż") != _ink("Z") and _ink("ł") != _ink("l")
    for low, high in FONT_RANGES:
        for code in range(low, high + 1):
            char = chr(code)
            if char.isprintable() and not char.isspace():
                assert _ink(char) != missing, hex(code)


def test_what_the_font_lacks_is_spelled_not_boxed() -> None:
    assert plain("Ardennes, décembre 1944 — città → x ≤ 3") == (
        "Ardennes, décembre 1944 — città -> x <= 3"
    )
    assert plain("ạ") == "a" and plain("漢") == "?"
    assert plain("plain ascii") == "plain ascii"


def test_the_font_ships_with_the_package() -> None:
    """The Docker image and `pip install` bring the font: it is package data of bot.render."""
    from importlib import resources

    assert (resources.files("bot.render") / "fonts" / "NotoSans-Regular.ttf").is_file()
    assert (resources.files("bot.render") / "fonts" / "OFL.txt").is_file()
    pyproject = (Path(__file__).resolve().parents[3] / "pyproject.toml").read_text()
    assert '"bot.render" = ["fonts/*.ttf", "fonts/*.txt"' in pyproject


def test_a_tall_table_and_a_tiny_one_fit_the_width() -> None:
    tall = MapView(title="t", sides={"a": "A"}, width_cm=60, height_cm=600)
    tiny = MapView(title="t", sides={"a": "A"}, width_cm=1, height_cm=1)
    for view in (tall, tiny):
        image = _image(render_map(view, "fr"))
        assert image.width == WIDTH and image.height < 1400


def test_pzgren_statuses_and_hex_labels_are_localized() -> None:
    view = pzgren_view()
    assert view.grid is not None and view.grid.layout == "axial"
    labels = {(h.col, h.row): h.label for h in view.grid.hexes}
    assert labels[(5, 1)] == "bois" and labels[(7, 3)] == "ville, retranchement"
    dug_in = next(c for c in view.counters if c.unit_id == "us_rifle_2")
    assert dug_in.statuses == ("enterrée",)
    english = localized_map(PZGREN.view(PZGREN.setup(None), SPECTATOR).map(), "pzgren", "en")
    assert next(c for c in english.counters if c.unit_id == "us_rifle_2").statuses == ("dug in",)


async def test_a_failed_drawing_leaves_the_reply_without_a_picture(monkeypatch, caplog) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("bot.render.pictures.render_map", broken)
    reply = StatusReply(language="it", map_view=measured_view())
    caplog.set_level(logging.ERROR, logger="bot.render.pictures")
    assert await reply_picture(reply) is None
    assert "could not draw the map" in caplog.text
    assert await reply_picture(Reply(language="it")) is None


# -- issue 26, item 14: crowded tables, colours, captions -----------------------------


def _counter_boxes(view: MapView) -> list[layout.Box]:
    """Where the renderer puts the counters and the terrain names of a measured table."""
    from bot.render import map as drawing

    frame = drawing._Frame(46, 46, 5.0, 900, 600)
    outlines = [drawing._area_outline(a, frame, view.height_cm) for a in view.areas]
    placed, names = drawing._layout_table(
        view, view.counters, outlines, frame, drawing._ToPixel(view, frame)
    )
    return [box for _, box, _, _ in placed] + [box for box, _ in names]


@pytest.mark.parametrize("ruleset", sorted(crowded_maps.CROWDED))
def test_counters_and_terrain_names_never_cover_each_other(ruleset) -> None:
    """The report: counters piled on one another and on terrain names. Each crowded table
    has several units on one spot and on an area's name: no two boxes overlap."""
    boxes = _counter_boxes(crowded_maps.CROWDED[ruleset]())
    for i, first in enumerate(boxes):
        for second in boxes[i + 1 :]:
            assert not layout.overlaps(first, second), (first, second)


def test_a_counter_moved_off_its_point_is_tied_to_it() -> None:
    occupied = layout.Occupied()
    spots = [((100.0, 100.0), 60.0, 36.0, 0.0)] * 3 + [((400.0, 100.0), 60.0, 36.0, 0.0)]
    placed = layout.place_counters(spots, (0, 0, 800, 600), occupied)
    assert [p.moved for p in placed] == [False, True, True, False]
    for spot in placed[1:3]:
        assert spot.anchor == (100.0, 100.0)
        end = layout.leader_end(spot.anchor, spot.box)
        assert spot.box[0] <= end[0] <= spot.box[2] and spot.box[1] <= end[1] <= spot.box[3]


def test_a_stack_stays_inside_its_hex() -> None:
    band = (10.0, 20.0, 76.0, 70.0)
    for count in range(1, 7):
        cells = layout.stack_cells(count, band)
        assert len(cells) == count
        for i, cell in enumerate(cells):
            assert layout.inside(cell, band)
            assert not any(layout.overlaps(cell, other) for other in cells[i + 1 :])


def test_long_names_are_wrapped_never_cut() -> None:
    view = crowded_maps.w40k4()
    (tower,) = [a for a in view.areas if a.label == "Torre di comunicazione"]
    boxes_and_lines = _names(view)
    lines = next(lines for lines in boxes_and_lines if "comunicazione" in " ".join(lines))
    assert " ".join(lines) == tower.label and not any("…" in line for line in lines)


def _names(view: MapView) -> list[list[str]]:
    from bot.render import map as drawing

    frame = drawing._Frame(46, 46, 12.0, 900, 600)
    outlines = [drawing._area_outline(a, frame, view.height_cm) for a in view.areas]
    _, names = drawing._layout_table(
        view, view.counters, outlines, frame, drawing._ToPixel(view, frame)
    )
    return [lines for _, lines in names]


def test_side_colours_never_change_during_a_game() -> None:
    """The report: pzgren swapped its sides' colours after the first command (the stored
    document keeps its sides in another order). Colours follow the side ids."""
    first = pzgren_view()
    stored = first.model_copy(update={"sides": dict(reversed(list(first.sides.items())))})
    assert list(stored.sides) != list(first.sides)
    assert side_colours(stored) == side_colours(first)
    assert render_map(stored, "fr") == render_map(first, "fr")


async def test_a_stored_pzgren_game_keeps_its_colours(service, dice) -> None:
    from bot.service import Request

    async def play(verb: str, n: int, **options: object):
        return await service.handle(
            Request(
                channel_id=26,
                guild_id=1,
                user_id=1,
                verb=verb,
                options=options,
                interaction_id=f"colours-{n}",
            )
        )

    created = await play("game.new", 1, ruleset="pzgren")
    moved = await play("move", 2, unit="us_rifle_1", hex="3,3")
    looked = await play("game.map", 3)
    views = [reply.map_view for reply in (created, moved, looked) if reply.map_view]
    assert len(views) == 3
    assert len({tuple(side_colours(view).items()) for view in views}) == 1
    # The new game's picture is drawn from the document as stored, as every later one is
    # (the colours never depended on it: the test above reverses the order).
    assert list(views[0].sides) == list(views[2].sides)


def test_every_ruleset_writes_its_caption_in_one_style() -> None:
    """The state of the game on the first line, then the last action (none yet)."""
    for make in crowded_maps.CROWDED.values():
        view = make()
        state, *rest = view.caption.split("\n")
        assert state.startswith(("Turno 1", "Tour 1")), view.caption
        assert not rest


def _bundled_table_views() -> list[tuple[str, str, str]]:
    from rules.core.ruleset import get_ruleset, known_rulesets

    found = []
    for key in known_rulesets():
        rules = get_ruleset(key).rules
        if rules is None:
            continue
        for scenario in rules.scenario.bundled_scenarios():
            view = rules.view(rules.setup(scenario), REFEREE).map("it")
            if view is not None and view.grid is None and view.objectives:
                for language in ("it", "en", "fr"):
                    found.append((key, scenario, language))
    return found


@pytest.mark.parametrize(("ruleset", "scenario", "language"), _bundled_table_views())
def test_terrain_names_keep_clear_of_the_objectives(ruleset, scenario, language) -> None:
    """gotica_incontro in French: the chapel's name was cut by its objective's ring and the
    mule track's by the bridge's outline and label. Every bundled table, in every language:
    no terrain name covers an objective's outline, star or label."""
    from bot.render import map as drawing
    from bot.render.marks import objective_boxes
    from rules.core.ruleset import get_ruleset

    rules = get_ruleset(ruleset).rules
    view = rules.view(rules.setup(scenario), REFEREE).map(language)
    frame = drawing._Frame(46, 46, 900 / view.width_cm, 900, 900 / view.width_cm * view.height_cm)
    to_pixel = drawing._ToPixel(view, frame)
    outlines = [drawing._area_outline(a, frame, view.height_cm) for a in view.areas]
    marks = objective_boxes(drawing._objective_outlines(view, frame, to_pixel, side_colours(view)))
    _, names = drawing._layout_table(view, view.counters, outlines, frame, to_pixel)
    assert names
    for box, lines in names:
        for mark in marks:
            assert not layout.overlaps(box, mark), (lines, mark)


# -- the notes under a hex map keep the language's typography --------------------------------


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_notes_under_a_hex_map_keep_the_languages_colon(language, monkeypatch) -> None:
    """'7,3: ville, retranchement' under a French map: the notes of what did not fit in its
    hex were written with an English colon, whatever the picture's language."""
    from bot.render import map as drawing

    drawn: list[str] = []
    caption_lines = drawing._caption_lines

    def kept(view: MapView, notes: tuple[str, ...] = ()) -> list[str]:
        drawn.extend(notes)
        return caption_lines(view, notes)

    monkeypatch.setattr(drawing, "_caption_lines", kept)
    render_map(crowded_maps.pzgren(language), language)
    assert drawn
    assert [fault for note in drawn for fault in typography_faults(note, language)] == []
