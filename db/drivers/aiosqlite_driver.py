"""The SQLite driver: the core's operations on one aiosqlite connection, with group commit.

Only aiosqlite's public API is used (``aiosqlite.connect``, ``Connection.execute``,
``execute_fetchall``, ``executemany``, ``close``, the ``in_transaction`` and
``total_changes`` properties, ``Cursor.rowcount``); a test reads this file for anything
private. The connection is opened with ``isolation_level=None`` and the driver issues
``BEGIN IMMEDIATE``/``BEGIN``/``COMMIT`` itself.

One writer task owns the connection and runs the operations queued to it, one after the
other, in the order they came (an aiosqlite connection is one SQLite connection: two
transactions on it cannot interleave). Each statement is one await, a hop to aiosqlite's
thread and back; so the operations send few: a `Batch` is queued whole before its first
answer is awaited (one hop for all of it), and a read transaction's ``BEGIN`` goes with its
first reads. A commit is three hops: ``BEGIN IMMEDIATE`` with the head read (a read: it
goes with its ``BEGIN``, queued behind it on aiosqlite's thread, so it runs with the lock
held), the writes, ``COMMIT``.

Group commit: a commit (`Operation.groupable`) takes with it every other commit ALREADY
queued behind it (at most `MAX_GROUP`; nothing waits for company), runs ``BEGIN IMMEDIATE``,
each commit's statements in turn, one ``COMMIT`` (one fsync), and only then answers each
caller: an acknowledged command is as durable as one committed alone. A commit that fails
before writing (a version conflict, a game that ended: the operations check before they
write, and ``total_changes`` tells that nothing was written) fails alone and the group goes
on; one that fails after writing would leave part of itself in the shared transaction, so
the group is rolled back and each of its commits runs again alone, in order (nobody was
answered yet). If the ``COMMIT`` fails, every caller of the group gets the error.

A caller that stops waiting (cancelled) does not stop its operation: the writer task runs
it to ``COMMIT`` or ``ROLLBACK`` all the same, so no transaction is left half-done, and a
retry with the same interaction id finds the result. `close` runs after everything queued
before it; an operation submitted afterwards is refused (`DriverClosed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any, TypeVar

import aiosqlite

from db.core.dialect import SQLITE
from db.core.steps import Batch, Compute, Control, Operation, Query, Request, Step, rows_answer

_T = TypeVar("_T")

#: At most this many commits share one transaction (bounds what one failed COMMIT undoes
#: and how long the first of them waits for the last).
MAX_GROUP = 64

_BEGIN = {"write": "BEGIN IMMEDIATE", "read": "BEGIN"}
_CONTROL = {
    Control.BEGIN_WRITE: "BEGIN IMMEDIATE",
    Control.BEGIN_READ: "BEGIN",
    Control.COMMIT: "COMMIT",
    Control.ROLLBACK: "ROLLBACK",
}

_Item = tuple[Operation[Any], "asyncio.Future[Any]"]


class DriverClosed(RuntimeError):
    """The store was closed before this operation was submitted."""


def _reads_only(request: Request) -> bool:
    """Whether a request only reads (so it may go out with its transaction's BEGIN)."""
    queries = request.queries if isinstance(request, Batch) else (request,)
    return all(
        isinstance(query, Query)
        and not query.many
        and query.fetch in ("rows", "row", "value")
        and query.sql.lstrip()[:6].upper() == "SELECT"
        for query in queries
    )


async def connect(database: str, **options: Any) -> aiosqlite.Connection:
    """``aiosqlite.connect(database, **options)``, its thread a daemon.

    aiosqlite makes its connection thread when the connection object is made, and a new
    thread inherits the daemon flag of the thread that made it; made on a short-lived
    daemon thread, the connection's thread is a daemon too. A process that exits without
    closing its store (a crash, a stop that ran out of time) is then not held up by it;
    SQLite rolls back whatever was not committed, as after a crash.
    """
    made: list[aiosqlite.Connection] = []
    maker = threading.Thread(
        target=lambda: made.append(aiosqlite.connect(database, **options)), daemon=True
    )
    maker.start()
    maker.join()
    return await made[0]


class SqliteDriver:
    """Runs the core's operations on one aiosqlite connection (see the module's text)."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        """Own ``connection`` (autocommit mode, configured) from now on."""
        self._connection = connection
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._closing = False
        self._writer = asyncio.get_running_loop().create_task(self._serve())

    @property
    def closed(self) -> bool:
        """True once `close` was called."""
        return self._closing

    async def submit(self, operation: Operation[_T]) -> _T:
        """Queue ``operation`` and wait for its outcome."""
        if self._closing:
            raise DriverClosed("the database connection is closed")
        future: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((operation, future))
        return await future

    async def close(self) -> None:
        """Finish what is queued, close the connection (the last connection to close
        checkpoints the WAL and removes it), end the writer task; idempotent."""
        if self._closing:
            return
        self._closing = True
        self._queue.put_nowait(None)
        # Shielded: a caller giving up on close must not stop the writer half-way.
        await asyncio.shield(self._writer)

    # ---- the writer task ------------------------------------------------------------------

    async def _serve(self) -> None:
        pending: deque[_Item | None] = deque()  # taken from the queue while gathering a group
        try:
            while True:
                item = pending.popleft() if pending else await self._queue.get()
                if item is None:
                    break
                kind = _group_kind(item[0])
                if kind is not None:
                    group = [item]
                    # Whatever else is ALREADY queued joins it; nothing waits for company.
                    while len(group) < MAX_GROUP and not pending and not self._queue.empty():
                        follower = self._queue.get_nowait()
                        if follower is not None and _group_kind(follower[0]) == kind:
                            group.append(follower)
                        else:
                            pending.append(follower)  # runs next, in its turn
                    if len(group) > 1:
                        if kind == "write":
                            await self._run_group(group)
                        else:
                            await self._run_reads(group)
                        continue
                await self._run_one(*item)
        finally:
            await self._connection.close()
            for left in (*pending, *self._drain()):
                if left is not None and not left[1].done():
                    left[1].set_exception(DriverClosed("the database connection is closed"))

    def _drain(self) -> list[_Item | None]:
        left: list[_Item | None] = []
        while not self._queue.empty():
            left.append(self._queue.get_nowait())
        return left

    async def _run_one(self, operation: Operation[Any], future: asyncio.Future[Any]) -> None:
        """One operation in its own transaction, its caller answered after a write's
        COMMIT, or as soon as a read has its answer (its snapshot is ended just behind)."""
        connection = self._connection
        if (
            operation.on_expected_head is not None
            and not connection.in_transaction
            and await self._run_on_expected_head(operation, future)
        ):
            return
        begin = None if operation.one_statement else _BEGIN.get(operation.transaction)
        try:
            result = await self._drive(operation.start(), begin)
            if operation.transaction == "write" and connection.in_transaction:
                await connection.execute("COMMIT")
        except Exception as error:  # handed to the caller, who decides
            await self._rollback()
            _settle(future, None, error)
            return
        except BaseException:
            await self._rollback()
            raise
        _succeeded(operation, future, result)
        if connection.in_transaction:
            # A read's snapshot: nothing to make durable, so its caller did not wait for
            # this hop; the next operation does (it is queued behind it all the same).
            try:
                await connection.execute("COMMIT")
            except Exception:
                await self._rollback()

    async def _run_on_expected_head(
        self, operation: Operation[Any], future: asyncio.Future[Any]
    ) -> bool:
        """A write alone on the head it expects: a deferred ``BEGIN`` with its writes, the
        first of them the guard that proves the head (one trip), then ``COMMIT`` (two trips
        where the usual write takes three). Where the operation is one statement that proves
        its head and makes every write (`Operation.expected_head_in_one_statement`), that
        statement alone, in its own transaction: one function sent to aiosqlite's thread
        where the deferred ``BEGIN``, the five writes and the ``COMMIT`` are seven.

        Safe because a deferred ``BEGIN`` takes no lock (it fails only inside a transaction,
        which the writer never leaves open: checked before), and a transaction whose first
        statement writes takes the write lock on the latest snapshot, so its guard reads
        what every later statement of it sees. True when it committed and its caller was answered;
        False when it failed, nothing of it kept: the caller runs it as usual.
        """
        connection = self._connection
        start = operation.on_expected_head
        if start is None:
            return False
        try:
            if operation.expected_head_in_one_statement:
                # Its own transaction, made durable as it returns: one trip in all.
                result = await self._drive(start())
            else:
                result = await self._drive(start(), "BEGIN", writes=True)
                await connection.execute("COMMIT")
        except BaseException as raised:
            await self._rollback()
            if isinstance(raised, Exception):  # not the expected head, or a write failed
                return False
            raise
        _succeeded(operation, future, result)
        return True

    async def _run_group(self, group: list[_Item]) -> None:
        """Several commits as one transaction: one BEGIN, the commits, one COMMIT."""
        connection = self._connection
        try:
            await connection.execute("BEGIN IMMEDIATE")
        except Exception:  # cannot open the shared transaction: each on its own
            for item in group:
                await self._run_one(*item)
            return
        operations = [operation for operation, _ in group]
        channels = {operation.channel_id for operation in operations}
        if None not in channels and len(channels) == len(operations):
            outcomes, tainted = await self._lockstep(operations)
        else:  # two commits of one channel: the second must see the first's writes
            outcomes, tainted = await self._one_by_one(operations)
        if tainted:
            await self._rollback()
            for item in group:
                await self._run_one(*item)
            return
        try:
            await connection.execute("COMMIT")
        except Exception as raised:
            await self._rollback()
            outcomes = [(None, error or raised) for _, error in outcomes]
        for (operation, future), (result, error) in zip(group, outcomes, strict=True):
            if error is None and operation.after is not None:
                operation.after(result)
            _settle(future, result, error)

    async def _run_reads(self, group: list[_Item]) -> None:
        """Several snapshot reads in one snapshot, advanced together: their statements in
        a handful of hops instead of two or three each. Each caller gets its own answer or
        error (nothing is written, nothing to undo)."""
        connection = self._connection
        try:
            await connection.execute("BEGIN")
        except Exception:
            for item in group:
                await self._run_one(*item)
            return
        try:
            outcomes, tainted = await self._lockstep([operation for operation, _ in group])
        except BaseException:
            await self._rollback()
            raise
        if tainted:  # a "read" that wrote after all: each on its own, as it asked
            await self._rollback()
            for item in group:
                await self._run_one(*item)
            return
        for (_, future), (result, error) in zip(group, outcomes, strict=True):
            _settle(future, result, error)
        try:
            await connection.execute("COMMIT")
        except Exception:
            await self._rollback()

    async def _one_by_one(
        self, operations: list[Operation[Any]]
    ) -> tuple[list[tuple[Any, Exception | None]], bool]:
        """The group's commits in turn; tainted when one failed after writing."""
        connection = self._connection
        outcomes: list[tuple[Any, Exception | None]] = []
        for operation in operations:
            written = connection.total_changes
            try:
                outcomes.append((await self._drive(operation.start()), None))
            except Exception as raised:
                outcomes.append((None, raised))
                if connection.total_changes != written or not connection.in_transaction:
                    return outcomes, True
        return outcomes, False

    async def _lockstep(
        self, operations: list[Operation[Any]]
    ) -> tuple[list[tuple[Any, Exception | None]], bool]:
        """The group's commits (of distinct channels) advanced together, round by round.

        Each round answers every commit's next request at once: the reads of all of them
        in one hop, and their writes merged by statement (one ``executemany`` for the 50
        games rows, one for the 50 states…), so a group of 50 costs a handful of hops
        instead of two per commit. Commits of distinct channels read and write distinct
        rows; the one thing they share, an interaction id reused across channels, shows as
        the unique index failing a merged write, which taints the group like any failure
        after writing: rolled back, each commit run again alone. A commit refused before it
        wrote (a conflict, a duplicate, an ended game) fails alone.
        """
        steps = [operation.start() for operation in operations]
        outcomes: list[tuple[Any, Exception | None] | None] = [None] * len(steps)
        wrote = [False] * len(steps)
        answers: list[Any] = [None] * len(steps)
        errors: list[Exception | None] = [None] * len(steps)
        while True:
            requests: dict[int, Request] = {}
            for index, step in enumerate(steps):
                if outcomes[index] is not None:
                    continue
                try:
                    error = errors[index]
                    requests[index] = (
                        step.send(answers[index]) if error is None else step.throw(error)
                    )
                except StopIteration as stop:
                    outcomes[index] = (stop.value, None)
                except Exception as raised:
                    outcomes[index] = (None, raised)
                    if wrote[index]:
                        return [o or (None, raised) for o in outcomes], True
            if not requests:
                return [o for o in outcomes if o is not None], False
            answers = [None] * len(steps)
            errors = [None] * len(steps)
            writing = {
                i: r
                for i, r in requests.items()
                if not isinstance(r, Compute) and not _reads_only(r)
            }
            await self._answer_all(
                {i: r for i, r in requests.items() if i not in writing}, answers, errors
            )
            if writing:
                merged = {i: r for i, r in writing.items() if not isinstance(r, Control)}
                if len(merged) < len(writing):
                    await self._answer_all(writing, answers, errors)
                elif not await self._merged_writes(merged, answers):
                    return [o or (None, None) for o in outcomes], True
                for index in writing:
                    wrote[index] = True

    async def _answer_all(
        self,
        requests: Mapping[int, Request],
        answers: list[Any],
        errors: list[Exception | None],
    ) -> None:
        """Answer several commits' requests together: every statement of every one queued at
        once (one task per statement, in order), then each request's answer assembled."""
        if not requests:
            return
        if len(requests) == 1:
            ((index, request),) = requests.items()
            try:
                answers[index] = await self._answer(request)
            except Exception as raised:
                errors[index] = raised
            return
        sent: dict[int, list[asyncio.Future[Any]]] = {}
        for index, request in requests.items():
            if isinstance(request, Query):
                sent[index] = [asyncio.ensure_future(self._query(request))]
            elif isinstance(request, Batch):
                sent[index] = [asyncio.ensure_future(self._query(q)) for q in request.queries]
            else:
                sent[index] = [asyncio.ensure_future(self._answer(request))]
        await asyncio.wait([task for tasks in sent.values() for task in tasks])
        for index, tasks in sent.items():
            failures = [error for task in tasks if (error := task.exception()) is not None]
            if failures:
                error = failures[0]
                if not isinstance(error, Exception):
                    raise error
                errors[index] = error
            elif isinstance(requests[index], Batch):
                answers[index] = [task.result() for task in tasks]
            else:
                answers[index] = tasks[0].result()

    async def _merged_writes(
        self, writing: Mapping[int, Query | Batch], answers: list[Any]
    ) -> bool:
        """The write batches of several commits, one ``executemany`` per statement, in the
        order the statements come in each batch; False if that order is not one for all of
        them, or anything failed (the caller then rolls the group back)."""
        order: dict[str, int] = {}
        merged: list[tuple[Query, list[tuple[int, int, Any]]]] = []
        shapes: dict[int, tuple[bool, int]] = {}
        for index, request in writing.items():
            queries = request.queries if isinstance(request, Batch) else (request,)
            shapes[index] = (isinstance(request, Batch), len(queries))
            last = -1
            for position, query in enumerate(queries):
                if query.many or query.fetch not in ("none", "count"):
                    return False
                slot = order.get(query.sql)
                if slot is None:
                    slot = order[query.sql] = len(merged)
                    merged.append((query, []))
                if slot <= last:
                    return False  # this batch's order differs from another's
                last = slot
                merged[slot][1].append((index, position, query.params))
        sent = [
            asyncio.ensure_future(
                self._connection.executemany(SQLITE.text(query), [p for _, _, p in rows])
            )
            for query, rows in merged
        ]
        await asyncio.wait(sent)
        if any(task.exception() is not None for task in sent):
            return False
        results: dict[int, list[Any]] = {i: [None] * n for i, (_, n) in shapes.items()}
        for (query, rows), task in zip(merged, sent, strict=True):
            if query.fetch == "count":
                # A summed count: each statement changed one row, or none is told it did
                # (its commit then reports a conflict after writing: the group runs again).
                each = 1 if task.result().rowcount == len(rows) else 0
                for index, position, _ in rows:
                    results[index][position] = each
        for index, (is_batch, _) in shapes.items():
            answers[index] = results[index] if is_batch else results[index][0]
        return True

    async def _rollback(self) -> None:
        if self._connection.in_transaction:
            # The original error matters more than a failed rollback (e.g. on a dead disk).
            with contextlib.suppress(sqlite3.Error):
                await self._connection.execute("ROLLBACK")

    # ---- one operation's steps --------------------------------------------------------------

    async def _drive(
        self, steps: Step[_T], begin: str | None = None, *, writes: bool = False
    ) -> _T:
        """Answer each request of ``steps`` until it returns; ``begin`` opens the
        transaction (sent with the first request when that only reads, or when ``writes``:
        a deferred ``BEGIN``, which cannot fail for a lock)."""
        answer: Any = None
        error: Exception | None = None
        while True:
            try:
                request = steps.send(answer) if error is None else steps.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            answer, error = None, None
            try:
                if begin is not None:
                    answer = await self._begin_with(begin, request, writes)
                    begin = None
                else:
                    answer = await self._answer(request)
            except Exception as raised:  # thrown back into the operation, which may handle it
                error = raised

    async def _begin_with(self, begin: str, request: Request, writes: bool = False) -> Any:
        if not writes and not _reads_only(request):
            await self._connection.execute(begin)
            return await self._answer(request)
        if isinstance(request, Query | Batch):
            # The BEGIN and every statement queued at once, as tasks of one level: no task
            # and no gathering of its own for the batch (the commit on a kept head's trip).
            queries = request.queries if isinstance(request, Batch) else (request,)
            sent = [
                asyncio.ensure_future(self._connection.execute(begin)),
                *(asyncio.ensure_future(self._query(query)) for query in queries),
            ]
            answers = await asyncio.gather(*sent, return_exceptions=True)
            for answer in answers:
                if isinstance(answer, BaseException):
                    raise answer
            return answers[1:] if isinstance(request, Batch) else answers[1]
        opening = asyncio.ensure_future(self._connection.execute(begin))
        reading = asyncio.ensure_future(self._answer(request))
        outcome = await asyncio.gather(opening, reading, return_exceptions=True)
        for part in outcome:
            if isinstance(part, BaseException):
                raise part
        return outcome[1]

    async def _answer(self, request: Request) -> Any:
        if isinstance(request, Query):
            return await self._query(request)
        if isinstance(request, Batch):
            if len(request.queries) == 1:
                return [await self._query(request.queries[0])]
            # Queued whole before the first answer is awaited: one hop for the batch.
            sent = [asyncio.ensure_future(self._query(query)) for query in request.queries]
            answers = await asyncio.gather(*sent, return_exceptions=True)
            for answer in answers:
                if isinstance(answer, BaseException):
                    raise answer
            return answers
        if isinstance(request, Compute):
            return await asyncio.to_thread(request.function)
        await self._connection.execute(_CONTROL[request])
        return None

    async def _query(self, query: Query) -> Any:
        connection = self._connection
        sql = SQLITE.text(query)
        if query.many:
            await connection.executemany(sql, query.params)
            return None
        if query.fetch == "count":
            cursor = await connection.execute(sql, query.params)
            return cursor.rowcount
        rows = await connection.execute_fetchall(sql, query.params)
        return rows_answer(list(rows), query.fetch)


def _group_kind(operation: Operation[Any]) -> str | None:
    """Which group an operation may join: commits ("write", one transaction and one fsync
    for them all) or snapshot reads of a game ("read", one snapshot for them all)."""
    if operation.groupable:
        return "write"
    if operation.transaction == "read" and operation.channel_id is not None:
        return "read"
    return None


def _succeeded(operation: Operation[Any], future: asyncio.Future[Any], result: Any) -> None:
    """After an operation's COMMIT: the store's work with its result, then its caller."""
    if operation.after is not None:
        operation.after(result)
    _settle(future, result, None)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Settle ``future`` unless its caller stopped waiting (the work is done all the same)."""
    if future.done():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


__all__ = ["MAX_GROUP", "DriverClosed", "SqliteDriver", "connect"]
