"""The catalogue: every key the rules use exists in it, en and fr, with the same placeholders."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

import rules.core.i18n as i18n
from rules.core.dice import DiceTray, ScriptedDice, parse_die, parse_faces
from rules.core.errors import (
    DiceError,
    IllegalAction,
    InvalidInput,
    RulesError,
    TableDataError,
    UnknownName,
)
from rules.core.i18n import LANGUAGES, catalogue, decimal, placeholders, translate
from rules.core.odds import enumerate_odds
from rules.core.resolution import EffectKind, Resolution
from rules.core.ruleset import get_ruleset
from rules.manovra import PROCEDURES
from rules.render import describe
from tests.core.every_face import EveryFace
from tests.core.examples import example_cases

ROOT = Path(__file__).resolve().parent.parent
ERROR_KEY = re.compile(r'"(error\.[a-z_.]+)"')
RENDER_KEY = re.compile(r"""["'](render\.[a-z_]+)["']""")
VALUE_PARAMS = ("status", "location", "effect", "cover", "obstacle")


@cache
def resolutions() -> tuple[Resolution, ...]:
    """Every resolution of every dice path of every example input (a broad sweep).

    Every face is rolled (``EveryFace`` hides the odds engine's branching, which would walk
    one face per group of faces the rules read alike and so reach fewer texts)."""
    found: list[Resolution] = []
    for name, data in example_cases():
        procedure = PROCEDURES[name]
        parsed = procedure.parse_input(data)

        def run(source, procedure=procedure, parsed=parsed):  # type: ignore[no-untyped-def]
            resolution = procedure.resolver(parsed, DiceTray(EveryFace(source)))
            found.append(resolution)
            return resolution.outcome

        enumerate_odds(run, 5_000)
    return tuple(found)


@cache
def used_keys() -> dict[str, set[str]]:
    """Catalogue keys produced by resolving: outcomes, steps, modifiers, thresholds, values."""
    keys: dict[str, set[str]] = {
        "outcome": set(),
        "step": set(),
        "modifier": set(),
        "threshold": set(),
        "value": set(),
    }
    for resolution in resolutions():
        ruleset = resolution.ruleset
        outcomes = [resolution.outcome]
        for step in resolution.steps:
            keys["step"].add(step.key)
            keys["modifier"].update(m.key for m in step.modifiers)
            if step.threshold is not None and step.threshold.key:
                keys["threshold"].add(step.threshold.key)
            if step.outcome is not None:
                outcomes.append(step.outcome)
        for outcome in outcomes:
            keys["outcome"].add(outcome.key)
            for name, value in outcome.params:
                if name in VALUE_PARAMS and isinstance(value, str):
                    keys["value"].update(f"{ruleset}.values.{part}" for part in value.split("+"))
        for effect in resolution.effects:
            if effect.kind not in (EffectKind.CASUALTIES, EffectKind.TEST_OWED):
                keys["value"].add(f"{ruleset}.values.{effect.key}")
    return keys


def raised_error_keys() -> set[str]:
    """Keys of errors actually raised by driving the core and the ruleset into them."""
    keys: set[str] = set()
    attempts = [
        lambda: ScriptedDice([9]).face(parse_die("D8"), "x"),
        lambda: ScriptedDice([]).face(parse_die("D8"), "x"),
        lambda: ScriptedDice([1] * 201),
        lambda: (lambda d: (d.face(parse_die("D6"), "x"), d.ensure_consumed()))(
            ScriptedDice([1, 2])
        ),
        lambda: parse_faces(""),
        lambda: parse_faces("x"),
        lambda: parse_die("Q"),
        lambda: PROCEDURES["test"].parse_input({"kind": "??"}),
        lambda: get_ruleset("nope"),
        lambda: get_ruleset("manovra").procedure("nope"),
        lambda: get_ruleset("manovra").tables["nope"],
        lambda: get_ruleset("manovra").tables["test"].row_for("nope", 1),
        lambda: get_ruleset("manovra").tables["campo_minato"].row_for("d6", 7),
        lambda: get_ruleset("manovra").tables["test"].column("nope"),
        lambda: PROCEDURES["observation"].run(
            PROCEDURES["observation"].parse_input(
                {"observed": "carri", "terrain": "altro", "state": "appostata", "distance_cm": 1}
            ),
            ScriptedDice([]),
        ),
    ]
    for attempt in attempts:
        with pytest.raises(RulesError) as caught:
            attempt()
        keys.add(caught.value.key)
    for error_class in (
        RulesError,
        InvalidInput,
        DiceError,
        TableDataError,
        UnknownName,
        IllegalAction,
    ):
        keys.add(error_class().key)
    return keys


def source_error_keys() -> set[str]:
    keys: set[str] = set()
    for path in (ROOT / "rules").rglob("*.py"):
        keys.update(ERROR_KEY.findall(path.read_text(encoding="utf-8")))
    return keys


def render_keys() -> set[str]:
    return set(RENDER_KEY.findall((ROOT / "rules" / "render.py").read_text(encoding="utf-8")))


# -- coverage ------------------------------------------------------------------------------------


def test_the_sweep_is_broad():
    keys = used_keys()
    assert len(resolutions()) > 1000
    assert len(keys["outcome"]) >= 35
    assert {"manovra.heavy.effect", "manovra.flame.vehicle", "manovra.move.impassable"} <= (
        keys["outcome"]
    )


def test_the_source_scan_finds_the_error_keys():
    keys = source_error_keys()
    assert {"error.dice.impossible_face", "error.manovra.bad_location"} <= keys
    assert raised_error_keys() <= keys | {"error.rules"}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", ["outcome", "step", "modifier", "threshold", "value"])
def test_resolution_keys_are_in_every_language(kind: str, language: str):
    missing = sorted(key for key in used_keys()[kind] if key not in catalogue(language))
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_raised_error_keys_are_in_every_language(language: str):
    missing = sorted(key for key in raised_error_keys() if key not in catalogue(language))
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_render_keys_are_in_every_language(language: str):
    keys = render_keys()
    assert "render.odds_inexact" in keys
    assert sorted(key for key in keys if key not in catalogue(language)) == []


@pytest.mark.parametrize("key", sorted(source_error_keys()))
def test_error_keys_in_the_source_are_in_every_language(key: str):
    missing = [language for language in LANGUAGES if key not in catalogue(language)]
    assert missing == []


def test_rendered_text_has_no_raw_keys_or_placeholders():
    sample = resolutions()[:: max(1, len(resolutions()) // 1500)]
    for resolution in sample:
        for language in LANGUAGES:
            described = describe(resolution, language)
            for text in (described.outcome, *described.steps, *described.effects):
                assert "{" not in text and "manovra." not in text, (language, text)


# -- consistency of the three catalogues -------------------------------------------------------


def test_the_three_catalogues_have_the_same_keys():
    italian = set(catalogue("it"))
    assert italian
    for language in ("en", "fr"):
        assert set(catalogue(language)) == italian, language


def test_placeholders_are_the_same_in_the_three_languages():
    italian = catalogue("it")
    differences = []
    for key, template in italian.items():
        for language in ("en", "fr"):
            other = catalogue(language).get(key)
            if other is not None and placeholders(other) != placeholders(template):
                differences.append((key, language, placeholders(template), placeholders(other)))
    assert differences == []


def test_translations_differ_from_italian_where_words_are_involved():
    """A sanity check that en/fr are translations, not copies."""
    for language in ("en", "fr"):
        same = [
            key
            for key, text in catalogue("it").items()
            if catalogue(language)[key] == text and re.search(r"[a-z]{5,}", text)
        ]
        assert len(same) < len(catalogue("it")) // 5, same[:20]


def test_placeholders_helper():
    assert placeholders("{n} perdite {status}") == {"n", "status"}
    assert placeholders("no placeholders") == set()
    assert placeholders("{{literal}} {x}") == {"x"}


# -- translate ----------------------------------------------------------------------------------


def test_translate_substitutes_parameters():
    assert translate("manovra.test.passed", "it", test="CT") == "CT superato"
    assert translate("manovra.test.passed", "en", test="CT") == "CT passed"
    assert translate("error.dice.too_many", "fr", limit=200) == "Trop de dés\u202f: 200 au plus."


def test_translate_falls_back_to_italian_then_the_key(monkeypatch: pytest.MonkeyPatch):
    # an unknown language has an empty catalogue: Italian is used
    assert translate("manovra.test.passed", "de", test="CT") == "CT superato"
    # a key missing in English only: Italian
    real = i18n.catalogue

    def without_key(language: str):  # type: ignore[no-untyped-def]
        entries = dict(real(language))
        if language == "en":
            entries.pop("manovra.test.passed", None)
        return entries

    monkeypatch.setattr(i18n, "catalogue", without_key)
    assert translate("manovra.test.passed", "en", test="IT") == "IT superato"
    assert translate("manovra.test.failed", "en", test="IT") == "IT failed"
    monkeypatch.undo()
    # a key missing everywhere: the key itself, with its parameters
    assert translate("no.such.key", "en") == "no.such.key"
    assert translate("no.such.key", "fr", a=1, b="x") == "no.such.key a=1, b=x"


def test_translate_keeps_unknown_placeholders_visible():
    assert translate("manovra.test.passed", "en") == "{test} passed"


def test_errors_localize_through_the_catalogue():
    error = DiceError("error.dice.too_many", limit=5)
    assert str(error) == "Troppi dadi: al massimo 5."
    assert error.localized("en") == "Too many dice: at most 5."
    assert error.localized("xx") == str(error)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Too far: 15.3 cm, 12.5 allowed"),
        ("it", "Troppo lontano: 15,3 cm, consentiti 12,5"),
        ("fr", "Trop loin\u202f: 15,3 cm, 12,5 permis"),
    ],
)
def test_a_measure_takes_the_decimal_separator_of_the_language(language, expected):
    # Stored outcomes carry a measure as the rules wrote it ("15.3") or as a float.
    text = translate("linea_gotica.move.too_far", language, cm="15.3", allowance=12.5)
    assert text == expected


def test_a_measure_is_written_without_float_noise_and_a_typed_point_stays():
    assert decimal(15.300000000000001, "fr") == "15,3"
    assert decimal(88.0, "it") == "88"
    assert decimal(15.001, "en") == "15"
    assert decimal("a12.5", "fr") == "a12.5"  # not a number: as it is
    # A point typed back by players ({x},{y}) is not marked as a measure, so it keeps its point.
    path = translate("linea_gotica.field.path", "fr", unit="A", x="12.5", y="30", cm="4.5", legs="")
    assert "12.5,30" in path and "4,5 cm" in path


def test_french_addresses_the_reader_as_vous_everywhere():
    """The web link's texts said "Ton lien … pour toi seul" beside a catalogue that says
    "vous" everywhere else: one register for one reader."""
    familiar = re.compile(r"\b(?:tu|toi|ton|ta|tes)\b|\bt’|\bt'", re.IGNORECASE)
    found = {key: text for key, text in catalogue("fr").items() if familiar.search(text)}
    assert not found


def test_no_english_text_makes_a_side_the_subject_of_a_verb_that_must_agree_with_it():
    """ "Americans passes", "Allies has already ended this step", "Raiders wins": a side's
    name is plural ("Americans") or singular ("Astral Legion"), so no verb can agree with
    every one. English texts word it around the name ("Pass by Americans")."""
    agreeing = re.compile(
        r"(?<!of )(?<!for )(?<!by )(?<!to )"
        r"\{(?:side|winner|loser|holder)\} (?:is|has|was|does|[a-z]+s)\b"
    )
    found = {key: text for key, text in catalogue("en").items() if agreeing.search(text)}
    assert not found
