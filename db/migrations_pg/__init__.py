"""Numbered SQL migrations of the PostgreSQL schema, tracked in the ``arbitro_schema`` table.

The PostgreSQL counterpart of `db.migrations` (which tracks SQLite files with ``PRAGMA
user_version``). Each ``NNNN_name.sql`` file brings the schema from version NNNN-1 to NNNN
and runs in one transaction together with its row in ``arbitro_schema``: PostgreSQL has
transactional DDL, so a failed or interrupted migration leaves the previous version. A
transaction-scoped advisory lock makes concurrent openers (several bot processes starting
at once) apply each migration once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from db.errors import SchemaError

if TYPE_CHECKING:
    import asyncpg

# Advisory lock key held while migrating ("ARBI", as the SQLite application id).
MIGRATION_LOCK = 0x41524249

# Tables the current schema must have; checked after migrating.
EXPECTED_TABLES = frozenset(
    {"games", "states", "events", "members", "deadlines", "pending_rolls", "patches"}
)

VERSION_TABLE = "arbitro_schema"

_FILE_NAME = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: the SQL script that takes ``version - 1`` to ``version``."""

    version: int
    name: str
    sql: str


@cache
def load_migrations() -> tuple[Migration, ...]:
    """Every PostgreSQL migration shipped with the package, checked to be numbered 1..N."""
    found = [
        Migration(int(match["version"]), entry.name, entry.read_text(encoding="utf-8"))
        for entry in resources.files(__name__).iterdir()
        if (match := _FILE_NAME.match(entry.name)) is not None
    ]
    found.sort(key=lambda migration: migration.version)
    numbers = [migration.version for migration in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps, found {numbers}")
    return tuple(found)


def latest_version() -> int:
    """The PostgreSQL schema version this code writes."""
    return len(load_migrations())


async def _tables(connection: asyncpg.Connection) -> set[str]:
    rows = await connection.fetch(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    return {str(row[0]) for row in rows}


async def read_version(connection: asyncpg.Connection) -> int:
    """The schema version recorded in the database (0: no Arbitro schema yet)."""
    if VERSION_TABLE not in await _tables(connection):
        return 0
    value = await connection.fetchval(f"SELECT max(version) FROM {VERSION_TABLE}")
    return 0 if value is None else int(value)


async def inspect_schema(connection: asyncpg.Connection, where: str) -> int:
    """The database's schema version, or `SchemaError` if Arbitro must not touch it.

    Refused: a database holding other tables and no Arbitro schema, and a schema newer
    than this code. Nothing is written.
    """
    tables = await _tables(connection)
    if VERSION_TABLE not in tables:
        if tables:
            raise SchemaError(
                where, "not an Arbitro database: it holds other tables and no Arbitro schema"
            )
        return 0
    version = await read_version(connection)
    latest = latest_version()
    if version > latest:
        raise SchemaError(
            where,
            f"schema version {version} is newer than this Arbitro knows ({latest}); "
            "upgrade Arbitro before using this database",
        )
    return version


async def check_tables(connection: asyncpg.Connection, where: str) -> None:
    """Raise `SchemaError` if a table of the current schema is missing."""
    missing = sorted(EXPECTED_TABLES - await _tables(connection))
    if missing:
        raise SchemaError(where, f"damaged Arbitro database: missing tables {', '.join(missing)}")


async def _data_step(version: int, connection: asyncpg.Connection) -> None:
    """Python work a migration needs beside its SQL, in the same transaction.

    Migration 6 seals every existing game with the checksum of its members, deadlines and
    settings (the recipe of db/integrity.py, shared with SQLite).
    """
    if version == 6:
        from db.postgres import seal_all_games

        await seal_all_games(connection)
    elif version == 8:
        from db.postgres import compact_all_games

        await compact_all_games(connection)


async def apply_migrations(
    connection: asyncpg.Connection, where: str, *, target: int | None = None
) -> list[int]:
    """Bring the database up to ``target`` (default: latest); return the versions applied."""
    import asyncpg

    await inspect_schema(connection, where)
    goal = latest_version() if target is None else target
    applied: list[int] = []
    for migration in load_migrations():
        if migration.version > goal:
            break
        try:
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                if await read_version(connection) >= migration.version:
                    continue
                await connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
                    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                    "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
                # No arguments: asyncpg sends the script through the simple query protocol,
                # which runs several statements (and $$-quoted function bodies).
                await connection.execute(migration.sql)
                await _data_step(migration.version, connection)
                await connection.execute(
                    f"INSERT INTO {VERSION_TABLE} (version, name) VALUES ($1, $2)",
                    migration.version,
                    migration.name,
                )
        except asyncpg.PostgresError as error:
            raise SchemaError(where, f"migration {migration.name} failed: {error}") from error
        applied.append(migration.version)
    return applied
