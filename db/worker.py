"""One thread that owns one ``sqlite3`` connection; coroutines hand it whole functions.

Why not aiosqlite: it hops to its thread once per statement, and the only way to run a
whole transaction in one hop was its private ``Connection._execute``/``_conn``, which any
release may change. This is the part of it the store needs, on the standard library only:
a dedicated thread, a FIFO queue of jobs, and each job's result handed back to the
caller's event loop with ``call_soon_threadsafe``.

Guarantees the store relies on:

* jobs run one at a time, in the order they were submitted, always on the same thread
  (the connection never changes threads, so ``check_same_thread`` stays on);
* a job runs to its end even if the coroutine awaiting it is cancelled: a transaction is
  never left half-done by a caller going away;
* ``close`` runs after every job submitted before it, closes the connection (the last
  connection to close checkpoints the WAL and deletes the ``-wal`` file) and ends the
  thread; a job submitted after ``close`` raises :class:`WorkerClosed`.

The thread is a daemon: a process that exits without closing its store (a crash, a stop
that ran out of time) is not kept alive by it. Whatever transaction it had not committed
is rolled back by SQLite on the next open, exactly as after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

#: A job: the function, the loop of the coroutine waiting for it, its future, and whether
#: it may share a transaction with other such jobs (group commit).
_Job = tuple[
    Callable[[sqlite3.Connection], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]", bool
]

#: At most this many commits share one transaction (bounds what one failed COMMIT undoes
#: and how long the first of them waits for the last).
MAX_GROUP = 64

_names = itertools.count(1)


_group = threading.local()


def grouped() -> bool:
    """True while the calling thread runs a job inside a group commit's shared transaction.

    A groupable job's own BEGIN/COMMIT are then left to the worker.
    """
    return bool(getattr(_group, "active", False))


class WorkerClosed(RuntimeError):
    """The connection's thread was closed before this job was submitted."""


class DatabaseThread:
    """A ``sqlite3.Connection`` living on its own thread, fed through a queue."""

    def __init__(self) -> None:
        """Start the thread (no connection yet); use :meth:`connect` instead."""
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._connection: sqlite3.Connection | None = None
        self._closing = False
        # Closing and queueing are one step each, so no job lands behind the stop mark,
        # never to be answered (whichever thread queues it).
        self._queueing = threading.Lock()
        self._thread = threading.Thread(
            target=self._serve, name=f"arbitro-db-{next(_names)}", daemon=True
        )
        self._thread.start()

    @classmethod
    async def connect(cls, database: str, **options: Any) -> DatabaseThread:
        """Open ``sqlite3.connect(database, **options)`` on a new thread.

        Raises what ``sqlite3.connect`` raises; the thread is stopped in that case.
        """
        worker = cls()

        def open_connection(_: sqlite3.Connection) -> None:
            worker._connection = sqlite3.connect(database, **options)

        try:
            await worker._submit(open_connection)
        except BaseException:
            worker._closing = True
            worker._jobs.put(None)
            raise
        return worker

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closing

    async def run(
        self, work: Callable[[sqlite3.Connection], _T], *, groupable: bool = False
    ) -> _T:
        """Run ``work(connection)`` on the thread and return (or raise) its outcome.

        ``groupable`` work is one write transaction that may share its COMMIT (its fsync)
        with other groupable work queued at the same moment: the worker opens the
        transaction, runs each in turn, commits once, and only then answers each of them.
        Such work must open its transaction with a BEGIN only when ``grouped()`` is false
        (``db.sqlite._write_transaction`` does), and must be safe to run again: if one of
        the group fails after writing, the group is rolled back and each runs again alone.
        A failure of one is that caller's alone.
        """
        return await self._submit(work, groupable)

    async def close(self) -> None:
        """Finish the jobs already queued, close the connection, end the thread; idempotent."""
        def close_connection(connection: sqlite3.Connection) -> None:
            self._connection = None
            connection.close()

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._queueing:
            if self._closing:
                return
            self._closing = True
            self._jobs.put((close_connection, loop, future, False))
            self._jobs.put(None)
        await future
        # The thread has nothing left to do but return from its loop.
        self._thread.join(timeout=1.0)

    async def _submit(
        self, work: Callable[[sqlite3.Connection], _T], groupable: bool = False
    ) -> _T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()
        with self._queueing:
            if self._closing:
                raise WorkerClosed("the database connection is closed")
            self._jobs.put((work, loop, future, groupable))
        return await future

    def _serve(self) -> None:
        """The thread's loop: run each job, hand its outcome to its loop, until told to stop."""
        pending: list[_Job | None] = []  # taken from the queue while gathering a group
        while True:
            job = pending.pop(0) if pending else self._jobs.get()
            if job is None:
                break
            if job[3]:
                group = [job]
                # Whatever else is ALREADY queued joins it; nothing waits for company.
                while len(group) < MAX_GROUP and not pending:
                    try:
                        follower = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if follower is not None and follower[3]:
                        group.append(follower)
                    else:
                        pending.append(follower)  # runs next, in its turn
                if len(group) > 1:
                    self._run_group(group)
                    del group, job
                    continue
            self._run_one(job)
            del job  # hold nothing between jobs
        if self._connection is not None:  # stopped without a close job (failed open)
            self._connection.close()
            self._connection = None

    def _run_one(self, job: _Job) -> None:
        work, loop, future, _ = job
        result: Any = None
        error: BaseException | None = None
        try:
            result = work(self._connection)  # type: ignore[arg-type]
        except BaseException as raised:  # handed to the caller, who decides
            error = raised
        deliver(loop, future, result, error)

    def _run_group(self, group: list[_Job]) -> None:
        """Several write transactions as one: one BEGIN, each job in turn, one COMMIT.

        Nobody is answered before the COMMIT returned: an acknowledged command is durable
        exactly as when it commits alone. A job that fails before writing anything (a
        version conflict, a duplicate: the store checks before it writes) fails alone and
        the group goes on. A job that fails after writing would leave part of itself in the
        shared transaction: the whole group is rolled back and every job of it runs again
        alone, in its own transaction, in order (nobody was answered yet, so nothing is
        lost). No savepoint per job, then: each statement releases the GIL and waits to
        get it back, and two more per commit cost a fifth of the group's throughput. If
        the COMMIT itself fails, every job that had succeeded gets that error.
        """
        connection = self._connection
        assert connection is not None
        try:
            connection.execute("BEGIN IMMEDIATE")
        except BaseException:  # cannot open the shared transaction: each on its own
            for job in group:
                self._run_one(job)
            return
        outcomes: list[tuple[Any, BaseException | None]] = []
        tainted = False
        _group.active = True
        try:
            for work, *_ in group:
                written = connection.total_changes
                try:
                    outcomes.append((work(connection), None))
                except BaseException as raised:
                    outcomes.append((None, raised))
                    if connection.total_changes != written or not connection.in_transaction:
                        tainted = True
                        break
        finally:
            _group.active = False
        if tainted:
            with contextlib.suppress(sqlite3.Error):
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
            for job in group:
                self._run_one(job)
            return
        try:
            connection.execute("COMMIT")
        except BaseException as raised:
            with contextlib.suppress(sqlite3.Error):
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
            outcomes = [(None, error or raised) for _, error in outcomes]
        # One wake-up per event loop for the whole group, not one per commit.
        by_loop: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
        for (_, loop, future, _), (result, error) in zip(group, outcomes, strict=True):
            by_loop.setdefault(loop, []).append((future, result, error))
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody to tell
                loop.call_soon_threadsafe(_settle_all, settled)


#: A job's future and what settles it: its result, or the error it raised.
_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]


def _settle_all(outcomes: list[_Outcome]) -> None:
    """On the futures' loop: settle each, unless its caller stopped waiting."""
    for future, result, error in outcomes:
        if future.done():  # cancelled: the work is done all the same, nobody reads it
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


def deliver(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    result: Any,
    error: BaseException | None,
) -> None:
    """Settle ``future`` on its own loop, unless its caller stopped waiting."""
    # RuntimeError: the caller's loop is closed, nobody is left to tell.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle_all, [(future, result, error)])


__all__ = ["MAX_GROUP", "DatabaseThread", "WorkerClosed", "deliver", "grouped"]
