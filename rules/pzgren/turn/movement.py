"""Moving, holding and rallying a unit (``/move``, ``/morale action:recover``)."""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.pzgren.field import Hex, distance, parse_hex
from rules.pzgren.model import Category, MoraleState
from rules.pzgren.orders import Hold, Move, Recover
from rules.pzgren.procedures import morale
from rules.pzgren.scenario import terrain_data
from rules.pzgren.state import (
    Applied,
    PzgrenState,
    UnitState,
)
from rules.pzgren.turn.common import _acting_unit, _resolve
from rules.pzgren.turn.effects import _apply_effects
from rules.pzgren.turn.sequence import _end_activation


def _stacking_limit() -> int:
    return int(terrain_data()["stacking"]["combat_units"])


def check_move(
    state: PzgrenState,
    unit: UnitState,
    destination: Hex,
    occupancy: Mapping[str, list[UnitState]] | None = None,
) -> int:
    """Refuse a move the rules forbid (off the map, too far, into enemies, overstacked).

    Returns the distance moved. The handler and the legal-action listing both call it (the
    listing, asking of every hex in reach, passes the state's :meth:`~PzgrenState.occupancy`).
    """
    where = str(destination)
    if not state.on_map(destination):
        raise IllegalAction("error.pzgren.off_map", hex=where)
    steps = distance(unit.position, destination)
    if steps == 0:
        raise IllegalAction("error.pzgren.already_there", unit=unit.name, hex=where)
    if unit.air or steps > unit.movement:
        raise IllegalAction(
            "error.pzgren.too_far", unit=unit.name, distance=steps, movement=unit.movement
        )
    occupants = state.units_in(where) if occupancy is None else occupancy.get(where, [])
    if any(u.side != unit.side for u in occupants):
        raise IllegalAction("error.pzgren.enemy_hex", hex=where)
    if unit.category is Category.COMBAT:
        combat = sum(1 for u in occupants if u.category is Category.COMBAT)
        if combat + 1 > _stacking_limit():
            raise IllegalAction("error.pzgren.stacking", hex=where, limit=_stacking_limit())
    return steps


def _do_move(
    state: PzgrenState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    destination = parse_hex(command.hex)
    where = str(destination)
    steps = check_move(state, unit, destination)
    unit.hex = where
    unit.moved = True
    unit.dug_in = False
    unit.acted = True
    state.moved_last = [unit.id]
    result.notices.append(
        Outcome.of("pzgren.action.moved", unit=unit.name, hex=where, distance=steps)
    )
    _end_activation(state, unit.side, result)


def _do_hold(
    state: PzgrenState, command: Hold, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    unit.acted = True
    state.moved_last = []
    result.notices.append(Outcome.of("pzgren.action.hold", unit=unit.name))
    _end_activation(state, unit.side, result)


def _do_recover(
    state: PzgrenState, command: Recover, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.status is MoraleState.GOOD_ORDER:
        raise IllegalAction("error.pzgren.not_shaken", unit=unit.name)
    resolution = _resolve(
        "morale",
        morale.MoraleInput(morale=unit.morale, status=unit.status, rally=True, target=unit.id),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)
    unit.acted = True
    state.moved_last = []
    _end_activation(state, unit.side, result)
