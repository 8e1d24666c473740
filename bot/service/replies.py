"""What a front end shows after a request."""

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


@dataclass
class Reply:
    """What a front end shows after a request."""

    language: str
    resolutions: list[Resolution] = field(default_factory=list)
    notices: list[Outcome] = field(default_factory=list)
    status: StatusView | None = None
    follow_ups: list[FollowUp] = field(default_factory=list)
    ping: list[int] = field(default_factory=list)
    #: Files to attach (or save, at the console): bytes, or a spooled file's path.
    files: dict[str, FileContent] = field(default_factory=dict)
    #: The directory holding the spooled files: the front end removes it once they are
    #: sent or saved (`bot.export.discard`).
    spool: Path | None = None
    lines: list[str] = field(default_factory=list)
    #: The catalogue key naming ``lines`` (the log, the help, a table…) and whether they are
    #: laid out in columns (a seed table: shown in a fixed-width block).
    lines_title: str = "discord.embed.log"
    preformatted: bool = False
    by_hand: bool = False
    odds_only: bool = False
    seq: int | None = None
    ruleset: str = ""
    acted_for: str | None = None
    duplicate: bool = False
    owed: list[LegalAction] = field(default_factory=list)
    roll: RollResult | None = None
    #: The players of each side that owes something (status replies name them).
    owed_by: dict[str, list[int]] = field(default_factory=dict)
    dice_prompt: DicePrompt | None = None
    #: The hash of the game's chain head after the command (shown short under the reply).
    head_hash: str | None = None
    #: The table to draw under the reply (front ends render it off the event loop, and post
    #: the reply without it if that fails); None where the game has no battlefield.
    map_view: MapView | None = None
    #: Whether ``map_view`` is the channel's picture (no hidden unit may show) or the
    #: asker's own view (shown to the asker only: ``private``).
    map_public: bool = True
    #: The reply is shown to the asker only (``/map mine:true``).
    private: bool = False


__all__ = ["Reply"]
