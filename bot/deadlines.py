"""Deadlines that follow the turn (play by post).

A deadline belongs to a side that owes something: when that side no longer owes (it acted and
the move passed on), its deadline goes; with a game pace, a side that comes to owe gets
``pace`` hours, re-armed each time it acts and still owes. A reminder goes out when a quarter
of the time is left, and another at expiry, each pinging only the owing side's players and
each claimed once across bot processes.

The functions here decide; :class:`bot.service.GameService` reads and writes the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from db.models import Deadline
from rules.core.play import FollowUp

#: The reminder before expiry goes out when this share of the deadline's time is left.
WARNING_SHARE = 0.25
#: Deadlines further away than this are not looked at for their early reminder yet.
WARNING_HORIZON = timedelta(days=61)


def owing_sides(follow_ups: Iterable[FollowUp], awaiting: str | None) -> set[str]:
    """The sides that owe something now: those with a roll or action owed, else the mover."""
    owing = {f.side for f in follow_ups if f.side is not None}
    if not owing and awaiting is not None:
        owing = {awaiting}
    return owing


@dataclass
class DeadlinePlan:
    """What changes after a command: deadlines to set (side → due) and sides to clear."""

    set: dict[str, datetime] = field(default_factory=dict)
    clear: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.set or self.clear)


def follow_the_turn(
    deadlines: Sequence[Deadline],
    owing: set[str],
    actor_side: str | None,
    pace_hours: int | None,
    now: datetime,
) -> DeadlinePlan:
    """The deadline changes once a command has moved the game on.

    A side that no longer owes loses its deadline. With a pace, a side that owes and has no
    deadline gets one, and the side that just acted and still owes gets a fresh one (each
    owed action has the pace's hours).
    """
    plan = DeadlinePlan()
    current = {d.side: d for d in deadlines}
    for side in current:
        if side not in owing:
            plan.clear.append(side)
    if pace_hours:
        due = now + timedelta(hours=pace_hours)
        for side in sorted(owing):
            if side not in current or side == actor_side:
                plan.set[side] = due
    return plan


def warning_due(deadline: Deadline, now: datetime) -> bool:
    """Whether the early reminder of ``deadline`` should go out at ``now``."""
    if deadline.reminded or now >= deadline.due_at:
        return False
    span = deadline.due_at - deadline.set_at
    return now >= deadline.due_at - span * WARNING_SHARE


def when_text(due: datetime, *, discord: bool) -> str:
    """A moment as players read it: Discord timestamps (each reader's own time zone, and
    a relative "in 3 hours") in Discord, plain UTC at the console."""
    if discord:
        stamp = int(due.timestamp())
        return f"<t:{stamp}:f> (<t:{stamp}:R>)"
    return due.strftime("%Y-%m-%d %H:%M UTC")
