"""The embedded store: `GameStore` on one SQLite file, through aiosqlite.

The operations are the core's (`db.core`, shared with PostgreSQL), run by
`db.drivers.aiosqlite_driver.SqliteDriver`: one aiosqlite connection, one writer task, group commit.
What is SQLite's own is here: opening a file (recognising it as ours, WAL, the pragmas,
migrating it: on a worker thread with a plain ``sqlite3`` connection of its own, before the
aiosqlite connection opens), WAL checkpoints on a thread of their own (`db.drivers.checkpoint`), the
online backup, and turning SQLite's exceptions into the store's errors (a damaged file is
one line: `DamagedFile`).

The store does not lock channels: the application core serializes a channel's commands
with its own lock, and the store guards every write with the version the caller read
(``VersionConflict`` if it moved), which also covers other processes writing the file.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from functools import partial
from typing import Self, TypeVar

from db import migrations
from db.core.dialect import SQLITE
from db.core.migrate import apply_migrations
from db.core.steps import Operation, Query, Step
from db.drivers.aiosqlite_driver import DriverClosed, SqliteDriver, connect
from db.drivers.checkpoint import BACKSTOP_PAGES, Checkpointer
from db.drivers.sqlite_sync import backup_database, existing_file_uri, find_problems, sqlite_audit
from db.errors import CorruptRecord, DamagedFile, SchemaError, StoreError, StoreUnavailable
from db.store import CoreStore

DEFAULT_DB_PATH = "arbitro.db"

DEFAULT_BUSY_TIMEOUT_MS = 5_000
#: KB of SQLite's page cache for the store's connection.
PAGE_CACHE_KB = 1024
MEMORY = ":memory:"

_T = TypeVar("_T")


def _connection_pragmas(busy_timeout_ms: int) -> list[str]:
    """What every connection of the store sets (per connection, not kept in the file)."""
    return [
        f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}",
        # FULL syncs the WAL on every commit: an acknowledged action survives power loss.
        "PRAGMA synchronous = FULL",
        # A command reads a few pages (its game's rows): SQLite's own cache of 1 MB (not the
        # default 2 MB) keeps the hot ones; the operating system caches the file anyway.
        f"PRAGMA cache_size = -{PAGE_CACHE_KB:d}",
        "PRAGMA foreign_keys = ON",
    ]


def configure_connection(
    connection: sqlite3.Connection,
    path: str,
    *,
    migrate: bool,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> int:
    """Check the file is ours, switch it to WAL, migrate (or insist it is current).

    Returns the schema version. The file is inspected before anything is written to it,
    so pointing Arbitro at a foreign file changes nothing in it. Synchronous, on a plain
    connection (the store's open runs it on a worker thread).
    """
    connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
    version = migrations.inspect_schema(connection, path)
    latest = migrations.latest_version()
    if version < latest and not migrate:
        detail = (
            "no Arbitro database here"
            if version == 0
            else f"schema version {version} is older than {latest}; run `arbitro db migrate`"
        )
        raise SchemaError(path, detail)
    _enable_wal(connection, busy_timeout_ms)
    for pragma in _connection_pragmas(busy_timeout_ms):
        connection.execute(pragma)
    if version < latest:
        migrations.apply_migrations(connection, path)
    migrations.check_tables(connection, path)
    return migrations.read_user_version(connection)


def _prepare_file(target: str, path: str, uri: bool, migrate: bool, busy_timeout_ms: int) -> None:
    """Open ``target`` with a plain connection, `configure_connection` it, close it."""
    try:
        connection = sqlite3.connect(
            target, isolation_level=None, timeout=busy_timeout_ms / 1000, uri=uri
        )
    except sqlite3.Error as error:
        if uri:
            raise SchemaError(path, f"no database file here ({error})") from error
        raise StoreUnavailable(f"{path}: {error}") from error
    try:
        configure_connection(connection, path, migrate=migrate, busy_timeout_ms=busy_timeout_ms)
    except (sqlite3.Error, UnicodeDecodeError) as error:
        failure = translate(error, None, path)
        if isinstance(failure, CorruptRecord):  # nothing names a channel yet: the file
            raise DamagedFile(path, failure.detail) from error
        if isinstance(failure, StoreUnavailable):
            raise StoreUnavailable(f"{path}: {failure.params['detail']}") from error
        raise failure from error
    except CorruptRecord as error:
        raise DamagedFile(path, error.detail) from error
    finally:
        connection.close()


def _enable_wal(connection: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """Switch the file to WAL, retrying while another connection holds it.

    The switch needs the file to itself and SQLite reports that as "locked" at once
    instead of waiting for the busy timeout, so two processes starting together would
    fail without this. It only happens on a file's very first use: WAL is persistent.
    """
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def translate(
    error: sqlite3.Error | UnicodeDecodeError, channel_id: int | None, path: str
) -> StoreError:
    """Turn an SQLite exception into a storage error that names the channel (or the file,
    when SQLite cannot read the file itself)."""
    message = str(error)
    lowered = message.lower()
    if isinstance(error, UnicodeDecodeError):
        # A text column that is not UTF-8: a damaged row of this game, or of the file's
        # own tables when no game was being read.
        if channel_id is None:
            return DamagedFile(path, f"unreadable text: {message}")
        return CorruptRecord(channel_id, f"unreadable text ({message})")
    if isinstance(error, sqlite3.IntegrityError):
        if channel_id is None:
            return CorruptRecord(None, message)
        return CorruptRecord(channel_id, message)
    if any(word in lowered for word in ("malformed", "not a database", "corrupt")):
        return DamagedFile(path, message)
    if "decode" in lowered:
        return CorruptRecord(channel_id, message)
    if "locked" in lowered or "busy" in lowered:
        return StoreUnavailable(f"the database stayed locked ({message})", channel_id)
    return StoreUnavailable(message, channel_id)


def _user_version() -> Step[int]:
    return int((yield Query("PRAGMA user_version", (), "value")))


class SqliteStore(CoreStore):
    """`GameStore` on one SQLite file, through one aiosqlite connection."""

    dialect = SQLITE

    def __init__(self, driver: SqliteDriver, path: str) -> None:
        """Wrap an open, configured connection; use `SqliteStore.open` instead."""
        super().__init__()
        self._driver = driver
        self._closed = False
        self.path = path
        # WAL checkpoints run off the commit path (`db.drivers.checkpoint`); none in memory.
        self._checkpointer: Checkpointer | None = None

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_DB_PATH,
        *,
        create: bool = True,
        migrate: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        checkpoints: bool = True,
    ) -> Self:
        """Open (creating and migrating by default) the database at ``path``.

        ``create=False`` refuses a missing file; ``migrate=False`` refuses an out-of-date
        schema instead of upgrading it. ``checkpoints=False``: no checkpoint thread, for a
        connection that only reads beside the process that writes (the web pages'): the
        WAL is the writer's to copy back, and a reader's checkpoints would write the
        database file from a process that never writes. Raises `SchemaError` for a file
        that is not an Arbitro database or is newer than this code.
        """
        path_text = os.fspath(path)
        in_memory = path_text == MEMORY
        # mode=rw opens an existing file only: no empty database left behind by a typo.
        must_exist = not create and not in_memory
        # Checked first so the usual mistake gets the plain message below.
        if must_exist and not await asyncio.to_thread(os.path.isfile, path_text):
            raise SchemaError(path_text, "no database file here")
        target = existing_file_uri(path_text) if must_exist else path_text
        if not in_memory:
            # Inspected, switched to WAL and migrated on a connection of its own, off the
            # event loop: a migration is one synchronous transaction per step.
            await asyncio.to_thread(
                _prepare_file, target, path_text, must_exist, migrate, busy_timeout_ms
            )
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, sqlite3 adds none.
            connection = await connect(
                target, isolation_level=None, timeout=busy_timeout_ms / 1000, uri=must_exist
            )
        except sqlite3.Error as error:
            raise StoreUnavailable(f"{path_text}: {error}") from error
        try:
            for pragma in _connection_pragmas(busy_timeout_ms):
                await connection.execute(pragma)
            if not in_memory:
                # WAL checkpoints go to the store's checkpoint thread; the writer keeps its
                # own only as a backstop (`db.drivers.checkpoint`).
                await connection.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES:d}")
        except BaseException:
            await connection.close()
            raise
        store = cls(SqliteDriver(connection), path_text)
        if in_memory:
            shipped = migrations.load_migrations()
            await store._run(
                partial(apply_migrations, migrations.SCHEMA, shipped, path_text, len(shipped))
            )
        elif checkpoints:
            store._checkpointer = Checkpointer(path_text, busy_timeout_ms=busy_timeout_ms)
        return store

    async def close(self) -> None:
        """Let the operations already queued finish, close the connection.

        Idempotent. Closing the last connection to the file checkpoints the WAL and removes
        the ``-wal`` file. Anything submitted afterwards is refused with `StoreUnavailable`.
        """
        if not self._closed:
            await self.long_histories.stop()
            self._closed = True
            if self._checkpointer is not None:
                # First: the writer, closing last, checkpoints fully and removes the WAL.
                await asyncio.to_thread(self._checkpointer.close)
            await self._driver.close()

    async def _execute(self, operation: Operation[_T]) -> _T:
        """Run ``operation`` on the connection, translating SQLite's exceptions."""
        if self._closed:
            raise StoreUnavailable("the store is closed", operation.channel_id)
        try:
            result = await self._driver.submit(operation)
        except DriverClosed:
            raise StoreUnavailable("the store is closed", operation.channel_id) from None
        except (sqlite3.Error, UnicodeDecodeError) as error:
            raise translate(error, operation.channel_id, self.path) from error
        if self._checkpointer is not None:
            self._checkpointer.wrote()
        return result

    # ---- SQLite's own ----------------------------------------------------------------------

    async def schema_version(self) -> int:
        """The schema version of the open file."""
        return await self._run(_user_version)

    async def check(self) -> list[str]:
        """Audit the file (`db.drivers.sqlite_sync.sqlite_audit`); an empty list: all is well."""
        return await self._run(partial(sqlite_audit, self.path))

    async def backup(self, target_path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the live database to a new file (SQLite's online
        backup API, from a connection of its own on a worker thread)."""
        await asyncio.to_thread(backup_file, self.path, target_path)


def backup_file(
    source_path: str | os.PathLike[str],
    target_path: str | os.PathLike[str],
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> None:
    """Back up the Arbitro database at ``source_path`` (possibly in use) to a new file.

    Synchronous, for the command line. Raises `SchemaError` if the source is missing or is
    not an Arbitro database; any schema version is accepted.
    """
    source_text = os.fspath(source_path)
    try:
        source = sqlite3.connect(existing_file_uri(source_text), uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise SchemaError(source_text, f"no database file here ({error})") from error
    try:
        source.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
        if migrations.inspect_schema(source, source_text) == 0:
            raise SchemaError(source_text, "no Arbitro database here")
        backup_database(source, target_path)
    finally:
        source.close()


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "DEFAULT_DB_PATH",
    "PAGE_CACHE_KB",
    "SqliteStore",
    "backup_file",
    "configure_connection",
    "find_problems",
    "translate",
]
