"""Helpers shared by the storage tests."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from db.chain.verify import VerifiedHead
from db.core.steps import Fetch, Query, read
from db.drivers.sqlite import SqliteStore
from db.models import CommandContext, GameRecord

GUILD = 900


def sample_document(turn: int = 1, **extra: Any) -> dict[str, Any]:
    """A small game document with non-ASCII text, floats and nesting."""
    return {
        "turn": turn,
        "phase": "manovra",
        "sides": {"rossi": {"units": ["Plotone Å", "Squadra è"]}, "blu": {"units": []}},
        "weather": {"visibility_m": 800.5, "rain": False},
        **extra,
    }


async def new_game(store: SqliteStore, channel_id: int, **overrides: Any) -> int:
    """Create a game in ``channel_id``; return its version (1)."""
    options: dict[str, Any] = {
        "guild_id": GUILD,
        "ruleset": "manovra",
        "language": "it",
        "document": sample_document(),
    }
    options.update(overrides)
    record = await store.create_game(channel_id, **options)
    return record.version


def raw_connection(path: Path) -> sqlite3.Connection:
    """A plain autocommit connection to poke at the file behind the store's back."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA busy_timeout = 5000")
    return connection


def drop_append_only_guards(connection: sqlite3.Connection) -> None:
    """Remove the triggers that forbid rewriting history, as a tamperer would."""
    for trigger in (
        "events_no_update",
        "events_no_delete",
        "states_no_update",
        "states_no_delete",
        "patches_no_update",
        "patches_no_delete",
        "archived_games_no_update",
    ):
        connection.execute(f"DROP TRIGGER IF EXISTS {trigger}")


async def on_store(store: Any, sql: str, fetch: Fetch = "value") -> Any:
    """One statement on the store's own connection (an aiosqlite or pooled one), in the
    store's queue like any operation."""
    return await store._execute(read(Query(sql, (), fetch)))


def command_context(channel_id: int, version: int, text: str) -> CommandContext:
    """A command's context of a game at ``version`` whose document is ``text``."""
    now = datetime(2026, 11, 29, tzinfo=UTC)
    record = GameRecord(
        channel_id=channel_id, guild_id=None, ruleset="manovra", language="it",
        status="active", version=version, document={}, created_at=now, updated_at=now,
        head_hash=f"{version:064x}", document_text=text,
    )  # fmt: skip
    return CommandContext(record=record, earlier=None, members=())


def verified_head(version: int) -> VerifiedHead:
    """A verified chain head at ``version``."""
    return VerifiedHead("game", version, f"{version:064x}")
