"""Fire (``/fire``): who may fire, the plan of a fire, direct and anti-tank fire with their
modifiers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import is_preview
from rules.core.tables import Table
from rules.pzgren.field import directions_adjacent, distance, entry_direction, parse_hex
from rules.pzgren.model import Category, MoraleState
from rules.pzgren.orders import Fire
from rules.pzgren.procedures import fire
from rules.pzgren.scenario import terrain_data
from rules.pzgren.state import (
    MAX_TEXT,
    Applied,
    PzgrenState,
    UnitState,
)
from rules.pzgren.tables import load_tables
from rules.pzgren.turn.common import _own, _resolve
from rules.pzgren.turn.effects import _apply_effects
from rules.pzgren.turn.sequence import _end_activation, _settle


def _may_fire(unit: UnitState) -> bool:
    rules: dict[str, Any] = load_tables()["moral"].data["status_rules"]
    return bool(rules.get(unit.status.value, {}).get("may_fire", True))


def _firers(state: PzgrenState, command: Fire, actor_side: str | None) -> list[UnitState]:
    if len(set(command.units)) != len(command.units):
        raise InvalidInput("error.pzgren.unit_twice")
    firers = [state.unit(unit_id) for unit_id in command.units]
    for unit in firers:
        _own(unit, actor_side)
        if not unit.alive:
            raise IllegalAction("error.pzgren.unit_out", unit=unit.name)
        if not _may_fire(unit):
            raise IllegalAction(
                "error.pzgren.may_not_fire", unit=unit.name, status=unit.status.value
            )
    if len({unit.side for unit in firers}) != 1:
        raise IllegalAction("error.pzgren.mixed_sides")
    return firers


def _check_turn_for_fire(
    state: PzgrenState, firers: list[UnitState], command: Fire, target_ids: list[str]
) -> None:
    if is_preview():
        return
    side = firers[0].side
    if command.opportunity:
        movers = [state.units[u] for u in state.moved_last if u in state.units]
        if not movers or movers[0].side == side:
            raise IllegalAction("error.pzgren.no_opportunity")
        if not set(target_ids) & set(state.moved_last):
            raise IllegalAction("error.pzgren.opportunity_target")
    elif side != state.active_side:
        raise IllegalAction("error.pzgren.not_your_activation", side=state.sides[state.active_side])
    for unit in firers:
        if unit.acted:
            raise IllegalAction("error.pzgren.already_acted", unit=unit.name)


def _declared(table: Table, keys: tuple[str, ...], actor_side: str | None) -> list[str]:
    """Modifiers a player declares (only 'declarable' ones) or the referee grants (any)."""
    chosen: list[str] = []
    for key in keys:
        try:
            row = table.row_by_id(key)
        except UnknownName:
            known = ", ".join(r.id or "" for r in table.rows if r.data.get("declarable"))
            raise InvalidInput(
                "error.pzgren.unknown_modifier", name=key[:MAX_TEXT], known=known
            ) from None
        if row.data.get("scope") == "unit":
            raise InvalidInput("error.pzgren.unit_modifier", name=key)
        if actor_side is not None and not row.data.get("declarable"):
            raise IllegalAction("error.pzgren.not_declarable", name=key)
        if key not in chosen:
            chosen.append(key)
    return chosen


@dataclass(frozen=True)
class FirePlan:
    """A fire command checked against the state: who fires, at what, how."""

    firers: list[UnitState]
    target: UnitState | None
    where: str
    mode: Literal["direct", "at"]
    enemies: list[UnitState]


def plan_fire(state: PzgrenState, command: Fire, actor_side: str | None) -> FirePlan:
    """Every check a fire command must pass before its dice are rolled.

    The handler and the legal-action listing both call it, so they cannot disagree.
    """
    firers = _firers(state, command, actor_side)
    side = firers[0].side
    mode: Literal["direct", "at"]
    if command.target is not None:
        target: UnitState | None = state.unit(command.target)
        assert target is not None
        if target.side == side:
            raise IllegalAction("error.pzgren.friendly_target", target=target.name)
        if not target.alive:
            raise IllegalAction("error.pzgren.unit_out", unit=target.name)
        if target.air:
            raise IllegalAction("error.pzgren.air_target", target=target.name)
        where = target.hex
        mode = command.mode or ("at" if target.armour is not None else "direct")
        if command.hex is not None and str(parse_hex(command.hex)) != where:
            raise InvalidInput("error.pzgren.hex_and_target")
    elif command.hex is not None:
        target = None
        where = str(parse_hex(command.hex))
        mode = command.mode or "direct"
        if mode == "at":
            raise InvalidInput("error.pzgren.at_needs_target")
    else:
        raise InvalidInput("error.pzgren.fire_needs_target")
    enemies = [u for u in state.units_in(where) if u.side != side]
    if not enemies:
        raise IllegalAction("error.pzgren.no_enemy_in_hex", hex=where)
    if mode == "at" and target is not None:
        _check_turn_for_fire(state, firers, command, [target.id])
        if len(firers) != 1:
            raise IllegalAction("error.pzgren.at_one_unit")
        firer = firers[0]
        if firer.at is None:
            raise IllegalAction("error.pzgren.no_at_value", unit=firer.name)
        if target.armour is None and not target.kind.get("truck"):
            raise IllegalAction("error.pzgren.at_needs_armour", target=target.name)
        _in_range(firer, target.hex)
    else:
        mode = "direct"
        _check_turn_for_fire(state, firers, command, [u.id for u in enemies])
        if sum(unit.fire for unit in firers) < 1:
            raise IllegalAction("error.pzgren.no_fire_value", unit=firers[0].name)
        for unit in firers:
            _in_range(unit, where)
    return FirePlan(firers, target, where, mode, enemies)


def _do_fire(
    state: PzgrenState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    plan = plan_fire(state, command, actor_side)
    firers = plan.firers
    side = firers[0].side
    if plan.mode == "at" and plan.target is not None:
        _fire_at(state, firers, plan.target, command, actor_side, tray, result)
    else:
        _fire_direct(state, firers, plan.where, plan.enemies, command, actor_side, tray, result)
    if is_preview():
        return
    for unit in firers:
        unit.acted = True
    if command.opportunity:
        _settle(state, result)
    else:
        state.moved_last = []
        _end_activation(state, side, result)


def _in_range(firer: UnitState, where: str) -> int:
    steps = distance(firer.position, parse_hex(where))
    if not firer.air and steps > firer.range:
        raise IllegalAction(
            "error.pzgren.out_of_range", unit=firer.name, distance=steps, range=firer.range
        )
    return steps


def _terrain(state: PzgrenState, where: str) -> dict[str, Any]:
    terrain: dict[str, Any] = terrain_data()["terrains"][state.hex_at(where).terrain] or {}
    return terrain


def direct_modifiers(
    state: PzgrenState, firers: list[UnitState], where: str, opportunity: bool
) -> list[str]:
    """The column modifiers the state implies for direct fire at ``where``."""
    table = load_tables()["modificateurs_colonne"]
    side = firers[0].side
    spot = state.hex_at(where)
    terrain = _terrain(state, where)
    keys: list[str] = []
    if spot.entrenchment:
        keys.append("entrenchment_town_woods" if terrain.get("town_woods") else "entrenchment")
    if terrain.get("town_woods"):
        keys.append("town_woods")
    if state.turn in state.night_turns:
        keys.append("night")
    if terrain.get("hill"):
        keys.append("hill")
    ground = [distance(f.position, parse_hex(where)) for f in firers if not f.air]
    if any(d >= int(table.row_by_id("range_3").data["min_range"]) for d in ground):
        keys.append("range_3")
    if any(f.air for f in firers):
        below = int(table.row_by_id("enemy_aa").data["below_range"])
        if any(
            u.alive
            and u.side != side
            and u.kind.get("anti_aircraft")
            and u.status is not MoraleState.DEMORALIZED
            and distance(u.position, parse_hex(where)) < below
            for u in state.units.values()
        ):
            keys.append("enemy_aa")
    if spot.minefield == side:
        keys.append("own_minefield")
    if opportunity:
        keys.append("opportunity")
    if terrain.get("marsh"):
        keys.append("marsh")
    stacked = int(table.row_by_id("three_stacked").data["combat_units"])
    combat = [u for u in state.units_in(where) if u.side != side and u.category is Category.COMBAT]
    if len(combat) >= stacked:
        keys.append("three_stacked")
    if ground and len(ground) == len(firers) and all(d == 1 for d in ground):
        keys.append("adjacent_all")
    return keys


def unit_modifiers(unit: UnitState) -> tuple[str, ...]:
    """The column modifiers of this unit only: its type's, and dug in."""
    keys = [str(key) for key in unit.kind.get("modifiers", [])]
    if unit.dug_in:
        keys.append("dug_in")
    return tuple(keys)


def _fire_direct(
    state: PzgrenState,
    firers: list[UnitState],
    where: str,
    enemies: list[UnitState],
    command: Fire,
    actor_side: str | None,
    tray: DiceTray,
    result: Applied,
) -> None:
    value = sum(unit.fire for unit in firers)
    keys = direct_modifiers(state, firers, where, command.opportunity)
    table = load_tables()["modificateurs_colonne"]
    for key in _declared(table, command.modifiers, actor_side):
        if key not in keys:
            keys.append(key)
    try:
        data = fire.DirectFireInput(
            fire_value=value,
            modifiers=tuple(keys),
            units=tuple(
                fire.TargetUnit(
                    id=u.id,
                    name=u.name,
                    category=u.category,
                    armour=u.armour_kind,
                    modifiers=unit_modifiers(u),
                )
                for u in enemies
            ),
            hex=where,
        )
    except ValueError as error:
        raise InvalidInput("error.invalid_input.detail", detail=str(error)[:200]) from None
    resolution = _resolve("direct_fire", data, tray)
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)


def at_modifiers(
    state: PzgrenState, firer: UnitState, target: UnitState, opportunity: bool
) -> tuple[list[str], int | None]:
    """The anti-tank modifiers the state implies, and the attack's entry direction."""
    table = load_tables()["modificateurs_antichars"]
    keys: list[str] = []
    steps = distance(firer.position, target.position)
    # Seed 003 lines 163 and 165 are two segments: "-1 : cible qui s'est déplacée dans le
    # segment d'action précédent" and "-1 : tir d'opportunité (voir règle 13.0)". Opportunity
    # fire answers the move in the mover's own segment (it costs no activation), so its
    # target moved in the current segment, not the previous one: the two never stack
    # (docs/pzgren.md, "Interpretations").
    if target.id in state.moved_last and not opportunity:
        keys.append("moved")
    if opportunity:
        keys.append("opportunity")
    if target.dug_in or _terrain(state, target.hex).get("town_woods"):
        keys.append("dug_in_or_town_woods")
    target_spot = state.hex_at(target.hex)
    # Seed 003 line 169: "la cible est dans un hexagone de colline à une élévation plus haute
    # que l'unité qui fait feu" — an aircraft flies above every hill: never for it (issue 26).
    if (
        not firer.air
        and _terrain(state, target.hex).get("hill")
        and target_spot.elevation > state.hex_at(firer.hex).elevation
    ):
        keys.append("higher_hill")
    if not firer.air and steps > int(table.row_by_id("range_over_5").data["above_range"]):
        keys.append("range_over_5")
    if not firer.air and steps == 1:
        keys.append("adjacent")
    direction = None if firer.air else entry_direction(target.position, firer.position)
    earlier = state.at_entries.get(target.id, [])
    if direction is not None and any(not directions_adjacent(direction, d) for d in earlier):
        keys.append("flank")
    return keys, direction


def _fire_at(
    state: PzgrenState,
    firers: list[UnitState],
    target: UnitState,
    command: Fire,
    actor_side: str | None,
    tray: DiceTray,
    result: Applied,
) -> None:
    firer = firers[0]  # plan_fire checked: one firer with an AT value, in range
    kind: Literal["afv", "truck"] = "afv" if target.armour is not None else "truck"
    keys, direction = at_modifiers(state, firer, target, command.opportunity)
    table = load_tables()["modificateurs_antichars"]
    for key in _declared(table, command.modifiers, actor_side):
        if key not in keys:
            keys.append(key)
    data = fire.AntiTankInput(
        at_value=firer.at or 0,
        target_kind=kind,
        armour=target.armour,
        modifiers=tuple(keys),
        steps=target.steps,
        target=target.id,
    )
    resolution = _resolve("anti_tank", data, tray)
    result.resolutions.append(resolution)
    if direction is not None and not is_preview():
        state.at_entries.setdefault(target.id, []).append(direction)
    _apply_effects(state, resolution, result)
