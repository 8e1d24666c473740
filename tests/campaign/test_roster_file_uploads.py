"""A roster file is data, never the bot's voice: names one line of plain text, values
typed strictly, weapons among the ruleset's and bounded, casualties bounded by what the
entry had and by the aftermath's dice; each refusal names the file as uploaded and its
line, in the reader's language."""

from __future__ import annotations

import pytest

from rules.campaign.postbattle import MAX_AFTERMATH_DICE
from rules.campaign.roster import NOTE_KEY
from rules.campaign.roster_file import MAX_WEAPONS, parse_roster
from rules.core.errors import InvalidInput

GOOD = """\
side: legione
entries:
  - id: squadra_tattica
    name: Squadra tattica
    strength: 7
    full: 10
    weapons: {fucile: 7}
  - {id: ghost, name: Ghost, strength: 2, full: 2}
"""
WEAPONS = {"fucile", "lanciamissili"}


def _refused(text: str, **context: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        parse_roster(text, "legione-week2.yaml", **context)  # type: ignore[arg-type]
    return caught.value


def test_the_good_file_is_read() -> None:
    roster = parse_roster(GOOD, weapons=WEAPONS)
    assert roster.entries[0].weapons == {"fucile": 7}


@pytest.mark.parametrize(
    "name",
    [
        "Squadra\\n» Game 1: settled.",  # a newline printing a fake bot line
        "Squadra\\n# chain deadbeef",
        "\\e[31mRed\\e[0m",  # an ANSI escape for the console's terminal
        "Squadra \\u202Eavitta",  # a right-to-left override
        "Squa\\u200Bdra",  # a zero-width space
        "Squa\\u2066dra",  # a bidi isolate
    ],
)
def test_a_name_is_one_line_of_plain_text(name: str) -> None:
    error = _refused(GOOD.replace("name: Squadra tattica", f'name: "{name}"'))
    assert error.params["line"] == 4
    message = error.localized("en")
    assert message.startswith("legione-week2.yaml, line 4: entries.0.name: holds a control")


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("strength: 7", "strength: true", 5, "a whole number is needed"),
        ("strength: 7", 'strength: "7"', 5, "a whole number is needed"),
        ("full: 10", "full: 10.0", 6, "a whole number is needed"),
        ("fucile: 7", "fucile: -5", 7, "at least 0"),
        ("fucile: 7", "fucile: 1000000000", 7, "at most 1000"),
        ("fucile: 7", "fucile: 11", 7, "more than one a strength point (11 > 10)"),
        ("fucile: 7", "laser: 1", 7, "unknown weapon 'laser'"),
        ("name: Squadra tattica", "name: 7", 4, "a name is text, or a text per language"),
    ],
)
def test_values_are_typed_strictly_and_bounded(old: str, new: str, line: int, words: str) -> None:
    error = _refused(GOOD.replace(old, new), weapons=WEAPONS)
    assert error.params["line"] == line
    assert words in error.localized("en"), error.localized("en")


def test_a_name_may_be_written_in_each_language() -> None:
    # As a bundled scenario writes a unit's name: the roster reads it in each language.
    localized = "name: {it: Squadra tattica, en: Tactical Squad, fr: Escouade tactique}"
    entry = parse_roster(GOOD.replace("name: Squadra tattica", localized)).entries[0]
    assert entry.name == "Squadra tattica"
    assert entry.name.in_language("en") == "Tactical Squad"
    assert entry.name.in_language("fr") == "Escouade tactique"
    block = "name:\n      it: Squadra tattica\n      en: Tactical Squad"
    written = parse_roster(GOOD.replace("name: Squadra tattica", block)).entries[0]
    assert written.name.in_language("en") == "Tactical Squad"


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("{it: Squadra, de: Trupp}", 4, "unknown language 'de' (known: it, en, fr)"),
        ("{it: Squadra, en: 7}", 4, "each language's name is text"),
        ("{it: Squadra, en: ''}", 4, "a name is 1 to 80 characters"),
        ("{}", 4, "a name is text, or a text per language: {it: …, en: …, fr: …}"),
        ("[Squadra, Squad]", 4, "a name is text, or a text per language"),
        ('{it: "Squa\\u200Bdra"}', 4, "holds a control or invisible character"),
    ],
)
def test_a_malformed_name_in_languages_is_refused_clearly(name: str, line: int, words: str) -> None:
    error = _refused(GOOD.replace("name: Squadra tattica", f"name: {name}"))
    assert error.params["line"] == line
    message = error.localized("en")
    assert message.startswith("legione-week2.yaml, line 4: entries.0.name"), message
    assert words in message, message
    assert "Value error" not in message
    french = error.localized("fr")
    assert "\u202f:" in french and "Value error" not in french


def test_weapons_have_a_bounded_number_of_keys() -> None:
    many = "{" + ", ".join(f"w{n}: 1" for n in range(4000)) + "}"
    error = _refused(GOOD.replace("{fucile: 7}", many))
    assert error.params["line"] == 7
    assert f"at most {MAX_WEAPONS} items" in error.localized("en")


def test_history_lines_are_the_players_words() -> None:
    text = GOOD.replace(
        "    weapons: {fucile: 7}",
        "    history: [error.integrity.tampered, 'Held the bridge']",
    )
    entry = parse_roster(text).entries[0]
    assert [(line.what, line.params) for line in entry.history] == [
        (NOTE_KEY, {"text": "error.integrity.tampered"}),
        (NOTE_KEY, {"text": "Held the bridge"}),
    ]
    # The old form (a catalogue key and its parameters) is refused: text only.
    error = _refused(GOOD.replace("    weapons: {fucile: 7}", "    history: [{what: x}]"))
    assert "text is needed" in error.localized("en")


def test_casualties_are_bounded_by_what_the_entry_had() -> None:
    error = _refused(GOOD.replace("strength: 7", "strength: 7\n    casualties: 4"))
    assert error.params["line"] == 6
    assert "are more than full 10" in error.localized("en")


def test_casualties_are_bounded_by_the_aftermath_dice() -> None:
    entries = "".join(
        f"  - {{id: u{n}, name: U{n}, strength: 0, full: 1000, casualties: 1000}}\n"
        for n in range(3)
    )
    text = "side: legione\nentries:\n" + entries
    error = _refused(text)
    assert error.params["line"] == 4  # the second entry takes the dice past the 2,000
    assert f"would roll 3003 dice, more than {MAX_AFTERMATH_DICE}" in error.localized("en")
    # What the other sides already take counts: here one entry is too many.
    error = _refused("side: legione\nentries:\n" + entries.splitlines()[0] + "\n", dice=500)
    assert error.params["line"] == 3


def test_the_refusal_speaks_the_campaigns_language() -> None:
    error = _refused(GOOD.replace("strength: 7", "strength: true"))
    assert error.localized("it") == (
        "legione-week2.yaml, riga 5: entries.0.strength: serve un numero intero"
    )
    assert "un nombre entier est nécessaire" in error.localized("fr")
