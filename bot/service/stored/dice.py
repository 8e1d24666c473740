"""Commands waiting for their roller's next die (docs/dice.md), as records of the game.

A prompt is a record of its game keyed by its player (``dice_prompt``): one per player
and channel, and a new prompt *renews* the record, so it gets a new id — the prompt's id,
which its buttons carry — and an old button never answers a newer prompt (the store never
reuses an id). Not sealed: a prompt is a question in flight, read only when answered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from db.models import FeatureRecord, JsonObject, Scope
from db.protocol import GameStore

DICE_PROMPT = "dice_prompt"


@dataclass(frozen=True, slots=True)
class PendingRoll:
    """A command waiting for its roller's next die (nothing of it is committed yet).

    ``faces`` are the faces the player gave so far, ``bot_faces`` the bot's own faces of
    the run that stopped (replayed when the command runs again), ``version`` the game's
    version when the die was asked: the prompt is void once the game has moved on.
    """

    channel_id: int
    user_id: int
    version: int
    verb: str
    options: JsonObject
    faces: list[int]
    bot_faces: list[int]
    die_sides: int
    label: str
    side: str | None
    id: int = 0
    created_at: datetime | None = None

    def to_value(self) -> dict[str, Any]:
        """The record's JSON (its id and time are the record's own)."""
        return {
            "user_id": self.user_id,
            "version": self.version,
            "verb": self.verb,
            "options": self.options,
            "faces": list(self.faces),
            "bot_faces": list(self.bot_faces),
            "die_sides": self.die_sides,
            "label": self.label,
            "side": self.side,
        }

    @classmethod
    def of_record(cls, record: FeatureRecord) -> PendingRoll:
        """The prompt a ``dice_prompt`` record holds."""
        value = record.value
        return cls(
            channel_id=record.scope.id,
            user_id=int(value["user_id"]),
            version=int(value["version"]),
            verb=str(value["verb"]),
            options=dict(value["options"]),
            faces=[int(face) for face in value["faces"]],
            bot_faces=[int(face) for face in value["bot_faces"]],
            die_sides=int(value["die_sides"]),
            label=str(value["label"]),
            side=value["side"],
            id=record.id,
            created_at=record.created_at,
        )


async def save_pending_roll(store: GameStore, roll: PendingRoll) -> PendingRoll:
    """Keep a command waiting for its roller's next die, replacing that player's earlier
    prompt in the channel; returns it with its (new) id."""
    stored = await store.feature_put(
        DICE_PROMPT, Scope.of_game(roll.channel_id), str(roll.user_id), roll.to_value(), renew=True
    )
    if stored is None:  # a renewal is never refused
        raise RuntimeError(f"the dice prompt of user {roll.user_id} was not stored")
    return replace(roll, id=stored.id, created_at=stored.created_at)


async def _record_by_id(store: GameStore, channel_id: int, roll_id: int) -> FeatureRecord | None:
    # One prompt per player: a channel holds at most as many as it has players.
    for record in await store.feature_list(DICE_PROMPT, Scope.of_game(channel_id)):
        if record.id == roll_id:
            return record
    return None


async def pending_roll(store: GameStore, channel_id: int, roll_id: int) -> PendingRoll | None:
    """A waiting command by id, or None once answered, replaced or dropped."""
    record = await _record_by_id(store, channel_id, roll_id)
    return None if record is None else PendingRoll.of_record(record)


async def drop_pending_roll(store: GameStore, channel_id: int, roll_id: int) -> bool:
    """Forget a waiting command; false if it was already gone."""
    record = await _record_by_id(store, channel_id, roll_id)
    if record is None:
        return False
    # At the revision read: a prompt renewed meanwhile has another id and stays.
    return await store.feature_delete(
        DICE_PROMPT, record.scope, record.key, expected_revision=record.revision
    )


__all__ = ["DICE_PROMPT", "PendingRoll", "drop_pending_roll", "pending_roll", "save_pending_roll"]
