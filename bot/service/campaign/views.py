"""What a campaign shows: ``/campaign status`` (or the server's campaigns), ``/campaign log``."""

from __future__ import annotations

import logging

from bot.service.campaign.adopt import orphans
from bot.service.campaign.aftermath import aftermath_log_text, owed_lines
from bot.service.campaign.book import book_lines, book_log_text, created_log_text, due_lines
from bot.service.campaign.follow import GameUnreadable, unsettled
from bot.service.campaign.ledger import CAMPAIGN_ARG, language_of, load_campaign
from bot.service.campaign.report import other_event_text
from bot.service.errors import ServiceError
from bot.service.handlers import Call
from bot.service.replies import Reply, TextReply, channel_label
from bot.service.stored.seat_names import seat_names
from db.errors import StoreError
from db.models import GameRecord
from rules.campaign.aftermath_fold import AFTERMATH_EVENTS
from rules.campaign.book import CampaignBook, CampaignDue, CampaignOverdue
from rules.campaign.state import (
    CAMPAIGN_KIND,
    CampaignCreated,
    CampaignEvent,
    CampaignGame,
    CampaignInvite,
    CampaignJoined,
    CampaignJoinRequest,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
    CampaignState,
    GameEntry,
    event_of,
    standings,
)
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.words import in_language

log = logging.getLogger(__name__)

#: A campaign's log shows at most this many events at once.
MAX_LOG_LINES = 50
#: ``/campaign status`` elsewhere lists at most this many of the server's campaigns.
MAX_LISTED = 20


async def campaign_status(call: Call) -> Reply:
    """``/campaign status``: the campaign's sides, games, results and standings (in
    another channel: the server's campaigns)."""
    request, services = call.request, call.services
    in_guild = request.guild_id is not None
    try:
        record, state = await load_campaign(services, request.channel_id)
    except ServiceError:
        return await _listing(call)
    # Read-only: what a stopped process left is said, not written; a game the store refuses
    # is shown as the campaign holds it, flagged on its own line.
    skipped: list[GameUnreadable] = []
    language = language_of(record)
    reply = TextReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.lines_title = "discord.embed.campaign"
    reply.names = await seat_names(services.store, record.channel_id)
    reply.lines = status_lines(state, language, in_guild)
    reply.notices.extend(await pending_notices(call, record, state, skipped))
    reply.lines.extend(unreadable.localized(language) for unreadable in skipped)
    return reply


async def pending_notices(
    call: Call,
    record: GameRecord,
    state: CampaignState,
    skipped: list[GameUnreadable] | None = None,
) -> list[Outcome]:
    """What a stopped process left for the campaign to write, said, not written (status is
    read-only): a game created but not listed yet (the campaign's timer or next
    ``/campaign game`` lists it), a game's end not followed yet (its next write follows)."""
    notices = [
        Outcome.of("bot.campaign.pending_link", number=claim.number, scenario=claim.scenario)
        for claim in await orphans(call.services, record, state)
    ]
    notices += [
        Outcome.of(
            "bot.campaign.pending_reversal" if late.reversal else "bot.campaign.pending_entry",
            number=late.number,
        )
        for late in await unsettled(call.services, record, state, skipped)
    ]
    return notices


def signed_difference(value: int) -> str:
    """A points difference as standings print it: ``+3``, ``+0``, ``−1`` (the minus sign)."""
    return f"+{value}" if value >= 0 else f"\u2212{-value}"


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
    for kind, pending in (("request", state.requests), ("invite", state.invitations)):
        lines.extend(
            translate(
                f"bot.campaign.pending_{kind}",
                language,
                user=f"<@{user}>",
                side=state.sides.get(side, side),
            )
            for user, side in pending.items()
        )
    lines.append(translate("bot.campaign.games", language))
    if not state.games:
        lines.append(translate("bot.campaign.no_games", language))
    lines.extend(game_line(state, entry, language, in_guild) for entry in state.games)
    lines.extend(owed_lines(state, language))
    lines.extend(due_lines(state, language))
    lines.extend(book_lines(state, language))
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
                difference=signed_difference(line.difference),
            )
        )
    return lines


def _outcome(state: CampaignState, result: CampaignResult, language: str) -> str:
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
        f"{in_language(state.sides.get(side, side), language)} {value}"
        for side, value in result.scores.items()
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
    language = language_of(record)
    reply = TextReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.lines_title = "discord.embed.campaign"
    reply.names = await seat_names(services.store, record.channel_id)
    in_guild = request.guild_id is not None
    for event in events:
        data = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if isinstance(data, dict):
            text = log_text(state, event_of(data), language, in_guild)
        else:  # a free roll in the campaign's channel: an event its head hash covers too
            text = other_event_text(state, event, language)
        reply.lines.append(f"#{event.seq} {text}")
    return reply


def log_text(state: CampaignState, event: CampaignEvent, language: str, in_guild: bool) -> str:
    """One campaign event in words."""
    if isinstance(event, AFTERMATH_EVENTS):
        return aftermath_log_text(state, event, language)
    if isinstance(event, CampaignCreated):
        if event.book is not None:
            return created_log_text(event.name, event.ruleset, event.book, language)
        return translate(
            "bot.campaign.log.created", language, name=event.name, ruleset=event.ruleset
        )
    if isinstance(event, CampaignJoined | CampaignJoinRequest | CampaignInvite):
        side = state.sides.get(event.side, event.side)
        approver = None if isinstance(event, CampaignJoinRequest) else event.by
        if isinstance(event, CampaignJoined):
            key = "joined" if approver is None else "approved"
        else:
            key = "join_request" if isinstance(event, CampaignJoinRequest) else "invite"
        return translate(
            f"bot.campaign.log.{key}",
            language,
            user=f"<@{event.user}>",
            side=side,
            by=f"<@{approver}>",
        )
    if isinstance(event, CampaignGame):
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
    if isinstance(event, CampaignResult):
        return translate(
            "bot.campaign.log.result",
            language,
            number=event.number,
            outcome=_outcome(state, event, language),
            hash=event.final_hash[:12],
        )
    if isinstance(event, CampaignRoster):
        return translate(
            "bot.campaign.log.roster",
            language,
            side=state.sides.get(event.side, event.side),
            source=event.source,
            n=len(event.roster.entries),
        )
    if isinstance(event, CampaignReversal):
        return translate(
            "bot.campaign.log.reversal", language, number=event.number, reason=event.reason
        )
    if isinstance(event, CampaignBook | CampaignDue | CampaignOverdue):
        return book_log_text(state, event, language)
    return translate("bot.campaign.log.ended", language)
