"""Transports (seed 000 line 9): Agganciare, Sganciare, Imbarcarsi, Sbarcare.

A transport is a vehicle whose scenario says how many infantry models it ``carries`` (the
seed gives no capacity); it also tows one gun. What it carries or tows stands where it
stands (``UnitState.aboard``), moves with it, is no target of its own, and acts only to get
off (infantry) or hold. The complex actions of line 10 (hook, unhook, load or unload, and
fire) call the same checks from :mod:`rules.manovra.turn.shooting`.
"""

from __future__ import annotations

from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import distance
from rules.core.resolution import Outcome
from rules.manovra import field
from rules.manovra.model import MoveRate
from rules.manovra.orders import Disembark, Embark, Hook, Unhook
from rules.manovra.procedures import ground
from rules.manovra.scenario import is_infantry, is_towable
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.turn.common import _acting_unit, cargo, carry_along, not_aboard
from rules.manovra.turn.movement import _apply_move, _move_resolution, check_walk, walk_to
from rules.manovra.turn.sequence import _finish_action


def free_to_act(state: ManovraState, unit: UnitState) -> None:
    """A unit in panic retreats, one just recovered only moves tactically, one aboard only
    gets off: none of them hooks, loads or boards."""
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("recovered"):
        raise IllegalAction("error.manovra.recovered_tactical_only", unit=unit.name)
    not_aboard(state, unit)


def _transport(unit: UnitState) -> None:
    """ "solo i veicoli da trasporto" (line 9)."""
    if not unit.carries:
        raise IllegalAction("error.manovra.not_a_transport", unit=unit.name)


def towed_gun(state: ManovraState, vehicle: UnitState) -> UnitState | None:
    """The gun a transport tows, if any."""
    return next((u for u in cargo(state, vehicle) if is_towable(u.type)), None)


def riders(state: ManovraState, vehicle: UnitState) -> list[UnitState]:
    """The infantry a transport carries."""
    return [u for u in cargo(state, vehicle) if not is_towable(u.type)]


def _friend(state: ManovraState, vehicle: UnitState, unit_id: str) -> UnitState:
    """A living unit of the transport's side, standing on its own."""
    unit = state.unit(unit_id)
    if unit.side != vehicle.side:
        raise IllegalAction("error.manovra.not_your_unit", unit=unit.name)
    if not unit.alive:
        raise IllegalAction("error.manovra.unit_out", unit=unit.name)
    not_aboard(state, unit)
    return unit


def check_hook(state: ManovraState, vehicle: UnitState, gun_id: str) -> UnitState:
    """Agganciare: a transport with no gun in tow, backed against the gun's trails."""
    _transport(vehicle)
    if towed_gun(state, vehicle) is not None:
        raise IllegalAction("error.manovra.already_towing", unit=vehicle.name)
    gun = _friend(state, vehicle, gun_id)
    if not is_towable(gun.type):
        raise IllegalAction("error.manovra.not_towable", unit=gun.name)
    if vehicle.position is not None and gun.position is not None:
        # "già posizionati di retro a contatto": base contact, as an assault ends.
        gap = distance(vehicle.position, gun.position)
        data = field.field_data()
        if gap > float(data["contact_cm"]) + float(data["tolerance_cm"]):
            raise IllegalAction(
                "error.manovra.not_in_contact",
                unit=vehicle.name,
                gun=gun.name,
                cm=f"{round(gap, 1):g}",
            )
    return gun


def check_unhook(state: ManovraState, vehicle: UnitState) -> UnitState:
    """Sganciare: the transport tows a gun (it is stopped: this action moves it not)."""
    _transport(vehicle)
    gun = towed_gun(state, vehicle)
    if gun is None:
        raise IllegalAction("error.manovra.nothing_towed", unit=vehicle.name)
    return gun


def check_load(state: ManovraState, vehicle: UnitState, unit_id: str) -> UnitState:
    """Imbarcarsi: infantry reaches, with a tactical move, a transport with room for it that
    stays still ("su un veicolo che resta immobile": it has not moved this turn)."""
    _transport(vehicle)
    if not vehicle.alive:
        raise IllegalAction("error.manovra.unit_out", unit=vehicle.name)
    unit = _friend(state, vehicle, unit_id)
    if not is_infantry(unit.type):
        raise IllegalAction("error.manovra.not_infantry", unit=unit.name)
    room = vehicle.carries - sum(u.models for u in riders(state, vehicle))
    if unit.models > room:
        raise IllegalAction(
            "error.manovra.no_room", unit=unit.name, vehicle=vehicle.name, n=max(room, 0)
        )
    if vehicle.moved:
        raise IllegalAction("error.manovra.transport_moved", vehicle=vehicle.name)
    here, there = unit.position, vehicle.position
    if here is not None and there is not None and distance(here, there) >= 0.01:
        check_walk(state, unit, MoveRate.TATTICO, here, there, False, DiceTray(SystemDice()))
    return unit


def check_unload(state: ManovraState, vehicle: UnitState) -> list[UnitState]:
    """Scaricare: the transport carries someone."""
    _transport(vehicle)
    aboard = riders(state, vehicle)
    if not aboard:
        raise IllegalAction("error.manovra.nobody_aboard", unit=vehicle.name)
    return aboard


def hook(state: ManovraState, vehicle: UnitState, gun: UnitState, result: Applied) -> None:
    """The gun goes where the transport goes from now on."""
    gun.aboard = vehicle.id
    carry_along(state, vehicle)
    result.notices.append(Outcome.of("manovra.transport.hooked", unit=vehicle.name, gun=gun.name))


def unhook(state: ManovraState, vehicle: UnitState, gun: UnitState, result: Applied) -> None:
    """The gun stays where the transport stands."""
    del state
    gun.aboard = None
    result.notices.append(Outcome.of("manovra.transport.unhooked", unit=vehicle.name, gun=gun.name))


def load(state: ManovraState, vehicle: UnitState, unit: UnitState, result: Applied) -> None:
    """The infantry walks to the transport and boards it."""
    if unit.position is not None and vehicle.position is not None:
        field.remember(state, [field.arrow(unit.position, vehicle.position, unit.id)], None)
    unit.aboard = vehicle.id
    unit.moved = True
    carry_along(state, vehicle)
    result.notices.append(
        Outcome.of("manovra.transport.embarked", unit=unit.name, vehicle=vehicle.name)
    )


def unload(state: ManovraState, vehicle: UnitState, result: Applied) -> None:
    """Everyone aboard gets off where the transport stands."""
    for unit in riders(state, vehicle):
        unit.aboard = None
        result.notices.append(
            Outcome.of("manovra.transport.disembarked", unit=unit.name, vehicle=vehicle.name)
        )


def _acting_transport(state: ManovraState, unit_id: str, actor_side: str | None) -> UnitState:
    vehicle = _acting_unit(state, unit_id, actor_side)
    free_to_act(state, vehicle)
    field.begin(state)
    return vehicle


def _do_hook(
    state: ManovraState, command: Hook, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    vehicle = _acting_transport(state, command.unit, actor_side)
    hook(state, vehicle, check_hook(state, vehicle, command.gun), result)
    _finish_action(state, vehicle, result)


def _do_unhook(
    state: ManovraState, command: Unhook, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    vehicle = _acting_transport(state, command.unit, actor_side)
    unhook(state, vehicle, check_unhook(state, vehicle), result)
    _finish_action(state, vehicle, result)


def _do_embark(
    state: ManovraState, command: Embark, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    free_to_act(state, unit)
    vehicle = state.unit(command.vehicle)
    check_load(state, vehicle, unit.id)
    field.begin(state)
    load(state, vehicle, unit, result)
    _finish_action(state, unit, result)


def disembark_kind(state: ManovraState, unit: UnitState) -> MoveRate:
    """Sbarcare: "Movimento breve", or "tattico" when the transport stays still (it has not
    moved this turn)."""
    assert unit.aboard is not None
    return MoveRate.BREVE if state.units[unit.aboard].moved else MoveRate.TATTICO


def check_disembark(state: ManovraState, unit: UnitState) -> UnitState:
    """Infantry aboard a transport (a gun is unhooked by its transport)."""
    if unit.aboard is None or not is_infantry(unit.type):
        raise IllegalAction("error.manovra.not_aboard", unit=unit.name)
    return state.units[unit.aboard]


def _do_disembark(
    state: ManovraState,
    command: Disembark,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    vehicle = check_disembark(state, unit)
    kind = disembark_kind(state, unit)
    unit.aboard = None
    field.begin(state)
    result.notices.append(
        Outcome.of("manovra.transport.disembarked", unit=unit.name, vehicle=vehicle.name)
    )
    if state.battlefield is not None:
        if command.terrain is not None or command.distance_cm is not None:
            raise InvalidInput("error.manovra.field_measures", option="terrain")
        if command.to is not None:
            start = field.position(state, unit)
            goal = field.destination(state, unit, command.to)
            walk_to(state, unit, kind, start, goal, False, tray, result)
    elif command.to is not None:
        raise InvalidInput("error.manovra.no_battlefield", option="to")
    elif command.terrain is not None or command.distance_cm is not None:
        if command.terrain is None or command.distance_cm is None:
            raise InvalidInput(
                "error.option.missing", option="terrain" if command.terrain is None else "distance"
            )
        legs = (ground.Leg(terrain=command.terrain, cm=command.distance_cm),)
        move = _move_resolution(unit, kind, legs, False, tray)
        result.resolutions.append(move)
        _apply_move(state, unit, move, command.terrain)
    unit.moved = True
    _finish_action(state, unit, result)
