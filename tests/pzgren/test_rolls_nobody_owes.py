"""pzgren: a morale check nobody owes, and the aircraft that was given the
"higher hill" anti-tank modifier (seed 003 line 169)."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.seatview import Seat
from rules.pzgren import turn as g
from rules.pzgren.scenario import load_bundled
from rules.pzgren.surface import PLAY
from tests.pzgren.test_game import Table, fire, small


def test_a_morale_check_nobody_owes_is_refused_naming_what_is_owed_and_by_whom():
    table = Table(g.new_game(load_bundled("exemple_ardennes")))
    table.refused(g.Morale(unit="us_rifle_1"), "us", "error.pzgren.no_morale_owed")
    table.refused(g.Morale(unit="us_rifle_1"), None, "error.pzgren.no_morale_owed")
    table.state.pending_morale = [g.PendingMorale(unit="de_pzgren_1", n=2)]
    document = PLAY._document(table.state)
    with pytest.raises(RulesError) as caught:
        PLAY.act(document, Seat.of("us"), "morale", {"unit": "us_rifle_1"}, ScriptedDice([]))
    assert caught.value.localized("en") == (
        "Unit 1st Rifle Platoon owes no morale check. "
        "Owed now: Morale check M2 for 1. Zug Panzergrenadiere (Germans)."
    )


def test_an_aircraft_is_never_below_a_hill():
    """Seed 003 line 169: "-1 : la cible est dans un hexagone de colline à une élévation plus
    haute que l'unité qui fait feu" — an aircraft flies above every hill; a gun below it does
    get the modifier."""
    table = small(
        '{id: p47, name: P-47, type: aircraft, hex: "0,0", fire: 8, at: 4}, '
        '{id: gun, name: Gun, type: at, hex: "3,5", at: 6, range: 8}',
        '{id: tank, name: Tank, type: afv, hex: "3,3", armour: 2, steps: 4}',
        '{"3,3": {terrain: hill, elevation: 2}}',
    )
    tank = table.unit("tank")
    keys, _ = g.at_modifiers(table.state, table.unit("p47"), tank, False)
    assert "higher_hill" not in keys
    keys, _ = g.at_modifiers(table.state, table.unit("gun"), tank, False)
    assert "higher_hill" in keys
    applied = table(fire("p47", target="tank"), "a", [1, 1])
    modifiers = [m.key for m in applied.resolutions[0].steps[0].modifiers]
    assert "pzgren.atmod.higher_hill" not in modifiers
