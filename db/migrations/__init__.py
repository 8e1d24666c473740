"""SQLite's numbered SQL migrations, tracked with ``PRAGMA user_version``.

Each ``NNNN_name.sql`` file in this package brings the schema from version NNNN-1 to NNNN.
The runner is the core's (`db.core.migrate`, shared with PostgreSQL): each migration in one
``BEGIN IMMEDIATE`` transaction together with the ``user_version`` bump, so a crash leaves
the file at the old or the new version, never in between, and two processes starting at
once apply it once. What is SQLite's own is here: how the version is kept, how a file is
recognised as ours (``PRAGMA application_id``) and how a script is split. The functions are
synchronous on a plain ``sqlite3`` connection: the store runs them on a worker thread with
a connection of its own when it opens a file; tests and tools call them directly.
"""

from __future__ import annotations

import sqlite3
from functools import cache

from db.core.dialect import SQLITE
from db.core.migrate import Migration, Schema, read_migrations
from db.core.migrate import apply_migrations as _runner
from db.core.steps import Query, Step
from db.drivers.sqlite_sync import run
from db.errors import DamagedFile, SchemaError

# PRAGMA application_id of an Arbitro file ("ARBI"): tells our files from foreign ones.
APPLICATION_ID = 0x41524249

# Tables the current schema must have; checked after migrating.
EXPECTED_TABLES = frozenset({"games", "states", "events", "members", "records", "patches"})


def split_statements(script: str) -> list[str]:
    """Split an SQL script into statements, keeping triggers' inner semicolons intact.

    ``sqlite3.complete_statement`` uses SQLite's own tokenizer, so semicolons inside string
    literals and ``CREATE TRIGGER … BEGIN …; END;`` bodies are handled as SQLite would.
    """
    statements: list[str] = []
    *terminated, leftover = script.split(";")
    pending = ""
    for piece in terminated:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if _has_code(pending):
                statements.append(pending.strip())
            pending = ""
    if _has_code(pending + leftover):
        raise ValueError(f"unterminated SQL statement: {(pending + leftover).strip()[:60]!r}")
    return statements


def _has_code(sql: str) -> bool:
    """Whether ``sql`` holds more than whole-line comments, blanks and semicolons."""
    code = (line for line in sql.splitlines() if not line.strip().startswith("--"))
    return any(line.strip().strip(";").strip() for line in code)


def _statements(migration: Migration) -> list[str]:
    """A migration's statements (``sqlite3`` executes one at a time)."""
    return split_statements(migration.sql)


@cache
def load_migrations() -> tuple[Migration, ...]:
    """Every migration shipped with the package, in order; checks they are numbered 1..N."""
    return read_migrations(__name__)


def latest_version() -> int:
    """The schema version this code writes."""
    return len(load_migrations())


def read_user_version(connection: sqlite3.Connection) -> int:
    """The schema version recorded in the file."""
    row = connection.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def _version_steps() -> Step[int]:
    return int((yield Query("PRAGMA user_version", (), "value")))


def _record(migration: Migration) -> tuple[Query, ...]:
    # PRAGMA takes no parameters; the value is an int from our own file name.
    return (Query(f"PRAGMA user_version = {migration.version:d}"),)


SCHEMA = Schema(statements=_statements, read_version=_version_steps, record=_record, dialect=SQLITE)


def inspect_schema(connection: sqlite3.Connection, path: str) -> int:
    """Return the file's schema version, or raise `SchemaError` if we must not touch it.

    Refused: a file that is not SQLite, a SQLite file of another application (tables but
    no Arbitro version, or a foreign application id), and a schema newer than this code.
    Nothing is written, so a wrong ``--db`` path cannot damage someone else's file.
    """
    try:
        # One read transaction: a concurrent first migration must not be seen half-way
        # (tables already there, version not yet bumped), which would look foreign.
        connection.execute("BEGIN")
        try:
            version = read_user_version(connection)
            application_id = int(connection.execute("PRAGMA application_id").fetchone()[0])
            tables = {
                str(row[0])
                for row in connection.execute(
                    "SELECT name FROM sqlite_master "
                    "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                )
            }
        finally:
            if connection.in_transaction:
                connection.execute("COMMIT")
    except (sqlite3.DatabaseError, UnicodeDecodeError) as error:
        # A foreign file and an Arbitro file whose header was damaged look the same to
        # SQLite ("file is not a database"): the message names both.
        if "not a database" in str(error):
            raise SchemaError(
                path, f"not an SQLite database, or the database file is damaged ({error})"
            ) from error
        raise DamagedFile(path, str(error)) from error
    if version == 0:
        if tables or application_id not in (0, APPLICATION_ID):
            raise SchemaError(
                path, "not an Arbitro database: it holds other tables and no Arbitro schema"
            )
        return 0
    if application_id != APPLICATION_ID:
        raise SchemaError(
            path, f"not an Arbitro database (application id {application_id:#x}, schema {version})"
        )
    latest = latest_version()
    if version > latest:
        raise SchemaError(
            path,
            f"schema version {version} is newer than this Arbitro knows ({latest}); "
            "upgrade Arbitro before using this file",
        )
    return version


def check_tables(connection: sqlite3.Connection, path: str) -> None:
    """Raise `SchemaError` if a table of the current schema is missing."""
    tables = {
        str(row[0])
        for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    missing = sorted(EXPECTED_TABLES - tables)
    if missing:
        raise SchemaError(path, f"damaged Arbitro database: missing tables {', '.join(missing)}")


def apply_migrations(
    connection: sqlite3.Connection, path: str, *, target: int | None = None
) -> list[int]:
    """Bring the file up to ``target`` (default: latest); return the versions applied.

    The connection must be in autocommit mode (``isolation_level=None``): each migration
    opens its own transaction. The version is re-read once the write lock is held, so a
    concurrent migrator's work is not repeated.
    """
    inspect_schema(connection, path)
    shipped = load_migrations()
    goal = len(shipped) if target is None else target
    return run(connection, _runner(SCHEMA, shipped, path, goal))


__all__ = [
    "APPLICATION_ID",
    "EXPECTED_TABLES",
    "SCHEMA",
    "Migration",
    "apply_migrations",
    "check_tables",
    "inspect_schema",
    "latest_version",
    "load_migrations",
    "read_user_version",
    "split_statements",
]
