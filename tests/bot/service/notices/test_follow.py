"""Notices through the service, on both store backends: nothing by direct message unless a
player chose it; a notice when their side comes to owe (never on a command that changes
nothing owed), with the game's title and link; delivered once across two processes; held
through quiet hours; folded into one digest for several games; a block recorded once, the
mention back; a muted game silent; the end of a game told to every player who asked."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.service import GameService, Request
from bot.service.errors import ServiceError
from bot.service.notices import records
from bot.service.replies import DirectReply
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.fuzz.harness import SeededDice, fill_options

REFEREE, ANNA, BRUNO, CARLA, DARIO = 1, 2, 3, 4, 6
SEATS = {"alleati": ANNA, "asse": BRUNO}
GUILD = 5
FIRST, SECOND = 21, 22
PLAY = get_ruleset("manovra").rules
LATER = timedelta(minutes=1)


class Table:
    """Games of one server on a store, played by seat through one service."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.service = GameService(store, dice=SeededDice(random.Random(3)))

    async def send(self, channel: int, user: int, verb: str, **options: Any) -> Any:
        return await self.service.handle(
            Request(channel, user, verb, options, guild_id=GUILD, locale="en")
        )

    async def game(self, channel: int) -> None:
        await self.send(channel, REFEREE, "game.new", scenario="esempio_normandia", language="en")
        await self.send(channel, ANNA, "game.join", side="alleati")
        await self.send(channel, BRUNO, "game.join", side="asse")

    async def owing(self, channel: int) -> set[str]:
        document = (await self.store.load(channel)).document
        sides = {f.side for f in PLAY.view(document, REFEREE_SEAT).follow_ups if f.side}
        return sides or {PLAY.view(document, REFEREE_SEAT).awaiting}

    async def until_owed_by(self, channel: int, side: str) -> Any:
        """Legal actions, each by its own seat, until ``side`` comes to owe: the reply of
        the command that made it owe."""
        rng = random.Random(8)
        for _ in range(300):
            before = await self.owing(channel)
            document = (await self.store.load(channel)).document
            legal = PLAY.view(document, REFEREE_SEAT).every_legal
            actions = [a for a in legal if a.verb != "odds" and a.side]
            action = rng.choice([a for a in actions if a.owed] or actions)
            reply = await self.send(
                channel, SEATS[action.side], action.verb, **fill_options(action, rng)
            )
            if side in await self.owing(channel) and side not in before:
                return reply
        raise AssertionError(f"{side} never came to owe")


def _queued(found: list[records.Notice], kind: str = "your_move") -> list[records.Notice]:
    return [n for n in found if n.kind == kind]


async def test_nothing_is_queued_unless_a_direct_message_was_chosen(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    reply = await table.until_owed_by(FIRST, "alleati")
    assert ANNA in reply.ping  # the channel's mention, as before
    assert await records.pending(any_store, GUILD, ANNA) == []
    assert await table.service.due_reminders(datetime.now(UTC) + LATER) == []


async def test_a_side_that_comes_to_owe_gets_its_direct_message_once(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    shown = await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    assert shown.private and shown.notices[0].key == "bot.notice.show.mention"
    reply = await table.until_owed_by(FIRST, "alleati")
    assert ANNA not in reply.ping  # a direct message only: no mention
    [notice] = _queued(await records.pending(any_store, GUILD, ANNA))
    assert notice.title == "Normandy, June 1944 (example)"  # in the game's language
    assert notice.params["link"] == f"https://discord.com/channels/{GUILD}/{FIRST}"
    # Two bot processes deliver at once: the notice goes out once.
    racing = GameService(any_store)
    moment = datetime.now(UTC) + LATER
    ours, theirs = await asyncio.gather(
        table.service.due_reminders(moment), racing.due_reminders(moment)
    )
    sent = [r for _, r in ours + theirs if isinstance(r, DirectReply)]
    assert [(r.user, r.notices[0].key) for r in sent] == [(ANNA, "bot.notice.your_move")]
    assert dict(sent[0].notices[0].params).get("side") in (None, "Allies")  # never Italian
    assert await table.service.due_reminders(moment + LATER) == []
    # A command that changes nothing owed queues nothing.
    await table.send(FIRST, ANNA, "game.status")
    assert await records.pending(any_store, GUILD, ANNA) == []


async def test_quiet_hours_hold_the_message_until_they_end(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="all", via="both")
    hour = datetime.now(UTC).hour
    await table.send(
        FIRST, ANNA, "notify.quiet", start=hour, stop=(hour + 2) % 24, zone="UTC"
    )
    reply = await table.until_owed_by(FIRST, "alleati")
    assert ANNA in reply.ping  # both: the mention stays
    assert await table.service.due_reminders(datetime.now(UTC) + LATER) == []
    [held] = await any_store.feature_due(records.OUTBOX, datetime.now(UTC) + timedelta(hours=3))
    assert held.due_at is not None and held.due_at > datetime.now(UTC) + timedelta(minutes=50)
    after = await table.service.due_reminders(datetime.now(UTC) + timedelta(hours=3))
    assert [r.user for _, r in after if isinstance(r, DirectReply)] == [ANNA]


async def test_one_digest_gathers_several_games(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.game(SECOND)
    await table.send(FIRST, ANNA, "notify.set", kind="all", via="dm")
    await table.send(FIRST, ANNA, "notify.digest", daily=True)
    await table.until_owed_by(FIRST, "alleati")
    await table.until_owed_by(SECOND, "alleati")
    now = datetime.now(UTC) + LATER
    assert await table.service.due_reminders(now) == []  # folded, not sent
    assert await table.service.due_reminders(now + timedelta(hours=2)) == []
    day = await table.service.due_reminders(now + timedelta(days=1, minutes=1))
    [(_, digest)] = day
    assert isinstance(digest, DirectReply) and digest.user == ANNA
    assert digest.notices[0].key == "bot.notice.digest"
    channels = {dict(n.params)["link"].rsplit("/", 1)[1] for n in digest.notices[1:]}
    assert channels == {str(FIRST), str(SECOND)}
    assert await table.service.due_reminders(now + timedelta(days=2)) == []


async def test_a_second_message_of_a_kind_within_the_period_waits_for_the_digest(
    any_store,
) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.game(SECOND)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    await table.until_owed_by(SECOND, "alleati")
    now = datetime.now(UTC) + LATER
    sent = [r for _, r in await table.service.due_reminders(now)]
    assert len(sent) == 1  # one direct message; the other folded
    [digest] = await any_store.feature_due(records.DIGEST, now + timedelta(days=2))
    assert len(records.digest_items(digest)) == 1


async def test_a_block_is_recorded_told_once_and_the_mention_comes_back(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="all", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    [(channel, direct)] = await table.service.due_reminders(datetime.now(UTC) + LATER)
    assert isinstance(direct, DirectReply) and direct.refused is not None
    instead = await direct.refused()
    assert channel == FIRST and instead is not None and instead.ping == [ANNA]
    assert [n.key for n in instead.notices] == ["bot.notice.your_move", "bot.notice.blocked"]
    again = await direct.refused()
    assert again is not None and [n.key for n in again.notices] == ["bot.notice.your_move"]
    shown = await table.send(FIRST, ANNA, "notify.show")
    assert "bot.notice.show.blocked" in [n.key for n in shown.notices]
    # Blocked: the channel's mention again, and nothing queued.
    await table.until_owed_by(FIRST, "asse")
    reply = await table.until_owed_by(FIRST, "alleati")
    assert ANNA in reply.ping
    assert await records.pending(any_store, GUILD, ANNA) == []


async def test_a_muted_game_says_nothing(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="all", via="both")
    muted = await table.send(FIRST, ANNA, "notify.mute")
    assert muted.notices[0].key == "bot.notice.muted"
    reply = await table.until_owed_by(FIRST, "alleati")
    assert ANNA not in reply.ping
    assert await records.pending(any_store, GUILD, ANNA) == []
    heard = await table.send(FIRST, ANNA, "notify.mute", unmute=True)
    assert heard.notices[0].key == "bot.notice.unmuted"


async def test_the_end_of_a_game_is_told_to_every_player_who_asked(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    for user in (ANNA, BRUNO):
        await table.send(FIRST, user, "notify.set", kind="ended", via="dm")
    await table.send(FIRST, REFEREE, "game.end")
    ended = [n for user in (ANNA, BRUNO) for n in await records.pending(any_store, GUILD, user)]
    assert sorted((n.user, n.kind) for n in ended) == [(ANNA, "ended"), (BRUNO, "ended")]


async def test_the_inbox_takes_what_waits_and_test_asks_for_a_direct_message(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    inbox = await table.send(FIRST, ANNA, "notify.inbox")
    assert [n.key for n in inbox.notices] == ["bot.notice.your_move"]
    emptied = await table.send(FIRST, ANNA, "notify.inbox")  # says so, once taken
    assert [n.code for n in emptied.notices] == ["bot.notice.show.waiting(n=0)"]
    test = await table.send(FIRST, ANNA, "notify.test")
    assert isinstance(test, DirectReply) and test.user == ANNA and test.arrived is not None


async def test_bad_settings_are_refused(any_store) -> None:
    table = Table(any_store)
    with pytest.raises(ServiceError) as zone:
        await table.send(FIRST, ANNA, "notify.quiet", start=1, stop=2, zone="Mars/Olympus")
    assert zone.value.key == "error.notice.zone"
    with pytest.raises(ServiceError) as via:
        await table.send(FIRST, ANNA, "notify.set", kind="all", via="pigeon")
    assert via.value.key == "error.notice.via"


async def test_a_deadline_is_told_by_direct_message_once_beside_the_reminder(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, BRUNO, "notify.set", kind="deadline_passed", via="dm")
    await table.send(FIRST, ANNA, "notify.set", kind="deadline_passed", via="dm")
    await table.send(FIRST, REFEREE, "game.deadline", side="asse", hours=2)
    racing = GameService(any_store)
    moment = datetime.now(UTC) + timedelta(hours=3)
    ours, theirs = await asyncio.gather(
        table.service.due_reminders(moment), racing.due_reminders(moment)
    )
    replies = [r for _, r in ours + theirs]
    direct = [r for r in replies if isinstance(r, DirectReply)]
    assert [(r.user, r.notices[0].key) for r in direct] == [(BRUNO, "bot.notice.deadline_passed")]
    assert dict(direct[0].notices[0].params)["side"] == "Axis"  # in the game's English
    # The channel's reminder still goes out, once.
    assert [r.notices[0].key for r in replies if not isinstance(r, DirectReply)] == [
        "bot.deadline.passed"
    ]
    assert await table.service.due_reminders(moment + LATER) == []


async def test_a_deadline_reminder_mentions_each_player_as_they_chose(any_store) -> None:
    """The channel's reminder keeps the mention of a player who never chose, or chose a
    mention; a player who chose a direct message only, or nothing, is not mentioned."""
    table = Table(any_store)
    await table.game(FIRST)
    for user in (CARLA, DARIO):
        await table.service.handle(
            Request(FIRST, REFEREE, "seat.assign", {"user": user, "side": "asse"}, guild_id=GUILD)
        )
    axis = {m.user_id for m in await any_store.members(FIRST) if m.side == "asse"}
    assert axis == {BRUNO, CARLA, DARIO}
    await table.send(FIRST, BRUNO, "notify.set", kind="deadline_passed", via="dm")
    await table.send(FIRST, CARLA, "notify.set", kind="deadline_passed", via="off")
    await table.send(FIRST, REFEREE, "game.deadline", side="asse", hours=2)
    moment = datetime.now(UTC) + timedelta(hours=3)
    replies = [r for _, r in await table.service.due_reminders(moment)]
    [reminder] = [r for r in replies if not isinstance(r, DirectReply)]
    assert reminder.notices[0].key == "bot.deadline.passed"
    assert reminder.ping == [DARIO]  # he never chose: the mention, as ever
    assert [r.user for r in replies if isinstance(r, DirectReply)] == [BRUNO]


async def test_a_new_game_in_the_same_channel_is_told_anew(any_store) -> None:
    """A game played in a channel after another ended there reaches the same versions: its
    notices are its own, never taken for the earlier game's (still waiting)."""
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    version = (await any_store.load(FIRST)).version
    await table.send(FIRST, REFEREE, "game.end")
    await table.game(FIRST)
    await table.until_owed_by(FIRST, "alleati")
    assert (await any_store.load(FIRST)).version == version  # the same point, again
    assert len(_queued(await records.pending(any_store, GUILD, ANNA))) == 2


async def test_a_notice_leads_to_the_message_that_told_of_it_once_posted(any_store) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    reply = await table.until_owed_by(FIRST, "alleati")
    message = f"https://discord.com/channels/{GUILD}/{FIRST}/777"
    for posted in reply.on_posted:  # what a front end that knows the message does
        await posted(SECOND, f"https://discord.com/channels/{GUILD}/{SECOND}/1")
        await posted(FIRST, message)
    [notice] = _queued(await records.pending(any_store, GUILD, ANNA))
    assert notice.params["link"] == message
