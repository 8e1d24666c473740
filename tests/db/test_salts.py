"""A record's secret salt (schema 12), on both backends: hashed into each of its states and
events, covered by the rows' checksum and by the chain (an edited salt is refused either
way; an event rewritten by the recipe without the salt too), carried by the referee's export,
kept by a copy and an archive, never in a record's repr."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from db.chain.hashing import (
    GENESIS_HASH,
    canonical_json,
    compute_event_hash,
    state_hash,
    verify_export,
)
from db.chain.integrity import covered_digests
from db.core.common import covered_rows
from db.core.steps import read
from db.errors import ChainBroken, TamperedGame
from db.models import NewEvent
from db.open import open_store
from tests.db.conftest import Backend
from tests.db.helpers import new_game, sample_document
from tests.db.tools.test_copy import run

CHANNEL, OTHER = 61, 62
FORGED = "00" * 32


async def test_a_new_record_is_salted_and_its_states_hashed_with_it(store: Any) -> None:
    await new_game(store, CHANNEL)
    await store.commit(CHANNEL, 1, sample_document(turn=2), NewEvent(verb="advance"))
    await new_game(store, OTHER)
    bundle = await store.export(CHANNEL)
    salt = bundle.state_salt
    assert salt is not None and len(bytes.fromhex(salt)) == 32
    assert (await store.export(OTHER)).state_salt not in (None, salt)  # one per record
    previous = GENESIS_HASH
    for event, state in zip(bundle.events, bundle.states, strict=True):
        text = canonical_json(state.document)
        assert event.state_hash == state_hash(text, state.status, salt)
        assert event.state_hash != state_hash(text, state.status, None)
        # The event's own hash covers the salt too: its fields alone test no guess.
        assert event.hash == compute_event_hash(event, previous, salt=salt)
        assert event.hash != compute_event_hash(event, previous, salt=None)
        previous = event.hash
    data = json.loads(json.dumps(bundle.to_json_dict()))
    assert data["game"]["state_salt"] == salt
    assert verify_export(data) == bundle.head_hash
    del data["game"]["state_salt"]
    with pytest.raises(ChainBroken, match="content does not match its hash"):
        verify_export(data)
    record = await store.load(CHANNEL)
    assert record.state_salt == salt and salt not in repr(record)


async def _forge_salt(backend: Backend, store: Any, *, reseal: bool) -> None:
    """Replace the record's salt behind the store's back; with ``reseal``, as a forger who
    also recomputes the rows' checksum (it is not keyed)."""
    await backend.tamper(f"UPDATE games SET state_salt = '{FORGED}' WHERE channel_id = {CHANNEL}")
    if reseal:
        digests = covered_digests(await store._execute(read(covered_rows(CHANNEL))))
        assert digests is not None
        await backend.tamper(
            f"UPDATE games SET rows_digest = '{digests[1]}' WHERE channel_id = {CHANNEL}"
        )


@pytest.mark.parametrize("reseal", [False, True], ids=["checksum", "chain"])
async def test_an_edited_salt_is_refused(backend: Backend, reseal: bool) -> None:
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        await store.commit(CHANNEL, 1, sample_document(turn=2), NewEvent(verb="advance"))
        await new_game(store, OTHER)
        await _forge_salt(backend, store, reseal=reseal)
        with pytest.raises(TamperedGame) as refused:
            await store.load(CHANNEL)
        expected = "does not match the chain head" if reseal else "were edited"
        assert expected in str(refused.value)
        assert (await store.load(OTHER)).version == 1
    async with await backend.open() as store:  # a process that verified nothing yet
        problems = await store.check()
        assert problems and all(f"channel {CHANNEL}" in line for line in problems)
        told = " ".join(problems)
        # Every event's hash covers the salt: the chain fails at event 1.
        assert "event 1 (content does not match its hash)" in told
        assert ("salt) were edited" in told) is not reseal  # the checksum, unless resealed


async def _forge_move(backend: Backend, store: Any, salt: str | None) -> None:
    """Send the hidden move (event 2) elsewhere and hash it and every event after it again
    by the public recipe with ``salt`` (None: as a seat without the salt could), so the
    rewritten chain links up to a new head."""
    events = (await store.export(CHANNEL, verify=False)).events
    previous, statements = events[0].hash, []
    for event in events[1:]:
        args = {**event.args, "to": "46,15"} if event.seq == 2 else event.args
        forged = replace(event, args=args, prev_hash=previous)
        forged = replace(forged, hash=compute_event_hash(forged, previous, salt=salt))
        statements.append(
            f"UPDATE events SET args = '{canonical_json(args)}', prev_hash = '{previous}', "
            f"hash = '{forged.hash}' WHERE channel_id = {CHANNEL} AND seq = {event.seq}"
        )
        previous = forged.hash
    await backend.tamper(*statements)


@pytest.mark.parametrize("forger", ["seat", "referee"])
async def test_an_event_of_a_salted_record_rehashed_without_the_salt_is_refused(
    backend: Backend, forger: str
) -> None:
    """A hidden move's destination rewritten and the chain hashed again after it, by the
    recipe: without the salt (all a seat's export gives) load, every read and `db check`
    refuse it; only with the salt (the referee's file) would the forgery verify."""
    async with await backend.open() as store:
        await new_game(store, CHANNEL)
        move = NewEvent(verb="move", args={"unit": "squadra_2", "to": "45,15"}, dice=[4])
        await store.commit(CHANNEL, 1, sample_document(turn=2), move)
        await store.commit(CHANNEL, 2, sample_document(turn=3), NewEvent(verb="advance"))
        salt = (await store.export(CHANNEL)).state_salt
        await _forge_move(backend, store, None if forger == "seat" else salt)
    async with await backend.open() as store:  # a process that verified nothing yet
        if forger == "referee":  # the forgery itself is sound: only the salt tells
            assert (await store.events(CHANNEL))[1].args["to"] == "46,15"
            assert await store.check() == []
            return
        with pytest.raises(TamperedGame, match="the latest event does not match its hash"):
            await store.load(CHANNEL)
        with pytest.raises(ChainBroken, match="content does not match its hash") as caught:
            await store.events(CHANNEL)
        assert caught.value.seq == 2
        problems = await store.check()
        assert problems and "event 2 (content does not match its hash)" in " ".join(problems)
        data = json.loads(json.dumps((await store.export(CHANNEL, verify=False)).to_json_dict()))
    with pytest.raises(ChainBroken, match="event 2"):
        verify_export(data)  # with the salt the file carries


async def test_the_salt_goes_with_an_archive_and_a_copy(tmp_path: Path, pg_url: str) -> None:
    source = str(tmp_path / "source.db")
    async with await open_store(source) as store:
        await new_game(store, CHANNEL)
        await store.commit(CHANNEL, 1, sample_document(turn=2), NewEvent(verb="advance"))
        await new_game(store, OTHER)
        await store.end_game(OTHER)
        ended = await store.export(OTHER)
        archived = await store.archive_game(OTHER, ended, title="Archived")
        saved = await store.archived_export(archived.id)
        assert saved["game"]["state_salt"] == ended.state_salt is not None
        assert verify_export(saved) == ended.head_hash
        salt = (await store.export(CHANNEL)).state_salt
    assert await asyncio.to_thread(run, "db", "copy", source, pg_url) == 0
    async with await open_store(pg_url) as copy:
        assert await copy.check() == []
        assert (await copy.export(CHANNEL)).state_salt == salt
        assert (await copy.archived_export(archived.id))["game"]["state_salt"] == ended.state_salt
        result = await copy.commit(CHANNEL, 2, sample_document(turn=3), NewEvent(verb="advance"))
        state = await copy.state_at(CHANNEL, result.version)
        assert result.event.state_hash == state_hash(
            canonical_json(state.document), state.status, salt
        )
