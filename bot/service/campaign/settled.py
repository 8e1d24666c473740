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
declares it; the referee corrects the campaign with ``/campaign adjust`` instead.
"""

from __future__ import annotations

from bot.service.campaign.ledger import load_campaign
from bot.service.errors import ServiceError
from bot.service.handlers import GameCall, GameHandler
from rules.core.campaign import CampaignReversal, CampaignState, apply
from rules.core.errors import RulesError


def built_on(state: CampaignState, number: int) -> bool:
    """Whether the campaign has built on game ``number``'s result: an aftermath rolled on
    it, or losses its reversal could no longer take back (False without a result)."""
    entry = state.game(number)
    if entry is None or entry.result is None:
        return False
    if number in state.aftermaths:
        return True
    try:
        apply(state, CampaignReversal(number=number, final_hash=entry.result.final_hash))
    except RulesError:
        return True
    return False


async def refuse_reopening(call: GameCall, handler: GameHandler) -> None:
    """Refuse to take an ended linked game back before its end when its campaign is over
    or has built on its result (a campaign that is gone or unreadable leaves the game
    alone: the game's command stands)."""
    link = call.context.campaign
    if not handler.reopens or link is None or call.record.status != "ended":
        return
    try:
        _, state = await load_campaign(call.services, link.campaign)
    except ServiceError:
        return
    if state.ended:
        raise ServiceError("error.campaign.ended_reopen", name=state.name)
    entry = state.game(link.number)
    ours = entry is not None and entry.channel == call.request.channel_id
    if ours and built_on(state, link.number):
        raise ServiceError("error.campaign.built_on_reopen", name=state.name, number=link.number)


__all__ = ["built_on", "refuse_reopening"]
