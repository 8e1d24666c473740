"""The claim that keeps reopening a linked game and the campaign building on it apart.

The campaign's guard (:mod:`bot.service.campaign.settled`) lets a history command take an
ended linked game back before its end only while the campaign could still reverse its
result; the command then commits to the game and the campaign's follower reverses the
result. Neither the game's commit nor the follower's can be conditioned on the campaign's
version, so another process's campaign write landing between the guard's reading and the
follower (``/campaign end``, an aftermath, a roster settled over the losses) left the game in
play while the campaign held its result (found by the two-process race driver).

So both sides take one claim, a record of the campaign (:data:`REOPENING`, keyed by the
game's number, taken only if absent):

* the guard takes it before reading the campaign, and the follower drops it once the
  campaign has followed (the guard drops it at once when it refuses);
* a campaign event that would make a game's end stand (:func:`newly_settled`: the campaign
  ended, or built on the result) is committed holding the claims of those games
  (:func:`holding`, in the ledger: every command writes through it).

Whoever comes second waits: the guard's command runs again after a pause (a conflict, the
core's retries), by when the campaign's write is committed and the guard refuses; the
campaign's command is refused, "game N is being reopened", and the referee tries again once
the reopened game is followed. A claim is held for :data:`HELD_FOR` at most: a process that
stopped holding it blocks nobody for longer (a command's work is bounded far below it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import uuid4

from bot.service.errors import ServiceError
from bot.service.requests import Request
from db.errors import VersionConflict
from db.models import FeatureRecord, Scope
from db.protocol import GameStore
from rules.campaign.events import CampaignReversal
from rules.campaign.state import CampaignState, apply
from rules.core.errors import RulesError

REOPENING = "campaign_reopening"
#: How long a claim holds before another command may take it over: far longer than a
#: reopening command takes from its guard to its follower (rules work is bounded to
#: seconds), short enough that a stopped process blocks the campaign only briefly.
HELD_FOR = timedelta(seconds=30)
#: Tells this process's requests without an interaction id apart from another's.
_PROCESS = uuid4().hex


def _now() -> datetime:
    """The moment a claim is taken or judged expired: the one clock this module reads."""
    return datetime.now(UTC)


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


def newly_settled(before: CampaignState, after: CampaignState) -> list[int]:
    """The games whose end could be undone before an event and stands after it (the
    campaign ended, or it built on their result): the claims the event is written under."""
    if before.ended:
        return []
    return [
        entry.number
        for entry in before.games
        if entry.result is not None
        and not built_on(before, entry.number)
        and (after.ended or built_on(after, entry.number))
    ]


@dataclass(frozen=True, slots=True)
class _Holder:
    by: str
    reopens: bool


#: A claim released or taken over between our two reads: whoever won, try again.
_LOST = _Holder(by="", reopens=False)


def reopener(request: Request) -> str:
    """Who holds a reopening's claim: the command's interaction (its retries hold it too),
    or the request itself in this process."""
    return request.interaction_id or f"{_PROCESS}:{id(request)}"


async def _take(store: GameStore, campaign: int, number: int, holder: _Holder) -> _Holder | None:
    """Take game ``number``'s claim (or renew ours, or take over an expired one): None
    when held now, else who holds it."""
    scope, key = Scope.of_game(campaign), str(number)
    value = {
        "number": number,
        "by": holder.by,
        "reopens": holder.reopens,
        "until": (_now() + HELD_FOR).isoformat(),
    }
    if await store.feature_put(REOPENING, scope, key, value, if_absent=True) is not None:
        return None
    found = await store.feature_get(REOPENING, scope, key)
    if found is None:
        return _LOST
    other = _Holder(by=str(found.value["by"]), reopens=bool(found.value["reopens"]))
    if other.by != holder.by and datetime.fromisoformat(found.value["until"]) > _now():
        return other
    taken = await store.feature_put(REOPENING, scope, key, value, expected_revision=found.revision)
    return None if taken is not None else _LOST


async def _release(store: GameStore, campaign: int, number: int, by: str) -> None:
    """Drop game ``number``'s claim if ``by`` still holds it (one taken over stays)."""
    scope, key = Scope.of_game(campaign), str(number)
    found: FeatureRecord | None = await store.feature_get(REOPENING, scope, key)
    if found is not None and found.value["by"] == by:
        await store.feature_delete(REOPENING, scope, key, expected_revision=found.revision)


async def claim_reopening(store: GameStore, campaign: int, number: int, by: str) -> None:
    """The guard claims game ``number`` before reading its campaign. Held by another
    command, a :class:`VersionConflict`: the core runs the command again after a pause."""
    if await _take(store, campaign, number, _Holder(by=by, reopens=True)) is not None:
        raise VersionConflict(campaign, 0, 0)


async def release_reopening(store: GameStore, campaign: int, number: int, by: str) -> None:
    """The reopening is over (refused, or its campaign followed it)."""
    await _release(store, campaign, number, by)


@asynccontextmanager
async def holding(
    store: GameStore, campaign: int, numbers: Sequence[int], by: str | None
) -> AsyncIterator[None]:
    """Hold games ``numbers``' claims while the campaign's event is written (released
    after, whatever happens). A game being reopened refuses the event; a claim another
    campaign write holds is a conflict (the core runs the command again)."""
    me = by or uuid4().hex
    taken: list[int] = []
    try:
        for number in numbers:
            other = await _take(store, campaign, number, _Holder(by=me, reopens=False))
            if other is not None and other.reopens:
                raise ServiceError("error.campaign.being_reopened", number=number)
            if other is not None:
                raise VersionConflict(campaign, 0, 0)
            taken.append(number)
        yield
    finally:
        for number in taken:
            await _release(store, campaign, number, me)


__all__ = [
    "HELD_FOR",
    "REOPENING",
    "built_on",
    "claim_reopening",
    "holding",
    "newly_settled",
    "release_reopening",
    "reopener",
]
