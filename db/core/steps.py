"""What an operation yields to its driver, and how a driver runs it.

An operation is a generator (a *step function*): it yields requests and receives their
answers, and returns its value (or raises a store error). It performs no I/O, so the very
same code runs on aiosqlite, asyncpg and a plain ``sqlite3`` connection, and a test can run
it against a scripted fake driver to see the statements it issues and what it makes of
given rows (tests/db/core/test_core.py).

Requests:

* `Query`: one statement in the neutral dialect (``?`` placeholders, ``{macro}`` words that
  `db.core.dialect.Dialect.translate` fills in), its parameters, and what to send back:
  every row, the first row, the first column of the first row, or the number of rows changed;
* `Batch`: statements sent together, answered as a list in order. A driver may queue them all
  before waiting for the first answer (aiosqlite: one hop to its thread instead of one per
  statement); if one fails the operation fails, and since it runs in a transaction that is
  rolled back nothing of it stays;
* `Compute`: a pure function (hashing a history, diffing two documents) that the driver runs
  off the event loop; its exception is thrown back into the operation;
* `Control`: BEGIN (write or snapshot read), COMMIT, ROLLBACK, for the rare operation that
  runs several transactions (the migration runner). Every other operation declares its one
  transaction in `Operation.transaction` and the driver opens and closes it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

_T = TypeVar("_T")

#: What a `Query` answers: all rows, the first row (or None), the first column of the first
#: row (or None), the number of rows it changed, or nothing.
Fetch = Literal["rows", "row", "value", "count", "none"]


@dataclass(frozen=True, slots=True)
class Query:
    """One statement: neutral SQL, its parameters and the answer wanted.

    ``many``: ``params`` is a sequence of parameter tuples, one execution each
    (``executemany``); the answer is nothing. ``raw``: the text goes out as it is, not
    translated (a migration's script, whose text is already the backend's).
    """

    sql: str
    params: Sequence[Any] = ()
    fetch: Fetch = "none"
    many: bool = False
    raw: bool = False


@dataclass(frozen=True, slots=True)
class Batch:
    """Statements sent together; answered by the list of their answers, in order."""

    queries: tuple[Query, ...]


@dataclass(frozen=True, slots=True)
class Compute:
    """Pure CPU work the driver runs off the event loop; answered by its return value."""

    function: Callable[[], Any]


class Control(enum.Enum):
    """Transaction control for an operation that manages its own transactions."""

    BEGIN_WRITE = "begin write"
    BEGIN_READ = "begin read"
    COMMIT = "commit"
    ROLLBACK = "rollback"


Request = Query | Batch | Compute | Control

#: A step function's generator: yields requests, receives answers, returns ``_T``.
Step = Generator[Request, Any, _T]

#: The transaction a driver wraps around an operation: a write (SQLite ``BEGIN
#: IMMEDIATE``; PostgreSQL READ COMMITTED, rows locked by the operation), one snapshot for
#: several reads (SQLite ``BEGIN``; PostgreSQL REPEATABLE READ, read only), or none (a single
#: statement, or an operation that yields its own `Control`).
Transaction = Literal["write", "read", "none"]


@dataclass(frozen=True, slots=True)
class Operation(Generic[_T]):
    """A store operation ready for a driver: how to start its steps, in which transaction.

    ``start`` makes a fresh generator each call: a grouped commit that has to run again
    alone (see `db.drivers.sqlite`) starts over. ``groupable`` writes (commits of commands) may
    share one transaction and one fsync with others queued at the same moment; such an
    operation must check before it writes, so that a refusal leaves nothing behind.
    """

    start: Callable[[], Step[_T]]
    transaction: Transaction = "none"
    groupable: bool = False
    channel_id: int | None = None
    #: After the COMMIT: work the store does with the result (the verified head advanced).
    after: Callable[[_T], None] | None = None
    #: A "read" of one statement: alone, it needs no transaction (a statement is its own
    #: snapshot), so a driver may send it without BEGIN and COMMIT; it still joins a group
    #: of reads.
    one_statement: bool = False
    #: A write's variant for when it runs alone, on a head it expects (`db.chain.head_cache`):
    #: its first request reads what it relies on AND writes, in one trip, its writes
    #: conditional on nothing but that read. A driver that can open a transaction which
    #: takes no lock until it writes, and whose writes fail if anyone committed since its
    #: read (SQLite's deferred BEGIN in WAL mode), runs it in such a transaction; if it
    #: raises anything, the driver rolls back and runs ``start`` as usual. Others ignore it.
    on_expected_head: Callable[[], Step[_T]] | None = None
    #: ``on_expected_head`` is one statement that makes every write and proves its head by
    #: itself (`db.core.games.append_on_expected_head` on SQLite): a driver sends it alone,
    #: in its own transaction, with no BEGIN and no COMMIT around it.
    expected_head_in_one_statement: bool = False


def read(query: Query) -> Operation[Any]:
    """An operation of one statement, outside any transaction."""

    def steps() -> Step[Any]:
        return (yield query)

    return Operation(steps)


def drive_sync(
    steps: Step[_T],
    execute: Callable[[Query], Any],
    control: Callable[[Control], None] | None = None,
) -> _T:
    """Run a step function synchronously: ``execute`` answers each query, `Compute` runs
    in place. For drivers that block anyway (`db.drivers.sqlite_sync`, the fake drivers of
    tests)."""
    answer: Any = None
    error: BaseException | None = None
    while True:
        try:
            request = steps.send(answer) if error is None else steps.throw(error)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        answer, error = None, None
        try:
            if isinstance(request, Query):
                answer = execute(request)
            elif isinstance(request, Batch):
                answer = [execute(query) for query in request.queries]
            elif isinstance(request, Compute):
                answer = request.function()
            elif control is None:
                raise RuntimeError(f"{request} needs a driver that manages transactions")
            else:
                control(request)
        except Exception as raised:  # thrown back into the operation, which may handle it
            error = raised


def rows_answer(rows: Sequence[Any], fetch: Fetch, changed: int = 0) -> Any:
    """The answer of a query from the rows it returned (``changed``: rows it changed)."""
    if fetch == "rows":
        return list(rows)
    if fetch == "row":
        return rows[0] if rows else None
    if fetch == "value":
        return rows[0][0] if rows else None
    if fetch == "count":
        return changed
    return None


__all__ = [
    "Batch",
    "Compute",
    "Control",
    "Fetch",
    "Operation",
    "Query",
    "Request",
    "Step",
    "Transaction",
    "drive_sync",
    "read",
    "rows_answer",
]
