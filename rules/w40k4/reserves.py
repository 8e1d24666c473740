"""Reserves and deep strike: units arriving from reserve, deep strikes and their mishaps."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.w40k4 import checks, lookups
from rules.w40k4.effects import dangerous_tests
from rules.w40k4.model import (
    Terrain,
)
from rules.w40k4.orders import Move
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.units import lose_models, resolve


def roll_reserves(state: W40kState, result: Applied, tray: DiceTray) -> None:
    """TIRI PER LE RISERVE as the active player's movement phase begins (turn 2 on).

    The rolls belong to the side whose reserves they are, though the other player's
    ``/turn next`` may be the command that starts this phase: they are made inside
    ``tray.rolled_by(side)``, so that player's typed dice never feed them.
    """
    if state.turn <= 1:
        return
    side = state.active
    for unit in state.ordered():
        if unit.side != side or not unit.alive or unit.location != "reserve":
            continue
        with tray.rolled_by(side):
            resolution = resolve(
                "reserves", checks.ReservesInput(turn=state.turn, target=unit.id), tray
            )
        result.resolutions.append(resolution)
        if resolution.outcome.key == "w40k4.reserves.arrives":
            unit.location = "arriving"
            result.notices.append(Outcome.of("w40k4.turn.arrives", unit=unit.name))


def deep_strike(
    state: W40kState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    """An arriving unit lands by deep strike (its scatter rolled)."""
    if unit.location != "arriving":
        raise IllegalAction("error.w40k4.not_arriving", unit=unit.name)
    if not unit.deep_strike:
        raise IllegalAction("error.w40k4.no_deep_strike", unit=unit.name)
    resolution = resolve("deep_strike", checks.DeepStrikeInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.location = "table"
    unit.entered = unit.deep_struck = unit.moved = True
    if command.cover is not None:
        unit.cover = lookups.cover_save(command.cover)[2]
    else:
        unit.cover = None


def mishap(
    state: W40kState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    """INCIDENTI - ATTACCO IN PROFONDITÀ, after a deep strike that landed badly."""
    if not unit.deep_struck or unit.mishap_rolled:
        raise IllegalAction("error.w40k4.no_mishap", unit=unit.name)
    resolution = resolve("mishap", checks.MishapInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.mishap_rolled = True
    effect = resolution.outcome.key.rsplit(".", 1)[-1]
    if effect == "destroyed":
        lose_models(state, unit, None)
    elif effect == "delayed":
        unit.location = "reserve"
        unit.deep_struck = unit.entered = unit.moved = False
    elif command.terrain is not Terrain.OPEN:
        dangerous_tests(state, unit, "vehicles" if unit.vehicle else "models", tray, result)
