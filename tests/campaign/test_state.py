"""The campaign's pure fold: events checked, the standings recounted from the results."""

from __future__ import annotations

import pytest

from rules.campaign.events import (
    CampaignAdjust,
    CampaignAftermath,
    CampaignConfirm,
    CampaignCreated,
    CampaignEnded,
    CampaignGame,
    CampaignJoined,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
    Points,
    event_json,
    event_of,
)
from rules.campaign.roster import Roster, RosterEntry
from rules.campaign.state import CampaignState, apply, replay, standings
from rules.core.errors import RulesError

SIDES = {"alleati": "Alleati", "asse": "Asse"}


def _created() -> CampaignCreated:
    return CampaignCreated(
        ruleset="manovra",
        name="Normandia",
        points=Points(win=3, draw=1, loss=0),
        sides=SIDES,
        referee=1,
    )


def _result(game: int, winner: str | None, allies: int, axis: int) -> CampaignResult:
    return CampaignResult(
        number=game,
        winner=winner,
        scores={"alleati": allies, "asse": axis},
        ending="turn_limit",
        final_hash=f"h{game}",
    )


def _campaign() -> list:
    return [
        _created(),
        CampaignJoined(side="alleati", user=2),
        CampaignJoined(side="asse", user=3),
        CampaignGame(number=1, channel=100, scenario="a"),
        _result(1, "alleati", 5, 1),
        CampaignGame(number=2, channel=101, scenario="b"),
        _result(2, None, 2, 2),
        CampaignGame(number=3, channel=102, scenario="c"),
        _result(3, "asse", 0, 3),
    ]


def test_standings_recount_the_results() -> None:
    table = standings(replay(_campaign()))
    assert [
        (s.side, s.played, s.wins, s.draws, s.losses, s.points, s.difference) for s in table
    ] == [
        ("alleati", 3, 1, 1, 1, 4, 1),
        ("asse", 3, 1, 1, 1, 4, -1),
    ]


def test_points_difference_breaks_a_tie_and_points_come_first() -> None:
    events = [
        *_campaign()[:5],
        CampaignGame(number=2, channel=101, scenario="b"),
        _result(2, "asse", 0, 1),
    ]
    table = standings(replay(events))
    assert [s.side for s in table] == ["alleati", "asse"]  # 3 points each, +3 against -3
    events = [
        *_campaign()[:3],
        CampaignGame(number=1, channel=100, scenario="a"),
        _result(1, "asse", 9, 10),
    ]
    assert [s.side for s in standings(replay(events))] == ["asse", "alleati"]


def test_a_reversal_takes_a_result_out_and_it_may_enter_again() -> None:
    events = [*_campaign()[:5], CampaignReversal(number=1, final_hash="h1")]
    state = replay(events)
    assert state.game(1).result is None
    assert all(s.played == 0 for s in standings(state))
    state = apply(state, _result(1, "asse", 0, 2))
    assert standings(state)[0].side == "asse"


@pytest.mark.parametrize(
    ("event", "key"),
    [
        (CampaignJoined(side="nessuno", user=4), "error.campaign.unknown_side"),
        (CampaignJoined(side="asse", user=2), "error.campaign.already_joined"),
        (CampaignGame(number=3, channel=101, scenario="x"), "error.campaign.game_in_play"),
        (_result(1, "alleati", 1, 0), "error.campaign.result_held"),
        (_result(9, "alleati", 1, 0), "error.campaign.not_linked"),
        (CampaignReversal(number=1, final_hash="other"), "error.campaign.no_result"),
        (_created(), "error.campaign.exists"),
    ],
)
def test_illegal_events_are_refused_and_change_nothing(event: object, key: str) -> None:
    state = replay(_campaign()[:6])  # game 1 has its result, game 2 is in play
    before = state.to_json()
    with pytest.raises(RulesError) as refused:
        apply(state, event)  # type: ignore[arg-type]
    assert refused.value.key == key
    assert state.to_json() == before


def test_an_ended_campaign_takes_nothing_more_and_unsettled_games_hold_the_end() -> None:
    state = replay([*_campaign()[:3], CampaignGame(number=1, channel=100, scenario="a")])
    with pytest.raises(RulesError) as refused:
        apply(state, CampaignEnded())
    assert refused.value.key == "error.campaign.games_unsettled"
    state = apply(apply(state, _result(1, None, 0, 0)), CampaignEnded())
    with pytest.raises(RulesError) as refused:
        apply(state, CampaignGame(number=2, channel=101, scenario="b"))
    assert refused.value.key == "error.campaign.ended"


def test_events_and_state_round_trip_through_json() -> None:
    events = _campaign()
    assert [event_of(event_json(e)) for e in events] == events
    state = replay(events)
    assert CampaignState.from_json(state.to_json()) == state


def _at_full(side: str, **units: int) -> CampaignRoster:
    """A roster event setting ``side``'s units (id: strength), each at full strength."""
    entries = tuple(RosterEntry(id=u, name=u, strength=n, full=n) for u, n in units.items())
    return CampaignRoster(side=side, roster=Roster(side=side, entries=entries))


def _roster_state() -> CampaignState:
    state = replay([_created(), _at_full("alleati", squadra_1=10, sherman_1=5)])
    return apply(state, CampaignGame(number=1, channel=20, scenario="esempio_normandia"))


def test_a_results_losses_become_casualties_and_a_reversal_takes_them_back() -> None:
    state = _roster_state()
    result = _result(1, "asse", 0, 4).model_copy(
        update={"losses": {"alleati": {"squadra_1": 3, "sherman_1": 9, "ghost": 2}}}
    )
    after = apply(state, result)
    roster = after.rosters["alleati"]
    squad, tank = roster.entry("squadra_1"), roster.entry("sherman_1")
    assert squad is not None and (squad.strength, squad.casualties) == (7, 3)
    assert tank is not None and (tank.strength, tank.casualties) == (0, 5)  # never below 0
    assert squad.history[-1].params == {"lost": 3, "game": 1}
    back = apply(after, CampaignReversal(number=1, final_hash=result.final_hash))
    for before in state.rosters["alleati"].entries:
        now = back.rosters["alleati"].entry(before.id)
        assert now is not None and (now.strength, now.casualties) == (before.strength, 0)
    assert back.rosters["alleati"].entry("squadra_1").history[-1].what.endswith("lost_reversed")  # type: ignore[union-attr]


def test_a_roster_is_set_between_games_only() -> None:
    state = _roster_state()
    with pytest.raises(RulesError):
        apply(state, CampaignRoster(side="alleati", roster=Roster(side="alleati")))
    with pytest.raises(RulesError):
        apply(state, CampaignRoster(side="nobody", roster=Roster(side="nobody")))


def _holding_state() -> CampaignState:
    """Two sides with rosters, game 1 fielding the Allies' first squad and the Axis group."""
    return replay(
        [
            _created(),
            _at_full("alleati", squadra_1=10, squadra_2=10),
            _at_full("asse", gruppe_1=9),
            CampaignGame(
                number=1,
                channel=100,
                scenario="a",
                fielded={"alleati": ("squadra_1",), "asse": ("gruppe_1",)},
            ),
        ]
    )


def test_a_unit_in_a_game_not_settled_is_refused_to_another_game() -> None:
    """A game holds the entries it fields from its link until its result is in and its
    aftermath settled: a link fielding one of them is refused, naming the unit and the game
    (the state unchanged); another unit fights beside it; a result, its reversal and the
    referee's correction of the entry hold it still; the aftermath confirmed frees it."""
    state = _holding_state()
    assert state.held_units() == {"alleati": {"squadra_1": 1}, "asse": {"gruppe_1": 1}}

    def game(number: int, *units: str) -> CampaignGame:
        return CampaignGame(
            number=number, channel=100 + number, scenario="a", fielded={"alleati": units}
        )

    with pytest.raises(RulesError) as caught:
        apply(state, game(2, "squadra_2", "squadra_1"))
    assert caught.value.key == "error.campaign.unit_held"
    assert caught.value.params == {"unit": "squadra_1", "number": 1, "game": 2}
    assert "squadra_1" in caught.value.localized("en") and "game 1" in caught.value.localized("en")
    beside = apply(state, game(2, "squadra_2"))
    assert beside.held_units()["alleati"] == {"squadra_1": 1, "squadra_2": 2}
    # Game 1 ends: its result is in, its aftermath owed; undone, ended again; corrected.
    ended = apply(state, _result(1, "alleati", 3, 1))
    undone = apply(ended, CampaignReversal(number=1, final_hash="h1"))
    again = apply(undone, _result(1, "alleati", 3, 1))
    fixed = apply(
        again,
        CampaignAdjust(side="alleati", unit="squadra_1", field="strength", value="8", reason="x"),
    )
    for held in (ended, undone, again, fixed):
        assert held.held_units()["alleati"] == {"squadra_1": 1}
        with pytest.raises(RulesError):
            apply(held, game(2, "squadra_1"))
    rolled = apply(fixed, CampaignAftermath(number=1, sides={}))
    assert rolled.held_units()["alleati"] == {"squadra_1": 1}  # rolled, not yet confirmed
    settled = apply(rolled, CampaignConfirm(number=1, side=None))
    assert settled.held_units() == {}
    freed = apply(settled, game(2, "squadra_1"))
    assert freed.game(2).fielded == {"alleati": ("squadra_1",)}  # type: ignore[union-attr]
    assert freed.rosters["alleati"].entry("squadra_1").strength == 8  # type: ignore[union-attr]


def test_a_game_linked_before_units_were_held_holds_none_and_reads_back_as_stored() -> None:
    """A ``campaign.game`` logged before games held their units names none: it holds
    nothing, and it and the state write back without the field, as they were stored."""
    old = CampaignGame(number=1, channel=100, scenario="a")
    state = apply(replay([_created()]), old)
    assert state.held_units() == {}
    assert "fielded" not in event_json(old)
    assert "fielded" not in state.to_json()["games"][0]
    held = _holding_state()
    assert CampaignState.from_json(held.to_json()) == held
    assert held.to_json()["games"][0]["fielded"] == {"alleati": ["squadra_1"], "asse": ["gruppe_1"]}
