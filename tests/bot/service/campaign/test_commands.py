"""Campaigns through the service, on both store backends: a campaign of three linked games
played to their ends (the last turn with scripted dice, the referee's decision, a
concession), each result entering the campaign's log once with its game's final hash; an
undone end reversed by a logged event; the standings equal to the recount of the results
and the state equal to the replay of the log; bad commands refused, nothing written."""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service import GameService, Request
from bot.service.campaign import CAMPAIGN_ARG, follow
from bot.service.stored.campaign import CampaignLink
from rules.campaign.events import event_of
from rules.campaign.state import CampaignState, replay, standings
from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.render import channel_label

REFEREE, ANNA, BRUNO, OUTSIDER = 1, 2, 3, 99
CAMPAIGN, FIRST, SECOND, THIRD = 500, 501, 502, 503
GUILD = 7


class ScriptedDice:
    """Faces by the die's label (the extension roll), or queued, else 3."""

    def __init__(self, **by_label: int) -> None:
        self.by_label = by_label
        self.queue: deque[int] = deque()

    @property
    def by_hand(self) -> bool:
        return False

    def face(self, die: Die, label: str) -> int:
        if self.queue:
            return self.queue.popleft()
        return min(self.by_label.get(label, 3), die.sides)


class Table:
    def __init__(self, store: Any, name: str = "i") -> None:
        """``name``: the prefix of its interaction ids (one per bot process sharing a store)."""
        self.store, self.name = store, name
        self.service = GameService(store, dice=ScriptedDice(extension=3))
        self.count = 0

    async def __call__(self, where: int, user: int, verb: str, /, **options: Any) -> Any:
        self.count += 1
        return await self.service.handle(
            Request(
                where,
                user,
                verb,
                options,
                guild_id=GUILD,
                interaction_id=f"{self.name}{self.count}",
                user_name=f"user{user}",
                locale="en",
            )
        )

    async def seat(self, user: int, side: str) -> Any:
        """The referee invites ``user`` to ``side`` and they join it (no side is taken
        without consent)."""
        await self(CAMPAIGN, REFEREE, "campaign.invite", user=user, side=side)
        return await self(CAMPAIGN, user, "campaign.join", side=side)

    async def refused(self, where: int, user: int, verb: str, key: str, /, **options: Any) -> None:
        before = await self._versions()
        with pytest.raises(RulesError) as caught:
            await self(where, user, verb, **options)
        assert caught.value.key == key, caught.value.key
        assert await self._versions() == before  # nothing written anywhere

    async def _versions(self) -> list[tuple[int, int]]:
        return [(g.channel_id, g.version) for g in await self.store.all_games()]

    async def campaign(self) -> CampaignState:
        return CampaignState.from_json((await self.store.load(CAMPAIGN)).document)

    async def campaign_events(self) -> list[Any]:
        return await self.store.events(CAMPAIGN, after_seq=0, limit=10_000)


async def _campaign(store: Any) -> Table:
    table = Table(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await table.seat(ANNA, "legione")
    await table.seat(BRUNO, "Predoni")  # by its name too
    return table


async def _last_turn(table: Table, channel: int) -> None:
    for _ in range(200):
        reply = await table(channel, REFEREE, "turn.next")
        if getattr(reply, "result", None) is not None:
            return
    raise AssertionError("the game did not end")


async def settle(table: Table, number: int, *, by_players: bool) -> Any:
    """Roll game ``number``'s aftermath (the bot's dice) and confirm it, as the players (each
    side's) or the referee (for all) would, so the next game can be linked: the settling
    reply (after a book's last game it says the book is complete)."""
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=number)
    if by_players:
        await table(CAMPAIGN, ANNA, "campaign.confirm", game=number)
        settled = await table(CAMPAIGN, BRUNO, "campaign.confirm", game=number)
    else:
        settled = await table(CAMPAIGN, REFEREE, "campaign.confirm", game=number)
    keys = {n.key for n in settled.notices}
    assert keys & {"bot.campaign.aftermath_settled", "bot.campaign.aftermath_settled_last"}
    return settled


def _assert_log_is_the_state(events: list[Any], document: dict[str, Any]) -> None:
    """The campaign's state is the replay of its log, event by event."""
    replayed = replay(event_of(e.args[CAMPAIGN_ARG]) for e in events)
    assert replayed.to_json() == document


async def test_three_linked_games_to_their_ends_make_the_standings(any_store: Any) -> None:
    table = await _campaign(any_store)
    store = table.store
    linked = await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    assert linked.notices[0].key == "bot.campaign.linked"
    # The game's first event names its campaign; its players are seated, the referee too.
    first = (await store.events(FIRST, after_seq=0, limit=1))[0]
    origin = first.args["campaign"]
    assert {k: v for k, v in origin.items() if k != "rosters_hash"} == {
        "channel": CAMPAIGN,
        "number": 1,
    }
    # ... and the hash of the rosters it was mustered from, as the campaign's event does.
    logged = [event_of(e.args[CAMPAIGN_ARG]) for e in await store.events(CAMPAIGN, after_seq=0)]
    link_events = [e for e in logged if e.type == "campaign.game"]
    assert origin["rosters_hash"] == link_events[0].rosters_hash  # type: ignore[union-attr]
    seats = {(m.user_id, m.role, m.side) for m in await store.members(FIRST)}
    assert seats == {
        (REFEREE, "referee", None),
        (ANNA, "player", "legione"),
        (BRUNO, "player", "predoni"),
    }
    # Game 1: played to the last turn with scripted dice (no extension: a 3 on the D6).
    await _last_turn(table, FIRST)
    state = await table.campaign()
    game_one = state.game(1)
    assert game_one is not None and game_one.result is not None
    assert game_one.result.final_hash == (await store.load(FIRST)).head_hash
    # Its aftermath is rolled and each side's player confirms it before game 2 is linked.
    await settle(table, 1, by_players=True)
    # Game 2: the referee decides for the Legion.
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="fuga", channel=SECOND)
    ended = await table(SECOND, REFEREE, "game.decide", result="legione", reason="ok")
    assert "bot.campaign.entered" in [n.key for n in ended.notices]
    # The referee rolls game 2's aftermath and validates it for both sides.
    await settle(table, 2, by_players=False)
    # Game 3: the Legion concedes.
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="relitto", channel=THIRD)
    asked = await table(THIRD, ANNA, "game.concede")
    await table(THIRD, ANNA, "game.concede", **asked.confirm)
    state = await table.campaign()
    winners = [entry.result.winner for entry in state.games if entry.result]
    assert winners == [None, "legione", "predoni"]
    # Each result entered exactly once, carrying its game's final hash.
    events = await table.campaign_events()
    assert [e.verb for e in events].count("campaign.result") == 3
    for entry in state.games:
        assert entry.result is not None
        assert entry.result.final_hash == (await store.load(entry.channel)).head_hash
    # Following again changes nothing (the id of each result's event is taken).
    assert await follow(table.service._services, CampaignLink(CAMPAIGN, 2), SECOND) == []
    assert len(await table.campaign_events()) == len(events)
    # The standings: a draw, a win each; the recount of the results agrees.
    lines = {s.side: s for s in standings(state)}
    assert (
        lines["legione"].played,
        lines["legione"].wins,
        lines["legione"].draws,
        lines["legione"].losses,
        lines["legione"].points,
    ) == (3, 1, 1, 1, 4)
    assert (lines["predoni"].wins, lines["predoni"].losses, lines["predoni"].points) == (1, 1, 4)
    assert lines["legione"].difference == -lines["predoni"].difference
    recount = {
        side: sum(3 for e in state.games if e.result and e.result.winner == side)
        + sum(1 for e in state.games if e.result and e.result.winner is None)
        for side in state.sides
    }
    assert {s.side: s.points for s in standings(state)} == recount
    status = await table(CAMPAIGN, ANNA, "campaign.status")
    text = reply_text(status)
    assert "Orbita" in text and "Standings" in text and "3 games, 1-1-1, 4 points" in text
    # The campaign ends; its log is the state, and the store's check holds for it.
    await table(CAMPAIGN, REFEREE, "campaign.end")
    assert (await table.campaign()).ended
    events = await table.campaign_events()
    _assert_log_is_the_state(events, (await store.load(CAMPAIGN)).document)
    assert await store.check() == []
    log = reply_text(await table(CAMPAIGN, ANNA, "campaign.log", count=50))
    assert "result of game 2: Astral Legion won" in log and "campaign ended" in log
    # The guild's games leave the campaign out; /campaign status elsewhere lists it.
    listed = reply_text(await table(FIRST, ANNA, "game.list"))
    assert channel_label(FIRST, True) in listed
    assert "Orbita" not in listed and channel_label(CAMPAIGN, True) not in listed
    elsewhere = reply_text(await table(999, ANNA, "campaign.status"))
    assert "Orbita" in elsewhere and "3 games, over" in elsewhere


async def test_an_undone_end_is_reversed_by_a_logged_event(any_store: Any) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="first call")
    held = (await table.campaign()).game(1)
    assert held is not None and held.result is not None and held.result.winner == "predoni"
    undone = await table(FIRST, REFEREE, "game.undo")
    assert "bot.campaign.reversed" in [n.key for n in undone.notices]
    assert (await table.campaign()).game(1).result is None  # type: ignore[union-attr]
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="second thoughts")
    state = await table.campaign()
    assert state.game(1).result.winner == "legione"  # type: ignore[union-attr]
    verbs = [e.verb for e in await table.campaign_events()]
    assert verbs[-3:] == ["campaign.result", "campaign.reversal", "campaign.result"]
    _assert_log_is_the_state(
        await table.campaign_events(), (await any_store.load(CAMPAIGN)).document
    )
    assert [s.points for s in standings(state)] == [3, 0]


async def test_bad_campaign_commands_are_refused_and_change_nothing(any_store: Any) -> None:
    table = await _campaign(any_store)
    await table.refused(
        CAMPAIGN, OUTSIDER, "campaign.join", "error.campaign.unknown_side", side="orks"
    )
    await table.refused(
        CAMPAIGN, ANNA, "campaign.join", "error.campaign.already_joined", side="predoni"
    )
    await table.refused(
        CAMPAIGN,
        ANNA,
        "campaign.game",
        "error.campaign.referee_only",
        scenario="avamposto",
        channel=FIRST,
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.unknown_scenario",
        scenario="normandia",
        channel=FIRST,
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.same_channel",
        scenario="avamposto",
        channel=CAMPAIGN,
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        "error.campaign.channel_taken",
        ruleset="w40k4",
        name="Again",
    )
    await table.refused(
        600, REFEREE, "campaign.new", "error.campaign.bad_name", ruleset="w40k4", name="x" * 81
    )
    await table.refused(600, REFEREE, "campaign.join", "error.campaign.none", side="legione")
    # A game's command in the campaign's channel: its games have channels of their own.
    await table.refused(CAMPAIGN, REFEREE, "turn.next", "error.campaign.here")
    # A channel playing a game already; a game of the campaign still in play.
    await table(FIRST, OUTSIDER, "game.new", ruleset="w40k4", scenario="avamposto")
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.channel_taken",
        scenario="avamposto",
        channel=FIRST,
    )
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=SECOND)
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.game_in_play",
        scenario="fuga",
        channel=SECOND,
    )
    await table.refused(CAMPAIGN, REFEREE, "campaign.end", "error.campaign.games_unsettled")
    # Refusals speak the players' languages.
    with pytest.raises(RulesError) as caught:
        await table(CAMPAIGN, REFEREE, "campaign.end")
    assert "ancora un risultato" in caught.value.localized("it")
    assert "pas encore de résultat" in caught.value.localized("fr")
