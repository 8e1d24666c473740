"""Muovere and Appostarsi: moves checked against TIPI DI TERRENO."""

from __future__ import annotations

import math

from rules.core.battlefield import Point
from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import IllegalAction, InvalidInput, RulesError
from rules.core.geometry import EPSILON_CM, distance, terrain_at
from rules.core.resolution import EffectKind, Outcome, Resolution
from rules.manovra import field
from rules.manovra.model import MoveRate
from rules.manovra.orders import Hold, Move
from rules.manovra.procedures import ground
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.tables import load_tables
from rules.manovra.turn.common import _acting_unit, _owe, _resolve, carry_along
from rules.manovra.turn.sequence import _finish_action


def allowed_kinds(unit: UnitState) -> list[MoveRate]:
    """The kinds of move a unit may make now, fastest first (none when immobilised).

    Hits slow a vehicle down ("movimento breve", "movimento cauto"); a unit just recovered
    from panic may only move tactically; a panicked unit only retreats, at the fastest kind
    it may make (see :func:`check_retreat`).
    """
    if unit.has("immobilised") or unit.aboard is not None:
        return []
    kinds = [MoveRate.TATTICO, MoveRate.BREVE, MoveRate.CAUTO]
    if unit.has("short"):
        kinds = [MoveRate.BREVE, MoveRate.CAUTO]
    if unit.has("cautious"):
        kinds = [MoveRate.CAUTO]
    if unit.has("recovered"):
        kinds = [k for k in kinds if k is MoveRate.TATTICO]
    if unit.has("panic"):
        kinds = kinds[:1]
    return kinds


def terrain_ids() -> list[str]:
    """The rows of TIPI DI TERRENO: the terrains a typed move names."""
    return [row.id or "" for row in load_tables()["tipi_terreno"].rows]


# -- Panic: "è in panico e deve ritirarsi" (seed 000 lines 190 and 251) ----------------------
#
# A panicked unit, when its turn to act comes, tries to recover (Recupero panico, line 9) or
# retreats; it may not hold (Appostarsi), fire or assault. A retreat is a move of the fastest
# kind the unit may make; on a battlefield it must end farther from the nearest enemy in view
# than it started (the bot measures; without a battlefield the direction is the players').
# A unit with no retreat (immobilised, cornered, no ground it can cross) holds.

RETREAT_BEARINGS = (0, 45, 90, 135, 180, 225, 270, 315)  # the compass, after "away"


def _enemy_gap(state: ManovraState, unit: UnitState, point: Point) -> float | None:
    """How far ``point`` is from the nearest enemy on the table that is not concealed."""
    gaps = [
        distance(point, enemy.position)
        for enemy in state.units.values()
        if enemy.side != unit.side
        and enemy.alive
        and enemy.position is not None
        and not enemy.has("concealed")
    ]
    return min(gaps, default=None)


def check_retreat(state: ManovraState, unit: UnitState, start: Point, goal: Point) -> None:
    """A panicked unit's move on a battlefield must take it farther from the nearest enemy."""
    before = _enemy_gap(state, unit, start)
    after = _enemy_gap(state, unit, goal)
    if before is not None and after is not None and after <= before + EPSILON_CM:
        raise IllegalAction(
            "error.manovra.retreat_away", unit=unit.name, cm=f"{round(before, 1):g}"
        )


def _away_bearing(state: ManovraState, unit: UnitState, here: Point) -> int | None:
    """The bearing (degrees clockwise from north) straight away from the nearest enemy."""
    enemies = [
        e.position
        for e in state.units.values()
        if e.side != unit.side and e.alive and e.position is not None and not e.has("concealed")
    ]
    if not enemies:
        return None
    nearest = min(enemies, key=lambda there: distance(here, there))
    return round(math.degrees(math.atan2(here.x - nearest.x, here.y - nearest.y))) % 360


def retreat_destinations(state: ManovraState, unit: UnitState, limit: int) -> list[str]:
    """Up to ``limit`` ``to:`` values a panicked unit may retreat to on a battlefield:
    straight away from the nearest enemy, then the compass points, each at the allowance
    through the ground it stands on, else at half of it."""
    kinds = allowed_kinds(unit)
    here = unit.position
    if not kinds or state.battlefield is None or here is None:
        return []
    unit_class = ground.MovementClass(unit.kind["movement"])
    reach = math.floor(ground.leg_limit_cm(unit_class, unit.tactical_cm, kinds[0], unit.terrain))
    if reach < 1:
        return []
    away = _away_bearing(state, unit, here)
    bearings = [b for b in (away, *RETREAT_BEARINGS) if b is not None]
    tray = DiceTray(SystemDice())  # the move procedure rolls no dice
    found: list[str] = []
    for bearing in dict.fromkeys(bearings):
        for cm in dict.fromkeys((reach, max(1, reach // 2))):
            text = f"{bearing}° {cm}"
            try:
                goal = field.destination(state, unit, text)
                check_retreat(state, unit, here, goal)
                check_walk(state, unit, kinds[0], here, goal, False, tray)
            except RulesError:
                continue
            found.append(text)
            break
        if len(found) >= limit:
            break
    return found


def may_retreat(state: ManovraState, unit: UnitState) -> bool:
    """Whether a panicked unit has a retreat (else it holds)."""
    kinds = allowed_kinds(unit)
    if not kinds:
        return False
    if state.battlefield is not None:
        return bool(retreat_destinations(state, unit, 1))
    unit_class = ground.MovementClass(unit.kind["movement"])
    return any(
        ground.leg_limit_cm(unit_class, unit.tactical_cm, kinds[0], terrain) >= 1
        for terrain in terrain_ids()
    )


# Legs are kept to 0.01 cm and stretches under it dropped: a path measured that way may
# come out this much shorter than the straight line (far less, in practice).
_ROUNDING_CM = 1.0


def _check_kind(unit: UnitState, kind: MoveRate) -> None:
    """The unit may make a move of this kind at all (hits slow a vehicle down)."""
    if unit.aboard is not None:
        raise IllegalAction("error.manovra.aboard_moves", unit=unit.name)
    if unit.has("immobilised"):
        raise IllegalAction("error.manovra.immobilised", unit=unit.name)
    if unit.has("short") and kind is MoveRate.TATTICO:
        raise IllegalAction("error.manovra.short_only", unit=unit.name)
    if unit.has("cautious") and kind is not MoveRate.CAUTO:
        raise IllegalAction("error.manovra.cautious_only", unit=unit.name)


def check_reach(unit: UnitState, kind: MoveRate, start: Point, goal: Point) -> None:
    """Refuse, from the straight distance alone, a move no ground could make short enough:
    cheaper than cutting its path into terrain legs, and the same verdict (refused)."""
    longest = ground.longest_move_cm(
        ground.MovementClass(unit.kind["movement"]), unit.tactical_cm, kind
    )
    straight = distance(start, goal)
    if straight > float(longest) + _ROUNDING_CM:
        raise IllegalAction(
            "error.manovra.beyond_reach",
            unit=unit.name,
            cm=f"{round(straight, 1):g}",
            kind=kind.value,
            reach=f"{round(float(longest), 1):g}",
        )


def _move_resolution(
    unit: UnitState, kind: MoveRate, legs: tuple[ground.Leg, ...], conceal: bool, tray: DiceTray
) -> Resolution:
    _check_kind(unit, kind)
    try:
        data = ground.MoveInput(
            unit_class=unit.kind["movement"],
            tactical_cm=unit.tactical_cm,
            kind=kind,
            legs=legs,
            conceal=conceal,
        )
    except ValueError as error:
        raise InvalidInput("error.invalid_input.detail", detail=str(error)[:200]) from None
    for leg in legs:
        load_tables()["tipi_terreno"].row_by_id(leg.terrain)
    resolution = _resolve("move", data, tray)
    if resolution.outcome.key != "manovra.move.ok":
        raise IllegalAction(resolution.outcome.key, **dict(resolution.outcome.params))
    return resolution


def _apply_move(state: ManovraState, unit: UnitState, resolution: Resolution, terrain: str) -> None:
    unit.terrain = terrain
    unit.moved = True
    carry_along(state, unit)
    unit.statuses = [s for s in unit.statuses if s != "concealed"]
    for effect in resolution.effects:
        if effect.kind is EffectKind.STATUS and effect.key == "concealed":
            unit.add("concealed")
        if effect.kind is EffectKind.TEST_OWED and effect.key == "ET":
            terrain_id = dict(effect.params).get("terrain", "")
            _owe(state, unit, "ET", "mine" if terrain_id == "campi_minati" else "wire")


def _do_move(
    state: ManovraState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        kinds = allowed_kinds(unit)
        if command.kind not in kinds:
            raise IllegalAction(
                "error.manovra.retreat_kind",
                unit=unit.name,
                kind=kinds[0].value if kinds else "-",
            )
    if unit.has("recovered") and command.kind is not MoveRate.TATTICO:
        raise IllegalAction("error.manovra.recovered_tactical_only", unit=unit.name)
    if state.battlefield is not None:
        field.begin(state)
        _move_on_field(state, unit, command, tray, result)
        _finish_action(state, unit, result)
        return
    if command.to is not None:
        raise InvalidInput("error.manovra.no_battlefield", option="to")
    if command.terrain is None:
        raise InvalidInput("error.option.missing", option="terrain")
    if command.distance_cm is None:
        raise InvalidInput("error.option.missing", option="distance")
    legs = (*command.via, ground.Leg(terrain=command.terrain, cm=command.distance_cm))
    resolution = _move_resolution(unit, command.kind, legs, command.conceal, tray)
    result.resolutions.append(resolution)
    _apply_move(state, unit, resolution, command.terrain)
    _finish_action(state, unit, result)


def _move_on_field(
    state: ManovraState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    """A move to a destination: the straight path's terrain legs, measured by the bot."""
    if command.to is None:
        raise InvalidInput("error.manovra.move_needs_to", unit=unit.name)
    for option, value in (("terrain", command.terrain), ("via", command.via)):
        if value:
            raise InvalidInput("error.manovra.field_measures", option=option)
    start = field.position(state, unit)
    goal = field.destination(state, unit, command.to)
    # A distance typed beside to: must agree with the path (it is a check, not an input).
    field.settle_distance(command.distance_cm, field.distance_between(start, goal), unit.side)
    if unit.has("panic"):
        check_retreat(state, unit, start, goal)
    walk_to(state, unit, command.kind, start, goal, command.conceal, tray, result)


def check_walk(
    state: ManovraState,
    unit: UnitState,
    kind: MoveRate,
    start: Point,
    goal: Point,
    conceal: bool,
    tray: DiceTray,
    legs: tuple[ground.Leg, ...] | None = None,
) -> tuple[Resolution, tuple[ground.Leg, ...]]:
    """The move procedure over the straight path's terrain legs (refused past the allowance,
    through impassable terrain, or under 1 cm); ``legs`` when already cut for this path."""
    if legs is None:
        _check_kind(unit, kind)
        check_reach(unit, kind, start, goal)
        legs = field.legs(state, start, goal)
    if not legs:
        raise IllegalAction("manovra.move.too_short")
    return _move_resolution(unit, kind, legs, conceal, tray), legs


def walk_to(
    state: ManovraState,
    unit: UnitState,
    kind: MoveRate,
    start: Point,
    goal: Point,
    conceal: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Check the path start→goal as a move of ``kind`` and put the unit at ``goal``."""
    resolution, legs = check_walk(state, unit, kind, start, goal, conceal, tray)
    result.resolutions.append(resolution)
    _apply_move(state, unit, resolution, legs[-1].terrain)
    unit.position = goal
    assert state.battlefield is not None
    unit.terrain = terrain_at(state.battlefield, goal)[0]
    carry_along(state, unit)
    result.notices.append(
        Outcome.of(
            "manovra.field.moved",
            unit=unit.name,
            x=f"{goal.x:g}",
            y=f"{goal.y:g}",
            terrain=unit.terrain,
            cm=f"{round(field.distance_between(start, goal), 1):g}",
        )
    )
    field.remember(
        state,
        [field.arrow(start, goal, unit.id)],
        None if state.last_action is not None else "manovra.map.moved",
        **({} if state.last_action is not None else {"unit": unit.name}),
    )


def _do_hold(
    state: ManovraState, command: Hold, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic") and may_retreat(state, unit):
        # "è in panico e deve ritirarsi": a panicked unit with a retreat does not hold.
        raise IllegalAction("error.manovra.must_retreat", unit=unit.name)
    result.notices.append(Outcome.of("manovra.action.hold", unit=unit.name))
    _finish_action(state, unit, result)
