"""Issue 26 for manovra: tests nobody owes, every piece of a heavy weapon firing, and the
panicked unit that "deve ritirarsi" — each rule test quotes the seed (000) line it follows."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.manovra import game as g
from rules.manovra.play import PLAY
from rules.manovra.scenario import load_bundled


@pytest.fixture()
def state() -> g.ManovraState:
    """The example at step 3 (typed distances)."""
    made = g.new_game(load_bundled("esempio_normandia"))
    made.step = g.TurnStep.MANOEUVRE
    made.manoeuvred = list(made.platoons)
    made.declarations = {"alleati": "-", "asse": "-"}
    return made


@pytest.fixture()
def campo() -> g.ManovraState:
    """The battlefield example at step 3."""
    made = g.new_game(load_bundled("esempio_normandia_campo"))
    made.step = g.TurnStep.MANOEUVRE
    made.manoeuvred = list(made.platoons)
    made.declarations = {"alleati": "-", "asse": "-"}
    return made


def play(state, command, side, faces=()):
    dice = ScriptedDice(list(faces))
    applied = g.apply(state, command, dice, actor_side=side)
    dice.ensure_consumed()
    return applied


def refused(state, command, side, key):
    before = state.model_dump(mode="json")
    with pytest.raises(RulesError) as caught:
        # No die may be rolled before the refusal: the dice have no face to give.
        g.apply(state, command, ScriptedDice([]), actor_side=side)
    assert caught.value.key == key, (caught.value.key, caught.value.params)
    assert state.model_dump(mode="json") == before
    return caught.value


# -- 3. Tests nobody owes -----------------------------------------------------------------------


def test_a_test_nobody_owes_is_refused_naming_what_is_owed_and_by_whom(state):
    """The report: `/test unit:sherman_1 kind:CT` while sherman_2 owes it was rolled and logged."""
    state.pending = [g.PendingTest(unit="sherman_2", kind="CT")]
    refused(
        state, g.TakeTest(unit="sherman_1", kind="CT"), "alleati", "error.manovra.test_not_owed"
    )
    refused(state, g.TakeTest(unit="sherman_1", kind="CT"), None, "error.manovra.test_not_owed")
    document = PLAY._document(state)
    with pytest.raises(RulesError) as caught:
        PLAY.apply(document, "test", {"unit": "sherman_1", "kind": "CT"}, ScriptedDice([]), None)
    assert caught.value.localized("en") == (
        "Sherman 1 owes no CT test. Owed now: CT test for Sherman 2 (Alleati)."
    )
    assert caught.value.localized("it") == (
        "Sherman 1 non deve alcun test CT. Da fare ora: Test CT di Sherman 2 (Alleati)."
    )
    # The unit that owes it rolls it.
    applied = play(state, g.TakeTest(unit="sherman_2", kind="CT"), "alleati", [6, 1])
    assert applied.resolutions[0].outcome.code == "manovra.test.passed(test=CT)"
    assert not applied.state.pending


def test_morale_on_a_panicked_unit_that_owes_nothing_is_refused(state):
    """The report: `/morale unit:panzer_iv` on a panicked unit rolled a CT that changed nothing."""
    state.units["panzer_iv"].add("panic")
    document = PLAY._document(state)
    with pytest.raises(RulesError) as caught:
        PLAY.apply(document, "morale", {"unit": "panzer_iv"}, ScriptedDice([]), "asse")
    assert caught.value.key == "error.manovra.test_not_owed"
    assert caught.value.localized("en") == "Panzer IV owes no CT test. Nothing is owed now."
    # The owed test is the only one: a free SF of the Panzer is refused the same way.
    refused(state, g.TakeTest(unit="panzer_iv", kind="SF"), "asse", "error.manovra.test_not_owed")
