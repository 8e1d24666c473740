"""Corrupt rows, tampered history and foreign files give clear errors, not tracebacks."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from db.chain.hashing import verify_export
from db.drivers.sqlite import SqliteStore
from db.errors import ChainBroken, CorruptRecord, SchemaError
from db.migrations import APPLICATION_ID
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game, raw_connection


async def game_with_history(backend: Backend, channel_id: int = 7) -> None:
    async with await backend.open() as store:
        await new_game(store, channel_id, document={"turn": 1})
        for version in (1, 2, 3):
            await store.commit(channel_id, version, {"turn": version + 1}, NewEvent(verb="advance"))


async def tamper(backend: Backend, *statements: str) -> None:
    """Rewrite rows behind the store's back; ``{doc}`` is the hashed document column."""
    await backend.tamper(*(s.format(doc=backend.document_column) for s in statements))


async def test_document_that_is_not_json(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "UPDATE states SET {doc} = '{{\"turn\": 4,' WHERE version = 4")
    async with await backend.open() as store:
        with pytest.raises(CorruptRecord, match="channel 7") as caught:
            await store.load(7)
        assert "not valid JSON" in str(caught.value)
        assert caught.value.channel_id == 7
        assert caught.value.key == "store.corrupt_record"
        problems = await store.check()
        assert any(p.startswith("channel 7:") for p in problems)


async def test_document_that_is_not_an_object(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "UPDATE states SET {doc} = '[1, 2]' WHERE version = 4")
    async with await backend.open() as store:
        with pytest.raises(CorruptRecord, match="not a JSON object"):
            await store.load(7)


async def test_missing_current_state(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "DELETE FROM states WHERE channel_id = 7 AND version = 4")
    async with await backend.open() as store:
        with pytest.raises(CorruptRecord, match="state of version 4 is missing"):
            await store.load(7)
        assert await store.check() != []


async def test_unreadable_event(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "UPDATE events SET args = 'nope' WHERE seq = 2")
    async with await backend.open() as store:
        with pytest.raises(CorruptRecord, match=r"channel 7: .*event 2"):
            await store.events(7)


async def test_tampered_event_breaks_the_chain(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "UPDATE events SET dice = '[6,6]' WHERE channel_id = 7 AND seq = 3")
    async with await backend.open() as store:
        with pytest.raises(ChainBroken) as caught:
            await store.export(7)
        assert (caught.value.channel_id, caught.value.seq) == (7, 3)
        assert "channel 7" in str(caught.value)
        unverified = await store.export(7, verify=False)
        assert len(unverified.events) == 4
        assert any("event 3" in p for p in await store.check())


async def test_tampered_state_is_detected(backend: Backend) -> None:
    """Version 2 is kept as a patch from version 1 (db/chain/patch.py): an edited patch rebuilds
    a state that does not match the chain, wherever it is read — and the game is refused
    even where only its current version is read (docs/integrity.md)."""
    await game_with_history(backend)
    await tamper(backend, "UPDATE patches SET patch = '[[[\"turn\"],99]]' WHERE version = 2")
    async with await backend.open() as store:
        with pytest.raises(ChainBroken, match="state hash"):
            await store.export(7)
        with pytest.raises(ChainBroken, match="state hash"):
            await store.state_at(7, 2)
        assert any("event 2" in problem for problem in await store.check())
        with pytest.raises(ChainBroken, match="event 2"):
            await store.load(7)


async def test_tampered_snapshot_is_detected(backend: Backend) -> None:
    """A kept full document (version 1, every 16th, the head) is checked the same way."""
    await game_with_history(backend)
    await tamper(backend, "UPDATE states SET {doc} = '{{\"turn\":99}}' WHERE version = 1")
    async with await backend.open() as store:
        with pytest.raises(ChainBroken, match="event 1"):
            await store.export(7)
        assert any("event 1" in problem for problem in await store.check())


async def test_missing_patch_is_detected(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "DELETE FROM patches WHERE channel_id = 7 AND version = 3")
    async with await backend.open() as store:
        with pytest.raises(ChainBroken, match=r"event 3 \(its patch is missing\)"):
            await store.state_at(7, 3)
        assert any("event 3" in problem for problem in await store.check())


async def test_truncated_log_is_detected(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(
        backend, "DELETE FROM events WHERE seq = 4", "DELETE FROM states WHERE version = 4"
    )
    async with await backend.open() as store:
        problems = await store.check()
        assert "channel 7: version 4 but 3 events" in problems
        with pytest.raises(ChainBroken):
            await store.export(7)


async def test_jsonb_copy_that_drifted_from_the_hashed_text(pg_url: str) -> None:
    """PostgreSQL keeps a JSONB copy of each document; the audit notices if it disagrees."""
    backend = Backend("postgres", pg_url)
    await game_with_history(backend)
    await tamper(backend, "UPDATE states SET document = '{{\"turn\": 42}}' WHERE version = 1")
    async with await backend.open() as store:
        assert (await store.state_at(7, 1)).document == {"turn": 1}  # Reads use the text.
        assert await store.check() == ["channel 7: the JSONB copy of state 1 differs from its text"]


async def test_tampered_export_fails_verification(store: SqliteStore) -> None:
    await new_game(store, 8, document={"turn": 1})
    await store.commit(8, 1, {"turn": 2}, NewEvent(verb="advance", dice=[3]))
    data = json.loads(json.dumps((await store.export(8)).to_json_dict()))
    assert verify_export(data)

    edited = json.loads(json.dumps(data))
    edited["events"][1]["dice"] = [6]
    with pytest.raises(ChainBroken, match="event 2"):
        verify_export(edited)

    edited = json.loads(json.dumps(data))
    edited["states"][0]["document"]["turn"] = 0
    with pytest.raises(ChainBroken, match="state hash"):
        verify_export(edited)

    edited = json.loads(json.dumps(data))
    del edited["events"][1]
    with pytest.raises(ChainBroken):
        verify_export(edited)


async def test_newer_schema_is_refused_untouched(db_path: Path) -> None:
    await game_with_history(Backend("sqlite", str(db_path)))
    await tamper(Backend("sqlite", str(db_path)), "PRAGMA user_version = 999")
    before = await asyncio.to_thread(db_path.read_bytes)
    with pytest.raises(SchemaError, match="newer than this Arbitro knows") as caught:
        await SqliteStore.open(db_path)
    assert str(db_path) in str(caught.value)
    assert await asyncio.to_thread(db_path.read_bytes) == before


async def test_not_an_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my campaign notes, not a database\n" * 200)
    before = path.read_bytes()
    with pytest.raises(SchemaError, match="not an SQLite database"):
        await SqliteStore.open(path)
    assert path.read_bytes() == before


async def test_foreign_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE recipes (name TEXT)")
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(SchemaError, match="not an Arbitro database"):
        await SqliteStore.open(path)
    assert path.read_bytes() == before


async def test_foreign_application_id(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA application_id = 1234")
    connection.execute("PRAGMA user_version = 1")
    connection.close()
    with pytest.raises(SchemaError, match="application id 0x4d2"):
        await SqliteStore.open(path)


async def test_missing_table(backend: Backend) -> None:
    await game_with_history(backend)
    await tamper(backend, "DROP TABLE records")
    with pytest.raises(SchemaError, match="missing tables records"):
        await backend.open()


async def test_newer_postgres_schema_is_refused(pg_url: str) -> None:
    backend = Backend("postgres", pg_url)
    await game_with_history(backend)
    await tamper(backend, "INSERT INTO arbitro_schema (version, name) VALUES (999, 'future')")
    with pytest.raises(SchemaError, match="newer than this Arbitro knows") as caught:
        await backend.open()
    assert "***" not in str(caught.value) and "postgresql://" in str(caught.value)


async def test_foreign_postgres_database(pg_url: str) -> None:
    backend = Backend("postgres", pg_url)
    await backend.execute("CREATE TABLE recipes (name TEXT)")
    with pytest.raises(SchemaError, match="not an Arbitro database"):
        await backend.open()
    with pytest.raises(SchemaError, match="no Arbitro database here"):
        await Backend("postgres", pg_url.replace("search_path=", "search_path=x")).open(
            create=False
        )


async def test_damaged_pages_are_reported_not_raised_raw(db_path: Path) -> None:
    async with await SqliteStore.open(db_path) as store:
        for channel_id in range(40):
            await new_game(store, channel_id, document={"filler": "x" * 3000})
    data = bytearray(await asyncio.to_thread(db_path.read_bytes))
    page_size = 4096
    # Scribble over the middle of the file, leaving the header page intact.
    for offset in range(page_size * 3, min(len(data), page_size * 8)):
        data[offset] = 0x5A
    await asyncio.to_thread(db_path.write_bytes, bytes(data))
    # Depending on which pages were hit, opening already fails or the audit finds it.
    try:
        async with await SqliteStore.open(db_path) as store:
            problems = await store.check()
            assert problems and problems[0].startswith("integrity:")
    except SchemaError as error:
        assert str(db_path) in str(error) and "damaged" in str(error)


async def test_application_id_is_set(sqlite_store: SqliteStore, db_path: Path) -> None:
    connection = raw_connection(db_path)
    try:
        assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    finally:
        connection.close()


HEAD_EDITS = {
    "current state": (
        "UPDATE states SET {doc} = '{{\"turn\":99}}' WHERE channel_id = 7 AND version = 4"
    ),
    "die of the latest event": "UPDATE events SET dice = '[6,6]' WHERE channel_id = 7 AND seq = 4",
    "resolution of the latest event": (
        'UPDATE events SET resolution = \'[{{"outcome":"hit"}}]\' WHERE channel_id = 7 AND seq = 4'
    ),
}


@pytest.mark.parametrize("edit", sorted(HEAD_EDITS))
async def test_every_load_checks_the_head_of_the_chain(backend: Backend, edit: str) -> None:
    """The bot refuses a game whose current state or latest event was edited, cheaply at
    load (not only a full `db check`), and `db check` reports the same game."""
    from db.errors import TamperedGame

    await game_with_history(backend)
    await game_with_history(backend, channel_id=8)
    await tamper(backend, HEAD_EDITS[edit])
    async with await backend.open() as store:
        with pytest.raises(TamperedGame) as caught:
            await store.load(7)
        assert caught.value.channel_id == 7
        with pytest.raises(TamperedGame):
            await store.open_command(7)
        assert (await store.load(8)).version == 4  # the other game plays on
        problems = await store.check()
        assert problems and all(p.startswith("channel 7:") for p in problems), problems
