"""AZIONI COMPLESSE (seed 000 line 10): what a /fire does beside the shooting.

- "Muovere e sparare (o viceversa)": a Breve move (``move_*``), before the fire or, with
  ``fire_first``, after it;
- "Sparare ed occultarsi": fire, then conceal within a Cauto move (or where the unit
  stands), infantry and anti-tank artillery only;
- "Sganciare / Agganciare / Caricare e sparare": a transport that does not move unhooks or
  hooks a gun, or loads infantry, and fires;
- "Scaricare e sparare": a transport unloads its infantry where it stands, moves Breve and
  fires (or fires, then moves, with ``fire_first``).

A fire with a move (move and fire, unload and fire) fires the "in movimento" column, the line's
"tabella Numero di colpi in movimento"; the others fire the "Appostata" one of line 9 ("nei
limiti definiti dalla propria tabella Armamento": the vehicle or gun does not move, or
conceals after firing). A crew with half its men or more dead makes none (PERDITE EQUIPAGGI).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.resolution import Outcome
from rules.manovra import field
from rules.manovra.model import MoveRate
from rules.manovra.orders import Fire
from rules.manovra.procedures import ground
from rules.manovra.scenario import WeaponKind, is_infantry
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.turn.common import _simple_only
from rules.manovra.turn.movement import _apply_move, _move_resolution, walk_to
from rules.manovra.turn.transport import (
    check_hook,
    check_load,
    check_unhook,
    check_unload,
    hook,
    load,
    unhook,
    unload,
)

HOOK, UNHOOK, LOAD, UNLOAD = "hook", "unhook", "load", "unload"


@dataclass(frozen=True)
class Plan:
    """What a /fire does beside shooting, checked before anything happens."""

    moves: bool
    conceal: bool
    transport: str | None
    other: UnitState | None  # the gun hooked or unhooked, the infantry loaded

    @property
    def complex(self) -> bool:
        """Whether the fire is part of a complex action."""
        return self.moves or self.conceal or self.transport is not None

    @property
    def fires_moving(self) -> bool:
        """Whether the shots are the "in movimento" column (a move beside the fire)."""
        return self.moves and not self.conceal


def moves(command: Fire) -> bool:
    """Whether the fire comes with a short move."""
    return any(v is not None for v in (command.move_terrain, command.move_cm, command.move_to))


def plan(state: ManovraState, unit: UnitState, command: Fire) -> Plan:
    """The complex action a /fire asks for, refused before any die is rolled."""
    asked = [
        name
        for name, on in (
            (HOOK, command.hook is not None),
            (UNHOOK, command.unhook),
            (LOAD, command.load is not None),
            (UNLOAD, command.unload),
            ("conceal", command.conceal),
        )
        if on
    ]
    if len(asked) > 1:
        raise InvalidInput("error.manovra.one_complex_action", options=", ".join(asked))
    moving = moves(command)
    transport = next((a for a in asked if a != "conceal"), None)
    if moving and transport in (HOOK, UNHOOK, LOAD):
        # "veicoli che non muovono", "senza potersi muovere"
        raise IllegalAction("error.manovra.transport_still", unit=unit.name)
    if command.fire_first and not moving:
        raise InvalidInput("error.manovra.fire_first_needs_move")
    if command.conceal:
        check_conceal(state, unit)
    result = Plan(moving, command.conceal, transport, None)
    if result.complex and _simple_only(unit):
        raise IllegalAction("error.manovra.simple_only", unit=unit.name)
    other: UnitState | None = None
    if transport == HOOK:
        other = check_hook(state, unit, command.hook or "")
    elif transport == UNHOOK:
        other = check_unhook(state, unit)
    elif transport == LOAD:
        other = check_load(state, unit, command.load or "")
    elif transport == UNLOAD:
        check_unload(state, unit)
    return Plan(moving, command.conceal, transport, other)


def check_conceal(state: ManovraState, unit: UnitState) -> None:
    """ "Sparare ed occultarsi - solo fanteria ed artiglieria anti-carro": infantry (mortars
    included) and artillery with a direct-fire gun that fires AP."""
    anti_tank = unit.type == "artiglieria" and any(
        weapon.kind is WeaponKind.HEAVY and not weapon.indirect and "AP" in weapon.ammo
        for weapon in (state.weapons[w] for w in unit.weapons)
    )
    if not (is_infantry(unit.type) or anti_tank):
        raise IllegalAction("error.manovra.cannot_fire_conceal", unit=unit.name)


def before_fire(
    state: ManovraState,
    unit: UnitState,
    command: Fire,
    chosen: Plan,
    tray: DiceTray,
    result: Applied,
) -> None:
    """The transport's work (where the vehicle stands), then a move made before the fire."""
    if chosen.transport == HOOK and chosen.other is not None:
        hook(state, unit, chosen.other, result)
    elif chosen.transport == UNHOOK and chosen.other is not None:
        unhook(state, unit, chosen.other, result)
    elif chosen.transport == LOAD and chosen.other is not None:
        load(state, unit, chosen.other, result)
    elif chosen.transport == UNLOAD:
        unload(state, unit, result)
    if chosen.moves and not command.fire_first and not chosen.conceal:
        short_move(state, unit, command, MoveRate.BREVE, False, tray, result)


def after_fire(
    state: ManovraState,
    unit: UnitState,
    command: Fire,
    chosen: Plan,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Conceal (within a Cauto move), or the move of a fire-then-move. A unit that fires
    without concealing again shows itself: seed 000 line 10 needs a complex action of its
    own, "Sparare ed occultarsi", to fire and stay hidden."""
    if not chosen.conceal:
        unit.statuses = [status for status in unit.statuses if status != "concealed"]
    if chosen.conceal:
        if chosen.moves:
            short_move(state, unit, command, MoveRate.CAUTO, True, tray, result)
        else:
            unit.add("concealed")
            result.notices.append(Outcome.of("manovra.action.concealed", unit=unit.name))
    elif chosen.moves and command.fire_first:
        short_move(state, unit, command, MoveRate.BREVE, False, tray, result)


def short_move(
    state: ManovraState,
    unit: UnitState,
    command: Fire,
    kind: MoveRate,
    conceal: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    """The move of a complex action (a destination on a battlefield, else terrain + cm)."""
    if state.battlefield is not None:
        if command.move_terrain is not None or command.move_cm is not None:
            raise InvalidInput("error.manovra.field_measures", option="move_terrain")
        if command.move_to is None:
            raise InvalidInput("error.manovra.move_needs_to", unit=unit.name)
        start = field.position(state, unit)
        goal = field.destination(state, unit, command.move_to)
        walk_to(state, unit, kind, start, goal, conceal, tray, result)
        return
    if command.move_to is not None:
        raise InvalidInput("error.manovra.no_battlefield", option="move_to")
    if command.move_cm is None:
        raise InvalidInput("error.manovra.move_needs_distance")
    move = _move_resolution(
        unit,
        kind,
        (ground.Leg(terrain=command.move_terrain or "", cm=command.move_cm),),
        conceal,
        tray,
    )
    result.resolutions.append(move)
    _apply_move(state, unit, move, command.move_terrain or unit.terrain)
