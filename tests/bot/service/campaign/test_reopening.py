"""Reopening a linked game racing the campaign building on it, two bot processes (two
services, each on its own store connection, one database), on both backends.

Process A's ``/game undo`` of a linked game's end passes the campaign's guard and is held
right after it (the guard's reading of the campaign, paused on an event); process B then
writes to the campaign. Before the claim (`bot.service.campaign.reopening`), B's
``/campaign end`` or aftermath landed there and A's undo committed after it: the game in
play again while the campaign held its result (``db check``: "holds a result …, the game is
active"). Now B is refused until A's campaign has followed, a campaign write holding the
claim makes A's guard wait and then refuse, and a claim whose holder stopped expires."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.service.campaign import reopening, settled
from bot.service.errors import ServiceError
from db.errors import VersionConflict
from db.models import Scope
from rules.campaign.state import CampaignState
from tests.bot.service.campaign.test_aftermath import _rosters
from tests.bot.service.campaign.test_commands import ANNA, BRUNO, CAMPAIGN, FIRST, REFEREE
from tests.bot.service.campaign.test_races import Process
from tests.bot.service.campaign.test_races import two_stores as _two_stores

two_stores = _two_stores


class PausedGuard:
    """Holds the first reopening right after the guard read its campaign, until ``go``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached, self.go = asyncio.Event(), asyncio.Event()
        real = settled.load_campaign

        async def paused(*args: Any) -> Any:
            found = await real(*args)
            if not self.reached.is_set():
                self.reached.set()
                await self.go.wait()
            return found

        monkeypatch.setattr(settled, "load_campaign", paused)


async def _game_one_ended(store: Any, *, rosters: bool = False) -> Process:
    """Process A's campaign with game 1 linked and won by the Legion."""
    first = Process(store, "a")
    await first(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await first.seat(ANNA, "legione")
    await first.seat(BRUNO, "predoni")
    if rosters:
        await _rosters(first)
    await first(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await first(FIRST, REFEREE, "game.decide", result="legione", reason="held the outpost")
    return first


async def _campaign_of(store: Any) -> CampaignState:
    return CampaignState.from_json((await store.load(CAMPAIGN)).document)


async def _reopened_and_reversed(store: Any) -> None:
    """Game 1 in play, its result reversed by the campaign, no claim left, ``db check`` ok."""
    state = await _campaign_of(store)
    held = state.game(1)
    assert not state.ended and held is not None and held.result is None
    assert (await store.load(FIRST)).status != "ended"
    assert await store.feature_list(reopening.REOPENING, Scope.of_game(CAMPAIGN)) == []
    assert await store.check() == []


async def _raced(
    pause: PausedGuard, first: Process, campaign_write: Callable[[], Awaitable[str]]
) -> str:
    """A's undo held past the guard while B writes: what B saw; A's undo then goes on."""
    undo = asyncio.create_task(first.outcome(FIRST, REFEREE, "game.undo"))
    await pause.reached.wait()
    seen = await campaign_write()
    pause.go.set()
    assert await undo == "ok"
    return seen


async def test_the_end_waits_for_a_game_being_reopened(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a), Process(store_b, "b")
    seen = await _raced(
        PausedGuard(monkeypatch), first, lambda: second.outcome(CAMPAIGN, REFEREE, "campaign.end")
    )
    assert seen == "error.campaign.being_reopened", seen
    await _reopened_and_reversed(store_a)
    # Tried again: the campaign now lacks game 1's result, and says so.
    end = await second.outcome(CAMPAIGN, REFEREE, "campaign.end")
    assert end == "error.campaign.games_unsettled", end


async def test_an_aftermath_waits_for_its_game_being_reopened(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the aftermath and its confirmation landed: the undo then reopened the game
    and the campaign kept the result ("keeps the result of game 1")."""
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a, rosters=True), Process(store_b, "b")

    async def aftermath_and_confirm() -> str:
        rolled = await second.outcome(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)
        if rolled == "ok":
            await second.outcome(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
        return rolled

    seen = await _raced(PausedGuard(monkeypatch), first, aftermath_and_confirm)
    assert seen == "error.campaign.being_reopened", seen
    await _reopened_and_reversed(store_a)
    assert 1 not in (await _campaign_of(store_a)).aftermaths


async def test_a_reopening_waits_for_the_end_being_written_then_is_refused(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B's ``/campaign end`` holds game 1's claim while it commits: A's undo finds it held
    (a conflict, run again after a pause), then reads the campaign over and is refused."""
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a), Process(store_b, "b")
    waited, committing, commit = asyncio.Event(), asyncio.Event(), store_b.commit

    async def held_commit(channel: int, *args: Any, **kwargs: Any) -> Any:
        if channel == CAMPAIGN:
            committing.set()
            await waited.wait()
        return await commit(channel, *args, **kwargs)

    claim = settled.claim_reopening

    async def watched_claim(*args: Any) -> None:
        try:
            await claim(*args)
        except VersionConflict:
            waited.set()
            raise

    monkeypatch.setattr(store_b, "commit", held_commit)
    monkeypatch.setattr(settled, "claim_reopening", watched_claim)
    end = asyncio.create_task(second.outcome(CAMPAIGN, REFEREE, "campaign.end"))
    await committing.wait()
    assert await first.outcome(FIRST, REFEREE, "game.undo") == "error.campaign.ended_reopen"
    assert await end == "ok"
    state = await _campaign_of(store_a)
    assert state.ended and (await store_a.load(FIRST)).status == "ended"
    assert await store_a.feature_list(reopening.REOPENING, Scope.of_game(CAMPAIGN)) == []
    assert await store_a.check() == []


async def test_the_claim_of_a_stopped_process_expires(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stopped past the guard, its claim taken: B's end is refused until the claim
    expires, then the campaign ends on the game as it stands (never reopened)."""
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a), Process(store_b, "b")
    pause = PausedGuard(monkeypatch)
    stopped = asyncio.create_task(first.outcome(FIRST, REFEREE, "game.undo"))
    try:
        await pause.reached.wait()
        end = await second.outcome(CAMPAIGN, REFEREE, "campaign.end")
        assert end == "error.campaign.being_reopened", end
        later = datetime.now(UTC) + reopening.HELD_FOR
        monkeypatch.setattr(reopening, "_now", lambda: later)
        assert await second.outcome(CAMPAIGN, REFEREE, "campaign.end") == "ok"
    finally:
        stopped.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopped
    assert (await _campaign_of(store_a)).ended
    assert (await store_a.load(FIRST)).status == "ended"
    assert await store_a.check() == []


async def test_refusing_to_end_names_the_game_in_every_language(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a), Process(store_b, "b")
    refusals: list[Any] = []

    async def end() -> str:
        try:
            await second(CAMPAIGN, REFEREE, "campaign.end")
        except ServiceError as error:
            refusals.append(error)
        return "done"

    await _raced(PausedGuard(monkeypatch), first, end)
    [refusal] = refusals
    assert "game 1 is being reopened" in refusal.localized("en")
    assert "la partita 1 è in corso di riapertura" in refusal.localized("it")
    assert "la partie 1 est en train d'être rouverte" in refusal.localized("fr")


async def test_a_reopening_refused_past_the_guard_gives_its_claim_back(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's undo passes the guard (which claims game 1) and is then refused by the store: the
    claim is given back at once, so B's end is not told "being reopened" for 30 s."""
    store_a, store_b = two_stores
    first, second = await _game_one_ended(store_a), Process(store_b, "b")

    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise ServiceError("error.service.nothing_to_undo")

    monkeypatch.setattr(store_a, "undo", refused)
    assert await first.outcome(FIRST, REFEREE, "game.undo") == "error.service.nothing_to_undo"
    assert await store_a.feature_list(reopening.REOPENING, Scope.of_game(CAMPAIGN)) == []
    assert await second.outcome(CAMPAIGN, REFEREE, "campaign.end") == "ok"
    assert (await _campaign_of(store_a)).ended
    assert (await store_a.load(FIRST)).status == "ended"
