"""w40k4 procedures: formulas at their boundaries, exact odds, and the shooting chain's odds.

The chain's odds are composed (a single attack enumerated through the resolver, then
binomials): they are checked against the core's brute-force enumeration of the whole
resolver where that is small enough, and against a Monte-Carlo estimate for ten shots.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rules.core.dice import DiceTray, ScriptedDice
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.core.odds import enumerate_odds
from rules.w40k4 import PROCEDURES
from rules.w40k4.procedures import chain
from tests.core.every_face import EveryFace
from tests.fuzz.harness import SeededDice

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "shooting": [
        {"attacks": 3, "bs": 4, "strength": 4, "ap": 5, "toughness": 4, "save": 3, "models": 10},
        {"attacks": 2, "bs": 2, "strength": 3, "toughness": 4, "save": 6, "cover": "rovine"},
        {
            "auto_hits": 2,
            "strength": 4,
            "ap": 5,
            "toughness": 3,
            "save": 5,
            "cover": "muri",
            "ignores_cover": True,
            "models": 5,
        },
        {
            "attacks": 1,
            "auto_hits": 1,
            "hit_on": 4,
            "strength": 8,
            "ap": 3,
            "toughness": 4,
            "save": 3,
            "wounds": 2,
            "models": 2,
        },
        {"attacks": 2, "bs": 5, "strength": 2, "toughness": 5, "invulnerable": 4},
    ],
    "close_combat": [
        {"attacks": 3, "ws": 4, "target_ws": 4, "strength": 4, "toughness": 4, "save": 3},
        {
            "attacks": 2,
            "ws": 2,
            "target_ws": 5,
            "strength": 6,
            "toughness": 3,
            "wounds": 3,
            "wounds_taken": 1,
            "models": 2,
        },
    ],
    "vehicle_hits": [
        {"attacks": 2, "bs": 4, "strength": 8, "ap": 3, "armour": 11},
        {"attacks": 1, "bs": 3, "strength": 9, "ap": 1, "armour": 10, "open_topped": True},
        {"auto_hits": 2, "strength": 6, "armour": 10, "squadron": True, "models": 3},
        {"attacks": 2, "hit_on": 6, "strength": 4, "armour": 10, "facing": "rear"},
    ],
    "dangerous_terrain": [
        {"dice": 4},
        {"dice": 1, "kind": "vehicles"},
        {"dice": 2, "kind": "guns"},
    ],
    "leadership": [
        {"leadership": 8},
        {"leadership": 7, "modifier": -3, "reason": "combat"},
        {"leadership": 2, "modifier": -5, "reason": "losses"},
        {"leadership": 10, "modifier": 3, "reason": "tank_shock"},
    ],
    "escape": [
        {"initiative": 2, "winners_initiative": 4},
        {"initiative": 5, "winners_initiative": 1},
    ],
    "fall_back": [{}],
    "consolidate": [{}],
    "difficult_terrain": [{"distance": 4}, {"distance": 12, "limit": 12}, {"distance": 0}],
    "assault_move": [{"distance": 5}, {"distance": 5, "slowed": True}, {"distance": 7}],
    "reserves": [{"turn": 1}, {"turn": 2}, {"turn": 3}, {"turn": 4}, {"turn": 5}, {"turn": 9}],
    "blast_scatter": [
        {"bs": 4},
        {"template": "artiglieria", "bs": 3, "barrage": True},
        {"template": "artiglieria", "bs": 2},
    ],
    "deep_strike": [{}],
    "mishap": [{}],
    "penetration": [{"strength": 4, "armour": 10}, {"strength": 10, "armour": 14}],
    "vehicle_damage": [{}, {"glancing": True}, {"ap": 1, "open_topped": True}, {"squadron": True}],
    "measure": [
        {"what": "fire", "inches": 14.2, "terrain": "rovine", "cover": "muri", "crossed": "Bosco"},
        {"what": "assault", "inches": 5.5, "typed": 6},
    ],
    "movement": [
        {"unit_type": "fanteria", "distance": 6, "terrain": "difficult"},
        {"unit_type": "moto", "distance": 12, "terrain": "difficult"},
        {"unit_type": "jetbike", "distance": 12, "terrain": "difficult", "inside": True},
        {"unit_type": "artiglieria", "distance": 6, "terrain": "dangerous"},
        {"unit_type": "veicoli_altro", "distance": 13},
        {"unit_type": "veicoli_agrav", "distance": 20, "fast": True, "terrain": "difficult"},
    ],
    "combat_result": [
        {"side_a": "A", "side_b": "B", "suffered_a": 1, "suffered_b": 3},
        {"side_a": "A", "side_b": "B", "suffered_a": 2, "suffered_b": 2},
        {"side_a": "A", "side_b": "B", "suffered_a": 5, "suffered_b": 0},
    ],
}


def resolve(name: str, data: dict[str, Any], faces: list[int]):
    procedure = PROCEDURES[name]
    return procedure.resolve(procedure.parse_input(data), ScriptedDice(faces))


def test_every_procedure_has_examples():
    assert set(EXAMPLES) == set(PROCEDURES)


@pytest.mark.parametrize(("name", "data"), [(n, d) for n, cases in EXAMPLES.items() for d in cases])
def test_odds_are_exact_and_sum_to_one(name, data):
    procedure = PROCEDURES[name]
    odds = procedure.odds(procedure.parse_input(data))
    assert odds.exact
    total = sum(Fraction(e.numerator, e.denominator) for e in odds.entries)
    assert total == 1


# -- the chain: composed odds against brute force ------------------------------------------


SMALL = [
    ("shooting", {"attacks": 2, "bs": 3, "strength": 4, "toughness": 4, "models": 5}),
    (
        "shooting",
        {
            "attacks": 1,
            "auto_hits": 1,
            "hit_on": 4,
            "strength": 5,
            "ap": 4,
            "toughness": 4,
            "save": 4,
            "cover": "siepi",
            "models": 3,
        },
    ),
    (
        "shooting",
        {
            "attacks": 2,
            "bs": 4,
            "strength": 8,
            "toughness": 4,
            "save": 5,
            "wounds": 2,
            "wounds_taken": 1,
            "models": 2,
        },
    ),
    (
        "close_combat",
        {
            "attacks": 2,
            "ws": 3,
            "target_ws": 4,
            "strength": 3,
            "toughness": 4,
            "save": 5,
            "wounds": 3,
            "models": 1,
        },
    ),
    ("vehicle_hits", {"attacks": 2, "bs": 4, "strength": 6, "ap": 1, "armour": 10}),
    (
        "vehicle_hits",
        {
            "attacks": 1,
            "auto_hits": 1,
            "hit_on": 4,
            "strength": 7,
            "armour": 11,
            "squadron": True,
            "models": 2,
        },
    ),
    ("dangerous_terrain", {"dice": 3}),
]


@pytest.mark.parametrize(("name", "data"), SMALL)
def test_composed_odds_equal_the_brute_force_enumeration(name, data):
    procedure = PROCEDURES[name]
    parsed = procedure.parse_input(data)

    def run(source):  # type: ignore[no-untyped-def]
        # Every face of every die: the odds engine's grouped branches hidden from the tray.
        return procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome

    brute = enumerate_odds(run, 100_000)
    assert brute.exact
    composed = procedure.odds(parsed)
    as_fractions = lambda odds: {  # noqa: E731
        e.outcome.code: Fraction(e.numerator, e.denominator) for e in odds.entries
    }
    assert as_fractions(composed) == as_fractions(brute)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "shooting",
            {
                "attacks": 10,
                "bs": 4,
                "strength": 4,
                "ap": 5,
                "toughness": 4,
                "save": 4,
                "cover": "erba_alta",
                "models": 10,
            },
        ),
        ("vehicle_hits", {"attacks": 10, "bs": 3, "strength": 7, "ap": 2, "armour": 12}),
    ],
)
def test_ten_shots_agree_with_a_monte_carlo_estimate(name, data):
    procedure = PROCEDURES[name]
    parsed = procedure.parse_input(data)
    odds = procedure.odds(parsed)
    assert odds.exact and odds.paths < 500  # one attack enumerated, not 6^30 paths
    runs = 20_000
    source = SeededDice(random.Random(4040))
    counts = Counter(procedure.resolver(parsed, DiceTray(source)).outcome.code for _ in range(runs))
    for entry in odds.entries:
        p = entry.probability
        tolerance = 4 * (p * (1 - p) / runs) ** 0.5 + 0.002
        assert abs(counts[entry.outcome.code] / runs - p) <= tolerance, entry.outcome.code
    assert set(counts) <= {e.outcome.code for e in odds.entries}


def test_many_dice_stay_exact_and_fast():
    procedure = PROCEDURES["shooting"]
    data = procedure.parse_input(
        {"attacks": 200, "bs": 3, "strength": 4, "toughness": 4, "save": 5, "models": 1000}
    )
    odds = procedure.odds(data)
    assert odds.exact and len(odds.entries) > 50


def test_single_attack_probability_is_the_product_of_the_steps():
    data = PROCEDURES["shooting"].parse_input(
        {"attacks": 1, "bs": 4, "strength": 4, "ap": 5, "toughness": 4, "save": 4, "models": 1}
    )
    odds = PROCEDURES["shooting"].odds(data)
    # 3+ to hit, 4+ to wound, a 4+ save failed: 2/3 · 1/2 · 1/2
    assert odds.probability("w40k4.chain.casualties(n=1)") == pytest.approx(1 / 6)


# -- the chain: scripted dice ----------------------------------------------------------------


def test_shooting_chain_steps_in_order():
    resolution = resolve(
        "shooting",
        {
            "attacks": 4,
            "bs": 4,
            "strength": 4,
            "ap": 5,
            "toughness": 4,
            "save": 4,
            "cover": "siepi",
            "models": 10,
            "target": "x",
        },
        [1, 3, 6, 2, 4, 3, 5],
    )
    keys = [step.key for step in resolution.steps]
    assert keys == [
        "w40k4.step.to_hit",
        "w40k4.step.to_wound",
        "w40k4.step.saves",
        "w40k4.step.casualties",
    ]
    assert resolution.steps[0].outcome.code == "w40k4.chain.hits(n=2)"  # 3 and 6 hit on 3+
    assert resolution.steps[1].outcome.code == "w40k4.chain.wounds(n=1)"  # 4 wounds, 2 not
    save = resolution.steps[2]
    assert save.threshold.value == 4 and dict(save.params)["save"] == "armour"  # 4+ beats 6+
    assert resolution.outcome.code == "w40k4.chain.no_effect"
    # dice: hits 1,3,6,2 → 2 hits; wounds 4,3 → 1; the save 5 beats 4+
    assert [r.face for r in resolution.rolls] == [1, 3, 6, 2, 4, 3, 5]


def test_cover_beats_a_denied_armour_save_and_flamers_ignore_it():
    base = {
        "attacks": 1,
        "bs": 4,
        "strength": 4,
        "ap": 3,
        "toughness": 4,
        "save": 3,
        "cover": "rovine",
    }
    resolution = resolve("shooting", base, [6, 6, 4])
    assert dict(resolution.steps[2].params)["save"] == "cover"
    assert resolution.outcome.code == "w40k4.chain.no_effect"
    flamer = {**base, "attacks": 0, "auto_hits": 1, "ignores_cover": True}
    resolution = resolve("shooting", flamer, [6])
    assert resolution.steps[-2].key == "w40k4.step.no_save"
    assert resolution.outcome.code == "w40k4.chain.casualties(n=1)"


def test_invulnerable_save_when_the_armour_is_denied():
    data = {
        "attacks": 1,
        "bs": 4,
        "strength": 8,
        "ap": 2,
        "toughness": 4,
        "save": 2,
        "invulnerable": 5,
    }
    resolution = resolve("shooting", data, [6, 6, 5])
    assert dict(resolution.steps[2].params)["save"] == "invulnerable"
    assert resolution.outcome.code == "w40k4.chain.no_effect"


def test_cannot_wound_stops_the_chain():
    resolution = resolve("shooting", {"attacks": 2, "bs": 4, "strength": 3, "toughness": 6}, [6, 6])
    assert resolution.steps[1].outcome.code == "w40k4.chain.cannot_wound"
    assert resolution.outcome.code == "w40k4.chain.no_effect"


def test_wounds_per_model_and_instant_death():
    multi = {
        "attacks": 3,
        "bs": 4,
        "strength": 4,
        "toughness": 4,
        "wounds": 2,
        "wounds_taken": 1,
        "models": 3,
    }
    resolution = resolve("shooting", multi, [6, 6, 6, 6, 6, 6])
    assert resolution.outcome.code == "w40k4.chain.casualties_wounds(n=2,wounds=3)"
    assert dict(resolution.steps[-1].params)["wounds_taken"] == 0
    instant = {**multi, "strength": 8, "wounds_taken": 0}
    resolution = resolve("shooting", instant, [6, 6, 1, 6, 6])
    assert resolution.outcome.code == "w40k4.chain.casualties_wounds(n=2,wounds=2)"
    capped = {**instant, "attacks": 5, "models": 1, "wounds_taken": 1}
    resolution = resolve("shooting", capped, [6] * 10)
    assert resolution.outcome.code == "w40k4.chain.casualties_wounds(n=1,wounds=1)"


def test_close_combat_uses_the_ws_chart_and_refuses_bs():
    resolution = resolve(
        "close_combat",
        {"attacks": 2, "ws": 2, "target_ws": 5, "strength": 4, "toughness": 4},
        [5, 4, 4],
    )
    assert resolution.steps[0].threshold.value == 5
    assert resolution.steps[0].table.table == "corpo_a_corpo"
    with pytest.raises(InvalidInput):
        resolve("close_combat", {"attacks": 1, "bs": 4, "strength": 4, "toughness": 4}, [6])


# -- vehicles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "strength", "armour", "code"),
    [
        (1, 8, 10, "w40k4.penetration.none"),
        (1, 9, 10, "w40k4.penetration.glancing"),
        (1, 9, 11, "w40k4.penetration.none"),
        (2, 9, 11, "w40k4.penetration.glancing"),
        (3, 9, 11, "w40k4.penetration.penetrating"),
        (6, 4, 10, "w40k4.penetration.glancing"),
        (6, 4, 11, "w40k4.penetration.none"),
    ],
)
def test_penetration_at_its_boundaries(face, strength, armour, code):
    resolution = resolve("penetration", {"strength": strength, "armour": armour}, [face])
    assert resolution.outcome.code == code


@pytest.mark.parametrize(
    ("data", "face", "status", "total"),
    [
        ({}, 1, "shaken", 0),  # penetrating, VP-: 1 - 1 = 0 → line 1
        ({"ap": 3}, 4, "immobilised", 4),
        ({"glancing": True, "ap": 3}, 6, "immobilised", 4),
        ({"glancing": True}, 2, "shaken", -1),  # below 1 reads line 1
        ({"ap": 1, "open_topped": True}, 5, "exploded", 7),  # above 6 reads line 6
        ({"ap": 1}, 4, "wrecked", 5),
        ({"ap": 2, "squadron": True}, 4, "wrecked", 4),  # footnote: immobilised → wrecked
        ({"ap": 2, "open_topped": True}, 2, "weapon_destroyed", 3),
    ],
)
def test_vehicle_damage_modifiers_and_clamping(data, face, status, total):
    resolution = resolve("vehicle_damage", data, [face])
    assert resolution.outcome.code == f"w40k4.vehicle.result(status={status})"
    assert resolution.steps[0].total == total


def test_vehicle_chain_reports_the_worst_result():
    data = {"attacks": 2, "bs": 4, "strength": 8, "ap": 3, "armour": 10, "target": "v"}
    # hits 3, 3; penetration 2 (10: glancing) and 5 (13: penetrating); damage 6-2 → 4, 1
    resolution = resolve("vehicle_hits", data, [3, 3, 2, 5, 6, 1])
    results = [s.outcome.code for s in resolution.steps if s.key == "w40k4.step.damage"]
    assert results == [
        "w40k4.vehicle.result(status=immobilised)",
        "w40k4.vehicle.result(status=shaken)",
    ]
    assert resolution.outcome.code == "w40k4.vehicle.damage(status=immobilised)"
    assert [e.key for e in resolution.effects] == ["immobilised", "shaken"]


# -- tests and rolls -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "faces", "key"),
    [
        ({"leadership": 8}, [4, 4], "w40k4.test.passed"),
        ({"leadership": 8}, [4, 5], "w40k4.test.failed"),
        ({"leadership": 8, "modifier": -2}, [3, 3], "w40k4.test.passed"),
        ({"leadership": 8, "modifier": -2}, [3, 4], "w40k4.test.failed"),
        ({"leadership": 3, "modifier": -5}, [1, 1], "w40k4.test.passed_double_one"),
        ({"leadership": 3, "modifier": -5}, [1, 2], "w40k4.test.failed"),
    ],
)
def test_leadership_boundaries(data, faces, key):
    assert resolve("leadership", data, faces).outcome.key == key


def test_leadership_odds():
    odds = PROCEDURES["leadership"].odds(PROCEDURES["leadership"].parse_input({"leadership": 7}))
    assert odds.probability("w40k4.test.passed(reason=test)") == pytest.approx(21 / 36)
    low = PROCEDURES["leadership"].parse_input({"leadership": 2, "modifier": -10})
    assert PROCEDURES["leadership"].odds(low).probability(
        "w40k4.test.passed_double_one(reason=test)"
    ) == pytest.approx(1 / 36)


@pytest.mark.parametrize(
    ("faces", "key"),
    [
        ([3, 1], "w40k4.escape.escaped"),
        ([3, 2], "w40k4.escape.caught"),
        ([6, 1], "w40k4.escape.escaped"),
    ],
)
def test_escape_ties_are_caught(faces, key):
    # I 3 against winners' I 4: 3+3=6 vs 1+4=5 escapes; 6 vs 6 caught (equal or higher)
    assert resolve("escape", {"initiative": 3, "winners_initiative": 4}, faces).outcome.key == key


@pytest.mark.parametrize(
    ("turn", "faces", "key"),
    [
        (1, [], "w40k4.reserves.cannot"),
        (2, [3], "w40k4.reserves.stays"),
        (2, [4], "w40k4.reserves.arrives"),
        (3, [2], "w40k4.reserves.stays"),
        (3, [3], "w40k4.reserves.arrives"),
        (4, [1], "w40k4.reserves.stays"),
        (4, [2], "w40k4.reserves.arrives"),
        (5, [], "w40k4.reserves.arrives"),
        (50, [], "w40k4.reserves.arrives"),
    ],
)
def test_reserves_by_turn(turn, faces, key):
    assert resolve("reserves", {"turn": turn}, faces).outcome.key == key


def test_blast_scatter_subtracts_bs_unless_barrage():
    hit = resolve("blast_scatter", {"bs": 4}, [2])
    assert hit.outcome.code == "w40k4.scatter.on_target"
    # arrow, direction 3 o'clock, 2D6 = 5 - BS 4 = 1"
    near = resolve("blast_scatter", {"bs": 4}, [3, 3, 2, 3])
    assert near.outcome.code == "w40k4.scatter.scattered(inches=1)"
    assert dict(near.steps[-1].params)["clock"] == 3
    zero = resolve("blast_scatter", {"bs": 4}, [6, 12, 1, 3])
    assert zero.outcome.code == "w40k4.scatter.on_target"  # 4 - 4 = 0
    barrage = resolve(
        "blast_scatter", {"template": "artiglieria", "bs": 4, "barrage": True}, [3, 1, 1, 3]
    )
    assert barrage.outcome.code == "w40k4.scatter.scattered(inches=4)"
    odds = PROCEDURES["blast_scatter"].odds(PROCEDURES["blast_scatter"].parse_input({"bs": 6}))
    assert odds.probability("w40k4.scatter.on_target") == pytest.approx(1 / 3 + 2 / 3 * 15 / 36)


def test_deep_strike_and_mishap():
    landed = resolve("deep_strike", {}, [1])
    assert landed.outcome.code == "w40k4.deep_strike.on_target"
    drift = resolve("deep_strike", {}, [4, 9, 6, 6])
    assert drift.outcome.code == "w40k4.deep_strike.scattered(inches=12)"
    for face, effect in (
        (1, "destroyed"),
        (2, "destroyed"),
        (3, "misplaced"),
        (4, "misplaced"),
        (5, "delayed"),
        (6, "delayed"),
    ):
        assert resolve("mishap", {}, [face]).outcome.key == f"w40k4.mishap.{effect}"


def test_difficult_terrain_and_assault_moves():
    assert resolve("difficult_terrain", {"distance": 4}, [2, 4]).outcome.key == (
        "w40k4.difficult.reached"
    )
    assert resolve("difficult_terrain", {"distance": 4.5}, [2, 4]).outcome.code == (
        "w40k4.difficult.short(inches=4)"
    )
    # the highest die, capped by the limit
    assert resolve("difficult_terrain", {"distance": 6, "limit": 5}, [6, 1]).outcome.code == (
        "w40k4.difficult.short(inches=5)"
    )
    assert resolve("assault_move", {"distance": 6}, []).outcome.key == "w40k4.assault.charged"
    assert resolve("assault_move", {"distance": 6.5}, []).outcome.key == "w40k4.assault.failed"
    assert resolve("assault_move", {"distance": 3, "slowed": True}, [1, 2]).outcome.code == (
        "w40k4.assault.failed(inches=2)"
    )


def test_dangerous_terrain_counts_ones():
    resolution = resolve("dangerous_terrain", {"dice": 4, "target": "u"}, [1, 2, 1, 6])
    assert resolution.outcome.code == "w40k4.dangerous.failed_models(n=2)"
    assert resolution.effects[0].amount == 2
    odds = PROCEDURES["dangerous_terrain"].odds(
        PROCEDURES["dangerous_terrain"].parse_input({"dice": 2})
    )
    assert odds.probability("w40k4.dangerous.passed") == pytest.approx(25 / 36)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (
            {"unit_type": "fanteria", "distance": 6, "terrain": "difficult"},
            "w40k4.move.planned(slowed=slowed,dangerous=none)",
        ),
        (
            {"unit_type": "fanteria", "distance": 6, "terrain": "dangerous"},
            "w40k4.move.planned(slowed=slowed,dangerous=models)",
        ),
        (
            {"unit_type": "moto", "distance": 12, "terrain": "difficult"},
            "w40k4.move.planned(slowed=not_slowed,dangerous=models)",
        ),
        (
            {"unit_type": "jetbike", "distance": 12, "terrain": "difficult"},
            "w40k4.move.planned(slowed=not_slowed,dangerous=none)",
        ),
        (
            {"unit_type": "jetbike", "distance": 12, "terrain": "difficult", "inside": True},
            "w40k4.move.planned(slowed=not_slowed,dangerous=models)",
        ),
        (
            {"unit_type": "artiglieria", "distance": 4, "terrain": "difficult"},
            "w40k4.move.planned(slowed=slowed,dangerous=guns)",
        ),
        (
            {"unit_type": "artiglieria", "distance": 4, "terrain": "dangerous"},
            "w40k4.move.planned(slowed=slowed,dangerous=guns_and_models)",
        ),
        (
            {"unit_type": "veicoli_altro", "distance": 6, "terrain": "difficult"},
            "w40k4.move.planned_vehicle(slowed=not_slowed,dangerous=vehicles,speed=combattimento)",
        ),
        (
            {"unit_type": "veicoli_camminatori", "distance": 6, "terrain": "difficult"},
            "w40k4.move.planned_vehicle(slowed=slowed,dangerous=none,speed=combattimento)",
        ),
        ({"unit_type": "veicoli_altro", "distance": 20}, "w40k4.move.too_fast"),
        (
            {"unit_type": "veicoli_altro", "distance": 20, "fast": True},
            "w40k4.move.planned_vehicle(slowed=not_slowed,dangerous=none,speed=tavoletta)",
        ),
        (
            {"unit_type": "fanteria", "distance": 6},
            "w40k4.move.planned(slowed=not_slowed,dangerous=none)",
        ),
    ],
)
def test_movement_reads_the_terrain_table(data, code):
    assert resolve("movement", data, []).outcome.code == code


def test_movement_unknown_unit_type():
    with pytest.raises(UnknownName):
        resolve("movement", {"unit_type": "drago", "distance": 1}, [])


def test_combat_result():
    win = resolve(
        "combat_result", {"side_a": "A", "side_b": "B", "suffered_a": 3, "suffered_b": 1}, []
    )
    assert win.outcome.code == "w40k4.combat.won(side=B,lost_by=A)"
    draw = resolve(
        "combat_result", {"side_a": "A", "side_b": "B", "suffered_a": 0, "suffered_b": 0}, []
    )
    assert draw.outcome.code == "w40k4.combat.draw(n=0)"


def test_bad_inputs_are_rules_errors():
    bad = [
        ("shooting", {"attacks": 0, "strength": 4, "toughness": 4}),
        ("shooting", {"attacks": 1, "strength": 4, "toughness": 4}),
        ("shooting", {"attacks": 1, "bs": 3, "hit_on": 4, "strength": 4, "toughness": 4}),
        (
            "shooting",
            {"attacks": 1, "bs": 3, "strength": 4, "toughness": 4, "wounds": 2, "wounds_taken": 2},
        ),
        ("leadership", {"leadership": 11}),
        ("reserves", {"turn": 0}),
        ("vehicle_hits", {"attacks": 1, "ws": 3, "strength": 4, "armour": 10}),
    ]
    for name, data in bad:
        with pytest.raises(RulesError):
            PROCEDURES[name].parse_input(data)
    with pytest.raises(UnknownName):
        resolve(
            "shooting",
            {"attacks": 1, "bs": 4, "strength": 4, "toughness": 4, "cover": "lava"},
            [6, 6],
        )


def test_clear_composed_cache():
    chain.clear_composed_cache()
    procedure = PROCEDURES["shooting"]
    data = procedure.parse_input(EXAMPLES["shooting"][0])
    assert procedure.odds(data) == procedure.odds(data)


# -- large volleys: floating point past EXACT_PARTS_LIMIT ----------------------------------------


@pytest.mark.parametrize("p", [Fraction(1, 8), Fraction(1, 2), Fraction(35, 36), Fraction(1, 216)])
def test_floating_point_volleys_agree_with_exact_fractions(p):
    """The float binomials and their big-integer convolution stay within 1e-15 of exact."""
    exact = chain._convolve(chain._binomial(40, p, True), chain._binomial(37, 1 - p, True))
    approx = chain._convolve(chain._binomial(40, p, False), chain._binomial(37, 1 - p, False))
    assert exact.offset == 0
    floats = dict(approx.items())
    for k, term in enumerate(exact.terms):
        assert abs(Fraction(term, exact.denominator) - Fraction(floats.get(k, 0.0))) < 1e-15
    assert abs(sum(floats.values()) - 1) < 1e-14


def test_a_huge_volley_keeps_its_odds_within_rounding():
    data = PROCEDURES["shooting"].parse_input(
        {
            "attacks": 2000,
            "auto_hits": 2000,
            "bs": 4,
            "strength": 4,
            "ap": 5,
            "toughness": 4,
            "save": 4,
            "models": 1000,
            "wounds": 10,
        }
    )
    odds = PROCEDURES["shooting"].odds(data)
    total = sum(Fraction(e.numerator, e.denominator) for e in odds.entries)
    assert abs(total - 1) < Fraction(1, 10**12)
    single = {
        rolled: sum(
            (
                v
                for code, v in chain._single_attack(
                    "attack", chain._one(data, rolled, models=1, wounds=1, wounds_taken=0)
                )[0].items()
                if code != "w40k4.chain.no_effect"
            ),
            Fraction(0),
        )
        for rolled in (True, False)
    }
    mean = sum(int(e.outcome.param("wounds") or 0) * e.probability for e in odds.entries)
    assert abs(mean - float(2000 * single[True] + 2000 * single[False])) < 1e-6
