"""Deadlines follow the turn: cleared when the side no longer owes, set and re-armed by a pace,
a reminder before expiry and one at expiry, each once, pinging only the owing side."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bot.service import GameService, Request
from bot.service.deadlines import owing_sides
from bot.service.stored import deadlines as stored_deadlines
from db.drivers.sqlite import SqliteStore
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.bot.service.test_rewind import CALL_ARTILLERY
from tests.fuzz.harness import SeededDice, fill_options

REFEREE, ANNA, BRUNO = 1, 2, 3
SEATS = {"alleati": ANNA, "asse": BRUNO}
CHANNEL = 21
PLAY = get_ruleset("manovra").rules


async def _table(store: SqliteStore, language: str = "en", guild: int | None = 5):
    service = GameService(store, dice=SeededDice(random.Random(3)))

    async def send(user: int, verb: str, dice: str | None = None, **options):
        return await service.handle(
            Request(CHANNEL, user, verb, options, guild_id=guild, dice=dice)
        )

    await send(REFEREE, "game.new", scenario="esempio_normandia", language=language)
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="asse")
    return service, send


async def _owing(store: SqliteStore) -> set[str]:
    document = (await store.load(CHANNEL)).document
    return owing_sides(
        PLAY.view(document, REFEREE_SEAT).follow_ups, PLAY.view(document, REFEREE_SEAT).awaiting
    )


async def _play_until_the_move_passes(store: SqliteStore, send) -> tuple[set[str], set[str]]:
    """Legal actions, each by its own seat, until the owing sides change."""
    rng = random.Random(8)
    before = await _owing(store)
    for _ in range(200):
        document = (await store.load(CHANNEL)).document
        actions = [
            a for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.verb != "odds" and a.side
        ]
        owed = [a for a in actions if a.owed] or actions
        action = rng.choice(owed)
        await send(SEATS[action.side], action.verb, **fill_options(action, rng))
        now = await _owing(store)
        if now != before:
            return before, now
    raise AssertionError("the move never passed")


async def test_a_deadline_goes_when_its_side_no_longer_owes(store) -> None:
    _, send = await _table(store)
    owing = await _owing(store)
    side = next(iter(owing))
    await send(REFEREE, "game.deadline", side=side, hours=12)
    assert [d.side for d in await stored_deadlines.deadlines(store, CHANNEL)] == [side]
    before, after = await _play_until_the_move_passes(store, send)
    remaining = {d.side for d in await stored_deadlines.deadlines(store, CHANNEL)}
    assert remaining == ({side} & after), (before, after, remaining)


async def test_a_pace_arms_the_owing_side_and_follows_the_move(store) -> None:
    service, send = await _table(store, language="fr")
    reply = await send(REFEREE, "game.pace", hours=10)
    owing = await _owing(store)
    armed = {d.side: d for d in await stored_deadlines.deadlines(store, CHANNEL)}
    assert set(armed) == owing and owing
    assert any(n.key == "bot.deadline.due" for n in reply.notices)
    due = next(iter(armed.values())).due_at
    assert timedelta(hours=9.9) < due - datetime.now(UTC) <= timedelta(hours=10)

    _, after = await _play_until_the_move_passes(store, send)
    now_armed = {d.side for d in await stored_deadlines.deadlines(store, CHANNEL)}
    assert now_armed == after

    status = await send(ANNA, "game.status")
    due_lines = [n for n in status.notices if n.key == "bot.deadline.due"]
    assert len(due_lines) == len(after)
    assert "<t:" in dict(due_lines[0].params)["when"]  # Discord timestamps

    # The reminders: a quarter of the time left, then at expiry; each once; owing players only.
    deadline = (await stored_deadlines.deadlines(store, CHANNEL))[0]
    early = deadline.due_at - timedelta(hours=2)
    first = await service.due_reminders(early)
    assert [(c, r.notices[0].key) for c, r in first] == [(CHANNEL, "bot.deadline.soon")]
    owing_players = {SEATS[s] for s in after}
    assert set(first[0][1].ping) <= owing_players and first[0][1].ping
    assert await service.due_reminders(early + timedelta(minutes=5)) == []
    racing = GameService(store)  # a second bot process on the same database
    assert await racing.due_reminders(early + timedelta(minutes=6)) == []
    late = await service.due_reminders(deadline.due_at + timedelta(seconds=1))
    assert [r.notices[0].key for _, r in late] == ["bot.deadline.passed"]
    assert await racing.due_reminders(deadline.due_at + timedelta(seconds=2)) == []

    off = await send(REFEREE, "game.pace", hours=0)
    assert off.notices[0].key == "bot.deadline.pace_off"


async def test_the_console_shows_a_plain_utc_time(store) -> None:
    _, send = await _table(store, guild=None)
    reply = await send(REFEREE, "game.pace", hours=1)
    when = dict(next(n for n in reply.notices if n.key == "bot.deadline.due").params)["when"]
    assert when.endswith("UTC") and "<t:" not in when


# -- the history commands: the deadlines follow them as any write ------------------------------


async def _paced_until_the_move_passes(store: SqliteStore):
    """A paced game played until the move passes: (send, owing before, owing after, the
    version before the command that passed it, that command's event)."""
    _, send = await _table(store)
    await send(REFEREE, "game.pace", hours=10)
    rng = random.Random(8)
    before = await _owing(store)
    for _ in range(200):
        record = await store.load(CHANNEL)
        actions = [
            a
            for a in PLAY.view(record.document, REFEREE_SEAT).every_legal
            if a.verb != "odds" and a.side
        ]
        action = rng.choice([a for a in actions if a.owed] or actions)
        await send(SEATS[action.side], action.verb, **fill_options(action, rng))
        now = await _owing(store)
        if now != before:
            latest = await store.events(CHANNEL, after_seq=record.version, limit=1)
            return send, before, now, record.version, latest[0]
    raise AssertionError("the move never passed")


async def _armed(store: SqliteStore) -> set[str]:
    return {d.side for d in await stored_deadlines.deadlines(store, CHANNEL)}


async def test_an_undo_moves_the_deadline_back_to_the_side_that_owes_again(store) -> None:
    """The move passed to the other side, then ``/game undo``: the side that owes again
    has its deadline and the other none (before, the deadline stayed on the side that no
    longer owed, and the reminders pinged the wrong players)."""
    send, before, after, _, _ = await _paced_until_the_move_passes(store)
    assert await _armed(store) == after
    await send(REFEREE, "game.undo")
    assert await _owing(store) == before
    assert await _armed(store) == before


async def test_a_rewind_moves_the_deadline_back_to_the_side_that_owes_again(store) -> None:
    send, before, after, version, _ = await _paced_until_the_move_passes(store)
    assert await _armed(store) == after
    await send(REFEREE, "game.rewind", seq=version)
    assert await _owing(store) == before
    assert await _armed(store) == before


async def test_a_takeback_moves_the_deadline_back_to_the_side_that_owes_again(store) -> None:
    send, before, after, _, passed = await _paced_until_the_move_passes(store)
    assert not passed.dice, "the command that passed the move rolled: no take-back"
    assert await _armed(store) == after
    await send(passed.actor_id, "takeback")
    assert await _owing(store) == before
    assert await _armed(store) == before


async def test_a_reroll_moves_the_deadlines_on(store) -> None:
    """A disputed roll rolled again: the pace arms the side that owes after it, as after
    any write (its deadline was cleared just before, so only the re-roll can set it)."""
    _, send = await _table(store)
    await send(REFEREE, "game.pace", hours=10)
    await send(ANNA, "turn.next")
    called = await send(ANNA, "callarty", dice="6,3", **CALL_ARTILLERY)
    await send(BRUNO, "dice.dispute", seq=called.seq)
    owing = await _owing(store)
    for side in owing:
        await send(REFEREE, "game.deadline", side=side, hours=0)
    assert await _armed(store) == set()
    rerolled = await send(REFEREE, "dice.reroll", seq=called.seq)
    assert "bot.dice.rerolled" in [n.key for n in rerolled.notices]
    assert await _owing(store) == owing and owing
    assert await _armed(store) == owing
