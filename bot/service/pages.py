"""What a web page shows its reader: a game, or a campaign, as one reader may see it (the
pages' read model, served by `bot.web`).

This is not a feature (it answers no command) but, like the handler table in
`bot.service.core`, a composition of the features: a page is built from the service's own
per-seat reads, never from the documents read here. The reader's seat is read from the store
when the page is served (a link says only who they are), the status and the picture come
from the handlers of ``/game status`` and ``/map`` (`bot.service.views`), the units from the
rules' seat view, the log from `event_line` with the export's reader (`views.reader_of`),
the campaign from its ledger and its map (`bot.service.campaign`), so whatever those withhold
from a seat, the page withholds too. No feature imports it (the features stay independent:
pyproject.toml's ``features-independent``). Rules work runs on the workers, as the commands'
does.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.service import views
from bot.service.campaign.export import map_view
from bot.service.campaign.ledger import CAMPAIGN_ARG, language_of, load_campaign
from bot.service.core import TABLE
from bot.service.errors import ServiceError
from bot.service.events import (
    event_line,
    people,
    plain_mentions,
    resolutions_of,
)
from bot.service.handlers import GameCall, Services
from bot.service.links import Link
from bot.service.replies import StatusReply
from bot.service.requests import Request, seat_among
from bot.service.stored.seat_names import seat_names
from bot.service.stored.table import TableContext, open_table
from db.errors import GameNotFound
from db.models import EventRecord, GameRecord, HeldDocument
from rules.campaign.events import event_of
from rules.campaign.state import CampaignState, Standing, standings
from rules.campaign.story import CampaignMap
from rules.campaign.text import (
    book_lines,
    due_lines,
    game_line,
    log_text,
    owed_lines,
    roster_lines,
    signed_difference,
    status_lines,
)
from rules.core.battlefield import MapView
from rules.core.caches import BoundedCache
from rules.core.seatview import SPECTATOR, Seat, UnitLine
from rules.core.surface import Loaded
from rules.core.words import names_in, spelled_in
from rules.render import Described, describe_reply

#: Events on one page of a game's log.
LOG_PAGE = 50
#: The campaign's story: the most events its page shows (its log is short: games are few).
CAMPAIGN_LOG_EVENTS = 200
_READ_PAGE = 500
#: Log lines put in words, by event and reader (`_log_entries`): a few pages of many games.
LOG_LINES_REMEMBERED = 4096
#: Games whose validated state the pages keep (`PageGames`), one per channel: each 40–150
#: KB for the bundled scenarios with its seats' views, and its document's stored text.
GAMES_KEPT = 32


class NotFound(LookupError):
    """No game (or no campaign) of that kind in the link's channel."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event of a log as its reader may read it: the line, and the dice and odds of
    what it resolved (none for an event the reader may not read)."""

    seq: int
    line: str
    dice: tuple[Described, ...] = ()


_LOG_LINES: BoundedCache[Hashable, LogEntry] = BoundedCache(
    LOG_LINES_REMEMBERED, name="web log lines"
)


def forget_log_lines() -> None:
    """Drop the log lines remembered (a page is then put in words afresh)."""
    _LOG_LINES.clear()


@dataclass
class GamePage:
    """A game as one reader may see it."""

    channel: int
    language: str
    ruleset: str
    head_hash: str
    seat: Seat
    status: StatusReply
    units: tuple[UnitLine, ...]
    has_map: bool
    log: list[LogEntry]
    page: int
    pages: int
    campaign: int | None = None
    names: dict[int, str] = field(default_factory=dict)

    def plain(self, text: str) -> str:
        """``text`` with its mentions as this page names people."""
        return plain_mentions(text, self.names)


@dataclass(frozen=True, slots=True)
class StandingShown:
    """One line of a campaign's standings: its rank, its side's name, the line, and the
    points difference as standings print it."""

    rank: int
    side: str
    line: Standing
    difference: str


@dataclass
class CampaignGame:
    """A campaign's game: its line (result included) and its channel."""

    number: int
    channel: int
    line: str
    ended: bool


@dataclass
class RosterShown:
    """A side's roster: its title and each entry with its latest history."""

    title: str
    entries: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass
class CampaignPage:
    """A campaign as one reader may see it (a campaign hides nothing from its channel: the
    reader's side only marks their own)."""

    channel: int
    language: str
    ruleset: str
    head_hash: str
    name: str
    summary: list[str]
    #: The reader's side (its name), if they play one; whether they are the referee.
    side: str | None
    referee: bool
    sides: list[tuple[str, list[str]]]
    standings: list[StandingShown]
    games: list[CampaignGame]
    notes: list[str]
    rosters: list[RosterShown]
    has_map: bool
    log: list[str]


@dataclass(frozen=True, slots=True)
class _KeptGame:
    ruleset: str
    #: The document as stored (its text, and as the store read it), at the last head read.
    held: HeldDocument
    #: The document migrated to the current format, and the game loaded from it.
    document: Mapping[str, Any]
    game: Loaded


class PageGames:
    """The games the pages have validated, one per channel, kept by their document's text
    as stored: every seat's page and picture at a head read one validated state, and a new
    head whose document is the same text (a seat taken, a deadline, a roll that changed
    nothing) reads the same state, with the seats' views it already computed (each part of a
    view is computed once: `rules.core.seatview.SeatView`). The store is given the kept
    document (`held`): a head of the same text is served with it, not parsed again.

    Safe by its key: the views are the rules' pure functions of the document and the seat,
    and the text is the whole document; what a page shows beside them (who sits where, the
    game's status, the log) is read from the store at each head. A page's work runs in its
    channel's turn on the pages' own workers (`bot.service.workers`), so no two jobs read one
    state at once; a builder of pages keeps its own (`bot.web.answers.PageBuilder`). At most
    ``limit`` games, the least recently read first out. Used on the event loop only."""

    def __init__(self, limit: int = GAMES_KEPT) -> None:
        self._kept: OrderedDict[int, _KeptGame] = OrderedDict()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._kept)

    def read(self, services: Services, record: GameRecord) -> tuple[Mapping[str, Any], Loaded]:
        """``record``'s document (migrated to the current format) and the game loaded from
        it: the one kept when its stored text is the kept one's."""
        channel, text = record.channel_id, record.document_text
        kept = self._kept.pop(channel, None)
        if kept is not None and text == kept.held.text and record.ruleset == kept.ruleset:
            document, game = kept.document, kept.game
        else:
            rules = services.rules(record.ruleset)
            document = rules.document_format.upgrade(record.document)
            game = rules.load(document)
        if text is not None and record.head_hash is not None:
            stored = HeldDocument(record.version, record.head_hash, record.document, text)
            self._kept[channel] = _KeptGame(record.ruleset, stored, document, game)
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)
        return document, game

    def held(self, channel: int) -> HeldDocument | None:
        """The channel's document as stored, for the store's next read of it."""
        kept = self._kept.get(channel)
        return None if kept is None else kept.held

    def clear(self) -> None:
        """Forget every game."""
        self._kept.clear()


async def game_context(
    services: Services, channel: int, held: HeldDocument | None = None
) -> TableContext:
    """The game of ``channel`` with its seats (one round trip): the page's head, and who
    sits where now (its document ``held``'s when the store finds it the same: `PageGames`)."""
    try:
        context = await open_table(services.store, channel, held=held)
    except GameNotFound:
        raise NotFound(channel) from None
    if context.record.is_campaign:
        raise NotFound(channel)
    return context


def seat_of(context: TableContext, link: Link) -> Seat:
    """Where ``link``'s reader sits now, as the store says (a spectator's link: no seat)."""
    if link.reader is None:
        return SPECTATOR
    request = Request(channel_id=context.record.channel_id, user_id=link.reader, verb="game.web")
    return seat_among(request, context.members)


def _call(
    services: Services, games: PageGames, context: TableContext, link: Link, **options: object
) -> GameCall:
    """A read-only call of ``link``'s reader, seated as the store says now, on the game
    ``games`` keep for its document."""
    record = context.record
    request = Request(
        channel_id=record.channel_id,
        user_id=link.reader or 0,
        verb="game.web",
        options=options,
        guild_id=record.guild_id,
    )
    seat = seat_of(context, link)
    rules = services.rules(record.ruleset)
    document, game = games.read(services, record)
    return GameCall(request, services, TABLE, context, rules, document, seat, kept=game)


async def game_page(
    services: Services, games: PageGames, context: TableContext, link: Link, page: int | None
) -> GamePage:
    """The game of ``context`` as ``link``'s reader may see it, with the log's page
    ``page`` (the last when None); its state read from ``games``."""
    call = _call(services, games, context, link)
    record = context.record
    status = await views.status(call)
    assert isinstance(status, StatusReply)
    units = await services.off_loop(lambda: call.game.view(call.seat).status.units)
    pages = max(1, math.ceil(record.version / LOG_PAGE))
    shown = pages if page is None else min(max(page, 1), pages)
    reader = views.reader_of(call, context)
    events = await services.store.events(
        record.channel_id, after_seq=(shown - 1) * LOG_PAGE, limit=LOG_PAGE
    )
    sides = dict(call.rules.sides(call.document))
    # Each seat by the name its holder took it under, else as the page's events name them.
    names = {**context.seat_names, **people(events)}
    spelled = spelled_in(call.document)
    log = await services.off_loop(
        _log_entries, events, record.ruleset, record.language, sides, reader, names, spelled
    )
    campaign = context.campaign
    return GamePage(
        channel=record.channel_id,
        language=record.language,
        ruleset=record.ruleset,
        head_hash=record.head_hash or "",
        seat=call.seat,
        status=status,
        units=units,
        has_map=status.map_view is not None,
        log=log,
        page=shown,
        pages=pages,
        campaign=None if campaign is None else campaign.campaign,
        names=names,
    )


def _log_entries(
    events: Sequence[EventRecord],
    ruleset: str,
    language: str,
    sides: Mapping[str, str],
    reader: Seat,
    names: Mapping[int, str],
    spelled: tuple[str, ...] = (),
) -> list[LogEntry]:
    # An event's line is the same for every page and head that shows it to the same kind
    # of reader with the same names: a new event puts one new line in words, not fifty.
    # (The units' names, ``spelled``, are the game's from its start: its events' hashes.)
    view = (ruleset, language, tuple(sorted(sides.items())), reader, tuple(sorted(names.items())))
    entries = []
    for event in events:
        key = (event.channel_id, event.seq, event.hash, view)
        entry = _LOG_LINES.get(key)
        if entry is None:
            line = event_line(event, ruleset, language, sides, reader, spelled)
            line = plain_mentions(line, names)
            dice = tuple(describe_reply(resolutions_of(event, reader), language))
            entry = LogEntry(event.seq, line, dice)
            _LOG_LINES.put(key, entry)
        entries.append(entry)
    return entries


@dataclass(frozen=True)
class GameMap:
    """The table as a link's reader may see it, for the front end to draw: the view, its
    language, and whether it is the public one (a spectator's) or a seat's own."""

    view: MapView
    language: str
    public: bool


async def game_map(
    services: Services, games: PageGames, context: TableContext, link: Link
) -> GameMap | None:
    """The table as ``link``'s reader may see it (``/map``: the channel's for a spectator,
    ``/map mine`` for a seat); None without a battlefield. Its state read from ``games``."""
    call = _call(services, games, context, link)
    mine = call.seat.seated
    call = _call(services, games, context, link, mine=mine) if mine else call
    reply = await views.show_map(call)
    assert isinstance(reply, StatusReply)
    if reply.map_view is None:
        return None
    return GameMap(reply.map_view, context.record.language, public=not mine)


async def campaign_record(services: Services, channel: int) -> tuple[str, CampaignState, int]:
    """The campaign of ``channel``: its head hash, its state and its version."""
    try:
        record, state = await load_campaign(services, channel)
    except (ServiceError, GameNotFound):
        raise NotFound(channel) from None
    return record.head_hash or "", state, record.version


async def campaign_page(services: Services, channel: int, link: Link) -> CampaignPage:
    """The campaign of ``channel`` as ``link``'s reader sees it."""
    try:
        record, state = await load_campaign(services, channel)
    except (ServiceError, GameNotFound):
        raise NotFound(channel) from None
    language = language_of(record)
    events = await _campaign_events(services, channel, record.version)
    names = {**await seat_names(services.store, channel), **people(events)}

    def person(user: int) -> str:
        return names.get(user) or f"@{user}"

    def plain(text: str) -> str:
        return plain_mentions(text, names)

    log = []
    for event in events[-CAMPAIGN_LOG_EVENTS:]:
        data = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if isinstance(data, dict):
            log.append(f"#{event.seq} " + plain(log_text(state, event_of(data), language, False)))
    rosters = []
    for roster in state.rosters.values():
        lines = roster_lines(state, roster, language, None)
        shown = RosterShown(plain(lines[0]))
        for line in lines[1:]:
            if line.startswith("  · ") and shown.entries:
                shown.entries[-1][1].append(plain(line.removeprefix("  · ")))
            else:
                shown.entries.append((plain(line), []))
        rosters.append(shown)
    has_map = state.book is not None and bool(state.book.areas)
    reader = link.reader
    sides = names_in(state.sides, language)
    return CampaignPage(
        channel=channel,
        language=language,
        ruleset=state.ruleset,
        head_hash=record.head_hash or "",
        name=state.name,
        summary=[plain(line) for line in status_lines(state, language, False)[:1]],
        side=None if reader is None else sides.get(state.side_of(reader) or ""),
        referee=reader is not None and reader == state.referee,
        sides=[
            (label, [person(user) for user in state.players.get(side, ())])
            for side, label in sides.items()
        ],
        standings=[
            StandingShown(rank, sides[line.side], line, signed_difference(line.difference))
            for rank, line in enumerate(standings(state), start=1)
        ],
        games=[
            CampaignGame(
                entry.number,
                entry.channel,
                plain(game_line(state, entry, language, False)),
                entry.result is not None,
            )
            for entry in state.games
        ],
        notes=[
            plain(line)
            for line in (
                *owed_lines(state, language),
                *due_lines(state, language),
                *book_lines(state, language),
            )
        ],
        rosters=rosters,
        has_map=has_map,
        log=log,
    )


async def _campaign_events(services: Services, channel: int, version: int) -> list[EventRecord]:
    events: list[EventRecord] = []
    while len(events) < version:
        page = await services.store.events(
            channel, after_seq=events[-1].seq if events else 0, limit=_READ_PAGE
        )
        events.extend(page)
        if len(page) < _READ_PAGE:
            break
    return events


async def campaign_map(services: Services, channel: int) -> CampaignMap | None:
    """The campaign's map (its book's areas, each by its holder) for the page to draw, if
    it has one."""
    try:
        record, state = await load_campaign(services, channel)
    except (ServiceError, GameNotFound):
        raise NotFound(channel) from None
    return map_view(state, language_of(record))


__all__ = [
    "LOG_PAGE",
    "CampaignPage",
    "GameMap",
    "GamePage",
    "LogEntry",
    "NotFound",
    "PageGames",
    "campaign_map",
    "campaign_page",
    "campaign_record",
    "forget_log_lines",
    "game_context",
    "game_map",
    "game_page",
    "seat_of",
]
