"""Sparare: observation, then small arms, heavy weapons or incendiaries."""

from __future__ import annotations

import enum
from functools import cache
from importlib import resources
from typing import Any

import yaml

from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import terrain_at
from rules.core.resolution import Outcome, Resolution
from rules.core.words import joined
from rules.manovra import field
from rules.manovra.model import RangeBand
from rules.manovra.orders import Fire
from rules.manovra.procedures import checks, fire
from rules.manovra.scenario import Weapon, WeaponKind
from rules.manovra.state import Applied, Burst, ManovraState, UnitState
from rules.manovra.tables import load_tables
from rules.manovra.turn import combined
from rules.manovra.turn.blast import burst_at
from rules.manovra.turn.common import (
    _acting_unit,
    _apply_effects,
    _light_only,
    _resolve,
    _target_cover,
    _target_unit,
    _weapon,
    choose_weapon,
    not_aboard,
    weapon_rounds,
)
from rules.manovra.turn.sequence import _finish_action


@cache
def _observation_terrain() -> dict[str, Any]:
    text = (resources.files("rules.manovra") / "data" / "observation_terrain.yaml").read_text(
        "utf-8"
    )
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _observe(
    target: UnitState, distance: float, tray: DiceTray, *, from_inside: bool = False
) -> Resolution:
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
            from_inside_area=from_inside,
            terrain_detail=mapping["details"].get(target.terrain),
        ),
        tray,
    )


def sight_limit(target: UnitState, *, from_inside: bool = False) -> int:
    """How far an observer sees the target (cm), from where it stands and what it did."""
    seen = _observe(target, 0, DiceTray(SystemDice()), from_inside=from_inside)
    return int(seen.outcome.param("limit") or 0)


def _check_firer(state: ManovraState, unit_id: str, actor_side: str | None) -> UnitState:
    """The acting unit, able to fire at all this activation."""
    unit = _acting_unit(state, unit_id, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("recovered"):
        # Recupero panico: a recovered unit may make a tactical move, nothing else.
        raise IllegalAction("error.manovra.recovered_tactical_only", unit=unit.name)
    if unit.has("skip_fire"):
        raise IllegalAction("error.manovra.skip_fire", unit=unit.name)
    not_aboard(state, unit)
    return unit


# "Bm = bombe a mano" (PENETRAZIONE CORAZZA legend): the thrown weapons, which need a PT.
THROWN_CLASSES = ("Bm",)


class Delivery(enum.StrEnum):
    """How a heavy weapon's round reaches its target when fired directly."""

    AIMED = "aimed"  # TIRO ARMI PESANTI
    MORTAR = "mortar"  # "Dispersione fuoco diretto mortai": D8 + D6 − AD from the aimed point
    THROWN = "thrown"  # "bombe a mano": PT, a miss lands D8 − AD from the model aimed at


def delivery(unit: UnitState, weapon: Weapon) -> Delivery:
    """Mortars fire on a curve and hand grenades are thrown; other heavy weapons aim."""
    if weapon.gun_class in THROWN_CLASSES:
        return Delivery.THROWN
    if weapon.indirect and unit.type == "mortaio":
        return Delivery.MORTAR
    return Delivery.AIMED


def _check_weapons(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon_id: str | None,
    ammo: str | None,
    moving: bool,
) -> list[tuple[str, Weapon]]:
    """The weapons that fire, checked: the one named, else every weapon of the unit that
    can fire at this target ("Sparare - con tutte le armi dell'unità", seed line 9).

    Refuses what no distance can make legal: a weapon the unit lacks, light weapons against
    armour, heavy weapons a crew can no longer serve, a weapon with no shots, a wrong ammo;
    with no weapon named, only when none of them can fire (the first weapon's reason).
    """
    if weapon_id:
        return [_check_weapon(state, unit, target, weapon_id, ammo, moving)]
    found: list[tuple[str, Weapon]] = []
    refusals: list[IllegalAction] = []
    for each in unit.weapons:
        carried = ammo if ammo in state.weapons[each].ammo else None
        try:
            found.append(_check_weapon(state, unit, target, each, carried, moving))
        except IllegalAction as refusal:
            refusals.append(refusal)
    heavy = [w for _, w in found if w.kind is WeaponKind.HEAVY]
    if ammo is not None and heavy and not any(ammo in w.ammo for w in heavy):
        raise IllegalAction("error.manovra.no_such_ammo", weapon=heavy[0].name, ammo=ammo)
    if not found:
        if refusals:
            raise refusals[0]
        raise choose_weapon(state, unit)
    return found


def _check_weapon(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon_id: str,
    ammo: str | None,
    moving: bool,
) -> tuple[str, Weapon]:
    """One weapon able to fire at this target now (whatever the distance)."""
    weapon = _weapon(state, unit, weapon_id)
    if weapon.kind is WeaponKind.HEAVY:
        if _light_only(unit):
            raise IllegalAction("error.manovra.light_only", unit=unit.name)
        if any(unit.has(s) for s in GUN_OUT):
            raise IllegalAction("error.manovra.gun_out", unit=unit.name)
        if weapon_rounds(unit, weapon_id, weapon, moving) <= 0:
            raise IllegalAction("error.manovra.no_shots", unit=unit.name)
        chosen = ammo or weapon.ammo[0]
        if chosen not in weapon.ammo:
            raise IllegalAction("error.manovra.no_such_ammo", weapon=weapon.name, ammo=chosen)
    elif weapon.kind is WeaponKind.LIGHT:
        if target.kind["small_arms"] is None:
            raise IllegalAction("error.manovra.light_vs_armour", target=target.name)
        if weapon_rounds(unit, weapon_id, weapon, moving) <= 0:
            raise IllegalAction("error.manovra.no_shots", unit=unit.name)
    return weapon_id, weapon


GUN_OUT = ("weapon_destroyed", "gun_destroyed", "gun_jammed", "piece_jammed")


def _beyond(command: Fire, reach: int) -> IllegalAction:
    """Out of range, naming the distance and how far the weapons reach."""
    return IllegalAction("error.manovra.out_of_reach", distance=round(_cm(command)), reach=reach)


def weapons_reach(unit: UnitState, weapons: list[tuple[str, Weapon]], moving: bool) -> int:
    """The longest distance (cm) at which some of these weapons still fire a shot."""
    reach = [
        max(w.ranges_cm.values())
        for wid, w in weapons
        if w.kind is not WeaponKind.LIGHT or weapon_rounds(unit, wid, w, moving) > 0
    ]
    return max(reach, default=0)


def _do_fire(
    state: ManovraState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _check_firer(state, command.unit, actor_side)
    target = _target_unit(state, unit, command.target)
    plan = combined.plan(state, unit, command)
    moving = plan.fires_moving
    weapons = _check_weapons(state, unit, target, command.weapon, command.ammo, moving)
    field.begin(state)
    combined.before_fire(state, unit, command, plan, tray, result)
    cm = _fire_distance(state, unit, target, command, actor_side, tray, result)
    command = command.model_copy(update={"distance_cm": cm})
    seen = _observe(
        target, command.distance_cm or 0, tray, from_inside=_same_area(state, unit, target)
    )
    result.resolutions.append(seen)
    if seen.outcome.key != "manovra.observe.seen":
        raise IllegalAction(
            "error.manovra.not_spotted", target=target.name, limit=seen.outcome.param("limit") or 0
        )
    if state.battlefield is not None and unit.position is not None and target.position:
        field.remember(
            state,
            # The volley of the light weapons is the unit's fire; heavy weapons are named.
            [field.line(unit.position, target.position, _line_label(weapons))],
            "manovra.map.fired",
            unit=unit.name,
            target=target.name,
        )
    _fire_weapons(state, unit, target, weapons, command, moving, tray, result)
    unit.fired = True
    combined.after_fire(state, unit, command, plan, tray, result)
    _finish_action(state, unit, result)


def _fire_weapons(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapons: list[tuple[str, Weapon]],
    command: Fire,
    moving: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Every weapon in range fires through its own procedure, in one action: the light ones
    as one volley (FUOCO ARMI LEGGERE), then each heavy weapon round by round (TIRO ARMI
    PESANTI) and each incendiary one, while the target lasts."""
    cm = _cm(command)
    light = [(wid, w) for wid, w in weapons if w.kind is WeaponKind.LIGHT]
    others = [(wid, w) for wid, w in weapons if w.kind is not WeaponKind.LIGHT]
    volley = any(
        w.band_for(cm) is not None and weapon_rounds(unit, wid, w, moving) > 0 for wid, w in light
    )
    in_range = [(wid, w) for wid, w in others if w.band_for(cm) is not None]
    if not volley and not in_range:
        raise _beyond(command, weapons_reach(unit, weapons, moving))
    if volley:
        _fire_light(state, unit, target, light, command, moving, tray, result)
    for weapon_id, weapon in in_range:
        if not target.alive:
            break
        if weapon.kind is WeaponKind.HEAVY:
            shots = weapon_rounds(unit, weapon_id, weapon, moving)
            _fire_heavy(state, unit, target, weapon_id, weapon, command, shots, tray, result)
        else:
            _fire_incendiary(state, unit, target, weapon, command, tray, result)


def _line_label(weapons: list[tuple[str, Weapon]]) -> str:
    return joined(w.name for _, w in weapons if w.kind is not WeaponKind.LIGHT)


def _same_area(state: ManovraState, unit: UnitState, target: UnitState) -> bool:
    """OSSERVAZIONE 'da interno area': the observer stands in the target's terrain area."""
    if state.battlefield is None or unit.position is None or target.position is None:
        return False
    here = terrain_at(state.battlefield, unit.position)[1]
    return here is not None and here == terrain_at(state.battlefield, target.position)[1]


def _fire_distance(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    command: Fire,
    actor_side: str | None,
    tray: DiceTray,
    result: Applied,
) -> float:
    """The distance of the fire: typed without a battlefield; measured on one, with sight.

    On a battlefield a sight-blocking area between refuses the fire naming it; a typed
    distance that differs from the measured one is refused for a player and used, shown
    as an override, for the referee.
    """
    if state.battlefield is None:
        if command.distance_cm is None:
            raise InvalidInput("error.option.missing", option="distance")
        return command.distance_cm
    seen = field.sight(state, unit, target)
    field.check_sight(state, seen, target)
    distance = field.settle_distance(command.distance_cm, seen.cm, actor_side)
    result.resolutions.append(
        field.measure_resolution(
            state, tray, origin=unit, target_name=target.name, distance=distance, seen=seen
        )
    )
    return distance.used


def _cm(command: Fire) -> float:
    """The fire's distance, settled by :func:`_fire_distance` before any weapon fires."""
    return command.distance_cm or 0.0


def _fire_light(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapons: list[tuple[str, Weapon]],
    command: Fire,
    moving: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    in_range = [(wid, w, w.band_for(_cm(command))) for wid, w in weapons]
    shots_by = [
        (weapon_rounds(unit, wid, w, moving), band) for wid, w, band in in_range if band is not None
    ]
    shots = sum(s for s, _ in shots_by)
    if shots <= 0:
        raise _beyond(command, weapons_reach(unit, weapons, moving))
    # One die for the whole volley: the range band of the weapons firing the most shots.
    band = max(shots_by, key=lambda pair: pair[0])[1]
    resolution = _resolve(
        "small_arms",
        fire.SmallArmsInput(
            target_kind=fire.SmallArmsTarget(target.kind["small_arms"]),
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
    band = weapon.band_for(_cm(command))
    if band is None:
        raise _beyond(command, max(weapon.ranges_cm.values()))
    ammo = fire.Ammo(command.ammo if command.ammo in weapon.ammo else weapon.ammo[0])
    how = delivery(unit, weapon)
    rounds = 0  # HE rounds that burst, for the fragments of units nearby
    direct_hits: list[str] = []
    for _ in range(shots):
        if not target.alive:
            break
        if how is Delivery.MORTAR:
            resolution = _resolve(
                "scatter",
                checks.ScatterInput(kind=checks.ScatterKind.MORTAI_DIRETTO, ad=unit.ad),
                tray,
            )
        elif how is Delivery.THROWN:
            resolution = _resolve("thrown", _thrown_input(unit, target, weapon, band), tray)
        else:
            resolution = _resolve(
                "heavy_fire", _aimed_input(unit, target, weapon, command, band, ammo), tray
            )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        if ammo is fire.Ammo.HE:
            rounds += 1
            on_target = how is not Delivery.MORTAR and resolution.outcome.key not in (
                "manovra.heavy.miss",
                "manovra.heavy.miss_scatter",
            )
            if on_target:
                direct_hits.append(target.id)
            if state.battlefield is not None and target.position is not None:
                burst_at(
                    state,
                    unit,
                    weapon.calibre_mm or 1,
                    target.position,
                    None if on_target else resolution,
                    (unit.id, target.id) if on_target else (unit.id,),
                    tray,
                    result,
                )
    if rounds and state.battlefield is None:
        _open_burst(state, unit, weapon, rounds, direct_hits, result)
    del weapon_id


def _aimed_input(
    unit: UnitState,
    target: UnitState,
    weapon: Weapon,
    command: Fire,
    band: RangeBand,
    ammo: fire.Ammo,
) -> fire.HeavyFireInput:
    return fire.HeavyFireInput(
        band=band,
        ad=unit.ad,
        target=fire.HeavyTarget(target.kind["heavy_target"]),
        target_moving=target.moved,
        ammo=ammo,
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


def _thrown_input(
    unit: UnitState, target: UnitState, weapon: Weapon, band: RangeBand
) -> fire.ThrownInput:
    return fire.ThrownInput(
        band=band,
        ad=unit.ad,
        vehicle=bool(target.kind["vehicle"]),
        target=fire.HeavyTarget(target.kind["heavy_target"]),
        calibre_mm=weapon.calibre_mm or 1,
        gun_class=weapon.gun_class or "Bm",
        armour=target.armour.get("front", {}),
        turret=target.turret,
        tracked=target.tracked,
        open_topped=target.open_topped,
        cover=_target_cover(target),
        models_present=target.models,
        target_has_manoeuvred=target.acted,
        target_id=target.id,
    )


def _open_burst(
    state: ManovraState,
    unit: UnitState,
    weapon: Weapon,
    rounds: int,
    direct_hits: list[str],
    result: Applied,
) -> None:
    """HE rounds burst: units the players find within a blast take fragments (/fragments)."""
    burst = Burst(
        id=f"he{state.turn}-{len(state.bursts) + 1}",
        unit=unit.id,
        side=unit.side,
        calibre_mm=weapon.calibre_mm or 1,
        ad=unit.ad,
        shots=rounds,
        fragment_hits=list(direct_hits),
    )
    state.bursts.append(burst)
    result.notices.append(Outcome.of("manovra.fire.burst", marker=burst.id, n=rounds))


def _fire_incendiary(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon: Weapon,
    command: Fire,
    tray: DiceTray,
    result: Applied,
) -> None:
    if weapon.band_for(_cm(command)) is None:
        raise _beyond(command, max(weapon.ranges_cm.values()))
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
