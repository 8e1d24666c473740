"""The PostgreSQL driver: the core's operations (`db.core`) on an asyncpg connection.

Statements go out as the core wrote them, translated by `db.core.dialect.POSTGRES` (``$n``
placeholders, ``FOR UPDATE OF g``, the JSONB copy); asyncpg prepares and caches each
statement per connection. A `Batch` is sent one statement after the other (asyncpg has no
pipeline); `Compute` runs on a worker thread. A write runs in READ COMMITTED (the core locks
the game row), a read that needs one snapshot in REPEATABLE READ, read only. Used by the
store (`db.drivers.postgres`, on a pooled connection) and by the migrations (`db.migrations_pg`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeVar

import asyncpg
from asyncpg.transaction import Transaction as PgTransaction

from db.core.dialect import POSTGRES
from db.core.steps import Batch, Compute, Control, Query, Request, Step, Transaction

_T = TypeVar("_T")


def rows_changed(status: str) -> int:
    """The row count at the end of a command tag such as ``UPDATE 1``."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


async def query(connection: asyncpg.Connection, request: Query) -> Any:
    """Answer one query."""
    sql = POSTGRES.text(request)
    if request.many:
        await connection.executemany(sql, request.params)
        return None
    params = tuple(request.params)
    if request.fetch == "rows":
        return await connection.fetch(sql, *params)
    if request.fetch == "row":
        return await connection.fetchrow(sql, *params)
    if request.fetch == "value":
        return await connection.fetchval(sql, *params)
    status = await connection.execute(sql, *params)
    return rows_changed(status) if request.fetch == "count" else None


def _transaction(connection: asyncpg.Connection, kind: Control | Transaction) -> PgTransaction:
    if kind in ("read", Control.BEGIN_READ):
        return connection.transaction(isolation="repeatable_read", readonly=True)
    return connection.transaction()


async def run(
    connection: asyncpg.Connection, steps: Step[_T], transaction: Transaction = "none"
) -> _T:
    """Run a step function on ``connection`` in the transaction asked for (rolled back if
    it raises; an operation that yields `Control` opens and closes its own)."""
    opened: PgTransaction | None = None
    if transaction != "none":
        opened = _transaction(connection, transaction)
        await opened.start()
    answer: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                request: Request = steps.send(answer) if error is None else steps.throw(error)
            except StopIteration as stop:
                result: _T = stop.value
                break
            answer, error = None, None
            try:
                if isinstance(request, Query):
                    answer = await query(connection, request)
                elif isinstance(request, Batch):
                    answer = [await query(connection, item) for item in request.queries]
                elif isinstance(request, Compute):
                    answer = await asyncio.to_thread(request.function)
                elif request in (Control.BEGIN_WRITE, Control.BEGIN_READ):
                    opened = _transaction(connection, request)
                    await opened.start()
                elif opened is not None:
                    closing, opened = opened, None
                    await (closing.commit() if request is Control.COMMIT else closing.rollback())
            except Exception as raised:  # thrown back into the operation, which may handle it
                error = raised
        if opened is not None:
            await opened.commit()
            opened = None
        return result
    except BaseException:
        if opened is not None and not connection.is_closed():
            # The original error matters more than a failed rollback (a lost server).
            with contextlib.suppress(Exception):
                await opened.rollback()
        raise


__all__ = ["query", "rows_changed", "run"]
