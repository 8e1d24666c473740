"""Every discovered ruleset is playable through the same interface the service uses."""

from __future__ import annotations

import pytest

from rules.core.play import StatusView
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from tests.rulesets import fact


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


#: What the shared per-ruleset tests read of each ruleset (tests/rulesets.py).
FACTS = (
    "BATTLEFIELD",
    "GRID",
    "FIRST_OBJECTIVE",
    "SIDE_NAME",
    "BOOK_CORE_UNITS",
    "ROLL_VERBS",
    "CONSOLE_CAMPAIGN",
)


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_each_rulesets_test_folder_declares_what_the_shared_tests_read(key):
    declared = {name: fact(key, name) for name in FACTS}
    play = get_ruleset(key).play
    assert declared["BATTLEFIELD"] in play.scenarios()
    assert declared["GRID"] in ("table", "hexes")
    sides = set(play.sides(play.new_game(declared["BATTLEFIELD"], None)))
    assert set(declared["BOOK_CORE_UNITS"]) == sides
    assert declared["FIRST_OBJECTIVE"].holder in sides and declared["SIDE_NAME"].side in sides
    campaign = declared["CONSOLE_CAMPAIGN"]
    assert {campaign.decided, campaign.conceding} <= sides
    assert set(campaign.scenarios) <= set(play.scenarios())


def test_a_missing_fact_names_the_file_it_is_missing_from():
    with pytest.raises(LookupError, match=r"tests/manovra/facts\.py declares no NOTHING"):
        fact("manovra", "NOTHING")
