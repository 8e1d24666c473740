"""A linked game's end stands once its campaign is over.

While a campaign runs, ``/game undo`` of a linked game's end reopens the game and the
campaign reverses its result with a logged event (`bot.service.campaign.follow`). Once the
campaign has ended its log takes no event, so nothing could reverse the result: the game
would be in play again while the campaign still held a result whose final hash is no
longer the game's head. Such an undo is refused instead (found by the campaign fuzzer,
tests/fuzz/campaign.py).
"""

from __future__ import annotations

from bot.service.campaign.ledger import load_campaign
from bot.service.errors import ServiceError
from bot.service.handlers import Services
from bot.service.stored.campaign import CampaignLink


async def refuse_reopening(services: Services, link: CampaignLink) -> None:
    """Refuse to reopen an ended game of a campaign that is over (a campaign that is
    gone or unreadable leaves the game alone: the game's command stands)."""
    try:
        _, state = await load_campaign(services, link.campaign)
    except ServiceError:
        return
    if state.ended:
        raise ServiceError("error.campaign.ended_reopen", name=state.name)
