"""manovra's odds branch on groups of faces (a test's pass/fail, a table's distinct cells, a
scatter's distinct distances) and compose repeated parts: they must equal, exactly, the odds
of enumerating every face of every die through the same resolver."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from rules.core.dice import DiceTray
from rules.core.errors import RulesError
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.core.resolution import Odds
from rules.manovra import PROCEDURES
from tests.core.every_face import EveryFace, fractions
from tests.core.examples import EXAMPLES
from tests.manovra.test_procedures_properties import STRATEGIES

# Brute force past this many paths is too slow for a test run: such inputs are skipped here
# (the explicit cases below reach further).
BRUTE_LIMIT = 1_500

DICE_PROCEDURES = sorted(set(PROCEDURES) - {"communication", "observation", "move"})


def _both(name: str, parsed: Any, limit: int) -> tuple[Odds, Odds]:
    procedure = PROCEDURES[name]
    clear_odds_cache()
    grouped = procedure.odds(parsed)
    every_face = enumerate_odds(
        lambda source: procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome, limit
    )
    return grouped, every_face


@pytest.mark.parametrize("name", DICE_PROCEDURES)
def test_grouped_odds_equal_every_face_on_drawn_inputs(name: str) -> None:
    @settings(
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=STRATEGIES[name])
    def run(data: dict[str, Any]) -> None:
        procedure = PROCEDURES[name]
        try:
            parsed = procedure.parse_input(data)
            grouped, every_face = _both(name, parsed, BRUTE_LIMIT)
        except RulesError:
            return
        assume(every_face.exact)
        assert grouped.exact
        assert fractions(grouped) == fractions(every_face)
        assert grouped.paths <= every_face.paths

    run()


@pytest.mark.parametrize(
    ("name", "data"), [(name, data) for name in DICE_PROCEDURES for data in EXAMPLES[name]]
)
def test_grouped_odds_equal_every_face_on_the_examples(name: str, data: dict[str, Any]) -> None:
    parsed = PROCEDURES[name].parse_input(data)
    grouped, every_face = _both(name, parsed, 50_000)
    assert grouped.exact and every_face.exact
    assert fractions(grouped) == fractions(every_face)
    assert sum(fractions(grouped).values()) == 1


# The former worst cases: every face of them takes thousands of paths (a second or two).
DEEP_CASES = [
    (
        "heavy_fire",
        {
            "band": "breve",
            "ad": 0,
            "target": "edificio_muro",
            "calibre_mm": 150,
            "ammo": "HE",
            "wall": "M",
            "building": "casa",
        },
    ),
    (
        "heavy_fire",
        {
            "band": "efficace",
            "ad": 1,
            "target": "carro_alto",
            "calibre_mm": 88,
            "ammo": "HE",
            "delivery": "mortar",
            "armour": {"torretta": 5, "scafo": 5, "cingolo": 1},
        },
    ),
    (
        "thrown",
        {
            "ad": 2,
            "target": "basso_profilo",
            "calibre_mm": 20,
            "armour": {"scafo": 0, "superiore": 1},
            "vehicle": True,
        },
    ),
    (
        "thrown",
        {
            "ad": 2,
            "target": "edificio_muro",
            "calibre_mm": 147,
            "wall": "M",
            "building": "casa",
            "cover": "pesante",
        },
    ),
    (
        "thrown",
        {"ad": 0, "target": "fanteria", "calibre_mm": 40, "cover": "leggero", "models_present": 4},
    ),
]


@pytest.mark.parametrize(("name", "data"), DEEP_CASES)
def test_grouped_odds_equal_every_face_on_deep_chains(name: str, data: dict[str, Any]) -> None:
    parsed = PROCEDURES[name].parse_input(data)
    grouped, every_face = _both(name, parsed, 100_000)
    assert grouped.exact and every_face.exact
    assert fractions(grouped) == fractions(every_face)
    assert grouped.paths * 5 < every_face.paths


# Far below the engine's limit (DEFAULT_PATH_LIMIT, 5,000 paths, past which no odds are
# given): the most any manovra input was found to need is 91 (twelve kinds of duel).
PATH_BOUND = 200

WORST_INPUTS = [
    ("close_combat", {"duels": [{"ad": i // 4, "opponent_ad": i % 4} for i in range(12)]}),
    ("incendiary", {"target": "fanteria", "models_touched": 20, "cover": "scoperto"}),
    ("panic_recovery", {"ad": 0, "commanders_cv": [0, 1, 2, 3, 0, 1]}),
    ("scatter", {"kind": "indiretto_fuori_campo", "ad": 0, "cv": 0}),
    (
        "heavy_fire",
        {
            "ad": 1,
            "target": "carro",
            "calibre_mm": 75,
            "band": "breve",
            "target_moving": True,
            "ammo": "HE",
            "gun_class": "17-25p",
            "impact": "gt75",
            "delivery": "indirect",
        },
    ),
    *DEEP_CASES,
]


@pytest.mark.parametrize("name", DICE_PROCEDURES)
def test_no_valid_input_comes_near_the_path_limit(name: str) -> None:
    @settings(max_examples=60, deadline=None, database=None)
    @given(data=STRATEGIES[name])
    def run(data: dict[str, Any]) -> None:
        procedure = PROCEDURES[name]
        try:
            parsed = procedure.parse_input(data)
            clear_odds_cache()
            odds = procedure.odds(parsed)
        except RulesError:
            return
        assert odds.exact and odds.paths <= PATH_BOUND, (odds.paths, data)

    run()


@pytest.mark.parametrize(("name", "data"), WORST_INPUTS)
def test_the_worst_inputs_found_stay_far_below_the_path_limit(
    name: str, data: dict[str, Any]
) -> None:
    clear_odds_cache()
    odds = PROCEDURES[name].odds(PROCEDURES[name].parse_input(data))
    assert odds.exact and odds.paths <= PATH_BOUND
    assert sum(fractions(odds).values()) == 1
