"""Two bot processes (two services, each with its own store, on one database) racing the
commands that list a campaign's games, on both backends: whatever the interleaving, every
game that names the campaign is listed by it under the number its first event and its link
record give, or refused with nothing left behind; a ``campaign.game`` that loses the version
race after its game was made lists that game, never making it twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.service.campaign import commands
from bot.service.stored.campaign import CAMPAIGN_LINK, LINK_KEY
from db.models import Scope
from rules.campaign.state import CampaignState
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from tests.bot.service.campaign.test_commands import Table
from tests.db.conftest import BACKENDS, Backend

REFEREE, ANNA, BRUNO, CARLA = 1, 2, 3, 4
CAMPAIGN, THIRD, FOURTH, FIFTH = 700, 703, 704, 705
GUILD = 7


@pytest.fixture(params=BACKENDS)
async def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """Two stores on one database: what two bot processes hold."""
    if request.param == "postgres":
        backend = Backend("postgres", request.getfixturevalue("pg_url"))
    else:
        backend = Backend("sqlite", str(tmp_path / "arbitro.db"))
    first, second = await backend.open(), await backend.open()
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


class Process(Table):
    """One bot process: its service on its own store."""

    async def outcome(self, where: int, user: int, verb: str, /, **options: Any) -> str:
        """What the player saw: ``ok`` or the refusal's key."""
        try:
            await self(where, user, verb, **options)
        except RulesError as error:
            return error.key
        return "ok"


async def _campaign(store: Any) -> Process:
    first = Process(store, "a")
    await first(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    for user, side in ((ANNA, "legione"), (BRUNO, "predoni")):  # seats by consent
        await first(CAMPAIGN, REFEREE, "campaign.invite", user=user, side=side)
        await first(CAMPAIGN, user, "campaign.join", side=side)
    return first


async def linked_games_agree(store: Any) -> CampaignState:
    """Every game whose first event names the campaign is listed under that number, with a
    link record saying the same; every listed game exists; no claim is left."""
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    listed = {entry.channel: entry.number for entry in state.games}
    named: dict[int, int] = {}
    for game in await store.all_games():
        if game.channel_id == CAMPAIGN:
            continue
        first = (await store.events(game.channel_id, after_seq=0, limit=1))[0]
        origin = first.args.get("campaign")
        if isinstance(origin, dict) and origin.get("channel") == CAMPAIGN:
            named[game.channel_id] = int(origin["number"])
            link = await store.feature_get(CAMPAIGN_LINK, Scope.of_game(game.channel_id), LINK_KEY)
            assert link is not None and link.value["number"] == origin["number"]
    assert named == listed, (named, listed)
    assert [entry.number for entry in state.games] == list(range(1, len(state.games) + 1))
    assert await store.feature_list("campaign_pending", Scope.of_game(CAMPAIGN)) == []
    assert await store.check() == []
    return state


async def test_two_games_linked_at_once_are_games_1_and_2(two_stores: Any) -> None:
    store_a, store_b = two_stores
    first = await _campaign(store_a)
    second = Process(store_b, "b")
    outcomes = await asyncio.gather(
        first.outcome(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=THIRD),
        second.outcome(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FOURTH),
    )
    state = await linked_games_agree(store_a)
    # One is listed; the other waited for its number and found every unit of the scenario
    # fighting in game 1 (refused: a unit never fights two games), or lost the race and
    # was refused with its channel left empty. No unit is on two fields.
    assert len(state.games) == outcomes.count("ok") == 1, outcomes
    assert set(outcomes) <= {"ok", "error.service.conflict", "error.campaign.side_held"}
    await _fielded_once(store_a, state)


async def test_a_link_mustered_before_another_process_listed_its_game_fields_none_of_it(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Process b musters its game from the campaign as it stood before process a listed a
    game fielding the same units (its claim and commit come after): b's game is removed and
    refused, never listed beside a's with the same units; linked again, b's muster sees
    them held."""
    store_a, store_b = two_stores
    first = await _campaign(store_a)
    second = Process(store_b, "b")
    await first(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=THIRD, leave=HALF)
    real = commands.claim_number
    raced = False

    async def after_a_links(*args: Any) -> Any:
        nonlocal raced
        if not raced:  # b has mustered: a lists game 2 with the units left by game 1
            raced = True
            await first(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIFTH)
        return await real(*args)

    monkeypatch.setattr(commands, "claim_number", after_a_links)
    seen = await second.outcome(
        CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FOURTH
    )
    assert raced and seen == "error.service.conflict", seen
    state = await linked_games_agree(store_a)
    assert [(g.number, g.channel) for g in state.games] == [(1, THIRD), (2, FIFTH)]
    await _fielded_once(store_a, state)
    again = await second.outcome(
        CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FOURTH
    )
    assert again == "error.campaign.side_held", again
    await linked_games_agree(store_a)


#: Units of avamposto game 1 leaves behind in the race above: half of each side's.
HALF = "devastatori,veterani,motopredoni,mortai"


async def _fielded_once(store: Any, state: CampaignState) -> None:
    """No roster entry is on the field of two listed games (read from their documents)."""
    seen: dict[tuple[str, str], int] = {}
    battle = get_ruleset("w40k4").rules.battle
    for entry in state.games:
        for piece in battle((await store.load(entry.channel)).document).pieces:
            if state.rosters[piece.side].entry(piece.id) is not None:
                assert seen.setdefault((piece.side, piece.id), entry.number) == entry.number


async def test_the_end_racing_a_new_game_lists_it_first_or_refuses_it(two_stores: Any) -> None:
    store_a, store_b = two_stores
    first = await _campaign(store_a)
    second = Process(store_b, "b")
    game, end = await asyncio.gather(
        first.outcome(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=THIRD),
        second.outcome(CAMPAIGN, REFEREE, "campaign.end"),
    )
    state = await linked_games_agree(store_a)
    if game == "ok":  # linked before the end: the end waits for it to be played
        assert [g.channel for g in state.games] == [THIRD] and not state.ended
        assert end == "error.campaign.games_unsettled", end
    else:
        assert state.ended and state.games == [] and end == "ok", (game, end)


async def test_a_link_that_loses_the_race_lists_its_game_made_once(
    two_stores: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's join lands between the game's creation and ``campaign.game``: the
    game is listed as game 1, the one made by the first attempt (not made again)."""
    store_a, store_b = two_stores
    first = await _campaign(store_a)
    second = Process(store_b, "b")
    real = commands.link_game

    async def raced(*args: Any) -> Any:
        await real(*args)
        await second(CAMPAIGN, CARLA, "campaign.join", side="predoni")

    monkeypatch.setattr(commands, "link_game", raced)
    reply = await first(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=THIRD)
    assert [n.key for n in reply.notices][:1] == ["bot.campaign.linked"]
    state = await linked_games_agree(store_a)
    assert [(g.number, g.channel) for g in state.games] == [(1, THIRD)]
    created = [e for e in await store_a.events(THIRD, after_seq=0, limit=50)]
    assert [e.verb for e in created][:1] == ["game.created"]
    assert created[0].interaction_id == "a6/game"  # the sixth command of process a
    # Predoni has a player: her join landed as a request (seats by consent), still an event
    # the link had to be retried over.
    assert state.requests == {CARLA: "predoni"}
