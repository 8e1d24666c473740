"""Property tests: every procedure resolves any valid-schema input or refuses it cleanly;
odds are exact, sum to 1, and agree with a Monte-Carlo estimate of the same resolver."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import Die, ScriptedDice
from rules.core.errors import RulesError
from rules.pzgren import PROCEDURES
from rules.pzgren.tables import load_tables

TABLES = load_tables()
COLUMN_KEYS = [row.id or "" for row in TABLES["modificateurs_colonne"].rows]
UNIT_KEYS = [r.id or "" for r in TABLES["modificateurs_colonne"].rows if r.data["scope"] == "unit"]
AT_KEYS = [row.id or "" for row in TABLES["modificateurs_antichars"].rows]
faces = st.lists(st.integers(1, 6), min_size=2, max_size=2)
unit_ids = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)

target_units = st.lists(
    st.fixed_dictionaries(
        {
            "id": unit_ids,
            "category": st.sampled_from(["combat", "transport"]),
            "armour": st.sampled_from(["none", "closed", "open"]),
            "modifiers": st.lists(st.sampled_from(UNIT_KEYS), max_size=3, unique=True),
        }
    ),
    max_size=6,
)
direct_inputs = st.fixed_dictionaries(
    {
        "fire_value": st.integers(-2, 1001),
        "modifiers": st.lists(st.sampled_from(COLUMN_KEYS), max_size=8),
        "units": target_units,
        "hex": st.sampled_from(["1,1", "0,9"]),
    }
)
at_inputs = st.fixed_dictionaries(
    {
        "at_value": st.integers(-1, 31),
        "target_kind": st.sampled_from(["afv", "truck"]),
        "armour": st.one_of(st.none(), st.integers(-1, 31)),
        "modifiers": st.lists(st.sampled_from(AT_KEYS), max_size=8),
        "steps": st.integers(0, 11),
    }
)
morale_inputs = st.fixed_dictionaries(
    {
        "morale": st.integers(-1, 21),
        "n": st.integers(0, 10),
        "status": st.sampled_from(["good_order", "disrupted", "demoralized"]),
        "modifier": st.integers(-7, 7),
        "rally": st.booleans(),
    }
)


def _check(name: str, data: dict, dice: list[int]) -> None:
    procedure = PROCEDURES[name]
    try:
        parsed = procedure.parse_input(data)
    except RulesError:
        return
    resolution = procedure.resolve(parsed, ScriptedDice(dice))
    odds = resolution.odds
    # One branch per row the 2D6 sum reads (at most the 11 sums), not per pair of faces.
    assert odds is not None and odds.exact and 1 <= odds.paths <= 11
    assert sum(Fraction(e.numerator, e.denominator) for e in odds.entries) == 1
    assert resolution.outcome.code in odds.as_mapping()


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(direct_inputs, faces)
def test_direct_fire_resolves_or_refuses(data, dice):
    _check("direct_fire", data, dice)


@SETTINGS
@given(at_inputs, faces)
def test_anti_tank_resolves_or_refuses(data, dice):
    _check("anti_tank", data, dice)


@SETTINGS
@given(morale_inputs, faces)
def test_morale_resolves_or_refuses(data, dice):
    _check("morale", data, dice)


class _Random:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @property
    def by_hand(self) -> bool:
        return False

    def face(self, die: Die, label: str) -> int:
        return self.rng.randint(1, die.sides)


def test_direct_fire_odds_agree_with_monte_carlo():
    procedure = PROCEDURES["direct_fire"]
    data = procedure.parse_input(
        {
            "fire_value": 12,
            "modifiers": ["night", "opportunity"],
            "units": [{"id": "a"}, {"id": "b", "modifiers": ["artillery"]}],
        }
    )
    exact = procedure.odds(data).as_mapping()
    rng = random.Random(20240601)
    runs = 20_000
    counts: dict[str, int] = {}
    for _ in range(runs):
        code = procedure.run(data, _Random(rng)).outcome.code
        counts[code] = counts.get(code, 0) + 1
    assert set(counts) <= set(exact)
    for code, probability in exact.items():
        assert abs(counts.get(code, 0) / runs - probability) < 0.015, code


def test_anti_tank_and_morale_odds_by_hand():
    at = PROCEDURES["anti_tank"]
    odds = at.odds(at.parse_input({"at_value": 5, "armour": 3, "steps": 2})).as_mapping()
    # total = 2D6 + 2: ≤ 9 on 2D6 ≤ 7 (21/36), 10-12 on 8-10 (12/36), ≥ 13 on 11-12 (3/36)
    assert odds == {
        "pzgren.at.no_effect": 21 / 36,
        "pzgren.at.step_lost(left=1)": 12 / 36,
        "pzgren.at.eliminated": 3 / 36,
    }
    morale = PROCEDURES["morale"]
    odds = morale.odds(morale.parse_input({"morale": 7, "n": 2})).as_mapping()
    assert odds["pzgren.morale.passed(status=good_order)"] == 10 / 36  # 2D6 ≤ 5
