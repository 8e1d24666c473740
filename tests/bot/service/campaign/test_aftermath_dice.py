"""``/campaign aftermath dice:`` with too few dice, through the service on both backends:
refused with the number the aftermath rolls in all, nothing written; then typed at once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from rules.core.errors import DiceError
from rules.core.i18n import translate
from tests.bot.service.campaign.test_aftermath import _game_one_won_by_the_legion, _typed
from tests.bot.service.campaign.test_commands import ANNA, _campaign


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
