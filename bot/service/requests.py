"""What a front end asks: one :class:`Request`, who the asker is in the game (the rules'
:class:`rules.core.seatview.Seat`, :func:`seat_among`), and the option readers every
feature shares (numbers in bounds, a side, a role)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from db.models import Member
from rules.core.errors import InvalidInput, UnknownName
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.core.words import is_named, joined


@dataclass(frozen=True, slots=True)
class Request:
    """One command from a front end."""

    channel_id: int
    user_id: int
    verb: str
    options: Mapping[str, Any] = field(default_factory=dict)
    guild_id: int | None = None
    dice: str | None = None
    interaction_id: str | None = None
    attachment: str | None = None
    #: The attached file's name as uploaded (its filename on Discord, the path typed at
    #: the console): what a refusal of the file names.
    attachment_name: str | None = None
    user_name: str = ""
    #: The asker's language (their Discord locale), for answers outside any game.
    locale: str | None = None
    #: The asker may manage this channel (Discord's Manage Channels): may take over a game
    #: whose referee is gone.
    manages_channel: bool = False
    #: The asker may manage the server (Discord's Manage Server): sets who creates games.
    manages_guild: bool = False
    #: The asker's Discord roles (a side may be bound to one).
    role_ids: tuple[int, ...] = ()


def seat_among(
    request: Request,
    members: Sequence[Member],
    side_roles: Sequence[tuple[str, int]] = (),
) -> Seat:
    """The asker's seat: named among the members, else through a side bound to one of
    their roles, else a spectator's."""
    for member in members:
        if member.user_id == request.user_id:
            if member.role == "referee":
                return REFEREE  # a referee who joined a side still referees: member_side
            return Seat(member.side) if member.side is not None else Seat(joined=True)
    # Not seated by name: a side bound to one of the asker's roles seats them.
    for side, role in side_roles:
        if role in request.role_ids:
            return Seat(side)
    return SPECTATOR


def member_side(members: Sequence[Member], user_id: int) -> str | None:
    """The side a member sits at, the referee's own included (None: at none)."""
    return next((m.side for m in members if m.user_id == user_id), None)


def players_among(members: Sequence[Member], side: str) -> list[int]:
    """The players seated on ``side`` (not the referee)."""
    return [m.user_id for m in members if m.side == side and m.role == "player"]


def int_option(options: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    """A whole-number option within [low, high], or a clear refusal naming it."""
    value = options.get(name, default)
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput(
            "error.service.not_a_number", option=name, value=str(value)[:20]
        ) from None
    if not low <= number <= high:
        raise InvalidInput("error.service.out_of_bounds", option=name, low=low, high=high)
    return number


def role_option(options: Mapping[str, Any]) -> int | None:
    """A Discord role given as an option (None when not given)."""
    if options.get("role") is None:
        return None
    return int_option(options, "role", 0, 1, 2**63 - 1)


def side_named(sides: Mapping[str, str], wanted: object) -> str:
    """The side a player named (its id or its name), or a clear error listing them."""
    text = str(wanted or "")
    side = next((s for s, name in sides.items() if text == s or is_named(name, text)), None)
    if side is None:
        # The names listed in the reader's language (a side is typed by its name in any).
        raise UnknownName(
            "error.service.unknown_side", name=text[:40], known=joined(sides.values())
        )
    return side


__all__ = [
    "Request",
    "int_option",
    "member_side",
    "players_among",
    "role_option",
    "seat_among",
    "side_named",
]
