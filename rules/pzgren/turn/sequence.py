"""Setting up a game and the turn sequence: alternating activations, passes, the end of a
turn and of the game."""

from __future__ import annotations

from typing import Any

from rules.core import ending
from rules.core.dice import DiceTray
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.pzgren import victory
from rules.pzgren.orders import Next
from rules.pzgren.scenario import Scenario
from rules.pzgren.state import (
    Applied,
    HexState,
    PzgrenState,
    UnitState,
)


def new_game(scenario: Scenario) -> PzgrenState:
    """The state at the start of turn 1: the first side activates."""
    units: dict[str, UnitState] = {}
    for side in scenario.sides:
        for spec in side.units:
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                type=spec.type,
                hex=spec.hex,
                fire=spec.fire,
                at=spec.at,
                armour=spec.armour,
                top=(spec.top or "closed") if spec.armour is not None else None,
                range=spec.range,
                movement=spec.movement,
                steps=spec.steps,
                initial_steps=spec.steps,
                morale=spec.morale,
                dug_in=spec.dug_in,
            )
    return PzgrenState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        victory=VictoryRecord(conditions=scenario.victory),
        night_turns=list(scenario.night_turns),
        first_side=scenario.first_side,
        active_side=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        columns=scenario.map.columns,
        rows=scenario.map.rows,
        hexes={key: HexState(**spec.model_dump()) for key, spec in scenario.map.hexes.items()},
        units=units,
    )


def load_state(document: dict[str, Any]) -> PzgrenState:
    """Rebuild a state from its stored JSON document."""
    return PzgrenState.model_validate(document)


def awaiting(state: PzgrenState) -> str | None:
    """The side whose move it is: an owed step choice or morale check first."""
    if state.pending_steps:
        return state.pending_steps[0].side
    if state.pending_morale:
        return state.units[state.pending_morale[0].unit].side
    if state.ended:
        return None
    return state.active_side


def can_act(state: PzgrenState, side: str) -> bool:
    """Whether the side has a unit alive that has not acted this turn."""
    return any(u.side == side and u.alive and not u.acted for u in state.units.values())


def _end_activation(state: PzgrenState, side: str, result: Applied) -> None:
    """The other side activates next if it can; else this side again; else the turn ends."""
    state.passes = 0
    if _side_destroyed(state, result):
        return
    other = state.other_side(side)
    if can_act(state, other):
        state.active_side = other
    elif can_act(state, side):
        state.active_side = side
    else:
        _end_turn(state, result)


def _settle(state: PzgrenState, result: Applied) -> None:
    """After opportunity fire: the active side must still have a unit to act (unless a side
    wiped out or broken has ended the game)."""
    if _side_destroyed(state, result) or victory.settle(state, result):
        return
    side = state.active_side
    if can_act(state, side):
        return
    other = state.other_side(side)
    if can_act(state, other):
        state.active_side = other
    else:
        _end_turn(state, result)


def _side_destroyed(state: PzgrenState, result: Applied) -> bool:
    """A side with no unit left ends the game."""
    for side, name in state.sides.items():
        if not any(u.side == side and u.alive for u in state.units.values()):
            state.ended = True
            victory.wiped_out(state, side, result)
            result.notices.append(Outcome.of("pzgren.turn.side_destroyed", side=name))
            return True
    return False


def _end_turn(state: PzgrenState, result: Applied) -> None:
    if _side_destroyed(state, result) or victory.turn_over(state, result):
        return
    if ending.last_turn(state, result):
        victory.finish(state, result)
        result.notices.append(Outcome.of("pzgren.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.passes = 0
    state.moved_last = []
    state.at_entries = {}
    state.active_side = state.first_side
    for unit in state.units.values():
        unit.acted = unit.moved = False
    key = "pzgren.turn.new_night" if state.turn in state.night_turns else "pzgren.turn.new"
    result.notices.append(Outcome.of(key, turn=state.turn, side=state.sides[state.active_side]))


def _do_next(
    state: PzgrenState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    side = state.active_side
    if actor_side is not None and actor_side != side:
        raise IllegalAction("error.pzgren.not_your_activation", side=state.sides[side])
    state.moved_last = []
    state.passes += 1
    result.notices.append(Outcome.of("pzgren.turn.passed", side=state.sides[side]))
    other = state.other_side(side)
    if state.passes >= 2 or not can_act(state, other):
        _end_turn(state, result)
    else:
        state.active_side = other
