"""Who sits where: seat changes, the referee's hand-over and take-over, the roster.

Every seat change is written to the members table and logged in the game's chain as a
``seat.*`` event (the document unchanged), so ``/game log`` and the export tell who joined,
left, was reseated or became referee, and when. ``/game undo`` and ``/takeback`` never
undo a seat change: the referee changes a seat back with another seat command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from db.models import EventRecord, Member
from rules.core.resolution import Outcome

#: A referee who has given no command for this long is gone: a member who may manage the
#: channel (Discord's Manage Channels) may take the game over.
TAKEOVER_AFTER = timedelta(hours=72)

SEAT_JOIN = "seat.join"
SEAT_LEAVE = "seat.leave"
SEAT_ASSIGN = "seat.assign"
SEAT_REMOVE = "seat.remove"
SEAT_REFEREE = "seat.referee"
SEAT_BIND = "seat.bind"


def mention(user_id: int) -> str:
    """A member as Discord shows a mention (the console puts the seat's name instead)."""
    return f"<@{user_id}>"


def roster_notices(
    members: Sequence[Member],
    sides: Mapping[str, str],
    side_roles: Sequence[tuple[str, int]] = (),
) -> list[Outcome]:
    """The roster for ``/game status``: the referee(s), then each side and its players."""
    notices = []
    referees = [mention(m.user_id) for m in members if m.role == "referee"]
    if referees:
        notices.append(Outcome.of("bot.seats.referee", players=", ".join(referees)))
    bound = dict(side_roles)
    for side, name in sides.items():
        players = [mention(m.user_id) for m in members if m.role == "player" and m.side == side]
        if side in bound:
            players.append(f"<@&{bound[side]}>")
        notices.append(
            Outcome.of(
                "bot.seats.side",
                side=name,
                players=", ".join(players) if players else "—",
            )
        )
    return notices


def referee_gone(
    referees: Sequence[Member], events: Sequence[EventRecord], now: datetime
) -> bool:
    """Whether no referee has acted for :data:`TAKEOVER_AFTER` (or the game has none)."""
    ids = {m.user_id for m in referees}
    if not ids:
        return True
    last = max(
        (e.created_at for e in events if e.actor_id in ids),
        default=min((m.joined_at for m in referees), default=now),
    )
    return now - last >= TAKEOVER_AFTER
