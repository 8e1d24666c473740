"""The turn sequence (SEQUENZA DEL TURNO): phases, player turns, owed checks at a phase's end."""

from __future__ import annotations

from rules.core import ending
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.w40k4 import lookups, victory
from rules.w40k4.model import (
    Phase,
)
from rules.w40k4.orders import Next
from rules.w40k4.state import PHASES, Applied, PendingTest, W40kState
from rules.w40k4.tables import load_tables
from rules.w40k4.turn.common import is_locked
from rules.w40k4.turn.reserves import roll_reserves


def awaiting(state: W40kState) -> str | None:
    """The side whose move it is: the side owing a test first, else the active player."""
    if state.ended:
        return None
    if state.pending:
        return state.units[state.pending[0].unit].side
    return state.active


def do_next(
    state: W40kState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/turn next: close the phase once nothing is owed."""
    if actor_side is not None and actor_side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    # What is owed (tests, templates, arrivals, combats) was refused by the declared
    # sequence (rules/w40k4/sequence.yaml) before this handler; the referee moving on
    # leaves the arrivals in reserve.
    if state.phase is Phase.MOVEMENT:
        for unit in state.ordered():
            if unit.side == state.active and unit.alive and unit.location == "arriving":
                unit.location = "reserve"
    if state.phase in (Phase.MOVEMENT, Phase.SHOOTING) and owe_losses_tests(state, result):
        state.closing = True
        result.notices.append(Outcome.of("w40k4.turn.closing", phase=state.phase.value))
        return
    advance(state, result, tray)


def owe_losses_tests(state: W40kState, result: Applied) -> bool:
    """CONTROLLI DI MORALE: 25% or more lost in this phase → a check at its end."""
    fraction = float(load_tables()["controlli_morale"].row_by_id("losses").data["fraction"])
    owed = False
    for unit in state.ordered():
        if (
            unit.on_table
            and not unit.vehicle
            and unit.ld is not None
            and not unit.has("falling_back")
            and not is_locked(unit)
            and unit.phase_losses > 0
            and unit.phase_losses >= fraction * unit.phase_start
        ):
            state.pending.append(PendingTest(unit=unit.id, reason="losses"))
            result.notices.append(
                Outcome.of(
                    "w40k4.turn.morale_owed",
                    unit=unit.name,
                    lost=unit.phase_losses,
                    start=unit.phase_start,
                )
            )
            owed = True
    return owed


def advance(state: W40kState, result: Applied, tray: DiceTray | None) -> None:
    """Close the phase: into the next one, or the next player's turn."""
    state.closing = False
    if state.phase is Phase.ASSAULT:
        end_player_turn(state, result, tray)
        return
    enter_phase(state, PHASES[PHASES.index(state.phase) + 1], result, tray)


def enter_phase(state: W40kState, phase: Phase, result: Applied, tray: DiceTray | None) -> None:
    """Start a phase: losses counted afresh; a movement phase rolls reserves, owes regroups."""
    state.phase = phase
    state.resolved_combats = []
    for unit in state.ordered():
        unit.phase_start = unit.models
        unit.phase_losses = 0
    result.notices.append(
        Outcome.of(
            "w40k4.turn.phase",
            turn=state.turn,
            side=state.sides[state.active],
            phase=phase.value,
        )
    )
    if phase is not Phase.MOVEMENT:
        return
    if tray is not None:
        roll_reserves(state, result, tray)
    for unit in state.ordered():
        if unit.side != state.active or not unit.alive:
            continue
        if unit.location == "table" and unit.has("falling_back") and not is_locked(unit):
            state.pending.append(PendingTest(unit=unit.id, reason="regroup"))


def end_player_turn(state: W40kState, result: Applied, tray: DiceTray | None) -> None:
    """Hand over to the other player, or start the next game turn, or end the game."""
    closing = state.player_turn
    for unit in state.ordered():
        unit.timed = {k: v for k, v in unit.timed.items() if v > closing}
        unit.charged = False
    if state.active == state.first_side:
        state.active = state.other_side(state.first_side)
    else:
        if victory.turn_over(state, result):
            return
        if ending.last_turn(state, result):
            end_game(state, result)
            return
        state.turn += 1
        state.active = state.first_side
    for unit in state.ordered():
        if unit.side == state.active:
            unit.moved = unit.fired = unit.assaulted = False
            unit.entered = unit.deep_struck = unit.mishap_rolled = False
            unit.moved_inches = 0
            unit.speed = None
            unit.fired_types = []
            unit.fired_at = None
    enter_phase(state, Phase.MOVEMENT, result, tray)


def end_game(state: W40kState, result: Applied) -> None:
    """The game ends: units still off the table are destroyed (standard rule)."""
    state.ended = True
    if lookups.standard("fine_partita").get("reserves_destroyed"):
        for unit in state.ordered():
            if unit.alive and unit.location != "table":
                unit.add("destroyed")
                result.notices.append(Outcome.of("w40k4.turn.lost_in_reserve", unit=unit.name))
    victory.finish(state, result)
    result.notices.append(Outcome.of("w40k4.turn.game_over", turn=state.turn))
