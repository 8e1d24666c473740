"""Fixtures for the storage tests: real SQLite files under pytest's tmp_path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from db.sqlite import SqliteStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's database file lives."""
    return tmp_path / "arbitro.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteStore]:
    """A freshly migrated store on a real file, closed after the test."""
    opened = await SqliteStore.open(db_path)
    try:
        yield opened
    finally:
        await opened.close()
