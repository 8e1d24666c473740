"""Legal actions of pzgren: listed actions are accepted, owed ones block, games reach their end."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.legal import for_seat, owed
from rules.pzgren import legal
from rules.pzgren import turn as g
from rules.pzgren.surface import PLAY
from tests.core.legal_loop import play_random_game
from tests.pzgren.test_game import fire, small


@pytest.mark.parametrize("seed", range(6))
def test_random_legal_games_reach_the_scenarios_end(seed: int) -> None:
    log = play_random_game(PLAY, "exemple_ardennes", seed)
    assert log.ended
    assert log.verbs.get("fire", 0) > 0 and log.verbs.get("move", 0) > 0


TWO_PLATOONS = (
    "{id: b_one, name: One, type: infantry, hex: '3,0', fire: 7, range: 3, movement: 2,"
    " steps: 2, morale: 8},"
    "{id: b_two, name: Two, type: infantry, hex: '3,0', fire: 7, range: 3, movement: 2,"
    " steps: 2, morale: 8}"
)
SHOOTER = (
    "{id: a_inf, name: Rifles, type: infantry, hex: '1,0', fire: 7, range: 3, movement: 2,"
    " steps: 2, morale: 7}"
)


def test_an_x_with_a_choice_is_an_owed_step_of_the_owner():
    """'Prima Allemands deve assegnare 1 passo di perdita': owed, listed, /turn next refused."""
    table = small(SHOOTER, TWO_PLATOONS)
    table(fire("a_inf", hex="3,0"), "a", [1, 1])  # X: one step, two platoons to choose from
    actions = legal.legal_actions(table.state)
    assert [(a.verb, a.side, a.owed) for a in actions] == [("step", "b", True)]
    assert actions[0].free[0].choices == ("b_one", "b_two")
    assert for_seat(actions, "a") == []
    for side in ("a", "b", None):
        error = table.refused(g.Next(), side, "error.pzgren.steps_owed")
        assert error.localized("en").startswith("Not now: B must first assign 1 step loss")
    # the owner answers, then both platoons owe their M2 (the X legend)
    table(g.Step(unit="b_two"), "b")
    actions = legal.legal_actions(table.state)
    assert [(a.verb, a.side, a.unit) for a in owed(actions)] == [
        ("morale", "b", "b_one"),
        ("morale", "b", "b_two"),
    ]
    assert owed(actions) == actions
    table.refused(g.Next(), "b", "error.pzgren.morale_owed")


def test_the_referee_can_always_assign_an_owed_step():
    table = small(SHOOTER, TWO_PLATOONS)
    table(fire("a_inf", hex="3,0"), "a", [1, 1])
    table(g.Step(unit="b_one"), None)
    assert table.state.pending_steps == []
    assert table.state.units["b_one"].steps == 1


def test_moves_list_the_destination_hexes_the_handler_accepts():
    table = small(SHOOTER, TWO_PLATOONS)
    actions = legal.legal_actions(table.state)
    move = next(a for a in actions if a.verb == "move" and a.free)
    hexes = move.free[0].choices
    assert "3,0" not in hexes and "1,0" not in hexes  # enemies; where it stands
    assert "0,0" in hexes and "2,0" in hexes
    for where in hexes:
        g.apply(table.state, g.Move(unit="a_inf", hex=where), ScriptedDice([]), actor_side="a")
    for where in ("3,0", "4,0", "1,0"):
        try:
            g.apply(table.state, g.Move(unit="a_inf", hex=where), ScriptedDice([]), actor_side="a")
        except RulesError:
            continue
        raise AssertionError(f"{where} accepted but not listed")


def test_opportunity_fire_is_offered_at_the_unit_that_moved():
    table = small(SHOOTER, TWO_PLATOONS)
    table(g.Move(unit="a_inf", hex="2,0"), "a")
    actions = legal.legal_actions(table.state)
    chances = [a for a in actions if a.options.get("opportunity") == "true"]
    assert {(a.side, a.unit, a.options.get("hex")) for a in chances} == {
        ("b", "b_one", "2,0"),
        ("b", "b_two", "2,0"),
    }
    table(fire("b_one", hex="2,0", opportunity=True), "b", [6, 6])
    assert table.state.units["b_one"].acted
