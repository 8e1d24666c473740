"""/roll: free dice through the service, with or without a game, logged and replayable."""

from __future__ import annotations

import pytest

from bot.render_text import reply_text
from bot.replay import replay_game
from bot.service import Request
from rules.core.errors import RulesError

CHANNEL = 777


async def test_a_free_roll_without_a_game_answers_in_the_askers_language(service, dice):
    dice.push(3, 4)
    reply = await service.handle(
        Request(CHANNEL, 5, "roll", {"expression": "2d6+1"}, locale="en")
    )
    assert reply.roll is not None and reply.roll.total == 8 and reply.seq is None
    text = reply_text(reply)
    assert "2d6+1 → 8" in text and "at least 8" in text


async def test_a_free_roll_in_a_game_is_logged_and_replays(service, store, dice):
    await service.handle(
        Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia", "language": "fr"})
    )
    reply = await service.handle(
        Request(CHANNEL, 9, "roll", {"expression": "4d6kh3"}, dice="6,1,5,2", interaction_id="r1")
    )
    assert reply.roll is not None and reply.roll.total == 13 and reply.by_hand
    assert "au moins 13" in reply_text(reply)
    events = await store.events(CHANNEL)
    assert events[-1].verb == "roll" and events[-1].args["expression"] == "4d6kh3"
    assert [d["face"] for d in events[-1].dice] == [6, 1, 5, 2]
    assert (await replay_game(store, CHANNEL)).matches


@pytest.mark.parametrize(
    ("expression", "dice_text", "key"),
    [("2d7x", None, "error.roll.syntax"), ("2d6", "3", "error.dice"), ("d6", "9", "error.dice")],
)
async def test_bad_rolls_are_clear_errors(service, expression, dice_text, key):
    with pytest.raises(RulesError) as caught:
        await service.handle(
            Request(CHANNEL, 5, "roll", {"expression": expression}, dice=dice_text)
        )
    assert caught.value.key.startswith(key)
