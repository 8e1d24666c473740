"""A linked game left behind by a crash: adopted by the campaign, or forgotten.

``/campaign game`` writes, in order: a note of the game it is about to link (a record of
the campaign, ``campaign_pending``), the game (its first event naming the campaign), its
link record and seats, then the campaign's ``campaign.game`` event, and drops the note. A
process stopped between the game and the event leaves a game that names the campaign while
the campaign does not list it. The next ``/campaign status`` or ``/campaign game`` reads
the note (one record: no scan of the server's games): when the channel's game is linked to
the campaign under the number the campaign would give next, the campaign logs its
``campaign.game`` now (the game is adopted, said in one line); otherwise the note is
dropped (the game was never created).
"""

from __future__ import annotations

import logging

from bot.service.campaign.follow import linked_to
from bot.service.campaign.ledger import log_event
from bot.service.handlers import Services
from bot.service.stored.campaign import CampaignLink
from db.errors import GameNotFound
from db.models import GameRecord, Scope
from rules.core.campaign import CampaignState, Linked
from rules.core.resolution import Outcome

log = logging.getLogger(__name__)

PENDING = "campaign_pending"
_KEY = "next"


async def note_pending(
    services: Services, campaign: int, number: int, channel: int, scenario: str
) -> None:
    """Note the game ``/campaign game`` is about to create and link."""
    value = {"number": number, "channel": channel, "scenario": scenario}
    await services.store.feature_put(PENDING, Scope.of_game(campaign), _KEY, value)


async def drop_pending(services: Services, campaign: int) -> None:
    """The game was linked (or never made): the note goes."""
    await services.store.feature_delete(PENDING, Scope.of_game(campaign), _KEY)


async def adopt_orphan(
    services: Services, record: GameRecord, state: CampaignState
) -> tuple[GameRecord, CampaignState, list[Outcome]]:
    """Adopt the game a stopped ``/campaign game`` created but did not log, if any."""
    found = await services.store.feature_get(PENDING, Scope.of_game(record.channel_id), _KEY)
    if found is None:
        return record, state, []
    number, channel = int(found.value["number"]), int(found.value["channel"])
    scenario = str(found.value["scenario"])
    listed = state.game(number)
    if listed is not None or number != len(state.games) + 1 or state.ended:
        await drop_pending(services, record.channel_id)
        return record, state, []
    try:
        await services.store.load(channel)
    except GameNotFound:
        await drop_pending(services, record.channel_id)
        return record, state, []
    if await linked_to(services, channel) != CampaignLink(record.channel_id, number):
        await drop_pending(services, record.channel_id)
        return record, state, []
    log.warning("campaign %s: adopting game %s in %s", record.channel_id, number, channel)
    state, _ = await log_event(
        services,
        record,
        state,
        Linked(number=number, channel=channel, scenario=scenario),
        actor_id=None,
        interaction_id=f"campaign:{record.channel_id}:{number}:adopted",
    )
    await drop_pending(services, record.channel_id)
    notice = Outcome.of("bot.campaign.adopted", number=number, scenario=scenario)
    return await services.store.load(record.channel_id), state, [notice]


__all__ = ["PENDING", "adopt_orphan", "drop_pending", "note_pending"]
