"""``/campaign aftermath dice:`` with too few dice, through the service on both backends:
refused with the number the aftermath rolls in all, nothing written; then typed at once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from rules.core.errors import DiceError
from rules.core.i18n import translate
from tests.bot.service.campaign.test_aftermath import _game_one_won_by_the_legion, _typed
from tests.bot.service.campaign.test_commands import ANNA, BRUNO, CAMPAIGN, _campaign


async def test_typed_dice_that_run_short_are_told_how_many_to_type(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)  # the Legion's squad holds 3 casualties
    versions = await table._versions()
    with pytest.raises(DiceError) as short:
        await _typed(table, ANNA, "4,1", game=1)
    assert short.value.key == "error.campaign.aftermath_dice_short"
    assert translate(short.value.key, "en", **short.value.params) == (
        "Game 1's aftermath rolls 3 dice in all (D6, in roster order) and you typed 2: "
        "type them all at once in dice:."
    )
    assert await table._versions() == versions  # nothing written
    rolled = reply_text(await _typed(table, ANNA, "4,1,6", game=1))
    assert "D6 4 1 6" in rolled


async def test_dice_typed_for_a_part_that_rolls_none_are_refused_as_such(any_store: Any) -> None:
    """The raiders lost nobody: their part rolls no die. Dice typed for it were refused as
    "1 die too many: the procedure uses 0"; the refusal now says the step rolls none."""
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    versions = await table._versions()
    with pytest.raises(DiceError) as none:
        await _typed(table, BRUNO, "3", game=1)
    assert none.value.key == "error.dice.none_rolled"
    assert none.value.localized("en") == (
        "This step rolls no dice: leave out the dice option (1 die given)."
    )
    assert await table._versions() == versions  # nothing written
    rolled = reply_text(await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1))
    assert "Raiders" in rolled
