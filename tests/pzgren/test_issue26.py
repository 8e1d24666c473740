"""Issue 26 for pzgren: a morale check nobody owes, and the aircraft that was given the
"higher hill" anti-tank modifier (seed 003 line 169)."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.pzgren import game as g
from rules.pzgren.play import PLAY
from rules.pzgren.scenario import load_bundled
from tests.pzgren.test_game import Table


def test_a_morale_check_nobody_owes_is_refused_naming_what_is_owed_and_by_whom():
    table = Table(g.new_game(load_bundled("exemple_ardennes")))
    table.refused(g.Morale(unit="us_rifle_1"), "us", "error.pzgren.no_morale_owed")
    table.refused(g.Morale(unit="us_rifle_1"), None, "error.pzgren.no_morale_owed")
    table.state.pending_morale = [g.PendingMorale(unit="de_pzgren_1", n=2)]
    document = PLAY._document(table.state)
    with pytest.raises(RulesError) as caught:
        PLAY.apply(document, "morale", {"unit": "us_rifle_1"}, ScriptedDice([]), "us")
    assert caught.value.localized("en") == (
        "1st Rifle Platoon owes no morale check. "
        "Owed now: Morale check M2 for 1. Zug Panzergrenadiere (Allemands)."
    )
