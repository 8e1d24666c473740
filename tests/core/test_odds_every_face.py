"""For every procedure of w40k4, linea_gotica and pzgren, over inputs drawn from their
property tests' strategies: the odds (grouped branches, sums, composition) equal exactly
the enumeration of every face of every die through the same resolver."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from rules.core.dice import DiceTray
from rules.core.errors import RulesError
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.core.ruleset import get_ruleset
from tests.core.every_face import EveryFace, fractions

# Brute force beyond this many paths is skipped (a big volley): composition is checked on
# the small inputs, where both run.
BRUTE_LIMIT = 5_000


def _strategies() -> list[tuple[str, str, Any]]:
    from tests.linea_gotica.test_properties import STRATEGIES as GOTICA
    from tests.pzgren import test_properties as pzgren
    from tests.w40k4.test_properties import STRATEGIES as W40K4

    found: list[tuple[str, str, Any]] = []
    found += [("w40k4", name, strategy) for name, strategy in W40K4.items()]
    found += [("linea_gotica", name, strategy(False)) for name, strategy in GOTICA.items()]
    found += [
        ("pzgren", "direct_fire", pzgren.direct_inputs),
        ("pzgren", "anti_tank", pzgren.at_inputs),
        ("pzgren", "morale", pzgren.morale_inputs),
    ]
    return found


def _cold_odds(procedure: Any, data: dict[str, Any]) -> tuple[Any, Any] | None:
    """The parsed input and its odds with every cache forgotten; None for an input the
    rules refuse (strategies also draw those)."""
    try:
        parsed = procedure.parse_input(data)
        clear_odds_cache()
        return parsed, procedure.odds(parsed)
    except RulesError:
        return None


CASES = _strategies()


@pytest.mark.parametrize(
    ("ruleset", "name", "strategy"), CASES, ids=[f"{r}.{n}" for r, n, _ in CASES]
)
def test_odds_equal_every_face(ruleset: str, name: str, strategy: Any) -> None:
    procedure = get_ruleset(ruleset).procedure(name)

    @settings(
        max_examples=15,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=strategy)
    def check(data: dict[str, Any]) -> None:
        cold = _cold_odds(procedure, data)
        if cold is None:
            return
        parsed, odds = cold
        try:
            every = enumerate_odds(
                lambda source: procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome,
                BRUTE_LIMIT,
            )
        except RulesError:  # the resolver refuses what the composed odds did not look at
            return
        if not every.exact:
            return
        assert odds.exact
        assert fractions(odds) == fractions(every), parsed

    check()


def test_the_strategies_cover_every_procedure() -> None:
    covered = {(ruleset, name) for ruleset, name, _ in CASES}
    for key in ("w40k4", "linea_gotica", "pzgren"):
        assert {(key, name) for name in get_ruleset(key).procedures} <= covered


def _small_volley(data: dict[str, Any]) -> dict[str, Any]:
    small = dict(data)
    for key in ("attacks", "auto_hits"):
        if isinstance(small.get(key), int):
            small[key] = min(small[key], 1)
    return small


def _by_weapon_skill(data: dict[str, Any]) -> dict[str, Any]:
    """Close combat hits by WS only: the shooting strategy's other ways to hit are dropped."""
    fixed = {key: value for key, value in data.items() if key not in ("bs", "hit_on")}
    fixed["ws"] = data.get("ws") or 3
    fixed["target_ws"] = data.get("target_ws") or 4
    return fixed


@pytest.mark.parametrize("name", ["shooting", "close_combat", "vehicle_hits", "dangerous_terrain"])
def test_small_w40k4_volleys_equal_every_face(name: str) -> None:
    """The strategies' volleys are mostly too big to enumerate face by face: cut to one
    attack and one automatic hit (or four dangerous-terrain dice)."""
    from tests.w40k4.test_properties import STRATEGIES

    procedure = get_ruleset("w40k4").procedure(name)
    compared = 0

    @settings(
        max_examples=80,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        data=STRATEGIES[name]
        .map(_small_volley)
        .map(_by_weapon_skill if name == "close_combat" else lambda data: data)
    )
    def check(data: dict[str, Any]) -> None:
        nonlocal compared
        if isinstance(data.get("dice"), int):
            data = {**data, "dice": min(data["dice"], 4)}
        try:
            parsed = procedure.parse_input(data)
            clear_odds_cache()
            odds = procedure.odds(parsed)
            every = enumerate_odds(
                lambda source: procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome,
                200_000,
            )
        except RulesError:
            return
        assert odds.exact and every.exact
        assert fractions(odds) == fractions(every), parsed
        compared += 1

    check()
    assert compared >= 3


WORST_CASES = [
    (
        "w40k4",
        "shooting",
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
        },
    ),
    (
        "w40k4",
        "vehicle_hits",
        {"attacks": 2000, "auto_hits": 2000, "bs": 4, "strength": 8, "armour": 10, "ap": 1},
    ),
    ("w40k4", "dangerous_terrain", {"dice": 2000}),
    ("w40k4", "blast_scatter", {"template": "artiglieria", "bs": 1}),
    ("w40k4", "deep_strike", {}),
    ("linea_gotica", "scatter_distance", {"dice": 4}),
    (
        "linea_gotica",
        "damage",
        {"spec": {"penetration": "cannone_40"}, "target": {"kind": "carro_armato", "weapons": 6}},
    ),
    (
        "linea_gotica",
        "he_effect",
        {
            "zone": "breve",
            "spec": {"penetration": "cannone_60"},
            "target": {"kind": "carro_armato", "weapons": 6},
        },
    ),
    *[
        (
            "linea_gotica",
            "direct_fire",
            {
                "quality": "elite",
                "weapon": weapon,
                "distance_cm": 5.0,
                "calibre_mm": 120,
                "target": {"kind": "carro_armato", "weapons": 6},
            },
        )
        for weapon in (
            "fucilone_controcarro",
            "mitragliatrice_area",
            "cannone_77",
            "cannoncino_area",
        )
    ],
]

# Far below DEFAULT_PATH_LIMIT (5,000): no valid input of these rulesets comes near it.
PATHS_AT_MOST = 60


@pytest.mark.parametrize(("ruleset", "name", "data"), WORST_CASES)
def test_worst_cases_stay_far_below_the_path_limit(ruleset: str, name: str, data: Any) -> None:
    procedure = get_ruleset(ruleset).procedure(name)
    clear_odds_cache()
    odds = procedure.odds(procedure.parse_input(data))
    assert odds.exact and odds.paths <= PATHS_AT_MOST
    assert abs(sum(e.probability for e in odds.entries) - 1) < 1e-12


@pytest.mark.parametrize(
    ("ruleset", "name", "strategy"), CASES, ids=[f"{r}.{n}" for r, n, _ in CASES]
)
def test_no_drawn_input_nears_the_path_limit(ruleset: str, name: str, strategy: Any) -> None:
    procedure = get_ruleset(ruleset).procedure(name)

    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=strategy)
    def check(data: dict[str, Any]) -> None:
        cold = _cold_odds(procedure, data)
        if cold is None:
            return
        parsed, odds = cold
        assert odds.exact and odds.paths <= PATHS_AT_MOST, (parsed, odds.paths)

    check()
