"""Victory in linea_gotica: the game state as :mod:`rules.core.score` reads it.

The seed says nothing of victory (docs/linea_gotica.md, "Victory", says what was chosen),
but it speaks of a squad without its leader: "Nel caso un caposquadra o caposezione venga
ucciso tutta la sua squadra/sezione si considererà isolata finché il caposquadra/
caposezione non sia stato rimpiazzato" (seed line 80). Such a squad may not score and
counts as broken, as does a squad whose every soldier still in play is in panic, and a
vehicle whose crew is; vehicles never score. Losses are counted in figures (a vehicle is
one); a vehicle destroyed or abandoned, a squad with no soldier left, is destroyed.
"""

from __future__ import annotations

from rules.core import ending
from rules.core.game import Applied as CoreApplied
from rules.core.score import Battle, Piece
from rules.linea_gotica.scenario import VICTORY_DIALECT as DIALECT
from rules.linea_gotica.state import GameState, UnitState

Applied = CoreApplied[GameState]


def _strength(unit: UnitState) -> tuple[int, int]:
    """Figures now (soldiers in play; a vehicle is one) and at the start."""
    if unit.vehicle is not None:
        return (1 if unit.alive else 0), 1
    return sum(1 for f in unit.figures if f.alive), len(unit.figures)


def _broken(unit: UnitState) -> bool:
    if unit.vehicle is not None:
        return unit.crew_panic
    living = [f for f in unit.figures if f.alive]
    return unit.leaderless or (bool(living) and all(f.panic for f in living))


def battle(state: GameState) -> Battle:
    """The state as victory reads it."""
    pieces = []
    for unit in state.units.values():
        strength, initial = _strength(unit)
        broken = unit.alive and _broken(unit)
        pieces.append(
            Piece(
                id=unit.id,
                side=unit.side,
                in_play=unit.alive,
                may_score=unit.alive and unit.vehicle is None and not broken,
                strength=strength,
                initial=initial,
                at=state.positions.get(unit.id),
                broken=broken,
                hidden=unit.hidden,
            )
        )
    return Battle(DIALECT, dict(state.sides), state.turn, tuple(pieces), state.field)


def settle(state: GameState, result: Applied) -> bool:
    """After a command: sudden death (a side wiped out or broken)."""
    return ending.settle(state, battle, result)


def turn_over(state: GameState, result: Applied) -> bool:
    """At the end of a turn: objectives of stated turns, an objective that ends the game."""
    return ending.turn_over(state, battle, result)


def finish(state: GameState, result: Applied) -> None:
    """At the turn limit: the result by the score."""
    ending.finish(state, battle, result)
