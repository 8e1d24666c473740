"""Victory in manovra: the game state as :mod:`rules.core.score` reads it.

The seed says nothing of victory (docs/manovra.md, "Victory", says what was chosen): a
unit in play may score unless it is a vehicle (the unit types' ``vehicle``), in panic
("l'unità è in panico e deve ritirarsi", seed line 190) or off the table; a unit in panic
counts as broken, an abandoned vehicle as destroyed; losses are counted in models.
"""

from __future__ import annotations

from rules.core import ending
from rules.core.game import Applied
from rules.core.score import Battle, Piece
from rules.manovra.scenario import VICTORY_DIALECT as DIALECT
from rules.manovra.state import ManovraState, UnitState


def _in_play(unit: UnitState) -> bool:
    return unit.alive and not unit.has("abandoned")


def battle(state: ManovraState) -> Battle:
    """The state as victory reads it."""
    pieces = []
    for unit in state.units.values():
        off_table = state.platoons[unit.platoon].off_table
        in_play = _in_play(unit)
        pieces.append(
            Piece(
                id=unit.id,
                side=unit.side,
                in_play=in_play,
                may_score=in_play
                and not unit.has("panic")
                and not bool(unit.kind.get("vehicle"))
                and not off_table,
                strength=unit.models if in_play else 0,
                initial=unit.initial_models,
                at=None if off_table else unit.position,
                fighting=not off_table,
                broken=unit.has("panic"),
                hidden=unit.has("concealed"),
            )
        )
    return Battle(DIALECT, dict(state.sides), state.turn, tuple(pieces), state.battlefield)


def settle(state: ManovraState, result: Applied[ManovraState]) -> bool:
    """After a command: sudden death (a side wiped out or broken)."""
    return ending.settle(state, battle, result)


def turn_over(state: ManovraState, result: Applied[ManovraState]) -> bool:
    """At the end of a turn: objectives of stated turns, an objective that ends the game."""
    return ending.turn_over(state, battle, result)


def finish(state: ManovraState, result: Applied[ManovraState]) -> None:
    """At the turn limit: the result by the score."""
    ending.finish(state, battle, result)
