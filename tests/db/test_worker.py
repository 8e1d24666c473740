"""The connection thread under the store: order, cancellation, close, no private API."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from pathlib import Path

import pytest

import db.sqlite
from db.errors import StoreUnavailable
from db.sqlite import SqliteStore
from db.worker import DatabaseThread, WorkerClosed
from tests.db.helpers import new_game


async def test_jobs_run_in_order_on_one_thread(tmp_path: Path) -> None:
    worker = await DatabaseThread.connect(str(tmp_path / "w.db"), isolation_level=None)
    seen: list[tuple[int, int]] = []

    def job(number: int):
        def work(connection: sqlite3.Connection) -> int:
            seen.append((number, threading.get_ident()))
            return number * 2

        return work

    results = await asyncio.gather(*(worker.run(job(n)) for n in range(50)))
    await worker.close()
    assert results == [n * 2 for n in range(50)]
    assert [number for number, _ in seen] == list(range(50))
    assert len({thread for _, thread in seen}) == 1
    assert threading.get_ident() not in {thread for _, thread in seen}


async def test_an_error_reaches_its_caller_and_the_thread_goes_on(tmp_path: Path) -> None:
    worker = await DatabaseThread.connect(str(tmp_path / "w.db"), isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        await worker.run(lambda connection: connection.execute("SELEC nonsense"))
    assert await worker.run(lambda connection: connection.execute("SELECT 7").fetchone()) == (7,)
    await worker.close()


async def test_a_cancelled_caller_does_not_stop_its_transaction(tmp_path: Path) -> None:
    """The whole function runs to COMMIT even though nobody waits for it any more."""
    path = tmp_path / "w.db"
    worker = await DatabaseThread.connect(str(path), isolation_level=None)
    await worker.run(lambda connection: connection.execute("CREATE TABLE t (x)"))
    started = threading.Event()

    def slow_transaction(connection: sqlite3.Connection) -> None:
        connection.execute("BEGIN IMMEDIATE")
        started.set()
        threading.Event().wait(0.2)
        connection.execute("INSERT INTO t VALUES (1)")
        connection.execute("COMMIT")

    task = asyncio.create_task(worker.run(slow_transaction))
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    rows = await worker.run(lambda connection: connection.execute("SELECT x FROM t").fetchall())
    assert rows == [(1,)]
    await worker.close()


async def test_close_waits_for_queued_jobs_then_refuses(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    worker = await DatabaseThread.connect(str(path), isolation_level=None)
    await worker.run(lambda connection: connection.execute("PRAGMA journal_mode = WAL"))
    await worker.run(lambda connection: connection.execute("CREATE TABLE t (x)"))
    queued = [
        asyncio.create_task(
            worker.run(lambda connection, n=n: connection.execute("INSERT INTO t VALUES (?)", (n,)))
        )
        for n in range(20)
    ]
    await asyncio.sleep(0)  # the tasks submit their jobs before close submits its own
    await worker.close()
    await asyncio.gather(*queued)
    assert not worker._thread.is_alive()
    with pytest.raises(WorkerClosed):
        await worker.run(lambda connection: None)
    # The last connection closed cleanly: WAL checkpointed and removed, all rows there.
    assert not await asyncio.to_thread(os.path.exists, f"{path}-wal")
    check = sqlite3.connect(path)
    assert check.execute("SELECT count(*) FROM t").fetchone() == (20,)
    check.close()


async def test_a_failed_connect_stops_its_thread(tmp_path: Path) -> None:
    before = threading.active_count()
    with pytest.raises(sqlite3.OperationalError):
        await DatabaseThread.connect(str(tmp_path / "missing" / "x.db"))
    for _ in range(100):
        if threading.active_count() == before:
            break
        await asyncio.sleep(0.01)
    assert threading.active_count() == before


async def test_the_store_closes_cleanly_and_refuses_afterwards(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, 5)
    await store.close()
    assert not await asyncio.to_thread(os.path.exists, f"{db_path}-wal")
    with pytest.raises(StoreUnavailable):
        await store.load(5)
    await store.close()  # idempotent


def test_the_store_uses_no_third_party_driver() -> None:
    """The connection layer is the standard library's: nothing private of a driver."""
    source = Path(db.sqlite.__file__).read_text(encoding="utf-8")
    assert "aiosqlite" not in source
    assert "._conn)" not in source and "._execute" not in source
