"""The campaign commands that write its log: ``/campaign new``, ``game``, ``end`` (``join``
and ``invite``: `bot.service.campaign.seats`).

``/campaign game`` starts a game in another channel: its first event carries the campaign
(``origin``), a sealed record of the game links it (`bot.service.stored.campaign`), the
campaign's players are seated and the campaign's referee referees it.
"""

from __future__ import annotations

from typing import Any

from bot.service.campaign.adopt import Claim, adopt_orphan, claim_number, drop_claim
from bot.service.campaign.aftermath import refuse_unconfirmed, refuse_while_owed
from bot.service.campaign.book import book_option, check_book, scenario_wanted
from bot.service.campaign.calendar import due_wanted, set_due
from bot.service.campaign.follow import catch_up, linked_to, load_linked
from bot.service.campaign.ledger import (
    CAMPAIGN_ARG,
    ORIGIN_ARG,
    language_of,
    load_campaign,
    log_requested,
    referee_only,
)
from bot.service.campaign.linking import created_earlier, game_interaction, log_link, remove_game
from bot.service.campaign.notables import next_game
from bot.service.campaign.rosters import log_rosters_set, muster_of, mustering
from bot.service.errors import ServiceError
from bot.service.handlers import Call, Services
from bot.service.replies import Reply
from bot.service.stored.archive import archive_if_ended
from bot.service.stored.campaign import (
    CampaignLink,
    link_game,
)
from bot.service.stored.seat_names import note_seat_name, seat_names
from db.errors import GameExists, GameNotFound, VersionConflict
from db.models import GameRecord
from rules.campaign.events import (
    MAX_NAME,
    CampaignBook,
    CampaignCreated,
    CampaignEnded,
    CampaignGame,
    Points,
    event_json,
)
from rules.campaign.state import CampaignState, apply, start
from rules.core.errors import IllegalAction, InvalidInput, RulesError, UnknownName
from rules.core.i18n import LANGUAGES
from rules.core.resolution import Outcome
from rules.core.ruleset import known_rulesets
from rules.core.words import joined
from rules.render import channel_label

# -- the commands ---------------------------------------------------------------------------


async def new_campaign(call: Call) -> Reply:
    """``/campaign new ruleset: name: [win: draw: loss: language:]``: a campaign in this
    channel, its creator the referee; its sides are those of the ruleset's bundled
    scenarios, its language its games' too."""
    request, services = call.request, call.services
    options = request.options
    # The channel first: one holding a game in play or a campaign is refused as taken (a
    # damaged one as damaged, by the store), before anything else is checked; an ended game
    # there is archived once everything is, as /game new does.
    try:
        existing = await services.store.load(request.channel_id)
    except GameNotFound:
        existing = None
    if existing is not None and (existing.is_campaign or existing.status != "ended"):
        raise ServiceError(
            "error.campaign.channel_taken",
            channel=channel_label(request.channel_id, request.guild_id is not None),
        )
    # An empty or unknown ruleset is refused with the known ones, never a silent default.
    typed = str(options.get("ruleset") or "").strip()
    if typed not in known_rulesets():
        raise UnknownName(
            "error.unknown_ruleset", name=typed[:40] or "—", known=", ".join(known_rulesets())
        )
    ruleset = services.ruleset(typed).key
    name = str(options.get("name") or "").strip()
    if not 0 < len(name) <= MAX_NAME:
        raise InvalidInput("error.campaign.bad_name", limit=MAX_NAME)
    points = Points(
        win=int(options.get("win", 3)),
        draw=int(options.get("draw", 1)),
        loss=int(options.get("loss", 0)),
    )
    rules = services.rules(ruleset)
    book = book_option(ruleset, options)
    scenarios = [step.scenario for step in book.scenarios] if book else rules.scenarios()
    document = await services.off_loop(rules.setup, scenarios[0] if scenarios else None, None)
    sides = dict(rules.sides(document))
    if book is not None:
        await check_book(call, book, sides)
    # The book travels in the created event: one commit makes the campaign and its book.
    created = CampaignCreated(
        ruleset=ruleset,
        name=name,
        points=points,
        sides=sides,
        referee=request.user_id,
        book=None if book is None else CampaignBook.of(book),
    )
    state = start(created)
    language = str(options.get("language") or services.known(request.locale))
    if language not in LANGUAGES:
        raise InvalidInput(
            "error.service.bad_language", language=language[:10], known=", ".join(LANGUAGES)
        )
    archived = await archive_if_ended(services.store, request.channel_id)
    try:
        record = await services.store.create_game(
            request.channel_id,
            guild_id=request.guild_id,
            ruleset=ruleset,
            language=language,
            document=state.to_json(),
            status="active",
            actor_id=request.user_id,
            interaction_id=request.interaction_id,
            referee_id=request.user_id,
            origin={CAMPAIGN_ARG: event_json(created)},
            kind="campaign",
        )
    except GameExists:
        raise ServiceError(
            "error.campaign.channel_taken",
            channel=channel_label(request.channel_id, request.guild_id is not None),
        ) from None
    await note_seat_name(services.store, request.channel_id, request.user_id, request.user_name, {})
    reply = Reply(language=record.language, ruleset=ruleset, head_hash=record.head_hash)
    if archived is not None:
        reply.notices.append(Outcome.of("bot.games.archived_previous", id=archived.id))
    reply.notices.append(
        Outcome.of("bot.campaign.created", name=name, ruleset=ruleset, sides=joined(sides.values()))
    )
    if book is not None:
        reply.notices.append(
            Outcome.of(
                "bot.campaign.book.opened",
                title=book.text(book.title, record.language),
                games=len(book.scenarios),
            )
        )
    return reply


async def link_new_game(call: Call) -> Reply:
    """``/campaign game scenario: channel: [leave:]`` (the referee): a game of the campaign
    in ``channel``, from a scenario of its ruleset mustered from the sides' rosters (a side
    without one gets the scenario's side as its roster first; ``leave`` keeps units
    behind), its players seated, its referee the campaign's; its first event names the
    campaign and the hash of the rosters it was mustered from."""
    request, services, store = call.request, call.services, call.store
    record, state = await load_campaign(services, request.channel_id)
    referee_only(call, state)
    if state.ended:  # nothing more can be logged: said before any game is mustered for it
        raise IllegalAction("error.campaign.ended", name=state.name)
    # A game a stopped process created but did not log is listed first (it took a number).
    record, state, adopted = await adopt_orphan(services, record, state)
    refuse_while_owed(state)
    in_guild = request.guild_id is not None
    target = request.options.get("channel")
    if not isinstance(target, int) or isinstance(target, bool) or target <= 0:
        raise InvalidInput("error.campaign.bad_channel")
    if target == request.channel_id:
        raise ServiceError("error.campaign.same_channel")
    rules = services.rules(state.ruleset)
    scenario = scenario_wanted(state, request.options)
    if scenario not in rules.scenarios():
        raise UnknownName(
            "error.unknown_scenario", name=scenario[:40], known=", ".join(rules.scenarios())
        )
    number = len(state.games) + 1
    mustered = await services.off_loop(
        mustering,
        muster_of(services, state),
        rules,
        state,
        scenario,
        number,
        str(request.options.get("leave") or ""),
        target,
    )
    document = mustered.document
    sides = dict(rules.sides(document))
    if set(sides) != set(state.sides):
        raise InvalidInput(
            "error.campaign.sides_differ",
            scenario=scenario,
            sides=joined(sides.values()),
            known=joined(state.sides.values()),
        )
    linked = CampaignGame(
        number=number,
        channel=target,
        scenario=scenario,
        rosters_hash=mustered.rosters_hash,
        left=mustered.left,
        fielded=mustered.entries,
    )
    planned = state
    for roster_set in mustered.rosters_set:
        planned = apply(planned, roster_set)
    apply(planned, linked)  # refused here, before anything is written
    by = due_wanted(state, request.options)
    # An earlier attempt of this command (run again after a conflict) may have made the
    # game already: it is listed, never made twice.
    game = await created_earlier(call, target)
    if game is not None:
        earlier = await linked_to(services, target)
        entry = None if earlier is None else state.game(earlier.number)
        if entry is not None and entry.channel == target:  # listed (adopted) meanwhile
            return _linked_reply(call, record, state, entry.number, target, scenario)
        if earlier != CampaignLink(record.channel_id, number):
            await remove_game(call, linked)
            raise ServiceError("error.service.conflict")
    else:
        try:
            existing = await store.load(target)
        except GameNotFound:
            existing = None
        if existing is not None and (existing.is_campaign or existing.status != "ended"):
            raise ServiceError(
                "error.campaign.channel_taken", channel=channel_label(target, in_guild)
            )
    # The number first (one command across processes makes game ``number``), then the
    # game (the store refuses a channel taken meanwhile), its link and its players, then
    # the campaign's event: a game the campaign lists always exists.
    await claim_number(
        services,
        record,
        Claim(number, target, scenario, request.interaction_id, mustered.entries),
    )
    try:
        # The rosters a side fights its first game with (from the scenario) are set first.
        record, state = await log_rosters_set(call, record, state, mustered.rosters_set)
        if game is None:
            game = await _create_linked(call, record, state, linked, document)
    except BaseException:
        if game is None:  # nothing made: the number is free again
            await drop_claim(services, record.channel_id, number)
        raise
    try:
        record, state, seq = await log_link(call, record, state, linked)
    except RulesError:  # refused on the campaign's new state: the game is gone again
        await drop_claim(services, record.channel_id, number)
        raise
    await drop_claim(services, record.channel_id, number)
    reply = _linked_reply(call, record, state, number, target, scenario, seq=seq)
    reply.head_hash = game.head_hash
    reply.notable += next_game(state, record, number, game, request.user_id)
    reply.notices[:0] = adopted
    mustered_notice = mustered.notice(state, reply.language)
    if mustered_notice is not None:
        reply.notices.append(mustered_notice)
    # The date it should be played by (``by:``, else the book's spacing), logged after it.
    due = await set_due(call, await store.load(record.channel_id), state, number, by)
    if due is not None:
        reply.notices.append(due)
    return reply


def _linked_reply(
    call: Call,
    record: GameRecord,
    state: CampaignState,
    number: int,
    target: int,
    scenario: str,
    *,
    seq: int | None = None,
) -> Reply:
    """The answer of ``/campaign game``: game ``number`` is listed, in ``target``."""
    in_guild = call.request.guild_id is not None
    reply = Reply(
        language=language_of(record),
        ruleset=state.ruleset,
        seq=record.version if seq is None else seq,
    )
    reply.notices.append(
        Outcome.of(
            "bot.campaign.linked",
            number=number,
            name=state.name,
            channel=channel_label(target, in_guild),
            scenario=scenario,
        )
    )
    return reply


async def _create_linked(
    call: Call, record: GameRecord, state: CampaignState, linked: CampaignGame, document: Any
) -> GameRecord:
    """Game ``linked.number`` in its channel: created with its origin, linked, seated."""
    request, store = call.request, call.store
    target, in_guild = linked.channel, request.guild_id is not None
    await archive_if_ended(store, target)
    origin: dict[str, Any] = {ORIGIN_ARG: {"channel": record.channel_id, "number": linked.number}}
    if linked.rosters_hash is not None:
        origin[ORIGIN_ARG]["rosters_hash"] = linked.rosters_hash
    try:
        game = await store.create_game(
            target,
            guild_id=request.guild_id,
            ruleset=state.ruleset,
            language=record.language,
            document=document,
            status="active",
            actor_id=request.user_id,
            interaction_id=game_interaction(call),
            referee_id=state.referee,
            origin=origin,
        )
    except GameExists:
        raise ServiceError(
            "error.campaign.channel_taken", channel=channel_label(target, in_guild)
        ) from None
    try:
        await link_game(store, target, CampaignLink(record.channel_id, linked.number))
        for side, users in state.players.items():
            for user in users:
                if user != state.referee:
                    await store.add_member(target, user, role="player", side=side)
        # The game's seats take the names the campaign's players took theirs under.
        for user, name in (await seat_names(store, record.channel_id)).items():
            await note_seat_name(store, target, user, name, {})
    except VersionConflict:
        await remove_game(call, linked)
        raise
    return game


async def end_campaign(call: Call) -> Reply:
    """``/campaign end`` (the referee): the campaign is over, every game settled. Refused
    while a game has no result, an aftermath awaits a side's confirmation, or a game whose
    result the campaign holds is in play again: the referee settles it first, since once
    ended the campaign takes no event."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    referee_only(call, state)
    record, state = await catch_up(services, record, state)
    apply(state, CampaignEnded())  # over already, or a game without a result: said first
    refuse_unconfirmed(state)
    await _refuse_a_game_in_play(services, state, record.channel_id, request.guild_id is not None)
    _, seq = await log_requested(call, record, state, CampaignEnded())
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    reply.notices.append(Outcome.of("bot.campaign.ended", name=state.name))
    return reply


async def _refuse_a_game_in_play(
    services: Services, state: CampaignState, campaign: int, in_guild: bool
) -> None:
    """Refuse to end the campaign while a game whose result it holds is in play again in
    its channel (reopened while its reversal could not be logged)."""
    for entry in state.games:
        if entry.result is None:
            continue
        try:
            game = await load_linked(services, entry.number, entry.channel, in_guild)
        except GameNotFound:  # archived: its end stands
            continue
        if game.status == "ended":
            continue
        if await linked_to(services, entry.channel) == CampaignLink(campaign, entry.number):
            raise ServiceError(
                "error.campaign.end_in_play",
                number=entry.number,
                name=state.name,
                channel=channel_label(entry.channel, in_guild),
            )
