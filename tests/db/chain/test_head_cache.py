"""The verified head kept between commands (db/chain/head_cache.py): served again only while no
other connection has written, moved by this process's own commits, dropped by its other
writes, never committed over another process's write, and no shield for a tampered head."""

from __future__ import annotations

import asyncio
import importlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from db.chain.head_cache import HeadCache
from db.drivers.sqlite import SqliteStore
from db.errors import CorruptRecord, VersionConflict
from db.models import EventRecord, HeldDocument, NewEvent, Scope
from tests.db.conftest import Backend
from tests.db.helpers import command_context, new_game, sample_document, verified_head

CHANNEL = 41
GAMES = importlib.import_module("db.core.games")


@pytest.fixture
def full_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The channels of every full read of a command's context (a kept head served after a
    probe is not one)."""
    calls: list[int] = []
    for name in ("open_command", "open_command_counted"):
        original = getattr(GAMES, name)

        def counting(dialect: Any, channel_id: int, *rest: Any, _original: Any = original) -> Any:
            calls.append(channel_id)
            return _original(dialect, channel_id, *rest)

        monkeypatch.setattr(GAMES, name, counting)
    return calls


def _advance(store: Any, version: int, turn: int, name: str) -> Any:
    return store.commit(
        CHANNEL, version, sample_document(turn), NewEvent(verb="advance", interaction_id=name)
    )


async def test_a_command_after_this_process_s_own_commit_is_served_without_a_full_read(
    backend: Backend, full_reads: list[int]
) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        first = await store.open_command(CHANNEL, "a")
        committed = await _advance(store, first.record.version, 2, "a")
        again = await store.open_command(CHANNEL, "b")
        assert again.record.version == committed.version == 2
        assert again.record.document == sample_document(2)
        assert again.record.head_hash == committed.event.hash
        assert again.earlier is None
        # The served document is the caller's own: changing it changes nothing kept.
        again.record.document["turn"] = 99
        third = await store.open_command(CHANNEL, "c")
        assert third.record.document == sample_document(2)
        # It equals what a full read gives.
        assert third.record == (await store.load(CHANNEL))
        assert third.members == (await store.open_command(CHANNEL, "fresh")).members
        expected = [CHANNEL] if backend.name == "sqlite" else [CHANNEL] * 4
        assert full_reads == expected  # PostgreSQL keeps nothing: a full read every time


@pytest.fixture()
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kept texts the store parses into documents (``db.store.parse_kept``), in order."""
    store_module = importlib.import_module("db.store")
    texts: list[str] = []
    parse = store_module.parse_kept
    monkeypatch.setattr(store_module, "parse_kept", lambda text: texts.append(text) or parse(text))
    return texts


async def test_a_document_the_caller_holds_is_served_on_its_head_only(
    db_path: Path, parsed: list[str]
) -> None:
    """The service holds the state its last command left (bot/service/kept_games.py): on that
    very head the store serves the caller's document instead of parsing the kept text; on any
    other head it parses as always."""
    async with await SqliteStore.open(db_path) as store, await SqliteStore.open(db_path) as other:
        await new_game(store, CHANNEL)
        first = await store.open_command(CHANNEL, "a")
        committed = await _advance(store, first.record.version, 2, "a")
        mine = sample_document(2)
        held = HeldDocument(2, committed.event.hash, mine)
        served = await store.open_command(CHANNEL, "b", held=held)
        assert served.record.document is mine and parsed == []
        assert served.record.version == 2
        stale = HeldDocument(1, first.record.head_hash or "", sample_document(1))
        assert (await store.open_command(CHANNEL, "c", held=stale)).record.document == mine
        assert len(parsed) == 1
        # Another process moves the head: the held document is not the game's any more.
        await other.commit(CHANNEL, 2, sample_document(7), NewEvent(verb="x", interaction_id="o"))
        seen = await store.open_command(CHANNEL, "d", held=held)
        assert seen.record.document == sample_document(7) and seen.record.document is not mine


async def test_a_document_held_with_its_text_is_served_on_any_head_of_that_text(
    db_path: Path, parsed: list[str]
) -> None:
    """The web pages keep the document they read with its stored text (bot/service/pages.py,
    `PageGames`): a head another process moved without changing the document (a seat, a
    deadline) is served with the caller's document, not parsed again, by the full read that
    verifies it and by the reads after it; a head of another text is parsed as always."""
    async with await SqliteStore.open(db_path) as store, await SqliteStore.open(db_path) as other:
        await new_game(store, CHANNEL)
        first = await store.open_command(CHANNEL)
        record = first.record
        assert record.head_hash is not None and record.document_text is not None
        mine = dict(record.document)
        held = HeldDocument(record.version, record.head_hash, mine, record.document_text)
        await other.commit(CHANNEL, 1, record.document, NewEvent(verb="x", interaction_id="o"))
        moved = await store.open_command(CHANNEL, held=held)  # the full read of the new head
        assert moved.record.version == 2 and moved.record.document is mine
        parsed.clear()
        again = await store.open_command(CHANNEL, held=held)  # the head it keeps: no parse
        assert again.record.document is mine and again.record.version == 2 and parsed == []
        without_text = HeldDocument(record.version, record.head_hash, mine)
        assert (await store.open_command(CHANNEL, held=without_text)).record.document is not mine
        assert len(parsed) == 1
        await other.commit(CHANNEL, 2, sample_document(7), NewEvent(verb="y", interaction_id="p"))
        await store.open_command(CHANNEL)  # the new head read in full, then kept
        changed = await store.open_command(CHANNEL, held=held)
        assert changed.record.document == sample_document(7) and changed.record.document is not mine


async def test_another_store_s_write_is_seen_by_the_next_command(
    backend: Backend, full_reads: list[int]
) -> None:
    async with await backend.open() as first, await backend.open() as second:
        await new_game(first, CHANNEL)
        kept = await first.open_command(CHANNEL, "a")
        # Another process on the same database: a command, then a new seat.
        await second.commit(
            CHANNEL, kept.record.version, sample_document(7), NewEvent(verb="x", interaction_id="o")
        )
        seen = await first.open_command(CHANNEL, "b")
        assert (seen.record.version, seen.record.document) == (2, sample_document(7))
        await second.add_member(CHANNEL, 555, side="rossi")
        seated = await first.open_command(CHANNEL, "c")
        assert 555 in {member.user_id for member in seated.members}
        # The retry of the other process's interaction is answered with its event.
        retried = await first.open_command(CHANNEL, "o")
        assert retried.earlier is not None and retried.earlier.seq == 2
        assert full_reads == [CHANNEL] * 4


async def test_another_store_s_reads_leave_the_kept_head_served(
    db_path: Path, full_reads: list[int]
) -> None:
    """The pages' own process reads the bot's database on a connection of its own (docs/
    web.md): however many pages it serves, the bot's commands keep their kept heads."""
    async with await SqliteStore.open(db_path) as bot, await SqliteStore.open(db_path) as pages:
        await new_game(bot, CHANNEL)
        await bot.open_command(CHANNEL, "a")
        for _ in range(3):
            await pages.open_command(CHANNEL)
            await pages.events(CHANNEL)
            await pages.state_at(CHANNEL, 1)
        full_reads.clear()
        served = await bot.open_command(CHANNEL, "b")
        assert served.record.version == 1 and full_reads == []


async def test_a_stale_kept_head_never_commits_over_another_store_s_write(
    backend: Backend,
) -> None:
    async with await backend.open() as first, await backend.open() as second:
        await new_game(first, CHANNEL)
        await first.open_command(CHANNEL, "warm")
        kept = await first.open_command(CHANNEL, "a")  # served from what was kept
        await second.commit(
            CHANNEL, kept.record.version, sample_document(7), NewEvent(verb="x", interaction_id="o")
        )
        with pytest.raises(VersionConflict):
            await _advance(first, kept.record.version, 3, "a")
        # The service's retry reads again: the other write is there, and committing on it
        # works.
        fresh = await first.open_command(CHANNEL, "a")
        assert fresh.record.version == 2 and fresh.record.document == sample_document(7)
        await _advance(first, fresh.record.version, 3, "a")
        assert (await second.load(CHANNEL)).document == sample_document(3)


async def test_this_process_s_seat_changes_keep_the_verified_head_its_other_writes_drop_it(
    backend: Backend, full_reads: list[int]
) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        await store.open_command(CHANNEL, "a")
        await store.add_member(CHANNEL, 556, side="blu")
        assert 556 in {m.user_id for m in (await store.open_command(CHANNEL, "b")).members}
        await store.remove_member(CHANNEL, 556)
        assert 556 not in {m.user_id for m in (await store.open_command(CHANNEL, "b2")).members}
        await store.end_game(CHANNEL)
        assert (await store.open_command(CHANNEL, "c")).record.status == "ended"
        await store.undo(CHANNEL)
        reopened = await store.open_command(CHANNEL, "d")
        assert (reopened.record.status, reopened.record.version) == ("setup", 3)
        # PostgreSQL keeps no heads (no probe): every command reads in full.
        assert full_reads == [CHANNEL] * (5 if backend.name == "postgres" else 3)


async def test_the_seats_kept_after_a_seat_change_are_those_a_full_read_gives(
    backend: Backend, full_reads: list[int]
) -> None:
    async with await backend.open() as store, await backend.open() as other:
        await new_game(store, CHANNEL)
        await store.feature_put("pace", Scope.of_game(CHANNEL), "k", {"n": 1}, sealed=True)
        await store.open_command(CHANNEL, "a")
        for user, side in ((560, "blu"), (558, "rossi"), (559, "blu"), (558, "blu")):
            await store.add_member(CHANNEL, user, side=side)  # 558 reseated: keeps its place
        await store.remove_member(CHANNEL, 559)
        full_reads.clear()
        served = await store.open_command(CHANNEL, "b")
        read = await other.open_command(CHANNEL, "b")  # another store: a full read
        assert full_reads == [CHANNEL] * (2 if backend.name == "postgres" else 1)
        assert served.members == read.members and served.records == read.records
        assert [m.user_id for m in served.members][-2:] == [560, 558]


async def test_a_game_s_record_that_is_not_sealed_leaves_the_kept_head_a_sealed_one_drops_it(
    backend: Backend, full_reads: list[int]
) -> None:
    game = Scope.of_game(CHANNEL)
    async with await backend.open() as store, await backend.open() as other:
        await new_game(store, CHANNEL)
        await store.feature_put("pace", game, "k", {"n": 1}, sealed=True)
        await store.open_command(CHANNEL, "a")
        full_reads.clear()
        await store.feature_put("held", game, "556", {"side": "blu"})  # not sealed
        served = await store.open_command(CHANNEL, "b")
        assert full_reads == ([CHANNEL] if backend.name == "postgres" else [])
        assert served.records == (await other.open_command(CHANNEL, "b")).records
        await store.feature_put("pace", game, "k", {"n": 2}, sealed=True)
        assert [r.value for r in (await store.open_command(CHANNEL, "c")).records] == [{"n": 2}]
        full_reads.clear()
        # The same key put unsealed (a feature seals all its records or none): the kept
        # head held it sealed, so it is dropped and the full read finds the checksum off.
        await store.feature_put("pace", game, "k", {"n": 3})
        with pytest.raises(CorruptRecord):
            await store.open_command(CHANNEL, "d")
        assert full_reads == [CHANNEL]


async def test_a_full_read_in_flight_keeps_no_seats_a_seat_change_queued_after_it_changed(
    backend: Backend, full_reads: list[int]
) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        # Both queued at once: the read runs first, the seat change right behind it.
        read, _ = await asyncio.gather(
            store.open_command(CHANNEL, "a"), store.add_member(CHANNEL, 561, side="blu")
        )
        assert 561 not in {m.user_id for m in read.members}
        after = await store.open_command(CHANNEL, "b")
        assert 561 in {m.user_id for m in after.members}
        assert full_reads == [CHANNEL] * 2  # the first read's seats were not kept
        assert 561 in {m.user_id for m in (await store.open_command(CHANNEL, "c")).members}


async def test_a_head_tampered_under_a_kept_game_is_refused(backend: Backend) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        kept = await store.open_command(CHANNEL, "a")
        await _advance(store, kept.record.version, 2, "a")
        await store.open_command(CHANNEL, "b")  # kept, as this process wrote it
        column = backend.document_column
        await backend.tamper(
            f"UPDATE states SET {column} = '{{\"turn\": 1000}}' "
            f"WHERE channel_id = {CHANNEL} AND version = 2"
        )
        with pytest.raises(CorruptRecord):  # TamperedGame: the state is not its event's
            await store.open_command(CHANNEL, "c")


def test_the_kept_heads_are_bounded_by_count_and_by_text() -> None:
    cache = HeadCache(max_entries=3, max_bytes=100)

    def keep(channel: int, text: str) -> None:
        cache.put(cache.reading(channel), command_context(channel, 1, text), verified_head(1), 0)

    for channel in range(10):
        keep(channel, "x" * 10)
        assert len(cache) <= 3
    assert cache.get(9) is not None and cache.get(6) is None
    keep(20, "x" * 60)
    keep(21, "x" * 60)
    assert cache.size_bytes <= 100 and cache.get(20) is None and cache.get(21) is not None
    keep(22, "x" * 101)  # larger than the bound alone: not kept
    assert cache.get(22) is None and cache.size_bytes <= 100


def test_a_read_overtaken_by_a_write_of_its_channel_is_not_kept() -> None:
    cache = HeadCache()
    ticket = cache.reading(5)
    other = cache.reading(6)
    cache.forget(5)  # a write of channel 5 queued while the read was in flight
    cache.put(ticket, command_context(5, 1, "{}"), verified_head(1), 0)
    cache.put(other, command_context(6, 1, "{}"), verified_head(1), 0)
    assert cache.get(5) is None and cache.get(6) is not None


def test_a_commit_moves_the_kept_head_only_from_the_head_it_extends() -> None:
    cache = HeadCache()
    cache.put(cache.reading(5), command_context(5, 1, "{}"), verified_head(1), 7)
    when = datetime(2026, 11, 30, tzinfo=UTC)

    def event(seq: int, prev: str) -> EventRecord:
        return EventRecord(
            channel_id=5, seq=seq, interaction_id=None, actor_id=None, verb="x", args={},
            dice=[], resolution=[], state_version=seq, state_hash="0" * 64, undoes_seq=None,
            created_at=when, prev_hash=prev, hash=f"{seq:064x}",
        )  # fmt: skip

    cache.advance(5, event(2, f"{1:064x}"), '{"a":1}', None)
    kept = cache.get(5)
    assert kept is not None and kept.stamp == 7 and kept.head == verified_head(2)
    assert (kept.context.record.version, kept.context.record.document_text) == (2, '{"a":1}')
    assert kept.context.record.updated_at == when and kept.context.record.status == "active"
    cache.advance(5, event(4, f"{3:064x}"), "{}", None)  # not from the kept head: dropped
    assert cache.get(5) is None


class _Trips:
    """The aiosqlite connection's calls, grouped into trips: calls made while another is
    still unanswered went out together (one wait for all of them)."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self.trips: list[list[str]] = []
        self._unanswered = 0

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._connection, name)
        if name not in ("execute", "execute_fetchall", "executemany"):
            return found

        async def traced(sql: str, *args: Any) -> Any:
            if self._unanswered == 0:
                self.trips.append([])
            words = sql.split()
            self.trips[-1].append(" ".join(words[:2]) if words[0] == "BEGIN" else words[0])
            self._unanswered += 1
            try:
                return await found(sql, *args)
            finally:
                self._unanswered -= 1

        return traced


def _trace(store: SqliteStore) -> _Trips:
    trips = _Trips(store._driver._connection)
    store._driver._connection = trips  # type: ignore[assignment]
    return trips


WRITES = ["UPDATE", "INSERT", "INSERT", "INSERT"]  # the game row, state, event, patch
# On the kept head, the same writes as one row of the `command_commits` view (schema 13).
ONE_STATEMENT = ["INSERT"]


async def test_a_command_on_the_kept_head_takes_one_trip_to_open_and_one_to_commit(
    db_path: Path,
) -> None:
    async with await SqliteStore.open(db_path) as store:
        await new_game(store, CHANNEL)
        await store.open_command(CHANNEL, "a")  # read in full, kept
        trips = _trace(store)
        context = await store.open_command(CHANNEL, "b")
        await _advance(store, context.record.version, 2, "b")
        # The probe, one statement; then one statement that makes the writes, the first of
        # them guarded by the probe's conditions, in its own transaction.
        assert trips.trips == [["SELECT"], ONE_STATEMENT]
        assert (await store.load(CHANNEL)).document == sample_document(2)


async def test_a_commit_on_no_kept_head_takes_its_three_trips(db_path: Path) -> None:
    async with await SqliteStore.open(db_path) as store:
        await new_game(store, CHANNEL)
        await store.load(CHANNEL)  # verified and kept
        store.head_cache.forget(CHANNEL)  # as if pushed out by other games
        trips = _trace(store)
        await _advance(store, 1, 2, "a")
        assert trips.trips == [["BEGIN IMMEDIATE", "SELECT"], WRITES, ["COMMIT"]]


async def test_a_commit_on_a_kept_head_another_store_moved_is_refused_and_rolled_back(
    db_path: Path,
) -> None:
    async with await SqliteStore.open(db_path) as first, await SqliteStore.open(db_path) as second:
        await new_game(first, CHANNEL)
        await first.open_command(CHANNEL, "a")
        kept = await first.open_command(CHANNEL, "b")  # served after the probe
        await second.add_member(CHANNEL, 557, side="blu")  # not the game's head: a seat
        trips = _trace(first)
        # The counter moved: the statement on the kept head is undone, and the usual
        # commit, which reads the head under the write lock, stores it.
        committed = await _advance(first, kept.record.version, 2, "b")
        assert trips.trips[0] == ONE_STATEMENT and trips.trips[1][0] == "BEGIN IMMEDIATE"
        assert committed.version == 2
        assert (await second.load(CHANNEL)).document == sample_document(2)
        assert 557 in {m.user_id for m in (await first.open_command(CHANNEL, "c")).members}


async def test_a_head_read_in_full_is_extended_the_usual_way_then_in_one_trip(
    db_path: Path,
) -> None:
    """A kept head read in full (not committed by this process) does not say whether its
    version is a snapshot: its first commit takes the usual three trips and learns it, the
    next one takes one."""
    async with await SqliteStore.open(db_path) as store:
        await new_game(store, CHANNEL)
        await _advance(store, 1, 2, "a")
        store.head_cache.forget(CHANNEL)
        await store.open_command(CHANNEL, "b")  # version 2, read in full, kept
        trips = _trace(store)
        await _advance(store, 2, 3, "b")
        # The writes, and the DELETE of version 2's whole document unless it is a snapshot.
        first, writes, last = trips.trips
        assert first == ["BEGIN IMMEDIATE", "SELECT"] and last == ["COMMIT"]
        assert writes[:4] == WRITES and writes[4:] in ([], ["DELETE"])
        trips.trips.clear()
        await _advance(store, 3, 4, "c")
        assert trips.trips == [ONE_STATEMENT]
        assert (await store.load(CHANNEL)).document == sample_document(4)


async def test_a_retried_interaction_on_the_kept_head_is_rolled_back_and_answered(
    db_path: Path,
) -> None:
    """The guarded UPDATE finds the interaction stored and changes no row (the event's
    unique interaction refuses it too): the statement is undone, nothing is written, and
    the usual commit answers with the earlier event."""
    async with await SqliteStore.open(db_path) as store:
        await new_game(store, CHANNEL)
        await store.open_command(CHANNEL, "a")  # read in full, kept
        first = await _advance(store, 1, 2, "a")
        trips = _trace(store)
        again = await store.commit(
            CHANNEL, 2, sample_document(3), NewEvent(verb="advance", interaction_id="a")
        )
        assert again.duplicate and again.event.hash == first.event.hash
        assert trips.trips[0] == ONE_STATEMENT and trips.trips[1][0] == "BEGIN IMMEDIATE"
        loaded = await store.load(CHANNEL)
        assert (loaded.version, loaded.document) == (2, sample_document(2))


async def test_after_a_seat_change_the_next_commit_takes_the_usual_trips(db_path: Path) -> None:
    """A seat change leaves the kept head but not its run of patches: its event's commit
    is sent as after the full read such a write used to cost (docs/benchmarks.md)."""
    async with await SqliteStore.open(db_path) as store:
        await new_game(store, CHANNEL)
        opened = await store.open_command(CHANNEL, "a")
        await _advance(store, opened.record.version, 2, "a")
        assert store.head_cache.get(CHANNEL).run is not None  # a one-trip commit is next
        await store.add_member(CHANNEL, 562, side="blu")
        await store.feature_put("held", Scope.of_game(CHANNEL), "562", {"side": "blu"})
        kept = store.head_cache.get(CHANNEL)
        assert kept is not None and kept.run is None
        assert 562 in {m.user_id for m in kept.context.members}
        await _advance(store, 2, 3, "b")
        assert (await store.load(CHANNEL)).document == sample_document(3)
        assert await store.check() == []
