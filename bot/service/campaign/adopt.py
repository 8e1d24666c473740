"""The number ``/campaign game`` links a game under: claimed, adopted after a crash, or freed.

``/campaign game`` writes, in order: a claim on the number it links the game under (a record
of the campaign, ``campaign_pending``, keyed by that number and taken only if absent: one
command across every process holds it), the game (its first event naming the campaign and
the number), its link record and seats, then the campaign's ``campaign.game`` event, and
drops the claim. A second ``/campaign game`` meanwhile finds the number claimed and waits
(the core's conflict retries) until the first one has logged its game, then links its own
under the next number.

A process stopped between the game and the event leaves a game that names the campaign
while the campaign does not list it. A claim sits on the store's time index, due once
:data:`STALE_AFTER` has passed: the campaign's timer (:func:`adopt_stale_claims`), or the
next ``/campaign game`` before, reads the claims (one listing of the campaign's records: no
scan of the server's games): when the claimed channel's game is linked to the campaign
under the number the campaign would give next, the campaign logs its ``campaign.game`` now
(the game is adopted, said in one line in the campaign's channel); a claim whose number is
listed already, or whose game was never created and that is older than
:data:`STALE_AFTER`, is dropped. ``/campaign status`` writes none of it: it says which
game is being linked (:func:`orphans`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.service.campaign.follow import linked_to
from bot.service.campaign.ledger import language_of, load_campaign, log_event
from bot.service.errors import ServiceError
from bot.service.handlers import Due, Services
from bot.service.replies import Reply
from bot.service.stored.campaign import CampaignLink
from db.errors import GameNotFound, StoreError, VersionConflict
from db.models import FeatureRecord, GameRecord, Scope
from rules.campaign.events import CampaignGame
from rules.campaign.state import CampaignState
from rules.core.resolution import Outcome

log = logging.getLogger(__name__)

PENDING = "campaign_pending"
#: A claim whose game does not exist yet is another command's work in progress for this
#: long (it musters, sets rosters and archives the channel's ended game first); after that
#: it is a stopped process's, and dropped.
STALE_AFTER = timedelta(seconds=60)


@dataclass(frozen=True, slots=True)
class Claim:
    """A number claimed for the game ``/campaign game`` is creating in ``channel``."""

    number: int
    channel: int
    scenario: str
    by: str | None  # the interaction that claimed it (its retries hold it too)
    #: The roster entries the game fields, by side: an adopted game holds them too.
    fielded: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _claim_of(found: FeatureRecord) -> Claim:
    value = found.value
    by = value.get("by")
    fielded = value.get("fielded") or {}  # none in a claim written before they were kept
    return Claim(
        int(value["number"]),
        int(value["channel"]),
        str(value["scenario"]),
        None if by is None else str(by),
        {str(side): tuple(map(str, units)) for side, units in fielded.items()},
    )


async def claim_number(services: Services, record: GameRecord, claim: Claim) -> None:
    """Claim ``claim.number`` of the campaign for this command: taken once across processes
    (an earlier attempt of the same interaction holds it already). Held by another command,
    a :class:`VersionConflict`: the core runs this command again after a pause, by when the
    other has logged its game (or stopped, and its claim is adopted or dropped)."""
    scope, key = Scope.of_game(record.channel_id), str(claim.number)
    value = {
        "number": claim.number,
        "channel": claim.channel,
        "scenario": claim.scenario,
        "by": claim.by,
        "fielded": {side: list(units) for side, units in claim.fielded.items()},
    }
    # On the time index once stale: the timer adopts or drops what a stopped process left.
    due_at = datetime.now(UTC) + STALE_AFTER
    store = services.store
    taken = await store.feature_put(PENDING, scope, key, value, due_at=due_at, if_absent=True)
    if taken is not None:
        return
    found = await store.feature_get(PENDING, scope, key)
    if found is not None and claim.by is not None and _claim_of(found).by == claim.by:
        await store.feature_put(PENDING, scope, key, value, due_at=due_at)
        return
    raise VersionConflict(record.channel_id, record.version, record.version)


async def drop_claim(services: Services, campaign: int, number: int) -> None:
    """The game was linked (or never made): its number's claim goes."""
    await services.store.feature_delete(PENDING, Scope.of_game(campaign), str(number))


async def orphans(services: Services, record: GameRecord, state: CampaignState) -> list[Claim]:
    """The games a stopped ``/campaign game`` created but did not log, that the campaign
    will adopt: read only (``/campaign status`` says they are being linked)."""
    found = await services.store.feature_list(PENDING, Scope.of_game(record.channel_id))
    return [
        claim
        for claim in map(_claim_of, found)
        if claim.number == len(state.games) + 1
        and not state.ended
        and await linked_to(services, claim.channel)
        == CampaignLink(record.channel_id, claim.number)
    ]


async def adopt_stale_claims(
    services: Services,
    now: datetime,
    *,
    owns_guild: Callable[[int | None], bool] | None = None,
) -> Due:
    """The timer: each campaign with a claim past :data:`STALE_AFTER` adopts its orphan
    game or drops the claim; an adoption is said in the campaign's channel."""
    replies: Due = []
    campaigns = {found.scope.id for found in await services.store.feature_due(PENDING, now)}
    for campaign in sorted(campaigns):
        try:
            record, state = await load_campaign(services, campaign)
        except (ServiceError, StoreError, GameNotFound):
            log.warning("campaign %s: its claims cannot be read", campaign, exc_info=True)
            continue
        if owns_guild is not None and not owns_guild(record.guild_id):
            continue
        record, state, adopted = await adopt_orphan(services, record, state)
        if adopted:
            reply = Reply(language=language_of(record), ruleset=state.ruleset)
            reply.notices.extend(adopted)
            replies.append((campaign, reply))
    return replies


async def adopt_orphan(
    services: Services, record: GameRecord, state: CampaignState
) -> tuple[GameRecord, CampaignState, list[Outcome]]:
    """Adopt the game a stopped ``/campaign game`` created but did not log, if any; drop
    the claims that are done with."""
    notices: list[Outcome] = []
    claims = await services.store.feature_list(PENDING, Scope.of_game(record.channel_id))
    for found in claims:
        claim = _claim_of(found)
        if claim.number != len(state.games) + 1 or state.ended:
            # Listed already (its command finished), or behind a number taken since.
            await _drop(services, record.channel_id, found)
            continue
        try:
            await services.store.load(claim.channel)
        except GameNotFound:
            if datetime.now(UTC) - found.created_at > STALE_AFTER:
                await _drop(services, record.channel_id, found)
            continue
        if await linked_to(services, claim.channel) != CampaignLink(
            record.channel_id, claim.number
        ):
            if datetime.now(UTC) - found.created_at > STALE_AFTER:
                await _drop(services, record.channel_id, found)
            continue
        log.warning(
            "campaign %s: adopting game %s in %s", record.channel_id, claim.number, claim.channel
        )
        state, _ = await log_event(
            services,
            record,
            state,
            CampaignGame(
                number=claim.number,
                channel=claim.channel,
                scenario=claim.scenario,
                fielded=dict(claim.fielded),
            ),
            actor_id=None,
            interaction_id=f"campaign:{record.channel_id}:{claim.number}:adopted",
        )
        await _drop(services, record.channel_id, found)
        record = await services.store.load(record.channel_id)
        notices.append(
            Outcome.of("bot.campaign.adopted", number=claim.number, scenario=claim.scenario)
        )
    return record, state, notices


async def _drop(services: Services, campaign: int, found: FeatureRecord) -> None:
    """Drop a claim as it was read (a claim taken anew since stays)."""
    await services.store.feature_delete(
        PENDING, Scope.of_game(campaign), found.key, expected_revision=found.revision
    )


__all__ = [
    "PENDING",
    "STALE_AFTER",
    "Claim",
    "adopt_orphan",
    "adopt_stale_claims",
    "claim_number",
    "drop_claim",
    "orphans",
]
