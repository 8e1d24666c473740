"""Where a unit stands, in the reader's language: a status printed terrain ids ("trincea
trincerati", "piano_boscoso", "casolare") where the map names the terrain. A battlefield
area reads by its name (the scenario's, in each language), a terrain type or a named
terrain element by the catalogue's word, a cover by its word."""

from __future__ import annotations

import pytest

from rules.core.i18n import LANGUAGES, has_key, translate
from rules.core.play import DocumentRules
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE
from rules.core.words import in_language
from rules.manovra.tables import load_tables as manovra_tables


def _places(ruleset: str, scenario: str) -> dict[str, str]:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    status = play.view(play.setup(scenario), REFEREE).status
    return {unit.id: unit.place for unit in status.units}


@pytest.mark.parametrize(
    ("ruleset", "scenario", "unit", "english", "french"),
    [
        (
            "linea_gotica",
            "gotica_retroguardia",
            "gruppe",
            "Trench at the hairpin, entrenched",
            "Tranchée du lacet, retranchés",
        ),
        ("linea_gotica", "gotica_retroguardia", "sherman", "Giogo road", "Route du Giogo"),
        ("linea_gotica", "esempio_gotica", "gruppe", "hedge, light cover", "haie, couvert léger"),
        ("manovra", "esempio_normandia", "pak", "wooded flat ground", "plaine boisée"),
        ("manovra", "esempio_normandia", "mg_team", "sandbag emplacement", "position en sacs"),
        ("manovra", "esempio_normandia_campo", "sherman_1", "open flat ground (", "plaine"),
    ],
)
def test_a_units_place_reads_in_the_readers_language(
    ruleset: str, scenario: str, unit: str, english: str, french: str
) -> None:
    place = _places(ruleset, scenario)[unit]
    assert in_language(place, "en").startswith(english), in_language(place, "en")
    assert in_language(place, "fr").startswith(french), in_language(place, "fr")
    assert "_" not in in_language(place, "en")


def test_every_manovra_terrain_type_has_a_word_in_each_language() -> None:
    for row in manovra_tables()["tipi_terreno"].rows:
        key = f"manovra.values.{row.id}"
        assert all(has_key(key, language) for language in LANGUAGES), key
        assert translate(key, "en") != translate(key, "it") or row.id == "bunker"
