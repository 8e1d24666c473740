"""Commits prepared before the hop (`db.chain.prepare`): the service encodes the document, its
patch and the event texts on its rules thread and hands them to ``commit``.

What must hold on both backends: a prepared commit stores exactly what a plain one would;
a prepared state whose base is no longer the stored version (another write came between)
is still stored right, its patch made from the stored text instead; the history it leaves
rebuilds and checks. On SQLite, a plain commit's encoder hands its job straight to the
database thread, so closing the store meanwhile must answer, never hang.
"""

from __future__ import annotations

import asyncio
import enum
import json
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import db.chain.prepare as prepare_module
from db.chain.hashing import canonical_json, state_hash
from db.chain.patch import apply_patch
from db.chain.prepare import CommitPreparer, PreparedEvent, prepare_event
from db.drivers.sqlite import SqliteStore
from db.errors import StoreUnavailable
from db.models import NewEvent, PreparedState
from tests.db.helpers import new_game, sample_document

CHANNEL = 31

# Documents that share keys and values often (so a patch has equal parts to skip), with the
# corners where orjson and the recipe part ways: floats of every magnitude, integers beyond
# 64 bits, booleans beside the equal integers 1 and 0.
_SCALARS = st.one_of(
    st.sampled_from([0, 1, True, False, 1.0, 0.0, -0.0, None, "red", 1e-05, 1e-7, 1e22]),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("abcde"), inner, max_size=4)
    ),
    max_leaves=20,
)
_DOCUMENTS = st.dictionaries(st.sampled_from("abcdef"), _VALUES, max_size=6)


def _event(n: int, **args: Any) -> NewEvent:
    return NewEvent(
        verb="fire",
        args={"n": n, **args},
        dice=[{"die": "D10", "face": n % 10 + 1}],
        resolution=[{"outcome": "hit", "n": n}],
        actor_id=7,
        interaction_id=f"prepared-{n}",
    )


async def test_a_prepared_commit_stores_what_a_plain_one_does(store: Any) -> None:
    await new_game(store, CHANNEL)
    await new_game(store, CHANNEL + 1)
    preparer: CommitPreparer = store.preparer
    salts = {c: (await store.export(c)).state_salt for c in (CHANNEL, CHANNEL + 1)}
    status = (await store.load(CHANNEL)).status
    for n in range(1, 6):
        document = sample_document(turn=n + 1, log=list(range(n)))
        prepared = preparer.prepare(CHANNEL, document)
        event = prepare_event(_event(n))
        assert isinstance(prepared, PreparedState) and isinstance(event, PreparedEvent)
        ours = await store.commit(CHANNEL, n, prepared, event)
        plain_event = replace(_event(n), interaction_id=f"plain-{n}")
        theirs = await store.commit(CHANNEL + 1, n, document, plain_event)
        assert ours.version == theirs.version == n + 1
        # The same state, each hashed with its own record's salt.
        assert ours.event.state_hash == state_hash(prepared.text, status, salts[CHANNEL])
        assert theirs.event.state_hash == state_hash(prepared.text, status, salts[CHANNEL + 1])
        assert ours.event.args == theirs.event.args == {"n": n}
        assert ours.event.resolution == [{"outcome": "hit", "n": n}]
    assert (await store.load(CHANNEL)).document == (await store.load(CHANNEL + 1)).document
    for version in range(1, 7):
        assert (await store.state_at(CHANNEL, version)).document == (
            await store.state_at(CHANNEL + 1, version)
        ).document
    assert await store.check() == []


async def test_a_stale_prepared_state_is_stored_right(store: Any) -> None:
    await new_game(store, CHANNEL)
    preparer: CommitPreparer = store.preparer
    # Prepared against version 1, but another write lands first: its base is stale.
    stale = preparer.prepare(CHANNEL, sample_document(turn=3))
    await store.commit(CHANNEL, 1, sample_document(turn=2, note="between"), _event(1))
    assert stale.base_text is not None
    result = await store.commit(CHANNEL, 2, stale, prepare_event(_event(2)))
    assert result.version == 3
    assert (await store.load(CHANNEL)).document == sample_document(turn=3)
    assert (await store.state_at(CHANNEL, 2)).document == sample_document(turn=2, note="between")
    # The stored patches rebuild every version (an export verifies each against the chain).
    exported = await store.export(CHANNEL)
    assert [state.version for state in exported.states] == [1, 2, 3]
    assert await store.check() == []


async def test_a_prepared_state_of_another_channel_is_not_trusted(store: Any) -> None:
    await new_game(store, CHANNEL)
    await new_game(store, CHANNEL + 1)
    foreign = PreparedState(
        CHANNEL + 1,
        '{"turn":9}',
        base_text="{}",  # not the stored version: its patch must not be used
        patch_json='[[["turn"],9]]',
    )
    await store.commit(CHANNEL, 1, foreign, _event(1))
    assert (await store.load(CHANNEL)).document == {"turn": 9}
    assert (await store.state_at(CHANNEL, 1)).document == sample_document()
    assert await store.check() == []


async def test_an_unchanged_document_is_committed_as_its_verified_text(store: Any) -> None:
    await new_game(store, CHANNEL)
    await new_game(store, CHANNEL + 1)
    preparer: CommitPreparer = store.preparer
    record = await store.load(CHANNEL)
    assert record.document_text is not None
    unchanged = preparer.unchanged(CHANNEL, record.document_text)
    # What encoding and diffing its parse again gives, without doing either.
    assert (
        unchanged == preparer.prepare(CHANNEL, record.document, base_text=record.document_text)
        and unchanged.patch_json == "[]"
    )
    ours = await store.commit(
        CHANNEL, 1, preparer.unchanged(CHANNEL, record.document_text), _event(1)
    )
    theirs = await store.commit(
        CHANNEL + 1,
        1,
        (await store.load(CHANNEL + 1)).document,
        replace(_event(1), interaction_id="p"),
    )
    assert ours.version == theirs.version == 2
    mine, other = await store.export(CHANNEL), await store.export(CHANNEL + 1)
    assert [s.document for s in mine.states] == [s.document for s in other.states]
    assert (await store.load(CHANNEL)).document_text == record.document_text
    # The text stays the channel's patch base: the next commit is diffed against it.
    changed = preparer.prepare(CHANNEL, sample_document(turn=2))
    assert changed.base_text == record.document_text and changed.patch_json is not None
    assert await store.check() == []


async def test_commit_after_close_is_refused_not_left_hanging(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await new_game(store, CHANNEL)
    await store.close()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(store.commit(CHANNEL, 1, sample_document(2), _event(1)), 5)


async def test_closing_while_commits_are_being_prepared_answers_each(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    for channel in range(1, 21):
        await new_game(store, channel)

    async def commit(channel: int) -> str:
        try:
            document = sample_document(2, big=list(range(500)))
            await store.commit(channel, 1, document, _event(channel))
        except StoreUnavailable:
            return "refused"
        return "stored"

    pending = [asyncio.create_task(commit(channel)) for channel in range(1, 21)]
    await asyncio.sleep(0)
    await store.close()
    outcomes = await asyncio.wait_for(asyncio.gather(*pending), 10)
    assert set(outcomes) <= {"stored", "refused"}
    reopened = await SqliteStore.open(db_path)
    try:
        versions = [(await reopened.load(channel)).version for channel in range(1, 21)]
        # Whatever was acknowledged is there; whatever was refused is not.
        assert [2 if outcome == "stored" else 1 for outcome in outcomes] == versions
        assert await reopened.check() == []
    finally:
        await reopened.close()


async def test_a_channels_second_game_is_patched_against_its_own_first_version(
    store: Any,
) -> None:
    """The preparer keeps the channel's last parsed document; a new game in the same channel
    must not be diffed against the previous game's (issue: corrupt second game)."""
    preparer: CommitPreparer = store.preparer
    await new_game(store, CHANNEL, document=sample_document(turn=1, game="first"))
    first_next = sample_document(turn=2, game="first")
    await store.commit(CHANNEL, 1, preparer.prepare(CHANNEL, first_next), prepare_event(_event(1)))
    await store.end_game(CHANNEL, interaction_id="end-first")
    await store.archive_game(CHANNEL, await store.export(CHANNEL))
    await new_game(store, CHANNEL, document=sample_document(turn=1, game="second"))
    second_next = sample_document(turn=2, game="second", more=[1, 2])
    prepared = preparer.prepare(CHANNEL, second_next)
    await store.commit(CHANNEL, 1, prepared, prepare_event(_event(2)))
    assert (await store.load(CHANNEL)).document == second_next
    assert (await store.state_at(CHANNEL, 2)).document == second_next
    assert await store.check() == []
    await store.export(CHANNEL)  # verifies the chain


def test_parsed_documents_forget_a_parse_when_given_a_new_text_alone() -> None:
    from db.chain.patch import ParsedDocuments

    memory = ParsedDocuments()
    memory.keep(1, '{"a":1}', {"a": 1})
    memory.keep(1, '{"b":2}', None)
    assert memory.latest(1) == ('{"b":2}', None)


async def test_the_text_a_command_read_is_its_patch_base_whatever_the_preparer_forgot(
    store: Any,
) -> None:
    """The service passes the text its command loaded: the patch is made off the database
    thread though the preparer keeps only the few channels used last."""
    await new_game(store, CHANNEL, document=sample_document(turn=1))
    record = await store.load(CHANNEL)
    assert record.document_text is not None
    forgetful = CommitPreparer()  # knows no channel at all
    prepared = forgetful.prepare(CHANNEL, sample_document(turn=2), base_text=record.document_text)
    assert prepared.base_text == record.document_text and prepared.patch_json not in (None, "[]")
    await store.commit(CHANNEL, 1, prepared, prepare_event(_event(1)))
    assert (await store.load(CHANNEL)).document == sample_document(turn=2)
    # A base that is not the stored text any more is not trusted: the store makes the patch.
    stale = forgetful.prepare(CHANNEL, sample_document(turn=3), base_text=record.document_text)
    await store.commit(CHANNEL, 2, stale, prepare_event(_event(2)))
    assert (await store.state_at(CHANNEL, 2)).document == sample_document(turn=2)
    assert (await store.load(CHANNEL)).document == sample_document(turn=3)
    assert await store.check() == []


def test_the_document_a_command_read_is_diffed_without_parsing_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Given the document of the text it read, the preparer diffs against it (left as it
    is) rather than parse the text; a document that no longer writes that text (the
    command changed it) is not trusted: the text is parsed."""
    base = sample_document(turn=1)
    base_text = canonical_json(base)
    parsed: list[str] = []

    def counted(text: str) -> Any:
        parsed.append(text)
        return json.loads(text)

    monkeypatch.setattr(prepare_module, "parse_kept", counted)
    new = sample_document(turn=2)
    prepared = CommitPreparer().prepare(CHANNEL, new, base_text=base_text, base_document=base)
    assert parsed == [] and base == sample_document(turn=1)
    assert prepared.patch_json not in (None, "[]") and prepared.text == canonical_json(new)
    rebuilt = apply_patch(json.loads(base_text), json.loads(prepared.patch_json or ""))
    assert canonical_json(rebuilt) == prepared.text
    changed = {**base, "turn": 9}
    again = CommitPreparer().prepare(CHANNEL, new, base_text=base_text, base_document=changed)
    assert parsed == [base_text] and again.patch_json == prepared.patch_json


@pytest.mark.parametrize("big", [2**64, -(2**63) - 1, 10**30])
def test_a_base_text_with_a_big_integer_gets_an_exact_patch(big: int) -> None:
    """The base text is parsed without its proof by writing back unless it holds nineteen
    digits in a row: a big integer in it (or one kept by the new document) is still read
    exactly, so the patch rebuilds the new text from the stored one."""
    base = {"big": big, "keep": big, "n": 1, "f": 0.1}
    new = {"big": big + 1, "keep": big, "n": 2, "f": 0.1}
    base_text = canonical_json(base)
    prepared = CommitPreparer().prepare(CHANNEL, new, base_text=base_text)
    assert prepared.patch_json is not None
    rebuilt = apply_patch(json.loads(base_text), json.loads(prepared.patch_json))
    assert canonical_json(rebuilt) == prepared.text == canonical_json(new)


class _Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    "value", [_Colour.RED, uuid.UUID(int=7), float("nan"), float("inf")], ids=repr
)
@pytest.mark.parametrize("where", ["changed", "in a list", "where the base has its text"])
def test_a_patched_document_the_recipe_refuses_is_refused(value: Any, where: str) -> None:
    """A document patched from its base is written by orjson unchecked: a value orjson
    writes and the recipe refuses is still refused, wherever it sits: in what changed, in a
    list beside values equal to the base's, or where the base holds the text orjson writes
    for it (an enum's value: the two texts are then equal, and no patch proves anything)."""
    base = {"a": "red", "b": [1, "red"], "n": 1}
    written = {
        "changed": {**base, "n": value},
        "in a list": {**base, "b": [1, value], "n": 2},
    }
    document = written.get(where, {**base, "a": value})
    with pytest.raises((TypeError, ValueError)):
        canonical_json(document)  # the recipe refuses it
    with pytest.raises((TypeError, ValueError)):
        CommitPreparer().prepare(CHANNEL, document, base_text=canonical_json(base))


@settings(max_examples=300, deadline=None)
@given(base=_DOCUMENTS, new=_DOCUMENTS)
def test_a_patched_document_is_stored_as_the_recipe_writes_it(
    base: dict[str, Any], new: dict[str, Any]
) -> None:
    """The unchecked text of a patched document is the recipe's, and its patch rebuilds it
    from the base (floats of every magnitude, booleans beside equal integers…)."""
    base_text = canonical_json(base)
    prepared = CommitPreparer().prepare(CHANNEL, new, base_text=base_text)
    assert prepared.text == canonical_json(new)
    if prepared.patch_json is not None:
        rebuilt = apply_patch(json.loads(base_text), json.loads(prepared.patch_json))
        assert canonical_json(rebuilt) == prepared.text
