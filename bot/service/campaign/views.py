"""What a campaign shows: ``/campaign status`` (or the server's campaigns), ``/campaign log``."""

from __future__ import annotations

import logging

from bot.service.campaign.adopt import orphans
from bot.service.campaign.follow import GameUnreadable, unsettled
from bot.service.campaign.ledger import CAMPAIGN_ARG, language_of, load_campaign
from bot.service.campaign.report import other_event_text
from bot.service.errors import ServiceError
from bot.service.handlers import Call
from bot.service.replies import CampaignReply, Reply
from bot.service.stored.seat_names import seat_names
from db.errors import StoreError
from db.models import GameRecord
from rules.campaign.events import event_of
from rules.campaign.state import CampaignState
from rules.campaign.text import ListedCampaign, ListingPage, LogEntry, LogPage, StatusPage
from rules.core.resolution import Outcome

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
    notices = await pending_notices(call, record, state, skipped)
    reply = CampaignReply(
        language=language_of(record),
        ruleset=state.ruleset,
        head_hash=record.head_hash,
        page=StatusPage(state, in_guild, tuple(skipped)),
    )
    reply.names = await seat_names(services.store, record.channel_id)
    reply.notices.extend(notices)
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


async def _listing(call: Call) -> Reply:
    """The server's campaigns (``/campaign status`` outside a campaign's channel)."""
    request, services = call.request, call.services
    language = services.known(await services.game_language(request.channel_id), request.locale)
    found = [g for g in await services.store.list_games(request.guild_id) if g.is_campaign]
    listed: list[ListedCampaign] = []
    for summary in found[:MAX_LISTED]:
        try:
            _, state = await load_campaign(services, summary.channel_id)
        except (ServiceError, StoreError, ValueError):
            log.warning("campaign list: %s cannot be read", summary.channel_id, exc_info=True)
            continue
        listed.append(
            ListedCampaign(
                summary.channel_id, state.name, state.ruleset, len(state.games), state.ended
            )
        )
    page = ListingPage(
        tuple(listed), request.guild_id is not None, unread=len(found[:MAX_LISTED]) - len(listed)
    )
    return CampaignReply(language=language, page=page)


async def campaign_log(call: Call) -> Reply:
    """``/campaign log [count]``: the campaign's latest events, each with who and what."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    count = min(int(request.options.get("count", 20)), MAX_LOG_LINES)
    events = await services.store.events(
        record.channel_id, after_seq=max(0, record.version - count), limit=count
    )
    language = language_of(record)
    entries: list[LogEntry] = []
    for event in events:
        data = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if isinstance(data, dict):
            entries.append(LogEntry(event.seq, event_of(data)))
        else:  # a free roll in the campaign's channel: an event its head hash covers too
            entries.append(LogEntry(event.seq, other=other_event_text(state, event, language)))
    reply = CampaignReply(
        language=language,
        ruleset=state.ruleset,
        head_hash=record.head_hash,
        page=LogPage(state, tuple(entries), request.guild_id is not None),
    )
    reply.names = await seat_names(services.store, record.channel_id)
    return reply
