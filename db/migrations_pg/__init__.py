"""PostgreSQL's numbered SQL migrations, tracked in the ``arbitro_schema`` table.

Each ``NNNN_name.sql`` file brings the schema from version NNNN-1 to NNNN. The runner is
the core's (`db.core.migrate`, shared with SQLite): each migration in one transaction
together with its row in ``arbitro_schema`` (PostgreSQL has transactional DDL, so a failed
or interrupted migration leaves the previous version), under a transaction-scoped advisory
lock so that concurrent openers (several bot processes starting at once) apply each
migration once. A script is sent whole (the simple query protocol runs several statements
and ``$$``-quoted function bodies).
"""

from __future__ import annotations

from functools import cache

import asyncpg

from db.core.dialect import POSTGRES
from db.core.migrate import Migration, Schema, read_migrations
from db.core.migrate import apply_migrations as _runner
from db.core.steps import Query, Step
from db.drivers.pg_driver import run
from db.errors import SchemaError

# Advisory lock key held while migrating ("ARBI", as the SQLite application id).
MIGRATION_LOCK = 0x41524249

# Tables the current schema must have; checked after migrating.
EXPECTED_TABLES = frozenset({"games", "states", "events", "members", "records", "patches"})

VERSION_TABLE = "arbitro_schema"

_TABLES = (
    "SELECT table_name FROM information_schema.tables "
    "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
)


@cache
def load_migrations() -> tuple[Migration, ...]:
    """Every PostgreSQL migration shipped with the package, checked to be numbered 1..N."""
    return read_migrations(__name__)


def latest_version() -> int:
    """The PostgreSQL schema version this code writes."""
    return len(load_migrations())


def _tables() -> Step[set[str]]:
    return {str(row[0]) for row in (yield Query(_TABLES, (), "rows"))}


def _version_steps() -> Step[int]:
    if VERSION_TABLE not in (yield from _tables()):
        return 0
    value = yield Query(f"SELECT max(version) FROM {VERSION_TABLE}", (), "value")
    return 0 if value is None else int(value)


def _record(migration: Migration) -> tuple[Query, ...]:
    return (
        Query(
            f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        ),
        Query(
            f"INSERT INTO {VERSION_TABLE} (version, name) VALUES (?, ?)",
            (migration.version, migration.name),
        ),
    )


SCHEMA = Schema(
    # No parameters: asyncpg sends the script through the simple query protocol.
    statements=lambda migration: [migration.sql],
    read_version=_version_steps,
    record=_record,
    dialect=POSTGRES,
    lock=(Query("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,), "value"),),
)


async def read_version(connection: asyncpg.Connection) -> int:
    """The schema version recorded in the database (0: no Arbitro schema yet)."""
    return await run(connection, _version_steps())


def _inspect(where: str) -> Step[int]:
    tables = yield from _tables()
    if VERSION_TABLE not in tables:
        if tables:
            raise SchemaError(
                where, "not an Arbitro database: it holds other tables and no Arbitro schema"
            )
        return 0
    version = yield from _version_steps()
    latest = latest_version()
    if version > latest:
        raise SchemaError(
            where,
            f"schema version {version} is newer than this Arbitro knows ({latest}); "
            "upgrade Arbitro before using this database",
        )
    return version


async def inspect_schema(connection: asyncpg.Connection, where: str) -> int:
    """The database's schema version, or `SchemaError` if Arbitro must not touch it.

    Refused: a database holding other tables and no Arbitro schema, and a schema newer
    than this code. Nothing is written.
    """
    return await run(connection, _inspect(where))


async def check_tables(connection: asyncpg.Connection, where: str) -> None:
    """Raise `SchemaError` if a table of the current schema is missing."""
    missing = sorted(EXPECTED_TABLES - await run(connection, _tables()))
    if missing:
        raise SchemaError(where, f"damaged Arbitro database: missing tables {', '.join(missing)}")


async def apply_migrations(
    connection: asyncpg.Connection, where: str, *, target: int | None = None
) -> list[int]:
    """Bring the database up to ``target`` (default: latest); return the versions applied."""
    await inspect_schema(connection, where)
    shipped = load_migrations()
    goal = len(shipped) if target is None else target
    return await run(connection, _runner(SCHEMA, shipped, where, goal))


__all__ = [
    "EXPECTED_TABLES",
    "MIGRATION_LOCK",
    "SCHEMA",
    "VERSION_TABLE",
    "Migration",
    "apply_migrations",
    "check_tables",
    "inspect_schema",
    "latest_version",
    "load_migrations",
    "read_version",
]
