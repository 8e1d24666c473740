"""Commands waiting for their roller's next die: kept in the file, one per player (the
dice feature's records, `bot.service.stored.dice`, on the store's generic operations)."""

from __future__ import annotations

import pytest

from bot.service.stored.dice import (
    PendingRoll,
    drop_pending_roll,
    pending_roll,
    save_pending_roll,
)
from db.drivers.sqlite import SqliteStore
from db.errors import GameNotFound


def waiting(channel: int, user: int, faces: list[int]) -> PendingRoll:
    return PendingRoll(
        channel_id=channel,
        user_id=user,
        version=3,
        verb="fire",
        options={"unit": "sherman_1", "distance": 40},
        faces=faces,
        bot_faces=[2, 5],
        die_sides=12,
        label="D12 — penetration",
        side="alleati",
    )


async def test_a_waiting_command_round_trips_and_one_per_player(store: SqliteStore, backend):
    await store.create_game(5, guild_id=1, ruleset="manovra", language="it", document={"a": 1})
    first = await save_pending_roll(store, waiting(5, 42, [7]))
    assert first.id > 0 and first.created_at is not None
    other = await save_pending_roll(store, waiting(5, 43, [1]))
    assert await pending_roll(store, 5, first.id) == first
    assert await pending_roll(store, 6, first.id) is None  # another channel's id is not ours

    # A newer prompt of the same player replaces the older; ids are never reused.
    second = await save_pending_roll(store, waiting(5, 42, [7, 12]))
    assert second.id > other.id > first.id
    assert await pending_roll(store, 5, first.id) is None
    assert (await pending_roll(store, 5, second.id)).faces == [7, 12]

    # Kept in the file: another store on it (a restart) reads it.
    await store.close()
    reopened = await backend.open()
    try:
        kept = await pending_roll(reopened, 5, second.id)
        assert kept is not None and kept.options == {"unit": "sherman_1", "distance": 40}
        assert kept.bot_faces == [2, 5] and kept.side == "alleati" and kept.die_sides == 12
        assert await drop_pending_roll(reopened, 5, second.id)
        assert not await drop_pending_roll(reopened, 5, second.id)
        # An ended game is deleted with its waiting commands.
        await reopened.end_game(5)
        await reopened.delete_game(5)
        assert await pending_roll(reopened, 5, other.id) is None
        with pytest.raises(GameNotFound):
            await save_pending_roll(reopened, waiting(5, 42, [1]))
        assert await reopened.check() == []
    finally:
        await reopened.close()
