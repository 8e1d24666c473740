"""Measuring a manovra game on its battlefield: distances, sight, paths, blasts.

Everything here applies only when the scenario carries a ``battlefield:``; a game without
one keeps the distances and terrain players type. The values the seed does not give (the
blast radius, the D8 compass, a unit's footprint) are data in ``data/battlefield.yaml``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rules.core.battlefield import Overlay, Point
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import (
    Sight,
    distance,
    line_of_sight,
    on_table,
    parse_destination,
    path_legs,
)
from rules.core.resolution import Outcome, Resolution, ResolutionBuilder
from rules.core.words import joined
from rules.core.yamlio import load_yaml
from rules.manovra.model import RULESET_KEY
from rules.manovra.procedures import ground
from rules.manovra.state import LastAction, ManovraState, UnitState


@cache
def field_data() -> dict[str, Any]:
    """``data/battlefield.yaml`` (values not in the seed)."""
    text = (resources.files("rules.manovra") / "data" / "battlefield.yaml").read_text("utf-8")
    data: dict[str, Any] = load_yaml(text)
    return data


def blast_radius(calibre_mm: int) -> float:
    """The blast radius (cm) of an HE round of this calibre (not in the seed: data)."""
    for band in field_data()["blast_radius_cm"]:
        limit = band.get("calibre_up_to")
        if limit is None or calibre_mm <= int(limit):
            return float(band["radius"])
    return float(field_data()["blast_radius_cm"][-1]["radius"])


def bearing_of(face: int) -> float:
    """The bearing (degrees clockwise from north) a scatter D8 face points to."""
    return float(field_data()["d8_bearings"][face])


def distance_between(a: Point, b: Point) -> float:
    """The straight-line cm between two points."""
    return distance(a, b)


def position(state: ManovraState, unit: UnitState) -> Point:
    """Where a unit stands; refused for a unit with no place on the table."""
    if unit.position is None:
        raise IllegalAction("error.manovra.no_position", unit=unit.name)
    return unit.position


def places(state: ManovraState) -> dict[str, Point]:
    """Units on the table by id, for destinations like ``toward gruppe_1 10``."""
    return {u.id: u.position for u in state.units.values() if u.alive and u.position is not None}


def destination(state: ManovraState, unit: UnitState, text: str) -> Point:
    """The point ``to:`` names from the unit's position (x,y; place; bearing; toward)."""
    field = state.battlefield
    assert field is not None
    start = position(state, unit)
    return rounded(parse_destination(text, field, start, places(state)), start)


def rounded(point: Point, start: Point) -> Point:
    """A destination kept to the millimetre (what a player could measure), cut toward the
    start so the rounding never lengthens a move past its allowance."""

    def cut(value: float, origin: float) -> float:
        return round(origin + math.trunc(round((value - origin) * 10, 6)) / 10, 1)

    return Point(x=max(0.0, cut(point.x, start.x)), y=max(0.0, cut(point.y, start.y)))


def legs(state: ManovraState, origin: Point, goal: Point) -> tuple[ground.Leg, ...]:
    """The straight path origin→goal as the terrain legs the move procedure checks."""
    field = state.battlefield
    assert field is not None
    cut = path_legs(field, origin, goal)
    found = tuple(
        ground.Leg(terrain=leg.terrain, cm=round(leg.cm, 2)) for leg in cut if leg.cm >= 0.01
    )
    if len(found) > 20:
        raise InvalidInput("error.manovra.path_too_winding", n=len(found))
    return found


def sight(state: ManovraState, firer: UnitState, target: UnitState) -> Sight:
    """The line from firer to target: cm, the target's terrain, blocking and crossed areas."""
    field = state.battlefield
    assert field is not None
    return line_of_sight(field, position(state, firer), position(state, target))


def area_name(state: ManovraState, area_id: str | None) -> str:
    """An area's name as the scenario gives it (open ground: the open terrain's id)."""
    field = state.battlefield
    if field is None or area_id is None:
        return field.open_terrain if field is not None else ""
    return next((a.name for a in field.areas if a.id == area_id), area_id)


def check_sight(state: ManovraState, seen: Sight, target: UnitState) -> None:
    """Refuse a line a sight-blocking area cuts, naming the area."""
    if seen.blocked_by:
        raise IllegalAction(
            "error.manovra.sight_blocked",
            target=target.name,
            area=joined(area_name(state, a) for a in seen.blocked_by),
        )


@dataclass(frozen=True, slots=True)
class Measured:
    """A distance the bot measured, and the one used (the referee may override it)."""

    measured: float
    used: float
    overridden: bool


def settle_distance(
    typed: float | None, measured: float, actor_side: str | None, option: str = "distance"
) -> Measured:
    """The distance to use: the measured one; a player's differing value is refused.

    The referee (``actor_side`` None) may override: the typed value is used and the
    resolution shows both.
    """
    tolerance = float(field_data()["tolerance_cm"])
    if typed is None or abs(typed - measured) <= tolerance:
        return Measured(measured, measured, False)
    if actor_side is not None:
        raise IllegalAction(
            "error.manovra.distance_differs",
            option=option,
            typed=_cm(typed),
            measured=_cm(measured),
        )
    return Measured(measured, typed, True)


def _cm(value: float) -> str:
    return f"{round(value, 1):g}"


def measure_resolution(
    state: ManovraState,
    tray: DiceTray,
    *,
    origin: UnitState,
    target_name: str,
    distance: Measured,
    seen: Sight | None = None,
) -> Resolution:
    """The bot's measurement as a resolution (no dice), shown before what it decides."""
    builder = ResolutionBuilder(RULESET_KEY, "measure", tray)
    builder.step(
        "manovra.step.measured",
        cm=_cm(distance.measured),
        origin=origin.name,
        target=target_name,
    )
    if seen is not None:
        builder.step(
            "manovra.step.target_terrain",
            terrain=seen.target_terrain,
            area=area_name(state, seen.target_area),
        )
        if seen.crossed:
            builder.step(
                "manovra.step.crossed",
                areas=joined(area_name(state, a) for a in seen.crossed),
            )
    if distance.overridden:
        builder.step(
            "manovra.step.override",
            typed=_cm(distance.used),
            measured=_cm(distance.measured),
        )
    return builder.finish(Outcome.of("manovra.measure.cm", cm=_cm(distance.used)))


def land(state: ManovraState, aim: Point, scatter: Resolution) -> tuple[Point, bool]:
    """Where a round lands from the aimed point: the scatter step's cm and D8 direction.

    Returns the point (kept on the table for drawing) and whether it fell off the table.
    """
    field = state.battlefield
    assert field is not None
    cm = 0.0
    face: int | None = None
    for step in reversed(scatter.steps):
        if step.key == "manovra.step.scatter":
            params = dict(step.params)
            face = int(str(params.get("direction", 1)))
            break
    value = scatter.outcome.param("cm")
    if value is not None and scatter.outcome.key in (
        "manovra.scatter.landed",
        "manovra.heavy.miss_scatter",
    ):
        cm = max(0.0, float(value))
    if face is None or cm <= 0:
        return aim, False
    radians = math.radians(bearing_of(face))
    x, y = aim.x + cm * math.sin(radians), aim.y + cm * math.cos(radians)
    off = not (0 <= x <= field.width_cm and 0 <= y <= field.height_cm)
    if off:
        x, y = min(max(x, 0.0), field.width_cm), min(max(y, 0.0), field.height_cm)
    return on_table(field, x, y, what="landing"), off


def in_blast(state: ManovraState, point: Point, radius: float) -> list[UnitState]:
    """Living units on the table whose position is within the blast (radius + footprint)."""
    reach = radius + float(field_data()["unit_radius_cm"])
    found = [
        (math.hypot(u.position.x - point.x, u.position.y - point.y), u.id)
        for u in state.units.values()
        # A unit in or behind a transport shares the transport's fate (not in the seed).
        if u.alive and u.position is not None and u.aboard is None
    ]
    return [state.units[unit_id] for cm, unit_id in sorted(found) if cm <= reach + 1e-9]


def begin(state: ManovraState) -> None:
    """A command that draws on the map starts a new last action (the old one is forgotten)."""
    if state.battlefield is not None:
        state.last_action = None


def remember(
    state: ManovraState, overlays: list[Overlay], caption: str | None, **params: str | int | float
) -> None:
    """Add overlays to the current action's; a caption replaces the one before."""
    previous = state.last_action
    kept = list(previous.overlays) if previous is not None else []
    if caption is None:
        caption = previous.caption if previous is not None else ""
        params = dict(previous.params) if previous is not None else {}
    state.last_action = LastAction(overlays=[*kept, *overlays], caption=caption, params=params)


def line(origin: Point, target: Point, label: str = "") -> Overlay:
    """A line of fire."""
    return Overlay(kind="line_of_fire", points=(origin, target), label=label)


def arrow(origin: Point, target: Point, label: str = "") -> Overlay:
    """A scatter arrow from the aimed point to where the round landed."""
    return Overlay(kind="arrow", points=(origin, target), label=label)


def circle(center: Point, radius: float, label: str = "") -> Overlay:
    """A blast circle."""
    return Overlay(kind="circle", points=(center,), radius=radius, label=label)
