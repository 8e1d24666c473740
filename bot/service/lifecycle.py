"""A channel's games over time: a new game, its end, the archive, a guild's games, and who
may create games.

A channel holds one game at a time. When its game has ended, ``/game new`` archives it (its
history moves to the store's archive, compact — events, snapshots and patches — in one
transaction) and starts the new one;
``/game list`` shows the guild's games, in play and archived; ``/game export archive:N``
exports an archived one as it was. ``/game creators role:@R`` (the server's managers)
keeps game creation to a role.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence

from bot.service.errors import ServiceError
from bot.service.events import ACTOR_NAME_ARG
from bot.service.handlers import Call, Handler, Services, Who
from bot.service.maps import status_and_map
from bot.service.replies import Reply, StatusReply, TextReply
from bot.service.requests import role_option
from bot.service.stored.archive import archive_if_ended
from bot.service.stored.roles import creator_role, set_creator_role
from bot.service.stored.seat_names import note_seat_name
from db.chain.archive import read_archive
from db.chain.hashing import canonical_json
from db.errors import StoreError
from db.models import ArchivedGame, GameSummary
from rules.core.battlefield import MapView
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.core.i18n import LANGUAGES, translate
from rules.core.play import StatusView
from rules.core.resolution import Outcome
from rules.core.ruleset import KNOWN_RULESETS
from rules.core.seatview import REFEREE
from rules.core.words import in_language, joined, stored_title
from rules.render import channel_label, outcome_text

log = logging.getLogger(__name__)

#: A listing shows at most this many games of each kind (Discord's message limits).
MAX_LISTED = 20
#: An uploaded scenario's size limit, in bytes as rules.core.scenario counts them.
MAX_SCENARIO_BYTES = 256 * 1024


async def list_lines(
    services: Services, guild_id: int | None, language: str, in_guild: bool
) -> list[str]:
    """The guild's games in play (channel, ruleset, title, turn, whose move) and archived."""
    store = services.store
    lines: list[str] = []
    # Campaigns are listed by /campaign status, not here.
    games = [g for g in await store.list_games(guild_id) if not g.is_campaign]
    playing = [g for g in games if g.status != "ended"]
    ended = [g for g in games if g.status == "ended"]
    for game in playing[:MAX_LISTED]:
        lines.append(await _playing_line(services, game, language, in_guild))
    for game in ended[:MAX_LISTED]:
        line = translate(
            "bot.games.ended_here",
            language,
            channel=channel_label(game.channel_id, in_guild),
            ruleset=game.ruleset,
        )
        lines.append(line + (await _ended_text(services, game.ruleset, language, game))[1])
    archived: Sequence[ArchivedGame] = await store.archived_games(guild_id)
    for entry in archived[:MAX_LISTED]:
        # The store keeps the title in the game's language; its last state, in all of them.
        title, result = await _ended_text(services, entry.ruleset, language, entry)
        line = translate(
            "bot.games.archived",
            language,
            id=entry.id,
            channel=channel_label(entry.channel_id, in_guild),
            ruleset=entry.ruleset,
            title=title or entry.title or "—",
            ended=entry.ended_at.strftime("%Y-%m-%d"),
            events=entry.version,
        )
        lines.append(line + result)
    if not lines:
        lines.append(translate("bot.games.none", language))
    return lines


async def _ended_text(
    services: Services, ruleset: str, language: str, game: GameSummary | ArchivedGame
) -> tuple[str, str]:
    """The title in ``language`` and `` — <the result's summary>`` of an ended or archived
    game, read from its last state (the store keeps no result of its own); "" for the
    result when it has none (a game ended before results existed), "" for both when the
    state cannot be read (the listing goes on)."""
    try:
        rules = services.rules(ruleset)
        if isinstance(game, ArchivedGame):
            # The archive's head holds the last state; its history is not read.
            head, _ = await read_archive(services.store, game.id)
            text = head.current[1]
            document = await asyncio.to_thread(json.loads, text)
        else:
            document = (await services.store.load(game.channel_id)).document

        def summary() -> str:
            current = rules.document_format.upgrade(document)
            result = rules.view(current, REFEREE).result
            if result is None:
                return ""
            return outcome_text(ruleset, result.summary, language, rules.sides(current).values())

        found = await services.off_loop(summary)
    except (RulesError, StoreError, ValueError):
        log.warning("game list: the result of %s cannot be read", game, exc_info=True)
        return "", ""
    title = in_language(stored_title(document), language) if isinstance(document, dict) else ""
    return title, f" — {found}" if found else ""


async def _playing_line(
    services: Services, game: GameSummary, language: str, in_guild: bool
) -> str:
    channel = channel_label(game.channel_id, in_guild)
    try:
        record = await services.store.load(game.channel_id)
        rules = services.rules(record.ruleset)
        document = rules.document_format.upgrade(record.document)
        view = rules.view(document, REFEREE).status
        side = view.sides.get(view.awaiting or "", view.awaiting or "—")
        return translate(
            "bot.games.playing",
            language,
            channel=channel,
            ruleset=game.ruleset,
            title=view.title or "—",
            turn=view.turn,
            side=side,
        )
    except (RulesError, StoreError):  # a listing names what it cannot read, and goes on
        log.warning("game list: channel %s cannot be read", game.channel_id, exc_info=True)
        return translate("bot.games.unreadable", language, channel=channel, ruleset=game.ruleset)


def _ruleset_of(services: Services, scenario: object) -> str:
    """The ruleset a ``/game new`` without one plays: the only ruleset that bundles the named
    scenario (a referee who types ``scenario:gotica_incontro`` means linea_gotica), else the
    default one, whose refusal then lists its scenarios."""
    if scenario:
        owners = [key for key in KNOWN_RULESETS if str(scenario) in services.rules(key).scenarios()]
        if len(owners) == 1:
            return owners[0]
    return KNOWN_RULESETS[0]


async def new_game(call: Call) -> Reply:
    """``/game new [ruleset] [scenario|file] [language]``: a game in the channel, its
    creator the referee (the channel's ended game moves to the archive first)."""
    request, services, store = call.request, call.services, call.store
    options = request.options
    ruleset = str(options.get("ruleset") or _ruleset_of(services, options.get("scenario")))
    language = str(options.get("language") or services.language)
    if language not in LANGUAGES:
        raise InvalidInput(
            "error.service.bad_language", language=language[:10], known=", ".join(LANGUAGES)
        )
    rules = services.rules(services.ruleset(ruleset).key)
    if (
        request.attachment is not None
        and len(request.attachment.encode("utf-8", "surrogatepass")) > MAX_SCENARIO_BYTES
    ):
        raise InvalidInput("error.service.scenario_too_big", limit=MAX_SCENARIO_BYTES)
    scenario = options.get("scenario")
    if request.attachment is None and scenario and str(scenario) not in rules.scenarios():
        raise UnknownName(
            "error.unknown_scenario", name=str(scenario)[:40], known=", ".join(rules.scenarios())
        )
    # Parsing an uploaded file is bounded (rules.core.scenario's limits) but not instant:
    # off the event loop, within the work budget.
    document = await services.off_loop(
        rules.setup, str(scenario) if scenario else None, request.attachment
    )
    if request.guild_id is not None and not request.manages_guild:
        needed = await creator_role(store, request.guild_id)
        if needed is not None and needed not in request.role_ids:
            raise ServiceError("error.service.creators.role_needed", role=f"<@&{needed}>")
    # The channel's ended game, if any, moves to the archive (still listed and
    # exportable); a game still in play makes create_game refuse below.
    archived = await archive_if_ended(store, request.channel_id)
    created = await store.create_game(
        request.channel_id,
        guild_id=request.guild_id,
        ruleset=ruleset,
        language=language,
        document=document,
        status="active",
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
        referee_id=request.user_id,
        # The log names its creator as it names everyone (not a mention id).
        origin={ACTOR_NAME_ARG: request.user_name[:60]} if request.user_name else None,
    )
    await note_seat_name(store, request.channel_id, request.user_id, request.user_name, {})
    reply = StatusReply(language=language, ruleset=ruleset, head_hash=created.head_hash)
    if archived is not None:
        reply.notices.append(Outcome.of("bot.games.archived_previous", id=archived.id))
    reply.notices.append(
        Outcome.of(
            "bot.game.created",
            title=stored_title(document),
            sides=joined(rules.sides(document).values()),
        )
    )

    def look() -> tuple[StatusView, MapView | None]:
        # The document as stored (its keys sorted, db.chain.hashing), so that the sides and
        # units are listed in the order every later status lists them.
        stored = json.loads(canonical_json(document))
        return status_and_map(rules, stored, ruleset, language)

    reply.status, reply.map_view = await services.off_loop(look)
    return reply


async def list_games(call: Call) -> Reply:
    """``/game list``: the guild's games, in play and archived."""
    request, services = call.request, call.services
    language = services.known(await services.game_language(request.channel_id), request.locale)
    reply = TextReply(language=language)
    reply.lines = await list_lines(
        services, request.guild_id, language, in_guild=request.guild_id is not None
    )
    return reply


async def creators(call: Call) -> Reply:
    """``/game creators role:@R``: only members with the role may create games here
    (without a role: anyone again). For the server's managers."""
    request = call.request
    assert request.guild_id is not None  # Who.MANAGERS: in a server
    role_id = role_option(request.options)
    await set_creator_role(call.store, request.guild_id, role_id)
    reply = Reply(language=call.services.known(request.locale))
    reply.notices.append(
        Outcome.of("bot.games.creators", role=f"<@&{role_id}>")
        if role_id is not None
        else Outcome.of("bot.games.creators_anyone")
    )
    return reply


HANDLERS = (
    Handler(("game.new",), run=new_game),
    Handler(("game.list",), read_only=True, run=list_games),
    Handler(("game.creators",), who=Who.MANAGERS, run=creators),
)
