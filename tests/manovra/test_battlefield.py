"""manovra on a battlefield the bot keeps (issue 16): scenario, moves, fire, blasts, map."""

from __future__ import annotations

import math

import pytest

from rules.core.battlefield import Point
from rules.core.dice import ReplayingDice, ScriptedDice, SystemDice
from rules.core.errors import InvalidInput, RulesError
from rules.core.geometry import offset
from rules.core.migrations import FORMAT_KEY
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.manovra import turn as g
from rules.manovra.legal import legal_actions
from rules.manovra.scenario import bundled_scenarios, load_bundled, parse_scenario
from rules.manovra.surface import PLAY

CAMPO = "esempio_normandia_campo"


def campo_text() -> str:
    return bundled_scenarios()[CAMPO].read_text("utf-8")


@pytest.fixture()
def state() -> g.ManovraState:
    """The battlefield example at step 3, ``squadra_1`` due to act."""
    made = g.new_game(load_bundled(CAMPO))
    made.step = g.TurnStep.MANOEUVRE
    made.queue = ["squadra_1"]
    return made


def act(state, unit, command, side="alleati", dice=None):
    state.queue = [unit]
    return g.apply(state, command, dice or ScriptedDice([]), actor_side=side)


def refused(state, unit, command, key, side="alleati"):
    state.queue = [unit]
    before = state.model_dump(mode="json")
    with pytest.raises(RulesError) as caught:
        act(state, unit, command, side, SystemDice())
    assert caught.value.key == key, (caught.value.key, caught.value.params)
    assert state.model_dump(mode="json") == before
    return caught.value


# -- Scenario ----------------------------------------------------------------------------


def test_the_bundled_battlefield_deploys_every_unit_where_its_terrain_is() -> None:
    plain = g.new_game(load_bundled("esempio_normandia"))
    made = g.new_game(load_bundled(CAMPO))
    assert plain.battlefield is None and made.battlefield is not None
    for unit in made.units.values():
        off_table = made.platoons[unit.platoon].off_table
        assert (unit.position is None) == off_table, unit.id
        assert unit.terrain == plain.units[unit.id].terrain, unit.id


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "needle", "words"),
    [
        ("terrain: siepe,", "terrain: bocage,", "terrain: bocage", "unknown terrain class"),
        ("    mg_team: {x: 100, y: 80}", "    mg_42: {x: 100, y: 80}", "mg_42:", "unknown unit"),
        (
            "    cortile: {x: 70, y: 80}",
            "    cortile: {x: 70, y: 180}",
            "cortile:",
            "off the table",
        ),
        ("    pak: {x: 136, y: 84}\n", "", "{id: pak,", "pak has no position"),
        (
            "    pak: {x: 136, y: 84}",
            "    pak: {x: 100, y: 30}",
            "{id: pak,",
            "not in piano_boscoso",
        ),
        (
            "    squadra_1: {x: 30, y: 25}",
            "    squadra_1: {x: 30, y: 25}\n    obici: {x: 1, y: 1}",
            "obici:",
            "off the table",
        ),
    ],
)
def test_battlefield_errors_name_their_line(old, new, needle, words) -> None:
    text = campo_text()
    assert old in text
    changed = text.replace(old, new)
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(changed, "campo.yaml")
    error = caught.value
    assert error.key == "error.scenario.invalid_line", error.params
    assert error.params["line"] == _line_of(changed, needle), error.params
    assert words in str(error.params["detail"]), error.params


def test_a_degenerate_table_is_refused_at_load_naming_its_line() -> None:
    """Issue 26: a table of 1e-300 cm can neither be measured on nor drawn."""
    bad = campo_text().replace("width_cm: 180", "width_cm: 1e-300")
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(bad, "campo.yaml")
    assert caught.value.params["line"] == _line_of(bad, "width_cm")
    assert "width_cm" in str(caught.value.params["detail"])


# -- Moves ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "x", "y"),
    [
        ("36,33", 36, 33),
        ("36 33", 36, 33),
        ("NE 12", 38.4, 33.4),  # 8.485… each way, cut to the millimetre toward the start
        ("90° 5", 35, 25),
        ("toward gruppe_1 10", 35.1, 33.5),
    ],
)
def test_each_destination_form(state, to, x, y) -> None:
    moved = act(state, "squadra_1", g.Move(unit="squadra_1", to=to)).state.units["squadra_1"]
    assert (moved.position.x, moved.position.y) == (x, y)
    assert moved.terrain == "piano_coltivato" and moved.moved


def test_named_points_and_areas_are_destinations(state) -> None:
    state.units["squadra_1"].position = Point(x=95, y=52)
    moved = act(state, "squadra_1", g.Move(unit="squadra_1", to="varco_siepe")).state
    assert moved.units["squadra_1"].position == Point(x=100, y=57)
    state.units["mg_team"].position = Point(x=100, y=77)
    moved = act(state, "mg_team", g.Move(unit="mg_team", to="postazione_mg"), "asse").state
    assert moved.units["mg_team"].position == Point(x=100, y=80)
    assert moved.units["mg_team"].terrain == "postazione_sacchi"


def test_the_allowance_is_checked_along_the_path(state) -> None:
    # Far past any allowance: refused from the straight distance, before its legs are cut.
    error = refused(
        state, "squadra_1", g.Move(unit="squadra_1", to="crocevia"), "error.manovra.beyond_reach"
    )
    assert error.params == {"unit": "1ª squadra", "cm": "97", "kind": "tattico", "reach": "12"}
    error = refused(
        state, "squadra_1", g.Move(unit="squadra_1", to="E 12.5"), "manovra.move.too_far"
    )
    assert error.params["percent"] > 100
    refused(state, "squadra_1", g.Move(unit="squadra_1", to="30,200"), "error.field.off_table")
    refused(state, "squadra_1", g.Move(unit="squadra_1", to="nowhere"), "error.field.unknown_place")
    # 12 cm tactical: 12.1 cm east is too far, 12 cm is not.
    refused(state, "squadra_1", g.Move(unit="squadra_1", to="E 12.1"), "manovra.move.too_far")
    act(state, "squadra_1", g.Move(unit="squadra_1", to="E 12"))


def test_terrain_along_the_path_costs_as_its_class(state) -> None:
    # A Sherman (20 cm tactical) drives 20 cm west from open ground onto the road.
    applied = act(state, "sherman_1", g.Move(unit="sherman_1", to="W 20"))
    legs = [s for s in applied.resolutions[0].steps if s.key == "manovra.step.leg"]
    assert [s.table.row for s in legs] == ["Piano- scoperto", "Strade"]
    assert [s.table.cell for s in legs] == ["tattico", "2 cm ogni 1"]
    sherman = applied.state.units["sherman_1"]
    assert sherman.position == Point(x=120, y=22) and sherman.terrain == "strade"
    # Into the farmhouse a tank may not go.
    state.units["sherman_1"].position = Point(x=70, y=75)
    refused(state, "sherman_1", g.Move(unit="sherman_1", to="N 15"), "manovra.move.impassable")


def test_a_move_without_a_destination_says_how(state) -> None:
    error = refused(
        state,
        "squadra_1",
        g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=4),
        "error.manovra.move_needs_to",
    )
    assert "to:" in error.localized("en")
    refused(
        state,
        "squadra_1",
        g.Move(unit="squadra_1", to="E 4", terrain="piano_scoperto"),
        "error.manovra.field_measures",
    )
    refused(
        state,
        "squadra_1",
        g.Move(unit="squadra_1", to="E 4", distance_cm=9),
        "error.manovra.distance_differs",
    )
    plain = g.new_game(load_bundled("esempio_normandia"))
    plain.step = g.TurnStep.MANOEUVRE
    refused(plain, "squadra_1", g.Move(unit="squadra_1", to="E 4"), "error.manovra.no_battlefield")
    refused(plain, "squadra_1", g.Move(unit="squadra_1", distance_cm=4), "error.option.missing")


# -- Fire ----------------------------------------------------------------------------------


def _near_the_mg(state) -> None:
    state.units["squadra_1"].position = Point(x=97, y=68)  # 12.4 cm from the MG team


def test_fire_measures_distance_and_target_terrain(state) -> None:
    _near_the_mg(state)
    applied = act(state, "squadra_1", g.Fire(unit="squadra_1", target="mg_team"), dice=SystemDice())
    measure, seen, volley = applied.resolutions
    assert measure.procedure == "measure" and measure.outcome.code == "manovra.measure.cm(cm=12.4)"
    steps = {s.key: dict(s.params) for s in measure.steps}
    assert steps["manovra.step.measured"]["cm"] == "12.4"
    assert steps["manovra.step.target_terrain"] == {
        "terrain": "postazione_sacchi",
        "area": "Postazione MG",
    }
    assert seen.procedure == "observation" and seen.outcome.key == "manovra.observe.seen"
    # The range band comes from the distance: 12.4 cm is breve for rifles (D12).
    assert volley.procedure == "small_arms" and volley.rolls[0].die.sides == 12
    line = applied.state.last_action.overlays[0]
    assert line.kind == "line_of_fire" and line.points == (Point(x=97, y=68), Point(x=100, y=80))


def test_blocked_sight_is_refused_naming_the_area(state) -> None:
    state.units["squadra_1"].position = Point(x=30, y=50)
    error = refused(
        state,
        "squadra_1",
        g.Fire(unit="squadra_1", target="gruppe_1"),
        "error.manovra.sight_blocked",
    )
    assert error.params["area"] == "Siepe di bocage"
    assert "Siepe di bocage" in error.localized("it")
    listed = [a.target for a in legal_actions(state) if a.verb == "fire"]
    assert "gruppe_1" not in listed


def test_a_players_differing_distance_is_refused_and_the_referee_overrides(state) -> None:
    _near_the_mg(state)
    error = refused(
        state,
        "squadra_1",
        g.Fire(unit="squadra_1", target="mg_team", distance_cm=14),
        "error.manovra.distance_differs",
    )
    assert error.params["measured"] == "12.4" and "12.4" in error.localized("en")
    # Within the rounding of a whole cm, the typed value is the measured one.
    act(
        state,
        "squadra_1",
        g.Fire(unit="squadra_1", target="mg_team", distance_cm=12),
        dice=SystemDice(),
    )
    applied = act(
        state,
        "squadra_1",
        g.Fire(unit="squadra_1", target="mg_team", distance_cm=14),
        side=None,
        dice=SystemDice(),
    )
    override = next(s for s in applied.resolutions[0].steps if s.key == "manovra.step.override")
    assert dict(override.params) == {"typed": "14", "measured": "12.4"}
    assert applied.resolutions[0].outcome.code == "manovra.measure.cm(cm=14)"


def test_legal_fire_lists_targets_in_sight_and_range_without_a_distance(state) -> None:
    _near_the_mg(state)
    shots = [a for a in legal_actions(state) if a.verb == "fire"]
    assert {a.target for a in shots} == {"mg_team"}
    assert all(
        "distance" not in a.options and not any(f.name == "distance" for f in a.free) for a in shots
    )
    moves = [a for a in legal_actions(state) if a.verb == "move" and "to" in a.options]
    assert moves and all(a.options["kind"] in ("tattico", "breve", "cauto") for a in moves)


# -- Blasts --------------------------------------------------------------------------------


def test_a_mortar_round_lands_by_its_scatter_and_the_bot_finds_the_units_within(state) -> None:
    state.units["mortai"].position = Point(x=97, y=66)  # 14.3 cm from the MG team
    state.units["gruppe_1"].position = Point(x=103, y=86)  # 5 cm from where the round lands
    state.units["mortai"].weapons["mortaio_60"] = 1  # one piece: one round (seed line 9)
    # Mortar direct fire: D8 + D6 − AD; the D8 (1: north) gives the direction: 1 + 1 − 1 = 1 cm.
    dice = ReplayingDice([1, 1], SystemDice())
    applied = act(
        state, "mortai", g.Fire(unit="mortai", target="mg_team", weapon="mortaio_60"), dice=dice
    )
    notice = next(n for n in applied.notices if n.key == "manovra.field.burst")
    assert notice.param("x") == "100" and notice.param("y") == "81"
    # Radius 4 cm (60 mm) + 3 cm of footprint, nearest first; the mortars are spared.
    assert notice.param("units") == "Squadra MG 42, Gruppe 1"
    fragments = [r for r in applied.resolutions if r.procedure == "he_fragments"]
    assert len(fragments) == 2
    overlays = applied.state.last_action.overlays
    assert [o.kind for o in overlays] == ["line_of_fire", "arrow", "circle"]
    assert overlays[2].radius == 4 and overlays[2].points == (Point(x=100, y=81),)
    assert not applied.state.bursts  # nothing left for players to name


def test_an_if_marker_lands_each_round_from_the_aimed_point(state) -> None:
    state.step = g.TurnStep.INDIRECT
    state.queue = []
    aim = state.units["mg_team"].position
    state.markers = [
        g.FireMarker(
            id="if1-1",
            battery="batteria_105",
            requested_by="comando_plotone",
            target="mg_team",
            aim=aim,
        )
    ]
    state.marker_order = ["if1-1"]
    applied = g.apply(
        state,
        g.ExecuteFire(marker="if1-1"),
        ReplayingDice([10, 3, 8], SystemDice()),
        actor_side="alleati",
    )
    scatter = applied.resolutions[0]
    step = next(s for s in scatter.steps if s.key == "manovra.step.scatter")
    assert dict(step.params)["direction"] == 3  # east
    cm = scatter.outcome.param("cm")
    marker = applied.state.markers[0]
    x, y = offset(aim, 90, float(cm))
    (landing,) = marker.landings
    assert math.isclose(landing.x, x) and math.isclose(landing.y, y)
    kinds = [o.kind for o in applied.state.last_action.overlays]
    assert kinds[0] == "point" and "circle" in kinds
    with pytest.raises(RulesError) as caught:
        g.apply(
            applied.state,
            g.Fragments(marker="if1-1", target="sherman_1"),
            SystemDice(),
            actor_side="alleati",
        )
    assert caught.value.key == "error.manovra.fragments_measured"


def test_callarty_aims_at_a_unit_a_place_or_coordinates(state) -> None:
    state.step = g.TurnStep.REQUESTS
    state.queue = []
    for target, where in (
        ("mg_team", Point(x=100, y=80)),
        ("cortile", Point(x=70, y=80)),
        ("60,90", Point(x=60, y=90)),
    ):
        fresh = state.model_copy(deep=True)
        applied = g.apply(
            fresh,
            g.RequestFire(
                unit="comando_plotone",
                battery="batteria_105",
                target=target,
                distance_cm=20,
                link="stesso_plotone_radio",
            ),
            ScriptedDice([6, 3]),
            actor_side="alleati",
        )
        assert applied.state.markers[0].aim == where
    with pytest.raises(RulesError) as caught:
        g.apply(
            state,
            g.RequestFire(
                unit="comando_plotone",
                battery="batteria_105",
                target="north wood",
                distance_cm=20,
                link="stesso_plotone_radio",
            ),
            ScriptedDice([6, 3]),
            actor_side="alleati",
        )
    assert caught.value.key == "error.field.unknown_place"


# -- Assault -------------------------------------------------------------------------------


def test_an_assault_is_measured_to_the_target(state) -> None:
    state.units["squadra_1"].position = Point(x=100, y=70)  # 10 cm from the MG team
    applied = act(
        state, "squadra_1", g.Assault(unit="squadra_1", target="mg_team"), dice=SystemDice()
    )
    assert applied.resolutions[0].outcome.code == "manovra.measure.cm(cm=8)"  # 2 cm short: contact
    assert applied.state.units["squadra_1"].position == Point(x=100, y=78)
    refused(
        state,
        "squadra_1",
        g.Assault(unit="squadra_1", target="mg_team", distance_cm=3),
        "error.manovra.distance_differs",
    )


# -- Map view ------------------------------------------------------------------------------


def test_map_view_hides_concealed_units_from_the_enemy() -> None:
    document = PLAY.setup(CAMPO)
    state = PLAY._load_state(document).model_copy(deep=True)
    state.units["pak"].statuses.append("concealed")
    document = PLAY._document(state)
    public = PLAY.view(document, SPECTATOR).map()
    axis = PLAY.view(document, Seat.of("asse")).map("en")
    allies = PLAY.view(document, Seat.of("alleati")).map()
    referee = PLAY.view(document, REFEREE).map()
    ids = lambda view: {c.unit_id for c in view.counters}  # noqa: E731
    assert "pak" not in ids(public) and "pak" not in ids(allies)
    assert "pak" in ids(axis) and "pak" in ids(referee)
    assert next(c for c in axis.counters if c.unit_id == "pak").hidden
    assert "obici" not in ids(referee)  # off the table
    assert (
        public.width_cm == 180
        and len(public.areas) == 6
        and public.sides == {"alleati": "Alleati", "asse": "Asse"}
    )
    assert PLAY.view(PLAY.setup("esempio_normandia"), SPECTATOR).map() is None


def test_a_format_3_document_loads_without_a_battlefield() -> None:
    document = PLAY.setup("esempio_normandia")
    old = {k: v for k, v in document.items() if k not in ("battlefield", "last_action")}
    old[FORMAT_KEY] = 3
    for unit in old["units"].values():
        unit.pop("position")
    loaded = PLAY.canonical(old)
    assert loaded["battlefield"] is None and loaded[FORMAT_KEY] == PLAY.document_format.version


def test_a_blast_on_a_concealed_unit_is_its_sides_to_read(state) -> None:
    """The Allied mortars' round bursts by the MG team and a concealed Gruppe 1: the burst's
    notice named Gruppe 1 and its fragments were resolved for every seat to read, telling
    the Allies where it hid. Now the channel reads the MG team alone; Gruppe 1's fragments
    (the bot's dice, not the firer's) are the Axis's."""
    state.units["mortai"].position = Point(x=97, y=66)  # 14.3 cm from the MG team
    state.units["gruppe_1"].position = Point(x=103, y=86)  # 5 cm from where the round lands
    state.units["gruppe_1"].statuses.append("concealed")
    state.units["mortai"].weapons["mortaio_60"] = 1  # one piece: one round (seed line 9)
    fire_at = g.Fire(unit="mortai", target="mg_team", weapon="mortaio_60")
    applied = act(state, "mortai", fire_at, dice=ReplayingDice([1, 1], SystemDice()))
    public = [n for n in applied.notices if n.secret_for is None]
    notice = next(n for n in public if n.key == "manovra.field.burst")
    assert notice.param("units") == "Squadra MG 42"
    kept = [n for n in applied.notices if n.secret_for == "asse"]
    assert [n.param("units") for n in kept] == ["Gruppe 1"]
    fragments = [r for r in applied.resolutions if r.procedure == "he_fragments"]
    assert [r.secret_for for r in fragments] == [None, "asse"]
    assert fragments[1].rolls and all(roll.side == "asse" for roll in fragments[1].rolls)


def test_an_he_miss_bursts_where_it_scatters_and_hits_friends_too(state) -> None:
    state.units["sherman_1"].position = Point(x=100, y=70)
    state.units["squadra_2"].position = Point(x=104, y=76)
    # TIRO D12 = 1 misses; D8 − AD = 5 − 1 = 4 cm, 5 = south: the round bursts at (100, 76).
    applied = act(
        state,
        "sherman_1",
        g.Fire(unit="sherman_1", target="mg_team", weapon="cannone_75", ammo="HE"),
        dice=ReplayingDice([1, 5], SystemDice()),
    )
    assert applied.resolutions[2].outcome.code == "manovra.heavy.miss_scatter(cm=4)"
    notice = next(n for n in applied.notices if n.key == "manovra.field.burst")
    assert (notice.param("x"), notice.param("y"), notice.param("radius")) == ("100", "76", "5")
    # 75 mm: 5 cm + 3 cm of footprint; the firing Sherman, 6 cm away, is spared.
    assert notice.param("units") == "Squadra MG 42, 2ª squadra"


def test_a_grenade_that_misses_lands_d8_minus_ad_off(state) -> None:
    state.units["squadra_1"].position = Point(x=100, y=75)
    # PT: D6 1 + AD 1 = 2 against D10 10 fails; D8 3 (east) − 1 = 2 cm: the blast at (102, 80).
    applied = act(
        state,
        "squadra_1",
        g.Fire(unit="squadra_1", target="mg_team", weapon="granate"),
        dice=ReplayingDice([1, 10, 3], SystemDice()),
    )
    circle = applied.state.last_action.overlays[-1]
    assert circle.kind == "circle" and circle.points == (Point(x=102, y=80),) and circle.radius == 3
    arrow = applied.state.last_action.overlays[-2]
    assert arrow.kind == "arrow" and arrow.points == (Point(x=100, y=80), Point(x=102, y=80))


def test_the_map_shows_the_last_fire_with_a_caption(state) -> None:
    _near_the_mg(state)
    applied = act(state, "squadra_1", g.Fire(unit="squadra_1", target="mg_team"), dice=SystemDice())
    document = PLAY._document(applied.state)
    view = PLAY.view(document, SPECTATOR).map("en")
    assert view.caption == "Unit 1st Squad fires at MG 42 Team"  # the reader's names, kept plain
    (line,) = view.overlays
    assert line.kind == "line_of_fire" and line.points[0] == Point(x=97, y=68)
    squad = next(c for c in view.counters if c.unit_id == "squadra_1")
    assert (squad.x, squad.y, squad.side, squad.models) == (97, 68, "alleati", 10)
    assert "crocevia" in PLAY.view(document, Seat.of("alleati")).names(
        "destination", legal_first=False
    )
