"""The w40k4 catalogue: every key the ruleset uses exists in it, en and fr, and renders clean."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from rules.core.dice import DiceTray, ScriptedDice
from rules.core.i18n import LANGUAGES, catalogue
from rules.core.odds import enumerate_odds
from rules.core.resolution import EffectKind, Resolution
from rules.core.seatview import REFEREE
from rules.render import describe
from rules.w40k4 import PROCEDURES
from rules.w40k4.surface import PLAY
from tests.w40k4.test_procedures import EXAMPLES

SOURCE = Path(__file__).resolve().parents[2] / "rules" / "w40k4"
LITERAL = re.compile(r'"((?:w40k4|error\.w40k4)\.[a-z0-9_.]+)"')
EXPANSIONS = {
    "w40k4.dangerous.failed_": ["models", "vehicles", "guns"],
    "w40k4.fire.skipped_": [
        "heavy_moved",
        "rapid_fire_moved",
        "out_of_range",
        "weapon_destroyed",
        "no_crew",
    ],
    "error.w40k4.": [
        "heavy_moved",
        "rapid_fire_moved",
        "out_of_range",
        "weapon_destroyed",
        "no_crew",
    ],
    "error.w40k4.needs_": ["movement", "shooting", "assault"],
    "w40k4.follow.": ["losses", "combat", "regroup"],
    "w40k4.status.pending_": ["losses", "combat", "regroup"],
    "w40k4.mishap.": ["destroyed", "misplaced", "delayed"],
    "w40k4.penetration.": ["penetrating", "glancing", "none"],
    "w40k4.mod.": ["glancing", "ap_none", "ap1", "open_topped"],
    "w40k4.threshold.save_": ["armour", "cover", "invulnerable"],
    "w40k4.procedure.": sorted(PROCEDURES),
    "w40k4.values.": [
        "movement",
        "shooting",
        "assault",
        "losses",
        "tank_shock",
        "combat",
        "regroup",
        "test",
        "falling_back",
        "immobilised",
        "destroyed",
        "wrecked",
        "exploded",
        "shaken",
        "stunned",
        "weapon_destroyed",
        "reserve",
        "arriving",
        "muri",
        "siepi",
        "erba_alta",
        "fortificazioni",
        "nessuna",
    ],
}


PREFIXES = {"w40k4.scatter", "w40k4.deep_strike"}  # outcome families passed to _scatter


def used_keys() -> set[str]:
    keys: set[str] = set()
    for path in SOURCE.glob("*.py"):
        for key in LITERAL.findall(path.read_text(encoding="utf-8")):
            if not key.endswith((".", "_")) and key not in PREFIXES:
                keys.add(key)
    for prefix in PREFIXES:
        keys.update(f"{prefix}.{end}" for end in ("on_target", "scattered"))
    for prefix, endings in EXPANSIONS.items():
        keys.update(prefix + ending for ending in endings)
    return keys


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_is_in_every_language(language):
    missing = sorted(key for key in used_keys() if key not in catalogue(language))
    assert missing == []


@cache
def resolutions() -> tuple[Resolution, ...]:
    found: list[Resolution] = []
    for name, cases in EXAMPLES.items():
        procedure = PROCEDURES[name]
        for data in cases:
            parsed = procedure.parse_input(data)

            def run(source, procedure=procedure, parsed=parsed):  # type: ignore[no-untyped-def]
                resolution = procedure.resolver(parsed, DiceTray(source))
                found.append(resolution)
                return resolution.outcome

            enumerate_odds(run, 3_000)
    return tuple(found)


def test_resolution_keys_and_values_are_in_every_language():
    for resolution in resolutions()[::7]:
        keys = {resolution.outcome.key, f"w40k4.procedure.{resolution.procedure}"}
        for step in resolution.steps:
            keys.add(step.key)
            keys.update(m.key for m in step.modifiers)
            if step.threshold is not None:
                keys.add(step.threshold.key)
            if step.outcome is not None:
                keys.add(step.outcome.key)
        for effect in resolution.effects:
            if effect.kind not in (EffectKind.CASUALTIES, EffectKind.TEST_OWED):
                keys.add(f"w40k4.values.{effect.key}")
        for language in LANGUAGES:
            assert sorted(k for k in keys if k not in catalogue(language)) == [], language


def test_rendered_text_has_no_raw_keys_or_placeholders():
    sample = resolutions()[:: max(1, len(resolutions()) // 800)]
    assert len(sample) > 200
    for resolution in sample:
        for language in LANGUAGES:
            described = describe(resolution, language)
            for text in (
                described.title,
                described.outcome,
                *described.steps,
                *described.effects,
                *described.odds,
            ):
                assert "{" not in text and "w40k4." not in text, (language, text)


@pytest.mark.parametrize(
    ("language", "effect"),
    [
        ("it", "Banda di predoni, 9 morti"),
        ("en", "Raider Mob, 9 killed"),
        ("fr", "Bande de pillards, 9 tués"),
    ],
)
def test_an_outcomes_effects_name_the_unit_in_the_readers_language(
    language: str, effect: str
) -> None:
    """'Effects: [banda] 9 killed' showed players the unit's id."""
    document = PLAY.setup("avamposto")
    document = PLAY.act(document, REFEREE, "turn.next", {}, ScriptedDice([])).document
    options = {"unit": "squadra_tattica", "target": "banda", "distance": 20, "weapon": "fucile"}
    played = PLAY.act(document, REFEREE, "fire", options, ScriptedDice([6] * 27))
    [effects] = [describe(r, language).effects for r in played.resolutions if r.effects]
    assert effects == (effect,)
