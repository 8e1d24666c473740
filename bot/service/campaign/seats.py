"""Who plays a campaign's sides: ``/campaign join`` and ``/campaign invite``, by consent.

Nobody but the campaign's referee (its creator) takes a side alone, even one without
players yet: a member asks (``campaign.join_request``), and the referee or one of the
side's players approves with ``/campaign invite user:`` (a ``campaign.joined`` naming who
approved); ``/campaign invite`` of a member who asked nothing invites them
(``campaign.invite``), and their ``/campaign join`` of that side is then immediate. Playing
a side is what lets a member roll, confirm and dispute its aftermath, so nobody takes a
side the referee or its players did not accept.

A player who joins is seated at once in the campaign's linked games still in play (as
``/campaign game`` seats the players it finds): the seat is written to each game's members,
idempotently, after the campaign's event.
"""

from __future__ import annotations

from bot.service.campaign.ledger import language_of, load_campaign, log_requested, side_named
from bot.service.errors import ServiceError
from bot.service.handlers import Call, Services
from bot.service.replies import Reply
from bot.service.requests import int_option
from bot.service.stored.seat_names import note_seat_name
from rules.campaign.events import CampaignInvite, CampaignJoined, CampaignJoinRequest
from rules.campaign.state import CampaignState
from rules.core.resolution import Outcome


async def seat_in_games(
    services: Services, state: CampaignState, side: str, user: int, name: str = ""
) -> None:
    """Seat ``user`` on ``side`` in the campaign's linked games still in play (the referee
    referees them already), under their display name ``name`` when known."""
    if user == state.referee:
        return
    for entry in state.games:
        if entry.result is None:
            await services.store.add_member(entry.channel, user, role="player", side=side)
            await note_seat_name(services.store, entry.channel, user, name, {})


async def join_campaign(call: Call) -> Reply:
    """``/campaign join side:``: play a side of this channel's campaign (the referee, or a
    member invited to it); else ask to."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    side = side_named(state, str(request.options.get("side") or "").strip())
    user = request.user_id
    consented = user == state.referee or state.invitations.get(user) == side
    language = language_of(record)
    if not consented:
        _, seq = await log_requested(call, record, state, CampaignJoinRequest(side=side, user=user))
        reply = Reply(language=language, ruleset=state.ruleset, seq=seq)
        reply.notices.append(Outcome.of("bot.campaign.join_requested", side=state.sides[side]))
        return reply
    after, seq = await log_requested(call, record, state, CampaignJoined(side=side, user=user))
    await note_seat_name(services.store, record.channel_id, user, request.user_name, {})
    await seat_in_games(services, after, side, user, request.user_name)
    reply = Reply(language=language, ruleset=state.ruleset, seq=seq)
    reply.notices.append(Outcome.of("bot.campaign.joined", side=state.sides[side], name=state.name))
    return reply


async def invite_to_campaign(call: Call) -> Reply:
    """``/campaign invite user: [side:]`` (the referee or a side's player): approve the
    member's request to play the side, or invite them to it."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    user = int_option(request.options, "user", 0, 1, 2**63 - 1)
    asker_side = state.side_of(request.user_id)
    wanted = str(request.options.get("side") or "").strip()
    if wanted:
        side = side_named(state, wanted)
    else:
        side = state.requests.get(user) or asker_side or ""
        if not side:
            raise ServiceError("error.campaign.invite_side")
    if request.user_id != state.referee and asker_side != side:
        raise ServiceError("error.campaign.not_your_side", side=state.sides[side])
    language = language_of(record)
    mention = f"<@{user}>"
    if state.requests.get(user) == side:
        joined = CampaignJoined(side=side, user=user, by=request.user_id)
        after, seq = await log_requested(call, record, state, joined)
        await seat_in_games(services, after, side, user)
        reply = Reply(language=language, ruleset=state.ruleset, seq=seq)
        reply.notices.append(
            Outcome.of("bot.campaign.approved", user=mention, side=state.sides[side])
        )
        return reply
    invited = CampaignInvite(side=side, user=user, by=request.user_id)
    _, seq = await log_requested(call, record, state, invited)
    reply = Reply(language=language, ruleset=state.ruleset, seq=seq)
    reply.notices.append(Outcome.of("bot.campaign.invited", user=mention, side=state.sides[side]))
    return reply
