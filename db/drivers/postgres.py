"""The server store: `GameStore` on PostgreSQL through asyncpg.

Chosen by ``ARBITRO_DB=postgresql://…`` (see `db.open.open_store`) when several bot
processes, or several hosts, share the games. The operations are the core's (`db.core`,
shared with SQLite), run by `db.drivers.pg_driver` on a pooled connection; the invariants are
docs/storage.md's:

* one transaction per write: the game row is locked (``SELECT … FOR UPDATE OF g``) and its
  version compared with the one the caller read, so two processes writing one channel
  serialize on that row and the loser gets `VersionConflict`, never a lost update;
* ``events.interaction_id`` is unique and looked up under the same row lock, so a retried
  interaction takes effect once even when the retry runs in another process;
* the hash chain is the same recipe over the same canonical JSON texts, so a game copied
  between backends (``arbitro db copy``) verifies on both;
* documents are stored as JSONB for queries, next to the canonical text that was hashed
  (JSONB normalises key order and number formats, so it cannot reproduce the hashed text;
  every read and every hash uses the text).

What is PostgreSQL's own is here: the pool, the outage log (`db.drivers.outage`) and turning
asyncpg's exceptions into the store's errors.
"""

from __future__ import annotations

from functools import partial
from typing import Self, TypeVar

import asyncpg

from db import migrations_pg
from db.core.audit import audit
from db.core.dialect import POSTGRES
from db.core.steps import Operation
from db.drivers.outage import watch_pool
from db.drivers.pg_driver import run
from db.errors import CorruptRecord, SchemaError, StoreError, StoreUnavailable
from db.store import CoreStore

_T = TypeVar("_T")

DEFAULT_POOL_SIZE = 10

_INTERACTION_CONSTRAINT = "events_interaction_id_key"
# What a server that is down (or going down) raises: the connection, not the statement.
_UNREACHABLE = (
    OSError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{host}"


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Pool release hook: nothing to reset (the store sets no session state), which saves
    asyncpg's default RESET ALL round trip on every operation. asyncpg still rolls back a
    transaction left open (a cancelled caller) before calling this."""


def translate(error: Exception, channel_id: int | None) -> StoreError:
    """Turn a driver exception into a storage error that names the channel."""
    if isinstance(error, asyncpg.IntegrityConstraintViolationError | asyncpg.DataError):
        return CorruptRecord(channel_id, str(error))
    if isinstance(error, asyncpg.RaiseError):
        return CorruptRecord(channel_id, str(error))
    return StoreUnavailable(str(error) or type(error).__name__, channel_id)


class PostgresStore(CoreStore):
    """`GameStore` on a PostgreSQL database, through a pool of asyncpg connections."""

    dialect = POSTGRES

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        """Wrap an open pool on a migrated database; use `PostgresStore.open` instead."""
        super().__init__()
        self._pool = pool
        self._closed = False
        self.url = url
        self.path = redact(url)
        # While the server is down: one log line per outage, not asyncpg's traceback per
        # reconnection attempt (db/drivers/outage.py).
        self._outages = watch_pool(self.path)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        create: bool = True,
        migrate: bool = True,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> Self:
        """Connect to the database at ``url`` (creating the schema and migrating by default).

        The database itself must exist (``createdb``). ``create=False`` refuses one without
        an Arbitro schema; ``migrate=False`` refuses an out-of-date schema. Raises
        `SchemaError` for a database of another program or newer than this code, and
        `StoreUnavailable` when the server cannot be reached.
        """
        where = redact(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=max(1, pool_size),
                command_timeout=60,
                reset=_keep_session,
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreUnavailable(f"{where}: {error}") from error
        try:
            async with pool.acquire() as connection:
                version = await migrations_pg.inspect_schema(connection, where)
                latest = migrations_pg.latest_version()
                if version == 0 and not create:
                    raise SchemaError(where, "no Arbitro database here")
                if version < latest and not migrate:
                    raise SchemaError(
                        where,
                        "no Arbitro database here"
                        if version == 0
                        else f"schema version {version} is older than {latest}; "
                        "run `arbitro db migrate`",
                    )
                if version < latest:
                    await migrations_pg.apply_migrations(connection, where)
                await migrations_pg.check_tables(connection, where)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    async def close(self) -> None:
        """Close every pooled connection; idempotent."""
        if not self._closed:
            await self.long_histories.stop()
            self._closed = True
            await self._pool.close()

    async def _execute(self, operation: Operation[_T]) -> _T:
        """Run ``operation`` on a pooled connection, translating driver errors.

        A write whose interaction id collides with one committed concurrently in another
        channel (the unique index, not the row lock, caught it) is run once more: the
        second run finds the stored event and reports `InteractionReused` or a duplicate.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed", operation.channel_id)
        for attempt in range(2):
            try:
                async with self._pool.acquire() as connection:
                    result = await run(connection, operation.start(), operation.transaction)
                self._outages.answered()
            except asyncpg.UniqueViolationError as error:
                if error.constraint_name == _INTERACTION_CONSTRAINT and attempt == 0:
                    continue
                raise translate(error, operation.channel_id) from error
            except _UNREACHABLE as error:
                self._outages.failed(error)
                raise translate(error, operation.channel_id) from error
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                raise translate(error, operation.channel_id) from error
            if operation.after is not None:
                operation.after(result)
            return result
        raise AssertionError("unreachable")

    # ---- PostgreSQL's own ------------------------------------------------------------------

    async def schema_version(self) -> int:
        """The schema version of the database."""
        async with self._pool.acquire() as connection:
            return await migrations_pg.read_version(connection)

    async def check(self) -> list[str]:
        """Audit the database (`db.core.audit`, in one REPEATABLE READ snapshot, with the
        JSONB copies compared with their texts); an empty list means all is well.
        (Referential integrity is the server's: foreign keys cannot be switched off per
        connection as in SQLite.)"""
        return await self._run(partial(audit, jsonb=True), "read")


__all__ = ["DEFAULT_POOL_SIZE", "PostgresStore", "redact", "translate"]
