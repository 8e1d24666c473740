"""The features' records through the store's generic operations, on both backends.

The store offers storage verbs only: `GameStore` names no feature. A feature keeps its
typed records through ``feature_get / put / delete / list / due``: conditional puts (a
claim won once, a compare-and-set), renewed records with ids never reused, a time index
leaving out ended games, a game's records going with it and its sealed records in its
checksum. Two connections claiming the same record: exactly one wins.
"""

from __future__ import annotations

import asyncio
import inspect
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from db.errors import GameNotFound, TamperedGame
from db.models import Scope
from db.protocol import GameStore
from tests.db.conftest import Backend
from tests.db.helpers import new_game

GAME, OTHER, GUILD = Scope.of_game(7), Scope.of_game(8), Scope.of_guild(900)
NOON = datetime(2031, 5, 4, 12, 0, tzinfo=UTC)

#: Words of the application's features: none may name a method of the store's interface.
FEATURE_WORDS = (
    "deadline",
    "pace",
    "warning",
    "remind",
    "side",
    "bind",
    "role",
    "creator",
    "pending",
    "roll",
    "prompt",
    "seat",
    "guild_setting",
)


def test_the_store_interface_holds_storage_verbs_only() -> None:
    methods = [name for name, _ in inspect.getmembers(GameStore) if not name.startswith("_")]
    assert {"feature_get", "feature_put", "feature_delete", "feature_list", "feature_due"} <= set(
        methods
    )
    named = [m for m in methods if any(word in m for word in FEATURE_WORDS)]
    assert named == [], named
    # 39 methods before (15 of them features'), 31 now.
    assert len(methods) == 31, methods


async def test_put_get_list_delete(store: Any) -> None:
    await new_game(store, 7)
    first = await store.feature_put("note", GAME, "b", {"text": "è", "n": [1, 2.5]})
    assert first is not None and first.revision == 1 and first.scope == GAME
    second = await store.feature_put("note", GAME, "a", {"text": "x"})
    assert second.id > first.id
    got = await store.feature_get("note", GAME, "b")
    assert got == first and got.value == {"text": "è", "n": [1, 2.5]}
    assert await store.feature_get("note", GAME, "zz") is None
    assert await store.feature_get("other", GAME, "b") is None
    # An update keeps the record's id and creation time: the listing keeps its order.
    updated = await store.feature_put("note", GAME, "b", {"text": "y"})
    assert (updated.id, updated.created_at, updated.revision) == (first.id, first.created_at, 2)
    listed = await store.feature_list("note", GAME)
    assert [(r.key, r.value) for r in listed] == [("b", {"text": "y"}), ("a", {"text": "x"})]
    assert [r.key for r in await store.feature_list("note", GAME, prefix="a")] == ["a"]
    assert await store.feature_delete("note", GAME, "a")
    assert not await store.feature_delete("note", GAME, "a")
    assert [r.key for r in await store.feature_list("note", GAME)] == ["b"]
    assert await store.check() == []


async def test_conditional_puts(store: Any) -> None:
    await new_game(store, 7)
    claimed = await store.feature_put("claim", GAME, "k", {"by": 1}, if_absent=True)
    assert claimed is not None
    assert await store.feature_put("claim", GAME, "k", {"by": 2}, if_absent=True) is None
    assert (await store.feature_get("claim", GAME, "k")).value == {"by": 1}
    # Compare-and-set: at the revision read, once.
    moved = await store.feature_put("claim", GAME, "k", {"by": 3}, expected_revision=1)
    assert moved is not None and moved.revision == 2
    assert await store.feature_put("claim", GAME, "k", {"by": 4}, expected_revision=1) is None
    assert await store.feature_put("claim", GAME, "nope", {}, expected_revision=1) is None
    assert not await store.feature_delete("claim", GAME, "k", expected_revision=1)
    assert await store.feature_delete("claim", GAME, "k", expected_revision=2)
    with pytest.raises(ValueError):
        await store.feature_put("claim", GAME, "k", {}, if_absent=True, renew=True)
    with pytest.raises(ValueError):
        await store.feature_put("claim", GUILD, "k", {}, sealed=True)
    with pytest.raises(ValueError):
        await store.feature_put("claim", GAME, "k", {"x": "y" * 70_000})


async def test_a_renewed_record_is_a_new_one(store: Any) -> None:
    await new_game(store, 7)
    old = await store.feature_put("prompt", GAME, "42", {"faces": [1]}, renew=True)
    other = await store.feature_put("prompt", GAME, "43", {"faces": []}, renew=True)
    new = await store.feature_put("prompt", GAME, "42", {"faces": [1, 2]}, renew=True)
    # A new id, above every earlier one; the key's revisions go on (never repeat).
    assert new.id > other.id > old.id and new.revision == old.revision + 1
    assert [r.id for r in await store.feature_list("prompt", GAME)] == [other.id, new.id]
    assert not await store.feature_delete("prompt", GAME, "42", expected_revision=old.revision)
    assert await store.feature_get("prompt", GAME, "42") == new


async def test_the_time_index(store: Any) -> None:
    await new_game(store, 7)
    await new_game(store, 8)
    rome = NOON.astimezone(tz=None).tzinfo
    await store.feature_put("due", GAME, "late", {}, due_at=NOON - timedelta(hours=1))
    await store.feature_put("due", GAME, "later", {}, due_at=NOON + timedelta(hours=1))
    await store.feature_put("due", OTHER, "a", {}, due_at=NOON.astimezone(rome))
    await store.feature_put("due", GUILD, "g", {}, due_at=NOON - timedelta(hours=2))
    await store.feature_put("due", GAME, "never", {})
    await store.feature_put("elsewhere", GAME, "x", {}, due_at=NOON - timedelta(hours=5))
    due = await store.feature_due("due", NOON)
    assert [(r.scope, r.key) for r in due] == [(GUILD, "g"), (GAME, "late"), (OTHER, "a")]
    assert due[1].due_at == NOON - timedelta(hours=1)
    # Off the index once its due time is cleared; an ended game's records are left out.
    await store.feature_put("due", GAME, "late", {"done": True})
    await store.end_game(8)
    assert [r.key for r in await store.feature_due("due", NOON)] == ["g"]
    with pytest.raises(ValueError):
        await store.feature_due("due", datetime(2031, 1, 1))  # naive


async def test_a_games_records_go_with_it_and_a_guilds_stay(store: Any) -> None:
    with pytest.raises(GameNotFound):
        await store.feature_put("note", GAME, "k", {})
    with pytest.raises(GameNotFound):
        await store.feature_delete("note", GAME, "k")
    await new_game(store, 7)
    await store.feature_put("note", GAME, "k", {}, sealed=True)
    await store.feature_put("creator", GUILD, "k", {"role_id": 5})
    await store.end_game(7)
    await store.delete_game(7)
    assert await store.feature_list("note", GAME) == []
    assert (await store.feature_get("creator", GUILD, "k")).value == {"role_id": 5}
    await new_game(store, 7)
    await store.feature_put("note", GAME, "k", {}, sealed=True)
    await store.end_game(7)
    await store.archive_game(7)
    assert await store.feature_list("note", GAME) == []
    assert await store.check() == []


async def test_sealed_records_reach_the_command_and_the_checksum(
    store: Any, backend: Backend
) -> None:
    await new_game(store, 7)
    await store.feature_put("plain", GAME, "p", {"n": 1})
    await store.feature_put("sealed", GAME, "b", {"n": 2}, sealed=True)
    await store.feature_put("sealed", GAME, "a", {"n": 3}, sealed=True, due_at=NOON)
    context = await store.open_command(7)
    # Sealed ones only, in the order they were made, whole.
    assert [(r.key, r.value, r.due_at) for r in context.records] == [
        ("b", {"n": 2}, None),
        ("a", {"n": 3}, NOON),
    ]
    assert context.records[0] == await store.feature_get("sealed", GAME, "b")
    await store.close()
    # A sealed record edited behind the store's back: the game is refused; a plain one
    # (a claim, a prompt) is not covered.
    await backend.tamper("UPDATE records SET value = '{\"n\":1}' WHERE key = 'p'")
    reopened = await backend.open()
    try:
        await reopened.load(7)
    finally:
        await reopened.close()
    await backend.tamper("UPDATE records SET value = '{\"n\":9}' WHERE key = 'a'")
    reopened = await backend.open()
    try:
        with pytest.raises(TamperedGame):
            await reopened.load(7)
    finally:
        await reopened.close()


async def test_two_connections_claim_once(backend: Backend) -> None:
    """Two stores (two connections: two bot processes) claim the same keys at once."""
    async with await backend.open() as setup:
        await new_game(setup, 7)
    first, second = await backend.open(), await backend.open()
    try:
        for round_ in range(10):
            key = f"warning-{round_}"
            answers = await asyncio.gather(
                *(
                    store.feature_put("claim", GAME, key, {"by": n}, if_absent=True)
                    for n, store in enumerate((first, second, first, second))
                )
            )
            assert sum(answer is not None for answer in answers) == 1, answers
        # A compare-and-set raced the same way: one move per revision.
        moves = await asyncio.gather(
            *(
                store.feature_put("claim", GAME, "warning-0", {"moved": n}, expected_revision=1)
                for n, store in enumerate((first, second, first, second))
            )
        )
        assert sum(move is not None for move in moves) == 1
        # Sealed writes of two connections each count the other's row in the checksum.
        await asyncio.gather(
            *(
                store.feature_put("sealed", GAME, f"k{n}", {"n": n}, sealed=True)
                for n, store in enumerate((first, second) * 5)
            )
        )
        assert len(await first.feature_list("sealed", GAME)) == 10
        await first.load(7)
        assert await second.check() == []
    finally:
        await first.close()
        await second.close()
