"""Composed odds (independent repeated parts) equal brute-force enumeration exactly."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import pytest

from rules.core.dice import DiceTray
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.core.ruleset import get_ruleset
from tests.core.every_face import EveryFace, fractions

CASES = [
    ("manovra", "close_combat", {"duels": [{"ad": 1, "opponent_ad": 2}]}),
    (
        "manovra",
        "close_combat",
        {
            "duels": [
                {"ad": 1, "opponent_ad": 2},
                {"ad": 3, "opponent_ad": 0},
                {"ad": 1, "opponent_ad": 2},
            ]
        },
    ),
    ("manovra", "panic_recovery", {"ad": 1, "commanders_cv": [0, 2, 3]}),
    ("manovra", "incendiary", {"target": "fanteria", "models_touched": 3, "cover": "leggero"}),
]


@pytest.mark.parametrize(("ruleset", "name", "data"), CASES)
def test_composed_odds_equal_brute_force(ruleset: str, name: str, data: dict[str, Any]) -> None:
    procedure = get_ruleset(ruleset).procedure(name)
    parsed = procedure.parse_input(data)
    clear_odds_cache()
    composed = procedure.odds(parsed)
    brute = enumerate_odds(
        lambda source: procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome, 10**6
    )
    assert composed.exact and brute.exact
    assert fractions(composed) == fractions(brute)
    assert sum(fractions(composed).values()) == 1
    assert composed.paths < brute.paths


def test_big_repetitions_are_cheap_and_sum_to_one() -> None:
    cases = [
        ("close_combat", {"duels": [{"ad": i % 4, "opponent_ad": (i * 7) % 4} for i in range(12)]}),
        ("incendiary", {"target": "fanteria", "models_touched": 20, "cover": "scoperto"}),
        ("panic_recovery", {"ad": 0, "commanders_cv": [0, 1, 2, 3, 0, 1]}),
    ]
    for name, data in cases:
        procedure = get_ruleset("manovra").procedure(name)
        parsed = procedure.parse_input(data)
        clear_odds_cache()
        started = time.perf_counter()
        odds = procedure.odds(parsed)
        elapsed = time.perf_counter() - started
        assert odds.exact, name
        assert sum(fractions(odds).values()) == 1, name
        # Not a timing test (bench/ measures): composition keeps the paths few.
        assert odds.paths <= 200, (name, odds.paths, elapsed)


def test_huge_w40k4_volleys_compose_in_floating_point_and_sum_to_one() -> None:
    procedure = get_ruleset("w40k4").procedure("shooting")
    for attacks, auto_hits in ((2000, 0), (1000, 1000), (2000, 2000)):
        data = procedure.parse_input(
            {
                "attacks": attacks,
                "auto_hits": auto_hits,
                "bs": 4,
                "strength": 4,
                "ap": 5,
                "toughness": 4,
                "save": 4,
                "models": 1000,
                "wounds": 1,
            }
        )
        clear_odds_cache()
        odds = procedure.odds(data)
        total = sum(Fraction(e.numerator, e.denominator) for e in odds.entries)
        assert odds.exact and abs(total - 1) < Fraction(1, 10**9), (attacks, auto_hits)
        # The most likely casualty count sits near the mean of the two binomials.
        assert odds.entries[0].probability > 0.01


def test_a_budget_stops_an_enumeration_instead_of_stalling() -> None:
    from pydantic import BaseModel

    from rules.core.dice import D10
    from rules.core.odds import odds_budget
    from rules.core.procedures import Procedure
    from rules.core.resolution import Outcome, Resolution

    # A toy procedure of three D10 summed (1,000 paths): the manovra procedures now need
    # too few paths for the budget, checked every 64 paths, to ever cut them.
    class Nothing(BaseModel):
        pass

    def three_d10(_data: Nothing, tray: DiceTray) -> Resolution:
        total = sum(tray.roll(D10, "d10").face for _ in range(3))
        return Resolution("toy", "three_d10", (), Outcome.of("sum", n=total))

    procedure = Procedure("toy", "three_d10", Nothing, three_d10, "3D10", "three D10")
    data = Nothing()
    clear_odds_cache()
    with odds_budget(0.0):
        cut = procedure.odds(data)
    assert not cut.exact and not cut.entries
    # An inexact answer is not cached: without the budget the exact odds come.
    assert procedure.odds(data).exact
