"""The store's API on a real file: games, commits, events, members, deadlines, export."""

from __future__ import annotations

import asyncio
import inspect
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.service.stored import deadlines
from db.chain.hashing import GENESIS_HASH, verify_chain, verify_export
from db.drivers.postgres import PostgresStore
from db.drivers.sqlite import SqliteStore
from db.errors import (
    ArchiveNotFound,
    GameEnded,
    GameExists,
    GameNotEnded,
    GameNotFound,
    StoreUnavailable,
    VersionConflict,
)
from db.models import NewEvent
from db.protocol import GameStore
from tests.db.conftest import Backend
from tests.db.helpers import GUILD, new_game, on_store, sample_document


def move(n: int) -> NewEvent:
    """A typical player event."""
    return NewEvent(
        verb="move",
        args={"unit": f"squad-{n}", "distance_cm": 15},
        dice=[{"die": "d10", "value": 7, "label": "IT"}],
        resolution={"outcome": "moved", "steps": [{"modifier": -1}]},
        actor_id=42,
    )


@pytest.mark.parametrize("implementation", [SqliteStore, PostgresStore])
def test_stores_implement_the_protocol(implementation: type) -> None:
    # Static conformance is mypy's job; this catches a renamed method or parameter.
    for name, member in vars(GameStore).items():
        if name.startswith("_") or not inspect.iscoroutinefunction(member):
            continue
        implemented = getattr(implementation, name)
        assert inspect.iscoroutinefunction(implemented), name
        assert list(inspect.signature(implemented).parameters) == list(
            inspect.signature(member).parameters
        ), name


async def test_pragmas_are_set(sqlite_store: SqliteStore) -> None:
    journal, synchronous, foreign_keys, busy_timeout = [
        await on_store(sqlite_store, f"PRAGMA {name}")
        for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
    ]
    assert journal == "wal"
    assert synchronous == 2  # FULL
    assert foreign_keys == 1
    assert busy_timeout == 5000


async def test_create_then_load(store: SqliteStore) -> None:
    record = await store.create_game(
        10,
        guild_id=GUILD,
        ruleset="manovra",
        language="it",
        document=sample_document(),
        actor_id=7,
        interaction_id="create-10",
    )
    assert record.version == 1
    assert record.status == "setup"
    loaded = await store.load(10)
    assert loaded == record
    assert loaded.document == sample_document()
    assert loaded.created_at.tzinfo is not None

    [created] = await store.events(10)
    assert created.verb == "game.created"
    assert created.seq == created.state_version == 1
    assert created.prev_hash == GENESIS_HASH
    assert created.actor_id == 7
    assert created.args == {"ruleset": "manovra", "language": "it", "guild_id": GUILD}


async def test_create_accepts_json_text(store: SqliteStore) -> None:
    await new_game(store, 11, document='{"b": 1, "a": [true, null]}')
    assert (await store.load(11)).document == {"a": [True, None], "b": 1}


async def test_document_must_be_an_object(store: SqliteStore) -> None:
    with pytest.raises(TypeError):
        await new_game(store, 12, document="[1, 2]")
    with pytest.raises(ValueError):
        await new_game(store, 12, document={"x": float("nan")})
    with pytest.raises(GameNotFound):
        await store.load(12)


async def test_one_game_per_channel(store: SqliteStore) -> None:
    await new_game(store, 20)
    with pytest.raises(GameExists) as caught:
        await new_game(store, 20)
    assert caught.value.channel_id == 20
    assert caught.value.key == "store.game_exists"


async def test_load_unknown_channel(store: SqliteStore) -> None:
    with pytest.raises(GameNotFound, match="channel 404"):
        await store.load(404)
    with pytest.raises(GameNotFound):
        await store.events(404)
    with pytest.raises(GameNotFound):
        await store.commit(404, 1, {}, move(1))


async def test_commit_advances_version_and_logs_event(store: SqliteStore) -> None:
    version = await new_game(store, 30)
    result = await store.commit(30, version, sample_document(turn=2), move(1))
    assert (result.version, result.seq, result.duplicate) == (2, 2, False)
    assert result.event.args == {"unit": "squad-1", "distance_cm": 15}
    assert result.event.dice == [{"die": "d10", "value": 7, "label": "IT"}]

    loaded = await store.load(30)
    assert loaded.version == 2
    assert loaded.document["turn"] == 2
    events = await store.events(30)
    assert [event.seq for event in events] == [1, 2]
    assert events[1] == result.event
    assert verify_chain(events, salt=(await store.export(30)).state_salt) == result.event.hash


async def test_commit_can_change_status(store: SqliteStore) -> None:
    await new_game(store, 31)
    await store.commit(31, 1, sample_document(), move(1), status="active")
    assert (await store.load(31)).status == "active"
    with pytest.raises(ValueError):
        await store.commit(31, 2, sample_document(), move(2), status="ended")
    with pytest.raises(ValueError):
        await store.commit(31, 2, sample_document(), NewEvent(verb="undo"))


async def test_stale_version_is_refused(store: SqliteStore) -> None:
    await new_game(store, 32)
    await store.commit(32, 1, sample_document(turn=2), move(1))
    with pytest.raises(VersionConflict) as caught:
        await store.commit(32, 1, sample_document(turn=9), move(2))
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert caught.value.params == {"channel_id": 32, "expected": 1, "actual": 2}
    assert (await store.load(32)).document["turn"] == 2
    assert len(await store.events(32)) == 2


async def test_events_are_paged(store: SqliteStore) -> None:
    version = await new_game(store, 40)
    for n in range(12):
        version = (await store.commit(40, version, sample_document(turn=n), move(n))).version
    first = await store.events(40, limit=5)
    second = await store.events(40, after_seq=first[-1].seq, limit=5)
    rest = await store.events(40, after_seq=second[-1].seq, limit=50)
    assert [e.seq for e in first + second + rest] == list(range(1, 14))
    assert await store.events(40, after_seq=13) == []
    salt = (await store.export(40)).state_salt
    head = verify_chain(first, salt=salt)
    head = verify_chain(second, salt=salt, prev_hash=head, first_seq=6)
    assert verify_chain(rest, salt=salt, prev_hash=head, first_seq=11) == rest[-1].hash


async def test_list_games_of_a_guild(store: SqliteStore) -> None:
    await new_game(store, 50)
    await new_game(store, 51, status="active")
    await new_game(store, 52, guild_id=777)
    await new_game(store, 53, guild_id=None)
    assert [g.channel_id for g in await store.list_games(GUILD)] == [50, 51]
    assert [g.channel_id for g in await store.list_games(GUILD, "active")] == [51]
    assert [g.channel_id for g in await store.list_games(777)] == [52]
    assert [g.channel_id for g in await store.list_games(None)] == [53]
    assert await store.count_games() == 4
    assert await store.count_games("active") == 1


async def test_end_game_freezes_it(store: SqliteStore) -> None:
    await new_game(store, 60)
    await store.commit(60, 1, sample_document(turn=2), move(1))
    ended = await store.end_game(60, expected_version=2, actor_id=1, reason="victory")
    assert ended.version == 3
    assert ended.event.verb == "game.ended"
    assert ended.event.args == {"reason": "victory"}
    loaded = await store.load(60)
    assert loaded.status == "ended"
    assert loaded.document["turn"] == 2
    with pytest.raises(GameEnded):
        await store.commit(60, 3, sample_document(), move(2))
    with pytest.raises(GameEnded):
        await store.end_game(60)
    assert [g.channel_id for g in await store.list_games(GUILD, "ended")] == [60]


async def test_delete_only_ended_games(store: SqliteStore) -> None:
    await new_game(store, 70)
    await store.add_member(70, 5, side="rossi")
    await deadlines.set_deadline(store, 70, "rossi", datetime.now(UTC))
    with pytest.raises(GameNotEnded):
        await store.delete_game(70)
    await store.end_game(70)
    await store.delete_game(70)
    with pytest.raises(GameNotFound):
        await store.load(70)
    assert await store.members(70) == []
    await new_game(store, 70)  # The channel is free for a new game.
    assert await deadlines.deadlines(store, 70) == []  # its records went with the old one
    assert (await store.load(70)).version == 1


async def test_history_cannot_be_rewritten_through_sql(
    store: SqliteStore, backend: Backend
) -> None:
    import sqlite3

    import asyncpg

    refused = (sqlite3.IntegrityError, asyncpg.RaiseError)
    await new_game(store, 71)
    with pytest.raises(refused, match="append-only"):
        await backend.execute("UPDATE events SET verb = 'x' WHERE channel_id = 71")
    with pytest.raises(refused, match="cannot be deleted"):
        await backend.execute("DELETE FROM states WHERE channel_id = 71")
    assert len(await store.events(71)) == 1


async def test_only_a_rebuildable_past_document_may_be_dropped(
    store: SqliteStore, backend: Backend
) -> None:
    """The append-only guards of schema 8: a whole document goes only when it is neither
    version 1, a snapshot nor the head, and its patch is stored; patches never change."""
    import sqlite3

    import asyncpg

    refused = (sqlite3.IntegrityError, asyncpg.RaiseError)
    await new_game(store, 72, document={"turn": 1})
    for version in range(1, 20):
        await store.commit(72, version, {"turn": version + 1}, move(version))
    kept = (1, 16, 20)
    for version in kept:
        with pytest.raises(refused, match="cannot be deleted"):
            await backend.execute(
                f"DELETE FROM states WHERE channel_id = 72 AND version = {version}"
            )
    with pytest.raises(refused, match="append-only"):
        await backend.execute("UPDATE patches SET patch = '[]' WHERE channel_id = 72")
    with pytest.raises(refused, match="cannot be deleted"):
        await backend.execute("DELETE FROM patches WHERE channel_id = 72")
    for version in range(1, 21):
        assert (await store.state_at(72, version)).document == {"turn": version}
    assert await store.check() == []


async def test_state_at_every_version(store: SqliteStore) -> None:
    await new_game(store, 80)
    await store.commit(80, 1, sample_document(turn=2), move(1), status="active")
    first = await store.state_at(80, 1)
    second = await store.state_at(80, 2)
    assert (first.status, first.document["turn"]) == ("setup", 1)
    assert (second.status, second.document["turn"]) == ("active", 2)


async def test_export_round_trips_and_verifies(store: SqliteStore) -> None:
    await new_game(store, 90)
    await store.add_member(90, 1, role="referee")
    await store.add_member(90, 2, side="rossi")
    version = 1
    for n in range(3):
        version = (await store.commit(90, version, sample_document(turn=n + 2), move(n))).version
    await store.undo(90)
    bundle = await store.export(90)
    assert bundle.game.version == len(bundle.events) == len(bundle.states) == 5
    assert [m.user_id for m in bundle.members] == [1, 2]
    assert bundle.head_hash == bundle.events[-1].hash
    data = json.loads(json.dumps(bundle.to_json_dict(), ensure_ascii=False))
    assert data["format"] == "arbitro.export/1"
    assert verify_export(data) == bundle.head_hash


async def test_members(store: SqliteStore) -> None:
    await new_game(store, 100)
    referee = await store.add_member(100, 1, role="referee")
    await store.add_member(100, 2, side="rossi")
    await store.add_member(100, 3, side="blu")
    moved = await store.add_member(100, 3, side="rossi")
    assert referee.role == "referee" and referee.side is None
    assert moved.side == "rossi"
    members = await store.members(100)
    assert [(m.user_id, m.role, m.side) for m in members] == [
        (1, "referee", None),
        (2, "player", "rossi"),
        (3, "player", "rossi"),
    ]
    assert await store.remove_member(100, 2) is True
    assert await store.remove_member(100, 2) is False
    assert [m.user_id for m in await store.members(100)] == [1, 3]
    with pytest.raises(GameNotFound):
        await store.add_member(999, 1)
    with pytest.raises(ValueError):
        await store.add_member(100, 4, role="spectator")  # type: ignore[arg-type]


async def test_deadlines_survive_reopening(backend: Backend) -> None:
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    rome = timezone(timedelta(hours=1))
    async with await backend.open() as store:
        await new_game(store, 110)
        await new_game(store, 111)
        await deadlines.set_deadline(store, 110, "rossi", now - timedelta(hours=1))
        await deadlines.set_deadline(store, 110, "blu", now + timedelta(days=2))
        await deadlines.set_deadline(store, 111, "rossi", datetime(2026, 3, 1, 12, 30, tzinfo=rome))
    async with await backend.open() as store:
        due = await deadlines.due_deadlines(store, now)
        # 12:30 in Rome (UTC+1) is 11:30 UTC: due, after the 11:00 UTC one.
        assert [(d.channel_id, d.side) for d in due] == [(110, "rossi"), (111, "rossi")]
        assert due[1].due_at == datetime(2026, 3, 1, 11, 30, tzinfo=UTC)
        assert await deadlines.mark_reminded(store, due[0]) is True
        assert await deadlines.mark_reminded(store, due[0]) is False
    async with await backend.open() as store:
        still_due = await deadlines.due_deadlines(store, now)
        assert [(d.channel_id, d.side) for d in still_due] == [(111, "rossi")]
        pending = await deadlines.deadlines(store, 110)
        assert [(d.side, d.reminded) for d in pending] == [("rossi", True), ("blu", False)]
        # Moving a deadline re-arms its reminder; a stale mark does not touch the new one.
        await deadlines.set_deadline(store, 110, "rossi", now - timedelta(minutes=5))
        assert await deadlines.mark_reminded(store, due[0]) is False
        due_now = await deadlines.due_deadlines(store, now)
        assert (110, "rossi") in [(d.channel_id, d.side) for d in due_now]
        assert await deadlines.clear_deadline(store, 110, "rossi") is True
        assert await deadlines.clear_deadline(store, 110, "rossi") is False
        await store.end_game(111)
        assert await deadlines.due_deadlines(store, now) == []
        with pytest.raises(ValueError):
            await deadlines.set_deadline(store, 110, "blu", datetime(2026, 1, 1))  # naive


async def test_closed_store_refuses_work(backend: Backend) -> None:
    store = await backend.open()
    await store.close()
    await store.close()
    with pytest.raises(StoreUnavailable):
        await store.load(1)


async def test_backup_is_a_complete_copy(sqlite_store: SqliteStore, tmp_path: Path) -> None:
    # SQLite only: a PostgreSQL database is backed up with pg_dump (docs/storage.md).
    store = sqlite_store
    await new_game(store, 120)
    await store.commit(120, 1, sample_document(turn=2), move(1))
    target = tmp_path / "copy.db"
    await store.backup(target)
    with pytest.raises(FileExistsError):
        await store.backup(target)
    assert not (tmp_path / "copy.db.partial").exists()
    async with await SqliteStore.open(target, create=False, migrate=False) as copy:
        assert (await copy.load(120)).version == 2
        assert await copy.check() == []


async def test_create_with_referee_and_find_by_interaction(store: SqliteStore) -> None:
    await store.create_game(
        130,
        guild_id=GUILD,
        ruleset="manovra",
        language="it",
        document=sample_document(),
        interaction_id="create-130",
        referee_id=5,
    )
    assert [(m.user_id, m.role, m.side) for m in await store.members(130)] == [(5, "referee", None)]
    found = await store.event_by_interaction("create-130")
    assert found is not None and (found.channel_id, found.seq) == (130, 1)
    assert await store.event_by_interaction("never-sent") is None


async def test_open_command_reads_game_retry_and_seats_together(store: SqliteStore) -> None:
    await new_game(store, 31)
    await store.add_member(31, 7, side="rossi")
    context = await store.open_command(31, "never-seen")
    assert context.record.version == 1 and context.earlier is None
    assert [(m.user_id, m.side) for m in context.members] == [(7, "rossi")]
    committed = await store.commit(
        31, 1, sample_document(turn=2), NewEvent(verb="advance", interaction_id="i-31")
    )
    retried = await store.open_command(31, "i-31")
    assert retried.earlier is not None and retried.earlier.seq == committed.event.seq
    assert retried.record.version == 2 and retried.record.document["turn"] == 2
    assert (await store.open_command(31)).earlier is None
    with pytest.raises(GameNotFound):
        await store.open_command(32, "i-31")


async def test_an_ended_game_is_archived_and_its_channel_freed(store: SqliteStore) -> None:
    await new_game(store, 41)
    await store.add_member(41, 7, side="rossi")
    await store.commit(41, 1, sample_document(turn=2), NewEvent(verb="advance"))
    with pytest.raises(GameNotEnded):
        await store.archive_game(41, await store.export(41))
    await store.end_game(41)
    bundle = await store.export(41)
    archived = await store.archive_game(41, bundle, title="Normandia")
    assert (archived.channel_id, archived.version, archived.title) == (41, 3, "Normandia")
    assert archived.head_hash == bundle.head_hash and archived.guild_id == GUILD
    with pytest.raises(GameNotFound):
        await store.load(41)
    assert await store.members(41) == []
    await new_game(store, 41)  # the channel hosts a new game
    assert (await store.load(41)).version == 1
    listed = await store.archived_games(GUILD)
    assert [a.id for a in listed] == [archived.id]
    assert await store.archived_games(GUILD + 1) == []
    saved = await store.archived_export(archived.id)
    assert verify_export(saved) == bundle.head_hash
    assert [e["verb"] for e in saved["events"]][-1] == "game.ended"
    with pytest.raises(ArchiveNotFound):
        await store.archived_export(archived.id + 100)


async def test_archiving_refuses_a_stale_export(store: SqliteStore) -> None:
    await new_game(store, 42)
    stale = await store.export(42)
    await store.end_game(42)
    with pytest.raises(VersionConflict):
        await store.archive_game(42, stale)
    assert (await store.load(42)).status == "ended"


async def test_patches_made_before_the_hop_never_use_a_stale_base(db_path: Path) -> None:
    """SQLite makes a commit's patch on its encoder thread, from the document that store
    wrote last; when the stored version is another (another process wrote, a conflict, an
    undo), the commit's transaction makes the patch itself. Every version reads back."""
    from db.drivers.sqlite import SqliteStore

    written: dict[int, dict] = {}
    async with await SqliteStore.open(db_path) as first, await SqliteStore.open(db_path) as other:
        await new_game(first, 90, document={"turn": 1, "log": []})
        written[1] = {"turn": 1, "log": []}

        async def play(store: SqliteStore, version: int) -> int:
            document = {"turn": version + 1, "log": [f"t{n}" for n in range(version)]}
            result = await store.commit(90, version, document, move(version))
            written[result.event.seq] = document
            return result.event.seq

        version = await play(first, 1)
        version = await play(first, version)  # the prepared patch
        version = await play(other, version)  # the other store's first: no base
        version = await play(first, version)  # first's base is stale: made in the transaction
        with pytest.raises(VersionConflict):
            await first.commit(90, version - 1, {"turn": 0}, move(0))
        version = await play(first, version)  # after a refused commit
        version = (await first.undo(90)).event.seq
        written[version] = written[version - 2]
        version = await play(first, version)  # after an undo
        racing = {"turn": 99, "log": []}
        task = asyncio.ensure_future(first.commit(90, version, racing, move(version)))
        await asyncio.sleep(0)
        racing["turn"] = 100  # changed while the commit is under way
        result = await task
        version = result.event.seq
        written[version] = (await first.load(90)).document  # whichever reading was stored
        for seq, document in written.items():
            assert (await first.state_at(90, seq)).document == document, seq
        assert await first.check() == []


async def test_a_document_with_integer_keys_still_commits(store: SqliteStore) -> None:
    """Keys become text in JSON; the patch is then made from the stored texts."""
    await new_game(store, 91, document={"units": {"1": {"models": 5}}})
    result = await store.commit(91, 1, {"units": {1: {"models": 4}}}, move(1))
    await store.commit(91, result.event.seq, {"units": {1: {"models": 3}, 2: {}}}, move(2))
    assert (await store.state_at(91, 2)).document == {"units": {"1": {"models": 4}}}
    assert (await store.load(91)).document == {"units": {"1": {"models": 3}, "2": {}}}
    assert await store.check() == []
