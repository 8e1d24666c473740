"""Property tests: any input to any linea_gotica procedure resolves, or raises a RulesError.

Inputs are raw dicts (mostly in range, sometimes not) parsed as a front end would send them;
a valid input must resolve with system dice, and its odds (when exact) sum to one and are the
procedure's own.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import RulesError
from rules.core.odds import enumerate_odds
from rules.linea_gotica import PROCEDURES
from rules.linea_gotica.tables import load_tables

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
PATH_LIMIT = 3_000
QUALITIES = ["elite", "veterani", "regolari", "reclute", "marmaglia"]
LEVELS = ["no", "difficile", "normale", "facile", "molto_facile"]
WEAPONS = [str(row.id) for row in load_tables()["armi_tiro_diretto"].rows]
PENETRATION = [str(row.id) for row in load_tables()["penetrazione"].rows]
FOOT_MODS = [str(r.id) for r in load_tables()["modificatori_movimento_fanteria"].rows]
VEHICLE_MODS = [str(r.id) for r in load_tables()["modificatori_movimento_veicoli"].rows]


def pick(values: list[Any], junk: bool, bad: Any = "bogus") -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(values), st.just(bad)) if junk else st.sampled_from(values)


def around(low: int, high: int, junk: bool) -> st.SearchStrategy[int]:
    return st.integers(low - 2, high + 2) if junk else st.integers(low, high)


def distance(junk: bool) -> st.SearchStrategy[float]:
    legal = st.one_of(st.floats(0, 700, allow_nan=False), st.sampled_from([0, 20, 20.5, 50, 600]))
    return st.one_of(legal, st.sampled_from([-1, 10_001, float("nan")])) if junk else legal


def either(build: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.booleans().flatmap(build)


def check(name: str, data: dict[str, Any]) -> None:
    procedure = PROCEDURES[name]
    try:
        parsed = procedure.parse_input(data)
    except RulesError:
        return
    try:
        resolution = procedure.resolve(parsed, SystemDice(), with_odds=False)
    except RulesError:
        return
    odds = enumerate_odds(
        lambda source: procedure.resolver(parsed, DiceTray(source)).outcome, PATH_LIMIT
    )
    assert resolution.procedure == name
    assert all(1 <= roll.face <= roll.die.sides for roll in resolution.rolls)
    resolution.to_json()
    if odds.exact:
        assert sum(Fraction(e.numerator, e.denominator) for e in odds.entries) == 1
        assert resolution.outcome in {entry.outcome for entry in odds.entries}
        assert procedure.odds(parsed) == odds


def target(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "kind": pick(["fanteria", "non_blindato", "carro_armato", "blindato"], j),
            "armour": pick(["leggera", "media", "pesante", "super_pesante"], j),
            "turret": st.booleans(),
            "weapons": around(0, 6, j),
            "wounded": st.booleans(),
            "figure": around(1, 12, j),
            "unit": st.sampled_from(["u1", "x"]),
        },
    )


def spec(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "soft_class": pick(["none", "mg", "explosive", "cannon"], j),
            "penetration": pick(PENETRATION, j),
            "sniper": st.booleans(),
            "flame": st.booleans(),
            "indirect": st.booleans(),
            "flank": st.booleans(),
            "short_gun": st.booleans(),
        },
    )


STRATEGIES: dict[str, Any] = {
    "action": lambda j: st.fixed_dictionaries(
        {"quality": pick(QUALITIES, j)},
        optional={
            "quality_modifier": around(-6, 6, j),
            "level": pick(LEVELS, j),
            "shift": around(-4, 4, j),
            "purpose": pick(["azione", "isolato", "contatto", "mine"], j),
        },
    ),
    "observation": lambda j: st.fixed_dictionaries(
        {"quality": pick(QUALITIES, j), "target": pick(["infantry", "vehicle"], j)},
        optional={
            "target_moving": st.booleans(),
            "target_in_cover": st.booleans(),
            "observer": pick(["fanteria", "veicolo_aperto", "veicolo_chiuso"], j),
            "target_fired": st.booleans(),
            "night": st.booleans(),
            "scout": st.booleans(),
            "wounded": st.booleans(),
            "hidden_sniper": st.booleans(),
        },
    ),
    "initiative": lambda j: st.fixed_dictionaries(
        {
            "first": st.text(min_size=0 if j else 1, max_size=45 if j else 10),
            "second": st.text(min_size=1, max_size=10),
        }
    ),
    "command": lambda j: st.fixed_dictionaries(
        {"leader": pick(QUALITIES, j), "distance_cm": distance(j)},
        optional={
            "section": st.booleans(),
            "scout": st.booleans(),
            "sniper_quality": pick(QUALITIES, j),
        },
    ),
    "morale": lambda j: st.fixed_dictionaries(
        {"quality": pick(QUALITIES, j)},
        optional={
            "quality_modifier": around(-6, 6, j),
            "wounded": st.booleans(),
            "isolated": st.booleans(),
            "cover": pick(["nessuna", "leggera", "pesante", "trincerati"], j),
            "under_fire": st.booleans(),
            "leader_killed": st.booleans(),
            "badly_wounded_near": around(0, 12, j),
            "fanatic": around(0, 3, j),
            "result_modifier": around(-6, 0, j),
            "vehicle": st.booleans(),
            "armoured_undamaged": st.booleans(),
            "already_shocked": st.booleans(),
            "enemy_near": st.booleans(),
            "air_attack": st.booleans(),
        },
    ),
    "sniper": lambda j: st.fixed_dictionaries({"quality": pick(QUALITIES, j)}),
    "smoke": lambda j: st.fixed_dictionaries(
        {"source": pick(["bomba_mano", "lanciafumogeni_veicolo", "proiettili"], j)}
    ),
    "anti_aircraft": lambda j: st.fixed_dictionaries(
        {"weapon": pick(["mitragliatrice_aa", "cannoncino_aa"], j), "quality": pick(QUALITIES, j)},
        optional={"opportunity": st.booleans()},
    ),
    "aircraft_return": lambda j: st.fixed_dictionaries({"attempt": around(1, 3, j)}),
    "direct_fire": lambda j: st.fixed_dictionaries(
        {"quality": pick(QUALITIES, j), "weapon": pick(WEAPONS, j), "distance_cm": distance(j)},
        optional={
            "quality_modifier": around(-6, 6, j),
            "calibre_mm": around(1, 400, j),
            "penetration": pick(PENETRATION, j),
            "short_gun": st.booleans(),
            "flank": st.booleans(),
            "aimed": st.booleans(),
            "sniper": st.booleans(),
            "wounded": st.booleans(),
            "covering": st.booleans(),
            "opportunity": st.booleans(),
            "semiautomatic": st.booleans(),
            "target_movement": pick(["fermo", "cauto", "normale", "corsa"], j),
            "prone": st.booleans(),
            "cover": pick(["nessuna", "leggera", "pesante", "trincerati"], j),
            "behind_armour": st.booleans(),
            "night": pick(["giorno", "luna", "senza_luna"], j),
            "target_fired": pick(["no", "singolo", "automatico"], j),
            "modifier": around(-6, 6, j),
            "target": target(j),
        },
    ),
    "he_effect": lambda j: st.fixed_dictionaries(
        {"zone": pick(["breve", "lunga"], j)},
        optional={
            "terrain": pick(["aperto", "copertura", "trincerati"], j),
            "heavy_calibre": st.booleans(),
            "bombs": pick(["none", "anti_fanteria", "anti_carro", "napalm"], j),
            "spec": spec(j),
            "target": target(j),
        },
    ),
    "damage": lambda j: st.fixed_dictionaries({}, optional={"spec": spec(j), "target": target(j)}),
    "ranging": lambda j: st.fixed_dictionaries(
        {"quality": pick(QUALITIES, j)}, optional={"quality_modifier": around(-6, 6, j)}
    ),
    "scatter_distance": lambda j: st.fixed_dictionaries(
        {"dice": around(1, 2, j)},
        optional={"direction": pick(["lungo", "corto", "destra", "sinistra"], j)},
    ),
    "mine_vehicle": lambda j: st.fixed_dictionaries({}, optional={"target": target(j)}),
    "foot_move": lambda j: st.fixed_dictionaries(
        {},
        optional={
            "pace": pick(["cauto", "normale", "corsa"], j),
            "distance_cm": distance(j),
            "modifiers": st.lists(pick(FOOT_MODS, j), max_size=4),
            "ran_last_turn": st.booleans(),
        },
    ),
    "vehicle_move": lambda j: st.fixed_dictionaries(
        {},
        optional={
            "vehicle": pick(
                [
                    "carri",
                    "cingolati",
                    "ruotati_4x4",
                    "civili",
                    "moto",
                    "traino_animale",
                    "cavalleria",
                ],
                j,
            ),
            "road": st.booleans(),
            "distance_cm": distance(j),
            "modifiers": st.lists(pick(VEHICLE_MODS, j), max_size=4),
            "tank_weight": pick(["leggero", "medio", "pesante"], j),
        },
    ),
}


def test_every_procedure_has_a_strategy():
    assert set(STRATEGIES) == set(PROCEDURES)


def _make(name: str):  # type: ignore[no-untyped-def]
    @SETTINGS
    @given(data=either(STRATEGIES[name]))
    def test(data: dict[str, Any]) -> None:
        check(name, data)

    test.__name__ = f"test_{name}_resolves_or_refuses"
    return test


for _name in STRATEGIES:
    globals()[f"test_{_name}_resolves_or_refuses"] = _make(_name)
