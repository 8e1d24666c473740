"""w40k4 scenarios: the bundled example, and clear errors that name the line."""

from __future__ import annotations

import pytest

from rules.core.errors import InvalidInput, UnknownName
from rules.w40k4.scenario import bundled_scenarios, load_bundled, parse_scenario

GOOD = """\
id: prova
title: prova
first_side: a
weapons:
  fucile: {name: Fucile, type: raffica, range: 24, strength: 4, ap: 5}
sides:
  - id: a
    name: A
    units:
      - {id: fanti, name: Fanti, type: fanteria, models: 5,
         profile: {ws: 4, bs: 4, s: 4, t: 4, i: 4, a: 1, ld: 8, sv: 4}, weapons: {fucile: 5}}
  - id: b
    name: B
    units:
      - {id: carro, name: Carro, type: veicoli_altro, models: 1, profile: {bs: 3},
         armour: {front: 12, side: 11, rear: 10}}
"""


def test_the_bundled_example_says_its_values_are_examples():
    assert list(bundled_scenarios()) == ["avamposto", "avamposto_campo", "fuga", "relitto"]
    scenario = load_bundled("avamposto")
    assert scenario.values_are_examples and "esempi" in scenario.description
    text = bundled_scenarios()["avamposto"].read_text("utf-8")
    assert "EXAMPLE" in text.splitlines()[1]
    kinds = {unit.type for side in scenario.sides for unit in side.units}
    assert {"fanteria", "moto", "veicoli_altro", "veicoli_camminatori", "artiglieria"} <= kinds
    templates = {w.template for w in scenario.weapons.values()}
    assert {"sagoma", "area", "artiglieria"} <= {t.value for t in templates if t}


def test_a_good_scenario_parses():
    assert parse_scenario(GOOD).sides[1].units[0].vehicle


@pytest.mark.parametrize(
    ("change", "line", "detail"),
    [
        (("type: fanteria", "type: drago"), 10, "unknown unit type"),
        (("armour: {front: 12, side: 11, rear: 10}", "armour: null"), 15, "needs armour"),
        # Cross-references name the offending entry's line, not the document's first.
        (("weapons: {fucile: 5}", "weapons: {laser: 1}"), 11, "unknown weapon"),
        (("ap: 5}", "ap: 9}"), 5, "ap"),
        (("first_side: a", "first_side: c"), 3, "first_side"),
        (("sv: 4}", "sv: 4}, cover: lava"), 10, "unknown cover"),
    ],
)
def test_errors_name_the_line(change, line, detail):
    text = GOOD.replace(*change)
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(text, "prova.yaml")
    message = caught.value.localized("en")
    assert f"line {line}" in message and detail in message, message


def test_yaml_errors_and_unknown_bundles():
    with pytest.raises(InvalidInput) as caught:
        parse_scenario("id: [", "x.yaml")
    assert ", riga " in caught.value.localized("it")
    assert ", line " in caught.value.localized("en")
    with pytest.raises(UnknownName):
        load_bundled("nope")


def test_barrage_needs_the_ordnance_template():
    text = GOOD.replace("strength: 4, ap: 5}", "strength: 4, ap: 5, barrage: true}")
    with pytest.raises(InvalidInput):
        parse_scenario(text)
    text = GOOD.replace("range: 24, ", "")
    with pytest.raises(InvalidInput):
        parse_scenario(text)
