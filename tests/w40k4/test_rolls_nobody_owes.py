"""w40k4: a Leadership test nobody owes (/test, /morale) is refused before any
die is rolled, naming what is owed and by whom; an owed one is taken by either verb."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.seatview import Seat
from rules.w40k4 import turn as g
from rules.w40k4.scenario import load_bundled
from rules.w40k4.surface import PLAY
from tests.w40k4.test_game import Table


@pytest.fixture()
def table() -> Table:
    return Table(g.new_game(load_bundled("avamposto")))


def test_a_test_nobody_owes_is_refused_for_every_seat(table):
    for side in ("legione", None):
        table.refused(g.Test(unit="devastatori"), side, "error.w40k4.no_test_owed")
        table.refused(g.Morale(unit="devastatori"), side, "error.w40k4.no_test_owed")
    table.state.pending = [g.PendingTest(unit="banda", reason="losses")]
    document = PLAY._document(table.state)
    with pytest.raises(RulesError) as caught:
        PLAY.act(document, Seat.of("legione"), "test", {"unit": "devastatori"}, ScriptedDice([]))
    assert caught.value.localized("en") == (
        "Unit Devastators owes no test. Owed now: Morale of Raider Mob (Raiders)."
    )
    assert caught.value.localized("fr").endswith(
        "À faire maintenant\u202f: Moral — Bande de pillards (Pillards)."
    )


def test_an_owed_test_is_taken_by_test_too_with_the_referees_modifier_only(table):
    table.state.pending = [g.PendingTest(unit="banda", reason="losses")]
    table.refused(g.Test(unit="banda", modifier=1), "predoni", "error.w40k4.referee_modifier")
    applied = table(g.Test(unit="banda", modifier=-1), None, [1, 2])
    (test,) = applied.resolutions
    assert test.outcome.code == "w40k4.test.passed(reason=losses)"
    assert [m.value for m in test.steps[0].modifiers] == [-1]
    assert not table.state.pending
    table.refused(g.Test(unit="banda"), "predoni", "error.w40k4.no_test_owed")
