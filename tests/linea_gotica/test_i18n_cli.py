"""Linea gotica's catalogue keys exist in Italian, English and French, rendered text has no
raw keys, and the rules CLI serves the ruleset."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rules.core.dice import DiceTray
from rules.core.i18n import LANGUAGES, catalogue
from rules.core.odds import enumerate_odds
from rules.core.resolution import EffectKind, Resolution
from rules.linea_gotica import PROCEDURES
from rules.render import describe
from tests.core.every_face import EveryFace

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rules" / "linea_gotica"
VOCABULARY_PARAMS = (
    "level",
    "purpose",
    "band",
    "direction",
    "kind",
    "quality",
    "pace",
    "along",
    "across",
    "stage",
    "phase",
)

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "action": [
        {"quality": "regolari", "level": lvl, "purpose": p}
        for lvl in ("no", "difficile", "normale", "facile", "molto_facile")
        for p in ("azione", "isolato", "rimpiazzo", "contatto", "mine", "medicare", "scavare")
    ]
    + [{"quality": "elite", "shift": -1, "quality_modifier": 1}],
    "observation": [
        {
            "quality": "veterani",
            "target": "infantry",
            "target_fired": True,
            "night": True,
            "scout": True,
            "wounded": True,
        },
        {"quality": "reclute", "target": "vehicle", "observer": "veicolo_chiuso"},
        {"quality": "elite", "target": "infantry", "hidden_sniper": True},
        {"quality": "elite", "target": "infantry", "target_moving": True},
        {"quality": "elite", "target": "infantry", "night": True, "distance_cm": 60},
    ],
    "initiative": [{"first": "a", "second": "b"}],
    "command": [
        {"leader": "elite", "distance_cm": 9, "section": True, "scout": True},
        {"leader": "reclute", "distance_cm": 9, "sniper_quality": "elite"},
    ],
    "morale": [
        {
            "quality": "elite",
            "wounded": True,
            "isolated": True,
            "cover": "pesante",
            "under_fire": True,
            "leader_killed": True,
            "badly_wounded_near": 1,
            "fanatic": 2,
            "result_modifier": -2,
            "vehicle": True,
            "armoured_undamaged": True,
        },
        {"quality": "marmaglia", "cover": "leggera", "quality_modifier": -1, "air_attack": True},
        {"quality": "reclute", "already_shocked": True, "enemy_near": True},
        {"quality": "reclute"},
    ],
    "sniper": [{"quality": q} for q in ("elite", "veterani", "regolari")],
    "smoke": [{"source": s} for s in ("bomba_mano", "lanciafumogeni_veicolo", "proiettili")],
    "anti_aircraft": [{"weapon": "cannoncino_aa", "quality": "elite", "opportunity": True}],
    "aircraft_return": [{"attempt": 1}, {"attempt": 3}],
    "direct_fire": [
        {
            "quality": "regolari",
            "weapon": "fucile",
            "distance_cm": 50,
            "aimed": True,
            "wounded": True,
            "opportunity": True,
            "covering": True,
            "semiautomatic": False,
            "target_movement": "cauto",
            "prone": True,
            "cover": "leggera",
            "behind_armour": True,
            "night": "luna",
            "target_fired": "singolo",
            "modifier": 1,
            "quality_modifier": 1,
        },
        {
            "quality": "elite",
            "weapon": "fucile_assalto_area",
            "distance_cm": 15,
            "night": "senza_luna",
            "target_fired": "automatico",
            "target_movement": "corsa",
            "cover": "pesante",
        },
        {"quality": "veterani", "weapon": "fucile_precisione", "distance_cm": 10, "sniper": True},
        {"quality": "veterani", "weapon": "luna_50", "distance_cm": 10},
        {"quality": "veterani", "weapon": "granata_fucile", "distance_cm": 21},
        {
            "quality": "veterani",
            "weapon": "lanciafiamme",
            "distance_cm": 8,
            "target": {"kind": "non_blindato"},
        },
        {
            "quality": "veterani",
            "weapon": "mitragliatrice",
            "distance_cm": 80,
            "target": {"kind": "non_blindato"},
        },
        {
            "quality": "veterani",
            "weapon": "cannone_77",
            "calibre_mm": 75,
            "distance_cm": 60,
            "short_gun": True,
            "flank": True,
            "target": {"kind": "carro_armato", "armour": "pesante", "weapons": 2},
        },
        {
            "quality": "veterani",
            "weapon": "lanciafiamme_veicolo",
            "distance_cm": 20,
            "target": {"kind": "blindato", "turret": False},
        },
        {"quality": "veterani", "weapon": "pistola", "distance_cm": 500},
    ],
    "he_effect": [
        {
            "zone": "breve",
            "heavy_calibre": True,
            "bombs": "anti_carro",
            "spec": {"soft_class": "cannon", "indirect": True, "penetration": "mortaio_oltre_106"},
            "target": {"kind": "carro_armato", "armour": "leggera"},
        },
        {
            "zone": "lunga",
            "bombs": "anti_fanteria",
            "terrain": "trincerati",
            "spec": {"penetration": "cannone_40", "indirect": True},
            "target": {"kind": "carro_armato", "armour": "super_pesante"},
        },
        {
            "zone": "breve",
            "bombs": "napalm",
            "spec": {"soft_class": "explosive"},
            "target": {"kind": "non_blindato"},
        },
        {"zone": "breve", "spec": {"soft_class": "mg"}, "target": {"kind": "non_blindato"}},
    ],
    "damage": [{"target": {"kind": "blindato"}}],
    "ranging": [{"quality": "reclute", "quality_modifier": 1}],
    "scatter_distance": [
        {"dice": 1, "direction": d} for d in ("lungo", "corto", "destra", "sinistra")
    ],
    "mine_vehicle": [{}],
    "foot_move": [
        {"pace": p, "distance_cm": 10, "modifiers": [m]}
        for p in ("cauto", "normale", "corsa")
        for m in (
            "sotto_fuoco",
            "alzarsi_sdraiarsi",
            "porta",
            "finestra",
            "autocarro",
            "ferito",
            "trasporto",
            "piccoli_ostacoli",
            "grandi_ostacoli",
            "cambiare_piano",
            "blindato",
        )
    ]
    + [{"pace": "corsa", "ran_last_turn": True}],
    "vehicle_move": [
        {"vehicle": "carri", "distance_cm": 5, "modifiers": [m]}
        for m in (
            "sotto_fuoco",
            "lasciare_riparo",
            "travolgere_grande",
            "travolgere_piccolo",
            "danno_mobilita",
            "terreno_difficile",
            "piccoli_ostacoli",
            "grandi_ostacoli",
            "invalicabile",
        )
    ]
    + [{"vehicle": "moto", "distance_cm": 5, "modifiers": ["travolgere_piccolo"]}],
}
EXAMPLES["direct_fire"] = [e for e in EXAMPLES["direct_fire"] if e["weapon"] != "luna_50"]


@cache
def resolutions() -> tuple[Resolution, ...]:
    found: list[Resolution] = []
    for name, examples in EXAMPLES.items():
        procedure = PROCEDURES[name]
        for data in examples:
            parsed = procedure.parse_input(data)

            def run(source, procedure=procedure, parsed=parsed):  # type: ignore[no-untyped-def]
                # Every face (not the odds' grouped branches): each face's steps are swept.
                resolution = procedure.resolver(parsed, DiceTray(EveryFace(source)))
                found.append(resolution)
                return resolution.outcome

            enumerate_odds(run, 3_000)
    return tuple(found)


@cache
def used_keys() -> set[str]:
    keys: set[str] = set()
    for resolution in resolutions():
        keys.add(f"linea_gotica.procedure.{resolution.procedure}")
        outcomes = [resolution.outcome]
        for step in resolution.steps:
            keys.add(step.key)
            keys.update(m.key for m in step.modifiers)
            if step.threshold is not None and step.threshold.key:
                keys.add(step.threshold.key)
            if step.outcome is not None:
                outcomes.append(step.outcome)
            for name, value in step.params:
                if name in VOCABULARY_PARAMS and isinstance(value, str):
                    keys.add(f"linea_gotica.values.{value}")
        for outcome in outcomes:
            keys.add(outcome.key)
            for name, value in outcome.params:
                if name in VOCABULARY_PARAMS and isinstance(value, str):
                    keys.add(f"linea_gotica.values.{value}")
        for effect in resolution.effects:
            if effect.kind not in (EffectKind.CASUALTIES, EffectKind.TEST_OWED):
                keys.add(f"linea_gotica.values.{effect.key}")
    return keys


def source_keys() -> set[str]:
    """Static catalogue keys written in the source (f"{K}.x.y" and "error.linea_gotica.x")."""
    keys: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys.update(f"linea_gotica.{k}" for k in re.findall(r'f"\{K\}\.([a-z_.]+[a-z_])"', text))
        keys.update(re.findall(r'"(error\.linea_gotica\.[a-z_]+)"', text))
    return keys


def test_the_sweep_is_broad():
    assert len(resolutions()) > 1000
    assert len(used_keys()) > 200


@pytest.mark.parametrize("language", LANGUAGES)
def test_resolution_keys_are_in_every_language(language):
    missing = sorted(k for k in used_keys() if k not in catalogue(language))
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_source_keys_are_in_every_language(language):
    keys = source_keys()
    assert "error.linea_gotica.already_acted" in keys and "linea_gotica.turn.order" in keys
    assert sorted(k for k in keys if k not in catalogue(language)) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_dynamic_keys_are_in_every_language(language):
    from rules.linea_gotica.state import Phase

    keys = {f"linea_gotica.phase.{p.value}" for p in Phase}
    keys |= {f"linea_gotica.follow.execute_{o}" for o in ("tiro", "effetto", "fine", "mitraglia")}
    keys |= {
        f"linea_gotica.values.{v}"
        for v in (
            "hidden",
            "prone",
            "leaderless",
            "riding",
            "task",
            "dead",
            "surrendered",
            "badly_wounded",
            "wounded",
            "shocked",
            "panic",
            "isolated",
            "destroyed",
            "abandoned",
            "immobilised",
            "mobility_damaged",
            "radio_destroyed",
            "turret_jammed",
            "weapon_destroyed",
            "reload",
            "ranging",
            "order",
            "aircraft",
            "strafe",
            "returning",
        )
    }
    keys |= {f"linea_gotica.values.{p.value}" for p in Phase}
    assert sorted(k for k in keys if k not in catalogue(language)) == []


def test_rendered_text_has_no_raw_keys():
    sample = resolutions()[:: max(1, len(resolutions()) // 800)]
    for resolution in sample:
        for language in LANGUAGES:
            described = describe(resolution, language)
            for text in (described.title, described.outcome, *described.steps, *described.effects):
                assert "{" not in text and "linea_gotica." not in text, (language, text)


# -- the rules CLI -------------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_lists_tables_and_resolves():
    listed = cli("list")
    assert listed.returncode == 0 and "linea_gotica\tLinea Gotica" in listed.stdout
    tables = cli("table", "linea_gotica")
    assert tables.returncode == 0 and len(tables.stdout.strip().splitlines()) == 32
    sequence = cli("table", "linea_gotica", "sequenza")
    assert "not in the seed" in sequence.stdout and "SEQUENZA DI GIOCO" in sequence.stdout
    procedures = cli("procedures", "linea_gotica")
    assert "direct_fire" in procedures.stdout and "ranging" in procedures.stdout
    data = json.dumps({"quality": "regolari", "weapon": "fucile", "distance_cm": 15})
    resolved = cli(
        "resolve", "linea_gotica", "direct_fire", "--input", data, "--dice", "5,10", "--json"
    )
    assert resolved.returncode == 0, resolved.stderr
    payload = json.loads(resolved.stdout)
    assert payload["outcome"] == "linea_gotica.damage.dead"
    assert sum(payload["odds"].values()) == pytest.approx(1)
    text = cli(
        "resolve",
        "linea_gotica",
        "morale",
        "--input",
        '{"quality": "elite"}',
        "--dice",
        "3",
        "--lang",
        "en",
    )
    assert "Morale test: D10=3" in text.stdout and "Morale passed" in text.stdout
    bad = cli("resolve", "linea_gotica", "morale", "--input", '{"quality": "eroi"}')
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
