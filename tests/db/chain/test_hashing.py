"""The hash chain recipe, checked against an independent re-implementation of the docs."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from db.chain.hashing import (
    GENESIS_HASH,
    canonical_json,
    has_long_digit_run,
    parse_canonical,
    parse_kept,
    state_hash,
    verify_chain,
    verify_export,
    verify_links,
)
from db.drivers.sqlite import SqliteStore
from db.errors import ChainBroken
from db.models import NewEvent, format_timestamp
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


def documented_text(value: Any) -> str:
    """The recipe as a plain call, non-finite floats refused."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


# Every JSON value, with the corners where a fast writer and the recipe part ways: floats of
# every magnitude (exponents, tiny, subnormal, -0.0), integers beyond 64 bits, control and
# non-ASCII characters in keys and strings, and texts that look like numbers.
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e-05, 1e-06, 1.5e-7, 0.0001, 1e16, 1e-300, 5e-324, -0.0, 1e22]),
    st.text(),
    st.sampled_from(["0.00001", "1e-5", "line-of-sight", "NaN", "Infinity", "null"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(value=_JSON)
def test_canonical_json_is_the_recipe_text(value: Any) -> None:
    # Lone surrogates make text the recipe writes but UTF-8 cannot carry: both must agree
    # on that too, so only the comparison of the two texts is asked for.
    assert canonical_json(value) == documented_text(value)


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_floats_are_refused_wherever_they_are(bad: float) -> None:
    for value in (bad, [bad], {"a": {"b": [None, bad]}}, {"k": None, "x": [1, bad, "NaN"]}):
        with pytest.raises(ValueError):
            canonical_json(value)


def test_what_the_fast_writer_refuses_is_written_by_the_recipe() -> None:
    class Count(int):
        pass

    deep: Any = []
    for _ in range(400):
        deep = [deep]
    for value in ({"a": 2**80}, {"x": Count(3)}, deep, {"s": "\ud800"}, [1e-05, {"k": 1e-7}]):
        assert canonical_json(value) == documented_text(value)
    with pytest.raises(TypeError):
        canonical_json({1: "a", "b": 2})  # keys that cannot be sorted, refused as ever


def test_state_hash_matches_the_documented_formula() -> None:
    document = {"turn": 3, "units": [{"id": "Å", "hp": 1.5}]}
    expected = hashlib.sha256(
        documented_canonical({"document": document, "status": "active"})
    ).hexdigest()
    assert state_hash(canonical_json(document), "active", None) == expected


def test_a_salted_state_hash_matches_the_documented_formula() -> None:
    document = {"turn": 3, "units": [{"id": "Å", "hp": 1.5}]}
    salt = "0f" * 32
    expected = hashlib.sha256(
        documented_canonical({"document": document, "salt": salt, "status": "active"})
    ).hexdigest()
    assert state_hash(canonical_json(document), "active", salt) == expected
    assert state_hash(canonical_json(document), "active", None) != expected


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
    salt = (await store.export(1)).state_salt  # the referee's export carries it
    assert salt is not None and len(bytes.fromhex(salt)) == 32
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
            "salt": salt,  # the record's: a guessed command cannot be tested either
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
                documented_canonical(
                    {"document": state.document, "salt": salt, "status": state.status}
                )
            ).hexdigest()
        )
        previous = event.hash
    assert events[0].prev_hash == GENESIS_HASH


async def test_verify_chain_names_the_first_bad_event(store: SqliteStore) -> None:
    await new_game(store, 2, document={"turn": 1})
    for version in (1, 2, 3):
        await store.commit(2, version, {"turn": version + 1}, NewEvent(verb="advance"))
    events = await store.events(2)
    salt = (await store.export(2)).state_salt
    assert verify_chain(events, salt=salt) == events[-1].hash

    with pytest.raises(ChainBroken) as caught:
        verify_chain([events[0], events[2], events[3]], salt=salt)
    assert caught.value.seq == 3

    forged = list(events)
    forged[1] = replace(events[1], verb="rout")
    with pytest.raises(ChainBroken) as caught:
        verify_chain(forged, salt=salt)
    assert (caught.value.channel_id, caught.value.seq) == (2, 2)

    with pytest.raises(ChainBroken, match="another channel"):
        verify_chain([events[0], replace(events[1], channel_id=3)], salt=salt)


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

    from db.drivers.postgres import PostgresStore

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
        bundle = await store.export(4)
        salt = bundle.state_salt
        assert state_hash(canonical_json(state.document), "setup", salt) == created.state_hash
        assert (await store.load(4)).document == document
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


@settings(max_examples=300, deadline=None)
@given(value=_JSON)
def test_a_canonical_text_parses_as_the_standard_library_parses_it(value: Any) -> None:
    try:
        text = documented_text(value)
    except ValueError:
        return
    parsed = parse_canonical(text)
    assert parsed == json.loads(text) and documented_text(parsed) == text
    # Types too (1 and 1.0 and True are equal in Python, not in the chain).
    assert repr(parsed) == repr(json.loads(text))


@settings(max_examples=300, deadline=None)
@given(value=_JSON)
def test_a_kept_text_parses_as_the_standard_library_parses_it(value: Any) -> None:
    try:
        text = documented_text(value)
    except ValueError:
        return
    assert repr(parse_kept(text)) == repr(json.loads(text))  # types and values


def test_a_kept_text_with_a_big_integer_keeps_it_exact() -> None:
    for number in (2**64, -(2**63) - 1, 123456789012345678901234567890):
        text = f'{{"n":{number},"s":"x"}}'
        assert repr(parse_kept(text)) == repr({"n": number, "s": "x"})


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(["0", "1", "9", "5", "a", " ", ",", "-", ".", "é", "٣", "\ud800"]),
        max_size=60,
    )
)
def test_a_long_digit_run_is_found_as_the_pattern_finds_it(text: str) -> None:
    # ASCII digits only (an Arabic-Indic digit is none), through any other character.
    assert has_long_digit_run(text) == (re.search(r"[0-9]{19}", text) is not None)


def test_a_long_digit_run_is_nineteen_ascii_digits() -> None:
    assert has_long_digit_run('{"n":1234567890123456789}')
    assert not has_long_digit_run('{"n":123456789012345678}')  # 18: orjson reads it exactly
    assert not has_long_digit_run("é" + "1" * 18 + "é" + "1" * 18)
    assert has_long_digit_run("\ud800" + "0" * 19)


def test_parse_canonical_keeps_big_integers_and_refuses_what_json_refuses() -> None:
    assert parse_canonical('{"n":123456789012345678901234567890}') == {
        "n": 123456789012345678901234567890
    }
    assert parse_canonical('{"n":-9223372036854775809}') == {"n": -9223372036854775809}
    assert parse_canonical('{"b": 1}') == {"b": 1}  # not canonical: the stdlib parses it
    with pytest.raises(ValueError):
        parse_canonical('{"a":')


@pytest.mark.parametrize(
    "value", [{"a": [1, 2.5, None, "x"]}, [{"k": True}], {"t": (1, 2)}, {3: "int key"}]
)
def test_stable_json_reads_back_as_itself(value: Any) -> None:
    from db.chain.prepare import stable_and_value

    text, parsed = stable_and_value(value)
    assert text == documented_text(json.loads(json.dumps(value)))
    assert parsed == json.loads(text) and repr(parsed) == repr(json.loads(text))


@pytest.mark.parametrize(
    "value",
    [1e-05, -1.5e-05, 9.99e-05, 1e-06, -2.5e-07, 1e-09, 1e-10, 3e-300, [0.00001], {"k": 1e-6}],
)
def test_small_floats_are_written_as_the_recipe_writes_them(value: Any) -> None:
    assert canonical_json(value) == documented_text(value)


async def test_a_seats_export_verifies_its_links_and_whole_events_only(
    store: SqliteStore,
) -> None:
    """Without its states' hashes (a side's or a spectator's export) the events are only
    linked: an edited event still whole is caught, a withheld one is not; a broken link, a
    changed head or a missing event always are."""
    await new_game(store, 4, document={"turn": 1})
    for version in (1, 2, 3):
        await store.commit(4, version, {"turn": version + 1}, NewEvent(verb="advance"))
    whole = json.loads(json.dumps((await store.export(4)).to_json_dict()))
    assert verify_links(whole) == whole["head_hash"]  # every event whole: each hashed again

    def seats(bundle: dict[str, Any]) -> dict[str, Any]:
        events = [{k: v for k, v in e.items() if k != "state_hash"} for e in bundle["events"]]
        return {**bundle, "events": events, "states": [], "redacted_for": "Alleati"}

    seat = seats(whole)
    assert verify_links(seat) == whole["head_hash"]
    with pytest.raises(ChainBroken):
        verify_export(seat)  # the content of an event without its state's hash: unknown
    edited = json.loads(json.dumps(whole))
    edited["events"][1]["verb"] = "rout"
    with pytest.raises(ChainBroken) as caught:
        verify_links(edited)
    assert caught.value.seq == 2
    for broken in (
        {**seat, "events": [seat["events"][0], *seat["events"][2:]]},
        {**seat, "head_hash": "f" * 64},
        {**seat, "events": [seat["events"][0], {**seat["events"][1], "prev_hash": "0" * 64}]},
    ):
        with pytest.raises(ChainBroken):
            verify_links(broken)


async def test_a_seats_export_of_a_salted_record_verifies_its_links_only(
    store: SqliteStore,
) -> None:
    """A seat's export of a salted record keeps its events' state hashes but not the salt
    their own hashes cover: its events are only linked (an edit of one is not caught on
    this file, the referee's catches it); a broken link or a changed head always is."""
    await new_game(store, 5, document={"turn": 1})
    for version in (1, 2, 3):
        await store.commit(5, version, {"turn": version + 1}, NewEvent(verb="advance"))
    whole = json.loads(json.dumps((await store.export(5)).to_json_dict()))
    game = {k: v for k, v in whole["game"].items() if k != "state_salt"}
    seat = {
        **whole,
        "game": {**game, "salt_withheld": True},
        "states": [],
        "redacted_for": "Alleati",
    }
    assert all("state_hash" in event for event in seat["events"])
    assert verify_links(seat) == whole["head_hash"]
    edited = json.loads(json.dumps(whole))
    edited["events"][1]["verb"] = "rout"
    assert verify_links({**seat, "events": edited["events"]}) == whole["head_hash"]
    with pytest.raises(ChainBroken) as caught:
        verify_links(edited)  # the referee's file, with the salt: every event hashed again
    assert caught.value.seq == 2
    for broken in (
        {**seat, "head_hash": "f" * 64},
        {**seat, "events": [seat["events"][0], {**seat["events"][1], "prev_hash": "0" * 64}]},
    ):
        with pytest.raises(ChainBroken):
            verify_links(broken)
