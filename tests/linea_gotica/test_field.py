# ruff: noqa: E501  (the scenario's YAML areas read best one per line)
"""linea_gotica on the battlefield (issue 16): the scenario's table, moves to destinations
through the terrain, measured fire and observation, HE landing at computed points, the map
view with hidden units."""

from __future__ import annotations

import pytest

from rules.core.battlefield import Point
from rules.core.errors import InvalidInput, RulesError
from rules.core.migrations import FORMAT_KEY
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.linea_gotica import field
from rules.linea_gotica import turn as g
from rules.linea_gotica.scenario import load_bundled, parse_scenario
from rules.linea_gotica.state import Phase
from rules.linea_gotica.surface import PLAY
from tests.linea_gotica.conftest import BUNDLED
from tests.linea_gotica.test_game import Game, codes

# A small table: a hedge at x 20–22 (an obstacle, not hiding), a wood (hides) in the
# middle, a road along the bottom edge, a house (hides) in the top right corner.
SCENARIO = """
id: campo
title: "Campo"
turns: 4
weapons:
  fucile: {name: Fucile, row: fucile}
  cannone: {name: Cannone 75, row: cannone_77, calibre_mm: 75}
  mg: {name: MG, row: mitragliatrice}
sides:
  - id: blu
    name: Blu
    supports:
      - {id: batteria, name: Batteria, kind: artiglieria, contact: generale, calibre_mm: 105}
    units:
      - id: squadra
        name: Squadra
        quality: elite
        figures:
          - {role: leader, weapon: fucile}
          - {role: soldato, weapon: fucile, count: 3}
      - id: carro
        name: Carro
        quality: elite
        vehicle: {type: carri, weight: medio}
        weapons: [cannone, mg]
      - id: osservatore
        name: Osservatore
        quality: elite
        observer: true
        radio: true
        figures:
          - {role: osservatore, weapon: fucile}
  - id: rossi
    name: Rossi
    units:
      - id: nemici
        name: Nemici
        quality: elite
        figures:
          - {role: leader, weapon: fucile}
          - {role: soldato, weapon: fucile, count: 2}
      - id: pattuglia
        name: Pattuglia
        quality: elite
        figures:
          - {role: leader, weapon: fucile}
          - {role: soldato, weapon: fucile}
      - id: bunker
        name: Bunker
        quality: elite
        hidden: true
        cover: pesante
        figures:
          - {role: leader, weapon: fucile}
battlefield:
  width_cm: 100
  height_cm: 60
  open_terrain: aperto
  areas:
    - {id: strada, name: Strada, terrain: strada, shape: {kind: polygon, points: [{x: 0, y: 0}, {x: 100, y: 0}, {x: 100, y: 4}, {x: 0, y: 4}]}}
    - {id: siepe, name: Siepe, terrain: siepe, shape: {kind: polygon, points: [{x: 20, y: 5}, {x: 22, y: 5}, {x: 22, y: 60}, {x: 20, y: 60}]}}
    - {id: bosco, name: Bosco, terrain: bosco, blocks_sight: true, shape: {kind: circle, center: {x: 50, y: 30}, radius: 10}}
    - {id: casa, name: Casa, terrain: edificio, blocks_sight: true, shape: {kind: polygon, points: [{x: 80, y: 40}, {x: 90, y: 40}, {x: 90, y: 50}, {x: 80, y: 50}]}}
  points:
    guado: {x: 30, y: 30}
  deployment:
    squadra: {x: 18, y: 30}
    carro: {x: 10, y: 2}
    osservatore: {x: 5, y: 50}
    nemici: {x: 70, y: 30}
    pattuglia: {x: 40, y: 55}
    bunker: {x: 85, y: 45}
"""


@pytest.fixture()
def game() -> Game:
    return Game(g.new_game(parse_scenario(SCENARIO)))


def at(game: Game, unit_id: str) -> tuple[float, float]:
    point = game.state.positions[unit_id]
    return round(point.x, 1), round(point.y, 1)


# -- the scenario ------------------------------------------------------------------------------


def bundled_text() -> str:
    return (BUNDLED / "esempio_gotica_campo.yaml").read_text(encoding="utf-8")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "needle", "words"),
    [
        ("terrain: bosco, blocks", "terrain: giungla, blocks", "giungla", "unknown terrain class"),
        ("    stug: {x: 90, y: 110}", "    tigre: {x: 90, y: 110}", "tigre:", "unknown unit"),
        (
            "    ponte_sud: {x: 90, y: 45}",
            "    ponte_sud: {x: 190, y: 45}",
            "ponte_sud",
            "off the table",
        ),
        ("    stug: {x: 90, y: 110}\n", "", "- id: stug", "stug has no position"),
        ("    gruppe: {x: 55, y: 72}", "    gruppe: {x: 55, y: 60}", "gruppe: {x: 55", "cover"),
    ],
)
def test_battlefield_errors_name_the_line(old, new, needle, words):
    text = bundled_text()
    assert old in text
    broken = text.replace(old, new)
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(broken, "esempio_gotica_campo.yaml")
    error = caught.value
    assert error.key == "error.scenario.invalid_line", error.params
    assert words in str(error.params["detail"])
    if needle == "ponte_sud":
        # The point off the table is the battlefield's own check (pydantic's): its section.
        assert int(error.params["line"]) >= line_of(broken, "battlefield:")
    else:
        assert int(error.params["line"]) == line_of(broken, needle)


def test_the_bundled_scenario_places_each_unit_in_its_terrain():
    scenario = load_bundled("esempio_gotica_campo")
    assert scenario.battlefield is not None
    state = g.new_game(scenario)
    assert {
        u.id: (u.place, u.cover.value) for u in state.units.values() if u.side == "tedeschi"
    } == {
        "gruppe": ("siepe", "leggera"),
        "mg_casolare": ("casolare", "pesante"),
        "cecchino": ("campanile", "leggera"),
        "stug": ("strada", "nessuna"),
    }
    assert set(state.positions) == set(state.units)


def test_a_game_without_battlefield_refuses_to(game):
    state = g.new_game(parse_scenario(SCENARIO.split("battlefield:")[0]))
    typed = Game(state)
    typed.to_phase(Phase.MOVEMENT)
    typed.refused("error.linea_gotica.field.none", "move", "blu", unit="squadra", to="N 5")
    typed("move", "blu", unit="squadra", kind="normale", distance=10)


# -- moving --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "where"),
    [
        ("10,24", (10.0, 24.0)),
        ("10;24", (10.0, 24.0)),
        ("guado", (30.0, 30.0)),
        ("S 10", (18.0, 20.0)),
        ("90° 2", (20.0, 30.0)),
        ("toward osservatore 10", (12.6, 38.4)),
    ],
)
def test_each_destination_form(game, to, where):
    game.to_phase(Phase.MOVEMENT)
    if to == "guado":
        # 12 cm but across the hedge: a large obstacle takes the whole turn.
        game.refused("linea_gotica.move.whole_turn_only", "move", "blu", unit="squadra", to=to)
        return
    applied = game("move", "blu", unit="squadra", to=to)
    assert at(game, "squadra") == where
    assert applied.notices[0].key == "linea_gotica.field.path"
    assert game.state.marks[0].kind == "arrow"


def test_the_allowance_is_refused_past_it(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused("linea_gotica.move.too_far", "move", "blu", unit="squadra", to="S 17")
    game.refused("linea_gotica.move.too_far", "move", "blu", unit="squadra", kind="cauto", to="S 9")
    applied = game("move", "blu", unit="squadra", kind="corsa", to="S 24")
    assert applied.resolutions[0].outcome.code == "linea_gotica.move.ok(allowance=24,cm=24)"


def test_a_move_needs_to_with_a_battlefield_and_typed_distance_must_match(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused("error.linea_gotica.field.to_needed", "move", "blu", unit="squadra", distance=5)
    game.refused(
        "error.linea_gotica.field.distance_differs",
        "move",
        "blu",
        unit="squadra",
        to="S 10",
        distance=14,
    )
    game.refused(
        "error.linea_gotica.field.from_map",
        "move",
        "blu",
        unit="squadra",
        to="S 5",
        cover="pesante",
    )
    # Lying down goes nowhere: no to: needed.
    game("move", "blu", unit="squadra", mods="alzarsi_sdraiarsi")
    assert game.unit("squadra").prone and at(game, "squadra") == (18, 30)


def test_terrain_along_the_path(game):
    fieldmap = game.state.field
    plan = field.plan_path(fieldmap, Point(x=30, y=30), Point(x=70, y=30))
    assert [(leg.terrain, round(leg.cm)) for leg in plan.legs] == [
        ("aperto", 10),
        ("bosco", 20),
        ("aperto", 10),
    ]
    assert plan.vehicle_mods == ("terreno_difficile",) and plan.foot_mods == ()
    # Stepping across the hedge takes the whole turn; farther is too far.
    game.to_phase(Phase.MOVEMENT)
    refusal = game.refused(
        "linea_gotica.move.whole_turn_only", "move", "blu", unit="squadra", to="30,30"
    )
    assert "no movement for 12 cm more" in refusal.localized("en")
    applied = game("move", "blu", unit="squadra", to="23,30")
    assert applied.resolutions[0].outcome.key == "linea_gotica.move.whole_turn"
    assert game.unit("squadra").place == "" and game.unit("squadra").cover.value == "nessuna"


def test_a_vehicle_on_the_road_and_off_it(game):
    game.to_phase(Phase.MOVEMENT)
    applied = game("move", "blu", unit="carro", to="E 50")
    assert applied.resolutions[0].outcome.code == "linea_gotica.move.ok(allowance=60,cm=50)"
    assert game.unit("carro").place == "strada"


def test_a_vehicle_kind_strada_off_the_road_is_refused_naming_the_ground(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.linea_gotica.field.off_road", "move", "blu", unit="carro", kind="strada", to="N 10"
    )
    applied = game("move", "blu", unit="carro", to="N 10")  # off road: 25 cm
    assert applied.resolutions[0].outcome.code == "linea_gotica.move.ok(allowance=25,cm=10)"


# -- fire --------------------------------------------------------------------------------------


def test_fire_measures_distance_and_target_terrain(game):
    game.to_phase(Phase.FIRE)
    applied = game("fire", "blu", (10,), unit="squadra", target="pattuglia", shooters=1)
    keys = [n.code for n in applied.notices]
    assert keys[0] == "linea_gotica.field.measured(cm=33.3)"
    assert keys[1].startswith("linea_gotica.field.target_terrain(target=Pattuglia,terrain=aperto")
    line = game.state.marks[0]
    assert line.kind == "line_of_fire" and line.points == (Point(x=18, y=30), Point(x=40, y=55))


def test_blocked_sight_is_refused_naming_the_area(game):
    game.to_phase(Phase.FIRE)
    with pytest.raises(RulesError) as caught:
        game("fire", "blu", unit="squadra", target="nemici")
    assert caught.value.key == "error.linea_gotica.field.blocked"
    assert caught.value.params["area"] == "Bosco"


def test_a_players_differing_distance_is_refused_and_the_referees_override_shown(game):
    game.to_phase(Phase.FIRE)
    with pytest.raises(RulesError) as caught:
        game("fire", "blu", unit="squadra", target="pattuglia", distance=20)
    assert caught.value.key == "error.linea_gotica.field.distance_differs"
    assert caught.value.params == {"typed": "20", "cm": "33.3"}
    game("fire", "blu", (10,), unit="squadra", target="pattuglia", distance=34, shooters=1)
    applied = game(
        "fire", None, (10, 10, 10), unit="carro", target="pattuglia", distance=20, weapon="mg"
    )
    assert applied.notices[0].code == "linea_gotica.field.override(typed=20,cm=60.9)"


def test_he_deviation_lands_at_a_computed_point_and_hits_the_units_there(game):
    game.to_phase(Phase.FIRE)
    # A miss (10), then the deviation d10 6: short 50 % of 60.9 cm = 31 cm back toward the
    # tank, 7 cm from the Squadra: inside the 75 mm round's long zone (8 cm). Each of its
    # four soldiers rolls for the HE (long zone, in the open: 4 or less) and all miss.
    applied = game(
        "fire", "blu", (10, 6, 9, 9, 9, 9), unit="carro", target="pattuglia", weapon="cannone"
    )
    found = next(n for n in applied.notices if n.key == "linea_gotica.field.blast_found")
    assert "Squadra (lunga" in str(found.param("units"))
    assert [r.procedure for r in applied.resolutions].count("he_effect") == 4
    arrow = next(m for m in game.state.marks if m.kind == "arrow")
    assert arrow.points[0] == Point(x=40, y=55)
    landed = arrow.points[1]
    assert round(landed.x, 1) == 24.7 and round(landed.y, 1) == 28.0
    circles = [m for m in game.state.marks if m.kind == "circle"]
    assert sorted(c.radius for c in circles) == [4, 8]
    blast = game.state.blasts[-1]
    assert blast.resolved == ["squadra"] and blast.center == landed
    game.refused(
        "error.linea_gotica.field.blast_resolved",
        "fragments",
        "blu",
        marker=blast.id,
        target="squadra",
    )


def test_indirect_fire_lands_where_the_ranging_shot_fell(game):
    # Turn 1: the observer contacts the battery (a general battery: Normal action).
    game.to_phase(Phase.FIRE)
    game("callarty", "blu", (1,), unit="osservatore", battery="batteria", target="pattuglia")
    mission = game.state.missions[0]
    assert mission.aim == Point(x=40, y=55)
    while game.state.turn == 1:
        game("turn.next", None)
    # Turn 2: the ranging shot, precise (1 ≤ Elite), row 3: 1d10 long → 4 cm beyond the
    # target along the observer's line (from the west: east, a little north).
    game.to_phase(Phase.FIRE)
    game("execute", "blu", (1, 3, 4), marker=mission.id)
    mission = game.state.missions[0]
    assert mission.landed is not None
    assert (round(mission.landed.x, 1), round(mission.landed.y, 1)) == (44.0, 55.6)
    while game.state.turn == 2:
        game("turn.next", None)
    # Turn 3: fire for effect; 105 mm: 5 / 10 cm. The Pattuglia is 4 cm away (short zone),
    # its two soldiers roll the HE die (7 or less in the open): both miss (9).
    game.to_phase(Phase.FIRE)
    applied = game("execute", "blu", (9, 9), marker=mission.id, order="effetto")
    found = next(n for n in applied.notices if n.key == "linea_gotica.field.blast_found")
    assert "Pattuglia (breve, 4 cm)" in str(found.param("units"))


def test_observation_measures_and_respects_sight(game):
    game.to_phase(Phase.OBSERVE_MOVE)
    # The wood lies between the squad and the bunker: refused, naming it.
    with pytest.raises(RulesError) as caught:
        game("test", "blu", unit="squadra", kind="osservare", target="bunker")
    assert caught.value.key == "error.linea_gotica.field.blocked"
    assert caught.value.params["area"] == "Bosco"
    # The observer sees past the wood; the house the bunker stands in does not hide it.
    applied = game("test", "blu", (1,), unit="osservatore", kind="osservare", target="bunker")
    assert applied.notices[0].code == "linea_gotica.field.measured(cm=80.2)"
    assert not game.unit("bunker").hidden


# -- the map ----------------------------------------------------------------------------------


def test_hidden_units_are_absent_from_the_public_map_view(game):
    document = game.state.model_dump(mode="json")
    public = PLAY.view(document, SPECTATOR).map()
    assert public is not None and public.unit == "cm" and public.width_cm == 100
    assert "bunker" not in {c.unit_id for c in public.counters}
    assert "bunker" not in {c.unit_id for c in PLAY.view(document, Seat.of("blu")).map().counters}
    own = {c.unit_id: c for c in PLAY.view(document, Seat.of("rossi")).map().counters}
    assert own["bunker"].hidden
    referee = PLAY.view(document, REFEREE).map()
    assert {c.unit_id for c in referee.counters} == set(game.state.units)
    squad = next(c for c in referee.counters if c.unit_id == "squadra")
    assert (squad.x, squad.y, squad.models, squad.initial_models, squad.side) == (
        18,
        30,
        4,
        4,
        "blu",
    )
    assert [a.label for a in referee.areas] == ["Strada", "Siepe", "Bosco", "Casa"]


def test_no_battlefield_no_map():
    state = g.new_game(parse_scenario(SCENARIO.split("battlefield:")[0]))
    assert PLAY.view(state.model_dump(mode="json"), SPECTATOR).map() is None


def test_destination_autocomplete_and_listed_moves(game):
    document = game.state.model_dump(mode="json")
    assert PLAY.view(document, Seat.of("blu")).names("destination", legal_first=False)[:2] == [
        "guado",
        "strada",
    ]
    from rules.linea_gotica.legal import legal_actions

    game.to_phase(Phase.MOVEMENT)
    moves = [a for a in legal_actions(game.state) if a.verb == "move" and a.unit == "squadra"]
    assert moves and all("to" in a.options for a in moves)
    for action in moves:
        probe = Game(game.state.model_copy(deep=True))
        probe("move", "blu", **action.options)


def test_fire_lists_only_targets_in_sight_and_range(game):
    from rules.linea_gotica.legal import legal_actions

    game.to_phase(Phase.FIRE)
    fire = [a for a in legal_actions(game.state) if a.verb == "fire" and a.unit == "squadra"]
    assert {a.target for a in fire} == {"pattuglia"}  # the wood hides Nemici
    assert all("distance" not in {s.name for s in a.free} for a in fire)


# -- mines -------------------------------------------------------------------------------------

MINED = SCENARIO.replace(
    "sides:\n",
    "minefields:\n"
    "  - {id: mine, name: Mine, kind: antiuomo, owner: rossi, shape: {kind: circle, center: {x: 18, y: 15}, radius: 3}}\n"
    "sides:\n",
    1,
)


def test_a_path_through_a_minefield_sets_it_off_and_spotting_measures_it():
    game = Game(g.new_game(parse_scenario(MINED)))
    document = game.state.model_dump(mode="json")
    assert "Mine" not in {a.label for a in PLAY.view(document, Seat.of("blu")).map().areas}
    assert "Mine" in {a.label for a in PLAY.view(document, Seat.of("rossi")).map().areas}
    assert "Mine" not in {a.label for a in PLAY.view(document, SPECTATOR).map().areas}
    game.to_phase(Phase.MOVEMENT)
    # 12 cm from the squad (measured to its edge): mines are spotted within 5 cm.
    game.refused(
        "error.linea_gotica.mines_too_far",
        "test",
        None,
        unit="squadra",
        kind="mine",
        minefield="mine",
    )
    # The squad walks south through the mines: the first soldier sets one off (short zone).
    applied = game("move", "blu", (9,), unit="squadra", to="S 16")
    assert [r.procedure for r in applied.resolutions] == ["foot_move", "he_effect"]
    assert "blu" in game.state.minefields["mine"].known_to


def test_a_minefield_a_side_does_not_know_is_a_name_nobody_has_until_its_search_finds_it():
    """Naming a minefield the side cannot see was answered "too far" (a name nobody has:
    "unknown"): the side learnt it was there, and by moving, where. Its squads search
    without a name; the roll is made whatever lies near, and only a passed roll within
    reach finds it."""
    game = Game(g.new_game(parse_scenario(MINED)))
    game.to_phase(Phase.MOVEMENT)
    for name in ("mine", "nothing_here"):
        refused = game.refused(
            "error.linea_gotica.unknown_minefield",
            "test",
            "blu",
            unit="squadra",
            kind="mine",
            minefield=name,
        )
        assert refused.localized("en") == f"Unknown minefield: {name}."
        game.refused(
            "error.linea_gotica.unknown_minefield",
            "move",
            "blu",
            unit="squadra",
            kind="cauto",
            to="N 1",
            minefield=name,
        )
    # 12 cm away: a passed search finds nothing, as on a table with no mines.
    far = game("test", "blu", (1,), unit="squadra", kind="mine")
    assert codes(far) == ["linea_gotica.action.passed(purpose=mine)"]
    assert [n.key for n in far.notices] == ["linea_gotica.mines.none_spotted"]
    assert game.state.minefields["mine"].known_to == ["rossi"]
    game("move", "blu", unit="squadra", kind="cauto", to="S 8")  # 4 cm from its edge
    failed = game("test", "blu", (10,), unit="squadra", kind="mine")
    assert [n.key for n in failed.notices] == ["linea_gotica.mines.none_spotted"]
    found = game("test", "blu", (1,), unit="squadra", kind="mine")
    assert [n.key for n in found.notices] == ["linea_gotica.mines.spotted"]
    assert game.state.minefields["mine"].known_to == ["rossi", "blu"]
    document = game.state.model_dump(mode="json")
    assert "Mine" in {a.label for a in PLAY.view(document, Seat.of("blu")).map().areas}
    # Known now, it is the side's to name.
    game.refused(
        "error.linea_gotica.already_acted",
        "move",
        "blu",
        unit="squadra",
        kind="cauto",
        to="N 1",
        minefield="mine",
    )


def test_surrender_needs_visible_enemies_measured_within_30_cm(game):
    from rules.linea_gotica.orders import MoraleTest
    from rules.linea_gotica.turn.morale import _enemy_near

    squad = game.unit("squadra")
    assert not _enemy_near(game.state, squad, MoraleTest(unit="squadra", enemy_near=True))
    game.state.positions["pattuglia"] = Point(x=18, y=50)  # 20 cm away, nothing between
    assert _enemy_near(game.state, squad, MoraleTest(unit="squadra"))
    game.state.positions["bunker"] = Point(x=18, y=45)
    game.state.positions["pattuglia"] = Point(x=90, y=58)
    assert not _enemy_near(game.state, squad, MoraleTest(unit="squadra"))  # hidden: not seen


@pytest.mark.parametrize("hidden", [False, True], ids=["seen", "hidden"])
def test_an_air_attack_hits_the_units_in_its_zones(hidden: bool):
    text = SCENARIO.replace(
        "      - {id: batteria,",
        "      - {id: aereo, name: Aereo, kind: aereo, contact: dedicata, bombs: anti_fanteria, quality: elite}\n"
        "      - {id: batteria,",
    )
    game = Game(g.new_game(parse_scenario(text)))
    game.to_phase(Phase.FIRE)
    game("callarty", "blu", (1,), unit="osservatore", battery="aereo", target="pattuglia")
    mission = game.state.missions[0]
    while game.state.turn == 1:
        game("turn.next", None)
    game.to_phase(Phase.FIRE)
    # On target (precise, "Centro perfetto"): the Pattuglia is in the short 15 × 5 zone; its
    # two soldiers roll for the bombs and both miss.
    # Hidden since it was aimed at (a move with hidden:true): its side's to read.
    game.unit("pattuglia").hidden = hidden
    applied = game("execute", "blu", (1, 1, 9, 9), marker=mission.id)
    found = [n for n in applied.notices if n.key == "linea_gotica.field.blast_found"]
    kept = "rossi" if hidden else None
    told = [(None, "-"), (kept, "Pattuglia (breve)")] if hidden else [(None, "Pattuglia (breve)")]
    assert [(n.secret_for, n.param("units")) for n in found] == told
    assert [r.procedure for r in applied.resolutions] == ["ranging", "he_effect", "he_effect"]
    assert [r.secret_for for r in applied.resolutions] == [None, kept, kept]
    assert game.state.marks[-1].kind == "point"


def test_he_on_a_hidden_unit_is_its_sides_to_read(game):
    """The deviated round of test_he_deviation_lands_at_a_computed_point_and_hits_the_units_
    there, with blu's Squadra hidden: the burst's notice named it, with its zone and
    distance, and its soldiers' HE rolls were every seat's. Now the channel reads a burst
    that found nobody; the rest is blu's."""
    game.unit("squadra").hidden = True
    game.to_phase(Phase.FIRE)
    applied = game(
        "fire", "blu", (10, 6, 9, 9, 9, 9), unit="carro", target="pattuglia", weapon="cannone"
    )
    found = [n for n in applied.notices if n.key == "linea_gotica.field.blast_found"]
    assert [(n.secret_for, n.param("units")) for n in found] == [
        (None, "-"),
        ("blu", "Squadra (lunga, 7 cm)"),
    ]
    hits = [r for r in applied.resolutions if r.procedure == "he_effect"]
    assert len(hits) == 4 and {r.secret_for for r in hits} == {"blu"}


def test_a_hidden_units_move_and_shot_leave_no_mark_on_the_enemys_map(game):
    game.to_phase(Phase.MOVEMENT, first="rossi")
    game("move", "rossi", unit="bunker", to="W 5")
    assert game.unit("bunker").hidden
    document = game.state.model_dump(mode="json")
    for view in (
        PLAY.view(document, SPECTATOR).map(),
        PLAY.view(document, Seat.of("blu")).map(),
    ):
        assert view.overlays == () and "bunker" not in view.caption
    own = PLAY.view(document, Seat.of("rossi")).map()
    assert own.overlays[0].kind == "arrow" and "bunker" in own.caption


def test_a_visible_units_move_ending_where_a_hidden_unit_stands_is_drawn_for_all(game):
    """Hiding the arrow of a unit in sight because a hidden one stands at its end would
    tell the enemy one stands there: the marks hidden are those of a hidden unit's command."""
    game.to_phase(Phase.MOVEMENT, first="rossi")
    game("move", "rossi", unit="pattuglia", to="W 5")
    game.state.positions["bunker"] = game.state.positions["pattuglia"]
    assert game.unit("bunker").hidden and game.state.marks_of == ["pattuglia"]
    document = game.state.model_dump(mode="json")
    for seat in (SPECTATOR, Seat.of("blu")):
        view = PLAY.view(document, seat).map()
        assert [o.kind for o in view.overlays] == ["arrow"] and "pattuglia" in view.caption


def test_a_format_7_document_learns_who_conceals_and_whose_marks_it_shows(game):
    """A game saved before format 8: the sides with a unit hidden conceal, and a line or
    arrow is of the units at its ends (hidden from whoever may not see one, as before)."""
    bunker, patrol = game.state.positions["bunker"], game.state.positions["pattuglia"]
    game.state.marks = [field.line_mark(bunker, Point(x=1, y=1), "bunker → squadra")]
    old = game.state.model_dump(mode="json")
    for key in ("concealing", "marks_of"):
        del old[key]
    old[FORMAT_KEY] = 7
    current = PLAY.canonical(old)
    assert current["concealing"] == ["rossi"] and current["marks_of"] == ["bunker"]
    assert PLAY.view(current, Seat.of("blu")).map().overlays == ()
    assert PLAY.view(current, Seat.of("rossi")).map().overlays != ()
    old["marks"] = [field.arrow_mark(patrol, Point(x=1, y=1), "pattuglia").model_dump()]
    current = PLAY.canonical(old)
    assert current["marks_of"] == ["pattuglia"]
    assert PLAY.view(current, Seat.of("blu")).map().overlays != ()


def test_odds_at_a_hidden_unit_do_not_measure_it(game):
    from rules.core.dice import ScriptedDice
    from rules.linea_gotica.commands import build_command

    game.to_phase(Phase.FIRE)
    command = build_command("odds", {"unit": "carro", "target": "bunker", "weapon": "cannone"})
    with pytest.raises(RulesError) as caught:
        g.apply(game.state, command, ScriptedDice([]), actor_side="blu", preview=True)
    assert caught.value.key == "error.linea_gotica.not_spotted"


def test_smoke_on_an_area_blocks_sight_through_it(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.field.unknown_place", "test", "blu", unit="squadra", kind="fumo", place="nebbia"
    )
    game("test", "blu", (1,), unit="squadra", kind="fumo", place="siepe")
    game.to_phase(Phase.FIRE)  # the smoke took effect at the end of the movement phase
    assert game.state.smoke[0].effective
    with pytest.raises(RulesError) as caught:
        game("fire", "rossi", unit="pattuglia", target="squadra")
    assert caught.value.key == "error.linea_gotica.field.blocked"
    assert caught.value.params["area"] == "Siepe"


def test_the_observer_must_see_the_aimed_point(game):
    game.to_phase(Phase.FIRE)
    # The squad cannot see past the wood: no mortar call on the point behind it.
    game.state.units["squadra"].observer = True
    with pytest.raises(RulesError) as caught:
        game("callarty", "blu", unit="squadra", battery="batteria", target="70,30")
    assert caught.value.key == "error.linea_gotica.field.blocked"
    with pytest.raises(RulesError) as caught:
        game("callarty", "blu", unit="squadra", battery="batteria", target="bunker")
    assert caught.value.key == "error.field.unknown_place"  # hidden: no such place for blu


def test_a_format_4_document_migrates_without_a_battlefield():
    from rules.core.migrations import FORMAT_KEY
    from tests.linea_gotica.conftest import gotica_text_without_field

    document = PLAY.setup(None, gotica_text_without_field())
    old = {k: v for k, v in document.items() if k not in ("field", "positions", "marks")}
    old[FORMAT_KEY] = 4
    for mission in old.get("missions", []):
        mission.pop("aim", None)
    current = PLAY.canonical(old)
    assert current[FORMAT_KEY] == PLAY.document_format.version
    assert current["field"] is None and current["positions"] == {} and current["marks"] == []
    assert PLAY.view(current, SPECTATOR).map() is None


def test_map_counters_carry_status_words_in_the_games_language(game):
    document = game.state.model_dump(mode="json")
    own = {c.unit_id: c for c in PLAY.view(document, Seat.of("rossi")).map("en").counters}
    assert own["bunker"].statuses == ("hidden",)
    own = {c.unit_id: c for c in PLAY.view(document, Seat.of("rossi")).map("it").counters}
    assert own["bunker"].statuses != ("hidden",) and own["bunker"].statuses


def test_covering_fire_at_an_area_needs_sight_of_it(game):
    game.to_phase(Phase.COVERING)
    with pytest.raises(RulesError) as caught:
        game("fire", "blu", unit="carro", target="casa", kind="copertura", weapon="mg")
    assert caught.value.key == "error.linea_gotica.field.blocked"
    assert caught.value.params["area"] == "Bosco"
    game.refused(
        "error.field.unknown_place",
        "fire",
        "blu",
        unit="carro",
        target="guado",
        kind="copertura",
        weapon="mg",
    )
    applied = game("fire", "blu", unit="carro", target="siepe", kind="copertura", weapon="mg")
    assert applied.notices[0].key == "linea_gotica.covering.declared"


def test_an_unarmed_transport_out_of_its_squads_command_distance_rolls_first():
    text = SCENARIO.replace(
        "      - id: osservatore\n",
        "      - id: camion\n"
        "        name: Camion\n"
        "        quality: reclute\n"
        "        squad: squadra\n"
        "        vehicle: {type: ruotati_4x4, armoured: false}\n"
        "      - id: osservatore\n",
    ).replace(
        "    carro: {x: 10, y: 2}\n", "    carro: {x: 10, y: 2}\n    camion: {x: 18, y: 20}\n"
    )
    game = Game(g.new_game(parse_scenario(text)))
    from rules.linea_gotica.turn.common import transport_isolated

    assert not transport_isolated(game.state, game.unit("camion"))  # 10 cm of 16
    game.to_phase(Phase.MOVEMENT)
    game("move", "blu", unit="squadra", to="N 10")
    assert transport_isolated(game.state, game.unit("camion"))  # 20 cm
    applied = game("move", "blu", (10,), unit="camion", to="N 12")
    assert [r.procedure for r in applied.resolutions] == ["action"]
    assert at(game, "camion") == (18, 20) and game.unit("camion").activity == "moved"


def test_only_a_vehicle_names_a_squad():
    text = SCENARIO.replace(
        "        quality: elite\n        observer: true",
        "        quality: elite\n        squad: squadra\n        observer: true",
    )
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(text)
    assert "squad" in str(caught.value.params["detail"])
