"""Group commit: commits of different channels queued together share one transaction.

What must hold: each caller is answered only after the shared COMMIT (so an acknowledged
command is as durable as one committed alone), one caller's failure is its own (a failure
before writing leaves the group going on; one after writing has the group rolled back and
every job run again alone), and a lost COMMIT fails every caller in it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from db.errors import VersionConflict
from db.models import NewEvent
from db.sqlite import SqliteStore
from db.worker import DatabaseThread, grouped
from tests.db.helpers import new_game, raw_connection, sample_document

CHANNELS = range(1, 41)


def _event(channel: int, n: int) -> NewEvent:
    return NewEvent(verb="advance", args={"n": n}, dice=[3], interaction_id=f"g{channel}-{n}")


async def _count_commits(store: SqliteStore) -> list[str]:
    statements: list[str] = []

    def trace(connection: sqlite3.Connection) -> None:
        connection.set_trace_callback(statements.append)

    await store._connection.run(trace)
    return statements


async def test_concurrent_commits_share_transactions_and_all_land(db_path: Path) -> None:
    store = await SqliteStore.open(str(db_path))
    for channel in CHANNELS:
        await new_game(store, channel)
    statements = await _count_commits(store)
    results = await asyncio.gather(
        *(
            store.commit(channel, 1, sample_document(turn=2), _event(channel, 1))
            for channel in CHANNELS
        )
    )
    commits = [s for s in statements if s.strip().upper() == "COMMIT"]
    await store.close()
    assert [r.version for r in results] == [2] * len(CHANNELS)
    # 40 commands, far fewer fsyncs: they arrived while the first was committing.
    assert 1 <= len(commits) < len(CHANNELS) / 2, len(commits)
    with raw_connection(db_path) as raw:
        assert raw.execute("SELECT count(*) FROM games WHERE version = 2").fetchone()[0] == 40
    reopened = await SqliteStore.open(str(db_path))
    assert await reopened.check() == []
    await reopened.close()


async def test_one_callers_failure_is_its_own(db_path: Path) -> None:
    store = await SqliteStore.open(str(db_path))
    for channel in CHANNELS:
        await new_game(store, channel)
    stale = 7  # this caller read version 1 but the game is already at 2
    await store.commit(stale, 1, sample_document(turn=2), _event(stale, 0))
    outcomes = await asyncio.gather(
        *(
            store.commit(
                channel, 1, sample_document(turn=3), _event(channel, 1)
            )
            for channel in CHANNELS
        ),
        return_exceptions=True,
    )
    await store.close()
    failed = [c for c, o in zip(CHANNELS, outcomes, strict=True) if isinstance(o, Exception)]
    assert failed == [stale]
    assert isinstance(outcomes[stale - 1], VersionConflict)
    with raw_connection(db_path) as raw:
        versions = dict(raw.execute("SELECT channel_id, version FROM games").fetchall())
    assert versions[stale] == 2 and all(v == 2 for c, v in versions.items() if c != stale)


class _FailingCommit(sqlite3.Connection):
    """A connection whose COMMIT fails while ``fail`` is set (a full disk, say)."""

    fail = False

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
        if self.fail and sql.strip().upper() == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)  # type: ignore[arg-type]


async def test_a_lost_group_fails_every_caller_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    worker = await DatabaseThread.connect(
        str(path), isolation_level=None, factory=_FailingCommit, check_same_thread=True
    )
    await worker.run(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))
    seen_grouped: list[bool] = []

    def insert(n: int):
        def work(connection: sqlite3.Connection) -> int:
            seen_grouped.append(grouped())
            if not grouped():
                connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO t VALUES (?)", (n,))
            if not grouped():
                connection.execute("COMMIT")
            return n

        return work

    def arm(connection: sqlite3.Connection) -> None:
        connection.fail = True  # type: ignore[attr-defined]

    await worker.run(arm)
    # Queue a blocker first so the inserts pile up behind it and are taken as one group.
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def blocker(connection: sqlite3.Connection) -> None:
        asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(timeout=5)

    blocking = asyncio.ensure_future(worker.run(blocker))
    inserts = [asyncio.ensure_future(worker.run(insert(n), groupable=True)) for n in range(10)]
    await asyncio.sleep(0.05)
    gate.set()
    await blocking
    outcomes = await asyncio.gather(*inserts, return_exceptions=True)
    assert any(seen_grouped), "the inserts were never grouped"
    assert all(isinstance(o, sqlite3.OperationalError) for o in outcomes), outcomes

    def disarm_and_count(connection: sqlite3.Connection) -> int:
        connection.fail = False  # type: ignore[attr-defined]
        return int(connection.execute("SELECT count(*) FROM t").fetchone()[0])

    assert await worker.run(disarm_and_count) == 0
    await worker.close()


@pytest.mark.parametrize("count", [1, 2, 65])
async def test_groups_keep_order_with_other_jobs(tmp_path: Path, count: int) -> None:
    """Jobs that are not groupable, queued among groupable ones, run in their turn."""
    worker = await DatabaseThread.connect(str(tmp_path / "o.db"), isolation_level=None)
    await worker.run(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))
    order: list[str] = []

    def write(n: int):
        def work(connection: sqlite3.Connection) -> None:
            order.append(f"w{n}")
            connection.execute("INSERT INTO t VALUES (?)", (n,))

        return work

    def read(n: int):
        def work(connection: sqlite3.Connection) -> int:
            order.append(f"r{n}")
            return int(connection.execute("SELECT count(*) FROM t").fetchone()[0])

        return work

    jobs = []
    for n in range(count):
        jobs.append(worker.run(write(n), groupable=True))
        jobs.append(worker.run(read(n)))
    results = await asyncio.gather(*jobs)
    assert order == [f"{kind}{n}" for n in range(count) for kind in "wr"]
    assert results[1::2] == list(range(1, count + 1))
    await worker.close()


async def _piled_up(worker: DatabaseThread, jobs: list, groupable: bool = True) -> list:
    """Run ``jobs`` queued behind a blocker, so the worker takes them as one group."""
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def blocker(connection: sqlite3.Connection) -> None:
        asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(timeout=5)

    blocking = asyncio.ensure_future(worker.run(blocker))
    futures = [asyncio.ensure_future(worker.run(job, groupable=groupable)) for job in jobs]
    await asyncio.sleep(0.05)
    gate.set()
    await blocking
    return await asyncio.gather(*futures, return_exceptions=True)


def _inserting(n: int, runs: list[tuple[int, bool]], fail: str | None = None):
    def work(connection: sqlite3.Connection) -> int:
        runs.append((n, grouped()))
        if not grouped():
            connection.execute("BEGIN IMMEDIATE")
        try:
            if fail == "before":
                raise VersionConflict(n, 1, 2)
            connection.execute("INSERT INTO t VALUES (?)", (n,))
            if fail == "after":
                raise ValueError(f"job {n} failed after writing")
            if not grouped():
                connection.execute("COMMIT")
        except BaseException:
            if not grouped() and connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        return n

    return work


async def test_a_failure_before_writing_leaves_the_group_going(tmp_path: Path) -> None:
    worker = await DatabaseThread.connect(str(tmp_path / "b.db"), isolation_level=None)
    await worker.run(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))
    statements: list[str] = []
    await worker.run(lambda c: c.set_trace_callback(statements.append))
    runs: list[tuple[int, bool]] = []
    jobs = [_inserting(n, runs, "before" if n == 3 else None) for n in range(6)]
    outcomes = await _piled_up(worker, jobs)
    assert isinstance(outcomes[3], VersionConflict)
    assert [o for i, o in enumerate(outcomes) if i != 3] == [0, 1, 2, 4, 5]
    # One transaction for all six, each job run once, inside it.
    assert [s for s in statements if s.strip().upper() == "COMMIT"] == ["COMMIT"]
    assert runs == [(n, True) for n in range(6)]
    rows = await worker.run(lambda c: [r[0] for r in c.execute("SELECT n FROM t ORDER BY n")])
    assert rows == [0, 1, 2, 4, 5]
    await worker.close()


async def test_a_failure_after_writing_reruns_the_group_alone(tmp_path: Path) -> None:
    worker = await DatabaseThread.connect(str(tmp_path / "a.db"), isolation_level=None)
    await worker.run(lambda c: c.execute("CREATE TABLE t (n INTEGER)"))
    runs: list[tuple[int, bool]] = []
    jobs = [_inserting(n, runs, "after" if n == 2 else None) for n in range(5)]
    outcomes = await _piled_up(worker, jobs)
    assert isinstance(outcomes[2], ValueError)
    assert [o for i, o in enumerate(outcomes) if i != 2] == [0, 1, 3, 4]
    # Grouped until job 2 wrote and failed; then all five again, each alone, in order.
    assert runs == [(0, True), (1, True), (2, True)] + [(n, False) for n in range(5)]
    rows = await worker.run(lambda c: [r[0] for r in c.execute("SELECT n FROM t ORDER BY n")])
    assert rows == [0, 1, 3, 4]  # job 2's row is gone, nothing of it half-kept
    await worker.close()
