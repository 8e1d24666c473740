"""The hash chain recipe, checked against an independent re-implementation of the docs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

import pytest

from db.errors import ChainBroken
from db.hashing import GENESIS_HASH, canonical_json, state_hash, verify_chain, verify_export
from db.models import NewEvent, format_timestamp
from db.sqlite import SqliteStore
from tests.db.helpers import new_game


def documented_canonical(value: Any) -> bytes:
    """docs/storage.md, word for word."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def test_canonical_json() -> None:
    assert canonical_json({"b": 1, "a": {"d": [1, 2.5], "c": "è"}}) == (
        '{"a":{"c":"è","d":[1,2.5]},"b":1}'
    )
    with pytest.raises(ValueError):
        canonical_json({"x": float("inf")})


def test_state_hash_matches_the_documented_formula() -> None:
    document = {"turn": 3, "units": [{"id": "Å", "hp": 1.5}]}
    expected = hashlib.sha256(
        documented_canonical({"document": document, "status": "active"})
    ).hexdigest()
    assert state_hash(canonical_json(document), "active") == expected


async def test_event_hashes_match_the_documented_recipe(store: SqliteStore) -> None:
    await new_game(store, 1, document={"turn": 1})
    await store.commit(
        1,
        1,
        {"turn": 2},
        NewEvent(
            verb="fire",
            args={"w": "Bren"},
            dice=[3, 9],
            resolution={"hit": True},
            actor_id=12,
            interaction_id="i-1",
        ),
        status="active",
    )
    await store.undo(1)
    events = await store.events(1)
    previous = "0" * 64
    for event in events:
        fields = {
            "actor_id": event.actor_id,
            "args": event.args,
            "channel_id": event.channel_id,
            "created_at": format_timestamp(event.created_at),
            "dice": event.dice,
            "interaction_id": event.interaction_id,
            "resolution": event.resolution,
            "seq": event.seq,
            "state_hash": event.state_hash,
            "state_version": event.state_version,
            "undoes_seq": event.undoes_seq,
            "verb": event.verb,
        }
        recomputed = hashlib.sha256(previous.encode() + documented_canonical(fields)).hexdigest()
        assert event.prev_hash == previous
        assert event.hash == recomputed
        state = await store.state_at(1, event.state_version)
        assert (
            event.state_hash
            == hashlib.sha256(
                documented_canonical({"document": state.document, "status": state.status})
            ).hexdigest()
        )
        previous = event.hash
    assert events[0].prev_hash == GENESIS_HASH


async def test_verify_chain_names_the_first_bad_event(store: SqliteStore) -> None:
    await new_game(store, 2, document={"turn": 1})
    for version in (1, 2, 3):
        await store.commit(2, version, {"turn": version + 1}, NewEvent(verb="advance"))
    events = await store.events(2)
    assert verify_chain(events) == events[-1].hash

    with pytest.raises(ChainBroken) as caught:
        verify_chain([events[0], events[2], events[3]])
    assert caught.value.seq == 3

    forged = list(events)
    forged[1] = replace(events[1], verb="rout")
    with pytest.raises(ChainBroken) as caught:
        verify_chain(forged)
    assert (caught.value.channel_id, caught.value.seq) == (2, 2)

    with pytest.raises(ChainBroken, match="another channel"):
        verify_chain([events[0], replace(events[1], channel_id=3)])


async def test_values_sqlite_would_convert_still_verify(store: SqliteStore) -> None:
    """An int interaction id or int dict keys must not make the stored chain unverifiable."""
    await new_game(store, 3, document={"turn": 1})
    event = NewEvent(
        verb="fire",
        args={2: "second", 10: "tenth"},  # type: ignore[dict-item]
        dice=[(1, 2)],
        interaction_id=1234567890123,  # type: ignore[arg-type]
    )
    result = await store.commit(3, 1, {"turn": 2}, event)
    assert result.event.interaction_id == "1234567890123"
    assert result.event.args == {"10": "tenth", "2": "second"}
    assert result.event.dice == [[1, 2]]
    assert (await store.events(3))[-1] == result.event
    bundle = await store.export(3)
    assert verify_export(json.loads(json.dumps(bundle.to_json_dict()))) == result.event.hash
    retried = await store.commit(3, 1, {"turn": 2}, event)
    assert retried.duplicate


async def test_jsonb_documents_keep_their_hash(pg_url: str) -> None:
    """JSONB rewrites numbers and key order; PostgreSQL reads and hashes the stored text."""
    import asyncpg

    from db.postgres import PostgresStore

    document = {
        "zz": 1e20,
        "a": [1.0, -0.0, 2.5e-08, 12345678901234567890, 0.1],
        "bbb": {"é": "Å", "10": 1, "9": 2},
    }
    async with await PostgresStore.open(pg_url) as store:
        await new_game(store, 4, document=document)
        [created] = await store.events(4)
        state = await store.state_at(4, 1)
        assert state.document == document
        assert state_hash(canonical_json(state.document), "setup") == created.state_hash
        assert (await store.load(4)).document == document
        bundle = await store.export(4)
        assert verify_export(json.loads(json.dumps(bundle.to_json_dict()))) == created.hash
    connection = await asyncpg.connect(pg_url)
    try:
        jsonb_text = await connection.fetchval("SELECT document::text FROM states")
        # Same value, different text: why the hashed text is kept beside the JSONB.
        assert json.loads(jsonb_text) == document
        assert jsonb_text != canonical_json(document)
        assert await connection.fetchval("SELECT document->'bbb'->>'é' FROM states") == "Å"
    finally:
        await connection.close()
