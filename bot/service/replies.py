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
* :class:`CampaignReply` — a campaign's page (``/campaign status``, the server's
  campaigns), typed parts the front ends render (`rules.campaign.text`);
* :class:`FilesReply` — files to attach or save (an export), and the campaign's map to draw;
* :class:`RollReply` — a free roll;
* :class:`ResultReply` — the game's end by a concession or the referee: its result;
* :class:`ConfirmReply` — a question before an irreversible command (a concession);
* :class:`DirectReply` — a notice for one player's direct messages (bot/service/notices/).

A command of the rules that ends the game (the last ``/turn next``, a sudden death) is a
:class:`PlayReply` carrying the result too (``result``); ``/game status`` carries the score
as it stands (:class:`ScoreView`), or the result once the game has ended.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.service.export import FileContent
from bot.service.rolls import DicePrompt
from rules.campaign.state import CampaignState
from rules.campaign.story import CampaignMap
from rules.campaign.text import CampaignPage
from rules.core.battlefield import MapView
from rules.core.expression import RollResult
from rules.core.legal import LegalAction
from rules.core.play import FollowUp, StatusView
from rules.core.resolution import Outcome, Resolution
from rules.core.score import GameResult, Score


class Suggestion(str):
    """An autocomplete value (a unit's id: what the command reads) with what its reader is
    shown of it (the unit's name in the game's language). It is the value as a ``str``, so
    a front end that shows values alone shows the id."""

    label: str

    def __new__(cls, value: str, label: str) -> Suggestion:
        made = super().__new__(cls, value)
        made.label = label
        return made


@dataclass(frozen=True, slots=True)
class ResultView:
    """A finished game's result as the front ends show it, with the sides' names."""

    result: GameResult
    sides: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ScoreView:
    """The score "if the game ended now" as the channel may read it: counted from the
    spectator's seat view, so no line tells of a unit hidden from the enemy (who holds an
    objective only it stands on, the figures it lost)."""

    sides: Mapping[str, str]
    score: Score


@dataclass(frozen=True, slots=True, kw_only=True)
class Notable:
    """Something a command (or a timer) made owed or made happen, for the players it
    concerns: declared as data by the feature that wrote it, heard by whoever tells players
    (a ``Listener``, bot/service/handlers.py), so neither names the other.

    ``kind`` is one of ``/notify``'s kinds (`bot.commands.NOTICE_KINDS`); ``users`` whom it
    concerns; ``channel`` the game's or campaign's channel it is about (``page``: which of
    the two its web page is), with its server, title and language; ``about`` what it is,
    once (an event's seq, a deadline's due time): heard twice, it is told once; ``line`` the
    catalogue key of its line when not ``bot.notice.<kind>``, ``params`` that line's."""

    kind: str
    users: tuple[int, ...]
    channel: int
    guild: int | None
    title: str
    language: str
    about: str
    page: str = "game"
    line: str = ""
    params: Mapping[str, str] = field(default_factory=dict)


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
    #: The display names recorded for the people it mentions (user id → name): what a
    #: front end that cannot resolve a mention (the console, a web page) shows instead.
    names: dict[int, str] = field(default_factory=dict)
    #: What the channel is shown when this reply is for its asker only because it tells
    #: what the enemy may not see (a hidden unit's move): the front ends post this one
    #: publicly — with the buttons, the pings and the picture — and the reply privately.
    public: Reply | None = None
    #: What the command made owed or happen, for the players it concerns (heard by the
    #: listeners once the command committed; never shown as such).
    notable: list[Notable] = field(default_factory=list)
    #: What waits to learn where the channel's message of this reply is: each is awaited
    #: by a front end that can tell, with the channel and the message's link (Discord's
    #: jump URL), once posted (the notices link theirs to it). Others never call them.
    on_posted: list[Callable[[int, str], Awaitable[None]]] = field(default_factory=list)


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
    #: The game's result, when this command ended it.
    result: ResultView | None = None


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
    #: The score if the game ended now (``/game status`` of a game in play).
    score: ScoreView | None = None
    #: The game's result (a game that has ended; the state after a rewind that ends it).
    result: ResultView | None = None


@dataclass(kw_only=True)
class TextReply(Reply):
    """A page of lines: the log, the help, a rules table, the guild's games."""

    lines: list[str] = field(default_factory=list)
    #: The catalogue key naming ``lines``.
    lines_title: str = "discord.embed.log"
    #: Laid out in columns (a seed table): shown in a fixed-width block.
    preformatted: bool = False
    #: The lines quote what players wrote (a roster's names and history) and carry no
    #: markup of the bot's own: a front end that reads markup shows them as typed.
    players_words: bool = False


@dataclass(kw_only=True)
class CampaignReply(Reply):
    """A campaign's page: its status, or the server's campaigns. The front ends render it
    as lines (`rules.campaign.text.page_lines`) under the campaign's title."""

    page: CampaignPage


@dataclass(frozen=True)
class CampaignReport:
    """``/campaign export``'s after-action report as data, for the front ends to lay out
    (`bot.render.campaign_report`, through `rules.campaign.report`): the campaign's state,
    whether its channels are a server's, its log's head hash, and its events as stored, one
    JSON object a line (`db.models.EventRecord.to_json_dict`) in a file of the reply's spool,
    so a log of any length is read a page at a time."""

    state: CampaignState
    in_guild: bool
    head: str
    events: Path


@dataclass(kw_only=True)
class FilesReply(Reply):
    """Files to attach (or save, at the console): an export."""

    #: Bytes, or a spooled file's path.
    files: dict[str, FileContent] = field(default_factory=dict)
    #: The directory holding the spooled files: the front end removes it once they are
    #: sent or saved (`bot.service.export.discard`).
    spool: Path | None = None
    #: The campaign's map, which the front ends draw and attach beside the files.
    campaign_map: CampaignMap | None = None
    #: The campaign's after-action report, which the front ends write as the first file.
    campaign_report: CampaignReport | None = None


@dataclass(kw_only=True)
class RollReply(Reply):
    """A free roll (``/roll``), logged in the channel's game when there is one."""

    roll: RollResult
    by_hand: bool = False


@dataclass(kw_only=True)
class ResultReply(Reply):
    """The game ended by a concession or the referee's decision: its result, and the
    table as it ends, the objectives marked (None where the game has no battlefield)."""

    result: ResultView
    map_view: MapView | None = None


@dataclass(kw_only=True)
class ConfirmReply(Reply):
    """A question before an irreversible command, for the asker only: ``question`` says
    what would happen; ``verb`` with ``confirm`` carries it out, with ``cancel`` withdraws
    it (two buttons in Discord); ``typed`` says how to answer by typing (the console)."""

    question: Outcome
    verb: str
    confirm: dict[str, Any] = field(default_factory=dict)
    cancel: dict[str, Any] = field(default_factory=dict)
    typed: Outcome | None = None
    #: The buttons' labels (catalogue keys).
    confirm_label: str = "discord.button.confirm"
    cancel_label: str = "discord.button.keep_playing"


@dataclass(kw_only=True)
class DirectReply(Reply):
    """A notice for ``user``'s direct messages (a timer's reply, or ``/notify test``'s).

    A front end that cannot deliver it because the player's messages refuse the bot
    (Discord's 50007) awaits ``refused``: the service records the block and answers what
    goes in the game's channel instead (the mention, told once why). ``arrived`` is what
    the asker is told once it was delivered (``/notify test``)."""

    user: int
    refused: Callable[[], Awaitable[Reply | None]] | None = None
    arrived: Reply | None = None


def picture_of(reply: Reply) -> tuple[MapView | None, bool]:
    """The picture a reply carries and whether it is the channel's (public) one."""
    if isinstance(reply, StatusReply):
        return reply.map_view, reply.map_public
    if isinstance(reply, PlayReply | ResultReply):
        return reply.map_view, True
    return None, True


def result_view_of(reply: Reply) -> ResultView | None:
    """The game's result a reply shows, if any."""
    if isinstance(reply, PlayReply | StatusReply | ResultReply):
        return reply.result
    return None


def prompt_of(reply: Reply) -> DicePrompt | None:
    """The die a reply asks its roller for, if any."""
    return reply.dice_prompt if isinstance(reply, PlayReply) else None


def spool_of(reply: Reply) -> Path | None:
    """The directory of a reply's spooled files, to remove once they are sent or saved."""
    return reply.spool if isinstance(reply, FilesReply) else None


__all__ = [
    "CampaignReply",
    "ConfirmReply",
    "DirectReply",
    "FilesReply",
    "Notable",
    "PlayReply",
    "Reply",
    "ResultReply",
    "ResultView",
    "RollReply",
    "ScoreView",
    "StatusReply",
    "TextReply",
    "picture_of",
    "prompt_of",
    "result_view_of",
    "spool_of",
]
