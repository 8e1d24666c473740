"""Hypothesis over every w40k4 procedure: a valid-schema input resolves or raises a RulesError,
scripted dice reproduce the resolution, and the odds are exact and sum to one."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceTray, ScriptedDice
from rules.core.errors import RulesError
from rules.w40k4 import PROCEDURES
from rules.w40k4.lookups import cover_names

small = st.integers(min_value=0, max_value=6)
stat = st.integers(min_value=1, max_value=10)
score = st.none() | st.integers(min_value=2, max_value=6)
ap = st.none() | st.integers(min_value=1, max_value=6)
optional_stat = st.none() | stat
cover = st.none() | st.sampled_from([*cover_names(), "lava"])

hits = {
    "weapon": st.none() | st.text(max_size=10),
    "attacks": small,
    "auto_hits": small,
    "bs": optional_stat,
    "ws": optional_stat,
    "target_ws": optional_stat,
    "hit_on": score,
    "strength": stat,
    "ap": ap,
}
STRATEGIES: dict[str, Any] = {
    "shooting": st.fixed_dictionaries(
        {
            **hits,
            "toughness": stat,
            "save": score,
            "invulnerable": score,
            "cover": cover,
            "ignores_cover": st.booleans(),
            "wounds": st.integers(1, 4),
            "wounds_taken": st.integers(0, 3),
            "models": st.integers(1, 30),
        }
    ),
    "vehicle_hits": st.fixed_dictionaries(
        {
            **hits,
            "armour": st.integers(1, 20),
            "facing": st.sampled_from(["front", "side", "rear"]),
            "open_topped": st.booleans(),
            "squadron": st.booleans(),
            "models": st.integers(1, 5),
        }
    ),
    "dangerous_terrain": st.fixed_dictionaries(
        {"dice": st.integers(1, 12), "kind": st.sampled_from(["models", "vehicles", "guns"])}
    ),
    "leadership": st.fixed_dictionaries(
        {
            "leadership": stat,
            "modifier": st.integers(-10, 10),
            "reason": st.sampled_from(["losses", "tank_shock", "combat", "regroup", "test"]),
        }
    ),
    "escape": st.fixed_dictionaries({"initiative": stat, "winners_initiative": stat}),
    "fall_back": st.just({}),
    "consolidate": st.just({}),
    "difficult_terrain": st.fixed_dictionaries(
        {"distance": st.floats(0, 100), "limit": st.integers(1, 24)}
    ),
    "assault_move": st.fixed_dictionaries(
        {
            "distance": st.floats(0, 100),
            "assault_range": st.integers(1, 24),
            "slowed": st.booleans(),
        }
    ),
    "reserves": st.fixed_dictionaries({"turn": st.integers(1, 100)}),
    "blast_scatter": st.fixed_dictionaries(
        {"template": st.sampled_from(["area", "artiglieria"]), "bs": stat, "barrage": st.booleans()}
    ),
    "deep_strike": st.just({}),
    "mishap": st.just({}),
    "penetration": st.fixed_dictionaries({"strength": stat, "armour": st.integers(1, 20)}),
    "vehicle_damage": st.fixed_dictionaries(
        {
            "glancing": st.booleans(),
            "ap": ap,
            "open_topped": st.booleans(),
            "squadron": st.booleans(),
        }
    ),
    "measure": st.fixed_dictionaries(
        {
            "what": st.sampled_from(["move", "fire", "assault", "deep_strike"]),
            "inches": st.floats(0, 100, allow_nan=False),
            "typed": st.none() | st.floats(0, 100, allow_nan=False),
            "terrain": st.none() | st.sampled_from(["aperto", "rovine"]),
            "cover": st.none() | st.sampled_from(["muri", "siepi"]),
        }
    ),
    "movement": st.fixed_dictionaries(
        {
            "unit_type": st.sampled_from(
                [
                    "fanteria",
                    "moto",
                    "jetbike",
                    "creature_mostruose",
                    "fanteria_volante",
                    "artiglieria",
                    "bestie_cavalleria",
                    "veicoli_camminatori",
                    "veicoli_agrav",
                    "veicoli_altro",
                    "drago",
                ]
            ),
            "distance": st.floats(0, 100),
            "terrain": st.sampled_from(["open", "difficult", "dangerous"]),
            "inside": st.booleans(),
            "fast": st.booleans(),
        }
    ),
    "combat_result": st.fixed_dictionaries(
        {
            "side_a": st.just("A"),
            "side_b": st.just("B"),
            "suffered_a": st.integers(0, 50),
            "suffered_b": st.integers(0, 50),
        }
    ),
}
STRATEGIES["close_combat"] = STRATEGIES["shooting"]


def test_every_procedure_has_a_strategy():
    assert set(STRATEGIES) == set(PROCEDURES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_valid_schema_inputs_resolve_or_raise_a_rules_error(data):
    name = data.draw(st.sampled_from(sorted(PROCEDURES)))
    raw = data.draw(STRATEGIES[name])
    procedure = PROCEDURES[name]
    try:
        parsed = procedure.parse_input(raw)
        faces = data.draw(st.lists(st.integers(1, 6), min_size=200, max_size=200))
        faces = [min(f, 6) for f in faces]
        # D12 directions take any face 1..12; the D6 faces above fit both dice.
        source = ScriptedDice(faces)
        resolution = procedure.run(parsed, source)
    except RulesError:
        return
    again = procedure.resolver(parsed, DiceTray(ScriptedDice([r.face for r in resolution.rolls])))
    assert again.outcome == resolution.outcome
    odds = procedure.odds(parsed)
    assert odds.exact
    assert sum(Fraction(e.numerator, e.denominator) for e in odds.entries) == 1
    assert resolution.outcome.code in {e.outcome.code for e in odds.entries}
