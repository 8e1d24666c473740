"""A linked game's end stands once its campaign has built on its result.

While nothing rests on a linked game's result, ``/game undo`` of its end reopens the game and
the campaign reverses the result with a logged event (`bot.service.campaign.follow`). Once
the campaign has built on it, a reversal could no longer be logged cleanly, and the game
would be in play again while the campaign still held a result whose final hash is no longer
the game's head (found by the campaign fuzzer, and by a referee).
So reopening is refused, before anything is written, when

* the campaign is over (its log takes no event);
* an aftermath was rolled on the result (its dice, confirmations and adjustments rest on the
  game's losses);
* the campaign's rules would refuse the reversal (its losses were settled in the rosters
  since: a roster set or corrected over them).

The guard (:func:`refuse_reopening`) runs for every command that declares it may take the
game back before its end (``reopens``: undo, take-back, rewind, re-roll), whatever feature
declares it; the referee corrects the campaign with ``/campaign adjust`` instead. A
reopening it lets through holds the game's claim until the campaign has followed it
(`bot.service.campaign.reopening`: no campaign event building on the game lands meanwhile).
"""

from __future__ import annotations

from bot.service.campaign.ledger import load_campaign
from bot.service.campaign.reopening import (
    built_on,
    claim_reopening,
    release_reopening,
    reopener,
)
from bot.service.errors import ServiceError
from bot.service.handlers import GameCall, GameHandler
from rules.campaign.state import CampaignState


async def refuse_reopening(call: GameCall, handler: GameHandler) -> None:
    """Refuse to take an ended linked game back before its end when its campaign is over
    or has built on its result (a campaign that is gone or unreadable leaves the game
    alone: the game's command stands). The game's claim is taken before the campaign is
    read, and kept only by a reopening let through (the follower drops it)."""
    link = call.context.campaign
    if not handler.reopens or link is None or call.record.status != "ended":
        return
    store, by = call.services.store, reopener(call.request)
    await claim_reopening(store, link.campaign, link.number, by)
    try:
        _, state = await load_campaign(call.services, link.campaign)
    except ServiceError:
        await release_reopening(store, link.campaign, link.number, by)
        return
    except BaseException:
        await release_reopening(store, link.campaign, link.number, by)
        raise
    entry = state.game(link.number)
    ours = entry is not None and entry.channel == call.request.channel_id
    refusal = _refusal(state, link.number) if ours else None
    if refusal is not None or not ours:  # nothing of this reopening for the campaign to follow
        await release_reopening(store, link.campaign, link.number, by)
    if refusal is not None:
        raise refusal


async def release_refused_reopening(call: GameCall, handler: GameHandler) -> None:
    """A reopening the guard let through and the rules then refused (a rewind past the
    log, a conflict retried later) gives its claim back at once: no follower will drop it,
    and the campaign's next write would be refused until the claim expires."""
    link = call.context.campaign
    if not handler.reopens or link is None or call.record.status != "ended":
        return
    await release_reopening(call.services.store, link.campaign, link.number, reopener(call.request))


def _refusal(state: CampaignState, number: int) -> ServiceError | None:
    """Why game ``number``'s end stands, if it does: the campaign over, or built on it."""
    if state.ended:
        return ServiceError("error.campaign.ended_reopen", name=state.name)
    if built_on(state, number):
        return ServiceError("error.campaign.built_on_reopen", name=state.name, number=number)
    return None


__all__ = ["built_on", "refuse_reopening"]
