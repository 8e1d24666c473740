"""/roll: free dice through the service, with or without a game, logged and replayable."""

from __future__ import annotations

import pytest

from bot.console.render_text import reply_text
from bot.service import Request
from bot.service.replay import replay_game
from rules.core.errors import RulesError

CHANNEL = 777


async def test_a_free_roll_without_a_game_answers_in_the_askers_language(service, dice):
    dice.push(3, 4)
    reply = await service.handle(Request(CHANNEL, 5, "roll", {"expression": "2d6+1"}, locale="en"))
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


async def test_a_big_roll_keeps_the_event_loop_free_and_its_odds_are_computed_once(
    service, dice, monkeypatch
):
    import asyncio
    import threading
    import time

    from bot.discord.embeds import reply_to_messages
    from rules.core.expression import DiceExpression

    computed: list[str] = []
    counts = DiceExpression._counts

    def counted(self):  # type: ignore[no-untyped-def]
        computed.append(threading.current_thread().name)
        return counts(self)

    monkeypatch.setattr(DiceExpression, "_counts", counted)
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    dice.push(*[2] * 99)
    ticking = asyncio.create_task(tick())
    await asyncio.sleep(0.02)
    reply = await service.handle(
        Request(CHANNEL, 5, "roll", {"expression": "99d3kh50"}, locale="en")
    )
    text = reply_text(reply)
    embeds = [e.to_dict() for m in reply_to_messages(reply) for e in m.embeds]
    done.set()
    await ticking
    assert computed and all(name.startswith("arbitro-rules") for name in computed)
    assert len(computed) == 1  # once, for the text and the embeds alike
    assert reply.roll is not None and reply.roll.chance is not None
    assert "at least" in text and "at least" in str(embeds)
    assert max(gaps) < 0.1, max(gaps)


async def test_a_roll_whose_odds_cost_too_much_posts_without_them_at_once(service, dice):
    import time

    dice.push(*[7] * 100)
    started = time.perf_counter()
    reply = await service.handle(
        Request(CHANNEL, 5, "roll", {"expression": "100d100"}, locale="en")
    )
    assert time.perf_counter() - started < 0.5
    assert reply.roll is not None and reply.roll.odds_skipped and reply.roll.chance is None
    assert "no odds: too many dice" in reply_text(reply)


async def test_the_log_names_the_creator_and_a_free_roller_as_it_names_everyone(service, store):
    """The console's log read "#1 @arbitro — game created" and "#6 @bruno — free dice"
    beside "#2 bruno — joined": a creation and a free roll recorded no display name, so the
    log fell back to a mention id (a number in an export or on the web page)."""
    await service.handle(
        Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia"}, user_name="Carla")
    )
    await service.handle(
        Request(CHANNEL, 9, "roll", {"expression": "2d6"}, dice="3,4", user_name="Bruno")
    )
    reply = await service.handle(
        Request(CHANNEL, 1, "game.log", {}, locale="en", user_name="Carla")
    )
    text = reply_text(reply)
    assert "#1 Carla — " in text and "#2 Bruno — " in text
    assert "<@" not in text and "@1" not in text and "@9" not in text


async def test_a_french_log_line_separates_outcomes_with_a_spaced_semicolon(service, store):
    """French typography: "distance 38,6", mesurée ; Pire dégât", as every French text."""
    from dataclasses import replace

    from bot.service.events import event_line
    from rules.core.resolution import Outcome, Resolution

    await service.handle(Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia"}))
    event = (await store.events(CHANNEL))[-1]
    two = [
        Resolution("manovra", "p", (), Outcome(key)).to_json()
        for key in ("manovra.one", "manovra.two")
    ]
    record = replace(event, resolution=two)
    assert "\u202f; manovra.two" in event_line(record, "manovra", "fr", {})
    english = event_line(record, "manovra", "en", {})
    assert "; manovra.two" in english and "\u202f" not in english
