"""The movement phase: moves through terrain, dangerous tests, tank shock."""

from __future__ import annotations

from rules.core.battlefield import Overlay
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.resolution import Outcome
from rules.w40k4 import field, lookups
from rules.w40k4.field import move_limit
from rules.w40k4.model import (
    Phase,
    Speed,
    Terrain,
)
from rules.w40k4.orders import Move
from rules.w40k4.procedures import checks
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.turn.common import (
    acting_unit,
    enemy_target,
    inches,
    is_locked,
    resolve,
    timed_active,
)
from rules.w40k4.turn.effects import dangerous_tests, fall_back
from rules.w40k4.turn.reserves import deep_strike, mishap


def check_move(state: W40kState, unit: UnitState, distance: float) -> int:
    """Refuse a normal move the rules forbid now; returns the unit's move limit.

    The handler and the legal-action listing both call it.
    """
    if unit.location == "reserve":
        raise IllegalAction("error.w40k4.in_reserve", unit=unit.name)
    if unit.moved or unit.entered or unit.deep_struck:
        raise IllegalAction("error.w40k4.already_moved", unit=unit.name)
    if unit.has("falling_back"):
        raise IllegalAction("error.w40k4.falling_back", unit=unit.name)
    if is_locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    moving = distance > 0
    stuck = unit.has("immobilised") or timed_active(state, unit, "stunned")
    if moving and unit.vehicle and stuck:
        raise IllegalAction("error.w40k4.cannot_move", unit=unit.name)
    if unit.location == "arriving" and not moving:
        raise IllegalAction("error.w40k4.must_enter", unit=unit.name)
    limit = move_limit(unit)
    if distance > limit:
        raise IllegalAction("error.w40k4.too_far", unit=unit.name, limit=limit)
    return limit


def do_move(
    state: W40kState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/move: a move (terrain, dangerous tests, cover, speed), a deep strike or a mishap."""
    unit = acting_unit(state, command.unit, actor_side, Phase.MOVEMENT)
    if command.kind == "deepstrike":
        deep_strike(state, unit, command, tray, result)
        return
    if command.kind == "mishap":
        mishap(state, unit, command, tray, result)
        return
    path: field.Route | None = None
    if state.battlefield is not None:
        if command.to is not None or command.distance > 0:
            # the unit's own refusals (locked, already moved, in reserve) come first
            check_move(state, unit, 1 if unit.location == "arriving" else 0)
        command, path = _measured_move(state, unit, command, actor_side, tray, result)
    elif command.to is not None:
        raise InvalidInput("error.w40k4.no_battlefield")
    limit = check_move(state, unit, command.distance)
    moving = command.distance > 0
    cover = lookups.cover_save(command.cover)[2] if command.cover is not None else None
    plan_input = checks.MovementInput(
        unit_type=unit.type,
        distance=command.distance,
        terrain=command.terrain or Terrain.OPEN,
        inside=command.inside,
        fast=unit.fast,
    )
    plan = checks.plan_move(plan_input)
    if moving:
        result.resolutions.append(resolve("movement", plan_input, tray))
    distance = command.distance
    if plan.slowed:
        difficult = resolve(
            "difficult_terrain",
            checks.DifficultTerrainInput(distance=command.distance, limit=min(limit, 24)),
            tray,
        )
        result.resolutions.append(difficult)
        distance = min(distance, float(dict(difficult.outcome.params)["inches"]))
    if moving:
        dangerous_tests(state, unit, plan.dangerous, tray, result)
    unit.moved = distance > 0
    unit.moved_inches = distance
    if unit.vehicle:
        row = lookups.vehicle_row(unit.fast, unit.walker)
        unit.speed = (lookups.vehicle_speed(distance, row) or Speed.STAZIONARIO).value
    if unit.location == "arriving":
        unit.location = "table"
        unit.entered = True
    if moving or command.cover is not None:
        unit.cover = cover
    if path is not None:
        if distance > 0:
            field.walk(state, unit, path, distance)
            field.remember(
                state,
                "w40k4.map.moved",
                [Overlay(kind="arrow", points=(path.start, unit.at or path.end))],
                unit=unit.name,
                inches=inches(distance),
            )
        if command.cover is not None:
            unit.cover = cover
    result.notices.append(
        Outcome.of(
            "w40k4.move.done", unit=unit.name, inches=inches(distance), cover=unit.cover or "-"
        )
    )
    if command.target is not None:
        target = state.unit(command.target)
        if path is not None and target.at is not None and not field.passes_by(path, target.at):
            raise IllegalAction("error.w40k4.tank_shock_path", unit=unit.name, target=target.name)
        _tank_shock(state, unit, command.target, tray, result)


def check_tank_shock(state: W40kState, unit: UnitState, target_id: str) -> UnitState:
    """A tank shock needs a vehicle (not a walker) and an enemy unit that can take the test."""
    if not unit.vehicle or unit.walker:
        raise IllegalAction("error.w40k4.cannot_tank_shock", unit=unit.name)
    target = enemy_target(state, unit, target_id)
    if target.vehicle or target.ld is None or is_locked(target):
        raise IllegalAction("error.w40k4.cannot_tank_shock_target", target=target.name)
    return target


def _tank_shock(
    state: W40kState, unit: UnitState, target_id: str, tray: DiceTray, result: Applied
) -> None:
    if not unit.moved:
        raise IllegalAction("error.w40k4.cannot_tank_shock", unit=unit.name)
    target = check_tank_shock(state, unit, target_id)
    with tray.rolled_by(target.side):  # the tank-shocked unit's own morale check
        test = resolve(
            "leadership",
            checks.LeadershipInput(leadership=target.ld, reason="tank_shock", target=target.id),
            tray,
        )
    result.resolutions.append(test)
    if test.outcome.key == "w40k4.test.failed":
        fall_back(state, target, tray, result)


def _measured_move(
    state: W40kState,
    unit: UnitState,
    command: Move,
    actor_side: str | None,
    tray: DiceTray,
    result: Applied,
) -> tuple[Move, field.Route | None]:
    """On a battlefield the move goes ``to:`` a place: its length, the roughest terrain on
    the way and whether it starts or ends in it are measured (a player's differing
    distance or terrain is refused; the referee's stands). Without ``to:`` only a move that
    changes no position is taken (a vehicle staying put, a new cover)."""
    if command.to is None:
        if command.distance > 0 or unit.location == "arriving":
            raise IllegalAction("error.w40k4.needs_to", unit=unit.name)
        return command, None
    if unit.location == "reserve":
        raise IllegalAction("error.w40k4.in_reserve", unit=unit.name)
    path = field.route(state, unit, command.to)
    distance = field.refuse_typed("distance", command.distance or None, path.inches, actor_side)
    limit = move_limit(unit)
    if distance > limit:
        raise IllegalAction(
            "error.w40k4.too_far_measured", unit=unit.name, inches=inches(distance), limit=limit
        )
    end_cover = lookups.terrain_cover(field.terrain_of(field.field_of(state), path.end)[0])
    if command.cover is not None and actor_side is not None:
        typed = lookups.cover_save(command.cover)[2]
        if typed != end_cover:
            raise IllegalAction(
                "error.w40k4.measured_cover",
                typed=typed or "nessuna",
                measured=end_cover or "nessuna",
            )
    terrain = path.terrain
    if command.terrain is not None and command.terrain is not path.terrain:
        if actor_side is not None:
            raise IllegalAction(
                "error.w40k4.measured_terrain",
                typed=command.terrain.value,
                measured=path.terrain.value,
                legs=path.legs_text(),
            )
        terrain = command.terrain
    result.resolutions.append(
        resolve(
            "measure",
            checks.MeasureInput(
                what="move",
                inches=path.inches,
                typed=distance if distance != path.inches else None,
                terrain=field.terrain_of(field.field_of(state), path.end)[0],
                cover=end_cover,
                crossed=path.legs_text()[:400],
            ),
            tray,
        )
    )
    moved = command.model_copy(
        update={"distance": min(distance, 48.0), "terrain": terrain, "inside": path.inside}
    )
    return moved, path
