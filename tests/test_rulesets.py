"""Every discovered ruleset is playable through the same interface the service uses."""

from __future__ import annotations

import pytest

from rules.core.play import StatusView
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset


def test_the_four_rulesets_are_discovered_manovra_first():
    assert KNOWN_RULESETS[0] == "manovra"
    # The bundled four at least; a fifth is discovered by its folder alone (no edit here).
    assert {"manovra", "linea_gotica", "pzgren", "w40k4"} <= set(KNOWN_RULESETS)


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_a_ruleset_plays_through_its_document_interface(key):
    ruleset = get_ruleset(key)
    play = ruleset.play
    assert play is not None and play.ruleset == key
    scenarios = play.scenarios()
    assert scenarios, "a bundled example scenario"
    document = play.new_game(scenarios[0], None)
    assert document["ruleset"] == key
    sides = play.sides(document)
    assert len(sides) == 2
    assert play.awaiting(document) in (*sides, None)
    status = play.status(document)
    assert isinstance(status, StatusView) and status.units
    assert "turn.next" in play.verbs()
    assert play.choices(document, "unit", None)
    assert isinstance(play.follow_ups(document), list)
    assert ruleset.tables is not None and ruleset.procedures
