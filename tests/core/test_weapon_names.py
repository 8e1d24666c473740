"""Weapon names in the game's language: a bundled scenario names its weapons in Italian,
English and French (an English game read "Bombe a mano" and "Lanciafumogeni") unless the
name is an equipment's own ("MG 42", "Bren"); a player types a weapon by its id or by its
name in any language; outcomes, refusals, autocomplete and a stored log read the name in
the reader's language."""

from __future__ import annotations

import re

import pytest

from rules.core.play import DocumentRules
from rules.core.ruleset import get_ruleset
from rules.core.scenario import bundled_files
from rules.core.seatview import REFEREE, Seat
from rules.core.words import in_language, names_in, spelled_in
from rules.core.yamlio import load_yaml
from rules.render import value_text

LANGUAGES = ("it", "en", "fr")
#: The rulesets whose scenarios name their weapons.
ARMED = ("linea_gotica", "manovra", "w40k4")


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    return play


@pytest.mark.parametrize("ruleset", ARMED)
def test_every_bundled_weapons_name_is_in_three_languages_or_a_proper_name(ruleset: str) -> None:
    """A name in languages gives all three; a plain one is an equipment's own name, the
    same in every language ("MP 40", "Kar 98k", "Panzerfaust"), never an Italian word."""
    translated = 0
    italian = re.compile(r"\b(mano|fucile|bordo|obice|mortaio|lancia|cannone|pesante)", re.I)
    for scenario_id, path in bundled_files(f"rules.{ruleset}").items():
        for weapon_id, weapon in load_yaml(path.read_text("utf-8"))["weapons"].items():
            name = weapon["name"]
            if isinstance(name, dict):
                assert set(name) == set(LANGUAGES), (scenario_id, weapon_id)
                translated += 1
            else:
                assert not italian.search(name), (scenario_id, name)
    assert translated >= 4


@pytest.mark.parametrize(
    ("ruleset", "scenario", "weapon", "english", "french"),
    [
        ("linea_gotica", "gotica_retroguardia", "stielhandgranate", "Hand grenades", "Grenades"),
        ("manovra", "esempio_normandia", "obice_105", "105 mm howitzer", "Obusier de 105 mm"),
        ("w40k4", "avamposto", "cannone_laser", "Laser cannon", "Canon laser"),
    ],
)
def test_a_weapon_is_typed_by_its_id_or_its_name_in_any_language(
    ruleset: str, scenario: str, weapon: str, english: str, french: str
) -> None:
    play = _play(ruleset)
    document = play.setup(scenario)
    state = play._load_state(document)
    named = play.named(state, "weapon")
    assert in_language(named[weapon], "en") == english
    assert in_language(named[weapon], "fr").startswith(french)
    full_french = in_language(named[weapon], "fr")
    for typed in (weapon, english, full_french, english.upper()):
        options = {"unit": "x", "target": "y", "weapon": typed}
        assert play.by_id(state, REFEREE, "fire", options)["weapon"] == weapon, typed
    # A stored outcome keeps the name as plain text: the document spells it again.
    assert any(in_language(name, "en") == english for name in spelled_in(document))
    # The status names weapons nowhere by their Italian words in another language.
    assert "weapons" in document and isinstance(document["weapons"][weapon]["name"], dict)


def test_linea_gotica_refusal_lists_a_vehicles_weapons_by_name() -> None:
    play = _play("linea_gotica")
    document = play.setup("gotica_retroguardia")
    state = play._load_state(document)
    sherman = state.units["sherman"]
    names = names_in({w: state.weapons[w].name for w in sherman.weapons}, "en")
    assert names["browning_50"] == "Browning .50 (anti-aircraft)"
    assert names["lanciafumogeni"] == "Smoke launcher"
    seat = Seat.of("alleati")
    assert play.by_id(state, seat, "fire", {"weapon": "Lance-fumigènes"})["weapon"] == (
        "lanciafumogeni"
    )


def test_a_destroyed_weapon_is_named_in_the_status_in_the_readers_language() -> None:
    play = _play("w40k4")
    state = play._load_state(play.setup("avamposto"))
    state.units["devastatori"].destroyed_weapons.append("cannone_laser")
    line = next(u for u in play.status(state).units if u.id == "devastatori")
    shown = {
        language: [value_text("w40k4", s, language) for s in line.statuses]
        for language in LANGUAGES
    }
    assert "weapon destroyed: Laser cannon" in shown["en"], shown
    assert "arme détruite\u202f: Canon laser" in shown["fr"], shown
    assert "arma distrutta: Cannone laser" in shown["it"], shown
