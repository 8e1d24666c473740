"""Playing pzgren: the game state, the commands players give, and the turn sequence.

``apply(state, command, dice)`` checks a command against the state (whose activation, has
the unit acted, who owns it, is a step choice or a morale check owed), resolves it through
the ruleset's procedures, and returns a new state with the resolutions. It never mutates
its input: a refused command leaves the state exactly as it was.

Turn sequence (alternating activations; not spelled out by the seed): the scenario's first
side activates one unit (move, fire, hold or rally), then the other side, and so on; a side
with no unit left to act is skipped; ``turn.next`` passes the activation, and two passes in
a row (or a pass when the other side has nothing left) end the turn. Every unit acts once a
turn. Opportunity fire (rule 13.0) is fire by a unit that has not acted yet, of the side
that did not move, at a unit that moved in the activation just finished; it costs the
firing unit its action for the turn but no activation. Step losses an X result leaves to
the owner's choice, and the morale checks it owes, are answered before play continues.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core import ending
from rules.core.dice import DiceSource, DiceTray
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import is_preview, run_command
from rules.core.legal import NotOwed
from rules.core.resolution import EffectKind, Outcome, Resolution
from rules.core.tables import Table
from rules.pzgren import fire, morale, victory
from rules.pzgren.hexes import Hex, directions_adjacent, distance, entry_direction, parse_hex
from rules.pzgren.model import Category, MoraleState
from rules.pzgren.scenario import Scenario, terrain_data
from rules.pzgren.state import (
    MAX_FIRERS,
    MAX_TEXT,
    MORALE_STATES,
    Applied,
    HexState,
    PendingMorale,
    PendingSteps,
    PzgrenState,
    UnitState,
)
from rules.pzgren.tables import load_tables

# -- commands --------------------------------------------------------------------------------


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_TEXT)


class Next(_Command):
    """Pass the activation (/turn next)."""

    verb: Literal["next"] = "next"


class Move(_Command):
    """Move a unit to a hex (/move unit:… hex:q,r)."""

    verb: Literal["move"] = "move"
    unit: str
    hex: str


class Hold(_Command):
    """The unit stays put and spends its action (/move unit:… kind:hold)."""

    verb: Literal["hold"] = "hold"
    unit: str


class Fire(_Command):
    """Fire (/fire): direct fire at a hex, or anti-tank fire at a unit."""

    verb: Literal["fire"] = "fire"
    units: tuple[str, ...] = Field(min_length=1, max_length=MAX_FIRERS)
    target: str | None = None
    hex: str | None = None
    mode: Literal["direct", "at"] | None = None
    opportunity: bool = False
    modifiers: tuple[str, ...] = Field((), max_length=8)


class Morale(_Command):
    """Take an owed morale check (/morale unit:…)."""

    verb: Literal["morale"] = "morale"
    unit: str


class Recover(_Command):
    """Rally a disrupted or demoralized unit (/recover unit:…; not in the seed)."""

    verb: Literal["recover"] = "recover"
    unit: str


class Step(_Command):
    """Choose the unit that takes one owed step loss (/step unit:…)."""

    verb: Literal["step"] = "step"
    unit: str


Command = Annotated[
    Next | Move | Hold | Fire | Morale | Recover | Step, Field(discriminator="verb")
]




# -- setting up --------------------------------------------------------------------------------


def new_game(scenario: Scenario) -> PzgrenState:
    """The state at the start of turn 1: the first side activates."""
    units: dict[str, UnitState] = {}
    for side in scenario.sides:
        for spec in side.units:
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                type=spec.type,
                hex=spec.hex,
                fire=spec.fire,
                at=spec.at,
                armour=spec.armour,
                top=(spec.top or "closed") if spec.armour is not None else None,
                range=spec.range,
                movement=spec.movement,
                steps=spec.steps,
                initial_steps=spec.steps,
                morale=spec.morale,
                dug_in=spec.dug_in,
            )
    return PzgrenState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        victory=VictoryRecord(conditions=scenario.victory),
        night_turns=list(scenario.night_turns),
        first_side=scenario.first_side,
        active_side=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        columns=scenario.map.columns,
        rows=scenario.map.rows,
        hexes={key: HexState(**spec.model_dump()) for key, spec in scenario.map.hexes.items()},
        units=units,
    )


def load_state(document: dict[str, Any]) -> PzgrenState:
    """Rebuild a state from its stored JSON document."""
    return PzgrenState.model_validate(document)


# -- whose move ------------------------------------------------------------------------------


def awaiting(state: PzgrenState) -> str | None:
    """The side whose move it is: an owed step choice or morale check first."""
    if state.pending_steps:
        return state.pending_steps[0].side
    if state.pending_morale:
        return state.units[state.pending_morale[0].unit].side
    if state.ended:
        return None
    return state.active_side


def can_act(state: PzgrenState, side: str) -> bool:
    """Whether the side has a unit alive that has not acted this turn."""
    return any(u.side == side and u.alive and not u.acted for u in state.units.values())


# -- applying commands -----------------------------------------------------------------------


def apply(
    state: PzgrenState,
    command: Any,
    dice: DiceSource,
    *,
    actor_side: str | None = None,
    preview: bool = False,
    other_dice: DiceSource | None = None,
) -> Applied:
    """Check and resolve ``command`` for ``actor_side`` (None: the referee).

    Returns a new state; raises :class:`RulesError` (and changes nothing) if the command
    is not allowed now or its arguments are wrong. ``preview`` (the odds of a fire while
    planning) skips the turn-order checks.
    """
    if state.ended and not isinstance(command, Step | Morale):
        raise IllegalAction("error.pzgren.game_over")
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        preview=preview,
        other_dice=other_dice,
    )


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    from rules.pzgren import PROCEDURES  # the registry imports this module

    return PROCEDURES[procedure].resolve_on(data, tray)


def _own(unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.pzgren.not_your_unit", unit=unit.name)


def _no_pending(state: PzgrenState) -> None:
    """Nothing else happens while a step choice or a morale check is owed."""
    if state.pending_steps:
        entry = state.pending_steps[0]
        raise IllegalAction(
            "error.pzgren.steps_owed", side=state.sides[entry.side], n=entry.owed, hex=entry.hex
        )
    if state.pending_morale:
        owed = state.units[state.pending_morale[0].unit]
        raise IllegalAction("error.pzgren.morale_owed", side=state.sides[owed.side], unit=owed.name)


def _acting_unit(state: PzgrenState, unit_id: str, actor_side: str | None) -> UnitState:
    """The unit must exist, be the actor's, be alive, be its side's to activate, not have acted."""
    unit = state.unit(unit_id)
    _own(unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.pzgren.unit_out", unit=unit.name)
    if is_preview():
        return unit
    _no_pending(state)
    if unit.side != state.active_side:
        raise IllegalAction("error.pzgren.not_your_activation", side=state.sides[state.active_side])
    if unit.acted:
        raise IllegalAction("error.pzgren.already_acted", unit=unit.name)
    return unit


def _end_activation(state: PzgrenState, side: str, result: Applied) -> None:
    """The other side activates next if it can; else this side again; else the turn ends."""
    state.passes = 0
    if _side_destroyed(state, result):
        return
    other = state.other_side(side)
    if can_act(state, other):
        state.active_side = other
    elif can_act(state, side):
        state.active_side = side
    else:
        _end_turn(state, result)


def _settle(state: PzgrenState, result: Applied) -> None:
    """After opportunity fire: the active side must still have a unit to act (unless a side
    wiped out or broken has ended the game)."""
    if _side_destroyed(state, result) or victory.settle(state, result):
        return
    side = state.active_side
    if can_act(state, side):
        return
    other = state.other_side(side)
    if can_act(state, other):
        state.active_side = other
    else:
        _end_turn(state, result)


def _side_destroyed(state: PzgrenState, result: Applied) -> bool:
    """A side with no unit left ends the game."""
    for side, name in state.sides.items():
        if not any(u.side == side and u.alive for u in state.units.values()):
            state.ended = True
            victory.wiped_out(state, side, result)
            result.notices.append(Outcome.of("pzgren.turn.side_destroyed", side=name))
            return True
    return False


def _end_turn(state: PzgrenState, result: Applied) -> None:
    if _side_destroyed(state, result) or victory.turn_over(state, result):
        return
    if ending.last_turn(state, result):
        victory.finish(state, result)
        result.notices.append(Outcome.of("pzgren.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.passes = 0
    state.moved_last = []
    state.at_entries = {}
    state.active_side = state.first_side
    for unit in state.units.values():
        unit.acted = unit.moved = False
    key = "pzgren.turn.new_night" if state.turn in state.night_turns else "pzgren.turn.new"
    result.notices.append(Outcome.of(key, turn=state.turn, side=state.sides[state.active_side]))


def _do_next(
    state: PzgrenState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    _no_pending(state)
    side = state.active_side
    if actor_side is not None and actor_side != side:
        raise IllegalAction("error.pzgren.not_your_activation", side=state.sides[side])
    state.moved_last = []
    state.passes += 1
    result.notices.append(Outcome.of("pzgren.turn.passed", side=state.sides[side]))
    other = state.other_side(side)
    if state.passes >= 2 or not can_act(state, other):
        _end_turn(state, result)
    else:
        state.active_side = other


# -- move, hold, rally -------------------------------------------------------------------------


def _stacking_limit() -> int:
    return int(terrain_data()["stacking"]["combat_units"])


def check_move(
    state: PzgrenState,
    unit: UnitState,
    destination: Hex,
    occupancy: Mapping[str, list[UnitState]] | None = None,
) -> int:
    """Refuse a move the rules forbid (off the map, too far, into enemies, overstacked).

    Returns the distance moved. The handler and the legal-action listing both call it (the
    listing, asking of every hex in reach, passes the state's :meth:`~PzgrenState.occupancy`).
    """
    where = str(destination)
    if not state.on_map(destination):
        raise IllegalAction("error.pzgren.off_map", hex=where)
    steps = distance(unit.position, destination)
    if steps == 0:
        raise IllegalAction("error.pzgren.already_there", unit=unit.name, hex=where)
    if unit.air or steps > unit.movement:
        raise IllegalAction(
            "error.pzgren.too_far", unit=unit.name, distance=steps, movement=unit.movement
        )
    occupants = state.units_in(where) if occupancy is None else occupancy.get(where, [])
    if any(u.side != unit.side for u in occupants):
        raise IllegalAction("error.pzgren.enemy_hex", hex=where)
    if unit.category is Category.COMBAT:
        combat = sum(1 for u in occupants if u.category is Category.COMBAT)
        if combat + 1 > _stacking_limit():
            raise IllegalAction("error.pzgren.stacking", hex=where, limit=_stacking_limit())
    return steps


def _do_move(
    state: PzgrenState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    destination = parse_hex(command.hex)
    where = str(destination)
    steps = check_move(state, unit, destination)
    unit.hex = where
    unit.moved = True
    unit.dug_in = False
    unit.acted = True
    state.moved_last = [unit.id]
    result.notices.append(
        Outcome.of("pzgren.action.moved", unit=unit.name, hex=where, distance=steps)
    )
    _end_activation(state, unit.side, result)


def _do_hold(
    state: PzgrenState, command: Hold, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    unit.acted = True
    state.moved_last = []
    result.notices.append(Outcome.of("pzgren.action.hold", unit=unit.name))
    _end_activation(state, unit.side, result)


def _do_recover(
    state: PzgrenState, command: Recover, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.status is MoraleState.GOOD_ORDER:
        raise IllegalAction("error.pzgren.not_shaken", unit=unit.name)
    resolution = _resolve(
        "morale",
        morale.MoraleInput(morale=unit.morale, status=unit.status, rally=True, target=unit.id),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)
    unit.acted = True
    state.moved_last = []
    _end_activation(state, unit.side, result)


# -- fire --------------------------------------------------------------------------------------


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
    _no_pending(state)
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
                    id=u.id, category=u.category, armour=u.armour_kind, modifiers=unit_modifiers(u)
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
    if target.id in state.moved_last:
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


# -- effects, step choices, morale checks ------------------------------------------------------


def _lose_steps(state: PzgrenState, unit: UnitState, n: int, result: Applied) -> None:
    unit.steps = max(0, unit.steps - n)
    if unit.steps == 0:
        _eliminated(state, unit, result)
    else:
        result.notices.append(Outcome.of("pzgren.unit.step_lost", unit=unit.name, left=unit.steps))


def _eliminated(state: PzgrenState, unit: UnitState, result: Applied) -> None:
    unit.steps = 0
    unit.dug_in = False
    state.pending_morale = [p for p in state.pending_morale if p.unit != unit.id]
    result.notices.append(Outcome.of("pzgren.unit.eliminated", unit=unit.name))


def _apply_effects(state: PzgrenState, resolution: Resolution, result: Applied) -> None:
    """Apply a resolution's effects: steps owed or lost, eliminations, states, morale owed."""
    if is_preview():
        return
    for effect in resolution.effects:
        params = dict(effect.params)
        if effect.kind is EffectKind.DAMAGE and effect.key.startswith("steps_"):
            ids = [u for u in str(params.get("units", "")).split(",") if u in state.units]
            if not ids:
                continue
            state.pending_steps.append(
                PendingSteps(
                    hex=effect.target or state.units[ids[0]].hex,
                    category=Category(str(params["category"])),
                    owed=effect.amount or 1,
                    units=ids,
                    open_top=[u for u in str(params.get("open_top", "")).split(",") if u],
                    side=state.units[ids[0]].side,
                )
            )
            continue
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.DAMAGE and effect.key == "step_loss":
            _lose_steps(state, unit, effect.amount or 1, result)
        elif effect.kind is EffectKind.STATUS and effect.key == "eliminated":
            _eliminated(state, unit, result)
        elif effect.kind is EffectKind.STATUS and effect.key in MORALE_STATES:
            unit.status = MoraleState(effect.key)
        elif effect.kind is EffectKind.TEST_OWED and unit.alive:
            n = int(params.get("n", 0))
            owed = next((p for p in state.pending_morale if p.unit == unit.id), None)
            if owed is None:
                state.pending_morale.append(PendingMorale(unit=unit.id, n=n))
            else:
                owed.n = max(owed.n, n)
    _settle_steps(state, result)


def step_choices(state: PzgrenState, entry: PendingSteps) -> list[str]:
    """The units that may take the next step of an owed step loss."""
    alive = [u for u in entry.units if state.units[u].alive]
    if entry.open_top and not entry.open_top_done and entry.owed == 1:
        open_top = [u for u in entry.open_top if state.units[u].alive]
        if open_top:
            return open_top
    return alive


def _take_step(state: PzgrenState, entry: PendingSteps, unit: UnitState, result: Applied) -> None:
    entry.owed -= 1
    if unit.id in entry.open_top:
        entry.open_top_done = True
    _lose_steps(state, unit, 1, result)


def _settle_steps(state: PzgrenState, result: Applied) -> None:
    """Apply every step loss that leaves no choice; keep the others for the owner."""
    kept: list[PendingSteps] = []
    for entry in state.pending_steps:
        while entry.owed > 0:
            choices = step_choices(state, entry)
            if not choices:
                break
            alive = [state.units[u] for u in entry.units if state.units[u].alive]
            if len(choices) == 1 or sum(u.steps for u in alive) <= entry.owed:
                _take_step(state, entry, state.units[choices[0]], result)
                continue
            kept.append(entry)
            break
    state.pending_steps = kept


def _do_step(
    state: PzgrenState, command: Step, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    if not state.pending_steps:
        raise IllegalAction("error.pzgren.no_steps_owed")
    entry = state.pending_steps[0]
    if actor_side is not None and actor_side != entry.side:
        raise IllegalAction("error.pzgren.not_your_choice", side=state.sides[entry.side])
    unit = state.unit(command.unit)
    choices = step_choices(state, entry)
    if unit.id not in choices:
        raise IllegalAction(
            "error.pzgren.not_a_step_choice",
            unit=unit.name,
            choices=", ".join(state.units[u].name for u in choices),
        )
    _take_step(state, entry, unit, result)
    _settle_steps(state, result)


def _do_morale(
    state: PzgrenState, command: Morale, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor_side)
    owed = next((p for p in state.pending_morale if p.unit == unit.id), None)
    if owed is None:
        raise NotOwed("error.pzgren.no_morale_owed", unit=unit.name)
    if state.pending_steps:
        entry = state.pending_steps[0]
        raise IllegalAction(
            "error.pzgren.steps_owed", side=state.sides[entry.side], n=entry.owed, hex=entry.hex
        )
    resolution = _resolve(
        "morale",
        morale.MoraleInput(morale=unit.morale, n=owed.n, status=unit.status, target=unit.id),
        tray,
    )
    state.pending_morale.remove(owed)
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Move: _do_move,
    Hold: _do_hold,
    Fire: _do_fire,
    Morale: _do_morale,
    Recover: _do_recover,
    Step: _do_step,
}


# The state lives in rules.pzgren.state; its names are this module's too.
__all__ = [
    "MAX_TEXT",
    "Applied",
    "Command",
    "Fire",
    "FirePlan",
    "HexState",
    "Hold",
    "Morale",
    "Move",
    "Next",
    "PendingMorale",
    "PendingSteps",
    "PzgrenState",
    "Recover",
    "Step",
    "UnitState",
    "apply",
    "at_modifiers",
    "awaiting",
    "can_act",
    "check_move",
    "direct_modifiers",
    "load_state",
    "new_game",
    "plan_fire",
    "step_choices",
    "unit_modifiers",
]
