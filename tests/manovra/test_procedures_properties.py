"""Property tests: any input to any manovra procedure resolves, or raises a RulesError.

Inputs are generated as raw dicts from each input model's fields, mostly in range and
sometimes out of it, and go through ``procedure.parse_input`` as a front end would send
them. A valid input must resolve with system dice and its odds must enumerate (bounded
here to keep the run short) — and nothing but a :class:`RulesError` may ever escape.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import RulesError
from rules.core.odds import enumerate_odds
from rules.manovra import PROCEDURES
from rules.manovra.procedures.fire import BUILDING_TARGETS, HeavyTarget
from rules.manovra.tables import load_tables

# The odds of some valid inputs need tens of thousands of dice paths (a dozen close-combat
# duels, many models in a flame template): enumerate at most this many here.
PATH_LIMIT = 1_000

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

TERRAINS = [row.id for row in load_tables()["tipi_terreno"].rows]
LOCATIONS = [
    "scafo",
    "torretta",
    "casamatta",
    "cingolo",
    "ruota",
    "superiore",
    "apertura",
    "scudo",
    "affusto",
    "muro",
    "x",
]
COVERS = ["scoperto", "leggero", "medio", "pesante"]


def around(low: int, high: int, junk: bool, slack: int = 2) -> st.SearchStrategy[int]:
    """``low..high``; in junk mode sometimes just outside it."""
    if not junk:
        return st.integers(low, high)
    return st.one_of(st.integers(low, high), st.integers(low - slack, high + slack))


def pick(values: list[Any], junk: bool, bad: Any = "bogus") -> st.SearchStrategy[Any]:
    """A legal value; in junk mode sometimes ``bad``."""
    if not junk:
        return st.sampled_from(values)
    return st.one_of(st.sampled_from(values), st.just(bad))


def distance(junk: bool) -> st.SearchStrategy[float]:
    legal = st.one_of(st.floats(0, 400, allow_nan=False), st.sampled_from([0, 6, 6.0001, 96]))
    return st.one_of(legal, st.sampled_from([-1, 10_001, float("nan")])) if junk else legal


def either(build: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Half the examples entirely in range, half with some out-of-range values."""
    return st.booleans().flatmap(build)


def check(name: str, data: dict[str, Any]) -> None:
    """Parse, resolve and enumerate the odds: only RulesError may be raised."""
    procedure = PROCEDURES[name]
    try:
        parsed = procedure.parse_input(data)
    except RulesError:
        return
    try:
        resolution = procedure.resolve(parsed, SystemDice(), with_odds=False)
    except RulesError:
        resolution = None
    try:
        odds = enumerate_odds(
            lambda source: procedure.resolver(parsed, DiceTray(source)).outcome, PATH_LIMIT
        )
    except RulesError:
        return
    if resolution is None:
        return
    # heavy_fire with fragments=True is the fragments procedure and is named so
    assert resolution.procedure == name or (name == "heavy_fire" and parsed.fragments)
    assert all(1 <= roll.face <= roll.die.sides for roll in resolution.rolls)
    resolution.to_json()
    if odds.exact:
        assert sum(Fraction(e.numerator, e.denominator) for e in odds.entries) == 1
        assert resolution.outcome in {entry.outcome for entry in odds.entries}
        # small enough: the procedure's own (cached, bounded) odds agree
        assert procedure.odds(parsed) == odds
        assert procedure.resolve(parsed, SystemDice()).odds == odds


# -- strategies, one per procedure ---------------------------------------------------------------


def _test(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "kind": pick(["IT", "DFR", "IFR", "SF", "CT", "PT", "ET", "CC"], j, "XX"),
            "ad": around(0, 3, j),
        },
        optional={
            "cv": around(0, 3, j),
            "opponent_ad": around(0, 3, j),
            "opponent_cv": around(0, 3, j),
            "precision_die": pick(["D10", "D12"], j, "D8"),
            "crew_losses": st.booleans(),
            "opponent_crew_losses": st.booleans(),
            "modifier": around(-6, 6, j),
        },
    )


def _scatter(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    kinds = [
        "diretto_he",
        "lancio_ordigni",
        "mortai_diretto",
        "indiretto_in_campo",
        "indiretto_fuori_campo",
    ]
    return st.fixed_dictionaries(
        {"kind": pick(kinds, j), "ad": around(0, 3, j)}, optional={"cv": around(0, 3, j)}
    )


def _communication(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    links = ["stessa_squadra", "stesso_plotone", "stesso_plotone_radio", "altro_plotone"]
    return st.fixed_dictionaries(
        {"link": pick(links, j), "distance_cm": distance(j)},
        optional={
            "line_of_sight": pick(["diretta", "interrotta"], j),
            "both_entrenched": st.booleans(),
        },
    )


def _observation(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "observed": pick(["carri", "bassi", "fanteria"], j),
            "terrain": pick(["aperto", "copertura", "altro"], j),
            "state": pick(["appostata", "in_movimento", "ha_sparato"], j),
            "distance_cm": distance(j),
        },
        optional={
            "from_loophole": st.booleans(),
            "from_inside_area": st.booleans(),
            "terrain_detail": st.sampled_from(
                [None, "edifici", "boschi", "Trincee", "rovine", "??", "x" * 300]
            ),
            "shared_by_infantry": st.booleans(),
        },
    )


def _small_arms(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    shots = st.one_of(around(1, 120, j), st.sampled_from([1, 3, 4, 75, 76, 89, 90, 10_000]))
    if j:
        shots = st.one_of(shots, st.sampled_from([0, 10_001]))
    return st.fixed_dictionaries(
        {
            "target_kind": pick(["fanteria", "artiglieria", "veicolo"], j),
            "band": pick(["utile", "efficace", "breve"], j, "schegge"),
            "ad": around(0, 3, j),
            "shots": shots,
            "models_present": around(0, 30, j),
        },
        optional={
            "target_moving": st.booleans(),
            "cover": pick(COVERS, j),
            "initial_models": st.one_of(st.none(), around(1, 40, j)),
            "target": st.one_of(st.none(), st.text(max_size=70 if j else 64)),
        },
    )


def _heavy_common(j: bool) -> dict[str, st.SearchStrategy[Any]]:
    armour_cm = st.one_of(around(0, 20, j), st.just(101)) if j else st.integers(0, 20)
    return {
        "armour": st.dictionaries(st.sampled_from(LOCATIONS), armour_cm, max_size=5),
        "turret": st.booleans(),
        "tracked": st.booleans(),
        "open_topped": st.booleans(),
        "chosen_location": st.sampled_from([None, *LOCATIONS]),
        "cover": pick(COVERS, j),
        "models_present": st.one_of(st.none(), around(0, 10, j)),
        "target_has_manoeuvred": st.booleans(),
        "target_id": st.one_of(st.none(), st.text(max_size=10)),
    }


def _calibre(j: bool) -> st.SearchStrategy[int]:
    calibre = st.one_of(around(1, 300, j), st.sampled_from([30, 31, 70, 71, 120, 121, 122, 123]))
    return st.one_of(calibre, st.sampled_from([0, 1001])) if j else calibre


def _heavy_fire(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    data = st.fixed_dictionaries(
        {
            "band": pick(["utile", "efficace", "breve", "schegge"], j),
            "ad": around(0, 3, j),
            "target": pick([t.value for t in HeavyTarget], j),
            "calibre_mm": _calibre(j),
        },
        optional={
            **_heavy_common(j),
            "wall": pick(["L", "M", "C", "B"], j, "Z"),
            "building": pick(["legno", "casa", "palazzo", "bunker"], j, "igloo"),
            "target_moving": st.booleans(),
            "ammo": pick(["AP", "HE"], j),
            "gun_class": st.sampled_from(
                [None, "Bm", "Ex", "Mm", "2p", "6p", "17-25p", "50L", "75L", "88L", "☼", "zz"]
            ),
            "impact": pick(["lt75", "gt75"], j),
            "delivery": pick(["direct", "mortar", "thrown", "indirect"], j),
        },
    )
    if j:
        return data.flatmap(
            lambda d: st.fixed_dictionaries(
                {**{k: st.just(v) for k, v in d.items()}, "fragments": st.booleans()}
            )
        )
    # in range: make the shot coherent (fragments on the schegge band, walls on buildings)
    return data.map(_coherent_shot)


def _coherent_shot(data: dict[str, Any]) -> dict[str, Any]:
    data = dict(data)
    data["fragments"] = data["band"] == "schegge"
    if data["target"] in _WALLED:
        data.setdefault("wall", "M")
        data.setdefault("building", "casa")
    return data


# Building targets need wall and building; the bad combinations are covered in
# test_procedures.py (test_he_fragments_bad_input_is_a_rules_error).
_WALLED = [t.value for t in BUILDING_TARGETS - {HeavyTarget.APERTURA, HeavyTarget.FERITOIA}]


def _he_fragments(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    common = _heavy_common(False)
    common["cover"] = pick(COVERS, j)
    common["models_present"] = st.one_of(st.none(), around(0, 10, j))
    return st.fixed_dictionaries(
        {
            "ad": around(0, 3, j),
            "target": pick([t.value for t in HeavyTarget], j),
            "calibre_mm": _calibre(j),
            "wall": st.sampled_from(["L", "M", "C", "B"]),
            "building": st.sampled_from(["legno", "casa", "palazzo", "bunker"]),
        },
        optional=common,
    )


def _thrown(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    common = _heavy_common(False)
    common["cover"] = pick(COVERS, j)
    common["models_present"] = st.one_of(st.none(), around(0, 10, j))
    common["vehicle"] = st.booleans()
    common["band"] = pick(["breve", "efficace", "utile"], j)
    return st.fixed_dictionaries(
        {
            "ad": around(0, 3, j),
            "target": pick([t.value for t in HeavyTarget], j),
            "calibre_mm": _calibre(j),
            "wall": st.sampled_from(["L", "M", "C", "B"]),
            "building": st.sampled_from(["legno", "casa", "palazzo", "bunker"]),
        },
        optional=common,
    )


def _incendiary(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"target": pick(["carro", "camion", "auto", "fanteria"], j)},
        optional={
            "models_touched": st.one_of(around(1, 3, j), around(1, 20, j)),
            "cover": pick(COVERS, j),
            "target_id": st.none(),
        },
    )


def _move(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    cm = st.one_of(st.floats(0.01, 40, allow_nan=False), st.sampled_from([0.5, 1, 1000]))
    leg = st.fixed_dictionaries(
        {
            "terrain": pick(TERRAINS, j, "lava"),
            "cm": st.one_of(cm, st.sampled_from([0, -1, 1001])) if j else cm,
        }
    )
    classes = [
        "carri",
        "semicingolati",
        "autoblindo",
        "camion",
        "auto_jeep",
        "moto",
        "artiglieria",
        "fanteria",
    ]
    tactical = st.floats(0.5, 60, allow_nan=False)
    return st.fixed_dictionaries(
        {
            "unit_class": pick(classes, j),
            "tactical_cm": st.one_of(tactical, st.sampled_from([0, 201])) if j else tactical,
            "legs": st.lists(leg, min_size=0 if j else 1, max_size=21 if j else 4),
        },
        optional={"kind": pick(["tattico", "breve", "cauto"], j), "conceal": st.booleans()},
    )


def _obstacle(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    targets = ["carri", "autoblindo_semicingolato", "camion_auto_moto", "fanteria_artiglieria"]
    return st.fixed_dictionaries(
        {"obstacle": pick(["mine", "wire"], j), "target": pick(targets, j), "ad": around(0, 3, j)},
        optional={"models_present": st.one_of(st.none(), around(0, 10, j)), "target_id": st.none()},
    )


def _assault(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"ad": around(0, 3, j)}, optional={"cv": around(0, 3, j)})


def _close_combat(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    duel = st.fixed_dictionaries({"ad": around(0, 3, j), "opponent_ad": around(0, 3, j)})
    return st.fixed_dictionaries(
        {"duels": st.lists(duel, min_size=0 if j else 1, max_size=13 if j else 12)},
        optional={"target_id": st.none(), "attacker_id": st.text(max_size=5)},
    )


def _overrun(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"ad": around(0, 3, j)}, optional={"target_id": st.none()})


def _panic_recovery(j: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "ad": around(0, 3, j),
            "commanders_cv": st.lists(
                around(0, 3, j), min_size=0 if j else 1, max_size=7 if j else 6
            ),
        }
    )


STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "test": either(_test),
    "scatter": either(_scatter),
    "communication": either(_communication),
    "observation": either(_observation),
    "small_arms": either(_small_arms),
    "heavy_fire": either(_heavy_fire),
    "he_fragments": either(_he_fragments),
    "thrown": either(_thrown),
    "incendiary": either(_incendiary),
    "move": either(_move),
    "obstacle": either(_obstacle),
    "assault": either(_assault),
    "close_combat": either(_close_combat),
    "overrun": either(_overrun),
    "panic_recovery": either(_panic_recovery),
}


def test_every_procedure_has_a_strategy():
    assert set(STRATEGIES) == set(PROCEDURES)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_any_input_resolves_or_raises_a_rules_error(name: str):
    @SETTINGS
    @given(data=STRATEGIES[name])
    def run(data: dict[str, Any]) -> None:
        check(name, data)

    run()


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_raw_json_text_input_resolves_or_raises_a_rules_error(name: str):
    """The same inputs as JSON text (the CLI's path), plus junk text."""
    import json

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.one_of(STRATEGIES[name].map(json.dumps), st.text(max_size=40)))
    def run(data: str) -> None:
        procedure = PROCEDURES[name]
        try:
            parsed = procedure.parse_input(data)
        except RulesError:
            return
        try:
            procedure.resolve(parsed, SystemDice(), with_odds=False)
        except RulesError:
            return

    run()
