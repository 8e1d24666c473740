"""Undo: a new version restoring the state before the latest event not yet undone."""

from __future__ import annotations

import pytest

from db.drivers.sqlite import SqliteStore
from db.errors import NothingToUndo, VersionConflict
from db.models import NewEvent
from tests.db.helpers import new_game


async def play(store: SqliteStore, channel_id: int, version: int, turn: int) -> int:
    result = await store.commit(
        channel_id, version, {"turn": turn}, NewEvent(verb="advance", args={"to": turn})
    )
    return result.version


async def turn_now(store: SqliteStore, channel_id: int) -> int:
    return int((await store.load(channel_id)).document["turn"])


async def test_undo_restores_the_previous_state_as_a_new_version(store: SqliteStore) -> None:
    await new_game(store, 1, document={"turn": 1})
    version = await play(store, 1, 1, 2)
    version = await play(store, 1, version, 3)
    undone = await store.undo(1, expected_version=version, actor_id=99)
    assert undone.version == 4
    assert undone.event.verb == "undo"
    assert undone.event.undoes_seq == 3
    assert undone.event.args == {"undone_seq": 3, "undone_verb": "advance"}
    assert undone.event.actor_id == 99
    assert await turn_now(store, 1) == 2
    # Version still equals the number of events: the undo is itself an event.
    assert len(await store.events(1)) == 4


async def test_repeated_undo_walks_back_instead_of_redoing(store: SqliteStore) -> None:
    await new_game(store, 2, document={"turn": 1})
    version = 1
    for turn in (2, 3, 4):
        version = await play(store, 2, version, turn)
    seen = []
    for _ in range(3):
        result = await store.undo(2)
        seen.append((result.event.undoes_seq, await turn_now(store, 2)))
    assert seen == [(4, 3), (3, 2), (2, 1)]
    with pytest.raises(NothingToUndo):
        await store.undo(2)
    assert (await store.load(2)).version == 7


async def test_undo_after_new_play_undoes_the_new_play_first(store: SqliteStore) -> None:
    await new_game(store, 3, document={"turn": 1})
    version = await play(store, 3, 1, 2)  # event 2
    version = await play(store, 3, version, 3)  # event 3
    version = (await store.undo(3)).version  # event 4 undoes 3 -> turn 2
    version = await play(store, 3, version, 30)  # event 5
    assert (await store.undo(3)).event.undoes_seq == 5
    assert await turn_now(store, 3) == 2
    assert (await store.undo(3)).event.undoes_seq == 2  # 3 is already undone
    assert await turn_now(store, 3) == 1


async def test_undo_of_the_end_reopens_the_game(store: SqliteStore) -> None:
    await new_game(store, 4, document={"turn": 1}, status="active")
    await play(store, 4, 1, 2)
    await store.end_game(4)
    assert (await store.load(4)).status == "ended"
    undone = await store.undo(4)
    assert undone.event.args["undone_verb"] == "game.ended"
    game = await store.load(4)
    assert (game.status, game.document["turn"]) == ("active", 2)
    await play(store, 4, game.version, 3)


async def test_undo_restores_status_too(store: SqliteStore) -> None:
    await new_game(store, 5, document={"turn": 1})
    await store.commit(5, 1, {"turn": 1}, NewEvent(verb="start"), status="active")
    await store.undo(5)
    assert (await store.load(5)).status == "setup"


async def test_the_creation_cannot_be_undone(store: SqliteStore) -> None:
    await new_game(store, 6)
    with pytest.raises(NothingToUndo) as caught:
        await store.undo(6)
    assert caught.value.channel_id == 6


async def test_undo_guarded_by_version(store: SqliteStore) -> None:
    await new_game(store, 7, document={"turn": 1})
    await play(store, 7, 1, 2)
    with pytest.raises(VersionConflict):
        await store.undo(7, expected_version=1)
    assert (await store.load(7)).version == 2


async def test_chain_and_export_hold_after_undos(store: SqliteStore) -> None:
    await new_game(store, 8, document={"turn": 1})
    version = 1
    for turn in range(2, 6):
        version = await play(store, 8, version, turn)
    await store.undo(8)
    await store.undo(8)
    await play(store, 8, version + 2, 9)
    bundle = await store.export(8)
    assert [e.verb for e in bundle.events][-3:] == ["undo", "undo", "advance"]
    assert await store.check() == []
