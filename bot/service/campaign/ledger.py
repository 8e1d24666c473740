"""A campaign's log in the store: reading its state, appending an event with the next state.

A campaign lives in a channel of its own, as a record of the store's ``games`` whose kind
(its ``ruleset`` column) is ``campaign``: the store's hash chain, version guard, retried
interactions, export and ``db check`` hold for it as for a game, with no change to the
store. Its document is the campaign's state (`rules.campaign.state.CampaignState`), each
event of its log one campaign event (``args["campaign"]``); the state is only ever the
fold of the events (`rules.campaign.state.apply`), so the replay of the log gives it again.
"""

from __future__ import annotations

import logging

from bot.service.campaign.reopening import holding, newly_settled
from bot.service.errors import ServiceError
from bot.service.events import ACTOR_NAME_ARG
from bot.service.handlers import Call, Services
from db.errors import GameNotFound
from db.models import GameRecord, NewEvent
from rules.campaign.events import CampaignEvent, event_json
from rules.campaign.state import CampaignState, apply
from rules.core.errors import UnknownName
from rules.core.words import joined

log = logging.getLogger(__name__)

#: The key of a campaign event in its store event's arguments.
CAMPAIGN_ARG = "campaign"
#: The key, in a linked game's first event, naming its campaign and its number there.
ORIGIN_ARG = "campaign"
#: Runs of a campaign's catching up that lost a race with another writer.


async def load_campaign(services: Services, channel_id: int) -> tuple[GameRecord, CampaignState]:
    """The channel's campaign: its record and state (a refusal when there is none)."""
    try:
        record = await services.store.load(channel_id)
    except GameNotFound:
        raise ServiceError("error.campaign.none") from None
    if not record.is_campaign:
        raise ServiceError("error.campaign.none")
    return record, CampaignState.from_json(record.document)


async def log_event(
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
    the campaign's log with the new state, guarded by the version read; its seq. An event
    after which a game's end stands is written holding that game's claim (refused while the
    game is being reopened: `bot.service.campaign.reopening`)."""
    after = apply(state, event)
    args: dict[str, object] = {CAMPAIGN_ARG: event_json(event)}
    if actor_name:
        args[ACTOR_NAME_ARG] = actor_name[:80]
    store = services.store
    async with holding(store, record.channel_id, newly_settled(state, after), interaction_id):
        committed = await store.commit(
            record.channel_id,
            record.version,
            after.to_json(),
            NewEvent(verb=event.type, args=args, actor_id=actor_id, interaction_id=interaction_id),
        )
    return after, committed.event.seq


async def log_requested(
    call: Call, record: GameRecord, state: CampaignState, event: CampaignEvent
) -> tuple[CampaignState, int]:
    """:func:`log_event` for an event the request's user asks for: the user is its actor,
    the request's interaction its id (a retried interaction is committed once)."""
    request = call.request
    return await log_event(
        call.services,
        record,
        state,
        event,
        actor_id=request.user_id,
        actor_name=request.user_name,
        interaction_id=request.interaction_id,
    )


def language_of(record: GameRecord) -> str:
    return record.language


def referee_only(call: Call, state: CampaignState) -> None:
    if call.request.user_id != state.referee:
        raise ServiceError("error.campaign.referee_only")


def side_named(state: CampaignState, wanted: str) -> str:
    """A side of the campaign by its id or its name (any case)."""
    for side, label in state.sides.items():
        if wanted.casefold() in (side.casefold(), label.casefold()):
            return side
    raise UnknownName(
        "error.campaign.unknown_side", side=wanted[:40], known=joined(state.sides.values())
    )
