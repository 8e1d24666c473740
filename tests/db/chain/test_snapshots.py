"""Snapshots chosen by size: a whole document is kept once the patches since the last one
outgrow half of it (`db.chain.patch.snapshot_due`), recorded beside the patch, on both backends.

A small change to a large document (a `/campaign adjust` on a campaign of hundreds of KB)
stores its patch, not a whole state; the layout a commit records is the one a copy of the
game restores (`db.chain.patch.compact_history`); every version reads back.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from db.chain.hashing import canonical_json
from db.chain.patch import SNAPSHOT_SHARE, compact_history
from db.errors import ChainBroken
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game

CHANNEL = 61
#: At most this many bytes stored by an adjustment of a large campaign (issue 33).
ADJUST_BUDGET = 2 * 1024


def campaign(units: int, seed: int = 33) -> dict[str, Any]:
    """A campaign-like document: many rosters of incompressible text."""
    rng = random.Random(seed)  # a private generator: the global random is never seeded
    return {"turn": 0, "rosters": {f"unit{n}": rng.randbytes(48).hex() for n in range(units)}}


def adjusted(document: dict[str, Any], n: int) -> dict[str, Any]:
    """``document`` with one roster changed, as a referee's adjustment does."""
    rosters = dict(document["rosters"])
    rosters[f"unit{n * 7 % len(rosters)}"] = f"adjusted {n}"
    return {**document, "turn": n, "rosters": rosters}


async def recorded(store: Any, head: int) -> tuple[list[int], list[int], list[int]]:
    """The versions recorded as snapshots, those whose whole document is stored and the
    length of each patch, as the store's history pages give them."""
    versions = await store.history_page(CHANNEL, 0, head, 1000)
    return (
        [v.seq for v in versions if v.snapshot],
        [v.seq for v in versions if v.full is not None],
        [len(v.patch[1]) for v in versions if v.patch is not None],
    )


async def test_an_adjustment_of_a_large_campaign_stores_a_patch_not_a_state(
    backend: Backend,
) -> None:
    document = campaign(units=5_000)  # about 600 KB of canonical JSON
    size = len(canonical_json(document))
    assert size > 500_000
    async with await backend.open() as store:
        version = await new_game(store, CHANNEL, document=document)
        documents = [document]
        for n in range(1, 41):
            document = adjusted(document, n)
            event = NewEvent(verb="campaign.adjusted", args={"n": n})
            version = (await store.commit(CHANNEL, version, document, event)).version
            documents.append(document)
        snapshots, whole, patches = await recorded(store, version)
        # Forty patches of a few dozen bytes are far from half a document: no snapshot.
        assert snapshots == [] and whole == [1, version]
        assert max(patches) <= ADJUST_BUDGET
        for old in (2, 20, version - 1):
            assert (await store.state_at(CHANNEL, old)).document == documents[old - 1]


async def test_the_recorded_snapshots_are_those_a_copy_restores(backend: Backend) -> None:
    """Changes large against a small document: snapshots fall where the run of patches
    outgrows half a document, and a copy of the game (which splits the exported states
    again) keeps the very same ones."""
    document = campaign(units=40)
    async with await backend.open() as store:
        version = await new_game(store, CHANNEL, document=document)
        texts = [(1, "setup", canonical_json(document))]
        for n in range(1, 60):
            document = {**adjusted(document, n), "log": [f"line {k}" for k in range(n % 9)]}
            event = NewEvent(verb="campaign.adjusted", args={"n": n})
            version = (await store.commit(CHANNEL, version, document, event)).version
            texts.append((version, "setup", canonical_json(document)))
        snapshots, whole, patches = await recorded(store, version)
        full, rows = compact_history(texts)
        assert snapshots == [row[0] for row in rows if row[3]]
        assert whole == [row[0] for row in full]
        assert 2 < len(snapshots) < version / 3
        # Each run of patches closed by a snapshot outgrew half of its document.
        start = 0
        for snapshot in snapshots:
            run = sum(patches[start : snapshot - 1])
            assert run > SNAPSHOT_SHARE * len(texts[snapshot - 1][2])
            assert run - patches[snapshot - 2] <= SNAPSHOT_SHARE * len(texts[snapshot - 2][2])
            start = snapshot - 1
        bundle = await store.export(CHANNEL)
        for state in bundle.states:
            assert canonical_json(state.document) == texts[state.version - 1][2]


async def test_an_old_version_far_from_its_snapshot_is_checked_at_both_ends(
    backend: Backend,
) -> None:
    """A long run of small patches (no snapshot in 150 versions of a large document): an
    old version is rebuilt through all of them and checked at its two ends (the whole
    document below it and the version itself, each with its events up to the anchor after
    it); an edited patch on the way is refused, naming it, and an edited event between the
    ends by the reads that use it (docs/storage.md, "What reading an old version proves")."""
    document = campaign(units=300)
    async with await backend.open() as store:
        version = await new_game(store, CHANNEL, document=document)
        documents = [document]
        for n in range(1, 150):
            document = adjusted(document, n)
            event = NewEvent(verb="campaign.adjusted", args={"n": n}, dice=[n % 6 + 1])
            version = (await store.commit(CHANNEL, version, document, event)).version
            documents.append(document)
        assert (await recorded(store, version))[0] == []  # no snapshot: one run
        for old in (3, 70, 120, 149):
            assert (await store.state_at(CHANNEL, old)).document == documents[old - 1]
        await backend.tamper(
            f"UPDATE patches SET patch = '[[[\"turn\"],99]]' "
            f"WHERE channel_id = {CHANNEL} AND version = 100"
        )
        with pytest.raises(ChainBroken) as caught:
            await store.state_at(CHANNEL, 120)
        assert caught.value.seq == 100, caught.value
        await backend.tamper(
            f"UPDATE events SET dice = '[9]' WHERE channel_id = {CHANNEL} AND seq = 50"
        )
        # Version 90 is vouched for by its own event and version 1's: served as it is.
        assert (await store.state_at(CHANNEL, 90)).document == documents[89]
        for read in (lambda: store.state_at(CHANNEL, 50), lambda: store.export(CHANNEL)):
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert caught.value.seq == 50, caught.value
