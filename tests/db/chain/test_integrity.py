"""The checksum of the rows the hash chain does not cover (members, deadlines, settings).

Every edit made behind the store's back is refused by `load` with `TamperedGame`, and
`check` (``arbitro db check``) reports exactly the same games; every write through the
store keeps the game loadable. Both backends.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from db import migrations
from db.chain.hashing import CHAINED_FIELDS, canonical_json, event_hash
from db.chain.integrity import stored_event_hash
from db.chain.rows import unpack_text
from db.core.common import EVENT_COLUMNS, covered_rows_problem
from db.drivers.sqlite import SqliteStore
from db.drivers.sqlite_sync import run
from db.errors import TamperedGame
from db.models import NewEvent, Scope
from tests.db.conftest import Backend
from tests.db.helpers import new_game, raw_connection

REFEREE, PLAYER = 100, 200
DUE = datetime(2031, 5, 4, 12, 0, tzinfo=UTC)

# Each edit as a tamperer would type it (the same SQL runs on both backends).
EDITS = {
    "member promoted to referee": "UPDATE members SET role = 'referee' WHERE user_id = 200",
    "side changed": "UPDATE members SET side = 'blu' WHERE user_id = 200",
    "member removed": "DELETE FROM members WHERE user_id = 200",
    "member added": "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
    "VALUES (7, 300, 'referee', NULL, '2030-01-01T00:00:00.000000+00:00')",
    "record moved": "UPDATE records SET due_at = '2040-01-01T00:00:00.000000+00:00'",
    "record edited": 'UPDATE records SET value = \'{"side":"blu"}\'',
    "record removed": "DELETE FROM records",
    "record added": "INSERT INTO records (feature, scope, channel_id, key, value, revision, "
    "created_at, sealed) VALUES ('side_role', 7, 7, 'blu', '{}', 1, "
    "'2030-01-01T00:00:00.000000+00:00', TRUE)",
    "language": "UPDATE games SET language = 'fr' WHERE channel_id = 7",
    "ruleset": "UPDATE games SET ruleset = 'pzgren' WHERE channel_id = 7",
    "kind": "UPDATE games SET kind = 'campaign' WHERE channel_id = 7",
    "created_at": "UPDATE games SET created_at = '2020-01-01T00:00:00.000000+00:00' "
    "WHERE channel_id = 7",
    "guild": "UPDATE games SET guild_id = 1 WHERE channel_id = 7",
    "checksum dropped": "UPDATE games SET rows_digest = NULL WHERE channel_id = 7",
}


async def seated_game(backend: Backend) -> None:
    """Channel 7: a referee, a player on ``rossi`` with a deadline; channel 8 untouched."""
    async with await backend.open() as store:
        await new_game(store, 7, referee_id=REFEREE)
        await store.add_member(7, PLAYER, side="rossi")
        await put_deadline(store, 7, "rossi", DUE)
        await new_game(store, 8, referee_id=REFEREE)


async def put_deadline(store: Any, channel_id: int, side: str, due: datetime) -> Any:
    """A sealed record on the time index, as the deadlines feature keeps one."""
    return await store.feature_put(
        "deadline",
        Scope.of_game(channel_id),
        side,
        {"due": due.isoformat()},
        due_at=due,
        sealed=True,
    )


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_an_edited_row_is_refused_and_db_check_agrees(backend: Backend, edit: str) -> None:
    await seated_game(backend)
    await backend.tamper(EDITS[edit])
    async with await backend.open() as store:
        with pytest.raises(TamperedGame) as caught:
            await store.load(7)
        assert caught.value.key == "store.tampered_game"
        assert caught.value.channel_id == 7
        await store.load(8)  # the other game is untouched
        problems = await store.check()
        # Exactly the games the bot refuses: channel 7, never channel 8.
        assert problems and all(p.startswith("channel 7:") for p in problems), problems
        assert any("altered outside the bot" in p for p in problems)


async def test_every_store_write_keeps_the_game_loadable(backend: Backend) -> None:
    await seated_game(backend)
    async with await backend.open() as store:
        await store.add_member(7, PLAYER, side="blu")  # change of side
        await store.add_member(7, 300, side="rossi")
        await store.add_member(7, 300, role="referee")  # promotion through the store
        assert await store.remove_member(7, 300)
        assert not await store.remove_member(7, 301)
        await put_deadline(store, 7, "blu", DUE + timedelta(hours=1))
        moved = await put_deadline(store, 7, "rossi", DUE + timedelta(hours=2))
        assert await store.feature_delete("deadline", Scope.of_game(7), "blu")
        assert not await store.feature_delete("deadline", Scope.of_game(7), "verdi")
        assert await store.feature_put(
            "deadline", Scope.of_game(7), "rossi", {}, sealed=True, expected_revision=moved.revision
        )
        # Records a feature does not seal are not covered (a claim, a prompt).
        assert await store.feature_put("claim", Scope.of_game(7), "x", {}, if_absent=True)
        assert await store.feature_put("prompt", Scope.of_game(7), "1", {"n": 1}, renew=True)
        await store.load(7)
        assert await store.check() == []


async def test_a_copied_game_is_sealed(backend: Backend, tmp_path: Path) -> None:
    """`restore_game` and `restore_records` (``arbitro db copy``) write members and
    sealed records: they reseal."""
    await seated_game(backend)
    async with await backend.open() as source:
        bundle = await source.export(7)
        copied = await source.all_records()
    async with await SqliteStore.open(tmp_path / "copy.db") as target:
        await target.restore_game(bundle)
        await target.restore_game(await _export_of(backend, 8))
        await target.restore_records(copied)
        record = await target.load(7)
        assert record.ruleset == "manovra"
        assert [r.key for r in await target.feature_list("deadline", Scope.of_game(7))] == ["rossi"]
        assert await target.check() == []


async def test_a_campaigns_kind_is_sealed_and_copied(backend: Backend, tmp_path: Path) -> None:
    """A campaign's kind is covered as a game's is (a campaign made a game is refused) and
    travels with its export into a copy."""
    async with await backend.open() as store:
        await store.create_game(
            9, guild_id=1, ruleset="w40k4", language="it", document={"name": "Orbita"},
            referee_id=REFEREE, kind="campaign",
        )  # fmt: skip
        assert (await store.load(9)).is_campaign
        bundle = await store.export(9)
    assert bundle.to_json_dict()["game"]["kind"] == "campaign"
    async with await SqliteStore.open(tmp_path / "copy.db") as target:
        await target.restore_game(bundle)
        assert (await target.load(9)).kind == "campaign"
        assert await target.check() == []
    await backend.tamper("UPDATE games SET kind = 'game' WHERE channel_id = 9")
    async with await backend.open() as store:
        with pytest.raises(TamperedGame):
            await store.load(9)
        problems = await store.check()
        assert problems and all(p.startswith("channel 9:") for p in problems), problems


async def _export_of(backend: Backend, channel_id: int) -> Any:
    async with await backend.open() as source:
        return await source.export(channel_id)


def _at_version(path: Path, version: int) -> sqlite3.Connection:
    connection = raw_connection(path)
    migrations.apply_migrations(connection, str(path), target=version)
    return connection


async def test_migration_6_seals_existing_games(tmp_path: Path) -> None:
    """A file from before the checksum: its games are sealed as they are when migrating."""
    path = tmp_path / "old.db"
    connection = _at_version(path, 5)
    try:
        stamp = "2026-01-01T00:00:00.000000+00:00"
        connection.execute(
            "INSERT INTO games (channel_id, guild_id, ruleset, language, status, version, "
            "created_at, updated_at) VALUES (7, NULL, 'manovra', 'it', 'setup', 1, ?, ?)",
            (stamp, stamp),
        )
        connection.execute(
            "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
            "VALUES (7, 100, 'referee', NULL, ?)",
            (stamp,),
        )
    finally:
        connection.close()
    connection = raw_connection(path)
    try:
        assert migrations.apply_migrations(connection, str(path)) == list(
            range(6, migrations.latest_version() + 1)
        )
        digest = connection.execute("SELECT rows_digest FROM games").fetchone()[0]
        assert isinstance(digest, str) and len(digest) == 64
        assert run(connection, covered_rows_problem(7)) is None
        connection.execute("UPDATE members SET role = 'player'")
        assert run(connection, covered_rows_problem(7)) is not None
    finally:
        connection.close()


async def test_load_gives_the_chain_head(backend: Backend) -> None:
    """The anchor under every reply: the hash of the event at the game's version."""
    async with await backend.open() as store:
        created = await store.create_game(
            7, guild_id=1, ruleset="manovra", language="it", document={"turn": 1}
        )
        events = await store.events(7)
        assert created.head_hash == events[-1].hash == (await store.load(7)).head_hash
        result = await store.end_game(7)
        assert (await store.load(7)).head_hash == result.event.hash != created.head_hash


async def test_a_tampered_game_is_not_laundered_by_a_copy(backend: Backend, tmp_path: Path) -> None:
    """`arbitro db copy` would seal the edited rows anew on arrival: it refuses instead."""
    from db.tools.copy import copy_games

    await seated_game(backend)
    await backend.tamper(EDITS["member promoted to referee"])
    async with await backend.open() as source, await SqliteStore.open(tmp_path / "c.db") as copy:
        with pytest.raises(TamperedGame):
            await copy_games(source, copy)
        assert [game.channel_id for game in await copy.all_games()] == []


async def test_postgres_migration_6_seals_existing_games(pg_url: str) -> None:
    import asyncpg

    from db import migrations_pg
    from db.drivers.postgres import PostgresStore

    connection = await asyncpg.connect(pg_url)
    try:
        await migrations_pg.apply_migrations(connection, "test", target=5)
        stamp = datetime(2026, 1, 1, tzinfo=UTC)
        await connection.execute(
            "INSERT INTO games (channel_id, guild_id, ruleset, language, status, version, "
            "created_at, updated_at) VALUES (7, NULL, 'manovra', 'it', 'setup', 1, $1, $1)",
            stamp,
        )
        await connection.execute(
            "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
            "VALUES (7, 100, 'referee', NULL, $1)",
            stamp,
        )
    finally:
        await connection.close()
    async with await PostgresStore.open(pg_url) as store:
        assert await store.schema_version() == migrations_pg.latest_version()
        problems = await store.check()
        # The hand-made game has no events (the chain complains), but its rows are sealed.
        assert problems and not any("altered outside the bot" in p for p in problems), problems
    await Backend("postgres", pg_url).tamper("UPDATE members SET role = 'player'")
    async with await PostgresStore.open(pg_url) as store:
        assert any("altered outside the bot" in p for p in await store.check())


async def test_a_stored_event_row_hashes_as_the_chain_recipe_says(tmp_path: Path) -> None:
    """`stored_event_hash` writes the recipe's canonical fields out by hand (for speed):
    the hash of every stored row, however its texts were stored (compressed, empty,
    null, non-ASCII), is the recipe's, and the row's own."""
    async with await SqliteStore.open(tmp_path / "events.db") as store:
        version = await new_game(store, 7)
        for n in range(4):
            event = NewEvent(
                verb="fire" if n % 2 else "roll",
                args={"unit": "squadra è", "n": n, "note": "x" * 300 * (n % 2)},
                dice=[{"die": "D10", "face": n + 1}] if n else [],
                resolution=[{"odds": [0.25, 1e-05]}] * (40 * n),
                actor_id=None if n == 3 else REFEREE,
            )
            version = (await store.commit(7, version, {"turn": n}, event)).version
        await store.undo(7)
        salt = (await store.export(7)).state_salt
    connection = raw_connection(tmp_path / "events.db")
    try:
        rows = connection.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY seq").fetchall()
    finally:
        connection.close()
    assert len(rows) == 6 and any(isinstance(row[7], bytes) for row in rows)  # compressed
    for row in rows:
        fields = {
            "actor_id": canonical_json(row[3]),
            "args": unpack_text(row[5]),
            "channel_id": canonical_json(row[0]),
            "created_at": canonical_json(row[11]),
            "dice": unpack_text(row[6]),
            "interaction_id": canonical_json(row[2]),
            "resolution": unpack_text(row[7]),
            "seq": canonical_json(row[1]),
            "state_hash": canonical_json(row[9]),
            "state_version": canonical_json(row[8]),
            "undoes_seq": canonical_json(row[10]),
            "verb": canonical_json(row[4]),
        }
        assert sorted(fields) == sorted(CHAINED_FIELDS)
        salted = stored_event_hash(row, row[11], salt)
        assert salted == event_hash(row[12], fields, salt=salt) == row[13]
        # As a record stored before schema 12 would be hashed: the same recipe, no salt.
        assert stored_event_hash(row, row[11], None) == event_hash(row[12], fields, salt=None)
