"""Shared fixtures."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from bot.app import loop
from rules.core.play import DocumentRules

ROOT = Path(__file__).resolve().parent.parent
# The repository keeps its own copy of the rule documents: a fresh clone tests alone.
SEEDS = ROOT / "docs" / "seeds"


#: SimCord (the Discord double) settles the loop after each action by reading asyncio's
#: timer heap (``loop._scheduled``), which uvloop's C loop does not have, and refuses any loop
#: without it: the tests that use it (its ``simcord_env`` fixture, or ``simcord.run`` under
#: its ``simcord`` mark) run on asyncio's loop. The bot's own code on uvloop is tested as a
#: process (`arbitro run`, tests/bot/app/test_lifecycle.py).
SIMCORD_FIXTURE = "simcord_env"
SIMCORD_MARK = "simcord"


def _imports_simcord(module: ModuleType | None) -> bool:
    """Whether a test module holds SimCord or anything of it: such a module drives SimCord
    whatever fixture or mark its tests use (a test written later need not know of the mark)."""
    if module is None:
        return False
    return any(
        (value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", ""))
        .partition(".")[0]
        == "simcord"
        for value in vars(module).values()
    )


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    """The async tests run on the loop production runs (bot/app/loop.py): uvloop's, unless
    ``ARBITRO_EVENT_LOOP=asyncio``. One factory, so the tests' names stay as they are."""
    drives_simcord = (
        SIMCORD_FIXTURE in getattr(item, "fixturenames", ())
        or item.get_closest_marker(SIMCORD_MARK) is not None
        or _imports_simcord(getattr(item, "module", None))
    )
    if drives_simcord:
        return {loop.ASYNCIO: asyncio.new_event_loop}
    return {loop.loop_name(): loop.new_event_loop}


@pytest.fixture(scope="session")
def seed_text():
    """Read a seed file by its prefix ("000", "001", "003", "004")."""

    def read(prefix: str) -> str:
        matches = sorted(SEEDS.glob(f"{prefix}_*.txt"))
        if not matches:
            pytest.fail(f"seed {prefix} not found under {SEEDS}")
        return matches[0].read_text(encoding="utf-8")

    return read


@pytest.fixture(scope="session")
def pg_server():
    """One throwaway PostgreSQL server for the whole session (tests/pgserver.py).

    Where no server binary exists the tests that need it fail with instructions, unless
    ``ARBITRO_PG_OPTIONAL=1`` (local development) turns that into a skip.
    """
    import os

    from tests.pgserver import OPTIONAL_ENV, ServerUnavailable, start_server

    try:
        server = start_server()
    except ServerUnavailable as error:
        if os.environ.get(OPTIONAL_ENV) == "1":
            pytest.skip(f"PostgreSQL unavailable ({OPTIONAL_ENV}=1): {error}")
        pytest.fail(f"PostgreSQL leg cannot run: {error}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server) -> str:
    """A URL to an empty schema of its own on the session's server (fresh per test).

    A schema, not a database: creating one is ~0.01 s against ~0.25 s for a database; the
    store sees only its own schema through ``search_path`` (an asyncpg server setting).
    Synchronous (the schema is made from a worker thread's own event loop), so sync
    fixtures that pick a backend by parameter can ask for it too.
    """
    return pg_server.new_schema_url()


@pytest.fixture(autouse=True)
def _fresh_notice_watchers() -> None:
    """Each test's store starts with no player known to have chosen how to be told (the
    notices' per-process set of watchers, `bot.service.notices.watchers`)."""
    from bot.service.notices.watchers import forget_watchers

    forget_watchers()


@pytest.fixture()
def counted(monkeypatch) -> dict[str, int]:
    """How many times a document is validated into a state, and a state deep-copied (a
    command, a status, an end must each validate once and copy nothing)."""
    counts = {"validated": 0, "deep_copied": 0}
    validate, copy = DocumentRules._load_state, BaseModel.model_copy

    def counting_validate(self: DocumentRules, document: Mapping[str, Any]) -> Any:
        counts["validated"] += 1
        return validate(self, document)

    def counting_copy(self: BaseModel, *, update: Any = None, deep: bool = False) -> Any:
        counts["deep_copied"] += deep
        return copy(self, update=update, deep=deep)

    monkeypatch.setattr(DocumentRules, "_load_state", counting_validate)
    monkeypatch.setattr(BaseModel, "model_copy", counting_copy)
    return counts


@pytest.fixture
def no_cycle_collector() -> Iterator[None]:
    """The cycle collector off: what is freed is freed by its last reference going."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
