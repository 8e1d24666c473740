"""Helpers shared by the storage tests."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from db import migrations, migrations_pg
from db.chain.hashing import GENESIS_HASH, canonical_json, compute_event_hash, state_hash
from db.chain.verify import VerifiedHead
from db.core.steps import Fetch, Query, read
from db.drivers.sqlite import SqliteStore
from db.models import CommandContext, EventRecord, GameRecord, parse_timestamp

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


def as_before_salts(bundle: dict) -> dict:
    """A whole export (every state) of a salted record as a release before schema 12 wrote
    it: no salt, each state hashed without one, the chain hashed anew over those hashes."""
    game = {key: value for key, value in bundle["game"].items() if key != "state_salt"}
    states = {state["version"]: state for state in bundle["states"]}
    previous, events = GENESIS_HASH, []
    for item in bundle["events"]:
        state = states[item["state_version"]]
        unsalted = state_hash(canonical_json(state["document"]), state["status"], None)
        event = EventRecord.from_json_dict({**item, "state_hash": unsalted, "prev_hash": previous})
        previous = compute_event_hash(event, previous, salt=None)
        events.append({**event.to_json_dict(), "hash": previous})
    return {**bundle, "game": game, "events": events, "head_hash": previous}


def rows_at_schema_7(bundle: dict) -> tuple[tuple, list[tuple], list[tuple], list[tuple]]:
    """An export's game, states, events and members as the tables of schema 7 hold them
    (every state whole, no patches, no records; timestamps as SQLite's text). The bundle
    must be unsalted, as that release wrote it (`as_before_salts`)."""
    game = bundle["game"]
    if "state_salt" in game:
        raise ValueError("a record of schema 7 has no salt: see as_before_salts")
    games = tuple(
        game[column]
        for column in (
            "channel_id", "guild_id", "ruleset", "language", "status", "version",
            "created_at", "updated_at",
        )
    )  # fmt: skip
    states = [
        (game["channel_id"], s["version"], s["status"], canonical_json(s["document"]))
        for s in bundle["states"]
    ]
    events = [
        (
            e["channel_id"], e["seq"], e["interaction_id"], e["actor_id"], e["verb"],
            canonical_json(e["args"]), canonical_json(e["dice"]),
            canonical_json(e["resolution"]), e["state_version"], e["state_hash"],
            e["undoes_seq"], e["created_at"], e["prev_hash"], e["hash"],
        )
        for e in bundle["events"]
    ]  # fmt: skip
    members = [
        (m["channel_id"], m["user_id"], m["role"], m["side"], m["joined_at"])
        for m in bundle["members"]
    ]
    return games, states, events, members


_INSERT_GAME_AT_7 = (
    "INSERT INTO games (channel_id, guild_id, ruleset, language, status, version, "
    "created_at, updated_at) VALUES ({})"
)


def insert_at_schema_7(connection: sqlite3.Connection, bundle: dict) -> None:
    """An exported game written into a SQLite file at schema 7, in one transaction, as
    the release of that schema stored it (the later migrations turn it into today's)."""
    games, states, events, members = rows_at_schema_7(bundle)
    connection.execute("BEGIN")
    connection.execute(_INSERT_GAME_AT_7.format(", ".join(["?"] * 8)), games)
    connection.executemany("INSERT INTO states VALUES (?, ?, ?, ?)", states)
    connection.executemany(f"INSERT INTO events VALUES ({', '.join(['?'] * 14)})", events)
    connection.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?)", members)
    connection.execute("COMMIT")


async def insert_at_schema_7_pg(connection: asyncpg.Connection, bundle: dict) -> None:
    """`insert_at_schema_7` on PostgreSQL (timestamps as TIMESTAMPTZ, a JSONB copy of each
    document)."""
    games, states, events, members = rows_at_schema_7(bundle)
    async with connection.transaction():
        await connection.execute(
            _INSERT_GAME_AT_7.format(", ".join(f"${n}" for n in range(1, 9))),
            *games[:6],
            parse_timestamp(games[6]),
            parse_timestamp(games[7]),
        )
        await connection.executemany(
            "INSERT INTO states (channel_id, version, status, document_text, document) "
            "VALUES ($1, $2, $3, $4::text, $4::text::jsonb)",
            states,
        )
        await connection.executemany(
            f"INSERT INTO events VALUES ({', '.join(f'${n}' for n in range(1, 15))})",
            [(*e[:11], parse_timestamp(e[11]), *e[12:]) for e in events],
        )
        await connection.executemany(
            "INSERT INTO members VALUES ($1, $2, $3, $4, $5)",
            [(*m[:4], parse_timestamp(m[4])) for m in members],
        )


def file_at_schema(path: Path, bundles: list[dict], schema: int) -> None:
    """A SQLite file holding exported games as the release of ``schema`` left them: written
    at schema 7, brought to ``schema`` by the shipped migrations."""
    connection = raw_connection(path)
    try:
        migrations.apply_migrations(connection, str(path), target=7)
        for bundle in bundles:
            insert_at_schema_7(connection, bundle)
        migrations.apply_migrations(connection, str(path), target=schema)
    finally:
        connection.close()


async def postgres_at_schema(url: str, bundles: list[dict], schema: int) -> None:
    """`file_at_schema` on PostgreSQL."""
    connection = await asyncpg.connect(url)
    try:
        await migrations_pg.apply_migrations(connection, "test", target=7)
        for bundle in bundles:
            await insert_at_schema_7_pg(connection, bundle)
        await migrations_pg.apply_migrations(connection, "test", target=schema)
    finally:
        await connection.close()
