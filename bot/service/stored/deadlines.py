"""Deadlines of play by post, the warning before each, and the game's pace, as records.

A side's deadline is a sealed record of its game (``deadline``, keyed by the side): the
game's checksum covers it and every command reads it. While its reminder is owed it sits
on the store's time index at its due time; the reminder is claimed with a compare-and-set
on the record's revision, so of processes racing for it one wins. The warning before a
deadline is a record claimed once (``deadline_warning``, keyed by side and due time: a
moved deadline warns again). The pace is one sealed record of the game (``pace``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from db.errors import StoreError
from db.models import (
    FeatureRecord,
    GameRecord,
    Scope,
    format_timestamp,
    parse_timestamp,
    utc_now,
)
from db.protocol import GameStore

DEADLINE = "deadline"
WARNING = "deadline_warning"
PACE = "pace"
_PACE_KEY = "pace"
#: The reminder before expiry goes out when this share of the deadline's time is left.
WARNING_SHARE = 0.25
#: Deadlines further away than this are not looked at for their early reminder yet.
WARNING_HORIZON = timedelta(days=61)


@dataclass(frozen=True, slots=True)
class Deadline:
    """A play-by-post deadline: ``side`` must act in ``channel_id`` by ``due_at``."""

    channel_id: int
    side: str
    due_at: datetime
    reminded: bool
    set_at: datetime
    revision: int = 1

    def to_value(self) -> dict[str, Any]:
        """The record's JSON."""
        return {
            "side": self.side,
            "due_at": format_timestamp(self.due_at),
            "set_at": format_timestamp(self.set_at),
            "reminded": self.reminded,
        }

    @classmethod
    def of_record(cls, record: FeatureRecord) -> Deadline:
        """The deadline a ``deadline`` record holds."""
        value = record.value
        return cls(
            channel_id=record.scope.id,
            side=str(value["side"]),
            due_at=parse_timestamp(str(value["due_at"])),
            reminded=bool(value["reminded"]),
            set_at=parse_timestamp(str(value["set_at"])),
            revision=record.revision,
        )


def warning_due(deadline: Deadline, now: datetime) -> bool:
    """Whether the early reminder of ``deadline`` should go out at ``now``."""
    if deadline.reminded or now >= deadline.due_at:
        return False
    span = deadline.due_at - deadline.set_at
    return now >= deadline.due_at - span * WARNING_SHARE


def deadlines_of(records: Iterable[FeatureRecord]) -> tuple[Deadline, ...]:
    """The deadlines among a game's records, earliest first."""
    found = [Deadline.of_record(r) for r in records if r.feature == DEADLINE]
    return tuple(sorted(found, key=lambda deadline: (deadline.due_at, deadline.side)))


def pace_of(records: Iterable[FeatureRecord]) -> int | None:
    """The game's pace (hours per owed action) among its records; None: no pace."""
    for record in records:
        if record.feature == PACE:
            return int(record.value["hours"])
    return None


async def set_deadline(store: GameStore, channel_id: int, side: str, due_at: datetime) -> Deadline:
    """Set (or move) the time by which ``side`` must act; its reminder is owed again."""
    deadline = Deadline(channel_id, side, due_at, reminded=False, set_at=utc_now())
    stored = await store.feature_put(
        DEADLINE,
        Scope.of_game(channel_id),
        side,
        deadline.to_value(),
        due_at=due_at,
        sealed=True,
    )
    if stored is None:  # a plain put is never refused
        raise RuntimeError(f"the deadline of {side!r} was not stored")
    return Deadline.of_record(stored)


async def clear_deadline(store: GameStore, channel_id: int, side: str) -> bool:
    """Drop a side's deadline; false if there was none."""
    return await store.feature_delete(DEADLINE, Scope.of_game(channel_id), side)


async def deadlines(store: GameStore, channel_id: int) -> list[Deadline]:
    """The deadlines pending in a channel, earliest first."""
    return list(deadlines_of(await store.feature_list(DEADLINE, Scope.of_game(channel_id))))


async def due_deadlines(store: GameStore, now: datetime) -> list[Deadline]:
    """Deadlines at or before ``now`` whose reminder is owed, in games not ended."""
    return [Deadline.of_record(record) for record in await store.feature_due(DEADLINE, now)]


async def owed_reminders(
    store: GameStore, moment: datetime, owns_guild: Callable[[int | None], bool] | None
) -> list[tuple[Deadline, GameRecord]]:
    """The deadlines whose reminder (passed) or warning (near) is due at ``moment``, with
    their game, in the guilds ``owns_guild`` admits (all when None)."""
    found = []
    for deadline in await due_deadlines(store, moment + WARNING_HORIZON):
        if deadline.due_at > moment and not warning_due(deadline, moment):
            continue
        try:
            record = await store.load(deadline.channel_id)
        except StoreError:
            continue
        if owns_guild is None or owns_guild(record.guild_id):
            found.append((deadline, record))
    return found


async def mark_reminded(store: GameStore, deadline: Deadline) -> bool:
    """Claim the reminder of this very deadline (as read: a moved one is another): true
    for the one caller whose compare-and-set took it off the time index."""
    reminded = Deadline(deadline.channel_id, deadline.side, deadline.due_at, True, deadline.set_at)
    stored = await store.feature_put(
        DEADLINE,
        Scope.of_game(deadline.channel_id),
        deadline.side,
        reminded.to_value(),
        sealed=True,
        expected_revision=deadline.revision,
    )
    return stored is not None


def _warning_key(side: str, due_at: datetime) -> str:
    return f"{side}@{format_timestamp(due_at)}"


async def claim_warning(store: GameStore, channel_id: int, side: str, due_at: datetime) -> bool:
    """Claim the warning before this exact deadline: true for the one caller that may
    send it (once across processes), false once claimed."""
    stored = await store.feature_put(
        WARNING,
        Scope.of_game(channel_id),
        _warning_key(side, due_at),
        {"side": side, "due_at": format_timestamp(due_at)},
        if_absent=True,
    )
    return stored is not None


async def set_pace(store: GameStore, channel_id: int, hours: int | None) -> None:
    """Set the game's pace (hours per owed action; None: no pace)."""
    scope = Scope.of_game(channel_id)
    if hours is None:
        await store.feature_delete(PACE, scope, _PACE_KEY)
        return
    await store.feature_put(PACE, scope, _PACE_KEY, {"hours": int(hours)}, sealed=True)


__all__ = [
    "DEADLINE",
    "PACE",
    "WARNING",
    "WARNING_HORIZON",
    "WARNING_SHARE",
    "Deadline",
    "claim_warning",
    "clear_deadline",
    "deadlines",
    "deadlines_of",
    "due_deadlines",
    "mark_reminded",
    "owed_reminders",
    "pace_of",
    "set_deadline",
    "set_pace",
    "warning_due",
]
