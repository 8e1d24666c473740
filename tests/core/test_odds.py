"""Exact odds by enumeration: toy resolvers, the path limit, the cache, every procedure."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rules.core.caches import BoundedCache
from rules.core.dice import D6, D8, D10, DiceTray, Die, SystemDice
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.core.resolution import Odds, Outcome
from rules.manovra import PROCEDURES
from tests.core.examples import EXAMPLES, case_id, example_cases


def _exact(odds: Odds) -> dict[str, Fraction]:
    return {e.outcome.code: Fraction(e.numerator, e.denominator) for e in odds.entries}


# -- toy resolvers ---------------------------------------------------------------------------


def test_one_d6_gives_six_outcomes_of_one_sixth():
    def run(source: Any) -> Outcome:
        return Outcome.of("face", n=DiceTray(source).roll(D6, "d6").face)

    odds = enumerate_odds(run)
    assert odds.exact
    assert odds.paths == 6
    assert len(odds.entries) == 6
    for entry in odds.entries:
        assert (entry.numerator, entry.denominator) == (1, 6)
        assert entry.probability == pytest.approx(1 / 6)
    assert sorted(int(e.outcome.param("n")) for e in odds.entries) == [1, 2, 3, 4, 5, 6]


def test_a_constant_resolver_has_one_path_of_certainty():
    odds = enumerate_odds(lambda source: Outcome.of("always"))
    assert odds.exact and odds.paths == 1
    assert [(e.outcome.code, e.numerator, e.denominator) for e in odds.entries] == [
        ("always", 1, 1)
    ]


def test_early_stopping_paths_are_weighted_by_the_dice_they_used():
    """Roll a D6: on 1-3 stop; else roll a D8 (5+ wins)."""

    def run(source: Any) -> Outcome:
        tray = DiceTray(source)
        if tray.roll(D6, "first").face <= 3:
            return Outcome.of("stopped")
        return Outcome.of("won" if tray.roll(D8, "second").face >= 5 else "lost")

    odds = enumerate_odds(run)
    assert odds.exact
    assert odds.paths == 3 + 3 * 8
    assert _exact(odds) == {
        "stopped": Fraction(1, 2),
        "won": Fraction(1, 4),
        "lost": Fraction(1, 4),
    }
    # entries are sorted by decreasing probability
    assert odds.entries[0].outcome.code == "stopped"
    assert sum(_exact(odds).values()) == 1


def test_uneven_tree_weights():
    """D10: 1 → stop; 2-10 → D6; on a 6, a D8 more. The sum of a D6 and D8 tail."""

    def run(source: Any) -> Outcome:
        tray = DiceTray(source)
        if tray.roll(D10, "a").face == 1:
            return Outcome.of("one")
        if tray.roll(D6, "b").face < 6:
            return Outcome.of("mid")
        return Outcome.of("tail", even=int(tray.roll(D8, "c").face % 2 == 0))

    odds = _exact(enumerate_odds(run))
    assert odds == {
        "one": Fraction(1, 10),
        "mid": Fraction(9, 10) * Fraction(5, 6),
        "tail(even=1)": Fraction(9, 10) * Fraction(1, 6) * Fraction(1, 2),
        "tail(even=0)": Fraction(9, 10) * Fraction(1, 6) * Fraction(1, 2),
    }
    assert sum(odds.values()) == 1


def test_path_limit_returns_inexact_empty_odds():
    def run(source: Any) -> Outcome:
        tray = DiceTray(source)
        return Outcome.of("sum", n=tray.roll(D6, "a").face + tray.roll(D6, "b").face)

    capped = enumerate_odds(run, limit=10)
    assert capped.exact is False
    assert capped.entries == ()
    assert capped.paths == 10
    assert capped.as_mapping() == {}
    assert capped.probability("sum(n=7)") == 0.0
    # exactly enough paths: exact
    full = enumerate_odds(run, limit=36)
    assert full.exact and full.paths == 36
    assert _exact(full)["sum(n=7)"] == Fraction(1, 6)


def test_non_deterministic_resolver_raises():
    calls = {"n": 0}

    def run(source: Any) -> Outcome:
        calls["n"] += 1
        tray = DiceTray(source)
        tray.roll(D6, "first")
        # asks for a different die on the same earlier faces: not a function of the dice
        tray.roll(D6 if calls["n"] % 2 else D8, "second")
        return Outcome.of("x")

    with pytest.raises(RuntimeError, match="non-deterministic"):
        enumerate_odds(run)


# -- BoundedCache --------------------------------------------------------------------------


def test_bounded_cache_evicts_the_least_recently_used():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)  # evicts b
    assert len(cache) == 2
    assert cache.get("b") is None
    assert cache.get("a") == 1
    assert cache.get("c") == 3
    cache.put("d", 4)  # evicts a (c was read after a)
    assert cache.get("a") is None
    assert (cache.get("c"), cache.get("d")) == (3, 4)


def test_bounded_cache_put_refreshes_and_clear_forgets():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)  # rewrite refreshes a
    cache.put("c", 3)  # evicts b
    assert cache.get("a") == 10
    assert cache.get("b") is None
    cache.clear()
    assert len(cache) == 0
    assert cache.get("a") is None


def test_bounded_cache_never_exceeds_its_capacity():
    cache: BoundedCache[int, int] = BoundedCache(5)
    for key in range(100):
        cache.put(key, key)
        assert len(cache) <= 5
    assert [cache.get(key) for key in range(95, 100)] == list(range(95, 100))


# -- every procedure -------------------------------------------------------------------------


def test_every_procedure_has_examples():
    assert set(EXAMPLES) == set(PROCEDURES)


@pytest.mark.parametrize("case", example_cases(), ids=case_id)
def test_procedure_odds_sum_to_exactly_one(case: tuple[str, dict[str, Any]]):
    name, data = case
    procedure = PROCEDURES[name]
    parsed = procedure.parse_input(data)
    odds = procedure.odds(parsed)
    assert odds.exact, f"{name}: {odds.paths} paths"
    assert odds.entries
    assert sum(Fraction(e.numerator, e.denominator) for e in odds.entries) == 1
    assert all(e.numerator > 0 for e in odds.entries)
    codes = [e.outcome.code for e in odds.entries]
    assert len(codes) == len(set(codes))
    assert math.isclose(sum(odds.as_mapping().values()), 1.0)
    # the same input's odds are cached
    assert procedure.odds(parsed) is odds
    # a resolution carries these odds, and its outcome is one of them
    resolution = procedure.resolve(parsed, SystemDice())
    assert resolution.odds == odds
    assert resolution.outcome.code in codes


def test_clear_odds_cache_recomputes_the_same_odds():
    procedure = PROCEDURES["test"]
    parsed = procedure.parse_input({"kind": "CT", "ad": 1, "cv": 1})
    first = procedure.odds(parsed)
    clear_odds_cache()
    second = procedure.odds(parsed)
    assert second is not first
    assert second == first


def test_ct_odds_are_the_textbook_fraction():
    """D6 + 1 + 2 ≥ D8: count the (d6, d8) pairs by hand."""
    procedure = PROCEDURES["test"]
    odds = _exact(procedure.odds(procedure.parse_input({"kind": "CT", "ad": 1, "cv": 2})))
    passed = sum(1 for d6 in range(1, 7) for d8 in range(1, 9) if d6 + 3 >= d8)
    assert odds["manovra.test.passed(test=CT)"] == Fraction(passed, 48)
    assert odds["manovra.test.failed(test=CT)"] == Fraction(48 - passed, 48)


def test_cc_odds_tie_is_the_diagonal():
    procedure = PROCEDURES["test"]
    odds = _exact(procedure.odds(procedure.parse_input({"kind": "CC", "ad": 0})))
    assert odds == {
        "manovra.test.won(test=CC)": Fraction(15, 36),
        "manovra.test.lost(test=CC)": Fraction(15, 36),
        "manovra.test.tie(test=CC)": Fraction(6, 36),
    }


# -- Monte-Carlo: the odds describe what the dice actually do ------------------------------

MONTE_CARLO_RUNS = 4000

MONTE_CARLO_CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "small_arms",
        {"target_kind": "fanteria", "band": "efficace", "ad": 1, "shots": 20, "models_present": 9},
    ),
    (
        "small_arms",
        {"target_kind": "veicolo", "band": "breve", "ad": 0, "shots": 30, "models_present": 4},
    ),
    (
        "heavy_fire",
        {
            "band": "breve",
            "ad": 1,
            "target": "carro",
            "calibre_mm": 75,
            "armour": {"scafo": 5, "torretta": 8},
        },
    ),
    ("test", {"kind": "CT", "ad": 1, "cv": 1}),
    ("test", {"kind": "IT", "ad": 1, "cv": 0, "opponent_ad": 0, "opponent_cv": 1}),
    ("scatter", {"kind": "indiretto_in_campo", "ad": 2, "cv": 1}),
    ("obstacle", {"obstacle": "mine", "target": "fanteria_artiglieria", "ad": 0}),
    ("incendiary", {"target": "fanteria", "models_touched": 2}),
]


@pytest.mark.parametrize("case", MONTE_CARLO_CASES, ids=case_id)
def test_monte_carlo_frequencies_match_the_exact_odds(case: tuple[str, dict[str, Any]]):
    name, data = case
    procedure = PROCEDURES[name]
    parsed = procedure.parse_input(data)
    odds = procedure.odds(parsed)
    assert odds.exact
    dice = SystemDice()
    seen = Counter(procedure.run(parsed, dice).outcome.code for _ in range(MONTE_CARLO_RUNS))
    expected = odds.as_mapping()
    assert set(seen) <= set(expected), (
        f"outcomes the odds call impossible: {set(seen) - set(expected)}"
    )
    for code, probability in expected.items():
        frequency = seen[code] / MONTE_CARLO_RUNS
        error = math.sqrt(probability * (1 - probability) / MONTE_CARLO_RUNS)
        tolerance = 4 * error + 0.01
        assert abs(frequency - probability) <= tolerance, (code, frequency, probability)


def test_monte_carlo_dice_stay_on_their_dice():
    """Every face a procedure draws from SystemDice is on its die."""
    procedure = PROCEDURES["heavy_fire"]
    parsed = procedure.parse_input(MONTE_CARLO_CASES[2][1])
    dice = SystemDice()
    for _ in range(500):
        for roll in procedure.run(parsed, dice).rolls:
            assert isinstance(roll.die, Die)
            assert 1 <= roll.face <= roll.die.sides
