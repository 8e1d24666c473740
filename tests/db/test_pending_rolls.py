"""Commands waiting for their roller's next die: kept in the file, one per player."""

from __future__ import annotations

import pytest

from db.errors import GameNotFound
from db.models import PendingRoll
from db.sqlite import SqliteStore


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


async def test_a_waiting_command_round_trips_and_one_per_player(store: SqliteStore, db_path):
    await store.create_game(5, guild_id=1, ruleset="manovra", language="it", document={"a": 1})
    first = await store.save_pending_roll(waiting(5, 42, [7]))
    assert first.id > 0 and first.created_at is not None
    other = await store.save_pending_roll(waiting(5, 43, [1]))
    assert await store.pending_roll(5, first.id) == first
    assert await store.pending_roll(6, first.id) is None  # another channel's id is not ours

    # A newer prompt of the same player replaces the older; ids are never reused.
    second = await store.save_pending_roll(waiting(5, 42, [7, 12]))
    assert second.id > other.id > first.id
    assert await store.pending_roll(5, first.id) is None
    assert (await store.pending_roll(5, second.id)).faces == [7, 12]

    # Kept in the file: another store on it (a restart) reads it.
    await store.close()
    reopened = await SqliteStore.open(str(db_path))
    try:
        kept = await reopened.pending_roll(5, second.id)
        assert kept is not None and kept.options == {"unit": "sherman_1", "distance": 40}
        assert kept.bot_faces == [2, 5] and kept.side == "alleati" and kept.die_sides == 12
        assert await reopened.drop_pending_roll(5, second.id)
        assert not await reopened.drop_pending_roll(5, second.id)
        # An ended game is deleted with its waiting commands.
        await reopened.end_game(5)
        await reopened.delete_game(5)
        assert await reopened.pending_roll(5, other.id) is None
        with pytest.raises(GameNotFound):
            await reopened.save_pending_roll(waiting(5, 42, [1]))
        assert await reopened.check() == []
    finally:
        await reopened.close()
