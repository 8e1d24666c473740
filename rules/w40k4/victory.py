"""Victory in w40k4: the game state as :mod:`rules.core.score` reads it.

The quick reference says nothing of victory but one line: a unit delayed in reserve "Se è
così sfortunata da terminare la partita in riserva, è considerata distrutta" (seed line 98,
INCIDENTI - ATTACCO IN PROFONDITÀ, 5-6 Ritardo), which the end of the game applies before
the result is computed (:func:`rules.w40k4.turn.sequence.end_game`). The rest follows the 4th
edition's scoring units, as clubs playing it expect (docs/w40k4.md, "Victory"): a unit on
the table may score unless it is a vehicle, is falling back, or is below half its starting
strength; a unit falling back counts as broken. Losses are counted in models.
"""

from __future__ import annotations

from rules.core import ending
from rules.core.score import Battle, Piece
from rules.w40k4.scenario import VICTORY_DIALECT as DIALECT
from rules.w40k4.state import Applied, UnitState, W40kState


def _may_score(unit: UnitState) -> bool:
    return (
        unit.on_table
        and not unit.vehicle
        and not unit.has("falling_back")
        and unit.models * 2 >= unit.initial_models
    )


def battle(state: W40kState) -> Battle:
    """The state as victory reads it."""
    pieces = tuple(
        Piece(
            id=unit.id,
            side=unit.side,
            in_play=unit.alive,
            may_score=_may_score(unit),
            strength=unit.models if unit.alive else 0,
            initial=unit.initial_models,
            at=unit.at if unit.on_table else None,
            broken=unit.has("falling_back"),
        )
        for unit in state.ordered()
    )
    return Battle(DIALECT, dict(state.sides), state.turn, pieces, state.battlefield)


def settle(state: W40kState, result: Applied) -> None:
    """After a command: sudden death (a side wiped out or broken)."""
    ending.settle(state, battle, result)


def turn_over(state: W40kState, result: Applied) -> bool:
    """At the end of a turn: objectives of stated turns, an objective that ends the game."""
    return ending.turn_over(state, battle, result)


def finish(state: W40kState, result: Applied) -> None:
    """At the turn limit: the result by the score."""
    ending.finish(state, battle, result)
