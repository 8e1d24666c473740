"""Creating a campaign's game and listing it, safe against another process racing it.

``/campaign game`` creates the game before the campaign lists it (a game the campaign lists
always exists), so a write to the campaign that lands in between — another process's
``/campaign game``, ``/campaign end``, a join, a result — makes the ``campaign.game`` commit
lose the version race after the game is made. Running the whole command again would find its
own game in the channel and refuse it as taken, leaving a game that names the campaign and
that the campaign never lists. Instead the commit is retried here on the campaign's new
state: the game is listed when its number is still the next one and nothing it was made
from changed (the rosters, what the games owe, the campaign's end); otherwise the game is
removed before the command is refused, so nothing is left behind.
"""

from __future__ import annotations

import asyncio
import logging

from bot.service.campaign.aftermath import refuse_while_owed
from bot.service.campaign.ledger import load_campaign, log_requested
from bot.service.errors import ServiceError
from bot.service.handlers import Call
from db.errors import GameNotFound, VersionConflict
from db.models import GameRecord
from rules.campaign.events import CampaignGame
from rules.campaign.roster import rosters_hash
from rules.campaign.state import CampaignState, apply
from rules.core.errors import RulesError

log = logging.getLogger(__name__)

#: Commits of ``campaign.game`` tried on a campaign that moved on while its game was made.
LINK_ATTEMPTS = 8
#: How long (times the attempt) a number claimed behind another's waits for that game.
LINK_WAIT_S = 0.05


def game_interaction(call: Call) -> str | None:
    """The interaction id of the game's created event: the command's, marked."""
    interaction = call.request.interaction_id
    return None if interaction is None else f"{interaction}/game"


async def created_earlier(call: Call, channel: int) -> GameRecord | None:
    """The game an earlier attempt of this very command created in ``channel``, if any (a
    retry after a conflict must not create it again)."""
    interaction = game_interaction(call)
    if interaction is None:
        return None
    event = await call.services.store.event_by_interaction(interaction)
    if event is None or event.channel_id != channel:
        return None
    try:
        return await call.services.store.load(channel)
    except GameNotFound:
        return None


async def log_link(
    call: Call,
    record: GameRecord,
    state: CampaignState,
    linked: CampaignGame,
) -> tuple[GameRecord, CampaignState, int]:
    """Log ``campaign.game`` for the game just made; on a lost version race, again on the
    campaign's new state while the game may still be listed under its number. A number
    claimed behind another process's earlier one waits for that game to be listed first.
    The game is removed and the command refused when it may not be listed (a
    :class:`RulesError`; "try again" when another process took the number or never listed
    the earlier one)."""
    for attempt in range(1, LINK_ATTEMPTS + 1):
        if linked.number == len(state.games) + 1:
            try:
                state, seq = await log_requested(call, record, state, linked)
                return record, state, seq
            except VersionConflict:
                pass
        else:
            # Another process claimed the number before ours and is still making its game.
            await asyncio.sleep(LINK_WAIT_S * attempt)
        record, state = await load_campaign(call.services, record.channel_id)
        listed = state.game(linked.number)
        if listed is not None and listed.channel == linked.channel:
            return record, state, record.version  # adopted meanwhile: listed
        try:
            _still_linkable(state, linked)
        except RulesError:
            await remove_game(call, linked)
            raise
    await remove_game(call, linked)
    raise ServiceError("error.service.conflict")


def _still_linkable(state: CampaignState, linked: CampaignGame) -> None:
    """Refuse listing ``linked`` on ``state`` when its number was taken, the campaign ended
    or owes an aftermath, or the rosters it was mustered from changed."""
    refuse_while_owed(state)
    if linked.number <= len(state.games):
        raise ServiceError("error.service.conflict")  # taken by another process's game
    if linked.number == len(state.games) + 1:
        apply(state, linked)  # the end, the channel
    if linked.rosters_hash is not None and rosters_hash(state.rosters) != linked.rosters_hash:
        raise ServiceError("error.service.conflict")


async def remove_game(call: Call, linked: CampaignGame) -> None:
    """Remove the game made for ``linked`` that the campaign will not list (ended first:
    the store removes only an ended game)."""
    store = call.services.store
    log.warning(
        "campaign %s: game %s in %s not listed after a race: removed",
        call.request.channel_id,
        linked.number,
        linked.channel,
    )
    try:
        game = await store.load(linked.channel)
        if game.status != "ended":
            await store.end_game(linked.channel, reason="campaign.link_refused")
        await store.delete_game(linked.channel)
    except GameNotFound:
        pass


__all__ = ["LINK_ATTEMPTS", "created_earlier", "game_interaction", "log_link", "remove_game"]
