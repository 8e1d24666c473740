"""Scenario titles and descriptions in the game's language: a bundled scenario gives both in
Italian, English and French (a French linea_gotica game's map was titled in Italian), an
uploaded scenario's plain strings keep working, and a game stored with a plain title reads
as before."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from pydantic import BaseModel, ValidationError

from rules.core.play import DocumentRules
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.scenario import bundled_files, bundled_titles
from rules.core.seatview import SPECTATOR
from rules.core.words import (
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    LocalizedText,
    LocalizedTitle,
    in_language,
    stored_title,
)
from rules.core.yamlio import load_yaml
from tests.rulesets import fact, facts

LANGUAGES = ("it", "en", "fr")
#: Each ruleset's scenario with a battlefield, and its title in each language.
TITLED = [
    (key, fact(key, "BATTLEFIELD"), title) for key, title in facts("BATTLEFIELD_TITLE").items()
]


class _Described(BaseModel):
    title: LocalizedTitle
    description: LocalizedText


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    return play


def test_a_title_and_a_description_are_a_string_or_the_three_languages() -> None:
    words = {"it": "Il mulino", "en": "The mill", "fr": "Le moulin"}
    told = {"it": "Si combatte.\nA lungo.", "en": "A fight.\nA long one.", "fr": "Un combat."}
    described = _Described.model_validate({"title": words, "description": told})
    assert described.title == "Il mulino" and in_language(described.title, "fr") == "Le moulin"
    assert in_language(described.description, "en") == "A fight.\nA long one."
    assert described.model_dump(mode="json") == {"title": words, "description": told}
    plain = _Described.model_validate({"title": "x" * MAX_TITLE_CHARS, "description": ""})
    assert plain.model_dump(mode="json") == {"title": "x" * MAX_TITLE_CHARS, "description": ""}
    assert _Described.model_validate({"title": "T", "description": "d" * MAX_TEXT_CHARS})


@pytest.mark.parametrize(
    ("title", "description"),
    [
        ("x" * (MAX_TITLE_CHARS + 1), ""),  # longer than a title
        ({"it": "Il mulino", "en": "x" * (MAX_TITLE_CHARS + 1)}, ""),
        ("Il mulino\nfalso", ""),  # a title is one line
        ({"de": "Die Mühle"}, ""),
        ("Il mulino\u202e", ""),  # a right-to-left override
        ("Il mulino", "d" * (MAX_TEXT_CHARS + 1)),
        ("Il mulino", {"it": "Si combatte", "en": "A fight\u202e"}),
        ("Il mulino", {"it": ""}),
    ],
)
def test_a_bad_title_or_description_is_refused(title: object, description: object) -> None:
    with pytest.raises(ValidationError):
        _Described.model_validate({"title": title, "description": description})


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_every_bundled_scenario_has_its_title_and_description_in_three_languages(
    ruleset: str,
) -> None:
    for scenario_id, path in bundled_files(f"rules.{ruleset}").items():
        data = load_yaml(path.read_text("utf-8"))
        for field in ("title", "description"):
            texts = data[field]
            assert isinstance(texts, dict) and set(texts) == set(LANGUAGES), (scenario_id, field)
            assert len(set(texts.values())) == 3, (scenario_id, field)  # translated
        examples = {"it": "(esempio)", "en": "(example)", "fr": "(exemple)"}
        for language, example in examples.items():
            assert data["title"][language].endswith(example), (scenario_id, language)
        # French typography: a narrow no-break space before : ; ! ?, never a plain one.
        assert not re.search(r"[ \u00a0][:;!?]", data["description"]["fr"]), scenario_id
        listed = bundled_titles(f"rules.{ruleset}")[scenario_id]
        assert {language: in_language(listed, language) for language in LANGUAGES} == (
            data["title"]
        )


@pytest.mark.parametrize(("ruleset", "scenario", "title"), TITLED)
def test_a_games_map_and_status_are_titled_in_its_language(
    ruleset: str, scenario: str, title: tuple[str, str, str]
) -> None:
    """The document keeps the three languages; the map view reads the title in its
    language, the status carries all three for the front ends to pick the reader's."""
    play = _play(ruleset)
    document = play.setup(scenario)
    assert document["title"] == dict(zip(LANGUAGES, title, strict=True))  # stored as given
    status = play.view(document, SPECTATOR).status
    for language, expected in zip(LANGUAGES, title, strict=True):
        view = play.view(document, SPECTATOR).map(language)
        assert view is not None and view.title == expected
        assert in_language(status.title, language) == expected
        assert in_language(stored_title(document), language) == expected


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_an_uploaded_scenarios_plain_title_reads_as_given(ruleset: str) -> None:
    scenario = fact(ruleset, "BATTLEFIELD")
    text = (resources.files(f"rules.{ruleset}") / "scenarios" / f"{scenario}.yaml").read_text(
        "utf-8"
    )
    text = re.sub(r"^title:\n(?:  .*\n)+", "title: Lo scontro del circolo\n", text, flags=re.M)
    text = re.sub(r"^description:\n(?:  .*\n)+", "description: ''\n", text, flags=re.M)
    play = _play(ruleset)
    document = play.setup(None, text)
    assert document["title"] == "Lo scontro del circolo"  # a string stays a string
    for language in LANGUAGES:
        view = play.view(document, SPECTATOR).map(language)
        assert view is not None and view.title == "Lo scontro del circolo"
        status = play.view(document, SPECTATOR).status
        assert in_language(status.title, language) == "Lo scontro del circolo"


@pytest.mark.parametrize(("ruleset", "scenario", "title"), TITLED)
def test_a_game_stored_with_a_plain_title_reads_as_before(
    ruleset: str, scenario: str, title: tuple[str, str, str]
) -> None:
    """A game started before titles had their languages stored the Italian one as a string:
    it reads as it was, and the ruleset writes it back the same."""
    play = _play(ruleset)
    document = json.loads(json.dumps(play.setup(scenario)))
    document["title"] = title[0]
    assert play.canonical(document)["title"] == title[0]
    view = play.view(document, SPECTATOR).map("fr")
    assert view is not None and view.title == title[0]
    assert in_language(play.view(document, SPECTATOR).status.title, "en") == title[0]
    assert stored_title(document) == title[0] and stored_title({}) == ""
