"""Patches between JSON documents (db/chain/patch.py): round trips on random documents.

Property tests with Hypothesis: a patch made from one document to another, stored as JSON
and applied to a fresh copy, rebuilds the new document byte for byte (canonical JSON), for
random documents and for random edits of one document (the usual case: a command changes a
few fields); a whole history split into snapshots and patches gives every version back;
garbage never applies silently.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db.chain.hashing import canonical_json, state_hash
from db.chain.patch import (
    SNAPSHOT_EVERY,
    _applied_to_copies,
    apply_patch,
    compact_history,
    diff,
    history_states,
    is_snapshot,
    make_patch,
    patch_onto,
    rebuild_text,
)
from db.errors import ChainBroken

# JSON values with the awkward cases: 1 / 1.0 / True / -0.0, non-ASCII keys, nesting.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, "", "1"])
    | st.text(max_size=8)
)
keys = st.text(max_size=4) | st.sampled_from(["a", "b", "units", "é", "log"])
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(keys, children, max_size=6),
    max_leaves=20,
)
documents = st.dictionaries(keys, json_values, max_size=8)


def copy(value: Any) -> Any:
    """A private deep copy, as the stores have after parsing stored text."""
    return json.loads(json.dumps(value))


def applied(old: Any, patch_json: str) -> str:
    return canonical_json(apply_patch(copy(old), json.loads(patch_json)))


@st.composite
def edited(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """``value`` with a few random edits: members changed, added or removed, list elements
    changed, inserted, removed or appended, leaves replaced (sometimes by another type)."""
    if isinstance(value, dict) and value and depth < 6 and draw(st.booleans()):
        result = dict(value)
        for key in draw(st.lists(st.sampled_from(sorted(value)), max_size=3, unique=True)):
            action = draw(st.sampled_from(["edit", "drop", "keep"]))
            if action == "edit":
                result[key] = draw(edited(value[key], depth + 1))
            elif action == "drop":
                del result[key]
        for key, item in draw(st.dictionaries(keys, json_values, max_size=2)).items():
            result[key] = item
        return result
    if isinstance(value, list) and depth < 6 and draw(st.booleans()):
        result = list(value)
        for _ in range(draw(st.integers(0, 3))):
            action = draw(st.sampled_from(["edit", "insert", "remove", "append"]))
            if action == "append" or not result:
                result.append(draw(json_values))
            elif action == "edit":
                index = draw(st.integers(0, len(result) - 1))
                result[index] = draw(edited(result[index], depth + 1))
            elif action == "insert":
                result.insert(draw(st.integers(0, len(result))), draw(json_values))
            else:
                del result[draw(st.integers(0, len(result) - 1))]
        return result
    if draw(st.integers(0, 3)) == 0:
        return draw(json_values)
    return value


@settings(max_examples=100, deadline=None)
@given(documents, documents)
def test_a_patch_rebuilds_any_document_from_any_other(old: Any, new: Any) -> None:
    new_json = canonical_json(new)
    patch_json = make_patch(copy(old), copy(new), new_json)
    assert applied(old, patch_json) == new_json
    assert json.loads(patch_json) == json.loads(canonical_json(json.loads(patch_json)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), documents)
def test_a_patch_rebuilds_an_edited_document(data: st.DataObject, old: Any) -> None:
    new = data.draw(edited(old))
    new_json = canonical_json(new)
    patch_json = make_patch(copy(old), copy(new), new_json)
    assert applied(old, patch_json) == new_json
    if canonical_json(old) == new_json:
        assert patch_json == "[]"


plain_documents = st.dictionaries(
    keys,
    st.recursive(
        st.none() | st.integers() | st.text(max_size=6),
        lambda children: (
            st.lists(children, max_size=6) | st.dictionaries(keys, children, max_size=6)
        ),
        max_leaves=20,
    ),
    max_size=8,
)


@settings(max_examples=100, deadline=None)
@given(plain_documents, plain_documents)
def test_the_plain_difference_rebuilds_when_equal_means_identical(old: Any, new: Any) -> None:
    """Without floats and booleans (where Python's 1 == 1.0 == True hides a change that
    `make_patch` then catches), `diff` alone rebuilds the new document."""
    patch = diff(copy(old), copy(new))
    assert canonical_json(apply_patch(copy(old), copy(patch))) == canonical_json(new)


def test_a_small_change_makes_a_small_patch() -> None:
    document = {
        "units": {f"u{n}": {"models": 5, "pos": [n, 2 * n], "tags": ["a", "b"]} for n in range(50)},
        "log": [f"turn {n}" for n in range(40)],
        "turn": 3,
    }
    new = copy(document)
    new["units"]["u7"]["models"] = 4
    new["units"]["u9"]["pos"][1] = 99
    new["log"].append("turn 40")
    del new["units"]["u3"]
    new_json = canonical_json(new)
    patch_json = make_patch(copy(document), copy(new), new_json)
    assert applied(document, patch_json) == new_json
    assert len(patch_json) < 120, patch_json
    assert len(patch_json) * 20 < len(new_json)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), documents)
def test_a_patch_made_onto_a_document_leaves_it_as_it_was(data: st.DataObject, old: Any) -> None:
    """`patch_onto` proves its patch on copies of what it changes: the document it is made
    against (the caller reads it on) is neither consumed nor changed, and the patch rebuilds
    the new document from a parse of the old one's text, as `make_patch`'s does."""
    new = data.draw(edited(old))
    old_json, new_json = canonical_json(old), canonical_json(new)
    patch_json = patch_onto(old, copy(new), new_json)
    assert canonical_json(old) == old_json
    assert applied(old, patch_json) == new_json
    assert patch_json == make_patch(copy(old), copy(new), new_json)


def test_a_patch_onto_a_document_copies_only_the_paths_it_changes() -> None:
    document = {"units": {"a": {"models": 5}, "b": {"models": 3}}, "log": [1, 2], "turn": 1}
    new = copy(document)
    new["units"]["a"]["models"] = 4
    new["log"].append(3)
    units, log = document["units"], document["log"]
    patch_json = patch_onto(document, new, canonical_json(new))
    assert document == {"units": {"a": {"models": 5}, "b": {"models": 3}}, "log": [1, 2], "turn": 1}
    assert document["units"] is units and document["log"] is log
    assert applied(document, patch_json) == canonical_json(new)


def test_malformed_patches_are_value_errors() -> None:
    for patch in (
        [["units"]],  # an operation without a path list
        [[["missing", "deeper"], 1]],
        [[["log", 99], 1]],
        [[["log"], 5, 2, []]],
        [[["turn"], 0, 0, []]],
        [[["log", 0]]],  # remove from a list
        [[[], 1, 2]],
    ):
        for apply in (apply_patch, _applied_to_copies):
            try:
                apply({"log": [1, 2], "turn": 1}, copy(patch))
            except ValueError:
                continue
            raise AssertionError(f"{patch} applied by {apply.__name__}")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), documents, st.integers(1, 3 * SNAPSHOT_EVERY + 2))
def test_a_history_split_into_snapshots_and_patches_gives_every_version_back(
    data: st.DataObject, first: Any, length: int
) -> None:
    versions = [first]
    while len(versions) < length:
        versions.append(data.draw(edited(versions[-1])))
    statuses = [data.draw(st.sampled_from(["setup", "active", "ended"])) for _ in versions]
    texts = [canonical_json(version) for version in versions]
    history = [(n + 1, statuses[n], texts[n]) for n in range(length)]
    full, patches = compact_history(history)

    # A snapshot where the patches since the last one outgrow half the version's document.
    run, snapshots = 0, []
    for version, _, patch, snapshot, run_bytes in patches:
        run += len(patch)
        assert run_bytes == run
        assert snapshot == (2 * run > len(texts[version - 1]))
        if snapshot:
            snapshots.append(version)
            run = 0
    assert [row[0] for row in full] == sorted({1, *snapshots, length})
    # Migration 8's layout: the multiples of 16 (it stores the patches without their flag:
    # migration 10 records those).
    legacy_full, legacy_patches = compact_history(history, by_size=False)
    assert [row[0] for row in legacy_full] == [
        v for v in range(1, length + 1) if is_snapshot(v) or v == length
    ]
    assert [row[2] for row in legacy_patches] == [row[2] for row in patches]
    assert [row[0] for row in patches] == list(range(2, length + 1))
    salt = "5a" * 32
    hashes = [state_hash(text, status, salt) for _, status, text in history]
    assert history_states(1, hashes, full, patches, verify=True, salt=salt) == history
    with pytest.raises(ChainBroken):  # the same rows checked without the record's salt
        history_states(1, hashes, full, patches, verify=True)
    # Any version from the nearest kept document below it plus the patches after it.
    kept = {row[0]: row[2] for row in full}
    steps = {row[0]: row[2] for row in patches}
    for version in range(1, length + 1):
        base = max(v for v in kept if v <= version)
        rebuilt = rebuild_text(kept[base], [steps[v] for v in range(base + 1, version + 1)])
        assert rebuilt == texts[version - 1]
