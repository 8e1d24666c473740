"""Reserves and deep strike: units arriving from reserve, deep strikes and their mishaps."""

from __future__ import annotations

from rules.core.battlefield import Overlay, Point
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome, Resolution
from rules.w40k4 import field, lookups
from rules.w40k4.model import (
    Terrain,
)
from rules.w40k4.orders import Move
from rules.w40k4.procedures import checks
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.turn.common import lose_models, resolve
from rules.w40k4.turn.effects import dangerous_tests


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
    aimed: Point | None = None
    if state.battlefield is not None:
        if command.to is None:
            raise IllegalAction("error.w40k4.needs_to", unit=unit.name)
        aimed = field.destination(state, field.start_of(state, unit), command.to)
    resolution = resolve("deep_strike", checks.DeepStrikeInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.location = "table"
    unit.entered = unit.deep_struck = unit.moved = True
    if command.cover is not None:
        unit.cover = lookups.cover_save(command.cover)[2]
    else:
        unit.cover = None
    if aimed is not None:
        _land(state, unit, aimed, resolution, tray, result)


def _land(
    state: W40kState,
    unit: UnitState,
    aimed: Point,
    resolution: Resolution,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Where a deep strike lands on the battlefield; off the table or on another unit the
    mishap is rolled at once (INCIDENTI); in difficult terrain it counts as dangerous."""
    battlefield = field.field_of(state)
    moved = float(resolution.outcome.param("inches", 0) or 0)
    clock = _clock(resolution)
    # Not in the seed: a deep strike has no firer, so the clock's 12 points to the top edge.
    x, y = field.scatter_point(aimed, clock, moved, 0.0)
    landed = field.drawn(battlefield, x, y)
    overlays = [Overlay(kind="point", points=(aimed,), label=unit.id)]
    if moved:
        overlays.append(Overlay(kind="arrow", points=(aimed, landed)))
    field.remember(state, "w40k4.map.deep_strike", overlays, unit=unit.name, inches=f"{moved:g}")
    problem = field.landing_problem(state, unit, x, y)
    unit.mishap_rolled = True  # the bot sees the landing: no mishap is asked for later
    if problem is None:
        field.place(state, unit, field.spot(x, y))
        if lookups.terrain_move(field.terrain_of(battlefield, landed)[0]) is not Terrain.OPEN:
            dangerous_tests(state, unit, "vehicles" if unit.vehicle else "models", tray, result)
        return
    result.notices.append(Outcome.of(f"w40k4.field.landing_{problem}", unit=unit.name))
    effect = _roll_mishap(state, unit, tray, result)
    if effect == "misplaced":
        # the opponent deploys it: the bot keeps it where it was aimed
        field.place(state, unit, aimed)
        terrain = field.terrain_of(battlefield, aimed)[0]
        if lookups.terrain_move(terrain) is not Terrain.OPEN:
            dangerous_tests(state, unit, "vehicles" if unit.vehicle else "models", tray, result)
    else:
        unit.at = None


def _clock(resolution: Resolution) -> int:
    for step in resolution.steps:
        if step.key == "w40k4.step.scatter_distance":
            return int(dict(step.params).get("clock", 12) or 12)
    return 12


def _roll_mishap(state: W40kState, unit: UnitState, tray: DiceTray, result: Applied) -> str:
    resolution = resolve("mishap", checks.MishapInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.mishap_rolled = True
    effect = resolution.outcome.key.rsplit(".", 1)[-1]
    if effect == "destroyed":
        lose_models(state, unit, None)
    elif effect == "delayed":
        unit.location = "reserve"
        unit.deep_struck = unit.entered = unit.moved = False
    return effect


def mishap(
    state: W40kState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    """INCIDENTI - ATTACCO IN PROFONDITÀ, after a deep strike that landed badly."""
    if not unit.deep_struck or unit.mishap_rolled:
        raise IllegalAction("error.w40k4.no_mishap", unit=unit.name)
    effect = _roll_mishap(state, unit, tray, result)
    if effect != "misplaced":
        return
    if command.terrain not in (None, Terrain.OPEN):
        dangerous_tests(state, unit, "vehicles" if unit.vehicle else "models", tray, result)
