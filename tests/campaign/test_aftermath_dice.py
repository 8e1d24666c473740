"""Typed dice that run short for an aftermath are refused with the count the whole
sequence rolls, read from the rosters before rolling, so a player types them at once."""

from __future__ import annotations

import pytest

from rules.campaign.postbattle import aftermath_dice, roll_aftermath
from rules.campaign.rules import campaign_rules
from rules.campaign.state import replay
from rules.core.dice import ScriptedDice
from rules.core.errors import DiceError, DiceNeeded
from rules.core.i18n import translate
from tests.campaign.test_postbattle import _log

RULES = campaign_rules("manovra")
assert RULES is not None


def test_the_dice_an_aftermath_rolls_are_counted_before_rolling() -> None:
    state = replay(_log({"alleati": {"squadra_1": 3}, "asse": {"gruppo_1": 4}}))
    assert (aftermath_dice(state).points, aftermath_dice(state).destroyed) == (7, 0)
    # exactly that many faces are enough
    roll_aftermath(state, 1, RULES, ScriptedDice([1] * 7))
    with pytest.raises(DiceError) as short:
        roll_aftermath(state, 1, RULES, ScriptedDice([1, 2, 3], by_hand=True))
    assert not isinstance(short.value, DiceNeeded)  # refused, never a prompt
    assert short.value.key == "error.campaign.aftermath_dice_short"
    assert short.value.params["n"] == 7 and short.value.params["typed"] == 3
    text = translate(short.value.key, "en", **short.value.params)
    assert text == (
        "Game 1's aftermath rolls 7 dice in all (D6, in roster order) and you typed 3: "
        "type them all at once in dice:."
    )


def test_with_a_unit_destroyed_the_count_is_an_upper_bound_and_says_why() -> None:
    state = replay(_log({"alleati": {"squadra_1": 2, "sherman_1": 5}}))
    counted = aftermath_dice(state)
    assert (counted.points, counted.destroyed, counted.total) == (7, 1, 8)
    roll_aftermath(state, 1, RULES, ScriptedDice([1, 1, 5, 1, 1, 1, 1, 1]))  # all 8
    roll_aftermath(state, 1, RULES, ScriptedDice([1, 1, 1]))  # the tank found dead: 3
    with pytest.raises(DiceError) as short:
        roll_aftermath(state, 1, RULES, ScriptedDice([1, 1, 5, 1]))
    assert short.value.key == "error.campaign.aftermath_dice_short_destroyed"
    for language in ("it", "en", "fr"):
        text = translate(short.value.key, language, **short.value.params)
        assert "8" in text and "4" in text, text
    assert "with 1 unit destroyed, each rolls its own die first" in translate(
        short.value.key, "en", **short.value.params
    )
