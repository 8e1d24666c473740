"""A linked game's end stands once its campaign is over (found by the campaign fuzzer):
``/game undo`` of it is refused, in the players' languages, and changes nothing; while the
campaign runs the same undo reopens the game and its result is reversed."""

from __future__ import annotations

from typing import Any

import pytest

from rules.core.errors import RulesError
from tests.bot.service.campaign.test_commands import (
    CAMPAIGN,
    FIRST,
    REFEREE,
    _campaign,
)


async def test_the_end_of_a_game_of_an_ended_campaign_cannot_be_undone(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="held")
    await table(CAMPAIGN, REFEREE, "campaign.end")
    held = (await table.campaign()).game(1)
    assert held is not None and held.result is not None
    await table.refused(FIRST, REFEREE, "game.undo", "error.campaign.ended_reopen")
    game = await any_store.load(FIRST)
    assert game.status == "ended" and game.head_hash == held.result.final_hash
    with pytest.raises(RulesError) as caught:
        await table(FIRST, REFEREE, "game.undo")
    assert "«Orbita» is over: the end of its games stands" in caught.value.localized("en")
    assert "est terminée\u202f: la fin de ses parties demeure" in caught.value.localized("fr")
    assert "è conclusa: la fine delle sue partite resta" in caught.value.localized("it")


async def test_the_campaign_does_not_end_while_a_game_it_holds_is_in_play_again(
    any_store: Any,
) -> None:
    """A game whose result the campaign holds is in play again in its channel (its end
    undone by another process past the campaign's guard): ``/campaign end`` is refused,
    naming the game and its channel, rather than closing the campaign on a result the
    game no longer has."""
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="held")
    ended = await any_store.load(FIRST)
    undone = await any_store.undo(FIRST, expected_version=ended.version, actor_id=REFEREE)
    await any_store.undo(FIRST, expected_version=undone.version, actor_id=REFEREE)
    assert (await any_store.load(FIRST)).status != "ended"
    await table.refused(CAMPAIGN, REFEREE, "campaign.end", "error.campaign.end_in_play")
    with pytest.raises(RulesError) as caught:
        await table(CAMPAIGN, REFEREE, "campaign.end")
    assert "Game 1 of «Orbita» is in play again in" in caught.value.localized("en")
    assert "è di nuovo in corso" in caught.value.localized("it")
    assert "est de nouveau en cours" in caught.value.localized("fr")
    assert not (await table.campaign()).ended
