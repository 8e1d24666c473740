"""Notices through the real bot on SimCord: a direct message after a move for a player who
chose it, none in their quiet hours, one digest for several games, and — their messages
closed to the bot (Discord's 50007) — the block told once in the channel, with the mention
back; ``/notify test`` says whether its message arrived."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.service import Reply
from bot.service.notices import records
from rules.core.i18n import translate
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE
from tests.bot.discord.test_simcord import (  # noqa: F401 - the fixtures the test uses
    Table,
    all_texts,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    start_game,
    table,
    texts,
)
from tests.fuzz.harness import fill_options

PLAY = get_ruleset("manovra").rules
TITLE = "Normandia, giugno 1944 (esempio)"


async def _owing(store: Any, channel: Any) -> set[str]:
    document = (await store.load(channel.id)).document
    sides = {f.side for f in PLAY.view(document, REFEREE).follow_ups if f.side}
    return sides or {PLAY.view(document, REFEREE).awaiting}


async def until_axis_owes(at: Table, store: Any, channel: Any) -> None:
    """The seats play legal commands through Discord until the Axis (Bruno) comes to owe."""
    rng = random.Random(8)
    seats = {"alleati": at.anna, "asse": at.bruno}
    for _ in range(300):
        before = await _owing(store, channel)
        document = (await store.load(channel.id)).document
        actions = [
            a for a in PLAY.view(document, REFEREE).every_legal if a.verb != "odds" and a.side
        ]
        action = rng.choice([a for a in actions if a.owed] or actions)
        path = action.verb.replace(".", " ")
        await seats[action.side].slash(channel, path, **fill_options(action, rng))
        if "asse" in await _owing(store, channel) and "asse" not in before:
            return
    raise AssertionError("the Axis never came to owe")


def later(at: Table, hours: float) -> None:
    """The bot's minute loop sees the clock ``hours`` ahead."""
    real = at.service.due_reminders

    async def ahead(now: datetime | None = None, **options: Any) -> list[tuple[int, Reply]]:
        return await real(datetime.now(UTC) + timedelta(hours=hours), **options)

    at.service.due_reminders = ahead  # type: ignore[method-assign]


def direct_messages(member: Any) -> list[Any]:
    return member.user.dm_channel.history()


async def opt_in(at: Table, *, channel: Any = None, **extra: Any) -> None:
    where = channel or at.channel
    shown = await at.bruno.slash(where, "notify set", kind="your_move", via="dm", **extra)
    assert shown.ephemeral


async def test_a_direct_message_after_a_move(table: Table, discord_store: Any) -> None:  # noqa: F811
    await start_game(table)
    await opt_in(table)
    await until_axis_owes(table, discord_store, table.channel)
    await table.env.advance_time(61)
    [message] = direct_messages(table.bruno)
    assert TITLE in texts(message) and str(table.channel.id) in texts(message)
    # It leads to the message that told his side it owes: a message of the game's channel.
    link = re.search(rf"/channels/{table.guild.id}/{table.channel.id}/(\d+)", texts(message))
    assert link is not None, texts(message)
    told = [m for m in table.channel.history() if m.id == int(link.group(1))]
    assert told and table.bruno.mention not in (told[0].content or "")  # by message only
    await table.env.advance_time(61)
    assert len(direct_messages(table.bruno)) == 1  # once


async def test_no_direct_message_in_quiet_hours(table: Table, discord_store: Any) -> None:  # noqa: F811
    await start_game(table)
    await opt_in(table)
    hour = datetime.now(UTC).hour
    await table.bruno.slash(table.channel, "notify quiet", start=hour, stop=(hour + 3) % 24)
    await until_axis_owes(table, discord_store, table.channel)
    await table.env.advance_time(61)
    assert not direct_messages(table.bruno)
    later(table, 4)
    await table.env.advance_time(61)
    assert len(direct_messages(table.bruno)) == 1


async def test_one_digest_for_several_games(table: Table, discord_store: Any) -> None:  # noqa: F811
    await start_game(table)
    second = table.guild.create_text_channel("ardenne")
    await table.referee.slash(
        second, "game new", ruleset="manovra", scenario="esempio_normandia", language="it"
    )
    await table.anna.slash(second, "game join", side="alleati")
    await table.bruno.slash(second, "game join", side="asse")
    await opt_in(table)
    await table.bruno.slash(table.channel, "notify digest", daily=True)
    await until_axis_owes(table, discord_store, table.channel)
    await until_axis_owes(table, discord_store, second)
    await table.env.advance_time(61)
    assert not direct_messages(table.bruno)
    later(table, 25)
    await table.env.advance_time(61)
    [digest] = direct_messages(table.bruno)
    shown = texts(digest)
    assert translate("bot.notice.digest", "it", n=2) in shown
    assert str(table.channel.id) in shown and str(second.id) in shown


async def test_the_mention_comes_back_after_a_block(
    table: Table,  # noqa: F811
    discord_store: Any,  # noqa: F811
) -> None:
    await start_game(table)
    await opt_in(table)
    test = await table.bruno.slash(table.channel, "notify test")
    assert translate("bot.notice.test_arrived", "en") in all_texts(test)
    # Bruno closes his direct messages to the bot: Discord answers 50007.
    table.env.backend.users[table.bruno.id].bot = True
    await until_axis_owes(table, discord_store, table.channel)
    await table.env.advance_time(61)
    told = table.channel.last_message
    assert told is not None and told.content == table.bruno.mention
    assert translate("bot.notice.blocked", "it") in texts(told)
    settings = await records.settings_of(discord_store, table.guild.id, table.bruno.id)
    assert settings.blocked
    refused = await table.bruno.slash(table.channel, "notify test")
    assert translate("bot.notice.test_refused", "en") in all_texts(refused)
