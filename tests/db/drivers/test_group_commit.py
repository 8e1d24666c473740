"""The SQLite driver on aiosqlite: order, cancellation, close, group commit, public API only.

What must hold for group commit: each caller is answered only after the shared COMMIT (so an
acknowledged command is as durable as one committed alone), one caller's failure is its own
(a failure before writing leaves the group going on; one after writing has the group rolled
back and every operation run again alone), and a lost COMMIT fails every caller in it.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import db.drivers.aiosqlite_driver
import db.drivers.sqlite
from db.core.steps import Compute, Operation, Query, Step
from db.drivers.aiosqlite_driver import MAX_GROUP, DriverClosed, SqliteDriver, connect
from db.drivers.sqlite import SqliteStore
from db.errors import InteractionReused, StoreUnavailable, TamperedGame, VersionConflict
from db.models import NewEvent
from tests.db.helpers import new_game, raw_connection, sample_document

CHANNELS = range(1, 41)


def _event(channel: int, n: int) -> NewEvent:
    return NewEvent(verb="advance", args={"n": n}, dice=[3], interaction_id=f"g{channel}-{n}")


class _FailingCommit(sqlite3.Connection):
    """A connection whose COMMIT fails while ``fail`` is set (a full disk, say)."""

    fail = False

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
        if self.fail and sql.strip().upper() == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)  # type: ignore[arg-type]


async def _driver(path: Path, **options: Any) -> SqliteDriver:
    connection = await connect(str(path), isolation_level=None, **options)
    await connection.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
    return SqliteDriver(connection)


def _op(steps: Callable[[], Step[Any]], **options: Any) -> Operation[Any]:
    return Operation(steps, **options)


#: How the group runs its commits: of distinct channels, advanced together round by round
#: with their writes merged ("lockstep"); of one channel, one after the other.
PATHS = ("lockstep", "one_by_one")


def _inserting(
    n: int, runs: list[int], fail: str | None = None, path: str = "lockstep"
) -> Operation[int]:
    def steps() -> Step[int]:
        runs.append(n)
        if fail == "before":
            raise VersionConflict(n, 1, 2)
        yield Query("INSERT INTO t VALUES (?)", (n,))
        if fail == "after":
            raise ValueError(f"operation {n} failed after writing")
        return n

    channel = n if path == "lockstep" else 1
    return _op(steps, transaction="write", groupable=True, channel_id=channel)


def _count() -> Operation[int]:
    def steps() -> Step[int]:
        return int((yield Query("SELECT count(*) FROM t", (), "value")))

    return _op(steps)


async def _piled_up(driver: SqliteDriver, operations: list[Operation[Any]]) -> list[Any]:
    """Submit ``operations`` behind one that holds the writer, so they queue up together."""
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def held() -> Step[None]:
        # The writer waits for this on a worker thread: everything below queues up.
        yield Compute(lambda: asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(5))

    blocking = asyncio.ensure_future(driver.submit(_op(held)))
    futures = [asyncio.ensure_future(driver.submit(operation)) for operation in operations]
    await asyncio.sleep(0.05)
    gate.set()
    await blocking
    return await asyncio.gather(*futures, return_exceptions=True)


async def _traced(driver: SqliteDriver) -> list[str]:
    statements: list[str] = []
    await driver._connection.set_trace_callback(statements.append)
    return statements


async def test_concurrent_commits_share_transactions_and_all_land(db_path: Path) -> None:
    store = await SqliteStore.open(str(db_path))
    for channel in CHANNELS:
        await new_game(store, channel)
    statements = await _traced(store._driver)
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
            store.commit(channel, 1, sample_document(turn=3), _event(channel, 1))
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


async def test_merged_writes_go_out_once_per_statement(db_path: Path) -> None:
    """Forty commits of forty channels: their games rows in one ``executemany``, their
    events in one, and so on; each caller still gets its own event back."""
    store = await SqliteStore.open(str(db_path))
    for channel in CHANNELS:
        await new_game(store, channel)
    statements = await _traced(store._driver)
    results = await _piled_up_commits(store, [(c, 1, _event(c, 1)) for c in CHANNELS])
    await store.close()
    assert [r.event.channel_id for r in results] == list(CHANNELS)
    assert [r.event.interaction_id for r in results] == [f"g{c}-1" for c in CHANNELS]
    inserts = [s for s in statements if s.startswith("INSERT INTO events")]
    assert len(inserts) == len(CHANNELS)  # executemany traces each row, in one hop
    assert len([s for s in statements if s.strip().upper() == "COMMIT"]) == 1


async def test_an_interaction_reused_across_a_group_is_caught_and_the_group_rerun(
    db_path: Path,
) -> None:
    """The one thing commits of distinct channels share, an interaction id, fails the merged
    write; the group is rolled back and each commit runs alone: the second is refused."""
    store = await SqliteStore.open(str(db_path))
    for channel in (1, 2, 3):
        await new_game(store, channel)
    same = NewEvent(verb="advance", interaction_id="shared")
    outcomes = await _piled_up_commits(
        store, [(1, 1, _event(1, 1)), (2, 1, same), (3, 1, same)], errors=True
    )
    assert outcomes[0].version == 2 and outcomes[1].version == 2
    assert isinstance(outcomes[2], InteractionReused)
    assert await store.check() == []
    await store.close()


async def test_reads_queued_together_share_one_snapshot(db_path: Path) -> None:
    """Commands' reads queued at one moment run in one snapshot, advanced together; a game
    that fails its checks is refused alone, the others answered."""
    store = await SqliteStore.open(str(db_path))
    for channel in CHANNELS:
        await new_game(store, channel)
    await store.add_member(3, 77, side="rossi")
    with raw_connection(db_path) as raw:  # behind the store's back: game 3's seats edited
        raw.execute("UPDATE members SET role = 'referee' WHERE channel_id = 3")
    statements = await _traced(store._driver)
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def held() -> Step[None]:
        yield Compute(lambda: asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(5))

    blocking = asyncio.ensure_future(store._driver.submit(_op(held)))
    reads = [asyncio.ensure_future(store.open_command(c, f"r{c}")) for c in CHANNELS]
    await asyncio.sleep(0.05)
    gate.set()
    await blocking
    contexts = await asyncio.gather(*reads, return_exceptions=True)
    await store.close()
    assert isinstance(contexts[2], TamperedGame)
    assert all(c.record.version == 1 for i, c in enumerate(contexts) if i != 2)
    assert [s for s in statements if s.strip().upper().startswith("BEGIN")] == ["BEGIN"]
    heads = [s for s in statements if "LEFT JOIN states" in s]
    assert len(heads) == len(CHANNELS)


async def _piled_up_commits(
    store: SqliteStore, commits: list[tuple[int, int, NewEvent]], errors: bool = False
) -> list[Any]:
    """Commit behind an operation that holds the writer, so they form one group."""
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def held() -> Step[None]:
        yield Compute(lambda: asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(5))

    blocking = asyncio.ensure_future(store._driver.submit(_op(held)))
    futures = [
        asyncio.ensure_future(store.commit(channel, version, sample_document(turn=2), event))
        for channel, version, event in commits
    ]
    await asyncio.sleep(0.05)
    gate.set()
    await blocking
    return await asyncio.gather(*futures, return_exceptions=errors)


@pytest.mark.parametrize("path", PATHS)
async def test_a_lost_group_fails_every_caller_and_writes_nothing(
    tmp_path: Path, path: str
) -> None:
    driver = await _driver(tmp_path / "w.db", factory=_FailingCommit)
    statements = await _traced(driver)
    runs: list[int] = []
    _FailingCommit.fail = True
    try:
        outcomes = await _piled_up(driver, [_inserting(n, runs, path=path) for n in range(10)])
    finally:
        _FailingCommit.fail = False
    assert runs == list(range(10)), "the inserts were not run once each, in one group"
    assert [s for s in statements if s.strip().upper().startswith("BEGIN")] == ["BEGIN IMMEDIATE"]
    assert all(isinstance(o, sqlite3.OperationalError) for o in outcomes), outcomes
    assert await driver.submit(_count()) == 0
    await driver.close()


@pytest.mark.parametrize("count", [1, 2, MAX_GROUP + 1])
async def test_groups_keep_order_with_other_operations(tmp_path: Path, count: int) -> None:
    """Operations that are not groupable, queued among groupable ones, run in their turn."""
    driver = await _driver(tmp_path / "o.db")
    runs: list[int] = []
    operations: list[Operation[Any]] = []
    for n in range(count):
        operations += [_inserting(n, runs), _count()]
    results = await _piled_up(driver, operations)
    assert runs == list(range(count))
    assert results[1::2] == list(range(1, count + 1))
    await driver.close()


@pytest.mark.parametrize("path", PATHS)
async def test_a_failure_before_writing_leaves_the_group_going(tmp_path: Path, path: str) -> None:
    driver = await _driver(tmp_path / "b.db")
    statements = await _traced(driver)
    runs: list[int] = []
    outcomes = await _piled_up(
        driver, [_inserting(n, runs, "before" if n == 3 else None, path) for n in range(6)]
    )
    assert isinstance(outcomes[3], VersionConflict)
    assert [o for i, o in enumerate(outcomes) if i != 3] == [0, 1, 2, 4, 5]
    # One transaction for all six, each operation run once, inside it.
    assert [s for s in statements if s.strip().upper() == "COMMIT"] == ["COMMIT"]
    assert runs == list(range(6))
    assert await driver.submit(_count()) == 5
    await driver.close()


@pytest.mark.parametrize("path", PATHS)
async def test_a_failure_after_writing_reruns_the_group_alone(tmp_path: Path, path: str) -> None:
    driver = await _driver(tmp_path / "a.db")
    statements = await _traced(driver)
    runs: list[int] = []
    outcomes = await _piled_up(
        driver, [_inserting(n, runs, "after" if n == 2 else None, path) for n in range(5)]
    )
    assert isinstance(outcomes[2], ValueError)
    assert [o for i, o in enumerate(outcomes) if i != 2] == [0, 1, 3, 4]
    # Grouped until operation 2 wrote and failed (one by one: after 0 and 1; in lockstep:
    # all five had started and written); then all five again, each alone, in order.
    grouped = [0, 1, 2] if path == "one_by_one" else [0, 1, 2, 3, 4]
    assert runs == [*grouped, 0, 1, 2, 3, 4]
    assert [s for s in statements if s.strip().upper() == "ROLLBACK"]
    rows = await driver.submit(_op(lambda: (yield Query("SELECT n FROM t ORDER BY n", (), "rows"))))
    assert [row[0] for row in rows] == [0, 1, 3, 4]  # operation 2's row is gone whole
    await driver.close()


async def test_a_cancelled_caller_does_not_stop_its_transaction(tmp_path: Path) -> None:
    """The operation runs to COMMIT even though nobody waits for it any more."""
    driver = await _driver(tmp_path / "c.db")
    started = asyncio.Event()

    def slow() -> Step[None]:
        yield Query("INSERT INTO t VALUES (1)")
        started.set()
        yield Compute(lambda: time.sleep(0.2))
        yield Query("INSERT INTO t VALUES (2)")

    task = asyncio.ensure_future(driver.submit(_op(slow, transaction="write")))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await driver.submit(_count()) == 2
    await driver.close()


async def test_close_waits_for_queued_operations_then_refuses(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 5)
    queued = [asyncio.ensure_future(store.add_member(5, user, side="rossi")) for user in range(20)]
    await asyncio.sleep(0)
    await store.close()
    assert len(await asyncio.gather(*queued)) == 20
    assert not await asyncio.to_thread(os.path.exists, f"{db_path}-wal")
    with pytest.raises(StoreUnavailable):
        await store.load(5)
    await store.close()  # idempotent
    with raw_connection(db_path) as raw:
        assert raw.execute("SELECT count(*) FROM members").fetchone() == (20,)


async def test_a_closed_driver_refuses(tmp_path: Path) -> None:
    driver = await _driver(tmp_path / "z.db")
    await driver.close()
    with pytest.raises(DriverClosed):
        await driver.submit(_count())


def test_the_driver_uses_only_aiosqlites_public_api() -> None:
    """No private name of aiosqlite: nothing ``._…`` on a connection or a cursor, and none of
    the private names the replaced worker was tempted by (``_execute``, ``_conn``…)."""
    for module in (db.drivers.aiosqlite_driver, db.drivers.sqlite):
        source = Path(module.__file__).read_text(encoding="utf-8")
        on_driver_objects = re.findall(r"\b(?:connection|cursor|_connection)\.(_\w+)", source)
        assert on_driver_objects == [], (module.__name__, on_driver_objects)
        known_private = re.findall(r"\.(_execute|_conn|_tx|_thread|_running|_connector)\b", source)
        assert known_private == [], (module.__name__, known_private)
    driver_source = Path(db.drivers.aiosqlite_driver.__file__).read_text(encoding="utf-8")
    assert "import aiosqlite" in driver_source
