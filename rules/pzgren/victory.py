"""Victory in pzgren: the game state as :mod:`rules.core.score` reads it.

The seed says nothing of victory (docs/pzgren.md, "Victory", says what was chosen): the
scenario's own hexes, exits and step losses. A unit with steps left is in play; a combat
unit (not a transport, not an aircraft) that is not demoralized may hold a hex; a
demoralized unit counts as broken. A side with no unit left ends the game, as it always
has in this ruleset; the scenario's sudden death may add more.
"""

from __future__ import annotations

from rules.core import ending
from rules.core.score import Battle, Ending, EndingKind, Level, Piece
from rules.pzgren.model import Category, MoraleState
from rules.pzgren.scenario import VICTORY_DIALECT as DIALECT
from rules.pzgren.state import Applied, PzgrenState, UnitState


def _place(unit: UnitState) -> str | None:
    if unit.air or not unit.alive:
        return None
    where = unit.position
    return f"{where.q},{where.r}"


def battle(state: PzgrenState) -> Battle:
    """The state as victory reads it."""
    pieces = tuple(
        Piece(
            id=unit.id,
            side=unit.side,
            in_play=unit.alive,
            may_score=unit.alive
            and not unit.air
            and unit.category is Category.COMBAT
            and unit.status is not MoraleState.DEMORALIZED,
            strength=max(unit.steps, 0),
            initial=unit.initial_steps,
            hex=_place(unit),
            fighting=not unit.air,
            broken=unit.status is MoraleState.DEMORALIZED,
        )
        for unit in state.units.values()
    )
    return Battle(
        DIALECT,
        dict(state.sides),
        state.turn,
        pieces,
        map_size=(state.columns, state.rows),
    )


def settle(state: PzgrenState, result: Applied) -> bool:
    """After a command: sudden death (a side wiped out or broken)."""
    return ending.settle(state, battle, result)


def wiped_out(state: PzgrenState, side: str, result: Applied) -> None:
    """A side with no unit left: the game ends, won decisively by the other (once: owed
    steps and morale checks are still taken after the end)."""
    if state.victory.result is not None:
        return
    ending.conclude(
        state,
        battle(state),
        Ending(EndingKind.SUDDEN_DEATH, state.turn, side, "wiped_out"),
        result,
        winner=state.other_side(side),
        level=Level.DECISIVE,
    )


def turn_over(state: PzgrenState, result: Applied) -> bool:
    """At the end of a turn: objectives of stated turns, an objective that ends the game."""
    return ending.turn_over(state, battle, result)


def finish(state: PzgrenState, result: Applied) -> None:
    """At the turn limit: the result by the score."""
    ending.finish(state, battle, result)
