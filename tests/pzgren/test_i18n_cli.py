"""pzgren's catalogue covers every key its resolutions, errors and game produce, in the three
languages; and ``python -m rules`` lists, prints and resolves pzgren like any ruleset."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from rules.core.dice import DiceTray
from rules.core.i18n import LANGUAGES, catalogue
from rules.core.odds import enumerate_odds
from rules.core.resolution import EffectKind, Resolution
from rules.pzgren import PROCEDURES
from rules.render import describe
from tests.core.every_face import EveryFace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "direct_fire": [
        {"fire_value": 1, "modifiers": ["town_woods"]},
        {
            "fire_value": 20,
            "modifiers": ["opportunity", "night"],
            "units": [
                {"id": "a"},
                {"id": "t", "category": "transport"},
                {"id": "o", "armour": "open"},
                {"id": "c", "armour": "closed"},
                {"id": "r", "modifiers": ["artillery"]},
            ],
            "hex": "1,1",
        },
        {
            "fire_value": 45,
            "modifiers": ["artillery", "adjacent_all", "cavalry", "marsh"],
            "units": [
                {"id": "a"},
                {"id": "o", "armour": "open"},
                {"id": "w", "category": "transport"},
            ],
        },
        {
            "fire_value": 30,
            "modifiers": [
                "entrenchment",
                "town_woods",
                "night",
                "hill",
                "range_3",
                "enemy_aa",
                "own_minefield",
                "river_engineers",
                "three_stacked",
                "mortar_aa_at",
                "dug_in",
            ],
        },
        {"fire_value": 5, "modifiers": ["entrenchment_town_woods"]},
    ],
    "anti_tank": [
        {
            "at_value": 6,
            "armour": 3,
            "steps": 2,
            "target": "t",
            "modifiers": [
                "moved",
                "opportunity",
                "dug_in_or_town_woods",
                "higher_hill",
                "range_over_5",
                "adjacent",
                "river_engineers",
                "flank",
            ],
        },
        {"at_value": 3, "target_kind": "truck", "steps": 1, "target": "t"},
    ],
    "morale": [
        {"morale": 7, "n": 2, "status": status, "target": "u", "rally": rally, "modifier": 1}
        for status in ("good_order", "disrupted", "demoralized")
        for rally in (False, True)
    ],
}


@cache
def resolutions() -> tuple[Resolution, ...]:
    found: list[Resolution] = []
    for name, inputs in EXAMPLES.items():
        procedure = PROCEDURES[name]
        for data in inputs:
            parsed = procedure.parse_input(data)

            def run(source, procedure=procedure, parsed=parsed):  # type: ignore[no-untyped-def]
                # Every face (not the odds' grouped branches): each face's steps are swept.
                resolution = procedure.resolver(parsed, DiceTray(EveryFace(source)))
                found.append(resolution)
                return resolution.outcome

            enumerate_odds(run)
    return tuple(found)


def used_keys() -> set[str]:
    keys: set[str] = set()
    for resolution in resolutions():
        keys.add(f"pzgren.procedure.{resolution.procedure}")
        outcomes = [resolution.outcome]
        for step in resolution.steps:
            keys.add(step.key)
            keys.update(m.key for m in step.modifiers)
            if step.threshold is not None:
                keys.add(step.threshold.key)
            if step.outcome is not None:
                outcomes.append(step.outcome)
        for outcome in outcomes:
            keys.add(outcome.key)
            status = outcome.param("status")
            if isinstance(status, str):
                keys.add(f"pzgren.values.{status}")
        for effect in resolution.effects:
            if effect.kind not in (EffectKind.CASUALTIES, EffectKind.TEST_OWED):
                keys.add(f"pzgren.values.{effect.key}")
    return keys


def source_keys() -> set[str]:
    keys: set[str] = set()
    for path in (ROOT / "rules" / "pzgren").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys.update(re.findall(r'"(error\.[a-z_.]+)"', text))
        keys.update(re.findall(r'"(pzgren\.[a-z_]+\.[a-z_]+)"', text))
    return keys


def test_the_sweep_is_broad():
    keys = used_keys()
    assert len(resolutions()) > 300
    assert {"pzgren.mod.cap", "pzgren.at.last_step", "pzgren.morale.rallied"} <= keys
    assert {f"pzgren.mod.{k}" for k in ("night", "dug_in", "three_stacked", "adjacent_all")} <= keys


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_is_in_every_language(language):
    missing = sorted(k for k in used_keys() | source_keys() if k not in catalogue(language))
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_rendered_text_has_no_raw_keys_or_placeholders(language):
    for resolution in resolutions()[::7]:
        described = describe(resolution, language)
        for text in (described.title, described.outcome, *described.steps, *described.effects):
            assert "{" not in text and "pzgren." not in text, (language, text)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_cli_prints_and_resolves():
    procedures = cli("procedures", "pzgren")
    assert procedures.returncode == 0
    names = [line.split("\t")[0] for line in procedures.stdout.splitlines()]
    assert [name for name in names if name] == ["direct_fire", "anti_tank", "morale"]
    table = cli("table", "pzgren", "tir_direct")
    assert (
        table.returncode == 0 and "45+" in table.stdout and "Transcription notes:" in table.stdout
    )
    resolved = cli(
        "resolve", "pzgren", "direct_fire", "--input", '{"fire_value": 7}', "--dice", "1,1",
        "--json",
    )  # fmt: skip
    assert resolved.returncode == 0, resolved.stderr
    payload = json.loads(resolved.stdout)
    assert payload["outcome"] == "pzgren.direct.result(result=X)"
    assert abs(sum(payload["odds"].values()) - 1) < 1e-9
    bad = cli("resolve", "pzgren", "anti_tank", "--input", '{"at_value": 5}', "--dice", "1,1")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
