"""Schema migrations: from nothing, from every earlier version, atomically."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from db import migrations, migrations_pg
from db.chain.hashing import (
    canonical_json,
    compute_event_hash,
    state_hash,
    verify_chain,
    verify_export,
    verify_links,
)
from db.drivers.postgres import PostgresStore
from db.drivers.sqlite import SqliteStore
from db.errors import ChainBroken, SchemaError, TamperedGame
from db.migrations import (
    EXPECTED_TABLES,
    Migration,
    apply_migrations,
    latest_version,
    load_migrations,
    split_statements,
)
from db.models import NewEvent
from tests.db.helpers import (
    as_before_salts,
    file_at_schema,
    insert_at_schema_7,
    insert_at_schema_7_pg,
    new_game,
    postgres_at_schema,
    raw_connection,
)


def tables_of(path: Path) -> set[str]:
    connection = raw_connection(path)
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in rows}
    finally:
        connection.close()


async def assert_usable_at_latest(path: Path) -> None:
    async with await SqliteStore.open(path) as store:
        assert await store.schema_version() == latest_version()
        await new_game(store, 1)
        await store.commit(1, 1, {"turn": 2}, NewEvent(verb="advance"))
        assert await store.check() == []
    assert tables_of(path) >= EXPECTED_TABLES


def test_migrations_are_numbered_from_one() -> None:
    found = load_migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    assert latest_version() == len(found) >= 1
    for migration in found:
        assert split_statements(migration.sql), migration.name


async def test_from_a_missing_file(tmp_path: Path) -> None:
    await assert_usable_at_latest(tmp_path / "new.db")


async def test_from_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    await assert_usable_at_latest(path)


@pytest.mark.parametrize("start", range(latest_version()))
async def test_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    path = tmp_path / f"at-{start}.db"
    connection = raw_connection(path)
    try:
        assert apply_migrations(connection, str(path), target=start) == list(range(1, start + 1))
        assert migrations.read_user_version(connection) == start
    finally:
        connection.close()
    await assert_usable_at_latest(path)


async def test_migrating_twice_is_a_no_op(db_path: Path) -> None:
    async with await SqliteStore.open(db_path):
        pass
    connection = raw_connection(db_path)
    try:
        assert apply_migrations(connection, str(db_path)) == []
    finally:
        connection.close()


async def test_older_schema_without_migrate_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    path.write_bytes(b"")
    with pytest.raises(SchemaError, match="no Arbitro database here"):
        await SqliteStore.open(path, migrate=False)


async def test_missing_file_without_create_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "typo.db"
    with pytest.raises(SchemaError, match="no database file here"):
        await SqliteStore.open(path, create=False)
    assert not path.exists()


async def test_concurrent_first_opens_migrate_once(db_path: Path) -> None:
    opened = await asyncio.gather(
        *(SqliteStore.open(db_path) for _ in range(4)), return_exceptions=True
    )
    stores = [store for store in opened if isinstance(store, SqliteStore)]
    try:
        assert stores == opened
        versions = await asyncio.gather(*(store.schema_version() for store in stores))
        assert versions == [latest_version()] * 4
        await new_game(stores[0], 1)
        assert (await stores[3].load(1)).version == 1
    finally:
        for store in stores:
            await store.close()


def test_a_failing_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = Migration(
        version=latest_version() + 1,
        name="9999_broken.sql",
        sql="CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n",
    )
    shipped = load_migrations()
    monkeypatch.setattr(migrations, "load_migrations", lambda: (*shipped, broken))
    path = tmp_path / "broken.db"
    connection = raw_connection(path)
    try:
        with pytest.raises(SchemaError, match=r"migration 9999_broken\.sql failed"):
            apply_migrations(connection, str(path))
        assert migrations.read_user_version(connection) == len(shipped)
        assert "half_done" not in tables_of(path)
    finally:
        connection.close()


def test_split_statements_keeps_triggers_and_strings_whole() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    CREATE TRIGGER g BEFORE UPDATE ON t
    BEGIN
        SELECT RAISE(ABORT, 'no; never');
    END;
    -- trailing comment
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    connection = sqlite3.connect(":memory:")
    for statement in statements:
        connection.execute(statement)
    with pytest.raises(ValueError):
        split_statements("CREATE TABLE u (x)")


# ---- PostgreSQL (db/migrations_pg) ----------------------------------------------------


def test_postgres_migrations_are_numbered_from_one() -> None:
    found = migrations_pg.load_migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    assert migrations_pg.latest_version() == len(found) >= 1


async def test_postgres_from_an_empty_schema_twice_and_refusals(pg_url: str) -> None:
    with pytest.raises(SchemaError, match="no Arbitro database here"):
        await PostgresStore.open(pg_url, migrate=False)
    async with await PostgresStore.open(pg_url) as store:
        assert await store.schema_version() == migrations_pg.latest_version()
        await new_game(store, 1)
        await store.commit(1, 1, {"turn": 2}, NewEvent(verb="advance"))
        assert await store.check() == []
    connection = await asyncpg.connect(pg_url)
    try:
        assert await migrations_pg.apply_migrations(connection, "test") == []
        assert await migrations_pg.read_version(connection) == migrations_pg.latest_version()
    finally:
        await connection.close()
    async with await PostgresStore.open(pg_url, create=False, migrate=False) as store:
        assert (await store.load(1)).version == 2


async def test_postgres_concurrent_first_opens_migrate_once(pg_url: str) -> None:
    opened = await asyncio.gather(
        *(PostgresStore.open(pg_url) for _ in range(4)), return_exceptions=True
    )
    stores = [store for store in opened if isinstance(store, PostgresStore)]
    try:
        assert stores == opened
        await new_game(stores[0], 1)
        assert (await stores[3].load(1)).version == 1
        connection = await asyncpg.connect(pg_url)
        try:
            rows = await connection.fetch("SELECT version FROM arbitro_schema")
        finally:
            await connection.close()
        assert sorted(row[0] for row in rows) == list(range(1, migrations_pg.latest_version() + 1))
    finally:
        for store in stores:
            await store.close()


async def test_postgres_failing_migration_leaves_the_previous_version(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = migrations_pg.load_migrations()
    broken = migrations_pg.Migration(
        version=len(shipped) + 1,
        name="9999_broken.sql",
        sql="CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n",
    )
    monkeypatch.setattr(migrations_pg, "load_migrations", lambda: (*shipped, broken))
    with pytest.raises(SchemaError, match=r"migration 9999_broken\.sql failed"):
        await PostgresStore.open(pg_url)
    connection = await asyncpg.connect(pg_url)
    try:
        assert await migrations_pg.read_version(connection) == len(shipped)
        tables = await connection.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        assert "half_done" not in {row[0] for row in tables}
    finally:
        await connection.close()


# ---- migration 8: whole documents become snapshots and patches --------------------------

HISTORY_CHANNEL = 31


async def _long_game_bundle(tmp_path: Path) -> dict:
    """The export of a game of 40 versions (commits, undos, an end), with every state."""
    async with await SqliteStore.open(tmp_path / "source.db") as store:
        await new_game(store, HISTORY_CHANNEL, document={"turn": 1, "log": [], "units": {}})
        version = 1
        for turn in range(2, 36):
            document = {
                "turn": turn,
                "log": [f"turn {n}" for n in range(turn)],
                "units": {f"u{n}": {"models": turn - n} for n in range(turn % 7)},
            }
            result = await store.commit(
                HISTORY_CHANNEL, version, document, NewEvent(verb="advance", dice=[turn % 6])
            )
            version = result.event.seq
            if turn % 9 == 0:
                version = (await store.undo(HISTORY_CHANNEL)).event.seq
        await store.end_game(HISTORY_CHANNEL)
        return as_before_salts((await store.export(HISTORY_CHANNEL)).to_json_dict())


async def _assert_same_history(store: object, bundle: dict) -> None:
    after = (await store.export(HISTORY_CHANNEL)).to_json_dict()  # type: ignore[attr-defined]
    for key in ("game", "events", "states", "head_hash"):
        assert after[key] == bundle[key], key
    for state in bundle["states"]:
        stored = await store.state_at(HISTORY_CHANNEL, state["version"])  # type: ignore[attr-defined]
        assert stored.document == state["document"]
    assert await store.check() == []  # type: ignore[attr-defined]


async def _plays_on(store: Any, bundle: dict) -> None:
    """The migrated game plays on (an undo reopens it): the new version is a snapshot by
    size or not, and every version still reads and verifies, the old snapshots included."""
    head = bundle["game"]["version"]
    result = await store.undo(HISTORY_CHANNEL)
    assert result.version == head + 1
    versions = await store.history_page(HISTORY_CHANNEL, 0, head + 1, 1000)
    added = versions[-1]
    assert added.patch is not None and added.full is not None
    # The migrated head's run of patches counts from 0 (migration 10 records none).
    assert added.snapshot == (len(added.patch[1]) > len(added.full[1]) / 2)
    assert [v.seq for v in versions if v.snapshot][:2] == [16, 32]
    for state in bundle["states"]:
        assert (await store.state_at(HISTORY_CHANNEL, state["version"])).document == (
            state["document"]
        )
    assert await store.check() == []


async def test_migration_8_keeps_every_state_of_a_long_game(tmp_path: Path) -> None:
    bundle = await _long_game_bundle(tmp_path)
    assert bundle["game"]["version"] > 32
    path = tmp_path / "at-7.db"
    connection = raw_connection(path)
    try:
        apply_migrations(connection, str(path), target=7)
        connection.execute("PRAGMA foreign_keys = ON")
        insert_at_schema_7(connection, bundle)
        assert connection.execute("SELECT count(*) FROM states").fetchone()[0] == len(
            bundle["states"]
        )
        # Schema 9, the layout of the release before 10: snapshots at the multiples of 16.
        apply_migrations(connection, str(path), target=9)
        before = [row[0] for row in connection.execute("SELECT version FROM states ORDER BY 1")]
    finally:
        connection.close()

    async with await SqliteStore.open(path) as store:  # migrates to 10
        assert await store.schema_version() == latest_version() >= 10
        await _assert_same_history(store, bundle)
    connection = raw_connection(path)
    try:
        kept = [row[0] for row in connection.execute("SELECT version FROM states ORDER BY 1")]
        patches = connection.execute("SELECT count(*) FROM patches").fetchone()[0]
        recorded = [
            row[0]
            for row in connection.execute("SELECT version FROM patches WHERE snapshot ORDER BY 1")
        ]
    finally:
        connection.close()
    head = bundle["game"]["version"]
    assert before == kept == [1, 16, 32, head]
    assert patches == head - 1
    assert recorded == [16, 32]  # migration 10 records the snapshots the game has
    async with await SqliteStore.open(path) as store:
        await _plays_on(store, bundle)


async def test_postgres_migration_8_keeps_every_state_of_a_long_game(
    tmp_path: Path, pg_url: str
) -> None:
    bundle = await _long_game_bundle(tmp_path)
    connection = await asyncpg.connect(pg_url)
    try:
        await migrations_pg.apply_migrations(connection, "test", target=7)
        await insert_at_schema_7_pg(connection, bundle)
    finally:
        await connection.close()

    connection = await asyncpg.connect(pg_url)
    try:  # schema 9, the layout of the release before 10: snapshots at the multiples of 16
        await migrations_pg.apply_migrations(connection, "test", target=9)
        before = [row[0] for row in await connection.fetch("SELECT version FROM states ORDER BY 1")]
    finally:
        await connection.close()

    async with await PostgresStore.open(pg_url) as store:  # migrates to 10
        assert await store.schema_version() == migrations_pg.latest_version() >= 10
        await _assert_same_history(store, bundle)
    connection = await asyncpg.connect(pg_url)
    try:
        kept = [row[0] for row in await connection.fetch("SELECT version FROM states ORDER BY 1")]
        patches = await connection.fetchval("SELECT count(*) FROM patches")
        recorded = await connection.fetch("SELECT version FROM patches WHERE snapshot ORDER BY 1")
    finally:
        await connection.close()
    head = bundle["game"]["version"]
    assert before == kept == [1, 16, 32, head]
    assert patches == head - 1
    assert [row[0] for row in recorded] == [16, 32]
    async with await PostgresStore.open(pg_url) as store:
        await _plays_on(store, bundle)


# ---- migration 9: the feature tables' rows become records ---------------------------------

FEATURE_CHANNEL = 4242
SET_AT = "2031-05-01T08:00:00.000000+00:00"
DUE_AT = "2031-05-04T12:00:00.000000+00:00"
LATER = "2031-05-05T12:00:00.000000+00:00"


async def _running_game_bundle(tmp_path: Path) -> dict:
    """The export of a short game still running, with a referee and a player."""
    async with await SqliteStore.open(tmp_path / "running.db") as store:
        await new_game(store, FEATURE_CHANNEL, referee_id=1)
        await store.add_member(FEATURE_CHANNEL, 2, side="rossi")
        for version in (1, 2, 3):
            await store.commit(FEATURE_CHANNEL, version, {"turn": version + 1}, NewEvent("go"))
        return as_before_salts((await store.export(FEATURE_CHANNEL)).to_json_dict())


#: Rows of every feature table of schema 8, as a schema-8 release wrote them (timestamps
#: as SQLite's text; PostgreSQL gets datetimes).
FEATURE_ROWS = {
    "deadlines (channel_id, side, due_at, reminded, set_at)": [
        (FEATURE_CHANNEL, "rossi", DUE_AT, False, SET_AT),
        (FEATURE_CHANNEL, "blu", LATER, True, SET_AT),
    ],
    "deadline_warnings (channel_id, side, due_at, sent_at)": [
        (FEATURE_CHANNEL, "rossi", DUE_AT, SET_AT),
        (999, "gone", DUE_AT, SET_AT),  # a game long gone: harmless, dropped
    ],
    "side_roles (channel_id, side, role_id)": [(FEATURE_CHANNEL, "blu", 4242)],
    "guild_settings (guild_id, creator_role_id)": [(900, 777), (901, None)],
    "pending_rolls (id, channel_id, user_id, version, verb, options, faces, bot_faces, "
    "die_sides, label, side, created_at)": [
        (
            57,
            FEATURE_CHANNEL,
            2,
            4,
            "fire",
            '{"unit":"sherman_1","distance":40}',
            "[7]",
            "[2,5]",
            12,
            "D12 — penetration",
            "rossi",
            SET_AT,
        )
    ],
}


def _insert_feature_rows_sqlite(connection: sqlite3.Connection) -> None:
    for table, rows in FEATURE_ROWS.items():
        width = len(rows[0])
        connection.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * width)})", rows)
    connection.execute("UPDATE games SET pace_hours = 12 WHERE channel_id = ?", (FEATURE_CHANNEL,))


async def _assert_features_moved(store: Any, tmp_path: Path) -> None:
    from bot.service.stored import deadlines, dice, roles, seats
    from bot.service.stored.table import open_table

    table = await open_table(store, FEATURE_CHANNEL)
    assert table.pace_hours == 12
    assert table.side_roles == (("blu", 4242),)
    assert [(d.side, d.due_at.isoformat(), d.reminded) for d in table.deadlines] == [
        ("rossi", "2031-05-04T12:00:00+00:00", False),
        ("blu", "2031-05-05T12:00:00+00:00", True),
    ]
    # The reminder owed is on the time index, the one sent is not; the warning was claimed.
    due = await deadlines.due_deadlines(store, table.deadlines[-1].due_at)
    assert [(d.channel_id, d.side) for d in due] == [(FEATURE_CHANNEL, "rossi")]
    warned = table.deadlines[0]
    assert not await deadlines.claim_warning(store, FEATURE_CHANNEL, "rossi", warned.due_at)
    assert await roles.creator_role(store, 900) == 777
    assert await roles.creator_role(store, 901) is None
    # The prompt keeps its id (its buttons still answer it); a new one gets a higher id.
    kept = await dice.pending_roll(store, FEATURE_CHANNEL, 57)
    assert kept is not None and kept.options == {"unit": "sherman_1", "distance": 40}
    assert (kept.faces, kept.bot_faces, kept.side, kept.version) == ([7], [2, 5], "rossi", 4)
    newer = await dice.save_pending_roll(store, replace(kept, faces=[7, 3]))
    assert newer.id > 57 and await dice.pending_roll(store, FEATURE_CHANNEL, 57) is None
    await seats.bind_side(store, FEATURE_CHANNEL, "rossi", 11)
    assert await store.check() == []


async def test_migration_9_moves_every_feature_row(tmp_path: Path) -> None:
    bundle = await _running_game_bundle(tmp_path)
    path = tmp_path / "at-8.db"
    connection = raw_connection(path)
    try:
        apply_migrations(connection, str(path), target=7)
        insert_at_schema_7(connection, bundle)
        apply_migrations(connection, str(path), target=8)  # the schema of the last release
        connection.execute("BEGIN")
        _insert_feature_rows_sqlite(connection)
        connection.execute("COMMIT")
    finally:
        connection.close()
    async with await SqliteStore.open(path) as store:  # migrates to 9
        assert await store.schema_version() == latest_version() >= 9
        assert (await store.export(FEATURE_CHANNEL)).to_json_dict()["events"] == bundle["events"]
        await _assert_features_moved(store, tmp_path)
    assert not tables_of(path) & {"deadlines", "deadline_warnings", "pending_rolls", "side_roles"}


async def test_postgres_migration_9_moves_every_feature_row(tmp_path: Path, pg_url: str) -> None:
    from db.models import parse_timestamp

    bundle = await _running_game_bundle(tmp_path)

    def stamped(row: tuple) -> tuple:
        return tuple(
            parse_timestamp(v) if isinstance(v, str) and v.startswith("2031-") else v for v in row
        )

    connection = await asyncpg.connect(pg_url)
    try:
        await migrations_pg.apply_migrations(connection, "test", target=7)
        await insert_at_schema_7_pg(connection, bundle)
        await migrations_pg.apply_migrations(connection, "test", target=8)
        async with connection.transaction():
            for table, rows in FEATURE_ROWS.items():
                marks = ", ".join(f"${n}" for n in range(1, len(rows[0]) + 1))
                sql = f"INSERT INTO {table} VALUES ({marks})"
                if table.startswith("pending_rolls"):
                    sql = sql.replace("VALUES", "OVERRIDING SYSTEM VALUE VALUES")
                await connection.executemany(sql, [stamped(row) for row in rows])
            await connection.execute(
                "UPDATE games SET pace_hours = 12 WHERE channel_id = $1", FEATURE_CHANNEL
            )
    finally:
        await connection.close()
    async with await PostgresStore.open(pg_url) as store:  # migrates to 9
        assert await store.schema_version() == migrations_pg.latest_version() >= 9
        assert (await store.export(FEATURE_CHANNEL)).to_json_dict()["events"] == bundle["events"]
        await _assert_features_moved(store, tmp_path)


# ---- migration 11: a campaign is a record of its own kind ----------------------------------

CAMPAIGN_CHANNEL, GAME_CHANNEL = 51, 52


async def _campaign_and_game_bundles(tmp_path: Path) -> list[dict]:
    """The exports of a campaign as the releases before 11 stored one (a row whose ruleset
    is "campaign", its state the document) and of a game beside it."""
    async with await SqliteStore.open(tmp_path / "kinds-source.db") as store:
        await store.create_game(
            CAMPAIGN_CHANNEL,
            guild_id=1,
            ruleset="campaign",
            language="it",
            document={"name": "Orbita", "games": []},
            status="active",
            referee_id=7,
            origin={"campaign": {"type": "created", "name": "Orbita"}},
        )
        await store.commit(
            CAMPAIGN_CHANNEL, 1, {"name": "Orbita", "games": [1]}, NewEvent(verb="campaign")
        )
        await new_game(store, GAME_CHANNEL)
        return [
            as_before_salts((await store.export(c)).to_json_dict())
            for c in (CAMPAIGN_CHANNEL, GAME_CHANNEL)
        ]


async def _assert_kinds_after_11(store: Any) -> None:
    """The campaign is one, its ruleset column kept; the game a game; both load, verify and
    play on; a kind flipped behind the store's back is refused."""
    campaign, game = await store.load(CAMPAIGN_CHANNEL), await store.load(GAME_CHANNEL)
    assert (campaign.kind, campaign.is_campaign, campaign.ruleset) == ("campaign", True, "campaign")
    assert (game.kind, game.is_campaign) == ("game", False)
    listed = {g.channel_id: g.kind for g in await store.all_games()}
    assert listed == {CAMPAIGN_CHANNEL: "campaign", GAME_CHANNEL: "game"}
    assert await store.check() == []
    await store.commit(CAMPAIGN_CHANNEL, 2, {"name": "Orbita", "games": [1, 2]}, NewEvent("x"))
    assert (await store.load(CAMPAIGN_CHANNEL)).is_campaign


async def test_migration_11_makes_the_campaigns_records_of_their_kind(tmp_path: Path) -> None:
    bundles = await _campaign_and_game_bundles(tmp_path)
    path = tmp_path / "at-10.db"
    file_at_schema(path, bundles, 10)  # the schema of the last release
    connection = raw_connection(path)
    try:
        sealed = dict(connection.execute("SELECT channel_id, rows_digest FROM games"))
    finally:
        connection.close()
    async with await SqliteStore.open(path) as store:  # migrates to 11
        assert await store.schema_version() == latest_version() >= 11
        await _assert_kinds_after_11(store)
    connection = raw_connection(path)
    try:
        resealed = dict(connection.execute("SELECT channel_id, rows_digest FROM games"))
        # Only the campaign was sealed anew: a game's checksum does not change.
        assert resealed[GAME_CHANNEL] == sealed[GAME_CHANNEL]
        assert resealed[CAMPAIGN_CHANNEL] != sealed[CAMPAIGN_CHANNEL]
        connection.execute(f"UPDATE games SET kind = 'game' WHERE channel_id = {CAMPAIGN_CHANNEL}")
    finally:
        connection.close()
    async with await SqliteStore.open(path) as store:
        with pytest.raises(TamperedGame):
            await store.load(CAMPAIGN_CHANNEL)


async def test_postgres_migration_11_makes_the_campaigns_records_of_their_kind(
    tmp_path: Path, pg_url: str
) -> None:
    bundles = await _campaign_and_game_bundles(tmp_path)
    await postgres_at_schema(pg_url, bundles, 10)
    connection = await asyncpg.connect(pg_url)
    try:
        sealed = dict(await connection.fetch("SELECT channel_id, rows_digest FROM games"))
    finally:
        await connection.close()
    async with await PostgresStore.open(pg_url) as store:  # migrates to 11
        assert await store.schema_version() == migrations_pg.latest_version() >= 11
        await _assert_kinds_after_11(store)
    connection = await asyncpg.connect(pg_url)
    try:
        resealed = dict(await connection.fetch("SELECT channel_id, rows_digest FROM games"))
        assert resealed[GAME_CHANNEL] == sealed[GAME_CHANNEL]
        assert resealed[CAMPAIGN_CHANNEL] != sealed[CAMPAIGN_CHANNEL]
        await connection.execute(
            "UPDATE games SET kind = 'game' WHERE channel_id = $1", CAMPAIGN_CHANNEL
        )
    finally:
        await connection.close()
    async with await PostgresStore.open(pg_url) as store:
        with pytest.raises(TamperedGame):
            await store.load(CAMPAIGN_CHANNEL)


# ---- migration 12: a secret salt per record -----------------------------------------------

NEW_CHANNEL = 72


async def _assert_unsalted_after_12(store: Any, bundle: dict) -> None:
    """The record stored before 12 keeps no salt and its chain as it was: it loads,
    verifies, exports whole, reads its old versions and plays on (a commit, an undo)
    unsalted; a record created now is salted."""
    assert await store.schema_version() == latest_version() >= 12
    record = await store.load(HISTORY_CHANNEL)
    assert record.state_salt is None and record.head_hash == bundle["head_hash"]
    assert await store.check() == []
    exported = (await store.export(HISTORY_CHANNEL)).to_json_dict()
    assert "state_salt" not in exported["game"] and exported["events"] == bundle["events"]
    assert verify_export(exported) == bundle["head_hash"]
    await _plays_on(store, bundle)
    added = (await store.events(HISTORY_CHANNEL))[-1]
    state = await store.state_at(HISTORY_CHANNEL, added.seq)
    assert added.state_hash == state_hash(canonical_json(state.document), state.status, None)
    # Its events, the old ones and the one added now, are hashed without a salt as before
    # 12 (`db.chain.hashing.event_hash`): each checked again from its fields, also on a
    # file that carries no salt (a seat's export).
    assert added.hash == compute_event_hash(added, added.prev_hash, salt=None)
    events = await store.events(HISTORY_CHANNEL)
    assert verify_chain(events, salt=None) == added.hash
    assert verify_links(exported) == bundle["head_hash"]
    edited = json.loads(json.dumps(exported))
    edited["events"][2]["args"] = {"forged": True}
    with pytest.raises(ChainBroken, match="content does not match its hash") as caught:
        verify_links(edited)
    assert caught.value.seq == 3
    await new_game(store, NEW_CHANNEL)
    assert (await store.export(NEW_CHANNEL)).state_salt is not None
    assert await store.check() == []


async def test_migration_12_keeps_the_unsalted_records_as_they_were(tmp_path: Path) -> None:
    bundle = await _long_game_bundle(tmp_path)
    path = tmp_path / "at-11.db"
    file_at_schema(path, [bundle], 11)  # the schema of the last release
    async with await SqliteStore.open(path) as store:  # migrates to 12
        await _assert_unsalted_after_12(store, bundle)


async def test_postgres_migration_12_keeps_the_unsalted_records_as_they_were(
    tmp_path: Path, pg_url: str
) -> None:
    bundle = await _long_game_bundle(tmp_path)
    await postgres_at_schema(pg_url, [bundle], 11)
    async with await PostgresStore.open(pg_url) as store:  # migrates to 12
        await _assert_unsalted_after_12(store, bundle)
