"""What a front end shows after a request: a few typed replies, each rendered by its kind.

Every reply carries the envelope (:class:`Reply`): the language and ruleset to show it in,
notices, whom to ping, the event it logged and the chain head after it, and whether only
the asker sees it. A plain :class:`Reply` is a notice (a seat taken, a deadline set, the
game ended). The others add what their kind shows:

* :class:`PlayReply` — a command played: its resolutions, the follow-up buttons, the picture,
  or the die its roller still owes (nothing committed yet); an odds preview too;
* :class:`StatusReply` — the state of the game: status, what is owed and by whom, the
  picture (a new game, ``/game status``, ``/map``, an undo or a rewind);
* :class:`TextReply` — a page of lines (the log, the help, a table, the guild's games);
* :class:`FilesReply` — files to attach or save (an export);
* :class:`RollReply` — a free roll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.export import FileContent
from bot.rolls import DicePrompt
from rules.core.battlefield import MapView
from rules.core.expression import RollResult
from rules.core.legal import LegalAction
from rules.core.play import FollowUp, StatusView
from rules.core.resolution import Outcome, Resolution


@dataclass(kw_only=True)
class Reply:
    """A notice, and the envelope every reply carries."""

    language: str
    ruleset: str = ""
    notices: list[Outcome] = field(default_factory=list)
    #: The players to ping (whose move it is now, whose deadline passed).
    ping: list[int] = field(default_factory=list)
    #: The event the request logged, if any.
    seq: int | None = None
    #: The hash of the game's chain head after the command (shown short under the reply).
    head_hash: str | None = None
    #: The reply is shown to the asker only (an odds preview, ``/map mine:true``).
    private: bool = False
    #: A retried interaction, answered with what it did the first time.
    duplicate: bool = False
    #: What the channel is shown when this reply is for its asker only because it tells
    #: what the enemy may not see (a hidden unit's move): the front ends post this one
    #: publicly — with the buttons, the pings and the picture — and the reply privately.
    public: Reply | None = None


@dataclass(kw_only=True)
class PlayReply(Reply):
    """A command of the rules played (or previewed, or waiting for a die)."""

    resolutions: list[Resolution] = field(default_factory=list)
    follow_ups: list[FollowUp] = field(default_factory=list)
    #: The side the referee played for (marked in the log).
    acted_for: str | None = None
    #: Dice typed by hand: others may confirm or dispute them.
    by_hand: bool = False
    #: A preview: the odds of a command, nothing rolled or logged.
    odds_only: bool = False
    #: The die the command waits for (physical dice, roll by roll): nothing is committed.
    dice_prompt: DicePrompt | None = None
    #: The table after the command (front ends render it off the event loop, and post the
    #: reply without it if that fails); None where the game has no battlefield.
    map_view: MapView | None = None
    #: The state after a re-roll (which re-ran later commands).
    status: StatusView | None = None


@dataclass(kw_only=True)
class StatusReply(Reply):
    """The state of the game: its status, what is owed and by whom, its picture."""

    status: StatusView | None = None
    follow_ups: list[FollowUp] = field(default_factory=list)
    owed: list[LegalAction] = field(default_factory=list)
    #: The players of each side that owes something.
    owed_by: dict[str, list[int]] = field(default_factory=dict)
    map_view: MapView | None = None
    #: Whether ``map_view`` is the channel's picture (no hidden unit may show) or the
    #: asker's own view (then the reply is ``private``).
    map_public: bool = True


@dataclass(kw_only=True)
class TextReply(Reply):
    """A page of lines: the log, the help, a rules table, the guild's games."""

    lines: list[str] = field(default_factory=list)
    #: The catalogue key naming ``lines``.
    lines_title: str = "discord.embed.log"
    #: Laid out in columns (a seed table): shown in a fixed-width block.
    preformatted: bool = False


@dataclass(kw_only=True)
class FilesReply(Reply):
    """Files to attach (or save, at the console): an export."""

    #: Bytes, or a spooled file's path.
    files: dict[str, FileContent] = field(default_factory=dict)
    #: The directory holding the spooled files: the front end removes it once they are
    #: sent or saved (`bot.export.discard`).
    spool: Path | None = None


@dataclass(kw_only=True)
class RollReply(Reply):
    """A free roll (``/roll``), logged in the channel's game when there is one."""

    roll: RollResult
    by_hand: bool = False


def picture_of(reply: Reply) -> tuple[MapView | None, bool]:
    """The picture a reply carries and whether it is the channel's (public) one."""
    if isinstance(reply, StatusReply):
        return reply.map_view, reply.map_public
    if isinstance(reply, PlayReply):
        return reply.map_view, True
    return None, True


def prompt_of(reply: Reply) -> DicePrompt | None:
    """The die a reply asks its roller for, if any."""
    return reply.dice_prompt if isinstance(reply, PlayReply) else None


def spool_of(reply: Reply) -> Path | None:
    """The directory of a reply's spooled files, to remove once they are sent or saved."""
    return reply.spool if isinstance(reply, FilesReply) else None


__all__ = [
    "FilesReply",
    "PlayReply",
    "Reply",
    "RollReply",
    "StatusReply",
    "TextReply",
    "picture_of",
    "prompt_of",
    "spool_of",
]
