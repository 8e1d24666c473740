"""The movement phase: moves through terrain, dangerous tests, tank shock."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.w40k4 import checks, lookups
from rules.w40k4.effects import dangerous_tests, fall_back
from rules.w40k4.model import (
    Phase,
    Speed,
)
from rules.w40k4.orders import Move
from rules.w40k4.reserves import deep_strike, mishap
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.units import acting_unit, enemy_target, inches, is_locked, resolve, timed_active


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
    if unit.location == "reserve":
        raise IllegalAction("error.w40k4.in_reserve", unit=unit.name)
    if unit.moved or unit.entered or unit.deep_struck:
        raise IllegalAction("error.w40k4.already_moved", unit=unit.name)
    if unit.has("falling_back"):
        raise IllegalAction("error.w40k4.falling_back", unit=unit.name)
    if is_locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    moving = command.distance > 0
    stuck = unit.has("immobilised") or timed_active(state, unit, "stunned")
    if moving and unit.vehicle and stuck:
        raise IllegalAction("error.w40k4.cannot_move", unit=unit.name)
    if unit.location == "arriving" and not moving:
        raise IllegalAction("error.w40k4.must_enter", unit=unit.name)
    limit = unit.move
    if unit.vehicle and not unit.walker:
        limit = int(lookups.standard("velocita_veicoli")["tavoletta" if unit.fast else "manovra"])
    if command.distance > limit:
        raise IllegalAction("error.w40k4.too_far", unit=unit.name, limit=limit)
    cover = lookups.cover_save(command.cover)[2] if command.cover is not None else None
    plan_input = checks.MovementInput(
        unit_type=unit.type,
        distance=command.distance,
        terrain=command.terrain,
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
    result.notices.append(
        Outcome.of(
            "w40k4.move.done", unit=unit.name, inches=inches(distance), cover=unit.cover or "-"
        )
    )
    if command.target is not None:
        _tank_shock(state, unit, command.target, tray, result)


def _tank_shock(
    state: W40kState, unit: UnitState, target_id: str, tray: DiceTray, result: Applied
) -> None:
    if not unit.vehicle or unit.walker or not unit.moved:
        raise IllegalAction("error.w40k4.cannot_tank_shock", unit=unit.name)
    target = enemy_target(state, unit, target_id)
    if target.vehicle or target.ld is None or is_locked(target):
        raise IllegalAction("error.w40k4.cannot_tank_shock_target", target=target.name)
    test = resolve(
        "leadership",
        checks.LeadershipInput(leadership=target.ld, reason="tank_shock", target=target.id),
        tray,
    )
    result.resolutions.append(test)
    if test.outcome.key == "w40k4.test.failed":
        fall_back(state, target, tray, result)
