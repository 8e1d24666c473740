"""pzgren's battlefield: the hex map it draws, the lines of fire on a fire's reply, and
the pictures the service attaches (and, for a game without a battlefield, does not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import SPECTATOR, Seat
from rules.pzgren.field import adjacent, parse_hex
from rules.pzgren.surface import PLAY
from tests.bot.service_table import ServiceTable

CHANNEL = 3016
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99


def test_the_map_has_every_unit_on_the_map_in_its_axial_hex() -> None:
    document = PLAY.setup("exemple_ardennes")
    view = PLAY.view(document, SPECTATOR).map()
    assert view is not None and view.grid is not None
    assert (view.grid.cols, view.grid.rows, view.grid.layout) == (10, 8, "axial")
    terrain = {(h.col, h.row): h.terrain for h in view.grid.hexes}
    assert terrain[(5, 1)] == "woods" and terrain[(7, 1)] == "hill" and terrain[(4, 4)] == "clear"
    placed = {c.unit_id: (c.x, c.y, c.side) for c in view.counters}
    assert "us_p47" not in placed  # aircraft are never in a hex
    assert placed["de_panther"] == (7, 1, "de") and placed["us_rifle_2"] == (5, 4, "us")
    assert {c.label for c in view.counters} >= {"rifle_1", "panther", "pzgren_1"}
    assert next(c for c in view.counters if c.unit_id == "us_rifle_2").statuses == ("dug_in",)
    # pzgren hides nothing: every viewer gets the same picture.
    assert PLAY.view(document, Seat.of("us")).map() == view
    assert not any(c.hidden for c in view.counters)


def test_the_axial_layout_puts_neighbours_side_by_side() -> None:
    # East of 3,3 is 4,3 (q + 1), as hexes.DIRECTIONS counts from east: the picture must
    # show what the rules count as adjacent as touching hexes.
    from bot.render.map import _hex_centre

    grid = PLAY.view(PLAY.setup(None), SPECTATOR).map().grid
    assert grid is not None
    centre = _hex_centre(grid, 3, 3, 10.0)
    for neighbour in parse_hex("3,3").neighbours():
        assert adjacent(parse_hex("3,3"), neighbour)
        x, y = _hex_centre(grid, neighbour.q, neighbour.r, 10.0)
        assert abs(((x - centre[0]) ** 2 + (y - centre[1]) ** 2) ** 0.5 - 10.0 * 3**0.5) < 1e-9


def test_a_fire_draws_a_line_from_each_firer_to_the_hex_fired_at() -> None:
    document = PLAY.setup("exemple_ardennes")
    lines = PLAY.view(document, REFEREE_SEAT).marks(
        "fire", {"unit": "us_rifle_2,us_m10", "target": "de_pzgren_1"}
    )
    assert [(o.kind, [(p.x, p.y) for p in o.points]) for o in lines] == [
        ("line_of_fire", [(5, 4), (6, 3)]),
        ("line_of_fire", [(4, 2), (6, 3)]),
    ]
    at_hex = PLAY.view(document, REFEREE_SEAT).marks("fire", {"unit": "us_mortar", "hex": "6,3"})
    assert [(p.x, p.y) for p in at_hex[0].points] == [(1, 3), (6, 3)]
    assert (
        PLAY.view(document, REFEREE_SEAT).marks("move", {"unit": "us_rifle_1", "hex": "4,3"}) == ()
    )
    assert PLAY.view(document, REFEREE_SEAT).marks("fire", {"unit": "nobody", "hex": "6,3"}) == ()


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _setup(table: ServiceTable, ruleset: str = "pzgren") -> None:
    scenario = {"pzgren": "exemple_ardennes", "manovra": "esempio_normandia"}[ruleset]
    await table(REFEREE, "game.new", ruleset=ruleset, scenario=scenario, language="en")
    sides = {"pzgren": ("us", "de"), "manovra": ("alleati", "asse")}[ruleset]
    await table(ANNA, "game.join", side=sides[0])
    await table(BRUNO, "game.join", side=sides[1])


async def test_status_map_and_fire_carry_the_picture_and_the_state_stays_as_it_was(
    table, store
) -> None:
    await _setup(table)
    status = await table(BRUNO, "game.status")
    assert status.map_view is not None and status.map_public
    shown = await table(STRANGER, "game.map")  # anyone in the channel may look
    assert shown.map_view == status.map_view and not shown.private
    await table.refused(STRANGER, "game.map", "error.service.join_first", mine=True)
    mine = await table(ANNA, "game.map", mine=True)
    assert mine.private and not mine.map_public and mine.map_view is not None
    before = set((await store.load(CHANNEL)).document)
    moved = await table(ANNA, "move", unit="us_rifle_1", hex="4,3")
    assert moved.map_view is not None and not moved.map_view.overlays
    fired = await table(BRUNO, "fire", (4, 4), unit="de_pzgren_1", target="us_rifle_2")
    assert fired.map_view is not None
    assert [o.kind for o in fired.map_view.overlays] == ["line_of_fire"]
    # The lines live in the reply only: the stored state has no new field (old games
    # replay to their stored states).
    assert set((await store.load(CHANNEL)).document) == before
    # A look at the table afterwards shows the state, not the last fire.
    assert not (await table(ANNA, "game.map")).map_view.overlays
    assert (await table(ANNA, "odds", unit="us_m10", target="de_panther")).map_view is None


@pytest.mark.parametrize("ruleset", ["pzgren", "manovra"])
async def test_a_game_without_a_battlefield_posts_no_picture(table, monkeypatch, ruleset) -> None:
    play = get_ruleset(ruleset).rules
    # Whatever the bundled scenario draws one day: a game with no battlefield.
    monkeypatch.setattr(type(play), "map_view", lambda self, document, viewer, *, public: None)
    await _setup(table, ruleset)
    status = await table(ANNA, "game.status")
    assert status.map_view is None and status.status is not None
    reply = await table(ANNA, "game.map")
    assert reply.map_view is None
    assert [n.key for n in reply.notices] == ["bot.map.none"]
    if ruleset == "pzgren":  # a fire replies as before: its resolution, no picture
        fired = await table(ANNA, "fire", (4, 4), unit="us_rifle_2", target="de_pzgren_1")
        assert fired.resolutions and fired.map_view is None


async def test_the_console_saves_the_picture_beside_the_database_and_prints_its_path(
    service, tmp_path
) -> None:
    import io
    import re

    from bot.app.main import maps_beside
    from bot.console.table import Console

    assert maps_beside(str(tmp_path / "club.db")) == tmp_path / "club.maps"
    assert maps_beside("postgresql://u@h/db").name == "arbitro.maps"
    out = io.StringIO()
    console = Console(service, out, channel_id=9, maps_dir=tmp_path / "club.maps")
    script = [
        "/game new ruleset:pzgren language:en",
        "/as anna",
        "/game join side:us",
        "/fire unit:us_rifle_2 target:de_pzgren_1 dice:4,4",
        "/map",
        "/map mine:true",
    ]
    assert await console.run(script, interactive=False) == 0
    paths = re.findall(r"^Map: (\S+\.png)$", out.getvalue(), flags=re.MULTILINE)
    # The new game's status, the fire (named by its event), the channel's view, anna's.
    assert len(paths) == 4 and paths[1].endswith("9-00003.png") and paths[3].endswith("-anna.png")
    for path in paths:
        assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # noqa: ASYNC240


def test_a_fire_typed_by_the_units_names_draws_the_same_lines() -> None:
    document = PLAY.setup("exemple_ardennes")
    view = PLAY.view(document, REFEREE_SEAT)
    by_id = view.marks("fire", {"unit": "us_rifle_2,us_m10", "target": "de_pzgren_1"})
    typed = {"unit": "2e section de fusiliers,M10 Tank Destroyer", "target": "de_pzgren_1"}
    assert by_id and view.marks("fire", typed) == by_id
