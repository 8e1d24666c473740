"""A unit's name is never a verb's subject in a text players read.

Units are named by their rosters and scenarios, as often by a plural ("Dévastateurs",
"Devastators", "Guastatori") as by a singular ("1st Rifle Squad", "Gruppe Müller"): a verb
agreeing with the name reads wrong for one or the other ("Dévastateurs réagit"). Every text
naming a unit (a target, a vehicle, a battery, a platoon) therefore makes "l'unité" /
"l'unità" / "unit" (or "la cible", "il veicolo", "battery"…) the subject
("L'unité {unit} réagit"), or names the unit after a colon or a preposition, where nothing
agrees with it ("Réaction de la cible {target}"). The same rule for sides is
tests/test_side_wording.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from rules.core.i18n import LANGUAGES, catalogue, translate

#: The placeholders filled with a unit's name (a vehicle, a battery, a platoon are units too;
#: ``next`` is the unit whose turn it is).
_UNIT = r"\{(?:unit|target|vehicle|battery|platoon|next)\}"
#: Words that may follow a unit's name without being a verb agreeing with it.
_NOT_A_VERB = {
    "fr": "avec|avant|sous|sur|et|ou|contre|vers|dans|en|à|au|aux",
    "it": "con|sotto|prima|e|o|contro|verso|in|a|su|no",
    # English modals and past tenses read right for a plural and a singular name alike.
    "en": "with|before|under|on|and|or|deep|against|towards|in|at|to|cannot|may"
    "|must|would|moved|fired|lost|failed|arrived|fled",
}
#: A noun or a preposition before the name: the noun is the subject, or nothing is.
_BEFORE = {
    "fr": "unité|véhicule|batterie|peloton|cible|marqueur|de|du|des|à|pour|par|avec|contre|sur"
    "|vers|entre",
    "it": "unità|veicolo|batteria|plotone|bersaglio|segnalino|di|a|da|per|con|su|contro|verso|tra",
    "en": "unit|vehicle|battery|platoon|target|marker|of|by|for|to|with|against|on|at|from|between",
}


#: A verb before the name it agrees with ("dove va {unit}", "agit d'abord {unit}").
_INVERTED = {
    "fr": re.compile(rf"\b(?:va|vont|agit|tire|bouge|réagit)(?: d’abord| d'abord)? {_UNIT}"),
    "it": re.compile(rf"\b(?:va|agisce|spara|deve sparare|muove|reagisce)(?: prima)? {_UNIT}"),
}


def unit_subject_faults(template: str, language: str) -> Iterator[str]:
    """Each place where ``template`` makes a unit's name the subject of a verb."""
    # A lowercase word after the name, unless the name is an option's value ("unit:{unit}").
    # An adverb between the name and its verb ("{unit} already has") is looked past.
    follows = re.compile(
        rf"(?<![\w:]){_UNIT}(?: \([^()]*\))? +(?:(?:already|still|now|also) +)?"
        rf"(?!(?:{_NOT_A_VERB[language]})\b)[a-zà-ÿ][\w'’]*"
    )
    named = re.compile(rf"(?i)\b(?:{_BEFORE[language]}) $")
    for match in follows.finditer(template):
        if not named.search(template[: match.start()]):
            yield match.group(0)
    inverted = _INVERTED.get(language)
    if inverted is not None:
        yield from (match.group(0) for match in inverted.finditer(template))


def test_the_scan_finds_the_faults_of_the_issue() -> None:
    assert list(unit_subject_faults("{target} réagit : les figurines avancent", "fr"))
    assert list(unit_subject_faults("Après la panique, {unit} ne peut faire que…", "fr"))
    assert list(unit_subject_faults("{unit} non può muovere.", "it"))
    assert list(unit_subject_faults("{unit} has no radio.", "en"))
    assert list(unit_subject_faults("{platoon} is not yours.", "en"))
    assert list(unit_subject_faults("{unit} already has an order.", "en"))
    assert list(unit_subject_faults("Not now: {unit} ({side}) acts first.", "en"))
    assert list(unit_subject_faults("Non ora: agisce prima {unit} ({side}).", "it"))
    assert list(unit_subject_faults("dites où va {unit} avec to:", "fr"))
    # The unit's noun is the subject, the name follows a preposition or a colon, or the
    # verb does not agree (an English modal).
    for language, text in (
        ("fr", "L'unité {unit} réagit"),
        ("fr", "Réaction de la cible {target} : …"),
        ("fr", "{target} : un avion n’est pas une cible."),
        ("it", "L'unità {unit} non può muovere."),
        ("it", "A {unit} resta un solo superstite"),
        ("en", "Unit {unit} has no radio."),
        ("en", "{unit} cannot fire"),
        ("en", "/template unit:{unit} target:{target} models:N"),
    ):
        assert not list(unit_subject_faults(text, language)), text


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_makes_a_units_name_the_subject_of_a_verb(language: str) -> None:
    faults = [
        f"{key}: {template}"
        for key, template in catalogue(language).items()
        for _ in unit_subject_faults(template, language)
    ]
    assert faults == []


@pytest.mark.parametrize(
    ("language", "unit", "reads"),
    [
        ("fr", "Dévastateurs", "Réaction de la cible Dévastateurs\u202f: "),
        ("it", "Devastatori", "Reazione del bersaglio Devastatori: "),
        ("en", "Devastators", "Reaction by Devastators: "),
    ],
)
def test_a_plural_unit_reacting_to_an_assault_reads_right(
    language: str, unit: str, reads: str
) -> None:
    assert translate("w40k4.assault.react", language, target=unit).startswith(reads)


@pytest.mark.parametrize(
    ("language", "reads"),
    [
        ("fr", "L'unité Guastatori est immobilisée."),
        ("it", "L'unità Guastatori è immobilizzata."),
        ("en", "Unit Guastatori is immobilised."),
    ],
)
def test_a_units_state_agrees_with_unit_not_with_its_name(language: str, reads: str) -> None:
    """'Guastatori est immobilisé': the participle agreed with neither the plural name nor
    the feminine "unité" the other texts use."""
    assert translate("error.linea_gotica.immobilised", language, unit="Guastatori") == reads


# -- French: no "de" to elide before a name --------------------------------------------------

#: Placeholders holding a name that may begin with a vowel ("Artillerie", "Équipe MG 42",
#: "if1-1"): "de", "le", "la", "que" before them would have to elide ("d'Artillerie").
_NAMES = (
    "unit|target|vehicle|battery|platoon|next|gun|weapon|origin|marker|table|name|title"
    "|scenario|user|area|objective|place"
)
_BEFORE_ELISION = re.compile(rf"\b(?i:de|le|la|que) \{{(?:{_NAMES})\}}")


def test_the_elision_check_finds_the_fault_of_the_issue() -> None:
    assert _BEFORE_ELISION.search("Test {test} de {unit}")
    assert not _BEFORE_ELISION.search("Test {test} — {unit}")


def test_french_puts_no_word_to_elide_before_a_name() -> None:
    faults = [key for key, text in catalogue("fr").items() if _BEFORE_ELISION.search(text)]
    assert faults == []


@pytest.mark.parametrize(
    ("key", "params", "reads"),
    [
        ("manovra.follow.test", {"test": "CT", "unit": "Artillerie"}, "Test CT — Artillerie"),
        ("w40k4.follow.losses", {"unit": "Éclaireurs"}, "Moral — Éclaireurs"),
        (
            "error.w40k4.crew_shaken",
            {"unit": "Exterminator"},
            "L'équipage de l'unité Exterminator est secoué ou sonné\u202f: il ne peut pas tirer.",
        ),
        (
            "manovra.step.measured",
            {"cm": 12.5, "origin": "Obusier", "target": "Équipe MG 42"},
            "Distance 12,5 cm, mesurée entre Obusier et Équipe MG 42",
        ),
    ],
)
def test_a_name_beginning_with_a_vowel_reads_right_in_french(
    key: str, params: dict[str, object], reads: str
) -> None:
    assert translate(key, "fr", **params) == reads
