"""Measuring on a :class:`~rules.core.battlefield.Battlefield`: distances, terrain, sight.

Everything the bot measures for players lives here, shared by the measured rulesets, so a
distance or a blocked line is computed one way in every game. Lengths are cm; bearings are
degrees clockwise from north (the top of the table, +y).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from rules.core.battlefield import (
    Battlefield,
    CircleShape,
    Point,
    PolygonShape,
    Shape,
    TerrainArea,
)
from rules.core.budget import charge
from rules.core.caches import BoundedCache
from rules.core.errors import InvalidInput

# Lengths below this are measuring noise (a line grazing a corner, a point on an edge).
EPSILON_CM = 1e-6

COMPASS: Mapping[str, float] = {
    "N": 0.0,
    "NE": 45.0,
    "E": 90.0,
    "SE": 135.0,
    "S": 180.0,
    "SW": 225.0,
    "W": 270.0,
    "NW": 315.0,
    # Italian and French initials players type: est/ovest, nord/sud; O (ovest, ouest) = W.
    "O": 270.0,
    "NO": 315.0,
    "SO": 225.0,
}


def distance(a: Point, b: Point) -> float:
    """The straight-line distance in cm."""
    return math.hypot(b.x - a.x, b.y - a.y)


# A shape's bounding box, widened by this much: a point outside it is surely outside the
# shape (edges and measuring noise included), whatever the rounding of the exact tests.
BOX_MARGIN_CM = 1.0

# An edge of a polygon as plain numbers: a, b, and the box of the edge widened by EPSILON_CM.
_Edge = tuple[float, float, float, float, float, float, float, float]
_Box = tuple[float, float, float, float]

# By shape object, the shape kept with its box and edges (its id is not reused meanwhile). A
# command tests a battlefield's few areas many times; the shapes of documents no longer asked
# about go first (each command reads its document anew, with new shapes).
_shapes: BoundedCache[int, tuple[Shape, _Box, tuple[_Edge, ...]]] = BoundedCache(
    64,
    name="shape boxes",  # a battlefield has at most 60 areas (rules.core.scenario)
)


def _prepared(shape: Shape) -> tuple[Shape, _Box, tuple[_Edge, ...]]:
    """The shape's widened box and (a polygon's) edges as plain numbers, kept per shape
    object (shapes are frozen) so the many tests of a line of sight share them."""
    kept = _shapes.get(id(shape))
    if kept is not None and kept[0] is shape:
        return kept
    edges: tuple[_Edge, ...] = ()
    if isinstance(shape, CircleShape):
        reach = shape.radius + BOX_MARGIN_CM
        box = (
            shape.center.x - reach,
            shape.center.y - reach,
            shape.center.x + reach,
            shape.center.y + reach,
        )
    else:
        xs = [p.x for p in shape.points]
        ys = [p.y for p in shape.points]
        box = (
            min(xs) - BOX_MARGIN_CM,
            min(ys) - BOX_MARGIN_CM,
            max(xs) + BOX_MARGIN_CM,
            max(ys) + BOX_MARGIN_CM,
        )
        count = len(xs)
        edges = tuple(
            (
                xs[i],
                ys[i],
                xs[(i + 1) % count],
                ys[(i + 1) % count],
                min(xs[i], xs[(i + 1) % count]) - EPSILON_CM,
                max(xs[i], xs[(i + 1) % count]) + EPSILON_CM,
                min(ys[i], ys[(i + 1) % count]) - EPSILON_CM,
                max(ys[i], ys[(i + 1) % count]) + EPSILON_CM,
            )
            for i in range(count)
        )
    kept = (shape, box, edges)
    _shapes.put(id(shape), kept)  # the shape is kept: its id is not reused meanwhile
    return kept


def _box(shape: Shape) -> _Box:
    """(min x, min y, max x, max y) of the shape, widened by :data:`BOX_MARGIN_CM`."""
    return _prepared(shape)[1]


def contains(shape: Shape, point: Point) -> bool:
    """Whether ``point`` is inside ``shape`` (its edge counts as inside)."""
    low_x, low_y, high_x, high_y = _box(shape)
    if not (low_x <= point.x <= high_x and low_y <= point.y <= high_y):
        return False
    if isinstance(shape, CircleShape):
        return distance(shape.center, point) <= shape.radius + EPSILON_CM
    return _in_polygon(shape, point)


def _in_polygon(shape: PolygonShape, point: Point) -> bool:
    edges = _prepared(shape)[2]
    charge(len(edges))
    px, py = point.x, point.y
    inside = False
    for ax, ay, bx, by, low_x, high_x, low_y, high_y in edges:
        # On the edge (counts as inside): only an edge whose box holds the point can be it,
        # so the exact test (a square root) runs for a few edges, not all of them.
        if low_x <= px <= high_x and low_y <= py <= high_y and _on_edge(px, py, ax, ay, bx, by):
            return True
        if (ay > py) != (by > py):
            crossing_x = ax + (py - ay) * (bx - ax) / (by - ay)
            if px < crossing_x:
                inside = not inside
    return inside


def _on_edge(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> bool:
    """Whether (px, py), inside the edge's widened box, lies on the edge a→b."""
    cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    return abs(cross) <= EPSILON_CM * max(1.0, math.hypot(bx - ax, by - ay))


_centroids: BoundedCache[int, tuple[Shape, Point]] = BoundedCache(64, name="centroids")


def centroid(shape: Shape) -> Point:
    """A shape's centre (a polygon's area centroid; its mean corner if degenerate)."""
    if isinstance(shape, CircleShape):
        return shape.center
    kept = _centroids.get(id(shape))
    if kept is not None and kept[0] is shape:
        return kept[1]
    found = _polygon_centroid(shape)
    _centroids.put(id(shape), (shape, found))  # the shape is kept: its id is not reused
    return found


def _polygon_centroid(shape: PolygonShape) -> Point:
    corners = shape.points
    twice_area = cx = cy = 0.0
    for index, a in enumerate(corners):
        b = corners[(index + 1) % len(corners)]
        cross = a.x * b.y - b.x * a.y
        twice_area += cross
        cx += (a.x + b.x) * cross
        cy += (a.y + b.y) * cross
    if abs(twice_area) < EPSILON_CM:
        return Point(
            x=sum(p.x for p in corners) / len(corners), y=sum(p.y for p in corners) / len(corners)
        )
    return Point(x=cx / (3 * twice_area), y=cy / (3 * twice_area))


# -- Which areas a point or a segment may touch -------------------------------------------

# The table is cut into at most this many cells a side; each cell lists the areas whose box
# overlaps it. A point asks the few areas of its cell instead of every area of the table.
_GRID_CELLS = 16


@dataclass(frozen=True, slots=True)
class _AreaIndex:
    """The areas of one battlefield bucketed by cell, and each area's box."""

    field: Battlefield  # kept so its id is not reused while the index is
    boxes: tuple[tuple[float, float, float, float], ...]
    cell_w: float
    cell_h: float
    cells: tuple[tuple[int, ...], ...]  # row-major, area positions ascending

    def cell_of(self, x: float, y: float) -> tuple[int, ...]:
        column = min(_GRID_CELLS - 1, max(0, int(x / self.cell_w)))
        row = min(_GRID_CELLS - 1, max(0, int(y / self.cell_h)))
        return self.cells[row * _GRID_CELLS + column]


# By battlefield object (kept with it, so its id is not reused meanwhile).
_indexes: BoundedCache[int, _AreaIndex] = BoundedCache(4, name="area indexes")


def _index(field: Battlefield) -> _AreaIndex:
    """The area index of ``field`` (built once per battlefield object: fields are frozen)."""
    kept = _indexes.get(id(field))
    if kept is not None and kept.field is field:
        return kept
    boxes = tuple(_box(area.shape) for area in field.areas)
    cell_w = max(field.width_cm, EPSILON_CM) / _GRID_CELLS
    cell_h = max(field.height_cm, EPSILON_CM) / _GRID_CELLS
    buckets: list[list[int]] = [[] for _ in range(_GRID_CELLS * _GRID_CELLS)]
    for position, (low_x, low_y, high_x, high_y) in enumerate(boxes):
        first_col = min(_GRID_CELLS - 1, max(0, int(low_x / cell_w)))
        last_col = min(_GRID_CELLS - 1, max(0, int(high_x / cell_w)))
        first_row = min(_GRID_CELLS - 1, max(0, int(low_y / cell_h)))
        last_row = min(_GRID_CELLS - 1, max(0, int(high_y / cell_h)))
        for row in range(first_row, last_row + 1):
            for column in range(first_col, last_col + 1):
                buckets[row * _GRID_CELLS + column].append(position)
    built = _AreaIndex(field, boxes, cell_w, cell_h, tuple(tuple(b) for b in buckets))
    _indexes.put(id(field), built)
    return built


def _segment_meets_box(a: Point, b: Point, box: tuple[float, float, float, float]) -> bool:
    """Whether segment a→b touches the box (or the part of it that :func:`_along` clamps
    to the table: midpoints never go below 0)."""
    low_x, low_y, high_x, high_y = box
    ax, ay, bx, by = a.x, a.y, b.x, b.y
    if max(ax, bx, 0.0) < low_x or min(ax, bx) > high_x:
        return False
    if max(ay, by, 0.0) < low_y or min(ay, by) > high_y:
        return False
    # Clip the segment against the box, one axis at a time (Liang–Barsky).
    start, end = 0.0, 1.0
    for origin, delta, low, high in ((ax, bx - ax, low_x, high_x), (ay, by - ay, low_y, high_y)):
        if abs(delta) < 1e-12:
            if origin < low or origin > high:
                return False
            continue
        t1, t2 = (low - origin) / delta, (high - origin) / delta
        if t1 > t2:
            t1, t2 = t2, t1
        start, end = max(start, t1), min(end, t2)
        if start > end:
            return False
    return True


def areas_at(field: Battlefield, point: Point) -> list[TerrainArea]:
    """The areas whose box holds ``point``, in the battlefield's order (a superset of the
    areas containing it: each still needs :func:`contains`)."""
    index = _index(field)
    x, y = point.x, point.y
    found = []
    for position in index.cell_of(x, y):
        low_x, low_y, high_x, high_y = index.boxes[position]
        if low_x <= x <= high_x and low_y <= y <= high_y:
            found.append(field.areas[position])
    return found


def areas_along(field: Battlefield, a: Point, b: Point) -> list[TerrainArea]:
    """The areas whose box segment a→b touches, in the battlefield's order (a superset of
    the areas it enters, crosses or ends in)."""
    index = _index(field)
    charge(len(index.boxes) // 8 + 1)
    return [
        field.areas[position]
        for position, box in enumerate(index.boxes)
        if _segment_meets_box(a, b, box)
    ]


def terrain_at(field: Battlefield, point: Point) -> tuple[str, str | None]:
    """The terrain class at ``point`` and the id of the area giving it (None: open ground).

    Where areas overlap the one listed last wins, as it is drawn on top (a building in a
    wood is a building).
    """
    return _terrain_among(field, areas_at(field, point), point)


def _terrain_among(
    field: Battlefield, candidates: list[TerrainArea], point: Point
) -> tuple[str, str | None]:
    """:func:`terrain_at` asked of ``candidates`` only (every area that may hold the point)."""
    for area in reversed(candidates):
        if contains(area.shape, point):
            return area.terrain, area.id
    return field.open_terrain, None


def _crossings(shape: Shape, a: Point, b: Point) -> list[float]:
    """Fractions t in (0, 1) of segment a→b where it crosses the shape's edge."""
    dx, dy = b.x - a.x, b.y - a.y
    found: list[float] = []
    if isinstance(shape, CircleShape):
        fx, fy = a.x - shape.center.x, a.y - shape.center.y
        qa = dx * dx + dy * dy
        if qa < EPSILON_CM:
            return []
        qb = 2 * (fx * dx + fy * dy)
        qc = fx * fx + fy * fy - shape.radius * shape.radius
        disc = qb * qb - 4 * qa * qc
        if disc <= 0:
            return []
        root = math.sqrt(disc)
        found = [(-qb - root) / (2 * qa), (-qb + root) / (2 * qa)]
    else:
        edges = _prepared(shape)[2]
        charge(len(edges))
        for cx, cy, ex_, ey_, _, _, _, _ in edges:
            ex, ey = ex_ - cx, ey_ - cy
            denominator = dx * ey - dy * ex
            if abs(denominator) < 1e-12:
                continue  # parallel: touching along an edge adds no crossing
            t = ((cx - a.x) * ey - (cy - a.y) * ex) / denominator
            u = ((cx - a.x) * dy - (cy - a.y) * dx) / denominator
            if -1e-12 <= u <= 1 + 1e-12:
                found.append(t)
    return sorted(t for t in found if 0.0 < t < 1.0)


def _along(a: Point, b: Point, t: float) -> Point:
    return Point(x=max(0.0, a.x + (b.x - a.x) * t), y=max(0.0, a.y + (b.y - a.y) * t))


def length_inside(shape: Shape, a: Point, b: Point) -> float:
    """How many cm of the segment a→b lie inside ``shape``."""
    low_x, low_y, high_x, high_y = _box(shape)
    # Every point tested below lies in this box (its midpoints are clamped at 0, see _along):
    # clear of the shape's box, none of it is inside.
    if (
        max(a.x, b.x, 0.0) < low_x
        or min(a.x, b.x) > high_x
        or max(a.y, b.y, 0.0) < low_y
        or min(a.y, b.y) > high_y
    ):
        return 0.0
    cuts = [0.0, *_crossings(shape, a, b), 1.0]
    total = distance(a, b)
    inside = 0.0
    for start, end in itertools.pairwise(cuts):
        if end - start <= 0:
            continue
        if contains(shape, _along(a, b, (start + end) / 2)):
            inside += (end - start) * total
    return inside


@dataclass(frozen=True, slots=True)
class Leg:
    """A stretch of a path through one terrain."""

    terrain: str
    area: str | None  # the area's id; None for open ground
    cm: float


def path_legs(field: Battlefield, a: Point, b: Point) -> tuple[Leg, ...]:
    """The straight path a→b cut where it enters or leaves an area, each stretch's terrain.

    Consecutive stretches of the same area are merged; stretches shorter than
    :data:`EPSILON_CM` are dropped.
    """
    # Only the areas whose box the path touches can cut it or hold a stretch of it.
    candidates = areas_along(field, a, b)
    cuts = {0.0, 1.0}
    for area in candidates:
        cuts.update(_crossings(area.shape, a, b))
    ordered = sorted(cuts)
    total = distance(a, b)
    legs: list[Leg] = []
    for start, end in itertools.pairwise(ordered):
        cm = (end - start) * total
        if cm < EPSILON_CM:
            continue
        middle = _along(a, b, (start + end) / 2)
        terrain, area_id = _terrain_among(field, candidates, middle)
        if legs and legs[-1].area == area_id and legs[-1].terrain == terrain:
            legs[-1] = Leg(terrain, area_id, legs[-1].cm + cm)
        else:
            legs.append(Leg(terrain, area_id, cm))
    return tuple(legs)


@dataclass(frozen=True, slots=True)
class Sight:
    """What lies between an observer (or firer) and a target on the table."""

    cm: float
    target_terrain: str
    target_area: str | None
    blocked_by: tuple[str, ...]  # ids of sight-blocking areas the line passes through
    crossed: tuple[str, ...]  # ids of other areas it passes through (cover on the way)

    @property
    def clear(self) -> bool:
        """Whether nothing blocks the line."""
        return not self.blocked_by


def line_of_sight(field: Battlefield, origin: Point, target: Point) -> Sight:
    """Measure the line origin→target.

    An area the observer or the target stands in never blocks it: one sees out of the edge
    of a wood, and into the wood where the target stands (each ruleset's own limits on
    seeing into terrain, like manovra's OSSERVAZIONE, apply on top). Any other
    sight-blocking area the line passes through for more than a graze blocks it.
    """
    target_terrain, target_area = terrain_at(field, target)
    blocked: list[str] = []
    crossed: list[str] = []
    # An area the line misses the box of neither holds an end nor lies across the line.
    for area in areas_along(field, origin, target):
        if contains(area.shape, origin) or contains(area.shape, target):
            continue
        if length_inside(area.shape, origin, target) <= 0.01:
            continue
        (blocked if area.blocks_sight else crossed).append(area.id)
    return Sight(
        cm=distance(origin, target),
        target_terrain=target_terrain,
        target_area=target_area,
        blocked_by=tuple(blocked),
        crossed=tuple(crossed),
    )


def offset(origin: Point, bearing_degrees: float, cm: float) -> tuple[float, float]:
    """The (x, y) ``cm`` away from ``origin`` on a bearing (not checked against the table)."""
    radians = math.radians(bearing_degrees)
    return origin.x + cm * math.sin(radians), origin.y + cm * math.cos(radians)


def toward(origin: Point, target: Point, cm: float) -> tuple[float, float]:
    """The (x, y) ``cm`` from ``origin`` toward ``target`` (stopping at the target)."""
    whole = distance(origin, target)
    if whole < EPSILON_CM:
        return origin.x, origin.y
    share = min(1.0, cm / whole)
    return origin.x + (target.x - origin.x) * share, origin.y + (target.y - origin.y) * share


def on_table(field: Battlefield, x: float, y: float, *, what: str) -> Point:
    """The point (x, y), or ``error.field.off_table`` naming ``what`` if it is off the table."""
    if not (
        -EPSILON_CM <= x <= field.width_cm + EPSILON_CM
        and -EPSILON_CM <= y <= field.height_cm + EPSILON_CM
    ):
        raise InvalidInput(
            "error.field.off_table",
            what=what,
            x=round(x, 1),
            y=round(y, 1),
            width=_cm(field.width_cm),
            height=_cm(field.height_cm),
        )
    return Point(x=min(max(x, 0.0), field.width_cm), y=min(max(y, 0.0), field.height_cm))


def _cm(value: float) -> str:
    return f"{value:g}"


_NUMBER = r"[-+]?\d+(?:[.,]\d+)?"
_XY = re.compile(rf"^\s*({_NUMBER})\s*[;, ]\s*({_NUMBER})\s*$")
# A numeric bearing carries its degree sign ("135° 10"): two bare numbers are x,y.
_BEARING = re.compile(rf"^\s*([A-Za-z]{{1,2}}|{_NUMBER}\s*(?:°|deg))\s+({_NUMBER})\s*(?:cm)?\s*$")
_TOWARD = re.compile(
    rf"^\s*(?:toward|towards|verso|vers)\s+(\S+)\s+({_NUMBER})\s*(?:cm)?\s*$", re.IGNORECASE
)


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def parse_destination(
    text: str,
    field: Battlefield,
    origin: Point,
    places: Mapping[str, Point] | None = None,
) -> Point:
    """Where a ``to:`` option points, from ``origin``.

    Accepted forms: ``x,y`` (cm from the bottom-left corner, e.g. ``45,30`` or ``45 30``);
    a named point of the battlefield or the id of a terrain area (its centre); a bearing and
    a distance (``NE 12``, ``90° 15`` — degrees clockwise from north, the top edge); ``toward
    NAME 10`` (``verso``/``vers`` too), NAME a point, an area or one of ``places`` (units'
    positions). A point off the table is refused, naming it.
    """
    raw = text.strip()
    if not raw:
        raise InvalidInput("error.field.destination", text=text)
    known: dict[str, Point] = {
        **{area.id: centroid(area.shape) for area in field.areas},
        **field.points,
        **(places or {}),
    }
    folded = {name.casefold(): point for name, point in known.items()}
    if (match := _XY.match(raw)) is not None:
        return on_table(field, _number(match[1]), _number(match[2]), what=raw)
    if (match := _TOWARD.match(raw)) is not None:
        goal = folded.get(match[1].casefold())
        if goal is None:
            raise InvalidInput("error.field.unknown_place", name=match[1], known=_names(known))
        x, y = toward(origin, goal, _number(match[2]))
        return on_table(field, x, y, what=raw)
    if (match := _BEARING.match(raw)) is not None:
        word = match[1].upper()
        if word in COMPASS:
            bearing = COMPASS[word]
        elif (degrees := re.match(_NUMBER, match[1])) is not None:
            bearing = _number(degrees[0]) % 360.0
        else:
            raise InvalidInput("error.field.destination", text=text)
        x, y = offset(origin, bearing, _number(match[2]))
        return on_table(field, x, y, what=raw)
    point = folded.get(raw.casefold())
    if point is None:
        raise InvalidInput("error.field.unknown_place", name=raw, known=_names(known))
    return point


def _names(known: Mapping[str, Point]) -> str:
    names = sorted(known)
    shown = ", ".join(names[:12])
    return shown + (", …" if len(names) > 12 else "")
