"""Every event of a campaign's log, each class named as the ``type`` it is stored under.

A campaign is a log of typed events: ``campaign.created`` is :class:`CampaignCreated`,
``campaign.join_request`` :class:`CampaignJoinRequest`, ``campaign.aftermath_reversal``
:class:`CampaignAftermathReversal`. The stored ``type`` strings never change, so logs
written by any earlier version load and replay (``tests/campaign/test_events.py`` holds
logs as stored). What an event carries beyond plain values is declared where its rules
live (a roster `rules.campaign.roster`, an aftermath's entries `rules.campaign.aftermath`,
a book's areas and scenarios `rules.campaign.book`); the folds are `rules.campaign.state`
and `rules.campaign.aftermath_fold`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
    model_validator,
)

from rules.campaign.aftermath import MAX_REASON, AdjustableField, EntryAftermath
from rules.campaign.book import MAX_SPACING_DAYS, Book, BookArea, BookStep
from rules.campaign.roster import ID_PATTERN, MAX_ENTRIES, MAX_STRENGTH, Roster
from rules.core.words import LocalizedName

#: The longest name of a campaign, and the most points a game may earn or cost a side.
MAX_NAME = 80
MAX_POINTS = 100


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Points(_Frozen):
    """What a game earns a side in the standings."""

    win: int = Field(3, ge=-MAX_POINTS, le=MAX_POINTS)
    draw: int = Field(1, ge=-MAX_POINTS, le=MAX_POINTS)
    loss: int = Field(0, ge=-MAX_POINTS, le=MAX_POINTS)


class CampaignCreated(_Frozen):
    """The campaign begins: its ruleset, name, points, sides (id -> name), referee, and
    the book it follows, if any: carried in the same event so that a campaign is never
    made without the book it was asked for (older logs open it by a later
    :class:`CampaignBook`, which still replays)."""

    type: Literal["campaign.created"] = "campaign.created"
    ruleset: str
    name: str = Field(min_length=1, max_length=MAX_NAME)
    points: Points = Points()
    sides: dict[str, LocalizedName]
    referee: int
    book: CampaignBook | None = None


class CampaignJoined(_Frozen):
    """A player joins a side with consent (``by``: who approved the request; an invitation
    is its own earlier event; the referee needs none). Older logs joined without consent:
    the service asks for it, the fold still replays them."""

    type: Literal["campaign.joined"] = "campaign.joined"
    side: str
    user: int
    by: int | None = None


class CampaignJoinRequest(_Frozen):
    """A member asks to play a side: the referee or one of the side's players approves
    (then :class:`CampaignJoined` with ``by``)."""

    type: Literal["campaign.join_request"] = "campaign.join_request"
    side: str
    user: int


class CampaignInvite(_Frozen):
    """The referee or a side's player invites a member to play that side: their
    ``/campaign join`` of it is then immediate."""

    type: Literal["campaign.invite"] = "campaign.invite"
    side: str
    user: int
    by: int


class FieldedUnits(BaseModel):
    """The roster entries a linked game fields, by side: the game holds them until its
    aftermath is settled, and no other game of the campaign may field them meanwhile.
    Empty for a game linked before they were kept (it holds nothing), and then not
    written, so that such an event, or a state holding such a game, reads and writes back
    as it was stored."""

    fielded: dict[str, Annotated[tuple[str, ...], Field(max_length=MAX_ENTRIES)]] = {}

    @model_serializer(mode="wrap")
    def _without_empty_fielded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.fielded:
            data.pop("fielded", None)
        return data


class CampaignGame(_Frozen, FieldedUnits):
    """A game of the campaign starts in a channel, from a scenario; it is numbered in the
    order games are linked (a channel may play several games of a campaign in turn)."""

    type: Literal["campaign.game"] = "campaign.game"
    number: int
    channel: int
    scenario: str
    #: The hash of the rosters the game was mustered from (`rules.campaign.roster.rosters_hash`),
    #: as the game's first event carries it too; None for a ruleset without rosters.
    rosters_hash: str | None = Field(None, max_length=64)
    #: Units of the rosters the game leaves behind by choice (``/campaign game leave:``).
    left: tuple[str, ...] = Field((), max_length=MAX_ENTRIES)


class CampaignResult(_Frozen):
    """A linked game's result enters the campaign: its winner (None: a draw), each side's
    score, how it ended, and the hash of the game's final event (its log's head)."""

    type: Literal["campaign.result"] = "campaign.result"
    number: int
    winner: str | None
    scores: dict[str, int]
    ending: str
    final_hash: str
    #: Strength each side lost, by unit id (as the game's final state counts it): the
    #: entries of the rosters lose it and hold it as casualties until the post-battle
    #: sequence settles their fate.
    losses: dict[str, dict[str, Annotated[int, Field(ge=0, le=MAX_STRENGTH)]]] = {}


class CampaignRoster(_Frozen):
    """A side's roster is set (from a scenario's side or a roster file; ``source`` says
    which): allowed while no game of the campaign is in play."""

    type: Literal["campaign.roster"] = "campaign.roster"
    side: str
    roster: Roster
    source: str = Field("scenario", max_length=80)


class CampaignReversal(_Frozen):
    """A result entered earlier no longer holds (its game's end was undone): reversed by a
    new event, never edited away."""

    type: Literal["campaign.reversal"] = "campaign.reversal"
    number: int
    final_hash: str
    reason: str = "undone"


class CampaignEnded(_Frozen):
    """The campaign is over: nothing more is linked or entered."""

    type: Literal["campaign.ended"] = "campaign.ended"


# -- after the battle (`rules.campaign.aftermath_fold` folds them) --------------------


class CampaignAftermath(_Frozen):
    """The post-battle sequence of game ``number``, rolled: every die and every change,
    side by side; ``by_hand`` when the dice were typed by a player.

    Each side rolls its own part (``side``): typed dice feed only that side. ``side`` None
    rolls every side still to roll at once (the bot's dice; every side, in older logs). A
    ``disputed`` part is the bot's re-roll of ``side``'s typed part, which another side's
    player (``by``; None: the referee) disputed: it replaces that part."""

    type: Literal["campaign.aftermath"] = "campaign.aftermath"
    number: int = Field(ge=1)
    sides: dict[str, tuple[EntryAftermath, ...]]
    by_hand: bool = False
    side: str | None = Field(None, min_length=1, max_length=40)
    disputed: bool = False
    by: str | None = Field(None, min_length=1, max_length=40)

    @model_validator(mode="after")
    def _one_side_part(self) -> CampaignAftermath:
        if self.side is not None and set(self.sides) - {self.side}:
            raise ValueError("a side's part holds only that side's entries")
        if self.disputed and (self.side is None or self.by_hand or self.by == self.side):
            raise ValueError("a disputed part is one side's, re-rolled by the bot")
        if self.by is not None and not self.disputed:
            raise ValueError("only a disputed part names who disputed it")
        return self

    def entries(self) -> int:
        """How many entries it changed."""
        return sum(len(entries) for entries in self.sides.values())

    def dice(self) -> int:
        """How many dice it rolled."""
        return sum(
            len(change.fates) + (change.destroyed is not None)
            for changes in self.sides.values()
            for change in changes
        )


class CampaignConfirm(_Frozen):
    """A side confirms game ``number``'s aftermath (``side`` None: the referee validates
    it for every side)."""

    type: Literal["campaign.confirm"] = "campaign.confirm"
    number: int = Field(ge=1)
    side: str | None = None


class CampaignAftermathReversal(_Frozen):
    """Game ``number``'s aftermath is unwound (its result is about to be reversed): the
    entries go back to their values before it."""

    type: Literal["campaign.aftermath_reversal"] = "campaign.aftermath_reversal"
    number: int = Field(ge=1)


class CampaignAdjust(_Frozen):
    """The referee corrects one field of one roster entry, for a reason: a new event,
    never an edit of an old one."""

    type: Literal["campaign.adjust"] = "campaign.adjust"
    side: str = Field(min_length=1, max_length=40)
    unit: str = Field(pattern=ID_PATTERN)
    field: AdjustableField
    value: str = Field(min_length=1, max_length=40)
    reason: str = Field(min_length=1, max_length=MAX_REASON)


# -- a book and its calendar ------------------------------------------------------------


class CampaignBook(_Frozen):
    """The campaign follows a book: its scenarios in order, its map, its spacing."""

    type: Literal["campaign.book"] = "campaign.book"
    book: str
    title: dict[str, str]
    spacing_days: int = Field(0, ge=0, le=MAX_SPACING_DAYS)
    areas: list[BookArea] = []
    scenarios: list[BookStep]

    @classmethod
    def of(cls, book: Book) -> CampaignBook:
        """The event opening ``book``."""
        return cls(
            book=book.id,
            title=dict(book.title),
            spacing_days=book.spacing_days,
            areas=list(book.areas),
            scenarios=list(book.scenarios),
        )


class CampaignDue(_Frozen):
    """Game ``number`` should be played by ``by`` (a date)."""

    type: Literal["campaign.due"] = "campaign.due"
    number: int
    by: dt.date


class CampaignOverdue(_Frozen):
    """The referee's decision on a game past its date: ``extend`` to a new date, a
    ``forfeit`` by a side (the other side wins it), or a ``draw``."""

    type: Literal["campaign.overdue"] = "campaign.overdue"
    number: int
    decision: Literal["extend", "forfeit", "draw"]
    side: str | None = None
    until: dt.date | None = None


CampaignEvent = Annotated[
    CampaignCreated
    | CampaignJoined
    | CampaignJoinRequest
    | CampaignInvite
    | CampaignRoster
    | CampaignGame
    | CampaignResult
    | CampaignReversal
    | CampaignEnded
    | CampaignAftermath
    | CampaignConfirm
    | CampaignAftermathReversal
    | CampaignAdjust
    | CampaignBook
    | CampaignDue
    | CampaignOverdue,
    Field(discriminator="type"),
]
_EVENT: TypeAdapter[CampaignEvent] = TypeAdapter(CampaignEvent)
#: The verbs of the campaign's log, one per kind of event.
CAMPAIGN_VERBS = (
    "campaign.created",
    "campaign.joined",
    "campaign.roster",
    "campaign.game",
    "campaign.result",
    "campaign.reversal",
    "campaign.ended",
    "campaign.aftermath",
    "campaign.confirm",
    "campaign.aftermath_reversal",
    "campaign.adjust",
    "campaign.book",
    "campaign.due",
    "campaign.overdue",
    "campaign.join_request",
    "campaign.invite",
)


def event_of(data: Mapping[str, Any]) -> CampaignEvent:
    """An event read back from the log (its JSON, as :func:`event_json` wrote it)."""
    return _EVENT.validate_python(dict(data))


def event_json(event: CampaignEvent) -> dict[str, Any]:
    """An event as JSON for the log."""
    data: dict[str, Any] = event.model_dump(mode="json")
    return data


__all__ = [
    "CAMPAIGN_VERBS",
    "MAX_NAME",
    "MAX_POINTS",
    "CampaignAdjust",
    "CampaignAftermath",
    "CampaignAftermathReversal",
    "CampaignBook",
    "CampaignConfirm",
    "CampaignCreated",
    "CampaignDue",
    "CampaignEnded",
    "CampaignEvent",
    "CampaignGame",
    "CampaignInvite",
    "CampaignJoinRequest",
    "CampaignJoined",
    "CampaignOverdue",
    "CampaignResult",
    "CampaignReversal",
    "CampaignRoster",
    "FieldedUnits",
    "Points",
    "event_json",
    "event_of",
]
