"""The battlefield of a linea_gotica game (issue 16): terrain classes, positions, measuring.

With a battlefield the bot keeps where every unit stands; a move walks its path through the
terrain (the movement modifiers of the seed's tables), fire and observation measure the
distance and the line of sight, and HE lands at a computed point. The terrain classes are
data (``data/terrain.yaml``): the seed has no terrain table, so each class only says which of the
seed's own rows (cover, obstacles, roads, difficult ground) it stands for.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from rules.core.battlefield import Battlefield, CircleShape, Overlay, Point, Shape
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import (
    Leg,
    Sight,
    contains,
    distance,
    length_inside,
    line_of_sight,
    offset,
    on_table,
    parse_destination,
    path_legs,
    terrain_at,
)
from rules.core.i18n import has_key
from rules.core.resolution import Outcome
from rules.core.words import joined, worded
from rules.linea_gotica.model import RULESET_KEY, Direction
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY
TERRAIN_FILE = Path(__file__).resolve().parent / "data" / "terrain.yaml"


class TerrainClass(BaseModel):
    """What one terrain class of the battlefield reads on the seed's tables."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    cover: Cover
    foot: str | None = None
    vehicle: str | None = None
    road: bool = False
    obstacle: bool = False


class TerrainData(BaseModel):
    """The whole ``terrain.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    not_in_seed: bool
    classes: dict[str, TerrainClass]
    crossing_margin_cm: float = Field(ge=0)
    tolerance_cm: float = Field(ge=0)
    squad_in_zone: Literal["all"]


@cache
def terrain_data() -> TerrainData:
    """The terrain classes, checked against the movement tables' rows at load."""
    data = TerrainData.model_validate(yaml.safe_load(TERRAIN_FILE.read_text(encoding="utf-8")))
    tables = load_tables()
    foot = {row.id for row in tables["modificatori_movimento_fanteria"].rows}
    vehicle = {row.id for row in tables["modificatori_movimento_veicoli"].rows}
    for name, terrain in data.classes.items():
        if terrain.foot is not None and terrain.foot not in foot:
            raise ValueError(f"terrain {name}: unknown foot row {terrain.foot}")
        if terrain.vehicle is not None and terrain.vehicle not in vehicle:
            raise ValueError(f"terrain {name}: unknown vehicle row {terrain.vehicle}")
    return data


def terrain_classes() -> tuple[str, ...]:
    """The class names a scenario's areas may use."""
    return tuple(terrain_data().classes)


def terrain_class(name: str) -> TerrainClass:
    """One terrain class (scenarios are checked at load, so it exists)."""
    return terrain_data().classes[name]


def place_name(field: Battlefield | None, place: str) -> str:
    """A place as its reader reads it, in every language: a battlefield area's name (the
    scenario's), a named terrain element's word (``linea_gotica.values.<element>``: a
    scenario without a battlefield names its elements by id), else as written."""
    if field is not None and any(area.id == place for area in field.areas):
        return area_name(field, place)
    key = f"{RULESET_KEY}.values.{place}"
    return worded(key) if has_key(key) else place


def area_name(field: Battlefield, area_id: str | None) -> str:
    """An area's name for messages ('-' for open ground)."""
    for area in field.areas:
        if area.id == area_id:
            return area.name
    return area_id or "-"


def where(field: Battlefield, point: Point) -> tuple[Cover, str]:
    """The cover and the place (area id, '' in the open) of a unit standing at ``point``."""
    terrain, area = terrain_at(field, point)
    return terrain_class(terrain).cover, area or ""


def cm(value: float) -> str:
    """A length as shown: one decimal at most ("34", "34.5")."""
    return f"{round(value, 1):g}"


# -- movement ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PathPlan:
    """A move measured on the table: where it ends, its legs and what they cost."""

    destination: Point
    legs: tuple[Leg, ...]
    cm: float
    foot_mods: tuple[str, ...]
    vehicle_mods: tuple[str, ...]
    on_road: bool
    step_across_foot: bool  # a whole-turn obstacle crossed within the margin: distance 0
    step_across_vehicle: bool


def _whole_turn(table_id: str, row_id: str) -> bool:
    tables = load_tables()
    table = tables[table_id]
    parsed = tables.parsed(table, table.row_by_id(row_id), table.column("modifica"))
    return bool(parsed.whole_turn)


def plan_path(field: Battlefield, origin: Point, destination: Point) -> PathPlan:
    """The straight path origin → destination cut into terrain legs, and the movement rows
    its terrain takes (each row once: the seed's percentages reduce the whole allowance).

    An obstacle the unit stands at (the area of the first leg) is not crossed again: a squad
    behind a hedge may leave it either way.
    """
    legs = path_legs(field, origin, destination)
    _, start_area = terrain_at(field, origin)
    foot: list[str] = []
    vehicle: list[str] = []
    whole_foot = whole_vehicle = 0.0
    for index, leg in enumerate(legs):
        terrain = terrain_class(leg.terrain)
        if terrain.obstacle and index == 0 and leg.area == start_area and leg.area is not None:
            continue
        if terrain.foot is not None:
            foot.append(terrain.foot)
            if _whole_turn("modificatori_movimento_fanteria", terrain.foot):
                whole_foot += leg.cm
        if terrain.vehicle is not None:
            vehicle.append(terrain.vehicle)
            if _whole_turn("modificatori_movimento_veicoli", terrain.vehicle):
                whole_vehicle += leg.cm
    total = sum(leg.cm for leg in legs)
    margin = terrain_data().crossing_margin_cm
    return PathPlan(
        destination=destination,
        legs=legs,
        cm=total,
        foot_mods=tuple(dict.fromkeys(foot)),
        vehicle_mods=tuple(dict.fromkeys(vehicle)),
        on_road=bool(legs) and all(terrain_class(leg.terrain).road for leg in legs),
        step_across_foot=whole_foot > 0 and total - whole_foot <= margin,
        step_across_vehicle=whole_vehicle > 0 and total - whole_vehicle <= margin,
    )


def legs_text(field: Battlefield, legs: tuple[Leg, ...]) -> str:
    """'12.0 cm aperto, 5.5 cm bosco (Bosco dei castagni)' for the path's notice."""
    parts = []
    for leg in legs:
        name = f" ({area_name(field, leg.area)})" if leg.area is not None else ""
        parts.append(f"{cm(leg.cm)} cm {leg.terrain}{name}")
    return ", ".join(parts) or "0 cm"


def destination(field: Battlefield, text: str, origin: Point, places: dict[str, Point]) -> Point:
    """Where a ``to:`` points from ``origin`` (rules.core.geometry's forms)."""
    return parse_destination(text, field, origin, places)


def gap(shape: Shape, point: Point) -> float:
    """How far ``point`` is from ``shape`` (0 inside it): a minefield's distance."""
    if contains(shape, point):
        return 0.0
    if isinstance(shape, CircleShape):
        return max(0.0, distance(shape.center, point) - shape.radius)
    corners = shape.points
    return min(
        _to_segment(point, a, corners[(i + 1) % len(corners)]) for i, a in enumerate(corners)
    )


def _to_segment(point: Point, a: Point, b: Point) -> float:
    dx, dy = b.x - a.x, b.y - a.y
    length = dx * dx + dy * dy
    share = 0.0 if length == 0 else ((point.x - a.x) * dx + (point.y - a.y) * dy) / length
    share = min(1.0, max(0.0, share))
    return math.hypot(point.x - (a.x + share * dx), point.y - (a.y + share * dy))


def enters(shape: Shape, origin: Point, destination: Point) -> bool:
    """Whether the path origin → destination goes into ``shape`` (a minefield crossed)."""
    return contains(shape, destination) or length_inside(shape, origin, destination) > 0.01


def no_battlefield() -> InvalidInput:
    """``to:`` in a game without a battlefield."""
    return InvalidInput("error.linea_gotica.field.none")


# -- measuring ---------------------------------------------------------------------------------


_SightKey = tuple[int, float, float, float, float, tuple[str, ...]]
_sight_memo: ContextVar[dict[_SightKey, tuple[Sight, tuple[str, ...]]] | None] = ContextVar(
    "linea_gotica_sight_memo", default=None
)


@contextmanager
def remembered_sight() -> Iterator[None]:
    """Within: :func:`sight` answers each line once (the legal listing asks the same firer →
    target line for every weapon and mode, and again to measure it). The answer depends only
    on its arguments (a frozen battlefield, two points, the smoke), which are its key."""
    if _sight_memo.get() is not None:
        yield
        return
    token = _sight_memo.set({})
    try:
        yield
    finally:
        _sight_memo.reset(token)


def sight(
    field: Battlefield,
    origin: Point,
    target: Point,
    smoke_places: tuple[str, ...] = (),
) -> tuple[Sight, tuple[str, ...]]:
    """The line origin → target, and the ids of what blocks it: sight-blocking areas between
    and areas under effective smoke that it crosses or that either end stands in (smoke
    hides a unit inside it too)."""
    memo = _sight_memo.get()
    if memo is None:
        return _sight(field, origin, target, smoke_places)
    key = (id(field), origin.x, origin.y, target.x, target.y, smoke_places)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _sight(field, origin, target, smoke_places)
    return found


def _sight(
    field: Battlefield,
    origin: Point,
    target: Point,
    smoke_places: tuple[str, ...],
) -> tuple[Sight, tuple[str, ...]]:
    measured = line_of_sight(field, origin, target)
    blocking = list(measured.blocked_by)
    _, origin_area = terrain_at(field, origin)
    for place in smoke_places:
        if place in measured.crossed or place in (measured.target_area, origin_area):
            blocking.append(place)
    return measured, tuple(dict.fromkeys(blocking))


def refuse_blocked(field: Battlefield, blocking: tuple[str, ...], target: str) -> None:
    """No sight: refused, naming the area (or the smoke)."""
    if blocking:
        raise IllegalAction(
            "error.linea_gotica.field.blocked",
            target=target,
            area=joined(area_name(field, a) for a in blocking),
        )


def settle_distance(
    typed: float | None, measured: float, actor: str | None, notices: list[Outcome]
) -> float:
    """The distance a resolution uses: the measured one; a player's typed distance that
    differs is refused with the measured value; the referee's stands, logged with both."""
    shown = cm(measured)
    if typed is None or typed <= 0:
        notices.append(Outcome.of(f"{K}.field.measured", cm=shown))
        return measured
    if abs(typed - measured) <= terrain_data().tolerance_cm:
        notices.append(Outcome.of(f"{K}.field.measured", cm=shown))
        return measured
    if actor is not None:
        raise InvalidInput("error.linea_gotica.field.distance_differs", typed=cm(typed), cm=shown)
    notices.append(Outcome.of(f"{K}.field.override", typed=cm(typed), cm=shown))
    return typed


def bearing(a: Point, b: Point) -> float:
    """Degrees clockwise from north (the table's top edge) from a toward b."""
    return math.degrees(math.atan2(b.x - a.x, b.y - a.y)) % 360.0


_TURN = {Direction.LONG: 0.0, Direction.SHORT: 180.0, Direction.RIGHT: 90.0, Direction.LEFT: 270.0}


def deviate(aim: Point, line_bearing: float, moves: list[tuple[Direction, float]]) -> Point:
    """The point ``aim`` moved long/short along the line of fire and right/left across it
    (right as seen by the firer), clamped to the table's corner at 0 (callers check the far
    edges with :func:`landing`)."""
    x, y = aim.x, aim.y
    for direction, length in moves:
        if direction is Direction.NONE or length <= 0:
            continue
        x, y = offset(Point(x=max(x, 0.0), y=max(y, 0.0)), line_bearing + _TURN[direction], length)
        if x < 0 or y < 0:
            return Point(x=max(x, 0.0), y=max(y, 0.0))
    return Point(x=max(x, 0.0), y=max(y, 0.0))


def landing(field: Battlefield, point: Point) -> Point | None:
    """The landing point, or None when the round came down off the table."""
    try:
        return on_table(field, point.x, point.y, what="-")
    except InvalidInput:
        return None


def in_strip(center: Point, axis_bearing: float, length: float, width: float, point: Point) -> bool:
    """Whether ``point`` lies in the length × width rectangle centred on ``center`` whose
    long side runs along ``axis_bearing`` (an air attack's zones)."""
    radians = math.radians(axis_bearing)
    dx, dy = point.x - center.x, point.y - center.y
    along = dx * math.sin(radians) + dy * math.cos(radians)
    across = dx * math.cos(radians) - dy * math.sin(radians)
    return abs(along) <= length / 2 + 1e-6 and abs(across) <= width / 2 + 1e-6


def within(center: Point, radius: float, point: Point) -> bool:
    """Whether ``point`` lies within ``radius`` of ``center``."""
    return distance(center, point) <= radius + 1e-6


def line_mark(origin: Point, target: Point, label: str, blocked: bool = False) -> Overlay:
    """A line of fire for the picture."""
    return Overlay(kind="line_of_fire", points=(origin, target), label=label, blocked=blocked)


def arrow_mark(aim: Point, landed: Point, label: str) -> Overlay:
    """A deviation arrow from the aimed point to the landing point."""
    return Overlay(kind="arrow", points=(aim, landed), label=label)


def circle_mark(center: Point, radius: float, label: str) -> Overlay:
    """A blast zone."""
    return Overlay(kind="circle", points=(center,), radius=radius, label=label)
