"""A retried interaction takes effect once."""

from __future__ import annotations

import asyncio

import pytest

from db.drivers.sqlite import SqliteStore
from db.errors import InteractionReused
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game, sample_document


def fire(interaction_id: str | None) -> NewEvent:
    return NewEvent(
        verb="fire",
        args={"weapon": "MG 42"},
        dice=[{"die": "d12", "value": 11}],
        resolution={"hits": 2},
        actor_id=5,
        interaction_id=interaction_id,
    )


async def test_same_interaction_twice_takes_effect_once(store: SqliteStore) -> None:
    await new_game(store, 1)
    first = await store.commit(1, 1, sample_document(turn=2), fire("int-1"))
    again = await store.commit(1, 1, sample_document(turn=2), fire("int-1"))
    assert first.duplicate is False
    assert again.duplicate is True
    assert again.event == first.event
    assert (await store.load(1)).version == 2
    assert len(await store.events(1)) == 2


async def test_retry_after_the_game_moved_on_is_not_a_conflict(store: SqliteStore) -> None:
    await new_game(store, 2)
    first = await store.commit(2, 1, sample_document(turn=2), fire("int-a"))
    await store.commit(2, 2, sample_document(turn=3), fire("int-b"))
    retry = await store.commit(2, 1, sample_document(turn=2), fire("int-a"))
    assert retry.duplicate is True
    assert retry.version == first.version == 2
    assert (await store.load(2)).document["turn"] == 3


async def test_concurrent_duplicates_apply_once(backend: Backend) -> None:
    async with (
        await backend.open() as first,
        await backend.open() as second,
    ):
        await new_game(first, 3)
        results = await asyncio.gather(
            *(
                (first, second)[n % 2].commit(3, 1, sample_document(turn=2), fire("int-x"))
                for n in range(10)
            )
        )
        assert sum(not r.duplicate for r in results) == 1
        assert len({r.event.hash for r in results}) == 1
        assert (await first.load(3)).version == 2


async def test_events_without_interaction_are_not_deduplicated(store: SqliteStore) -> None:
    await new_game(store, 4)
    await store.commit(4, 1, sample_document(), fire(None))
    await store.commit(4, 2, sample_document(), fire(None))
    assert (await store.load(4)).version == 3


async def test_interaction_reused_in_another_channel(store: SqliteStore) -> None:
    await new_game(store, 5)
    await new_game(store, 6)
    await store.commit(5, 1, sample_document(), fire("int-5"))
    with pytest.raises(InteractionReused) as caught:
        await store.commit(6, 1, sample_document(), fire("int-5"))
    assert caught.value.params["other_channel_id"] == 5
    assert (await store.load(6)).version == 1


async def test_create_and_undo_and_end_are_idempotent_too(store: SqliteStore) -> None:
    created = await store.create_game(
        7, guild_id=1, ruleset="w40k4", language="en", document={"a": 1}, interaction_id="c7"
    )
    recreated = await store.create_game(
        7, guild_id=1, ruleset="w40k4", language="en", document={"a": 1}, interaction_id="c7"
    )
    assert recreated == created
    await store.commit(7, 1, {"a": 2}, fire("f7"))
    undone = await store.undo(7, interaction_id="u7")
    assert (await store.undo(7, interaction_id="u7")) == type(undone)(undone.event, True)
    ended = await store.end_game(7, interaction_id="e7")
    assert (await store.end_game(7, interaction_id="e7")).event == ended.event
    assert (await store.load(7)).version == 4


async def test_one_interaction_raced_into_two_channels(backend: Backend) -> None:
    """The unique index settles a race the per-channel lock cannot see: one channel wins."""
    async with await backend.open() as first, await backend.open() as second:
        for channel_id in (8, 9):
            await new_game(first, channel_id)
        results = await asyncio.gather(
            *(
                (first, second)[n % 2].commit(8 + n % 2, 1, sample_document(), fire("int-race"))
                for n in range(6)
            ),
            return_exceptions=True,
        )
        winners = [r for r in results if not isinstance(r, BaseException) and not r.duplicate]
        assert len(winners) == 1
        won = winners[0].event.channel_id
        lost = 17 - won
        for outcome, n in zip(results, range(6), strict=True):
            if 8 + n % 2 == lost:
                assert isinstance(outcome, InteractionReused), outcome
            else:
                assert not isinstance(outcome, BaseException), outcome
        assert (await first.load(lost)).version == 1
        assert (await first.load(won)).version == 2
