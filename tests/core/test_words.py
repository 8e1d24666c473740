"""Names in the game's language: a bundled scenario's objectives carry their words in
Italian, English and French (each view picks the game's), an uploaded scenario's plain
names keep working, and a game's document keeps the names as they were given."""

from __future__ import annotations

import json
import pickle
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from rules.core.dice import SystemDice
from rules.core.i18n import translate
from rules.core.play import DocumentRules
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR
from rules.core.upload import unsafe_character
from rules.core.words import (
    LocalizedName,
    Words,
    followed,
    id_named,
    in_language,
    is_named,
    joined,
    named_again,
    names_in,
    spelled_in,
    words_of,
)
from rules.render import outcome_text
from tests.rulesets import fact, facts


class _Named(BaseModel):
    name: LocalizedName


def test_a_name_is_a_string_or_the_three_languages_words() -> None:
    plain = _Named.model_validate({"name": "Il mulino"}).name
    assert plain == "Il mulino" and in_language(plain, "fr") == "Il mulino"
    words = _Named.model_validate(
        {"name": {"it": "Il mulino", "en": "The mill", "fr": "Le moulin"}}
    )
    assert words.name == "Il mulino"  # a string: what reads it as one keeps working
    assert words.name.in_language("en") == "The mill" and in_language(words.name, "fr") == (
        "Le moulin"
    )
    # Stored as given: a plain name stays a plain string, the words a mapping.
    assert _Named(name=plain).model_dump(mode="json") == {"name": "Il mulino"}
    dumped = words.model_dump(mode="json")
    assert dumped == {"name": {"it": "Il mulino", "en": "The mill", "fr": "Le moulin"}}
    assert _Named.model_validate(dumped) == words
    assert pickle.loads(pickle.dumps(words.name)).in_language("en") == "The mill"


@pytest.mark.parametrize(
    "bad",
    [{"de": "Die Mühle"}, {}, {"it": ""}, "x" * 61, {"it": 3}],
)
def test_a_bad_name_is_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        _Named.model_validate({"name": bad})


def test_a_name_without_italian_reads_its_first_language() -> None:
    assert words_of({"fr": "Le moulin", "en": "The mill"}) == "Le moulin"
    assert Words("Le moulin", {"fr": "Le moulin"}).in_language("it") == "Le moulin"


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    return play


@pytest.mark.parametrize(
    ("ruleset", "scenario", "it", "en", "fr"),
    [
        (key, fact(key, "BATTLEFIELD"), *first.name)
        for key, first in facts("FIRST_OBJECTIVE").items()
    ],
)
def test_a_games_objectives_are_read_in_its_language(
    ruleset: str, scenario: str, it: str, en: str, fr: str
) -> None:
    """The score and the map's labels name the objective in the reader's language, from
    the game's stored document (a French game reads 'La ferme', as its book's map does)."""
    play = _play(ruleset)
    document = play.setup(scenario)
    for language, expected in (("it", it), ("en", en), ("fr", fr)):
        lines = [
            line
            for line in play.view(document, REFEREE).score.lines
            if line.kind.value == "objective"
        ]
        assert expected in outcome_text(ruleset, lines[0].text, language)
        view = play.view(document, SPECTATOR).map(language)
        assert view is not None and view.objectives[0].label.startswith(expected)


def test_an_uploaded_scenario_with_plain_names_keeps_working() -> None:
    play = _play("w40k4")
    document = play.setup("avamposto_campo")
    victory = document["victory"]["conditions"]
    victory["objectives"][0]["name"] = "Il nostro avamposto"  # as a club's file gives it
    lines = [
        line for line in play.view(document, REFEREE).score.lines if line.kind.value == "objective"
    ]
    assert "Il nostro avamposto" in outcome_text("w40k4", lines[0].text, "en")


@pytest.mark.parametrize(
    ("ruleset", "scenario", "side", "it", "en", "fr"),
    [
        (key, fact(key, "BATTLEFIELD"), named.side, *named.name)
        for key, named in facts("SIDE_NAME").items()
    ],
)
def test_a_games_sides_are_read_in_its_language(
    ruleset: str, scenario: str, side: str, it: str, en: str, fr: str
) -> None:
    """An English pzgren game named its sides "Américains/Allemands", a French one of the
    other rulesets "Alleati/Tedeschi": the document keeps the three languages, each text
    naming a side reads it in its own, and a side is typed by its name in any of them."""
    play = _play(ruleset)
    document = play.setup(scenario)
    assert document["sides"][side] == {"it": it, "en": en, "fr": fr}  # stored as given
    name = play.sides(document)[side]
    for language, expected in (("it", it), ("en", en), ("fr", fr)):
        assert translate("bot.game.joined", language, side=name).count(expected) == 1
        score = play.view(document, REFEREE).score
        assert any(expected in outcome_text(ruleset, line.text, language) for line in score.lines)
    assert names_in(play.sides(document), "en")[side] == en
    for typed in (side, it, en, fr.upper()):
        ended = play.act(document, REFEREE, "game.decide", {"winner": typed, "reason": "ok"}, None)
        assert ended.document["victory"]["result"]["winner"] == side


def test_names_read_back_from_json_and_lists_of_names_read_in_the_language() -> None:
    allies = words_of({"it": "Alleati", "en": "Allies", "fr": "Alliés"})
    axis = words_of({"it": "Asse", "en": "Axis", "fr": "Axe"})
    # A stored result keeps "Alleati" as plain text: the game's sides give it its words.
    stored = json.loads(json.dumps({"side": allies}))["side"]
    assert type(stored) is str and in_language(stored, "fr") == "Alleati"
    assert in_language(named_again(stored, [axis, allies]), "fr") == "Alliés"
    assert named_again("Alleati 2", [allies]) == "Alleati 2"  # only a whole name
    listed = joined([allies, axis])
    assert listed == "Alleati, Asse" and in_language(listed, "en") == "Allies, Axis"
    assert joined(["Rossi", "Blu"]) == "Rossi, Blu"  # an uploaded scenario's plain names
    assert is_named(allies, "alliés") and not is_named(allies, "Asse")


def test_a_name_is_plain_text() -> None:
    with pytest.raises(ValidationError, match="U\\+202E"):
        _Named.model_validate({"name": {"it": "Alleati", "en": "Allies\u202e"}})


@pytest.mark.parametrize(
    ("ruleset", "scenario", "it", "en", "fr"),
    [
        ("linea_gotica", "esempio_gotica_campo", "Casolare", "Farmhouse", "Ferme"),
        ("manovra", "esempio_normandia_campo", "Fattoria", "Farm", "Ferme"),
        (
            "w40k4",
            "avamposto_campo",
            "Torre di comunicazione",
            "Communications tower",
            ("Tour de communication"),
        ),
    ],
)
def test_a_maps_terrain_labels_are_read_in_its_language(
    ruleset: str, scenario: str, it: str, en: str, fr: str
) -> None:
    """A French game's map labelled its terrain in Italian ("Casolare" beside the objective
    "La ferme"): the labels read in the map's language, the document keeps all three."""
    play = _play(ruleset)
    document = play.setup(scenario)
    for language, expected in (("it", it), ("en", en), ("fr", fr)):
        view = play.view(document, SPECTATOR).map(language)
        assert view is not None
        labels = {area.label for area in view.areas}
        assert expected in labels and not {it, en, fr} - {expected} & labels, labels


@pytest.mark.parametrize(
    ("ruleset", "scenario", "it", "en", "fr"),
    [
        (key, fact(key, "BATTLEFIELD"), *first.name)
        for key, first in facts("FIRST_OBJECTIVE").items()
    ],
)
def test_an_ended_games_result_reads_its_objectives_in_its_language(
    ruleset: str, scenario: str, it: str, en: str, fr: str
) -> None:
    """Played at the console: a French linea_gotica game's live score read "La chapelle",
    its final result "La chiesetta" — the result kept in the document (JSON) had lost the
    name's languages. It reads them again from the scenario's objectives."""
    play = _play(ruleset)
    document = play.setup(scenario)
    options = {"winner": "none", "reason": "time"}
    ended = play.act(document, REFEREE, "game.decide", options, SystemDice()).document
    stored = json.loads(json.dumps(ended))  # as the store keeps it and reads it back
    result = play.view(stored, REFEREE).result
    assert result is not None
    lines = [line for line in result.score.lines if line.kind.value == "objective"]
    for language, expected in (("it", it), ("en", en), ("fr", fr)):
        assert expected in outcome_text(ruleset, lines[0].text, language)


SNIPER = Words("Cecchino", {"it": "Cecchino", "en": "Sniper", "fr": "Tireur d'élite"})


def test_a_unit_is_found_by_its_id_or_its_name_in_any_language() -> None:
    names = {"cecchino": SNIPER, "mg": "MG 42", "mg_bis": "MG 42"}
    assert id_named(names, "cecchino") == "cecchino"  # the id, as always
    for typed in ("Cecchino", "sniper", "TIREUR D'ÉLITE", " Sniper "):
        assert id_named(names, typed) == "cecchino", typed
    assert id_named(names, "MG 42") is None  # two units: neither
    assert id_named(names, "Nobody") is None


def test_a_documents_pieces_named_in_languages_are_spelled_for_stored_outcomes() -> None:
    document = {
        "units": {"cecchino": {"name": dict(SNIPER.translations)}, "mg": {"name": "MG 42"}},
        "supports": {"mortai": {"name": {"it": "Mortai", "en": "Mortars", "fr": "Mortiers"}}},
    }
    spelled = spelled_in(document)
    assert [in_language(name, "en") for name in spelled] == ["Sniper", "Mortars"]
    assert in_language(named_again("Cecchino", spelled), "fr") == "Tireur d'élite"
    assert spelled_in({}) == () and spelled_in({"units": ["not", "a", "mapping"]}) == ()


def test_a_name_followed_by_a_detail_and_joined_reads_in_each_language() -> None:
    listed = joined([followed(SNIPER, " (breve)"), followed("MG 42", " (lunga)")])
    assert in_language(listed, "en") == "Sniper (breve), MG 42 (lunga)"
    assert translate("error.unknown_option", "fr", option=listed, known="-").count("Tireur") == 1
    assert followed("MG 42", " (lunga)") == "MG 42 (lunga)"


@given(st.text(max_size=40))
def test_a_names_refused_character_is_found_as_each_characters_category_says(text: str) -> None:
    """The printable fast path of `unsafe_character` answers as reading every character's
    Unicode category does (the refused ones: controls, formats, surrogates, line and
    paragraph separators; line breaks where lines are allowed)."""
    for lines in (False, True):
        expected = next(
            (
                f"U+{ord(char):04X}"
                for char in text
                if not (lines and char == "\n")
                and unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Cs"}
            ),
            None,
        )
        assert unsafe_character(text, lines=lines) == expected
