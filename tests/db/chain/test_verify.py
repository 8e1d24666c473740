"""Every version the store reads is checked against the chain before it is used
(db/chain/verify.py).

A tamperer with write access to the database edits a snapshot's document, version 1's
document, a patch, an event's dice or args in the middle of the history: every read of the
game (load, a command's context, state_at, undo, end, export) and every commit refuses
with `ChainBroken` naming the first bad event, nothing is written on top of it, `db check`
names the same event of the same game, and the other game plays on. Edits made while the
store is open (after the game was verified) are caught by every read of an old version;
a chain rewritten or shortened behind this process's back is refused against the head
it verified. Both backends.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import replace
from typing import Any

import pytest

from db.chain import verify as chain
from db.chain.archive import encode_bundle
from db.chain.hashing import canonical_json, compute_event_hash, state_hash
from db.chain.verify import VerifiedChains, VerifiedHead
from db.errors import ChainBroken
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game

TAMPERED, CLEAN = 7, 8
HEAD = 40  # version 1, snapshots 8, 16, 24 and 33, the head 40; patches for 2..40
#: What each document carries besides: the size that makes the patches since the last
#: snapshot exceed half a document at versions 8, 16, 24 and 33 (`db.chain.patch.snapshot_due`).
NOTES = "x" * 432
SNAPSHOTS = [8, 16, 24, 33]


def document_at(version: int) -> dict[str, Any]:
    """Version ``version`` of `long_game`'s documents."""
    return {"turn": version, "log": [f"turn {n}" for n in range(version - 1)], "notes": NOTES}


async def long_game(store: Any, channel_id: int, last: int = HEAD) -> None:
    """A game at version ``last``: each commit moves the turn, rolls a die, logs a line."""
    await new_game(store, channel_id, document=document_at(1))
    for version in range(1, last):
        document = document_at(version + 1)
        event = NewEvent(verb="advance", args={"to": version + 1}, dice=[version % 6 + 1])
        await store.commit(channel_id, version, document, event)


async def two_games(backend: Backend) -> None:
    async with await backend.open() as store:
        await long_game(store, TAMPERED)
        await long_game(store, CLEAN)


def doc_column(backend: Backend) -> str:
    return backend.document_column


# Each edit as an attacker with write access types it, and the first bad event it makes.
EDITS: dict[str, tuple[str, int]] = {
    "a snapshot's document": (
        'UPDATE states SET {doc} = \'{{"log":[],"turn":99}}\' '
        "WHERE channel_id = 7 AND version = 16",
        16,
    ),
    "version 1's document": (
        'UPDATE states SET {doc} = \'{{"log":[],"turn":0}}\' WHERE channel_id = 7 AND version = 1',
        1,
    ),
    "a patch in the middle": (
        "UPDATE patches SET patch = '[[[\"turn\"],99]]' WHERE channel_id = 7 AND version = 20",
        20,
    ),
    "an event's dice in the middle": (
        "UPDATE events SET dice = '[6]' WHERE channel_id = 7 AND seq = 21",
        21,
    ),
    "an event's args in the middle": (
        "UPDATE events SET args = '{{\"to\":1}}' WHERE channel_id = 7 AND seq = 27",
        27,
    ),
}


async def tamper(backend: Backend, edit: str) -> int:
    statement, first_bad = EDITS[edit]
    await backend.tamper(statement.format(doc=doc_column(backend)))
    return first_bad


def names(error: ChainBroken, seq: int) -> bool:
    return error.channel_id == TAMPERED and error.seq == seq and f"event {seq} " in str(error)


async def version_of(store: Any, channel_id: int) -> int:
    """The game's version as listed (a listing reads no history)."""
    return next(g.version for g in await store.all_games() if g.channel_id == channel_id)


async def events_of(store: Any, channel_id: int) -> int:
    return len(await store.events(channel_id, limit=1000))


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_an_edit_in_the_history_is_refused_everywhere_before_anything_is_played(
    backend: Backend, edit: str
) -> None:
    await two_games(backend)
    first_bad = await tamper(backend, edit)
    async with await backend.open() as store:  # a process that never saw the game
        reads = {
            "load": lambda: store.load(TAMPERED),
            "open_command": lambda: store.open_command(TAMPERED),
            "state_at 1": lambda: store.state_at(TAMPERED, 1),
            "state_at 16": lambda: store.state_at(TAMPERED, 16),
            "state_at 38": lambda: store.state_at(TAMPERED, 38),
            "export": lambda: store.export(TAMPERED),
            "commit": lambda: store.commit(
                TAMPERED, HEAD, {"turn": 41}, NewEvent(verb="advance", dice=[3])
            ),
            "undo": lambda: store.undo(TAMPERED),
            "end_game": lambda: store.end_game(TAMPERED),
        }
        for name, read in reads.items():
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert names(caught.value, first_bad), (name, caught.value)
        assert await events_of(store, CLEAN) == HEAD
        # Nothing was written on top of the tampered chain.
        assert await version_of(store, TAMPERED) == HEAD
        # db check names the same event of the same game, and nothing else.
        problems = await store.check()
        assert problems[0] == str(ChainBroken(TAMPERED, first_bad, caught.value.detail))
        assert all(p.startswith(f"channel {TAMPERED}:") for p in problems), problems
        # The other game plays on.
        assert (await store.load(CLEAN)).version == HEAD
        await store.commit(CLEAN, HEAD, {"turn": 41}, NewEvent(verb="advance"))
        assert (await store.state_at(CLEAN, 16)).document["turn"] == 16
        assert (await store.undo(CLEAN)).version == HEAD + 2


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_an_edit_made_while_the_store_is_open_is_caught_when_that_version_is_read(
    backend: Backend, edit: str
) -> None:
    """The game was verified when first loaded; an edit made afterwards cannot be served:
    every old version is checked against its events, and those up to the verified head."""
    await two_games(backend)
    async with await backend.open() as store:
        await store.load(TAMPERED)  # verified whole, once
        first_bad = await tamper(backend, edit)
        reads = [
            lambda: store.state_at(TAMPERED, first_bad),
            # Rebuilt through it: the snapshot below it is below the edit too.
            lambda: store.state_at(TAMPERED, first_bad + 2),
            lambda: store.export(TAMPERED),
        ]
        for read in reads:
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert names(caught.value, first_bad), caught.value
        assert await version_of(store, TAMPERED) == HEAD


async def test_undo_onto_an_edited_snapshot_is_refused(backend: Backend) -> None:
    """The issue's case: /game undo onto an edited snapshot made the forgery the new head."""
    async with await backend.open() as store:
        await long_game(store, TAMPERED, last=17)  # undoing event 17 restores snapshot 16
        await store.load(TAMPERED)
        await backend.tamper(
            f'UPDATE states SET {doc_column(backend)} = \'{{"log":[],"turn":99}}\' '
            "WHERE channel_id = 7 AND version = 16"
        )
        with pytest.raises(ChainBroken) as caught:
            await store.undo(TAMPERED)
        assert names(caught.value, 16)
        assert await version_of(store, TAMPERED) == 17
    async with await backend.open() as fresh:  # and in a process that never saw it
        with pytest.raises(ChainBroken) as caught:
            await fresh.undo(TAMPERED)
        assert names(caught.value, 16)


async def test_an_old_version_is_what_the_chain_vouches_for_even_past_an_undone_edit(
    backend: Backend,
) -> None:
    """What reading an old version proves (docs/storage.md): the version returned is the
    one its event vouches for. A patch on the way edited so that the next patch undoes the
    edit leaves the versions after it right: they are served as they are; the version
    the edit changed is refused, and so are the export and `db check`, naming it."""
    async with await backend.open() as store:
        await long_game(store, TAMPERED)
        await store.load(TAMPERED)
        # Patch 20 sets the turn to 99 instead of 20; patch 21 sets it to 21 all the same.
        await backend.tamper(
            'UPDATE patches SET patch = \'[[["log"],18,18,["turn 18"]],[["turn"],99]]\' '
            "WHERE channel_id = 7 AND version = 20"
        )
        assert (await store.state_at(TAMPERED, 22)).document == document_at(22)
        for read in (lambda: store.state_at(TAMPERED, 20), lambda: store.export(TAMPERED)):
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert names(caught.value, 20), caught.value
        assert (await store.check())[0].startswith(f"channel {TAMPERED}: event log fails")
        assert "event 20 " in (await store.check())[0]


async def test_a_patch_edited_after_verification_cannot_be_undone_onto(backend: Backend) -> None:
    async with await backend.open() as store:
        await long_game(store, TAMPERED, last=36)
        await store.load(TAMPERED)
        # Undoing event 36 rebuilds version 35 from snapshot 33 and patches 34 and 35.
        await backend.tamper(
            "UPDATE patches SET patch = '[]' WHERE channel_id = 7 AND version = 34"
        )
        with pytest.raises(ChainBroken) as caught:
            await store.undo(TAMPERED)
        assert names(caught.value, 34)
        assert "state hash" in caught.value.detail


async def test_a_rewritten_chain_is_refused_against_the_head_this_process_verified(
    backend: Backend,
) -> None:
    """A consistent forgery (snapshot 16 edited, its event's state hash and every later
    hash recomputed) verifies on its own; this process remembers the head it verified."""
    async with await backend.open() as store:
        await long_game(store, TAMPERED)
        await long_game(store, CLEAN)
        await store.load(TAMPERED)
        await backend.tamper(*await forge_from(store, backend, TAMPERED, 16, {"turn": 99}))
        for read in (
            lambda: store.load(TAMPERED),
            lambda: store.state_at(TAMPERED, 20),
            lambda: store.commit(TAMPERED, HEAD, {"turn": 41}, NewEvent(verb="advance")),
            lambda: store.undo(TAMPERED),
            lambda: store.export(TAMPERED),
        ):
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert caught.value.seq == HEAD and chain.NOT_AS_VERIFIED in str(caught.value)
        assert (await store.load(CLEAN)).version == HEAD


async def forge_from(
    store: Any, backend: Backend, channel_id: int, version: int, document: dict[str, Any]
) -> list[str]:
    """The statements that replace version ``version``'s whole document and re-hash every
    event from it on, so the chain alone verifies again."""
    bundle = await store.export(channel_id, verify=False)
    events, salt = bundle.events, bundle.state_salt  # a forger with the file has its salt
    text = canonical_json(document)
    statements = [
        f"UPDATE states SET {doc_column(backend)} = '{text}' "
        f"WHERE channel_id = {channel_id} AND version = {version}"
    ]
    previous = events[version - 2].hash
    for event in events[version - 1 :]:
        forged = replace(event, prev_hash=previous)
        if event.seq == version:
            forged = replace(forged, state_hash=state_hash(text, event_status(event), salt))
        forged = replace(forged, hash=compute_event_hash(forged, previous, salt=salt))
        statements.append(
            f"UPDATE events SET state_hash = '{forged.state_hash}', prev_hash = '{previous}', "
            f"hash = '{forged.hash}' WHERE channel_id = {channel_id} AND seq = {event.seq}"
        )
        previous = forged.hash
    return statements


def event_status(event: Any) -> str:
    return "setup"  # every version of these games is in setup


async def test_a_shortened_log_is_refused_against_the_head_this_process_verified(
    backend: Backend,
) -> None:
    async with await backend.open() as store:
        await long_game(store, TAMPERED, last=20)
        await store.load(TAMPERED)
        before = await store.state_at(TAMPERED, 19)
        # The last command removed: its event, patch and state, the previous state whole
        # again, the game's version set back. Every remaining row is genuine.
        await backend.tamper(
            "DELETE FROM patches WHERE channel_id = 7 AND version = 20",
            "DELETE FROM events WHERE channel_id = 7 AND seq = 20",
            "DELETE FROM states WHERE channel_id = 7 AND version = 20",
            f"INSERT INTO states (channel_id, version, status, {doc_column(backend)}) "
            f"VALUES (7, 19, 'setup', '{canonical_json(before.document)}')",
            "UPDATE games SET version = 19 WHERE channel_id = 7",
        )
        with pytest.raises(ChainBroken) as caught:
            await store.load(TAMPERED)
        assert caught.value.seq == 20 and chain.LOG_SHORTENED in str(caught.value)
        with pytest.raises(ChainBroken):
            await store.commit(TAMPERED, 19, {"turn": 99}, NewEvent(verb="advance"))


async def test_commits_extend_the_verified_head_without_reading_the_chain_again(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole chain is verified once per process; then commits, loads and undos of the
    head this process wrote cost a lookup, not a verification."""
    store_module = importlib.import_module("db.core.verify")  # both backends' operations
    calls: list[tuple[int, int]] = []
    original = store_module.verify_span

    def counting(channel_id: int, **options: Any) -> Any:
        calls.append((options["first"], options["last"]))
        return original(channel_id, **options)

    async with await backend.open() as store:
        await long_game(store, TAMPERED)
    monkeypatch.setattr(store_module, "verify_span", counting)
    async with await backend.open() as store:
        await store.load(TAMPERED)
        assert calls == [(1, HEAD)]  # first touch: the whole history
        version = HEAD
        for turn in range(30):
            context = await store.open_command(TAMPERED)
            assert context.record.version == version
            version = (
                await store.commit(TAMPERED, version, {"turn": turn}, NewEvent(verb="advance"))
            ).version
        assert calls == [(1, HEAD)]
        assert store.verified_chains.head(TAMPERED).seq == version
        # An old version is checked on its own span: from the whole document below it up
        # to the first anchor event after it this process verified, else the head.
        await store.state_at(TAMPERED, version - 3)
        # 67: a recorded snapshot (each of these small documents is: its patch is as long)
        assert version - 3 == 67 and calls[1] == (67, version)
        await store.state_at(TAMPERED, 5)
        await store.state_at(TAMPERED, 20)
        await store.state_at(TAMPERED, 48)  # a snapshot written by this process's commits
        assert calls[2:] == [(1, 16), (16, 32), (48, 48)]


async def test_another_writer_s_commits_are_verified_from_the_last_verified_head(
    backend: Backend,
) -> None:
    """Two processes on one database: each verifies only what the other added since."""
    async with await backend.open() as first, await backend.open() as second:
        await long_game(first, TAMPERED, last=20)
        await second.load(TAMPERED)
        for version in range(20, 35):
            await first.commit(TAMPERED, version, {"turn": version + 1}, NewEvent(verb="x"))
        assert (await second.load(TAMPERED)).version == 35
        assert second.verified_chains.head(TAMPERED).seq == 35
        for version in range(35, 38):
            await first.commit(TAMPERED, version, {"turn": version + 1}, NewEvent(verb="x"))
        # One of those new events is edited before the second process reads them.
        await backend.tamper("UPDATE events SET dice = '[6]' WHERE channel_id = 7 AND seq = 37")
        with pytest.raises(ChainBroken) as caught:
            await second.load(TAMPERED)
        assert names(caught.value, 37)


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """Each verification a read runs: ``("span", first, last)`` (from a whole document:
    the genesis or a snapshot) or ``("forward", verified head, last)`` (from the verified
    head's own document)."""
    verify = importlib.import_module("db.core.verify")
    calls: list[tuple[str, int, int]] = []
    span, forward = verify.verify_span, verify.verify_forward

    def spanning(channel_id: int, **options: Any) -> Any:
        calls.append(("span", options["first"], options["last"]))
        return span(channel_id, **options)

    def forwarding(channel_id: int, **options: Any) -> Any:
        calls.append(("forward", options["base"].head.seq, options["last"]))
        return forward(channel_id, **options)

    monkeypatch.setattr(verify, "verify_span", spanning)
    monkeypatch.setattr(verify, "verify_forward", forwarding)
    return calls


async def two_processes_apart(backend: Backend) -> tuple[Any, Any]:
    """Two stores on one database: the second verified (and keeps) the game at version 20,
    then the first played it on to `HEAD` (recording snapshots 24 and 33 on the way)."""
    first, second = await backend.open(), await backend.open()
    await long_game(first, TAMPERED, last=20)
    await second.load(TAMPERED)
    for version in range(20, HEAD):
        event = NewEvent(verb="advance", args={"to": version + 1}, dice=[version % 6 + 1])
        await first.commit(TAMPERED, version, document_at(version + 1), event)
    return first, second


async def test_a_head_another_process_moved_is_verified_from_the_kept_head_s_document(
    backend: Backend, verifications: list[tuple[str, int, int]]
) -> None:
    """The pages' own process (docs/web.md): a game whose patches are small against its
    document keeps few snapshots, so a new head replayed from the snapshot below the one
    verified cost hundreds of versions; from the kept head's document it costs the new
    ones. Without a kept head (pushed out, or PostgreSQL, which keeps none) the snapshot
    below is where it starts, as before."""
    first, second = await two_processes_apart(backend)
    async with first, second:
        verifications.clear()
        assert (await second.load(TAMPERED)).document == document_at(HEAD)
        assert second.verified_chains.head(TAMPERED).seq == HEAD
        from_snapshot = ("span", 16, HEAD)  # 16: the snapshot at or below version 20
        assert verifications == (
            [("forward", 20, HEAD)] if backend.name == "sqlite" else [from_snapshot]
        )
        # The anchors were verified on the way: an old version is checked up to 32.
        verifications.clear()
        assert (await second.state_at(TAMPERED, 30)).document == document_at(30)
        assert verifications == [("span", 24, 32)]
        await first.commit(TAMPERED, HEAD, document_at(HEAD + 1), NewEvent(verb="advance"))
        second.head_cache.forget(TAMPERED)
        verifications.clear()
        assert (await second.load(TAMPERED)).version == HEAD + 1
        assert verifications == [("span", 33, HEAD + 1)]


async def test_readers_of_a_moved_head_at_once_verify_it_once_from_the_kept_head(
    backend: Backend, verifications: list[tuple[str, int, int]]
) -> None:
    """Fifty readers refreshing a page after another process's command (docs/web.md,
    "Speed"): the first to find the kept head stale reads and verifies the new head from
    it; the others wait for that read and are served what it kept, instead of each
    reading in full and replaying from the snapshot below the kept head."""
    first, second = await two_processes_apart(backend)
    async with first, second:
        verifications.clear()
        loaded = await asyncio.gather(*(second.load(TAMPERED) for _ in range(5)))
        assert {record.version for record in loaded} == {HEAD}
        assert all(record.document == document_at(HEAD) for record in loaded)
        if backend.name == "sqlite":
            assert verifications == [("forward", 20, HEAD)]
        else:  # PostgreSQL keeps no head: each read verifies on its own, as before
            assert ("span", 16, HEAD) in verifications


async def test_versions_that_left_the_document_as_it_was_are_hashed_without_serializing_it(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat taken, a deadline set: a write whose patch is empty. Verifying such versions
    forward from the kept head hashes the text already known instead of serializing the
    document again, nor parsing the kept head's (the web pages' process verifies every head
    the bot moves); a version whose empty patch hides a change is refused all the same."""
    serialized: list[int] = []
    serialize, parse = chain.canonical_json_of_parsed, chain.parse_canonical
    monkeypatch.setattr(
        chain, "canonical_json_of_parsed", lambda value: serialized.append(1) or serialize(value)
    )
    monkeypatch.setattr(chain, "parse_canonical", lambda text: serialized.append(2) or parse(text))
    first, second = await two_processes_apart(backend)
    async with first, second:
        await second.load(TAMPERED)
        for version in range(HEAD, HEAD + 3):  # the same document: empty patches
            await first.commit(TAMPERED, version, document_at(HEAD), NewEvent(verb="seat"))
        serialized.clear()
        assert (await second.load(TAMPERED)).version == HEAD + 3
        if backend.name == "sqlite":  # verified forward from the kept head
            assert serialized == []
        await first.commit(TAMPERED, HEAD + 3, document_at(HEAD + 4), NewEvent(verb="advance"))
        await first.commit(TAMPERED, HEAD + 4, document_at(HEAD + 5), NewEvent(verb="advance"))
        await backend.tamper(
            f"UPDATE patches SET patch = '[]' WHERE channel_id = 7 AND version = {HEAD + 4}"
        )
        with pytest.raises(ChainBroken) as caught:
            await second.load(TAMPERED)
        assert names(caught.value, HEAD + 4), caught.value


#: Rows of the versions the first process added (21..40) edited before the second reads
#: them, and the first bad event each makes.
EDITS_AHEAD: dict[str, tuple[str, int]] = {
    "the first new version's patch": (
        "UPDATE patches SET patch = '[[[\"turn\"],99]]' WHERE channel_id = 7 AND version = 21",
        21,
    ),
    "the first new event's link": (
        f"UPDATE events SET prev_hash = '{'0' * 64}' WHERE channel_id = 7 AND seq = 21",
        21,
    ),
    "a new snapshot's document": (
        'UPDATE states SET {doc} = \'{{"log":[],"turn":24}}\' '
        "WHERE channel_id = 7 AND version = 24",
        24,
    ),
    "a patch among the new ones": (
        "UPDATE patches SET patch = '[[[\"turn\"],99]]' WHERE channel_id = 7 AND version = 30",
        30,
    ),
    "a new event's dice": ("UPDATE events SET dice = '[6]' WHERE channel_id = 7 AND seq = 37", 37),
    "a new event removed": ("DELETE FROM events WHERE channel_id = 7 AND seq = 29", 29),
}


@pytest.mark.parametrize("edit", sorted(EDITS_AHEAD))
async def test_a_row_edited_between_the_kept_head_and_the_moved_one_is_refused(
    backend: Backend, edit: str
) -> None:
    first, second = await two_processes_apart(backend)
    async with first, second:
        statement, first_bad = EDITS_AHEAD[edit]
        await backend.tamper(statement.format(doc=doc_column(backend)))
        for read in (lambda: second.load(TAMPERED), lambda: second.open_command(TAMPERED)):
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert names(caught.value, first_bad), caught.value
        assert second.verified_chains.head(TAMPERED) is None


async def test_the_event_log_pages_are_checked(backend: Backend) -> None:
    await two_games(backend)
    async with await backend.open() as store:
        await store.load(TAMPERED)
        await backend.tamper("UPDATE events SET dice = '[6]' WHERE channel_id = 7 AND seq = 23")
        with pytest.raises(ChainBroken) as caught:
            await store.events(TAMPERED, after_seq=20, limit=10)
        assert names(caught.value, 23)
        assert len(await store.events(TAMPERED, after_seq=30, limit=10)) == 10


def test_the_verified_heads_are_bounded_and_a_refusal_is_remembered_for_a_while() -> None:
    chains = VerifiedChains(size=3, refusal_seconds=60)
    for channel in range(10):
        chains.remember(channel, VerifiedHead("t", 5, f"h{channel}"))
    assert len(chains) == 3 and chains.head(0) is None and chains.head(9) is not None
    assert chain.first_to_verify(0, chains.head(0), VerifiedHead("t", 5, "h0")) == 1
    head = VerifiedHead("t", 5, "h9")
    error = ChainBroken(9, 3, chain.EVENT_EDITED)
    chains.refuse(9, head, error)
    assert chains.head(9) is None and chains.refusal(9, head) is error
    assert chains.refusal(9, replace(head, seq=6)) is None  # the head moved: check again
    chains.refuse(9, head, error)
    chains.remember(9, head)  # verified again (restored): the refusal is gone
    assert chains.refusal(9, head) is None
    expired = VerifiedChains(refusal_seconds=-1)
    expired.refuse(9, head, error)
    assert expired.refusal(9, head) is None


def test_which_versions_a_verification_reads() -> None:
    known = VerifiedHead("t", 40, "h40")
    assert chain.first_to_verify(1, known, known) is None
    assert chain.first_to_verify(1, None, known) == 1
    assert chain.first_to_verify(1, known, VerifiedHead("other game", 40, "h40")) == 1
    # From the verified head on (the caller reads the whole document at or below it).
    assert chain.first_to_verify(1, known, VerifiedHead("t", 45, "h45")) == 40
    assert chain.first_to_verify(1, VerifiedHead("t", 5, "h5"), known) == 5
    with pytest.raises(ChainBroken, match="event 40 "):
        chain.first_to_verify(1, known, VerifiedHead("t", 40, "forged"))
    with pytest.raises(ChainBroken, match="event 40 "):
        chain.first_to_verify(1, known, VerifiedHead("t", 39, "h39"))


async def test_db_check_audits_every_archived_game(backend: Backend) -> None:
    async with await backend.open() as store:
        for channel_id in (TAMPERED, CLEAN):
            await long_game(store, channel_id, last=20)
            await store.end_game(channel_id)
            await store.archive_game(channel_id, await store.export(channel_id))
        archives = {entry.channel_id: entry.id for entry in await store.all_archives()}
        assert await store.check() == []
        bundle = await store.archived_export(archives[TAMPERED])
        bundle["events"][11]["dice"] = [1]  # a die of event 12 (a 6), in the archived bundle
        await backend.tamper(
            f"UPDATE archived_games SET bundle = {blob_literal(backend, encode_bundle(bundle))} "
            f"WHERE id = {archives[TAMPERED]}"
        )
        assert await store.check() == [
            f"archive {archives[TAMPERED]} (channel {TAMPERED}): event 12 fails verification "
            f"({chain.EVENT_EDITED})"
        ]
        await backend.tamper(
            f"UPDATE archived_games SET bundle = {blob_literal(backend, b'not zlib')} "
            f"WHERE id = {archives[CLEAN]}"
        )
        problems = await store.check()
        assert len(problems) == 2
        assert problems[1].startswith(
            f"archive {archives[CLEAN]} (channel {CLEAN}): its bundle cannot be read"
        )


def blob_literal(backend: Backend, blob: bytes) -> str:
    return f"'\\x{blob.hex()}'::bytea" if backend.name == "postgres" else f"X'{blob.hex()}'"


def test_the_snapshot_anchors_are_contiguous_per_game_and_bounded() -> None:
    chains = VerifiedChains(anchor_bytes=32 * 5)
    head = VerifiedHead("t", 70, "aa" * 32)
    chains.remember(1, head, {16: "01" * 32, 32: "02" * 32, 64: "04" * 32})  # 48 missing
    assert chains.anchor_for(1, head, 3) == VerifiedHead("t", 16, "01" * 32)
    assert chains.anchor_for(1, head, 17) == VerifiedHead("t", 32, "02" * 32)
    assert chains.anchor_for(1, head, 40) == head  # no anchor kept past a gap
    assert chains.anchor_for(1, head, 69) == head  # past the last snapshot: the head
    assert chains.anchor_for(1, replace(head, hash="bb" * 32), 3).hash == "bb" * 32
    chains.remember(2, VerifiedHead("u", 70, "cc" * 32), {16: "05" * 32, 32: "06" * 32})
    chains.remember(3, VerifiedHead("v", 70, "dd" * 32), {16: "07" * 32, 32: "08" * 32})
    # Over the budget (5 digests): the least recently used channel's anchors went.
    assert chains.anchor_for(1, head, 3) == head
    assert chains.anchor_for(3, VerifiedHead("v", 70, "dd" * 32), 3).seq == 16
    chains.forget(3)
    assert chains.anchor_for(3, VerifiedHead("v", 70, "dd" * 32), 3).seq == 70
