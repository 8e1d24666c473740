"""The migration runner and the data migrations, written once for both backends.

Each backend ships its numbered SQL files (``db/migrations/NNNN_name.sql`` for SQLite,
``db/migrations_pg/`` for PostgreSQL: the DDL differs) and says in a `Schema` how it keeps
its version (SQLite ``PRAGMA user_version``, PostgreSQL the ``arbitro_schema`` table), what
lock makes concurrent openers migrate once (SQLite's ``BEGIN IMMEDIATE`` is enough;
PostgreSQL adds an advisory lock) and how a script is split into statements. The runner:
each migration in one write transaction with its version record and its data step, the
version re-read under the lock so a concurrent migrator's work is not repeated; a failure
rolls that migration back whole and raises `SchemaError` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from db.core.audit import compact_all_games, seal_campaigns
from db.core.dialect import Dialect
from db.core.records_migration import move_feature_rows
from db.core.steps import Control, Query, Step
from db.errors import SchemaError, StoreError

_FILE_NAME = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: the SQL that takes ``version - 1`` to ``version``."""

    version: int
    name: str
    sql: str


def read_migrations(package: str) -> tuple[Migration, ...]:
    """Every ``NNNN_name.sql`` of a package, in order; checks they are numbered 1..N."""
    found = [
        Migration(int(match["version"]), entry.name, entry.read_text(encoding="utf-8"))
        for entry in resources.files(package).iterdir()
        if (match := _FILE_NAME.match(entry.name)) is not None
    ]
    found.sort(key=lambda migration: migration.version)
    numbers = [migration.version for migration in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps, found {numbers}")
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Schema:
    """How one backend keeps and applies its schema versions."""

    #: The statements of a migration's script, to run one after the other.
    statements: Callable[[Migration], list[str]]
    #: The schema version recorded (inside the migration's transaction).
    read_version: Callable[[], Step[int]]
    #: The statements recording that a migration was applied.
    record: Callable[[Migration], tuple[Query, ...]]
    #: The backend's words and codecs (a data step writes timestamps and identities).
    dialect: Dialect
    #: Run first in each migration's transaction (a lock concurrent openers wait for).
    lock: tuple[Query, ...] = ()


def _sealed_by_migration_9(dialect: Dialect) -> Step[None]:
    """Migration 6 sealed every game with the checksum of its covered rows; the recipe
    now covers the records of migration 9, which seals every game itself (a database
    between 6 and 9 is only ever one being migrated further)."""
    return
    yield


#: Python work a migration needs beside its SQL, in the same transaction: 6 sealed every
#: game (now left to 9), 8 turns every game's stored documents into patches and snapshots,
#: 9 moves the feature tables' rows into ``records`` and seals every game (SHA-256 over
#: canonical JSON, which SQL cannot compute), 11 seals anew the records it made campaigns.
DATA_STEPS: dict[int, Callable[[Dialect], Step[None]]] = {
    6: _sealed_by_migration_9,
    8: lambda dialect: compact_all_games(),
    9: move_feature_rows,
    11: lambda dialect: seal_campaigns(),
}


def apply_migrations(
    schema: Schema, migrations: tuple[Migration, ...], where: str, goal: int
) -> Step[list[int]]:
    """Bring the schema up to ``goal``; the versions applied. Runs its own transactions."""
    applied: list[int] = []
    for migration in migrations:
        if migration.version > goal:
            break
        yield Control.BEGIN_WRITE
        try:
            for query in schema.lock:
                yield query
            if (yield from schema.read_version()) >= migration.version:
                yield Control.COMMIT
                continue
            for statement in schema.statements(migration):
                yield Query(statement, raw=True)
            data_step = DATA_STEPS.get(migration.version)
            if data_step is not None:
                yield from data_step(schema.dialect)
            for query in schema.record(migration):
                yield query
            yield Control.COMMIT
        except StoreError:
            raise  # the driver rolls the migration back
        except Exception as error:
            raise SchemaError(where, f"migration {migration.name} failed: {error}") from error
        applied.append(migration.version)
    return applied


__all__ = ["DATA_STEPS", "Migration", "Schema", "apply_migrations", "read_migrations"]
