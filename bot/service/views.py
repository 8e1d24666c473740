"""Looking at the game: status, map, log, export, help, rules tables, autocomplete.

Nothing here commits: every handler is read-only (a retried interaction simply looks
again). Questions to the rules run on the workers within the work budget; a status past
the budget still shows the state, without what is owed.

What the rules show is read from the seat view of the one who looks
(:class:`rules.core.seatview.SeatView`): the status posted in the channel and the channel's
picture are the spectator's (what every seat may see), ``/map mine`` and autocomplete are
the asker's own (their side's hidden units too, never the other side's).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace

from bot.commands import (
    CHOICE_KIND,
    COMMANDS,
    CommandSpec,
    OptionSpec,
    OptionType,
    ruleset_view,
)
from bot.service.errors import ServiceError
from bot.service.events import PUBLIC_ARGS, event_line, may_read, part_readable, result_of
from bot.service.export import Redaction, export_files
from bot.service.handlers import Call, GameCall, GameHandler, Handler, Services
from bot.service.help import channel_commands, command_names, help_lines
from bot.service.maps import (
    channel_map,
    localized_map,
    status_caption,
    with_caption,
)
from bot.service.redaction import unseen_units
from bot.service.replies import (
    FilesReply,
    Reply,
    ResultView,
    ScoreView,
    StatusReply,
    Suggestion,
    TextReply,
)
from bot.service.requests import Request, int_option, players_among, seat_among
from bot.service.result_text import result_text
from bot.service.stored.table import TableContext
from db.chain.archive import read_archive
from db.chain.export import history_pages
from db.chain.history import ExportHead, StoredVersion
from db.errors import GameNotFound, StoreError
from db.models import EventRecord, GameRecord
from rules.campaign.book import book_files
from rules.campaign.state import CampaignState
from rules.cli import format_table
from rules.core.battlefield import MapView
from rules.core.budget import WorkBudgetExceeded, work_budget
from rules.core.declaration import declaration
from rules.core.ending import NO_WINNER
from rules.core.errors import RulesError, UnknownName
from rules.core.i18n import translate
from rules.core.legal import LegalAction
from rules.core.play import FollowUp, StatusView
from rules.core.resolution import Outcome
from rules.core.ruleset import KNOWN_RULESETS, known_rulesets
from rules.core.score import GameResult
from rules.core.seatview import REFEREE, SPECTATOR, Seat, SeatView
from rules.core.words import Words, in_language, names_in, names_of, spelled_in

#: The most events ``/game log`` shows.
MAX_LOG = 50
#: The most suggestions an autocomplete answers (Discord's limit).
MAX_CHOICES = 25
#: Autocomplete puts what the seat may use now first: a courtesy worth this long of the
#: work budget (a player is typing), past which it answers the names unordered. (On the
#: largest battlefields ordering them measures every line of sight: it took the whole
#: budget, half a second, before falling back.)
CHOICES_ORDER_BUDGET_S = 0.2


def _reply(call: GameCall) -> StatusReply:
    record = call.record
    return StatusReply(language=record.language, ruleset=record.ruleset, head_hash=record.head_hash)


async def status(call: GameCall) -> Reply:
    """``/game status``, ``/turn status``: the state, the picture, what is owed and by
    whom, then what the features add (their status parts: the roster, the deadlines)."""
    rules, document, context, game = call.rules, call.document, call.context, call.game
    reply = _reply(call)
    reply.names = dict(context.seat_names)
    ended = call.record.status == "ended"
    listed = [True]
    ruleset, language = reply.ruleset, reply.language

    def look() -> tuple[StatusView, list[FollowUp], list[LegalAction], MapView | None]:
        # Off the loop, in one pass: listing legal actions can take milliseconds.
        seen = game.view(SPECTATOR)  # posted in the channel: the public view
        view = seen.status
        picture = with_caption(
            channel_map(game, ruleset, language),
            "",
            status_caption(view, ruleset, language),
        )
        if ended:
            result = seen.result
            reply.result = None if result is None else ResultView(result, dict(view.sides))
            return view, [], [], picture
        # The score "if the game ended now" as the channel may count it: no hidden unit.
        reply.score = ScoreView(dict(view.sides), seen.score)
        try:
            return view, seen.follow_ups, seen.owed, picture
        except WorkBudgetExceeded:
            # The state is still shown: only what is owed could not be listed.
            listed[0] = False
            return view, [], [], picture

    shown, reply.follow_ups, reply.owed, reply.map_view = await call.services.off_loop(look)
    reply.status = shown
    if not listed[0]:
        reply.notices.append(Outcome.of("bot.status.over_budget"))
    if ended:  # nobody is to move any more: the result is shown instead
        reply.status = replace(shown, ended=True, awaiting=None)
        return reply
    for side in dict.fromkeys(a.side for a in reply.owed if a.side is not None):
        reply.owed_by[side] = players_among(context.members, side)
    sides = rules.sides(document)
    for part in call.table.status_parts:  # the roster, the deadlines due…: each feature's
        reply.notices += await part.run(call, sides)
    return reply


async def show_map(call: GameCall) -> Reply:
    """``/map``: the table as the channel sees it; ``/map mine:true``: the asker's own
    view (their side's hidden units too; the referee's shows everything), privately."""
    request, seat, game = call.request, call.seat, call.game
    reply = _reply(call)
    mine = bool(request.options.get("mine"))
    if mine and not seat.seated:
        raise ServiceError("error.service.join_first")
    ruleset, language = reply.ruleset, reply.language

    def look() -> MapView | None:
        caption = status_caption(game.view(REFEREE).status, ruleset, language)
        if not mine:
            return with_caption(channel_map(game, ruleset, language), "", caption)
        view = game.view(seat).map(language)
        if view is None:
            return None
        return with_caption(localized_map(view, ruleset, language), "", caption)

    reply.map_view = await call.services.off_loop(look)
    reply.map_public = not mine
    reply.private = mine
    if reply.map_view is None:
        reply.notices.append(Outcome.of("bot.map.none"))
    return reply


async def _opened(call: Call) -> GameRecord:
    """The channel's game, read as a read-only command reads it; refused when its ruleset
    cannot be played."""
    return (await _opened_context(call)).record


async def _opened_context(call: Call) -> TableContext:
    context = await call.open()
    call.services.rules(context.record.ruleset)
    return context


def reader_of(call: Call, context: TableContext) -> Seat:
    """Who an export is for: the referee and, once the game has ended, everyone read
    everything; a side reads its own hidden moves, a spectator none."""
    seat = seat_among(call.request, context.members, context.side_roles)
    if seat.referee or context.record.status == "ended":
        return REFEREE
    return SPECTATOR if seat.side is None else Seat(seat.side)


async def show_log(call: Call) -> Reply:
    """``/game log [count:N]``: the last events, one line each."""
    request, store = call.request, call.store
    opened = await _opened(call)
    reply = TextReply(language=opened.language, ruleset=opened.ruleset, head_hash=opened.head_hash)
    count = int_option(request.options, "count", 10, 1, MAX_LOG)
    record = await store.load(request.channel_id)
    sides = call.services.rules(record.ruleset).sides(record.document)
    spelled = spelled_in(record.document)
    first = max(0, record.version - count)
    for event in await store.events(request.channel_id, after_seq=first, limit=count):
        reply.lines.append(event_line(event, reply.ruleset, reply.language, sides, spelled=spelled))
    return reply


async def export(call: Call) -> Reply:
    """``/game export``: the verifiable JSON and the after-action report, written page
    by page on worker threads (bounded memory; other channels' commands run between
    the pages: `bot.service.export`). ``archive:N``: an archived game of this guild."""
    request, store = call.request, call.store
    if request.options.get("archive") is not None:
        return await _export_archived(call)
    context = await _opened_context(call)
    record = context.record
    reply = FilesReply(language=record.language, ruleset=record.ruleset, head_hash=record.head_hash)
    sides = call.services.rules(record.ruleset).sides(record.document)
    head = await store.export_head(request.channel_id)
    pages = history_pages(store, request.channel_id, head.version)
    reader = reader_of(call, context)
    hides_states = False
    if not reader.referee:
        hides_states = call.services.ruleset(record.ruleset).hides_units
        if not hides_states:
            first = await store.history_page(request.channel_id, 0, 1, 1)
            hides_states = await call.services.off_loop(_hides_a_state, call, record, first, reader)
    game = call.services.rules(record.ruleset).load(record.document)
    final = await call.services.off_loop(lambda: game.view(REFEREE).result)
    return await _export_reply(
        request,
        reply,
        head,
        pages,
        sides,
        reader,
        hides_states,
        _spelled(final) + spelled_in(record.document),
    )


def _spelled(result: GameResult | None) -> tuple[str, ...]:
    """The names a game's final result spells in every language (its objectives): a result
    kept in an event keeps them as plain text, read again in the reader's language."""
    if result is None:
        return ()
    found = (
        value
        for line in result.score.lines
        for _, value in line.text.params
        if isinstance(value, Words) and value.translations
    )
    return tuple(dict.fromkeys(found))


def _hides_a_state(call: Call, record: GameRecord, first: list[StoredVersion], seat: Seat) -> bool:
    """Whether a state an export keeps (the first and the current) places a unit hidden
    from ``reader``: then it keeps none. A ruleset that declares it can hide units
    (``Ruleset.hides_units``) keeps none for any reader but the referee, whatever its
    states hold (else keeping them would tell that nothing is hidden); this is the
    safeguard for a ruleset that hides units without saying so."""
    rules = call.services.rules(record.ruleset)
    documents = [record.document]
    if first and first[0].full is not None:
        documents.append(json.loads(first[0].full[1]))
    elif first:
        return True  # a first state not at hand: kept only when known to hide nothing
    upgrade = rules.document_format.upgrade
    return any(unseen_units(rules, upgrade(doc), seat) for doc in documents)


async def _export_archived(call: Call) -> Reply:
    """``/game export archive:N``: an archived game of this guild, as it was exported,
    read from the archive in chunks."""
    request = call.request
    archive_id = int_option(request.options, "archive", 0, 1, 2**62)
    head, pages = await read_archive(call.store, archive_id)
    game = head.game
    if game.get("guild_id") != request.guild_id:
        raise ServiceError("error.store.archive_not_found", archive_id=archive_id)
    reply = FilesReply(language=str(game.get("language", "it")), ruleset=str(game.get("ruleset")))
    document = await asyncio.to_thread(json.loads, head.current[1])
    if not isinstance(document, dict):
        return await _export_reply(request, reply, head, pages, {})
    sides = names_of(document.get("sides") or {})
    return await _export_reply(request, reply, head, pages, sides, spelled=spelled_in(document))


async def _export_reply(
    request: Request,
    reply: FilesReply,
    head: ExportHead,
    pages: AsyncIterator[list[StoredVersion]],
    sides: Mapping[str, str],
    reader: Seat = REFEREE,
    hides_states: bool = False,
    spelled: tuple[str, ...] = (),
) -> Reply:
    title = translate(
        "bot.report.title",
        reply.language,
        ruleset=str(head.game.get("ruleset", reply.ruleset)),
        channel=head.game.get("channel_id", request.channel_id),
    )
    ruleset, language = reply.ruleset, reply.language

    def details(event: EventRecord) -> list[str]:
        """Below the event that ended the game: its result, in full."""
        result = result_of(event)
        if result is None:
            return []
        result = result.named(spelled)
        return [
            f"### {line}" if index == 0 else line
            for index, line in enumerate(result_text(result, sides, ruleset, language).plain("-"))
        ]

    exported = await export_files(
        head,
        pages,
        title=title,
        language=language,
        line_of=lambda event: event_line(event, ruleset, language, sides, reader, spelled),
        details_of=details,
        redaction=None
        if reader.referee
        else _redaction(reader, names_in(sides, language), hides_states),
    )
    reply.files.update(exported.files)
    reply.spool = exported.spool
    reply.notices.append(Outcome.of("bot.game.exported", events=exported.events))
    if exported.redacted:
        reply.notices.append(Outcome.of("bot.game.export_redacted"))
    return reply


def _redaction(reader: Seat, sides: Mapping[str, str], hides_states: bool) -> Redaction:
    """An export for a side or a spectator: what the enemy's hidden units did, withheld."""
    return Redaction(
        reader=sides.get(reader.side, reader.side) if reader.side else "spectator",
        withheld=lambda args: not may_read(reader, args),
        kept_args=PUBLIC_ARGS,
        hides_states=hides_states,
        part_withheld=lambda part: not part_readable(reader, part),
    )


async def _game_here(call: Call) -> GameRecord | None:
    """The channel's game (any, ended too), or None."""
    try:
        return await call.store.load(call.request.channel_id)
    except GameNotFound:
        return None


def ruleset_here(record: GameRecord | None) -> str:
    """The ruleset a channel plays: its game's, a campaign's own (its games'), else ""."""
    if record is None:
        return ""
    if record.is_campaign:
        return CampaignState.from_json(record.document).ruleset
    return record.ruleset


async def show_help(call: Call) -> Reply:
    """``/help [command]``, for the channel's ruleset if a game is here (any game, ended
    too; a campaign's channel: its games' ruleset), else for every command."""
    request, services = call.request, call.services
    record = await _game_here(call)
    language = services.known(record.language if record else None, request.locale)
    ruleset = ruleset_here(record)
    rules = services.rules(ruleset) if ruleset else None
    reply = TextReply(language=language, ruleset=ruleset)
    reply.lines_title = "discord.embed.help"
    topic = str(request.options.get("command") or "")
    # Off the event loop: /help game new reads every ruleset's scenarios (once, cached).
    reply.lines = await services.off_loop(help_lines, language, topic, rules)
    return reply


async def commands_of(services: Services, channel_id: int) -> list[CommandSpec]:
    """The commands of the channel as its ruleset declares them (every command when no game
    is here or it cannot be read): what the console parses, as help shows them."""
    try:
        record: GameRecord | None = await services.store.load(channel_id)
    except StoreError:
        record = None
    if record is not None and record.is_campaign:
        record = None  # a campaign's channel holds no game of a ruleset: every command
    try:
        rules = services.rules(record.ruleset) if record is not None else None
    except UnknownName:  # a ruleset this release does not have
        rules = None
    return channel_commands(rules)


async def rules_table(call: Call) -> Reply:
    """``/rules table:ID [ruleset]``: a table of the channel's ruleset (or the one named),
    laid out as the seed lays it out; without a table, the list of them."""
    request, services = call.request, call.services
    record = await _game_here(call)
    language = services.known(record.language if record else None, request.locale)
    reply = TextReply(language=language, ruleset=ruleset_here(record))
    if reply.ruleset:
        services.rules(reply.ruleset)
    ruleset_key = str(request.options.get("ruleset") or reply.ruleset or KNOWN_RULESETS[0])
    tables = services.ruleset(ruleset_key).tables
    wanted = str(request.options.get("table") or "")
    reply.lines_title = "discord.embed.table"
    if not wanted:
        reply.lines = [f"{table.id} — {in_language(table.title, language)}" for table in tables]
        return reply
    if wanted not in tables:
        raise UnknownName(
            "error.unknown_table",
            name=wanted[:40],
            known=", ".join(table.id for table in tables),
        )
    reply.preformatted = True
    reply.lines = format_table(tables[wanted], language).splitlines()
    return reply


# -- autocomplete ---------------------------------------------------------------------------


def _matching(names: list[str], typed: str) -> list[str]:
    # A suggestion matches by its value or by what the reader is shown of it (a unit's name).
    wanted = typed.casefold()
    return [
        n for n in names if wanted in n.casefold() or wanted in getattr(n, "label", "").casefold()
    ][:MAX_CHOICES]


async def choices(
    services: Services, channel_id: int, user_id: int, kind: str, typed: str
) -> list[str]:
    """Autocomplete values from the channel's state (at most 25)."""
    store = services.store
    if kind.startswith("extra:"):
        return await _extra_choices(services, channel_id, kind.partition(":")[2], typed)
    if kind.startswith(CHOICE_KIND + ":"):
        return await _declared_choices(services, channel_id, user_id, kind, typed)
    if kind in ("command", "table"):
        try:
            found: GameRecord | None = await store.load(channel_id)
        except StoreError:
            found = None
        if kind == "command":
            names = command_names(services.rules(found.ruleset) if found is not None else None)
        else:
            key = found.ruleset if found is not None else KNOWN_RULESETS[0]
            names = [table.id for table in services.ruleset(key).tables]
        return _matching(names, typed)
    if kind == "ruleset":
        return _matching(list(known_rulesets()), typed)
    if kind == "book" or kind.startswith("book:"):  # /campaign new book: (bundled campaigns)
        chosen = kind.partition(":")[2]
        known = list(known_rulesets())
        keys = [chosen] if chosen in known else known
        return _matching([book for key in keys for book in book_files(key)], typed)
    if kind == "scenario" or kind.startswith("scenario:"):
        # The scenarios of the ruleset chosen in the same command, else of every registered
        # ruleset (a ruleset registered from outside rules/ has no command declaration to
        # list them: its play does).
        chosen = kind.partition(":")[2]
        known = list(known_rulesets())
        names = []
        for key in [chosen] if chosen in known else known:
            try:
                names += declaration(key).scenarios
            except UnknownName:  # registered without a command declaration
                names += services.rules(key).scenarios()
        return _matching(names, typed)
    try:
        record = await store.load(channel_id)
    except (GameNotFound, StoreError):
        return []
    if record.is_campaign:  # its state is no ruleset's document: only its own sides to name
        sides = CampaignState.from_json(record.document).sides if kind == "side" else {}
        return _matching(list(sides), typed)
    rules = services.rules(record.ruleset)
    if kind == "side":
        return _matching(list(rules.sides(record.document)), typed)
    if kind == "result":  # /game end result: a side, or none (a draw)
        return _matching([*rules.sides(record.document), NO_WINNER], typed)
    seat = seat_among(Request(channel_id, user_id, "choices"), await store.members(channel_id))
    document = record.document

    def lookup() -> list[str]:
        # The asker's own view: never a unit hidden from their side (a spectator's: the
        # public one). What the seat may use now comes first: the same answer the rules give.
        view: SeatView = rules.view(document, seat)
        try:
            with work_budget(CHOICES_ORDER_BUDGET_S):
                names = view.names(kind)
        except WorkBudgetExceeded:
            names = view.names(kind, legal_first=False)  # past the budget: the names, unordered
        labels = view.labels(kind) if names else {}
        if not labels:
            return names
        # A unit or a weapon is offered by its name in the game's language, its id the
        # value typed.
        shown = {key: in_language(name, record.language) for key, name in labels.items()}
        return [Suggestion(name, shown[name]) if name in shown else name for name in names]

    try:
        names = await services.on_workers(channel_id, lookup)
    except RulesError:  # a document this version cannot read: the command will say so
        return []
    return _matching(names, typed)


async def _record_here(services: Services, channel_id: int) -> GameRecord | None:
    try:
        return await services.store.load(channel_id)
    except StoreError:
        return None


async def _declared_choices(
    services: Services, channel_id: int, user_id: int, kind: str, typed: str
) -> list[str]:
    """Autocomplete of an option whose choices are each ruleset's own (``choice:move:kind``):
    the channel's ruleset's choices, or the names it suggests for that option; every
    ruleset's choices outside a game."""
    _, path, name = kind.split(":", 2)
    record = await _record_here(services, channel_id)
    keys = [record.ruleset] if record is not None else list(KNOWN_RULESETS)
    values: list[str] = []
    for key in keys:
        command = ruleset_view(declaration(key)).get(path)
        option = command.option(name) if command is not None else None
        if option is None:
            continue
        if option.choices:
            values += option.choices
        elif option.autocomplete is not None and record is not None:
            return await choices(services, channel_id, user_id, option.autocomplete, typed)
    return _matching(list(dict.fromkeys(values)), typed)


async def _extra_choices(services: Services, channel_id: int, verb: str, typed: str) -> list[str]:
    """Autocomplete of ``extra``: the next ``name:value`` token among the options the
    channel's ruleset takes for this command, in its own words (every extra outside a
    game)."""
    command = next((c for c in COMMANDS if c.verb == verb and c.extras), None)
    if command is None:
        return []
    record = await _record_here(services, channel_id)
    extras: tuple[OptionSpec, ...] = command.extras
    if record is not None:
        own = ruleset_view(declaration(record.ruleset)).get(command.path)
        names = {option.name for option in command.extras}
        extras = tuple(o for o in own.every_option if o.name in names) if own else ()
    done = typed.split()
    current = "" if not typed or typed.endswith(" ") else done.pop()
    used = {token.partition(":")[0] for token in done}
    candidates = []
    for option in extras:
        if option.name in used:
            continue
        boolean = option.type is OptionType.BOOLEAN
        values = option.choices or (("true", "false") if boolean else ("",))
        candidates += [f"{option.name}:{value}" for value in values]
    prefix = " ".join(done)
    found = [c for c in candidates if c.lower().startswith(current.lower())]
    found += [c for c in candidates if current.lower() in c.lower() and c not in found]
    return [f"{prefix} {c}".strip()[:100] for c in found][:MAX_CHOICES]


HANDLERS = (
    GameHandler(("game.status", "turn.status"), read_only=True, run=status),
    GameHandler(("game.map",), read_only=True, run=show_map),
    Handler(("game.log",), read_only=True, run=show_log),
    Handler(("game.export",), read_only=True, run=export),
    Handler(("help",), read_only=True, run=show_help),
    Handler(("rules.table",), read_only=True, run=rules_table),
)

__all__ = ["HANDLERS", "MAX_LOG", "choices"]
