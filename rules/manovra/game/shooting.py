"""Sparare: observation, then small arms, heavy weapons or incendiaries."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import yaml

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.resolution import Resolution
from rules.manovra import checks, fire, ground
from rules.manovra.game.common import (
    _acting_unit,
    _apply_effects,
    _light_only,
    _resolve,
    _simple_only,
    _target_cover,
    _target_unit,
    _weapon,
)
from rules.manovra.game.movement import _apply_move, _move_resolution
from rules.manovra.game.orders import Fire
from rules.manovra.game.sequence import _finish_action
from rules.manovra.game.state import Applied, ManovraState, UnitState
from rules.manovra.model import MoveRate
from rules.manovra.scenario import Weapon, WeaponKind
from rules.manovra.tables import load_tables


@cache
def _observation_terrain() -> dict[str, Any]:
    text = (resources.files("rules.manovra") / "data" / "observation_terrain.yaml").read_text(
        "utf-8"
    )
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _observe(state: ManovraState, target: UnitState, distance: float, tray: DiceTray) -> Resolution:
    """OSSERVAZIONE: can the firer see the target where it stands, doing what it did?"""
    mapping = _observation_terrain()
    observed = str(target.kind["observed"])
    group = str(mapping["default"])
    for name, terrains in mapping["groups"][observed].items():
        if target.terrain in terrains:
            group = str(name)
    table = load_tables()["osservazione"]
    if not any(
        r.keys.get("unita") == observed and r.keys.get("terreno") == group for r in table.rows
    ):
        group = "copertura"
    status = "ha_sparato" if target.fired else "in_movimento" if target.moved else "appostata"
    return _resolve(
        "observation",
        checks.ObservationInput(
            observed=checks.ObservedClass(observed),
            terrain=checks.ObservedTerrain(group),
            state=checks.ObservedState(status),
            distance_cm=distance,
            terrain_detail=mapping["details"].get(target.terrain),
        ),
        tray,
    )


def _do_fire(
    state: ManovraState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("skip_fire"):
        raise IllegalAction("error.manovra.skip_fire", unit=unit.name)
    target = _target_unit(state, unit, command.target)
    moving = command.move_terrain is not None
    if moving:
        if _simple_only(unit):
            raise IllegalAction("error.manovra.simple_only", unit=unit.name)
        if command.move_cm is None:
            raise InvalidInput("error.manovra.move_needs_distance")
        move = _move_resolution(
            unit,
            MoveRate.BREVE,
            (ground.Leg(terrain=command.move_terrain or "", cm=command.move_cm),),
            False,
            tray,
        )
        result.resolutions.append(move)
        _apply_move(state, unit, move, command.move_terrain or unit.terrain)
    seen = _observe(state, target, command.distance_cm, tray)
    result.resolutions.append(seen)
    if seen.outcome.key != "manovra.observe.seen":
        raise IllegalAction(
            "error.manovra.not_spotted", target=target.name, limit=seen.outcome.param("limit") or 0
        )
    rof: Callable[[Weapon], int] = (
        (lambda w: w.rof_moving) if moving else (lambda w: w.rof_stationary)
    )
    weapon_ids = (
        [command.weapon] if command.weapon else _default_weapons(state, unit, target, command.ammo)
    )
    if not weapon_ids:
        raise IllegalAction("error.manovra.choose_weapon", weapons=", ".join(unit.weapons))
    weapons = [(w, _weapon(state, unit, w)) for w in weapon_ids]
    kinds = {weapon.kind for _, weapon in weapons}
    if WeaponKind.HEAVY in kinds or WeaponKind.INCENDIARY in kinds:
        weapon_id, weapon = weapons[0]
        if weapon.kind is WeaponKind.HEAVY:
            _fire_heavy(state, unit, target, weapon_id, weapon, command, rof(weapon), tray, result)
        else:
            _fire_incendiary(state, unit, target, weapon, command, tray, result)
    else:
        _fire_light(state, unit, target, weapons, command, rof, tray, result)
    unit.fired = True
    _finish_action(state, unit, result)


def _default_weapons(
    state: ManovraState, unit: UnitState, target: UnitState, ammo: str | None
) -> list[str]:
    """No weapon named: the main gun against armour (or when ammo is given), else the light ones."""
    heavy = [
        w
        for w in unit.weapons
        if state.weapons[w].kind is WeaponKind.HEAVY and not state.weapons[w].indirect
    ]
    if heavy and (ammo is not None or target.kind["small_arms"] is None):
        return heavy[:1]
    return [w for w in unit.weapons if state.weapons[w].kind is WeaponKind.LIGHT]


def _fire_light(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapons: list[tuple[str, Weapon]],
    command: Fire,
    rof: Callable[[Weapon], int],
    tray: DiceTray,
    result: Applied,
) -> None:
    in_range = [(wid, w, w.band_for(command.distance_cm)) for wid, w in weapons]
    shooting = [(wid, w, band) for wid, w, band in in_range if band is not None]
    if not shooting:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    shots_by = [(rof(w) * min(unit.weapons[wid], unit.models), band) for wid, w, band in shooting]
    shots = sum(s for s, _ in shots_by)
    if shots <= 0:
        raise IllegalAction("error.manovra.no_shots", unit=unit.name)
    # One die for the whole volley: the range band of the weapons firing the most shots.
    band = max(shots_by, key=lambda pair: pair[0])[1]
    small_arms = target.kind["small_arms"]
    if small_arms is None:
        raise IllegalAction("error.manovra.light_vs_armour", target=target.name)
    resolution = _resolve(
        "small_arms",
        fire.SmallArmsInput(
            target_kind=fire.SmallArmsTarget(small_arms),
            band=band,
            ad=unit.ad,
            shots=shots,
            target_moving=target.moved,
            cover=_target_cover(target),
            models_present=target.models,
            initial_models=target.initial_models,
            target=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)


def _fire_heavy(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon_id: str,
    weapon: Weapon,
    command: Fire,
    shots: int,
    tray: DiceTray,
    result: Applied,
) -> None:
    if _light_only(unit):
        raise IllegalAction("error.manovra.light_only", unit=unit.name)
    if any(
        unit.has(s) for s in ("weapon_destroyed", "gun_destroyed", "gun_jammed", "piece_jammed")
    ):
        raise IllegalAction("error.manovra.gun_out", unit=unit.name)
    band = weapon.band_for(command.distance_cm)
    if band is None:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    if shots <= 0:
        raise IllegalAction("error.manovra.no_shots", unit=unit.name)
    ammo = command.ammo or weapon.ammo[0]
    if ammo not in weapon.ammo:
        raise IllegalAction("error.manovra.no_such_ammo", weapon=weapon.name, ammo=ammo)
    for _ in range(shots):
        if not target.alive:
            break
        data = fire.HeavyFireInput(
            band=band,
            ad=unit.ad,
            target=fire.HeavyTarget(target.kind["heavy_target"]),
            target_moving=target.moved,
            ammo=fire.Ammo(ammo),
            calibre_mm=weapon.calibre_mm or 1,
            gun_class=weapon.gun_class,
            impact=command.impact,
            armour=target.armour.get(command.facing, {}),
            turret=target.turret,
            tracked=target.tracked,
            open_topped=target.open_topped,
            chosen_location=command.chosen_location,
            cover=_target_cover(target),
            models_present=target.models,
            target_has_manoeuvred=target.acted,
            target_id=target.id,
        )
        resolution = _resolve("heavy_fire", data, tray)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    del weapon_id


def _fire_incendiary(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon: Weapon,
    command: Fire,
    tray: DiceTray,
    result: Applied,
) -> None:
    if weapon.band_for(command.distance_cm) is None:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    resolution = _resolve(
        "incendiary",
        fire.IncendiaryInput(
            target=fire.IncendiaryTarget(target.kind["incendiary"]),
            models_touched=min(command.models_touched, max(target.models, 1)),
            cover=_target_cover(target),
            target_id=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)
