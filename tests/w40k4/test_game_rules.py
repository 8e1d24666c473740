"""More w40k4 rules through the game logic: close combat against vehicles, wiped-out enemies,
artillery in difficult terrain, deep strikes, regrouping, and random commands."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.seatview import REFEREE, Seat
from rules.w40k4 import turn as g
from rules.w40k4.scenario import parse_scenario
from rules.w40k4.surface import PLAY
from tests.w40k4.test_game import Table, codes

SCENARIO = """
id: regole
title: regole
turns: 3
first_side: a
weapons:
  pistola: {name: Pistola, type: pistola, range: 12, strength: 4}
  mortaio: {name: Mortaio, type: pesante, range: 48, strength: 5, ap: 5, template: artiglieria,
            barrage: true}
sides:
  - id: a
    name: A
    units:
      - {id: fanti, name: Fanti, type: fanteria, models: 4,
         profile: {ws: 4, bs: 4, s: 4, t: 4, i: 4, a: 1, ld: 8, sv: 4}, weapons: {pistola: 4}}
      - {id: cannoni, name: Cannoni, type: artiglieria, models: 4, guns: 2,
         profile: {ws: 2, bs: 3, s: 3, t: 3, i: 2, a: 1, ld: 7}, weapons: {mortaio: 2}}
      - {id: terminati, name: Terminati, type: fanteria, models: 3, reserve: true,
         deep_strike: true, profile: {ws: 4, bs: 4, s: 4, t: 4, i: 4, a: 2, ld: 9, sv: 2}}
  - id: b
    name: B
    units:
      - {id: carro, name: Carro, type: veicoli_altro, models: 1, profile: {bs: 3},
         armour: {front: 12, side: 11, rear: 10}}
      - {id: pochi, name: Pochi, type: fanteria, models: 1,
         profile: {ws: 3, bs: 3, s: 3, t: 3, i: 3, a: 1, ld: 7, sv: 5}}
"""


@pytest.fixture()
def rules() -> Table:
    return Table(g.new_game(parse_scenario(SCENARIO)))


def to_assault(table: Table) -> None:
    table(g.Next(), "a")
    table(g.Next(), "a")
    assert table.state.phase is g.Phase.ASSAULT


def test_close_combat_against_a_stationary_vehicle(rules):
    to_assault(rules)
    rules(g.Assault(unit="fanti", target="carro", distance=2), "a")
    # 4 models × (1 + 1 charging) + 4 pistols = 12 attacks hit automatically (the tank did
    # not move); S4 against rear armour 10: 6 → 10 glancing, the others nothing.
    faces = [6] + [1] * 11 + [4]  # penetration dice, then the glancing hit's damage 4 - 2 - 1
    faces += [3]  # no longer locked: the assaulting unit consolidates D6"
    applied = rules(g.Combat(unit="fanti"), "a", faces)
    assert [r.procedure for r in applied.resolutions] == ["vehicle_hits", "consolidate"]
    assert codes(applied)[0] == "w40k4.vehicle.damage(status=shaken)"
    hits = applied.resolutions[0].steps[0]
    assert hits.key == "w40k4.step.auto_hits" and hits.outcome.code == "w40k4.chain.hits(n=12)"
    pen = applied.resolutions[0].steps[1]
    assert pen.params == (("facing", "rear"),)
    assert rules.unit("fanti").locked_with == [] and rules.unit("carro").locked_with == []
    # shaken until the end of its owner's next player turn (index 1: B's turn 1)
    assert rules.unit("carro").timed == {"shaken": 1}


def test_a_wiped_out_enemy_lets_the_winners_consolidate(rules):
    to_assault(rules)
    rules(g.Assault(unit="fanti", target="pochi", distance=2), "a")
    # 12 attacks on 3+ (WS 4 vs 3): one hits, wounds on 3+, the 5+ save fails.
    faces = [3] + [1] * 11 + [3, 1, 2]
    applied = rules(g.Combat(unit="fanti"), "a", faces)
    assert codes(applied) == [
        "w40k4.chain.casualties(n=1)",
        "w40k4.combat.won(side=A,lost_by=B)",
        "w40k4.consolidate.moved(inches=2)",
    ]
    assert not rules.state.pending


def test_artillery_guns_test_difficult_terrain(rules):
    applied = rules(g.Move(unit="cannoni", distance=4, terrain="difficult"), "a", [6, 1, 1, 2])
    assert codes(applied) == [
        "w40k4.move.planned(slowed=slowed,dangerous=guns)",
        "w40k4.difficult.reached(inches=6)",
        "w40k4.dangerous.failed_guns(n=1)",
    ]
    assert rules.unit("cannoni").guns == 1 and rules.unit("cannoni").models == 4
    # Crew and guns in terrain defined dangerous.
    other = Table(g.new_game(parse_scenario(SCENARIO)))
    applied = other(
        g.Move(unit="cannoni", distance=4, terrain="dangerous"), "a", [6, 6, 2, 2, 1, 1, 2, 2]
    )
    assert codes(applied)[-2:] == ["w40k4.dangerous.passed", "w40k4.dangerous.failed_models(n=2)"]
    assert other.unit("cannoni").models == 2


def test_barrage_scatters_without_the_bs_and_counts_the_template(rules):
    rules(g.Next(), "a")
    # Two mortars (one per gun): each template scatters; barrage ignores BS 3.
    applied = rules(g.Fire(unit="cannoni", target="carro", distance=30), "a", [3, 6, 1, 1, 1])
    assert codes(applied) == ["w40k4.scatter.scattered(inches=2)", "w40k4.scatter.on_target"]
    assert applied.resolutions[0].steps[0].key == "w40k4.step.template_barrage"
    assert len(rules.state.templates) == 2
    # The reply gives the line to type next, for both templates.
    next_line = next(n for n in applied.notices if n.key == "w40k4.fire.template_next")
    assert dict(next_line.params) == {"n": 2, "unit": "cannoni", "target": "carro"}
    assert translate(next_line.key, "en", **dict(next_line.params)) == (
        "Templates to place, one at a time: count the models under it and type "
        "/template unit:cannoni target:carro models:N (partial: those partly under)."
    )
    assert translate(next_line.key, "fr", **dict(next_line.params)).startswith(
        "Des gabarits à placer, un à la fois\u202f: "
    )
    # The first lands on nothing; the second on the tank: one hit, S5 + 5 = 10 < 12.
    applied = rules(g.PlaceTemplate(unit="cannoni", target="carro", models=0), "a")
    assert applied.notices[0].key == "w40k4.fire.template_empty"
    applied = rules(g.PlaceTemplate(unit="cannoni", target="carro", models=3), "a", [5])
    assert codes(applied) == ["w40k4.vehicle.no_effect"]
    rules.refused(
        g.PlaceTemplate(unit="cannoni", target="carro", models=1), "a", "error.w40k4.no_template"
    )


def test_deep_strikers_count_as_moved_and_cannot_assault(rules):
    for _ in range(5):
        rules(g.Next(), rules.state.active)
    applied = rules(g.Next(), "b", [4])  # turn 2: the reserve roll (4+) succeeds
    assert (rules.state.turn, rules.state.active) == (2, "a")
    assert codes(applied) == ["w40k4.reserves.arrives"]
    rules.refused(g.Move(unit="fanti", kind="deepstrike"), "a", "error.w40k4.not_arriving")
    applied = rules(g.Move(unit="terminati", kind="deepstrike", cover="crateri"), "a", [2])
    assert codes(applied) == ["w40k4.deep_strike.on_target"]
    unit = rules.unit("terminati")
    assert unit.moved and unit.deep_struck and unit.cover == "muri"
    rules.refused(g.Move(unit="terminati", distance=2), "a", "error.w40k4.already_moved")
    # A mishap on difficult terrain: misplaced, then every model takes a dangerous test.
    applied = rules(g.Move(unit="terminati", kind="mishap", terrain="difficult"), "a", [3, 1, 2, 2])
    assert codes(applied) == ["w40k4.mishap.misplaced", "w40k4.dangerous.failed_models(n=1)"]
    rules(g.Next(), "a")  # 1 of 3 lost in the movement phase: a morale check first
    rules(g.Morale(unit="terminati"), "a", [2, 2])
    assert rules.state.phase is g.Phase.SHOOTING
    rules(g.Next(), "a")
    rules.refused(
        g.Assault(unit="terminati", target="pochi", distance=2),
        "a",
        "error.w40k4.deep_struck_no_assault",
    )


def test_the_referee_moves_on_and_arrivals_go_back(rules):
    for _ in range(5):
        rules(g.Next(), rules.state.active)
    rules(g.Next(), "b", [6])
    assert rules.unit("terminati").location == "arriving"
    rules.refused(g.Next(), "a", "error.w40k4.arrivals_owed")
    rules(g.Next(), None)
    assert rules.unit("terminati").location == "reserve"


def test_below_half_strength_cannot_regroup(rules):
    unit = rules.state.units["fanti"]
    unit.models = 1
    unit.add("falling_back")
    rules.state.pending.append(g.PendingTest(unit="fanti", reason="regroup"))
    rules.refused(g.Move(unit="fanti", distance=3), "a", "error.w40k4.test_owed")
    applied = rules(g.Morale(unit="fanti"), "a", [2, 2])
    assert [n.key for n in applied.notices] == ["w40k4.morale.cannot_regroup"]
    assert codes(applied) == ["w40k4.fall_back.moved(inches=4)"]
    rules.refused(g.Move(unit="fanti", distance=3), "a", "error.w40k4.falling_back")
    rules(g.Next(), "a")
    rules(g.Next(), "a")
    rules.refused(
        g.Assault(unit="fanti", target="pochi", distance=2), "a", "error.w40k4.falling_back"
    )


def test_status_and_follow_ups_through_play(rules):
    document = rules.state.model_dump(mode="json")
    view = PLAY.view(document, REFEREE).status
    assert view.phase.code == "w40k4.phase.current(phase=movement,side=A)"
    assert [u.id for u in view.units] == ["fanti", "cannoni", "terminati", "carro", "pochi"]
    assert view.units[0].group == "Fanteria" and view.units[2].place == "reserve"
    assert PLAY.view(document, REFEREE).follow_ups == []
    assert PLAY.view(document, Seat.of("a")).names("kind", legal_first=False) == [
        "normal",
        "deepstrike",
        "mishap",
    ]
    assert PLAY.view(document, Seat.of("a")).names("target", legal_first=False) == [
        "carro",
        "pochi",
    ]
    assert PLAY.verbs() == (
        "turn.next",
        "move",
        "fire",
        "odds",
        "template",
        "assault",
        "combat",
        "morale",
        "test",
        "game.concede",
        "game.decide",
    )


# -- random commands ----------------------------------------------------------------------

VERB_OPTIONS: dict[str, dict[str, Any]] = {
    "turn.next": {},
    "move": {
        "unit": st.sampled_from(["fanti", "cannoni", "terminati", "carro", "pochi", "x"]),
        "distance": st.sampled_from([0, 3, 6, "7", "-1", "x"]),
        "terrain": st.sampled_from(["open", "difficult", "dangerous", "lava"]),
        "inside": st.booleans(),
        "cover": st.sampled_from(["rovine", "nessuna", "lava"]),
        "kind": st.sampled_from(["normal", "deepstrike", "mishap", "x"]),
        "target": st.sampled_from(["carro", "pochi", "fanti"]),
    },
    "fire": {
        "unit": st.sampled_from(["fanti", "cannoni", "carro"]),
        "target": st.sampled_from(["carro", "pochi", "fanti"]),
        "distance": st.sampled_from([1, 12, 30, 300]),
        "weapon": st.sampled_from(["pistola", "mortaio", "pistola,mortaio", ",", "x"]),
        "facing": st.sampled_from(["front", "side", "rear", "up"]),
        "models": st.integers(-1, 5),
    },
    "template": {
        "unit": st.sampled_from(["cannoni", "fanti"]),
        "target": st.sampled_from(["carro", "pochi"]),
        "models": st.integers(0, 3),
        "partial": st.integers(0, 3),
    },
    "assault": {
        "unit": st.sampled_from(["fanti", "cannoni", "carro"]),
        "target": st.sampled_from(["carro", "pochi", "fanti"]),
        "distance": st.sampled_from([1, 6, 7]),
        "terrain": st.sampled_from(["open", "difficult"]),
    },
    "combat": {"unit": st.sampled_from(["fanti", "carro", "pochi"])},
    "morale": {"unit": st.sampled_from(["fanti", "pochi"])},
    "test": {"unit": st.sampled_from(["fanti", "carro"]), "modifier": st.integers(-12, 3)},
}


@st.composite
def commands(draw):  # type: ignore[no-untyped-def]
    verb = draw(st.sampled_from(sorted(VERB_OPTIONS)))
    options = {}
    for name, strategy in VERB_OPTIONS[verb].items():
        if draw(st.booleans()):
            options[name] = draw(strategy)
    side = draw(st.sampled_from(["a", "b", None]))
    return verb, options, side


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(commands(), min_size=1, max_size=12))
def test_random_commands_resolve_or_refuse_cleanly(script):
    document = g.new_game(parse_scenario(SCENARIO)).model_dump(mode="json")
    for verb, options, side in script:
        before = dict(document)
        try:
            played = PLAY.act(document, Seat.of(side), verb, options, SystemDice())
        except RulesError as error:
            assert error.key
            assert document == before
            continue
        if verb != "odds":
            document = played.document
        _ = PLAY.view(document, REFEREE).status
        _ = PLAY.view(document, REFEREE).follow_ups
