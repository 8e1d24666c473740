"""ASSALTO: infantry assault, close combat, and armour overrunning.

An assault closes into base contact: the approach is a move (TIPI DI TERRENO, the unit's
movement restrictions) of at most the fastest kind the unit may use, through the given
terrain (the target's by default); 0 cm when already in contact.
"""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import on_table, toward
from rules.manovra import field
from rules.manovra.orders import Assault, Fire
from rules.manovra.procedures import ground
from rules.manovra.scenario import Weapon, WeaponKind
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.turn.common import (
    _acting_unit,
    _apply_effects,
    _resolve,
    _target_unit,
    _weapon,
    choose_weapon,
    not_aboard,
)
from rules.manovra.turn.movement import _apply_move, _move_resolution, allowed_kinds, walk_to
from rules.manovra.turn.sequence import _finish_action
from rules.manovra.turn.shooting import GUN_OUT, _fire_heavy


def overruns(unit: UnitState) -> bool:
    """Armour (a vehicle light weapons cannot hurt) assaults by driving over its target."""
    return bool(unit.kind["vehicle"]) and unit.kind["small_arms"] is None


def _assault_weapon(
    state: ManovraState, unit: UnitState, weapon_id: str | None
) -> tuple[str, Weapon]:
    """Infantry against a vehicle: a heavy weapon thrown or fired at point-blank range."""
    if weapon_id is None:
        weapon_id = next(
            (
                w
                for w in unit.weapons
                if state.weapons[w].kind is WeaponKind.HEAVY and not state.weapons[w].indirect
            ),
            None,
        )
    if weapon_id is None:
        raise choose_weapon(state, unit)
    weapon = _weapon(state, unit, weapon_id)
    if weapon.kind is not WeaponKind.HEAVY or weapon.indirect or weapon.rof_stationary <= 0:
        raise choose_weapon(state, unit)
    if unit.has("skip_fire") or any(unit.has(s) for s in GUN_OUT):
        raise IllegalAction("error.manovra.skip_fire", unit=unit.name)
    return weapon_id, weapon


def check_assault(
    state: ManovraState, unit_id: str, target_id: str, weapon_id: str | None, actor_side: str | None
) -> tuple[UnitState, UnitState]:
    """Who may assault whom, whatever the distance."""
    unit = _acting_unit(state, unit_id, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("recovered"):
        raise IllegalAction("error.manovra.recovered_tactical_only", unit=unit.name)
    not_aboard(state, unit)
    target = _target_unit(state, unit, target_id)
    if overruns(unit):
        if target.kind["small_arms"] is None:
            # "veicoli corazzati contro fanteria o veicoli non corazzati"
            raise IllegalAction("error.manovra.cannot_overrun", unit=unit.name, target=target.name)
    elif unit.type not in ("fanteria", "mortaio"):
        raise IllegalAction("error.manovra.cannot_assault", unit=unit.name)
    elif target.kind["vehicle"]:
        _assault_weapon(state, unit, weapon_id)
    return unit, target


def approach_terrain(target: UnitState, terrain: str | None) -> str:
    """Where the approach runs: the given terrain, or the target's."""
    return terrain or target.terrain


def _approach(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    command: Assault,
    tray: DiceTray,
    result: Applied,
    actor_side: str | None,
) -> None:
    if state.battlefield is not None:
        _approach_on_field(state, unit, target, command, tray, result, actor_side)
        return
    if not command.distance_cm:
        if overruns(unit):
            raise IllegalAction("error.manovra.overrun_needs_move", unit=unit.name)
        return
    kinds = allowed_kinds(unit)
    if not kinds:
        raise IllegalAction("error.manovra.immobilised", unit=unit.name)
    terrain = approach_terrain(target, command.terrain)
    move = _move_resolution(
        unit, kinds[0], (ground.Leg(terrain=terrain, cm=command.distance_cm),), False, tray
    )
    result.resolutions.append(move)
    _apply_move(state, unit, move, terrain)


def approach_cm(state: ManovraState, unit: UnitState, target: UnitState) -> float:
    """On a battlefield: the cm from the unit to base contact with the target (0: in contact)."""
    whole = field.distance_between(field.position(state, unit), field.position(state, target))
    return max(0.0, whole - float(field.field_data()["contact_cm"]))


def _approach_on_field(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    command: Assault,
    tray: DiceTray,
    result: Applied,
    actor_side: str | None,
) -> None:
    """The approach measured to the target: the straight path up to base contact."""
    if command.terrain is not None:
        raise InvalidInput("error.manovra.field_measures", option="terrain")
    start = field.position(state, unit)
    goal_of_target = field.position(state, target)
    needed = approach_cm(state, unit, target)
    distance = field.settle_distance(command.distance_cm, needed, actor_side)
    result.resolutions.append(
        field.measure_resolution(
            state, tray, origin=unit, target_name=target.name, distance=distance
        )
    )
    field.remember(
        state,
        [field.line(start, goal_of_target)],
        "manovra.map.assault",
        unit=unit.name,
        target=target.name,
    )
    if distance.used < 0.01:
        if overruns(unit):
            raise IllegalAction("error.manovra.overrun_needs_move", unit=unit.name)
        return
    kinds = allowed_kinds(unit)
    if not kinds:
        raise IllegalAction("error.manovra.immobilised", unit=unit.name)
    x, y = toward(start, goal_of_target, distance.used)
    assert state.battlefield is not None
    goal = field.rounded(on_table(state.battlefield, x, y, what=unit.name), start)
    walk_to(state, unit, kinds[0], start, goal, False, tray, result)


def _do_assault(
    state: ManovraState, command: Assault, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit, target = check_assault(state, command.unit, command.target, command.weapon, actor_side)
    field.begin(state)
    _approach(state, unit, target, command, tray, result, actor_side)
    if overruns(unit):
        # The target's ET to avoid being overrun is the target's roll.
        with tray.rolled_by(target.side):
            resolution = _resolve(
                "overrun", ground.OverrunInput(ad=target.ad, target_id=target.id), tray
            )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        _finish_action(state, unit, result)
        return
    closed_vehicle = target.kind["vehicle"] and not target.open_topped
    if not closed_vehicle:
        courage = _resolve(
            "assault", ground.AssaultInput(ad=unit.ad, cv=unit.cv, target_id=target.id), tray
        )
        result.resolutions.append(courage)
        if courage.outcome.key != "manovra.assault.goes_in":
            _finish_action(state, unit, result)
            return
    if target.kind["vehicle"]:
        weapon_id, weapon = _assault_weapon(state, unit, command.weapon)
        fire_command = Fire(
            unit=unit.id, target=target.id, distance_cm=0, weapon=weapon_id, impact="gt75"
        )
        _fire_heavy(state, unit, target, weapon_id, weapon, fire_command, 1, tray, result)
    else:
        duels = tuple(
            ground.Duel(ad=unit.ad, opponent_ad=target.ad)
            for _ in range(min(unit.models, target.models, 12))
        )
        resolution = _resolve(
            "close_combat",
            ground.CloseCombatInput(
                duels=duels, target_id=target.id, attacker_id=unit.id, defender_side=target.side
            ),
            tray,
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    _finish_action(state, unit, result)
