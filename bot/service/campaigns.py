"""Campaigns: games linked in a campaign whose results make its standings.

A campaign lives in a channel of its own, as a record of the store's ``games`` whose kind
(its ``ruleset`` column) is ``campaign``: the store's hash chain, version guard, retried
interactions, export and ``db check`` hold for it as for a game, with no change to the
store. Its document is the campaign's state (`rules.core.campaign.CampaignState`), each
event of its log one campaign event (``args["campaign"]``); the state is only ever the
fold of the events (`rules.core.campaign.apply`), so the replay of the log gives it again.

``/campaign game`` starts a game in another channel: its first event carries the campaign
(``origin``), a sealed record of the game links it (`bot.service.stored.campaign`), the
campaign's players are seated and the campaign's referee referees it. After any command
that writes to a linked game, :func:`follow` brings the campaign in line with the game:
an ended game whose result the campaign lacks enters it (``campaign.result``: the result,
the hash of the game's final event); a game no longer ended (``/game undo`` of its end)
has its result reversed (``campaign.reversal``). Each of those events carries an id made
from the campaign, the game and the final hash, so it is committed once however many
processes try; ``/campaign status`` catches up a game a stopped process left behind.
"""

from __future__ import annotations

import logging

from bot.service.errors import ServiceError
from bot.service.events import ACTOR_NAME_ARG
from bot.service.handlers import Call, Handler, Services
from bot.service.lifecycle import archive_if_ended, channel_label
from bot.service.replies import Reply, TextReply
from bot.service.stored.campaign import (
    CAMPAIGN_LINK,
    LINK_KEY,
    CampaignLink,
    campaign_link_of,
    link_game,
)
from db.errors import GameExists, GameNotFound, StoreError, VersionConflict
from db.models import GameRecord, NewEvent, Scope
from rules.core.campaign import (
    CAMPAIGN_KIND,
    MAX_NAME,
    CampaignEvent,
    CampaignState,
    Created,
    Ended,
    GameEntry,
    Joined,
    Linked,
    Points,
    ResultEntered,
    ResultReversed,
    apply,
    event_json,
    event_of,
    standings,
    start,
)
from rules.core.errors import InvalidInput, UnknownName
from rules.core.i18n import LANGUAGES, translate
from rules.core.resolution import Outcome
from rules.core.ruleset import KNOWN_RULESETS
from rules.core.score import GameResult

log = logging.getLogger(__name__)

#: The key of a campaign event in its store event's arguments.
CAMPAIGN_ARG = "campaign"
#: The key, in a linked game's first event, naming its campaign and its number there.
ORIGIN_ARG = "campaign"
#: Runs of a campaign's catching up that lost a race with another writer.
FOLLOW_ATTEMPTS = 5
#: A campaign's log shows at most this many events at once.
MAX_LOG_LINES = 50
#: ``/campaign status`` elsewhere lists at most this many of the server's campaigns.
MAX_LISTED = 20


# -- reading and writing the campaign's log -------------------------------------------------


async def load_campaign(services: Services, channel_id: int) -> tuple[GameRecord, CampaignState]:
    """The channel's campaign: its record and state (a refusal when there is none)."""
    try:
        record = await services.store.load(channel_id)
    except GameNotFound:
        raise ServiceError("error.campaign.none") from None
    if record.ruleset != CAMPAIGN_KIND:
        raise ServiceError("error.campaign.none")
    return record, CampaignState.from_json(record.document)


async def _log_event(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    event: CampaignEvent,
    *,
    actor_id: int | None,
    actor_name: str = "",
    interaction_id: str | None,
) -> tuple[CampaignState, int]:
    """Apply ``event`` (refused, nothing written, when it may not happen) and append it to
    the campaign's log with the new state, guarded by the version read; its seq."""
    after = apply(state, event)
    args: dict[str, object] = {CAMPAIGN_ARG: event_json(event)}
    if actor_name:
        args[ACTOR_NAME_ARG] = actor_name[:80]
    committed = await services.store.commit(
        record.channel_id,
        record.version,
        after.to_json(),
        NewEvent(verb=event.type, args=args, actor_id=actor_id, interaction_id=interaction_id),
    )
    return after, committed.event.seq


def _language(record: GameRecord) -> str:
    return record.language


def _referee_only(call: Call, state: CampaignState) -> None:
    if call.request.user_id != state.referee:
        raise ServiceError("error.campaign.referee_only")


# -- the commands ---------------------------------------------------------------------------


async def new_campaign(call: Call) -> Reply:
    """``/campaign new ruleset: name: [win: draw: loss: language:]``: a campaign in this
    channel, its creator the referee; its sides are those of the ruleset's bundled
    scenarios, its language its games' too."""
    request, services = call.request, call.services
    options = request.options
    # The channel first: one holding a game or a campaign is refused as taken (a damaged
    # one as damaged, by the store), before anything else is checked.
    try:
        await services.store.load(request.channel_id)
    except GameNotFound:
        pass
    else:
        raise ServiceError(
            "error.campaign.channel_taken",
            channel=channel_label(request.channel_id, request.guild_id is not None),
        )
    ruleset = services.ruleset(str(options.get("ruleset") or KNOWN_RULESETS[0])).key
    name = str(options.get("name") or "").strip()
    if not 0 < len(name) <= MAX_NAME:
        raise InvalidInput("error.campaign.bad_name", limit=MAX_NAME)
    points = Points(
        win=int(options.get("win", 3)),
        draw=int(options.get("draw", 1)),
        loss=int(options.get("loss", 0)),
    )
    play = services.play(ruleset)
    scenarios = play.scenarios()
    document = await services.off_loop(play.new_game, scenarios[0] if scenarios else None, None)
    sides = dict(play.sides(document))
    created = Created(
        ruleset=ruleset, name=name, points=points, sides=sides, referee=request.user_id
    )
    state = start(created)
    language = str(options.get("language") or services.known(request.locale))
    if language not in LANGUAGES:
        raise InvalidInput(
            "error.service.bad_language", language=language[:10], known=", ".join(LANGUAGES)
        )
    try:
        record = await services.store.create_game(
            request.channel_id,
            guild_id=request.guild_id,
            ruleset=CAMPAIGN_KIND,
            language=language,
            document=state.to_json(),
            status="active",
            actor_id=request.user_id,
            interaction_id=request.interaction_id,
            referee_id=request.user_id,
            origin={CAMPAIGN_ARG: event_json(created)},
        )
    except GameExists:
        raise ServiceError(
            "error.campaign.channel_taken",
            channel=channel_label(request.channel_id, request.guild_id is not None),
        ) from None
    reply = Reply(language=record.language, ruleset=ruleset, head_hash=record.head_hash)
    reply.notices.append(
        Outcome.of(
            "bot.campaign.created", name=name, ruleset=ruleset, sides=", ".join(sides.values())
        )
    )
    return reply


async def join_campaign(call: Call) -> Reply:
    """``/campaign join side:``: play a side of this channel's campaign."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    wanted = str(request.options.get("side") or "").strip()
    side = _side_named(state, wanted)
    _, seq = await _log_event(
        services,
        record,
        state,
        Joined(side=side, user=request.user_id),
        actor_id=request.user_id,
        actor_name=request.user_name,
        interaction_id=request.interaction_id,
    )
    reply = Reply(language=_language(record), ruleset=state.ruleset, seq=seq)
    reply.notices.append(Outcome.of("bot.campaign.joined", side=state.sides[side], name=state.name))
    return reply


def _side_named(state: CampaignState, wanted: str) -> str:
    """A side by its id or its name (any case)."""
    for side, label in state.sides.items():
        if wanted.casefold() in (side.casefold(), label.casefold()):
            return side
    raise UnknownName(
        "error.campaign.unknown_side", side=wanted[:40], known=", ".join(state.sides.values())
    )


async def link_new_game(call: Call) -> Reply:
    """``/campaign game scenario: channel:`` (the referee): a game of the campaign in
    ``channel``, from a scenario of its ruleset, its players seated, its referee the
    campaign's; its first event names the campaign."""
    request, services, store = call.request, call.services, call.store
    record, state = await load_campaign(services, request.channel_id)
    _referee_only(call, state)
    in_guild = request.guild_id is not None
    target = request.options.get("channel")
    if not isinstance(target, int) or isinstance(target, bool) or target <= 0:
        raise InvalidInput("error.campaign.bad_channel")
    if target == request.channel_id:
        raise ServiceError("error.campaign.same_channel")
    play = services.play(state.ruleset)
    scenario = str(request.options.get("scenario") or "")
    if scenario not in play.scenarios():
        raise UnknownName(
            "error.unknown_scenario", name=scenario[:40], known=", ".join(play.scenarios())
        )
    document = await services.off_loop(play.new_game, scenario, None)
    sides = dict(play.sides(document))
    if set(sides) != set(state.sides):
        raise InvalidInput(
            "error.campaign.sides_differ",
            scenario=scenario,
            sides=", ".join(sides.values()),
            known=", ".join(state.sides.values()),
        )
    number = len(state.games) + 1
    linked = Linked(number=number, channel=target, scenario=scenario)
    apply(state, linked)  # refused here, before anything is written
    try:
        existing = await store.load(target)
    except GameNotFound:
        existing = None
    if existing is not None and (existing.ruleset == CAMPAIGN_KIND or existing.status != "ended"):
        raise ServiceError("error.campaign.channel_taken", channel=channel_label(target, in_guild))
    # The game first (the store refuses a channel taken meanwhile), then its link and its
    # players, then the campaign's event: a game the campaign lists always exists.
    await archive_if_ended(store, target)
    origin = {ORIGIN_ARG: {"channel": record.channel_id, "number": number}}
    try:
        game = await store.create_game(
            target,
            guild_id=request.guild_id,
            ruleset=state.ruleset,
            language=record.language,
            document=document,
            status="active",
            actor_id=request.user_id,
            interaction_id=None
            if request.interaction_id is None
            else f"{request.interaction_id}/game",
            referee_id=state.referee,
            origin=origin,
        )
    except GameExists:
        raise ServiceError(
            "error.campaign.channel_taken", channel=channel_label(target, in_guild)
        ) from None
    await link_game(store, target, CampaignLink(record.channel_id, number))
    for side, users in state.players.items():
        for user in users:
            if user != state.referee:
                await store.add_member(target, user, role="player", side=side)
    _, seq = await _log_event(
        services,
        record,
        state,
        linked,
        actor_id=request.user_id,
        actor_name=request.user_name,
        interaction_id=request.interaction_id,
    )
    reply = Reply(language=_language(record), ruleset=state.ruleset, seq=seq)
    reply.head_hash = game.head_hash
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


async def end_campaign(call: Call) -> Reply:
    """``/campaign end`` (the referee): the campaign is over, every game settled."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    _referee_only(call, state)
    record, state = await catch_up(services, record, state)
    _, seq = await _log_event(
        services,
        record,
        state,
        Ended(),
        actor_id=request.user_id,
        actor_name=request.user_name,
        interaction_id=request.interaction_id,
    )
    reply = Reply(language=_language(record), ruleset=state.ruleset, seq=seq)
    reply.notices.append(Outcome.of("bot.campaign.ended", name=state.name))
    return reply


async def campaign_status(call: Call) -> Reply:
    """``/campaign status``: the campaign's sides, games, results and standings (in
    another channel: the server's campaigns)."""
    request, services = call.request, call.services
    in_guild = request.guild_id is not None
    try:
        record, state = await load_campaign(services, request.channel_id)
    except ServiceError:
        return await _listing(call)
    record, state = await catch_up(services, record, state)
    language = _language(record)
    reply = TextReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.lines_title = "discord.embed.campaign"
    reply.lines = status_lines(state, language, in_guild)
    return reply


def status_lines(state: CampaignState, language: str, in_guild: bool) -> list[str]:
    """The campaign as lines: its title, sides and players, games, standings."""
    points = state.points
    lines = [
        translate(
            "bot.campaign.title",
            language,
            name=state.name,
            ruleset=state.ruleset,
            win=points.win,
            draw=points.draw,
            loss=points.loss,
        )
    ]
    if state.ended:
        lines.append(translate("bot.campaign.over", language))
    nobody = translate("bot.campaign.nobody", language)
    for side, label in state.sides.items():
        players = ", ".join(f"<@{user}>" for user in state.players.get(side, ())) or nobody
        lines.append(translate("bot.campaign.side", language, side=label, players=players))
    lines.append(translate("bot.campaign.games", language))
    if not state.games:
        lines.append(translate("bot.campaign.no_games", language))
    lines.extend(game_line(state, entry, language, in_guild) for entry in state.games)
    lines.append(translate("bot.campaign.standings", language))
    for rank, line in enumerate(standings(state), start=1):
        lines.append(
            translate(
                "bot.campaign.standing",
                language,
                rank=rank,
                side=state.sides[line.side],
                played=line.played,
                wins=line.wins,
                draws=line.draws,
                losses=line.losses,
                points=line.points,
                difference=f"{line.difference:+d}",
            )
        )
    return lines


def _outcome(state: CampaignState, result: ResultEntered, language: str) -> str:
    if result.winner is None:
        return translate("bot.campaign.draw", language)
    return translate("bot.campaign.won_by", language, side=state.sides[result.winner])


def game_line(state: CampaignState, entry: GameEntry, language: str, in_guild: bool) -> str:
    """One linked game: where, from what, and its result (its final hash) if it has one."""
    channel = channel_label(entry.channel, in_guild)
    result = entry.result
    if result is None:
        return translate(
            "bot.campaign.game_playing",
            language,
            number=entry.number,
            channel=channel,
            scenario=entry.scenario,
        )
    scores = " – ".join(
        f"{state.sides.get(side, side)} {value}" for side, value in result.scores.items()
    )
    return translate(
        "bot.campaign.game_result",
        language,
        number=entry.number,
        channel=channel,
        scenario=entry.scenario,
        outcome=_outcome(state, result, language),
        scores=scores,
        hash=result.final_hash[:12],
    )


async def _listing(call: Call) -> Reply:
    """The server's campaigns (``/campaign status`` outside a campaign's channel)."""
    request, services = call.request, call.services
    in_guild = request.guild_id is not None
    language = services.known(await services.game_language(request.channel_id), request.locale)
    reply = TextReply(language=language)
    reply.lines_title = "discord.embed.campaign"
    found = [
        g for g in await services.store.list_games(request.guild_id) if g.ruleset == CAMPAIGN_KIND
    ]
    if not found:
        reply.lines.append(translate("bot.campaign.none", language))
        return reply
    reply.lines.append(translate("bot.campaign.here", language))
    for summary in found[:MAX_LISTED]:
        try:
            _, state = await load_campaign(services, summary.channel_id)
        except (ServiceError, StoreError, ValueError):
            log.warning("campaign list: %s cannot be read", summary.channel_id, exc_info=True)
            continue
        over = translate("bot.campaign.listed_over", language) if state.ended else ""
        reply.lines.append(
            translate(
                "bot.campaign.listed",
                language,
                channel=channel_label(summary.channel_id, in_guild),
                name=state.name,
                ruleset=state.ruleset,
                games=len(state.games),
                over=over,
            )
        )
    return reply


async def campaign_log(call: Call) -> Reply:
    """``/campaign log [count]``: the campaign's latest events, each with who and what."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    count = min(int(request.options.get("count", 20)), MAX_LOG_LINES)
    events = await services.store.events(
        record.channel_id, after_seq=max(0, record.version - count), limit=count
    )
    language = _language(record)
    reply = TextReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.lines_title = "discord.embed.campaign"
    in_guild = request.guild_id is not None
    for event in events:
        data = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if not isinstance(data, dict):
            continue
        reply.lines.append(f"#{event.seq} " + log_text(state, event_of(data), language, in_guild))
    return reply


def log_text(state: CampaignState, event: CampaignEvent, language: str, in_guild: bool) -> str:
    """One campaign event in words."""
    if isinstance(event, Created):
        return translate(
            "bot.campaign.log.created", language, name=event.name, ruleset=event.ruleset
        )
    if isinstance(event, Joined):
        side = state.sides.get(event.side, event.side)
        return translate("bot.campaign.log.joined", language, user=f"<@{event.user}>", side=side)
    if isinstance(event, Linked):
        number = next(
            (
                e.number
                for e in state.games
                if e.channel == event.channel and e.scenario == event.scenario
            ),
            "?",
        )
        channel = channel_label(event.channel, in_guild)
        return translate(
            "bot.campaign.log.game",
            language,
            number=number,
            channel=channel,
            scenario=event.scenario,
        )
    if isinstance(event, ResultEntered):
        return translate(
            "bot.campaign.log.result",
            language,
            number=event.number,
            outcome=_outcome(state, event, language),
            hash=event.final_hash[:12],
        )
    if isinstance(event, ResultReversed):
        return translate(
            "bot.campaign.log.reversal", language, number=event.number, reason=event.reason
        )
    return translate("bot.campaign.log.ended", language)


# -- a linked game's result entering its campaign -------------------------------------------


async def follow(services: Services, link: CampaignLink, game_channel: int) -> list[Outcome]:
    """Bring the campaign in line with its game ``link`` after a command wrote to it: the
    notices to show in the game's channel (the result entered, or reversed). Never
    raises for the campaign's sake: the game's command stands; a failure is logged and the
    next command or ``/campaign status`` catches up."""
    try:
        for attempt in range(1, FOLLOW_ATTEMPTS + 1):
            try:
                record, state = await load_campaign(services, link.campaign)
                _, _, notices = await _settle(services, record, state, link.number, game_channel)
                return notices
            except VersionConflict:
                if attempt == FOLLOW_ATTEMPTS:
                    raise
    except Exception:  # the campaign follows later; the game's command is answered
        log.exception("campaign %s: game %s not followed", link.campaign, game_channel)
    return []


async def catch_up(
    services: Services, record: GameRecord, state: CampaignState
) -> tuple[GameRecord, CampaignState]:
    """Settle every linked game whose result the campaign lacks (a process that stopped
    between a game's end and its campaign's event)."""
    for entry in state.games:
        if entry.result is None:
            record, state, _ = await _settle(services, record, state, entry.number, entry.channel)
    return record, state


async def _settle(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    number: int,
    channel: int,
    *,
    linked: bool = False,
) -> tuple[GameRecord, CampaignState, list[Outcome]]:
    """Compare game ``number`` with what the campaign holds of it and log the difference:
    the reversal of a result that no longer holds, the entry of one that does. ``linked``:
    the caller read the game's link already (else it is read, the channel may hold
    another game by now)."""
    entry = state.game(number)
    if entry is None or entry.channel != channel or state.ended:
        return record, state, []
    try:
        game = await services.store.load(channel)
    except GameNotFound:  # archived: what the campaign holds of it stands
        return record, state, []
    if not linked and await linked_to(services, channel) != CampaignLink(record.channel_id, number):
        return record, state, []
    notices: list[Outcome] = []
    ended = game.status == "ended"
    held = entry.result
    if held is not None and (not ended or held.final_hash != game.head_hash):
        reversal = ResultReversed(number=number, final_hash=held.final_hash)
        record, state = await _append(
            services, record, state, reversal, f"{number}:reversal:{held.final_hash}"
        )
        notices.append(Outcome.of("bot.campaign.reversed", name=state.name, number=number))
        held = None
    if held is None and ended and game.head_hash is not None:
        result = await _result_of(services, game)
        if result is not None:
            entered = ResultEntered(
                number=number,
                winner=result.winner,
                scores=dict(result.score.totals),
                ending=str(result.ending.kind),
                final_hash=game.head_hash,
            )
            record, state = await _append(
                services, record, state, entered, f"{number}:result:{game.head_hash}"
            )
            notices.append(Outcome.of("bot.campaign.entered", name=state.name, number=number))
    return record, state, notices


async def linked_to(services: Services, channel: int) -> CampaignLink | None:
    """The campaign the channel's game belongs to, read from its link record."""
    found = await services.store.feature_get(CAMPAIGN_LINK, Scope.of_game(channel), LINK_KEY)
    return None if found is None else campaign_link_of((found,))


async def _append(
    services: Services, record: GameRecord, state: CampaignState, event: CampaignEvent, what: str
) -> tuple[GameRecord, CampaignState]:
    """Log an event the campaign writes itself, under an id made of the campaign and
    ``what``: committed once, however many processes try."""
    state, _ = await _log_event(
        services,
        record,
        state,
        event,
        actor_id=None,
        interaction_id=f"campaign:{record.channel_id}:{what}",
    )
    return await services.store.load(record.channel_id), state


async def _result_of(services: Services, game: GameRecord) -> GameResult | None:
    """The ended game's result, as its state holds it (the one its result event logged)."""
    play = services.play(game.ruleset)

    def computed() -> GameResult | None:
        return play.result(play.load_document(game.document))

    return await services.on_workers(game.channel_id, computed)


HANDLERS = (
    Handler(("campaign.new",), run=new_campaign),
    Handler(("campaign.join",), run=join_campaign),
    Handler(("campaign.status",), run=campaign_status),
    Handler(("campaign.log",), read_only=True, run=campaign_log),
    Handler(("campaign.game",), run=link_new_game),
    Handler(("campaign.end",), run=end_campaign),
)

__all__ = ["HANDLERS", "follow", "load_campaign", "status_lines"]
