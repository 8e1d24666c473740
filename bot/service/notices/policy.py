"""How a player wants to be told, and what that means for one notice: pure functions.

A player's :class:`Settings` say, for each kind of notice, where it goes (a mention in the
game's channel — the default —, a direct message, both, or nothing), the hours they want
no direct message (in their own time zone), whether direct messages wait for a daily
digest, and the games they muted. :func:`route` turns one notice into what delivery does
with it at a moment; nothing here reads the store or the clock.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.commands import NOTICE_KINDS
from db.models import format_timestamp, parse_timestamp

#: The kinds of notice, as ``/notify set kind:`` names them: your move (or roll) now, your
#: deadline near, passed, an aftermath or a confirmation owed, a game ended, your next
#: campaign game, your roster adjusted.
KINDS = NOTICE_KINDS
#: ``kind:all`` sets every kind at once.
ALL_KINDS = "all"


class Via(enum.StrEnum):
    """Where a kind of notice goes."""

    MENTION = "mention"
    DM = "dm"
    BOTH = "both"
    OFF = "off"

    @property
    def mentions(self) -> bool:
        """Whether the channel's message pings the player."""
        return self in (Via.MENTION, Via.BOTH)

    @property
    def direct(self) -> bool:
        """Whether a direct message goes out (opt-in: never by default)."""
        return self in (Via.DM, Via.BOTH)


#: The time zone of a player who named none.
DEFAULT_ZONE = "UTC"
#: How long a digest gathers before it goes out.
DIGEST_EVERY = timedelta(days=1)


def zone_of(name: str) -> ZoneInfo | None:
    """The time zone called ``name`` (``Europe/Rome``), or None if there is none."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class Settings:
    """One player's choices (in a server, or everywhere: ``global``)."""

    via: Mapping[str, Via] = field(default_factory=dict)
    zone: str = DEFAULT_ZONE
    #: No direct message from this hour to that one (local time; equal hours: none).
    quiet: tuple[int, int] | None = None
    digest: bool = False
    muted: frozenset[int] = frozenset()
    #: Their direct messages refused the bot (Discord 50007): mentions instead.
    blocked: bool = False

    def via_of(self, kind: str) -> Via:
        """Where notices of ``kind`` go (a mention unless chosen otherwise, and never a
        direct message while they are refused)."""
        chosen = self.via.get(kind, Via.MENTION)
        return Via.MENTION if self.blocked and chosen.direct else chosen

    def with_via(self, kinds: Iterable[str], via: Via) -> Settings:
        """These settings with ``kinds`` sent ``via`` (a direct message chosen again
        clears an earlier block: the player says their messages are open)."""
        chosen = dict(self.via) | dict.fromkeys(kinds, via)
        return replace(self, via=chosen, blocked=self.blocked and not via.direct)

    def to_value(self) -> dict[str, Any]:
        """The record's JSON."""
        return {
            "via": {kind: str(via) for kind, via in sorted(self.via.items())},
            "zone": self.zone,
            "quiet": list(self.quiet) if self.quiet else None,
            "digest": self.digest,
            "muted": sorted(self.muted),
            "blocked": self.blocked,
        }

    @classmethod
    def of_value(cls, value: Mapping[str, Any]) -> Settings:
        """The settings a record holds (kinds or ways no longer known are left out)."""
        via = {
            str(kind): Via(str(way))
            for kind, way in dict(value.get("via") or {}).items()
            if kind in KINDS and way in Via.__members__.values()
        }
        quiet = value.get("quiet")
        return cls(
            via=via,
            zone=str(value.get("zone") or DEFAULT_ZONE),
            quiet=(int(quiet[0]) % 24, int(quiet[1]) % 24) if quiet else None,
            digest=bool(value.get("digest")),
            muted=frozenset(int(c) for c in value.get("muted") or ()),
            blocked=bool(value.get("blocked")),
        )


def quiet_until(settings: Settings, now: datetime) -> datetime | None:
    """When the player's quiet hours end, if ``now`` falls inside them; else None."""
    if settings.quiet is None:
        return None
    start, end = settings.quiet
    if start == end:
        return None
    zone = zone_of(settings.zone) or ZoneInfo(DEFAULT_ZONE)
    local = now.astimezone(zone)
    hour = local.hour
    if not _within(start, end, hour):
        return None
    day = local.date() if hour < end else local.date() + timedelta(days=1)
    until = datetime.combine(day, time(end), tzinfo=zone).astimezone(now.tzinfo)
    # A clock change may skip the hour they end at: then the first hour out of them.
    while _within(start, end, until.astimezone(zone).hour):
        until += timedelta(hours=1)
    return until


def _within(start: int, end: int, hour: int) -> bool:
    """Whether ``hour`` falls in the quiet hours from ``start`` to ``end`` (may wrap)."""
    return start <= hour < end if start < end else hour >= start or hour < end


class Action(enum.Enum):
    """What delivery does with a notice for a direct message, at a moment."""

    SEND = "send"  # a direct message now
    DIGEST = "digest"  # folded into the player's digest
    LATER = "later"  # held until the quiet hours end
    DROP = "drop"  # nothing: the game muted, or no direct message wanted


@dataclass(frozen=True, slots=True)
class Decision:
    """:func:`route`'s answer: the action, and when a held notice is due again."""

    action: Action
    until: datetime | None = None


def route(
    settings: Settings,
    kind: str,
    channel_id: int,
    now: datetime,
    last_direct: datetime | None,
    period: timedelta,
) -> Decision:
    """What becomes of a notice of ``kind`` from ``channel_id`` at ``now``.

    A muted game or a kind not sent by direct message: nothing. Quiet hours hold it until
    they end. With the digest on, or a direct message of this kind already sent within
    ``period`` (``last_direct``), it is folded into the digest; else it goes now."""
    if not wants_direct(settings, kind, channel_id):
        return Decision(Action.DROP)
    until = quiet_until(settings, now)
    if until is not None:
        return Decision(Action.LATER, until)
    if settings.digest:
        return Decision(Action.DIGEST)
    if last_direct is not None and now - last_direct < period:
        return Decision(Action.DIGEST)
    return Decision(Action.SEND)


def wants_direct(settings: Settings, kind: str, channel_id: int) -> bool:
    """Whether a notice of ``kind`` from ``channel_id`` goes to the outbox at all: a direct
    message chosen, the game not muted (quiet hours and the digest are delivery's)."""
    return channel_id not in settings.muted and settings.via_of(kind).direct


def mentioned(settings: Settings, kind: str, channel_id: int) -> bool:
    """Whether the game's own message pings the player for ``kind``."""
    return channel_id not in settings.muted and settings.via_of(kind).mentions


def stamp(moment: datetime | None) -> str | None:
    """A moment as a record keeps it."""
    return None if moment is None else format_timestamp(moment)


def moment(text: object) -> datetime | None:
    """A moment a record kept."""
    return None if not text else parse_timestamp(str(text))


__all__ = [
    "ALL_KINDS",
    "DEFAULT_ZONE",
    "DIGEST_EVERY",
    "KINDS",
    "Action",
    "Decision",
    "Settings",
    "Via",
    "mentioned",
    "moment",
    "quiet_until",
    "route",
    "stamp",
    "wants_direct",
    "zone_of",
]
