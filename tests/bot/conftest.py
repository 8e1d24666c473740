"""Fixtures for the application service: a real SQLite store and queued dice."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService
from db.drivers.sqlite import SqliteStore
from rules.core.dice import Die
from tests.db.conftest import BACKENDS, Backend


class QueuedDice:
    """Faces pushed by the test, consumed in order; refuses impossible or missing faces."""

    def __init__(self) -> None:
        self.faces: deque[int] = deque()

    @property
    def by_hand(self) -> bool:
        return False

    def push(self, *faces: int) -> None:
        self.faces.extend(faces)

    def face(self, die: Die, label: str) -> int:
        assert self.faces, f"no face queued for {die.name} ({label})"
        value = self.faces.popleft()
        assert die.can_show(value), f"{die.name} cannot show {value} ({label})"
        return value


@pytest.fixture()
async def store(tmp_path):
    opened = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield opened
    await opened.close()


@pytest.fixture()
def dice() -> QueuedDice:
    return QueuedDice()


@pytest.fixture()
def service(store, dice) -> GameService:
    return GameService(store, dice=dice)


@pytest.fixture(params=BACKENDS)
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A fresh store on each backend in turn (PostgreSQL on the session's server)."""
    if request.param == "postgres":
        backend = Backend("postgres", request.getfixturevalue("pg_url"))
    else:
        backend = Backend("sqlite", str(tmp_path / "arbitro.db"))
    opened = await backend.open()
    try:
        yield opened
    finally:
        await opened.close()
