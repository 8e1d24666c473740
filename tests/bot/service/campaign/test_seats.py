"""Who plays a campaign's sides: nobody but the referee takes a side without consent, even
a side with no player yet (the referee, or the side's players, approve a request or
invite), every step logged; a player who joins is seated in the linked games in play."""

from __future__ import annotations

from typing import Any

from rules.campaign.text import page_lines, status_lines
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    REFEREE,
    Table,
    _assert_log_is_the_state,
)

CARLA, DARIO = 4, 5


async def _orbita(store: Any) -> Table:
    table = Table(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await table.seat(ANNA, "legione")
    await table.seat(BRUNO, "predoni")
    return table


async def test_a_side_without_players_is_not_taken_freely(store) -> None:
    table = Table(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    asked = await table(CAMPAIGN, ANNA, "campaign.join", side="legione")
    assert [n.key for n in asked.notices] == ["bot.campaign.join_requested"]
    state = await table.campaign()
    assert state.players["legione"] == [] and state.requests == {ANNA: "legione"}
    # Nobody plays the side yet: only the referee may approve.
    await table.refused(
        CAMPAIGN, BRUNO, "campaign.invite", "error.campaign.not_your_side", user=ANNA
    )
    await table(CAMPAIGN, REFEREE, "campaign.invite", user=ANNA)
    # The referee, the campaign's creator, takes a side with nobody's consent.
    joined = await table(CAMPAIGN, REFEREE, "campaign.join", side="predoni")
    assert [n.key for n in joined.notices] == ["bot.campaign.joined"]
    state = await table.campaign()
    assert state.side_of(ANNA) == "legione" and state.side_of(REFEREE) == "predoni"


async def test_a_side_with_a_player_takes_no_one_without_consent(store) -> None:
    table = await _orbita(store)
    asked = await table(CAMPAIGN, CARLA, "campaign.join", side="predoni")
    assert [n.key for n in asked.notices] == ["bot.campaign.join_requested"]
    state = await table.campaign()
    assert state.side_of(CARLA) is None and state.requests == {CARLA: "predoni"}
    assert any(
        f"<@{CARLA}> asks to play Raiders" in line for line in status_lines(state, "en", True)
    )
    # Not a player: the aftermath's commands are not hers.
    await table.refused(
        CAMPAIGN, CARLA, "campaign.aftermath", "error.campaign.players_only", game=1
    )
    # A player of the other side may not seat her there; the referee approves.
    await table.refused(
        CAMPAIGN, ANNA, "campaign.invite", "error.campaign.not_your_side", user=CARLA
    )
    # The log tells the request in words (it crashed reading an approver a request lacks).
    log = await table(CAMPAIGN, DARIO, "campaign.log")
    shown = "\n".join(page_lines(log.page, log.language))
    assert f"<@{CARLA}>" in shown and "Raiders" in shown
    approved = await table(CAMPAIGN, REFEREE, "campaign.invite", user=CARLA)
    assert [n.key for n in approved.notices] == ["bot.campaign.approved"]
    state = await table.campaign()
    assert state.side_of(CARLA) == "predoni" and state.requests == {}
    events = await table.campaign_events()
    joined = events[-1].args["campaign"]
    assert joined["type"] == "campaign.joined" and joined["by"] == REFEREE
    _assert_log_is_the_state(events, (await store.load(CAMPAIGN)).document)


async def test_a_sides_player_invites_and_the_invited_joins_at_once(store) -> None:
    table = await _orbita(store)
    invited = await table(CAMPAIGN, BRUNO, "campaign.invite", user=DARIO)  # his own side
    assert [n.key for n in invited.notices] == ["bot.campaign.invited"]
    joined = await table(CAMPAIGN, DARIO, "campaign.join", side="predoni")
    assert [n.key for n in joined.notices] == ["bot.campaign.joined"]
    state = await table.campaign()
    assert state.side_of(DARIO) == "predoni" and state.invitations == {}
    log = await table(CAMPAIGN, REFEREE, "campaign.log", count=10)
    assert any(
        f"<@{BRUNO}> invited <@{DARIO}> to play Raiders" in line
        for line in page_lines(log.page, log.language)
    )


async def test_a_player_who_joins_is_seated_in_the_games_in_play(store) -> None:
    table = Table(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await table.seat(ANNA, "legione")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table.seat(BRUNO, "predoni")  # the game has begun
    seats = {m.user_id: (m.role, m.side) for m in await store.members(FIRST)}
    assert seats[BRUNO] == ("player", "predoni") and seats[ANNA] == ("player", "legione")


async def test_the_seats_keep_their_holders_names(store) -> None:
    """The campaign's seats and its games' record the names their holders took them under:
    the replies carry them for the front ends that cannot resolve a mention."""
    table = await _orbita(store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    names = {REFEREE: f"user{REFEREE}", ANNA: f"user{ANNA}", BRUNO: f"user{BRUNO}"}
    assert (await table(CAMPAIGN, CARLA, "campaign.status")).names == names
    assert (await table(CAMPAIGN, CARLA, "campaign.log")).names == names
    game = await table(FIRST, CARLA, "game.status")
    assert {user: game.names.get(user) for user in names} == names


async def test_a_linked_games_seats_follow_the_campaign(store) -> None:
    """In a game of the campaign, a side is taken only by who plays it in the campaign: a
    player of one side does not slip into the other's empty seat (leaving their own), an
    outsider does not sit at a side the campaign seated nobody at, and a player does not
    seat or invite anyone there; the campaign's player of the side comes back by
    ``/game join``, and the referee still reseats anyone."""
    table = Table(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await table.seat(ANNA, "legione")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, ANNA, "game.leave")
    await table.refused(FIRST, ANNA, "game.join", "error.campaign.seat_not_yours", side="predoni")
    await table.refused(FIRST, DARIO, "game.join", "error.campaign.seat_not_yours", side="legione")
    await table(FIRST, ANNA, "game.join", side="legione")
    await table.refused(
        FIRST, ANNA, "seat.approve", "error.campaign.seats_follow", user=DARIO, side="legione"
    )
    seats = {m.user_id: (m.role, m.side) for m in await store.members(FIRST)}
    assert seats == {REFEREE: ("referee", None), ANNA: ("player", "legione")}
    await table(FIRST, REFEREE, "seat.assign", user=DARIO, side="predoni")
    seats = {m.user_id: (m.role, m.side) for m in await store.members(FIRST)}
    assert seats[DARIO] == ("player", "predoni")
