"""w40k4 on a battlefield: positions kept by the bot, moves to places, measured fire and
assaults, blocked sight, cover from areas, templates and deep strikes that land where the
scatter takes them, the map view, and a turn through the service."""

from __future__ import annotations

import math
from typing import Any

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction, InvalidInput, RulesError
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import SPECTATOR, Seat
from rules.w40k4 import field
from rules.w40k4.scenario import parse_scenario
from rules.w40k4.surface import PLAY
from tests.bot.service_table import ServiceTable

SCENARIO = """\
id: campo_prova
ruleset: w40k4
title: "Campo di prova"
first_side: a
weapons:
  fucile: {name: "Fucile", type: raffica, range: 24, strength: 4, ap: 5}
  razzi: {name: "Lanciarazzi", type: pesante, range: 24, strength: 8, ap: 3, template: area}
sides:
  - id: a
    name: "Alfa"
    units:
      - {id: fanti, name: "Fanti", type: fanteria, models: 10, weapons: {fucile: 10},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 4}}
      - {id: carro, name: "Carro", type: veicoli_altro, models: 1, profile: {bs: 4},
         armour: {front: 11, side: 11, rear: 10}, weapons: {fucile: 1}}
      - {id: lanciatori, name: "Lanciatori", type: fanteria, models: 2, weapons: {razzi: 1},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 4}}
      - {id: veterani, name: "Veterani", type: fanteria, models: 5, weapons: {fucile: 5},
         reserve: true, deep_strike: true,
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 4}}
  - id: b
    name: "Beta"
    units:
      - {id: nemici, name: "Nemici", type: fanteria, models: 10, weapons: {fucile: 10},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 5}}
      - {id: dietro, name: "Dietro la torre", type: fanteria, models: 5, weapons: {fucile: 5},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 5}}
      - {id: gruppo, name: "Gruppo", type: fanteria, models: 10, weapons: {fucile: 10},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 5}}
      - {id: siepe, name: "Dietro la siepe", type: fanteria, models: 5, weapons: {fucile: 5},
         profile: {ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 5}}
battlefield:
  width_cm: 48
  height_cm: 48
  open_terrain: aperto
  areas:
    - {id: rovine, name: "Rovine", terrain: rovine,
       shape: {kind: polygon, points: [
         {x: 0, y: 10}, {x: 10, y: 10}, {x: 10, y: 20}, {x: 0, y: 20}]}}
    - {id: torre, name: "Torre", terrain: edifici, blocks_sight: true,
       shape: {kind: polygon, points: [
         {x: 20, y: 20}, {x: 28, y: 20}, {x: 28, y: 28}, {x: 20, y: 28}]}}
    - {id: minato, name: "Campo minato", terrain: pericoloso,
       shape: {kind: polygon, points: [
         {x: 30, y: 5}, {x: 40, y: 5}, {x: 40, y: 10}, {x: 30, y: 10}]}}
    - {id: siepi, name: "Siepi", terrain: siepi,
       shape: {kind: polygon, points: [
         {x: 0, y: 30}, {x: 20, y: 30}, {x: 20, y: 31}, {x: 0, y: 31}]}}
  points:
    centro: {x: 24, y: 12}
    nord: {x: 24, y: 44}
  deployment:
    fanti: {x: 5, y: 5}
    carro: {x: 35, y: 2}
    lanciatori: {x: 24, y: 4}
    nemici: {x: 5, y: 25}
    dietro: {x: 24, y: 40}
    gruppo: {x: 36, y: 20}
    siepe: {x: 10, y: 35}
"""


def new() -> dict[str, Any]:
    return PLAY.setup(None, SCENARIO)


def apply(
    document: dict[str, Any],
    verb: str,
    options: dict[str, Any],
    dice: list[int] | None = None,
    side: str | None = "a",
) -> Any:
    return PLAY.act(document, Seat.of(side), verb, options, ScriptedDice(dice or []))


def unit_at(document: dict[str, Any], unit: str) -> tuple[float, float] | None:
    at = document["units"][unit]["at"]
    return None if at is None else (at["x"], at["y"])


def refused(error: pytest.ExceptionInfo[RulesError], key: str, **params: Any) -> None:
    assert error.value.key == key, error.value.params
    for name, value in params.items():
        assert error.value.params[name] == value


def shooting(document: dict[str, Any]) -> dict[str, Any]:
    return apply(document, "turn.next", {}).document


# -- the scenario ------------------------------------------------------------------------------


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("change", "needle", "words"),
    [
        (("terrain: pericoloso", "terrain: lava"), "terrain: lava", "unknown terrain class"),
        (("    siepe: {x: 10, y: 35}", "    fantasma: {x: 10, y: 35}"), "fantasma", "unknown unit"),
        (("    nemici: {x: 5, y: 25}\n", ""), "id: nemici", "deployment must place it"),
        (("nord: {x: 24, y: 44}", "nord: {x: 24, y: 49}"), "y: 49", "off the table"),
        (
            ("    fanti: {x: 5, y: 5}", "    fanti: {x: 5, y: 5}\n    veterani: {x: 1, y: 1}"),
            "veterani: {x: 1",
            "in reserve",
        ),
        (
            (
                'id: fanti, name: "Fanti", type: fanteria,',
                'id: fanti, name: "Fanti", type: fanteria, cover: siepi,',
            ),
            "cover: siepi",
            "deployed in",
        ),
    ],
)
def test_battlefield_errors_name_the_line(change: tuple[str, str], needle: str, words: str):
    text = SCENARIO.replace(*change)
    assert text != SCENARIO
    with pytest.raises(InvalidInput) as error:
        parse_scenario(text, "prova.yaml")
    assert error.value.params["line"] == _line_of(text, needle)
    assert words in str(error.value.params["detail"])


def test_the_bundled_battlefield_fits_its_story():
    document = PLAY.setup("avamposto_campo")
    units = document["units"]
    # each unit deployed in the terrain whose cover it had in the table-less scenario
    assert units["squadra_tattica"]["cover"] == "muri"  # rovine of avamposto.yaml
    assert units["devastatori"]["cover"] == "muri"
    assert units["veterani"]["at"] is None and units["mortai"]["at"] is None  # in reserve
    assert document["battlefield"]["unit"] == "in"


def test_a_game_without_battlefield_refuses_to_and_has_no_map():
    document = PLAY.setup("avamposto")
    assert PLAY.view(document, SPECTATOR).map() is None
    assert PLAY.view(document, Seat.of("legione")).names("destination", legal_first=False) == []
    with pytest.raises(InvalidInput) as error:
        apply(document, "move", {"unit": "squadra_tattica", "to": "N 3"}, side="legione")
    refused(error, "error.w40k4.no_battlefield")


# -- moves ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("5,9", (5, 9)),
        ('5,9"', (5, 9)),
        ("centro", (24, 12)),
        ("rovine", (5, 15)),  # an area: its centre
        ("NE 4", (5 + 4 / math.sqrt(2), 5 + 4 / math.sqrt(2))),
        ("90° 3", (8, 5)),
        ("N 3in", (5, 8)),
        ("toward nemici 3", (5, 8)),
        ("verso nemici 3", (5, 8)),
    ],
)
def test_each_destination_form(text: str, point: tuple[float, float]):
    state = PLAY._load_state(new())
    found = field.destination(state, state.units["fanti"].at, text)  # type: ignore[arg-type]
    assert found.x == pytest.approx(point[0]) and found.y == pytest.approx(point[1])


def test_a_destination_off_the_table_or_unknown_is_refused():
    document = new()
    with pytest.raises(InvalidInput) as error:
        apply(document, "move", {"unit": "fanti", "to": "S 6"})
    refused(error, "error.w40k4.off_table")
    assert '"' in PLAY_text(error.value)
    with pytest.raises(RulesError) as unknown:
        apply(document, "move", {"unit": "fanti", "to": "palude"})
    refused(unknown, "error.field.unknown_place")


def PLAY_text(error: RulesError) -> str:
    return error.localized("en")


def test_a_move_goes_to_its_place_and_is_refused_past_the_allowance():
    document = new()
    with pytest.raises(IllegalAction) as without:
        apply(document, "move", {"unit": "fanti", "distance": 4})
    refused(without, "error.w40k4.needs_to")
    with pytest.raises(IllegalAction) as far:
        apply(document, "move", {"unit": "fanti", "to": "5,12"})  # 7" for a 6" move
    refused(far, "error.w40k4.too_far_measured", inches="7", limit=6)
    played = apply(document, "move", {"unit": "fanti", "to": "toward nemici 4"})
    assert unit_at(played.document, "fanti") == (5, 9)
    assert played.resolutions[0].outcome.code == "w40k4.measure.measured(inches=4)"
    assert [r.procedure for r in played.resolutions] == ["measure", "movement"]
    view = PLAY.view(played.document, SPECTATOR).map()
    assert view is not None and view.overlays[0].kind == "arrow"


def test_difficult_terrain_on_the_path_rolls_and_the_unit_stops_short():
    document = new()
    # 6" north: the last inch is in the ruins, so the infantry is slowed (2D6, highest)
    played = apply(document, "move", {"unit": "fanti", "to": "N 6"}, [2, 3])
    assert played.resolutions[1].outcome.code.startswith("w40k4.move.planned")
    assert played.resolutions[-1].outcome.code == "w40k4.difficult.short(inches=3)"
    assert unit_at(played.document, "fanti") == (5, 8)
    assert played.document["units"]["fanti"]["cover"] is None  # still in the open
    legs = dict(played.resolutions[0].steps[1].outcome.params)  # type: ignore[union-attr]
    assert "rovine 1" in str(legs["crossed"]) and "aperto 5" in str(legs["crossed"])
    reached = apply(document, "move", {"unit": "fanti", "to": "N 6"}, [6, 1])
    assert unit_at(reached.document, "fanti") == (5, 11)
    assert reached.document["units"]["fanti"]["cover"] == "muri"  # ruins: 4+


def test_dangerous_terrain_on_the_path_is_tested_and_a_typed_terrain_must_agree():
    document = new()
    with pytest.raises(IllegalAction) as typed:
        apply(document, "move", {"unit": "carro", "to": "N 10", "terrain": "open"})
    refused(typed, "error.w40k4.measured_terrain", measured="dangerous")
    played = apply(document, "move", {"unit": "carro", "to": "N 10"}, [4])
    procedures = [r.procedure for r in played.resolutions]
    assert procedures == ["measure", "movement", "dangerous_terrain"]
    assert played.document["units"]["carro"]["speed"] == "manovra"


# -- shooting ------------------------------------------------------------------------------------


def test_fire_measures_distance_and_cover_from_the_areas_crossed():
    document = shooting(new())
    played = apply(document, "fire", {"unit": "fanti", "target": "nemici"}, [6] * 60)
    measure = played.resolutions[0]
    assert measure.procedure == "measure"
    assert measure.outcome.code == "w40k4.measure.measured(inches=20)"
    terrain = dict(measure.steps[1].outcome.params)  # type: ignore[union-attr]
    assert terrain == {"terrain": "aperto", "cover": "muri", "crossed": "Rovine"}
    assert any(r.procedure == "shooting" for r in played.resolutions)
    view = PLAY.view(played.document, SPECTATOR).map()
    assert view is not None
    line = view.overlays[0]
    assert line.kind == "line_of_fire" and (line.points[0].x, line.points[1].y) == (5, 25)


def test_cover_behind_a_hedge_and_blocked_sight():
    state = PLAY._load_state(new())
    assert field.measure(state, state.units["lanciatori"], state.units["siepe"]).cover == "siepi"
    with pytest.raises(IllegalAction) as error:
        field.in_sight(state, state.units["lanciatori"], state.units["dietro"])
    refused(error, "error.w40k4.sight_blocked", area="Torre")
    document = shooting(new())
    with pytest.raises(IllegalAction) as fired:
        apply(document, "fire", {"unit": "lanciatori", "target": "dietro"})
    refused(fired, "error.w40k4.sight_blocked", area="Torre")
    # the referee may rule the launchers see past the tower: the resolution says so
    ruled = apply(
        document,
        "fire",
        {"unit": "lanciatori", "target": "dietro", "distance": 20},
        [1] * 10,
        None,
    )
    sight = ruled.resolutions[0].steps[-1]
    assert sight.outcome.code == "w40k4.measure.sight_override(area=Torre)"  # type: ignore[union-attr]
    assert ruled.document["last"]["overlays"][0]["blocked"] is True


def test_a_players_distance_is_refused_and_the_referee_overrides_it():
    document = shooting(new())
    with pytest.raises(IllegalAction) as error:
        apply(document, "fire", {"unit": "fanti", "target": "nemici", "distance": 18})
    refused(error, "error.w40k4.measured", typed="18", measured="20")
    same = apply(document, "fire", {"unit": "fanti", "target": "nemici", "distance": 20}, [6] * 60)
    assert same.resolutions[0].outcome.code == "w40k4.measure.measured(inches=20)"
    referee = apply(
        document, "fire", {"unit": "fanti", "target": "nemici", "distance": 11}, [6] * 60, None
    )
    assert referee.resolutions[0].outcome.code == "w40k4.measure.override(inches=11,measured=20)"
    # 11" is within rapid-fire half range: two shots per rifle
    shots = referee.resolutions[1].steps[0].rolls
    assert len(shots) == 20
    with pytest.raises(IllegalAction) as cover:
        apply(document, "fire", {"unit": "fanti", "target": "nemici", "cover": "nessuna"})
    refused(cover, "error.w40k4.measured_cover", measured="muri")


def test_a_blast_lands_where_it_scatters_and_hits_the_units_under_it():
    document = shooting(new())
    # hit symbol: the 3" template stays on the group; 2 models wholly under it, 8 partly
    played = apply(document, "fire", {"unit": "lanciatori", "target": "gruppo"}, [1] + [4] * 60)
    codes = [r.procedure for r in played.resolutions]
    assert codes == ["measure", "blast_scatter", "shooting"]
    assert played.resolutions[-1].steps[0].key == "w40k4.step.to_hit"
    under = [n for n in played.notices if n.key == "w40k4.field.under_template"]
    assert [dict(n.params) for n in under] == [
        {"weapon": "Lanciarazzi", "unit": "Gruppo", "full": 2, "partial": 8}
    ]
    circle = [o for o in played.document["last"]["overlays"] if o["kind"] == "circle"]
    assert circle == [
        {
            "kind": "circle",
            "points": [{"x": 36.0, "y": 20.0}],
            "radius": 1.5,
            "label": "Lanciarazzi",
            "blocked": False,
        }
    ]
    # an arrow at 12 o'clock (away from the firer), 2D6 8 - BS 4 = 4": it misses everyone
    scattered = apply(document, "fire", {"unit": "lanciatori", "target": "gruppo"}, [3, 12, 4, 4])
    arrow = next(o for o in scattered.document["last"]["overlays"] if o["kind"] == "arrow")
    end = arrow["points"][1]
    assert (end["x"], end["y"]) == pytest.approx((38.4, 23.2))
    assert [n.key for n in scattered.notices] == ["w40k4.fire.template_empty"]
    assert scattered.document["templates"] == []  # nothing left for /template


def test_under_template_counts_models_and_vehicles():
    state = PLAY._load_state(new())
    found = field.under_template(state, state.units["carro"].at, 2.5)  # type: ignore[arg-type]
    assert [(f.unit, f.full, f.partial) for f in found] == [("carro", 1, 0)]
    assert field.under_template(state, field.spot(47, 47), 2.5) == []


# -- deep strike ---------------------------------------------------------------------------------


def arriving(document: dict[str, Any]) -> dict[str, Any]:
    document = dict(document)
    units = dict(document["units"])
    units["veterani"] = {**units["veterani"], "location": "arriving"}
    document["units"] = units
    return document


def test_a_deep_strike_lands_at_its_point_or_rolls_the_mishap():
    document = arriving(new())
    with pytest.raises(IllegalAction) as error:
        apply(document, "move", {"unit": "veterani", "kind": "deepstrike"})
    refused(error, "error.w40k4.needs_to")
    landed = apply(
        document, "move", {"unit": "veterani", "kind": "deepstrike", "to": "centro"}, [1]
    )
    assert unit_at(landed.document, "veterani") == (24, 12)
    assert landed.document["units"]["veterani"]["mishap_rolled"]
    # an arrow to the north, 6": off the table from 46" up — a mishap, delayed (5)
    off = apply(
        document,
        "move",
        {"unit": "veterani", "kind": "deepstrike", "to": "24,46"},
        [3, 12, 3, 3, 5],
    )
    assert [r.procedure for r in off.resolutions] == ["deep_strike", "mishap"]
    assert off.notices[0].key == "w40k4.field.landing_off_table"
    assert off.document["units"]["veterani"]["location"] == "reserve"
    assert unit_at(off.document, "veterani") is None
    # landing on the launchers (within their footprint) is a mishap too: destroyed (1)
    crowded = apply(
        document, "move", {"unit": "veterani", "kind": "deepstrike", "to": "24,5"}, [1, 1]
    )
    assert crowded.notices[0].key == "w40k4.field.landing_on_unit"
    assert "destroyed" in crowded.document["units"]["veterani"]["statuses"]


# -- the map and the legal actions ---------------------------------------------------------------


def test_the_map_view_shows_every_unit_on_the_table_to_everyone():
    document = new()
    public = PLAY.view(document, SPECTATOR).map("en")
    assert public is not None and public.unit == "in" and public.width_cm == 48
    assert [c.unit_id for c in public.counters] == [
        "fanti",
        "carro",
        "lanciatori",
        "nemici",
        "dietro",
        "gruppo",
        "siepe",
    ]  # the veterans are in reserve: off the table
    assert {a.label for a in public.areas} == {"Rovine", "Torre", "Campo minato", "Siepi"}
    assert public.caption == ""  # no action yet: the front ends write the turn and phase
    own = PLAY.view(document, Seat.of("a")).map()
    referee = PLAY.view(document, REFEREE_SEAT).map()
    # w40k4 hides nothing: the same counters in every view
    assert own is not None and referee is not None
    assert own.counters == referee.counters == public.counters


def test_legal_moves_go_to_places_in_reach_and_fire_only_at_what_is_seen():
    document = new()
    moves = [a for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.verb == "move"]
    fanti = next(a for a in moves if a.options == {"unit": "fanti"})
    places = fanti.free[0].choices
    assert "toward nemici 6" in places and "nord" not in places
    for place in places:  # every listed destination is accepted
        apply(document, "move", {"unit": "fanti", "to": place}, [6, 6])
    fires = [a for a in PLAY.view(shooting(document), REFEREE_SEAT).every_legal if a.verb == "fire"]
    targets = {(a.options["unit"], a.options["target"]) for a in fires}
    assert ("fanti", "nemici") in targets
    assert ("lanciatori", "dietro") not in targets  # behind the tower
    assert all(spec.name != "distance" for a in fires for spec in a.free)
    assert "centro" in PLAY.view(document, Seat.of("a")).names("destination", legal_first=False)


# -- a turn through the service ------------------------------------------------------------------

CHANNEL = 4041
REFEREE, ANNA, BRUNO = 1, 2, 3


async def test_a_turn_on_the_battlefield_through_the_service(service, dice, store):
    table = ServiceTable(service, dice, CHANNEL)
    await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto_campo", language="en")
    await table(ANNA, "game.join", side="legione")
    await table(BRUNO, "game.join", side="predoni")
    await table.refused(ANNA, "move", "error.w40k4.needs_to", unit="squadra_tattica", distance=4)
    reply = await table(ANNA, "move", unit="mezzo_corazzato", to="toward banda 12")
    assert reply.resolutions[0].outcome.code == "w40k4.measure.measured(inches=12)"
    await table(ANNA, "turn.next")
    await table.refused(
        ANNA,
        "fire",
        "error.w40k4.measured",
        unit="devastatori",
        target="carro_predone",
        distance=30,
        weapon="cannone_laser",
    )
    reply = await table(
        ANNA,
        "fire",
        [6, 6, 1, 1],
        unit="devastatori",
        target="carro_predone",
        weapon="cannone_laser",
    )
    assert reply.resolutions[0].outcome.code == "w40k4.measure.measured(inches=35)"
    document = (await store.load(CHANNEL)).document
    assert document["units"]["mezzo_corazzato"]["at"] is not None
    view = PLAY.view(document, SPECTATOR).map()
    assert view is not None and view.overlays[0].kind == "line_of_fire"
    # the referee overrides a distance: the event log keeps both
    reply = await table(
        REFEREE,
        "fire",
        [1],
        unit="squadra_tattica",
        target="banda",
        distance=12,
        weapon="pistola",
    )
    assert reply.resolutions[0].outcome.code.startswith("w40k4.measure.override(inches=12")


def placed(document: dict[str, Any], **points: tuple[float, float]) -> dict[str, Any]:
    """The document with some units moved by hand (as a referee would set up a test)."""
    units = dict(document["units"])
    for unit, (x, y) in points.items():
        units[unit] = {**units[unit], "at": {"x": x, "y": y}}
    return {**document, "units": units}


def test_a_unit_across_the_line_of_fire_gives_cover():
    state = PLAY._load_state(placed(new(), siepe=(30, 12)))
    measured = field.measure(state, state.units["lanciatori"], state.units["gruppo"])
    assert measured.cover == "muri" and measured.crossed == ("Dietro la siepe",)


def test_a_tank_shock_drives_at_its_target_and_the_target_falls_back_to_its_edge():
    document = placed(new(), gruppo=(35, 12))
    with pytest.raises(IllegalAction) as error:
        apply(document, "move", {"unit": "carro", "to": "W 10", "target": "gruppo"})
    refused(error, "error.w40k4.tank_shock_path")
    # through the minefield (a dangerous test), the group fails its test and falls back 6"
    played = apply(
        document,
        "move",
        {"unit": "carro", "to": "toward gruppo 12", "target": "gruppo"},
        [4, 6, 6, 3, 3],
    )
    procedures = [r.procedure for r in played.resolutions]
    assert procedures == ["measure", "movement", "dangerous_terrain", "leadership", "fall_back"]
    assert unit_at(played.document, "carro") == (35, 12)
    assert unit_at(played.document, "gruppo") == (35, 18)  # towards side b's edge, the top
    assert played.document["last"]["key"] == "w40k4.map.fell_back"


def test_an_assault_measures_its_reach_and_ends_in_contact():
    document = placed(new(), nemici=(5, 9))
    document = apply(apply(document, "turn.next", {}).document, "turn.next", {}).document
    with pytest.raises(IllegalAction) as far:
        apply(document, "assault", {"unit": "lanciatori", "target": "gruppo"})
    refused(far, "error.w40k4.out_of_reach", inches="20", limit=6)
    with pytest.raises(IllegalAction) as typed:
        apply(document, "assault", {"unit": "fanti", "target": "nemici", "distance": 2})
    refused(typed, "error.w40k4.measured", typed="2", measured="4")
    played = apply(document, "assault", {"unit": "fanti", "target": "nemici"})
    assert [r.outcome.code for r in played.resolutions] == [
        "w40k4.measure.measured(inches=4)",
        "w40k4.assault.charged(inches=6)",
    ]
    assert unit_at(played.document, "fanti") == (5, 8)  # 1" from the enemy: base contact
    assert played.document["units"]["fanti"]["locked_with"] == ["nemici"]
    listed = [a for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.verb == "assault"]
    assert [(a.options["unit"], a.options["target"], a.free) for a in listed] == [
        ("fanti", "nemici", ())
    ]


def test_the_caption_says_the_last_action_in_the_games_language():
    document = arriving(new())
    landed = apply(
        document, "move", {"unit": "veterani", "kind": "deepstrike", "to": "centro"}, [1]
    )
    view = PLAY.view(landed.document, SPECTATOR).map("fr")
    assert view is not None
    assert view.caption == "L'unité Veterani frappe en profondeur (déviation 0\")"
    assert [o.kind for o in view.overlays] == ["point"]
    assert "Veterani" in [c.unit_id.capitalize() for c in view.counters]


def test_the_status_says_where_each_unit_stands():
    places = {u.id: u.place for u in PLAY.view(new(), REFEREE_SEAT).status.units}
    assert places["fanti"] == "aperto:5, 5" and places["veterani"] == "reserve"
    moved = apply(new(), "move", {"unit": "fanti", "to": "N 6"}, [6, 6])
    assert {u.id: u.place for u in PLAY.view(moved.document, REFEREE_SEAT).status.units}[
        "fanti"
    ] == "rovine:5, 11"


def test_a_flamer_hits_the_models_under_its_template():
    document = placed(PLAY.setup("avamposto_campo"), camminatore=(46, 16))
    for _ in range(4):  # to the raiders' shooting phase
        document = apply(document, "turn.next", {}, side=None).document
    state = PLAY._load_state(document)
    under = field.under_flamer(state, state.units["camminatore"], state.units["devastatori"].at)  # type: ignore[arg-type]
    assert [(u.unit, u.full) for u in under] == [("devastatori", 5)]
    fire = {"unit": "camminatore", "target": "devastatori", "weapon": "lanciafiamme"}
    with pytest.raises(IllegalAction) as error:
        apply(document, "fire", {**fire, "models": 2}, side="predoni")
    refused(error, "error.w40k4.measured", typed="2", measured="5")
    played = apply(document, "fire", fire, [6] * 10, side="predoni")
    flames = played.resolutions[-1]
    assert flames.steps[0].key == "w40k4.step.auto_hits"
    assert [o["kind"] for o in played.document["last"]["overlays"]] == ["line_of_fire", "arrow"]
    listed = [
        a
        for a in PLAY.view(document, REFEREE_SEAT).every_legal
        if a.options.get("weapon") == "lanciafiamme"
    ]
    assert listed and all(spec.name != "models" for a in listed for spec in a.free)
    ruled = apply(document, "fire", {**fire, "models": 2}, [6] * 10, side=None)
    assert "2" in str(dict(ruled.notices[0].params)["full"])


def test_a_unit_that_may_not_move_says_why_before_asking_for_to():
    moved = apply(new(), "move", {"unit": "fanti", "to": "N 2"}).document
    with pytest.raises(IllegalAction) as again:
        apply(moved, "move", {"unit": "fanti", "distance": 2})
    refused(again, "error.w40k4.already_moved")
    with pytest.raises(IllegalAction) as reserve:
        apply(new(), "move", {"unit": "veterani", "to": "centro"})
    refused(reserve, "error.w40k4.in_reserve")


def test_a_players_cover_on_a_move_must_be_the_terrains():
    with pytest.raises(IllegalAction) as error:
        apply(new(), "move", {"unit": "fanti", "to": "N 2", "cover": "rovine"})
    refused(error, "error.w40k4.measured_cover", typed="muri", measured="nessuna")
    ruled = apply(new(), "move", {"unit": "fanti", "to": "N 2", "cover": "rovine"}, side=None)
    assert ruled.document["units"]["fanti"]["cover"] == "muri"  # the referee's ruling stands
