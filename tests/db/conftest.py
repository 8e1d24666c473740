"""Fixtures for the storage tests: every store test runs on SQLite and on PostgreSQL.

SQLite: a real file under pytest's tmp_path. PostgreSQL: a schema of its own on the
session's throwaway server (tests/pgserver.py, started once per session).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from db.drivers.sqlite import SqliteStore
from db.open import open_store
from tests.db.helpers import drop_append_only_guards, raw_connection

BACKENDS = ("sqlite", "postgres")


@dataclass(frozen=True)
class Backend:
    """One storage backend under test: how to open it and how to poke behind its back."""

    name: str
    url: str

    @property
    def document_column(self) -> str:
        """The column holding the hashed document text."""
        return "document_text" if self.name == "postgres" else "document"

    async def open(self, **options: Any) -> Any:
        """A store on this backend's database (the same one on every call)."""
        return await open_store(self.url, **options)

    async def tamper(self, *statements: str) -> None:
        """Run SQL with the append-only triggers and foreign keys out of the way."""
        if self.name == "postgres":
            import asyncpg

            connection = await asyncpg.connect(self.url)
            try:
                # Replica mode skips triggers and foreign-key checks for this session.
                await connection.execute("SET session_replication_role = replica")
                for statement in statements:
                    await connection.execute(statement)
            finally:
                await connection.close()
            return
        connection = raw_connection(Path(self.url))
        try:
            drop_append_only_guards(connection)
            connection.execute("PRAGMA foreign_keys = OFF")
            for statement in statements:
                connection.execute(statement)
        finally:
            connection.close()

    async def execute(self, statement: str) -> None:
        """Run one SQL statement as any client could (guards in place)."""
        if self.name == "postgres":
            import asyncpg

            connection = await asyncpg.connect(self.url)
            try:
                await connection.execute(statement)
            finally:
                await connection.close()
            return
        connection = raw_connection(Path(self.url))
        try:
            connection.execute(statement)
        finally:
            connection.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's SQLite database file lives."""
    return tmp_path / "arbitro.db"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, db_path: Path) -> Backend:
    """Each backend in turn; the PostgreSQL one on a fresh schema of the session server."""
    if request.param == "postgres":
        return Backend("postgres", request.getfixturevalue("pg_url"))
    return Backend("sqlite", str(db_path))


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Any]:
    """A freshly migrated store, on each backend in turn, closed after the test."""
    opened = await backend.open()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[SqliteStore]:
    """A store on a real SQLite file, for tests of SQLite's own machinery."""
    opened = await SqliteStore.open(db_path)
    try:
        yield opened
    finally:
        await opened.close()
