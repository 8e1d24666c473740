"""The battlefield of a w40k4 game: positions the bot keeps, and what it measures on them.

A scenario with a ``battlefield:`` (inches) hands measuring to the bot: each unit on the
table is one point (where its player puts it), a move walks a straight path from it
(``to:``), a shot or an assault measures the distance between the two units' points, the
line of fire is blocked by sight-blocking areas between them, and a cover save comes from
the area the target stands in or the areas the line crosses. Blast templates and deep
strikes scatter from an aimed point to a computed landing point. A game without a
battlefield never reaches this module: players type distances and terrain as before.

Not in the seed (data in ``data/terrain.yaml``): the terrain classes areas are drawn with,
the circle a unit covers around its point (for templates and landings) and a model's base.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rules.core.battlefield import Battlefield, Overlay, Point
from rules.core.errors import IllegalAction, InvalidInput, RulesError
from rules.core.geometry import (
    COMPASS,
    Leg,
    centroid,
    line_of_sight,
    offset,
    parse_destination,
    path_legs,
    terrain_at,
    toward,
)
from rules.w40k4 import lookups
from rules.w40k4.model import Terrain, field_data
from rules.w40k4.state import LastAction, UnitState, W40kState

# Typed distances within this many inches of the measured one are the same distance.
TOLERANCE = 0.05
ROUND = 2  # positions are kept to 1/100": stable documents, well below any rule's grain

_ROUGHNESS = {Terrain.OPEN: 0, Terrain.DIFFICULT: 1, Terrain.DANGEROUS: 2}
_UNIT_SUFFIX = re.compile(r"(\d)\s*(?:\"|''|in|inches|pollici|pouces)\s*$", re.IGNORECASE)


def field_of(state: W40kState) -> Battlefield:
    """The game's battlefield (callers check there is one)."""
    assert state.battlefield is not None
    return state.battlefield


def spot(x: float, y: float) -> Point:
    """A point kept in the state (rounded)."""
    return Point(x=round(max(x, 0.0), ROUND), y=round(max(y, 0.0), ROUND))


def edge_y(state: W40kState, side: str) -> float:
    """The y of a side's own table edge: the first side's is the bottom, the other's the top."""
    return 0.0 if side == next(iter(state.sides)) else field_of(state).height_cm


def places(state: W40kState) -> dict[str, Point]:
    """Units on the table by id: names ``to:`` may use (``toward banda 4``)."""
    return {u.id: u.at for u in state.ordered() if u.on_table and u.at is not None}


def destination(state: W40kState, origin: Point, text: str) -> Point:
    """Where ``to:`` points from ``origin`` (inches; a trailing ``"`` or ``in`` is allowed)."""
    field = field_of(state)
    cleaned = _UNIT_SUFFIX.sub(r"\1", text.strip())
    try:
        return parse_destination(cleaned, field, origin, places(state))
    except InvalidInput as error:
        if error.key == "error.field.off_table":
            raise InvalidInput("error.w40k4.off_table", **error.params) from None
        raise


def refuse_typed(
    option: str, typed: float | None, measured: float, actor_side: str | None
) -> float:
    """The value to use: the measured one; a player's differing value is refused, the
    referee's is taken (the resolution shows both)."""
    if typed is None or abs(typed - measured) <= TOLERANCE:
        return measured
    if actor_side is not None:
        raise IllegalAction(
            "error.w40k4.measured", option=option, typed=_num(typed), measured=_num(measured)
        )
    return typed


def _num(value: float) -> str:
    return f"{round(value, 1):g}"


def terrain_of(field: Battlefield, point: Point) -> tuple[str, str | None]:
    """The terrain class at a point and the area's id (None: open ground)."""
    return terrain_at(field, point)


# --- moves --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """A move measured on the table: from, to, its legs and what they mean for the rules."""

    start: Point
    end: Point
    legs: tuple[Leg, ...]
    inches: float
    terrain: Terrain  # the roughest terrain crossed
    inside: bool  # starts or ends in difficult (or dangerous) terrain

    def legs_text(self) -> str:
        """The legs as players would say them: ``rovine 2.5", aperto 3"``."""
        return ", ".join(f'{leg.terrain} {_num(leg.cm)}"' for leg in self.legs)


def start_of(state: W40kState, unit: UnitState, goal: Point | None = None) -> Point:
    """Where a move starts: the unit's point; a unit arriving from reserve enters from its
    own table edge, at the point of the edge nearest where it goes."""
    if unit.location == "arriving" or unit.at is None:
        x = goal.x if goal is not None else field_of(state).width_cm / 2
        return spot(x, edge_y(state, unit.side))
    return unit.at


def route(state: W40kState, unit: UnitState, text: str) -> Route:
    """Measure a move to ``to:`` along a straight path (not checked against the allowance)."""
    return route_to(state, unit, destination(state, start_of(state, unit), text))


def route_to(state: W40kState, unit: UnitState, end: Point) -> Route:
    """Measure a move to a point (see :func:`route`)."""
    field = field_of(state)
    origin = start_of(state, unit, end)
    legs = path_legs(field, origin, end)
    kinds = [lookups.terrain_move(leg.terrain) for leg in legs] or [Terrain.OPEN]
    roughest = max(kinds, key=lambda kind: _ROUGHNESS[kind])
    start_kind = lookups.terrain_move(terrain_of(field, origin)[0])
    end_kind = lookups.terrain_move(terrain_of(field, end)[0])
    inside = start_kind is not Terrain.OPEN or end_kind is not Terrain.OPEN
    inches = round(sum(leg.cm for leg in legs), ROUND)
    return Route(origin, end, legs, inches, roughest, inside)


def walk(state: W40kState, unit: UnitState, path: Route, moved: float) -> None:
    """Put the unit where the path takes it after ``moved`` inches; its cover is the area's."""
    x, y = toward(path.start, path.end, moved)
    place(state, unit, spot(x, y))


def place(state: W40kState, unit: UnitState, point: Point) -> None:
    """Set a unit's point and the cover of the terrain it stands in."""
    unit.at = point
    unit.cover = lookups.terrain_cover(terrain_of(field_of(state), point)[0])


def fall_back(state: W40kState, unit: UnitState, inches: float) -> None:
    """A falling-back unit moves straight towards its own table edge (stopping there)."""
    if unit.at is None:
        return
    edge = edge_y(state, unit.side)
    step = min(inches, abs(unit.at.y - edge))
    y = unit.at.y - step if edge < unit.at.y else unit.at.y + step
    place(state, unit, spot(unit.at.x, y))


def charge(state: W40kState, unit: UnitState, target: UnitState) -> None:
    """A unit that reaches its target stands in base contact with it."""
    if unit.at is None or target.at is None:
        return
    contact = float(field_data()["contact"])
    x, y = toward(target.at, unit.at, contact)
    place(state, unit, spot(x, y))


# --- shooting and assault -----------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """The line from one unit to another: distance, what the target stands in, cover."""

    inches: float
    terrain: str
    area: str | None
    cover: str | None
    crossed: tuple[str, ...]
    blocked_by: tuple[str, ...]


def measure(state: W40kState, unit: UnitState, target: UnitState) -> Measured:
    """Measure from ``unit`` to ``target``: the cover save is the best of the area the target
    stands in and the areas the line crosses (TIRI COPERTURA: "stands in or behind")."""
    field = field_of(state)
    if unit.at is None or target.at is None:
        raise IllegalAction(
            "error.w40k4.no_position", unit=(unit if unit.at is None else target).name
        )
    sight = line_of_sight(field, unit.at, target.at)
    covers = [lookups.terrain_cover(sight.target_terrain)]
    by_id = {area.id: area for area in field.areas}
    covers += [lookups.terrain_cover(by_id[a].terrain) for a in sight.crossed]
    crossed: list[str] = [by_id[a].name for a in sight.crossed]
    # TIRI COPERTURA: "Tutte le unità" — a unit standing across the line gives cover too
    radius = float(field_data()["unit_radius"])
    for other in state.ordered():
        if other.id in (unit.id, target.id) or not other.on_table or other.at is None:
            continue
        if _off_segment(other.at, unit.at, target.at) < radius:
            covers.append(lookups.cover_save("unita")[2])
            crossed.append(other.name)
    best = _best_cover([c for c in covers if c is not None])
    return Measured(
        inches=round(sight.cm, 1),
        terrain=sight.target_terrain,
        area=sight.target_area,
        cover=best,
        crossed=tuple(crossed),
        blocked_by=tuple(by_id[a].name for a in sight.blocked_by),
    )


def _off_segment(point: Point, a: Point, b: Point) -> float:
    """How far ``point`` lies from the segment a→b."""
    dx, dy = b.x - a.x, b.y - a.y
    length = dx * dx + dy * dy
    share = 0.0 if length == 0 else ((point.x - a.x) * dx + (point.y - a.y) * dy) / length
    share = min(1.0, max(0.0, share))
    return math.hypot(point.x - (a.x + share * dx), point.y - (a.y + share * dy))


def passes_by(path: Route, point: Point) -> bool:
    """Whether a move's path runs over a unit standing at ``point`` (within its footprint)."""
    return _off_segment(point, path.start, path.end) <= float(field_data()["unit_radius"])


def _best_cover(rows: list[str]) -> str | None:
    if not rows:
        return None
    return min(rows, key=lambda row: lookups.cover_save(row)[0] or 7)


def in_sight(
    state: W40kState, unit: UnitState, target: UnitState, *, referee: bool = False
) -> Measured:
    """The measure of a shot, refused when a sight-blocking area stands between (the
    referee may rule that the firer sees past it)."""
    found = measure(state, unit, target)
    if found.blocked_by and not referee:
        raise IllegalAction(
            "error.w40k4.sight_blocked", target=target.name, area=", ".join(found.blocked_by)
        )
    return found


def assault_terrain(state: W40kState, unit: UnitState, target: UnitState) -> Terrain:
    """The roughest terrain on the way to the assaulted unit."""
    field = field_of(state)
    if unit.at is None or target.at is None:
        return Terrain.OPEN
    kinds = [lookups.terrain_move(leg.terrain) for leg in path_legs(field, unit.at, target.at)]
    return max(kinds or [Terrain.OPEN], key=lambda kind: _ROUGHNESS[kind])


# --- templates and deep strikes -------------------------------------------------------------


def bearing(a: Point, b: Point) -> float:
    """Degrees clockwise from north (the top edge) from a to b (0 when they coincide)."""
    if abs(a.x - b.x) < 1e-9 and abs(a.y - b.y) < 1e-9:
        return 0.0
    return math.degrees(math.atan2(b.x - a.x, b.y - a.y)) % 360.0


def scatter_point(aimed: Point, clock: int, inches: float, facing: float) -> tuple[float, float]:
    """Where a scatter lands: ``clock`` is the D12 read as a clock face, 12 = ``facing``."""
    return offset(aimed, facing + (clock % 12) * 30.0, inches)


def _lens(r1: float, r2: float, d: float) -> float:
    """The area shared by two circles of radii r1 and r2 whose centres are d apart."""
    if r1 <= 0 or r2 <= 0 or d >= r1 + r2:
        return 0.0
    if d <= abs(r1 - r2):
        return math.pi * min(r1, r2) ** 2
    a1 = r1 * r1 * math.acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1))
    a2 = r2 * r2 * math.acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2))
    k = 0.5 * math.sqrt((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2))
    return a1 + a2 - k


@dataclass(frozen=True)
class UnderTemplate:
    """A unit under a template: models wholly under it and models it crosses."""

    unit: str
    full: int
    partial: int


def under_template(state: W40kState, centre: Point, radius: float) -> list[UnderTemplate]:
    """The units a round template covers, with how many of their models are under it.

    A unit covers a circle of ``unit_radius`` around its point, its models spread evenly:
    the models wholly under are the share of the unit inside the template shrunk by a base
    radius, those crossed by its edge the further share inside it grown by a base radius.
    A vehicle under any part of it takes one hit.
    """
    data = field_data()
    unit_r, base = float(data["unit_radius"]), float(data["base_radius"])
    found: list[UnderTemplate] = []
    area = math.pi * unit_r * unit_r
    for unit in state.ordered():
        if not unit.on_table or unit.at is None:
            continue
        d = math.hypot(unit.at.x - centre.x, unit.at.y - centre.y)
        if d >= radius + unit_r:
            continue
        if unit.vehicle:
            found.append(UnderTemplate(unit.id, 1, 0))
            continue
        full = math.floor(unit.models * _lens(unit_r, radius - base, d) / area + 1e-9)
        touched = round(unit.models * _lens(unit_r, radius + base, d) / area)
        full = min(full, unit.models)
        partial = max(0, min(touched, unit.models) - full)
        if full + partial:
            found.append(UnderTemplate(unit.id, full, partial))
    return found


# An area-weighted grid over a unit's circle: rings of equal area, points evenly round them.
_RINGS, _SPOKES = 10, 24
_SAMPLES = tuple(
    (math.sqrt((ring + 0.5) / _RINGS), 2 * math.pi * (spoke + 0.5 * (ring % 2)) / _SPOKES)
    for ring in range(_RINGS)
    for spoke in range(_SPOKES)
)


def _in_teardrop(origin: Point, axis: tuple[float, float], x: float, y: float, grow: float) -> bool:
    """Whether (x, y) lies under a flamer template on ``axis`` from ``origin``, grown by
    ``grow`` (a model's base: partly under counts)."""
    data = field_data()
    length = float(data["flamer_template_length"])
    narrow = float(data["flamer_template_narrow"]) / 2
    broad = float(data["flamer_template_width"]) / 2
    ux, uy = axis
    along = (x - origin.x) * ux + (y - origin.y) * uy
    across = abs((x - origin.x) * -uy + (y - origin.y) * ux)
    neck = length - broad  # where the round end's centre lies
    if along < -grow:
        return False
    if along <= neck:
        share = max(along, 0.0) / neck if neck > 0 else 1.0
        return across <= narrow + (broad - narrow) * share + grow
    return math.hypot(along - neck, across) <= broad + grow


def under_flamer(state: W40kState, firer: UnitState, aimed: Point) -> list[UnderTemplate]:
    """The units a flamer template laid from ``firer`` towards ``aimed`` covers, and how many
    of their models (every model wholly or partly under it is hit; a vehicle once)."""
    if firer.at is None:
        return []
    data = field_data()
    unit_r, base = float(data["unit_radius"]), float(data["base_radius"])
    dx, dy = aimed.x - firer.at.x, aimed.y - firer.at.y
    norm = math.hypot(dx, dy) or 1.0
    axis = (dx / norm, dy / norm) if (dx or dy) else (0.0, 1.0)
    found: list[UnderTemplate] = []
    for unit in state.ordered():
        if unit.id == firer.id or not unit.on_table or unit.at is None:
            continue
        inside = sum(
            1
            for radius, angle in _SAMPLES
            if _in_teardrop(
                firer.at,
                axis,
                unit.at.x + unit_r * radius * math.cos(angle),
                unit.at.y + unit_r * radius * math.sin(angle),
                base,
            )
        )
        if not inside:
            continue
        hits = 1 if unit.vehicle else max(1, round(unit.models * inside / len(_SAMPLES)))
        found.append(UnderTemplate(unit.id, min(hits, unit.models), 0))
    return found


def landing_problem(state: W40kState, unit: UnitState, x: float, y: float) -> str | None:
    """Why a deep strike landing at (x, y) is a mishap: off the table, or on another unit."""
    field = field_of(state)
    if not (0 <= x <= field.width_cm and 0 <= y <= field.height_cm):
        return "off_table"
    clearance = 2 * float(field_data()["unit_radius"])
    for other in state.ordered():
        if other.id == unit.id or not other.on_table or other.at is None:
            continue
        if math.hypot(other.at.x - x, other.at.y - y) < clearance:
            return "on_unit"
    return None


def drawn(field: Battlefield, x: float, y: float) -> Point:
    """A point for a picture: a landing off the table is drawn at the table's edge."""
    return spot(min(max(x, 0.0), field.width_cm), min(max(y, 0.0), field.height_cm))


def remember(
    state: W40kState, key: str, overlays: list[Overlay], **params: str | int | float
) -> None:
    """The last action the map shows: its caption and overlays."""
    state.last = LastAction(key=key, params=dict(params), overlays=overlays)


# --- what players may choose --------------------------------------------------------------

MAX_DESTINATIONS = 8


def named_places(state: W40kState) -> list[str]:
    """The battlefield's named points and area ids (where ``to:`` may point by name)."""
    battlefield = field_of(state)
    return [*battlefield.points, *(area.id for area in battlefield.areas)]


def move_limit(unit: UnitState) -> int:
    """How far the unit may move, in inches (vehicles by the fastest speed open to them)."""
    if unit.vehicle and not unit.walker:
        return int(lookups.standard("velocita_veicoli")["tavoletta" if unit.fast else "manovra"])
    return unit.move


def move_destinations(state: W40kState, unit: UnitState, enemies: list[UnitState]) -> list[str]:
    """A handful of ``to:`` values the unit may move to now: named places within its
    allowance, towards the nearest enemies, and straight ahead on the compass."""
    limit = float(move_limit(unit))
    battlefield = field_of(state)
    start = start_of(state, unit)
    # (text, where it points): the same points parse_destination would find, computed once
    candidates: list[tuple[str, tuple[float, float]]] = [
        (name, (point.x, point.y)) for name, point in battlefield.points.items()
    ]
    candidates += [
        (area.id, (centroid(area.shape).x, centroid(area.shape).y)) for area in battlefield.areas
    ]
    origin = unit.at
    if origin is not None:
        nearest = sorted(
            (e for e in enemies if e.at is not None),
            key=lambda e: math.hypot(e.at.x - origin.x, e.at.y - origin.y),  # type: ignore[union-attr]
        )
        for enemy in nearest[:2]:
            assert enemy.at is not None
            gap = math.hypot(enemy.at.x - origin.x, enemy.at.y - origin.y) - 1
            step = int(min(limit, gap))
            if step >= 1:
                candidates.append((f"toward {enemy.id} {step}", toward(origin, enemy.at, step)))
    step = int(limit // 2) or 1
    for word in ("N", "S", "E", "W"):
        candidates.append((f"{word} {step}", offset(start, COMPASS[word], step)))
    accepted: list[str] = []
    for text, (x, y) in candidates:
        if not (0 <= x <= battlefield.width_cm and 0 <= y <= battlefield.height_cm):
            continue
        end = Point(x=x, y=y)
        begin = start_of(state, unit, end)
        if math.hypot(end.x - begin.x, end.y - begin.y) > limit + 1e-6:
            continue  # out of reach: not worth cutting into legs
        path = route_to(state, unit, end)
        if 0 < path.inches <= limit:
            accepted.append(text)
        if len(accepted) >= MAX_DESTINATIONS:
            break
    return accepted


def tank_shock_destinations(state: W40kState, unit: UnitState, target: UnitState) -> list[str]:
    """A tank shock drives at its target: as far towards it as the vehicle may go."""
    if target.at is None:
        return []
    text = f"toward {target.id} {move_limit(unit)}"
    try:
        path = route(state, unit, text)
    except RulesError:
        return []
    if 0 < path.inches <= move_limit(unit) and passes_by(path, target.at):
        return [text]
    return []
