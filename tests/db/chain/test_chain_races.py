"""A process's verified head against reads whose snapshot is older than it (PostgreSQL).

On PostgreSQL a store runs operations on a pool of connections, so a read's REPEATABLE
READ snapshot can be taken before a commit of the same process finishes and moves the
verified head (`db.chain.verify.VerifiedChains.advance`) past what that snapshot shows. Such a
read must not take the head it sees for a shortened log: the head it is checked against
is the one read before its snapshot (`db.core.verify.verified_up_to`), and what it
verified never replaces a later head (`VerifiedChains.remember`).

This is the interleaving behind the old flaky ``ChainBroken`` ("event log fails
verification at event 2") of `tests/db/test_concurrency.py` with two stores on one
database: a load's snapshot shows version 1, a commit of the same process then advances
its head to version 2, and the load, checking version 1 against the head read *after*
its snapshot, refused a healthy game as "gone from a log this process verified up to a
later event". Here the same interleaving is made deterministic: the read is held right
after its first statement (its snapshot taken) while the commits run.

A write that waits for another process's write of the game row (READ COMMITTED) gets the
row re-checked alone, with its joined event and state from its older snapshot gone: it
reads the head again rather than calling the game corrupt (last test).

SQLite has no such interleaving (one connection runs a process's operations one after
the other, so no commit of the process lands inside a read's snapshot), hence PostgreSQL
only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest

import db.drivers.pg_driver as pg_driver
from db.chain.verify import VerifiedHead
from db.core.steps import Query
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game

CHANNEL = 4100

pytestmark = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


class Gate:
    """Holds the next statement anyone sends (the held read's first, which takes its
    snapshot) right after its answer, until released."""

    def __init__(self) -> None:
        self.armed = False
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def query(self, original: Any, connection: Any, request: Query) -> Any:
        answer = await original(connection, request)
        if self.armed:
            self.armed = False
            self.held.set()
            await self.release.wait()
        return answer


@asynccontextmanager
async def held_operation(
    monkeypatch: pytest.MonkeyPatch, read: Awaitable[Any]
) -> AsyncIterator[asyncio.Task[Any]]:
    """Start ``read`` (any store operation) and hold it just after its first statement (a
    read's snapshot taken, a write's row lock held); on exit of the block it is let go
    (the caller awaits the task)."""
    gate = Gate()
    original = pg_driver.query

    async def gated(connection: Any, request: Query) -> Any:
        return await gate.query(original, connection, request)

    monkeypatch.setattr(pg_driver, "query", gated)
    gate.armed = True
    task = asyncio.ensure_future(read)
    try:
        await asyncio.wait_for(gate.held.wait(), 10)
        yield task
    finally:
        gate.release.set()
        monkeypatch.setattr(pg_driver, "query", original)


async def tick(store: Any, version: int, label: str) -> str:
    """Commit one increment on top of ``version``; the new head's hash."""
    result = await store.commit(
        CHANNEL, version, {"counter": version}, NewEvent(verb="tick", args={"by": label})
    )
    return str(result.event.hash)


async def test_a_read_older_than_this_process_s_own_commit_is_no_shortened_log(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL, document={"counter": 0})
        async with held_operation(monkeypatch, store.load(CHANNEL)) as load:
            # The load's snapshot shows version 1; this commit lands after it.
            second = await tick(store, 1, "same process")
        game = await load  # refused as "gone from a log ... verified up to event 2" before
        assert game.version == 1  # what its snapshot showed
        created = store.verified_chains.head(CHANNEL)
        assert created is not None and (created.seq, created.hash) == (2, second)
        assert (await store.load(CHANNEL)).version == 2


async def test_two_stores_a_read_held_while_both_commit_keeps_the_later_head(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test_concurrency case, one interleaving: the second store's read sees version
    1, then it commits version 2 and the first store version 3."""
    async with await backend.open() as first, await backend.open() as second:
        await new_game(first, CHANNEL, document={"counter": 0})
        await second.load(CHANNEL)  # the second store verified version 1
        async with held_operation(monkeypatch, second.open_command(CHANNEL, "held")) as read:
            await tick(second, 1, "second")
            third = await tick(first, 2, "first")
        context = await read
        assert context.record.version == 1
        # The second store has version 3 verified from its own commit's head on.
        assert (await second.load(CHANNEL)).version == 3
        head = second.verified_chains.head(CHANNEL)
        assert head is not None and (head.seq, head.hash) == (3, third)
        assert await first.check() == []


async def test_a_verification_finished_late_does_not_move_the_head_back(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read verifies another process's version 2 from its snapshot while this process
    commits version 3 on top of it: the head stays at 3."""
    async with await backend.open() as first, await backend.open() as second:
        await new_game(first, CHANNEL, document={"counter": 0})
        await second.load(CHANNEL)
        await tick(first, 1, "first")  # the second store has not verified version 2
        async with held_operation(monkeypatch, second.state_at(CHANNEL, 2)) as read:
            third = await tick(second, 2, "second")  # verifies 2 itself, then advances
        assert (await read).version == 2
        head = second.verified_chains.head(CHANNEL)
        created = head.game if head is not None else ""
        assert head == VerifiedHead(created, 3, third)


async def test_a_write_that_waited_for_the_row_lock_reads_the_head_again(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first store's commit holds the game row; the second store's end_game (no
    expected version) waits for it, then must end the game at version 3, not find
    "event 2 of the current version is missing"."""
    async with await backend.open() as first, await backend.open() as second:
        await new_game(first, CHANNEL, document={"counter": 0})
        await second.load(CHANNEL)
        async with held_operation(monkeypatch, tick(first, 1, "first")) as commit:
            ending = asyncio.ensure_future(second.end_game(CHANNEL))
            watcher = await asyncpg.connect(backend.url)
            try:
                for _ in range(500):  # until the end's statement waits for the row lock
                    if await watcher.fetchval("SELECT count(*) FROM pg_locks WHERE NOT granted"):
                        break
                    await asyncio.sleep(0.01)
                else:
                    raise AssertionError("the end never waited for the row lock")
            finally:
                await watcher.close()
        await commit
        ended = await ending  # CorruptRecord before: the joined event read as missing
        assert (ended.event.seq, ended.event.verb) == (3, "game.ended")
        assert (await second.load(CHANNEL)).status == "ended"
        assert await first.check() == []
