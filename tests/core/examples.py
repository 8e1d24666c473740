"""Valid example inputs for every manovra procedure (shared by the odds, i18n and CLI tests).

Each list covers the procedure's main branches while keeping its exact odds cheap to
enumerate (a few thousand dice paths at most).
"""

from __future__ import annotations

from typing import Any

TANK = {"scafo": 5, "torretta": 8, "casamatta": 6, "cingolo": 2, "superiore": 1}

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "test": [
        {"kind": "CT", "ad": 1, "cv": 2},
        {"kind": "DFR", "ad": 0, "cv": 1},
        {"kind": "IFR", "ad": 2, "cv": 3},
        {"kind": "SF", "ad": 3},
        {"kind": "ET", "ad": 1, "cv": 3},
        {"kind": "PT", "ad": 1, "precision_die": "D12"},
        {"kind": "SF", "ad": 2, "modifier": -2},
        {"kind": "IT", "ad": 1, "cv": 1, "opponent_ad": 2, "opponent_cv": 0},
        {"kind": "IT", "ad": 1, "cv": 1, "crew_losses": True, "opponent_ad": 1},
        {"kind": "CC", "ad": 2, "opponent_ad": 1},
    ],
    "scatter": [
        {"kind": "diretto_he", "ad": 1},
        {"kind": "lancio_ordigni", "ad": 3},
        {"kind": "mortai_diretto", "ad": 2},
        {"kind": "indiretto_in_campo", "ad": 1, "cv": 2},
        {"kind": "indiretto_fuori_campo", "ad": 3, "cv": 3},
    ],
    "communication": [
        {"link": "stessa_squadra", "distance_cm": 12},
        {"link": "stesso_plotone", "distance_cm": 13, "line_of_sight": "interrotta"},
        {"link": "altro_plotone", "distance_cm": 5.5},
        {"link": "stessa_squadra", "distance_cm": 90, "both_entrenched": True},
    ],
    "observation": [
        {"observed": "carri", "terrain": "aperto", "state": "appostata", "distance_cm": 100},
        {
            "observed": "fanteria",
            "terrain": "copertura",
            "state": "in_movimento",
            "distance_cm": 20,
            "terrain_detail": "edifici",
        },
        {
            "observed": "bassi",
            "terrain": "altro",
            "state": "ha_sparato",
            "distance_cm": 80,
            "from_loophole": True,
            "from_inside_area": True,
        },
        {
            "observed": "fanteria",
            "terrain": "aperto",
            "state": "appostata",
            "distance_cm": 200,
            "shared_by_infantry": True,
        },
    ],
    "small_arms": [
        {"target_kind": "fanteria", "band": "efficace", "ad": 1, "shots": 10, "models_present": 8},
        {
            "target_kind": "fanteria",
            "band": "breve",
            "ad": 2,
            "shots": 40,
            "cover": "leggero",
            "target_moving": True,
            "models_present": 5,
            "initial_models": 10,
        },
        {
            "target_kind": "artiglieria",
            "band": "utile",
            "ad": 0,
            "shots": 90,
            "cover": "pesante",
            "models_present": 4,
        },
        {"target_kind": "veicolo", "band": "breve", "ad": 1, "shots": 30, "models_present": 4},
        {
            "target_kind": "veicolo",
            "band": "utile",
            "ad": 3,
            "shots": 76,
            "target_moving": True,
            "models_present": 2,
        },
    ],
    "heavy_fire": [
        {"band": "efficace", "ad": 1, "target": "carro", "calibre_mm": 75, "armour": TANK},
        {
            "band": "breve",
            "ad": 2,
            "target": "carro_alto",
            "calibre_mm": 88,
            "gun_class": "88L",
            "impact": "gt75",
            "armour": TANK,
            "target_moving": True,
            "target_has_manoeuvred": True,
        },
        {
            "band": "utile",
            "ad": 0,
            "target": "basso_profilo",
            "calibre_mm": 37,
            "tracked": False,
            "turret": False,
            "armour": {"scafo": 2, "casamatta": 2},
        },
        {
            "band": "efficace",
            "ad": 1,
            "target": "fanteria",
            "ammo": "HE",
            "calibre_mm": 75,
            "cover": "medio",
        },
        {
            "band": "breve",
            "ad": 1,
            "target": "jeep",
            "ammo": "HE",
            "calibre_mm": 50,
            "delivery": "mortar",
            "models_present": 3,
        },
        {"band": "efficace", "ad": 1, "target": "artiglieria", "calibre_mm": 57},
        {
            "band": "efficace",
            "ad": 0,
            "target": "edificio_muro",
            "ammo": "HE",
            "calibre_mm": 75,
            "wall": "M",
            "building": "casa",
        },
        {
            "band": "breve",
            "ad": 2,
            "target": "bunker_muro",
            "calibre_mm": 150,
            "wall": "B",
            "building": "bunker",
        },
        {"band": "breve", "ad": 0, "target": "apertura", "ammo": "HE", "calibre_mm": 75},
        {"band": "breve", "ad": 3, "target": "feritoia", "ammo": "AP", "calibre_mm": 75},
    ],
    "he_fragments": [
        {"ad": 0, "target": "carro", "calibre_mm": 75, "armour": {"scafo": 1, "torretta": 2}},
        {"ad": 1, "target": "fanteria", "calibre_mm": 105, "cover": "leggero"},
        {"ad": 2, "target": "camion", "calibre_mm": 81, "models_present": 2},
    ],
    "thrown": [
        {"ad": 1, "target": "fanteria", "calibre_mm": 35, "cover": "medio", "models_present": 9},
        {
            "ad": 2,
            "target": "carro",
            "calibre_mm": 35,
            "vehicle": True,
            "armour": {"superiore": 1, "scafo": 4},
        },
        {
            "ad": 0,
            "target": "semicingolato",
            "calibre_mm": 35,
            "vehicle": True,
            "open_topped": True,
        },
    ],
    "incendiary": [
        {"target": "fanteria", "models_touched": 2, "cover": "medio"},
        {"target": "fanteria", "models_touched": 1},
        {"target": "carro"},
        {"target": "camion"},
        {"target": "auto"},
    ],
    "move": [
        {
            "unit_class": "fanteria",
            "tactical_cm": 12,
            "legs": [{"terrain": "piano_scoperto", "cm": 6}, {"terrain": "piano_boscoso", "cm": 6}],
        },
        {
            "unit_class": "carri",
            "tactical_cm": 20,
            "kind": "breve",
            "legs": [{"terrain": "strade", "cm": 20}],
        },
        {
            "unit_class": "fanteria",
            "tactical_cm": 12,
            "kind": "cauto",
            "conceal": True,
            "legs": [{"terrain": "campi_minati", "cm": 3}],
        },
        {
            "unit_class": "artiglieria",
            "tactical_cm": 10,
            "legs": [{"terrain": "piano_accidentato", "cm": 2}],
        },
    ],
    "obstacle": [
        {"obstacle": "mine", "target": "fanteria_artiglieria", "ad": 1, "models_present": 3},
        {"obstacle": "mine", "target": "carri", "ad": 0},
        {"obstacle": "wire", "target": "fanteria_artiglieria", "ad": 2},
    ],
    "assault": [{"ad": 0}, {"ad": 2, "cv": 1}],
    "close_combat": [
        {"duels": [{"ad": 1, "opponent_ad": 0}]},
        {"duels": [{"ad": 1, "opponent_ad": 0}, {"ad": 0, "opponent_ad": 2}]},
    ],
    "overrun": [{"ad": 0}, {"ad": 3}],
    "panic_recovery": [
        {"ad": 0, "commanders_cv": [1]},
        {"ad": 1, "commanders_cv": [0, 2]},
    ],
}


def example_cases() -> list[tuple[str, dict[str, Any]]]:
    """``(procedure name, input)`` for every example, for parametrization."""
    return [(name, data) for name, inputs in EXAMPLES.items() for data in inputs]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    """A short, readable test id."""
    name, data = case
    return name + ":" + ",".join(f"{k}={v}" for k, v in data.items())[:60]
