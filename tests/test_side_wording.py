"""A side's name is never a verb's subject in a text players read.

Sides are named by their scenario, most often by a plural noun ("Allemands", "Tedeschi",
"Germans"), sometimes by a singular one ("Axe", "Asse"): a verb agreeing with the name read
wrong for one or the other ("Allemands doit encore lancer sa part"). Every text naming a
side therefore makes "le camp" / "lo schieramento" the subject ("le camp {side} doit…"),
or the side's part ("la part du camp {side} reste à lancer"), or names the side after a
colon or a preposition, where nothing agrees with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from rules.core.i18n import LANGUAGES, catalogue, translate

#: The placeholders that stand for a side's (or sides') name.
_SIDE = r"\{(?:side|sides|own|lost_by|winner|waiting)\}"
#: The words that make the name the subject of a verb that agrees with it, per language.
_SUBJECT = {
    "fr": re.compile(
        rf"(?<!camp ){_SIDE} (?:doit|a|est|passe|lance|active|déclare|gagne|perd|choisit"
        r"|remet|confirme|tient|joue)\b"
    ),
    "it": re.compile(
        rf"(?<!schieramento ){_SIDE} (?:deve|ha|è|passa|tira|cede|attiva|dichiara|vince"
        r"|perde|sceglie|conferma|tiene|gioca|muove)\b"
        rf"|\b(?:[Aa]ttiva|[Ss]ceglie|[Dd]ichiara|[Vv]ince|[Pp]erde|tiene)(?: per primo)? "
        rf"{_SIDE}"
    ),
    "en": re.compile(
        rf"(?<!of )(?<!for )(?<!by ){_SIDE} (?:has|is|was|owes|rolls|still rolls|already rolled"
        r"|moves|plays|takes|wins|loses|confirms|holds)\b"
    ),
}
#: "sa part", "la sua parte", "its part": a possessive that would agree with the name.
_POSSESSIVE = {
    "fr": re.compile(r"\bsa part\b"),
    "it": re.compile(r"\bla sua parte\b"),
    "en": re.compile(r"\bits part\b|\bits roster\b|\bits first game\b"),
}


def _side_texts(language: str) -> Iterator[tuple[str, str]]:
    for key, template in catalogue(language).items():
        if re.search(_SIDE, template):
            yield key, template


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_makes_a_side_name_the_subject_of_a_verb(language: str) -> None:
    faults = [
        f"{key}: {template}"
        for key, template in _side_texts(language)
        if _SUBJECT[language].search(template) or _POSSESSIVE[language].search(template)
    ]
    assert faults == []


@pytest.mark.parametrize(
    ("language", "side", "reads", "not_reads"),
    [
        ("fr", "Allemands", "la part du camp Allemands", "Allemands doit"),
        ("it", "Tedeschi", "la parte dello schieramento Tedeschi", "Tedeschi deve"),
        ("en", "Germans", "the part of Germans", "Germans still rolls"),
    ],
)
def test_a_roll_owed_by_a_side_reads_right_for_a_plural_name(
    language: str, side: str, reads: str, not_reads: str
) -> None:
    text = translate("bot.notice.owed_roll", language, title="Linea", side=side, number=2, link="")
    assert reads in text and not_reads not in text


@pytest.mark.parametrize(
    ("language", "sides", "n", "reads"),
    [
        ("fr", "Allemands", 1, "La part du camp Allemands reste à lancer"),
        ("fr", "Allemands et Alliés", 2, "Les parts des camps Allemands et Alliés restent"),
        ("en", "Germans", 1, "The part of Germans is still to roll"),
        ("it", "Tedeschi e Alleati", 2, "Le parti degli schieramenti Tedeschi e Alleati sono"),
    ],
)
def test_the_sides_still_to_roll_agree_with_their_number(
    language: str, sides: str, n: int, reads: str
) -> None:
    text = translate("bot.campaign.aftermath.next_side", language, sides=sides, n=n, number=3)
    assert text.startswith(reads)


@pytest.mark.parametrize(
    ("key", "reads"),
    [
        ("bot.game.joined", "Vous avez rejoint le camp Alliés."),
        ("bot.game.left", "Vous avez quitté le camp Alliés."),
    ],
)
def test_french_names_a_joined_side_after_le_camp(key: str, reads: str) -> None:
    """'Vous avez rejoint Alliés.': French wants an article a side's name does not carry."""
    assert translate(key, "fr", side="Alliés") == reads


def test_whose_turn_it_is_needs_no_elision_before_a_units_name() -> None:
    """'C'est au tour de 1re escouade, pas de Équipe MG 42': 'de' before a vowel."""
    text = translate(
        "error.manovra.not_this_units_turn", "fr", next="1re escouade", unit="Équipe MG 42"
    )
    assert text == "C'est à 1re escouade d'agir, pas à Équipe MG 42."


@pytest.mark.parametrize(
    ("language", "key", "reads"),
    [
        ("fr", "victory.line.objective.held", "La ferme : aux mains du camp Axe, 4 points"),
        ("fr", "victory.line.objective.empty", "La ferme : sans occupant, aucun point"),
        (
            "it",
            "victory.line.objective.held",
            "La fattoria: in mano allo schieramento Asse, 4 punti",
        ),
        ("it", "victory.line.objective.empty", "La fattoria: senza occupanti, nessun punto"),
        ("fr", "bot.campaign.book.area", "La ferme : aux mains du camp Axe"),
    ],
)
def test_a_held_place_reads_right_whatever_its_gender(language: str, key: str, reads: str) -> None:
    """'La ferme : tenu par Axe': the participle agreed with no place in particular."""
    place = "La ferme" if language == "fr" else "La fattoria"
    text = translate(
        key,
        language,
        objective=place,
        area=place,
        side="Axe" if language == "fr" else "Asse",
        points=4,
    )
    assert text == reads.replace(" :", "\u202f:")


@pytest.mark.parametrize(
    ("language", "key", "reads"),
    [
        ("en", "bot.game.joined", "You joined the side Allies."),
        ("en", "bot.game.left", "You left the side Allies."),
        ("en", "bot.log.verb.seat.join", "joined the side Allies"),
        ("it", "bot.log.verb.seat.join", "entra nello schieramento Alleati"),
        ("fr", "bot.log.verb.seat.join", "a rejoint le camp Alliés"),
    ],
)
def test_joining_a_side_names_it_as_a_side(language: str, key: str, reads: str) -> None:
    """'You joined Allies', 'entra con Alleati': a side's name wants the structure its
    language gives it ("the side", "lo schieramento", "le camp")."""
    side = {"en": "Allies", "it": "Alleati", "fr": "Alliés"}[language]
    assert translate(key, language, side=side) == reads


def test_joining_a_campaign_names_the_side_as_a_side() -> None:
    text = translate("bot.campaign.joined", "en", side="Raiders", name="Orbita")
    assert text == "You joined the side Raiders in the campaign «Orbita»."
    assert translate("bot.campaign.log.joined", "en", user="anna", side="Raiders") == (
        "anna joined the side Raiders"
    )
