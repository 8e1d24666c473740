"""Where the words and counters of a map picture go, so that none covers another.

Pure geometry in pixels, no drawing: :mod:`bot.render.map` asks where each counter and each
terrain name fits, then draws them there.

* A counter sits on its unit's point when that spot is free; otherwise on the nearest free
  spot around it (rings of candidates, nearest first), and the picture draws a leader line
  from the unit's point to it. A few counters on one point fan out around it.
* A terrain name sits at its area's centre when free, else at the nearest free spot inside
  the area, else next to it.
* On a hex map the counters of one hex share the hex's middle band, in rows (two columns
  past three), so a stack never leaves its hex.

The work is bounded: at most :data:`MAX_TRIES` candidate spots per counter or name, each
checked against the boxes already placed near it (a coarse grid indexes them). When no
candidate is free the item takes its own spot anyway (a table packed beyond what the
picture can show).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # left, top, right, bottom
Spot = tuple[float, float]

#: Candidate spots tried per counter or name before it gives up and takes its own.
MAX_TRIES = 96
RINGS = 8
ANGLES = 12
PAD = 2.0  # the gap kept between two boxes


def overlaps(a: Box, b: Box, pad: float = 0.0) -> bool:
    """Whether two boxes overlap once ``a`` is grown by ``pad`` on every side."""
    return a[0] - pad < b[2] and b[0] < a[2] + pad and a[1] - pad < b[3] and b[1] < a[3] + pad


def inside(box: Box, bounds: Box) -> bool:
    """Whether ``box`` lies within ``bounds``."""
    return (
        box[0] >= bounds[0]
        and box[1] >= bounds[1]
        and box[2] <= bounds[2]
        and (box[3] <= bounds[3])
    )


def shifted(box: Box, dx: float, dy: float) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


class Occupied:
    """Boxes already placed, indexed by a coarse grid: a check looks at a few of them."""

    CELL = 64.0

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[Box]] = {}

    def _keys(self, box: Box) -> list[tuple[int, int]]:
        x0, y0 = math.floor(box[0] / self.CELL), math.floor(box[1] / self.CELL)
        x1, y1 = math.floor(box[2] / self.CELL), math.floor(box[3] / self.CELL)
        return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]

    def add(self, box: Box) -> None:
        for key in self._keys(box):
            self._cells.setdefault(key, []).append(box)

    def hits(self, box: Box, pad: float = PAD) -> bool:
        grown = (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)
        return any(
            overlaps(box, other, pad)
            for key in self._keys(grown)
            for other in self._cells.get(key, ())
        )


def _offsets(step_x: float, step_y: float) -> list[Spot]:
    """Candidate moves, nearest first: rings around the spot, :data:`ANGLES` a ring."""
    found = [(0.0, 0.0)]
    for ring in range(1, RINGS + 1):
        for k in range(ANGLES):
            angle = 2 * math.pi * k / ANGLES
            found.append((ring * step_x * math.cos(angle), ring * step_y * math.sin(angle)))
    found.sort(key=lambda d: math.hypot(d[0] / max(step_x, 1), d[1] / max(step_y, 1)))
    return found[:MAX_TRIES]


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a counter went: its box, the box with the words under it, whether it moved."""

    box: Box
    footprint: Box
    anchor: Spot
    moved: bool


def place_counters(
    items: Sequence[tuple[Spot, float, float, float]],
    bounds: Box,
    occupied: Occupied,
) -> list[Placed]:
    """Place counters (their point, width, height, and the height of the words under them),
    each where it covers nothing placed before it; every placed one is added to
    ``occupied``. First every counter whose own spot is free takes it (in order), so a
    crowd elsewhere never pushes a lone counter off its point; then the others take the
    nearest free spot around their point. A counter on its own point may stick out of
    ``bounds`` (a unit at the table's edge); a moved one stays within them."""
    boxes: list[tuple[Box, Box]] = []
    for (x, y), width, height, below in items:
        box = (x - width / 2, y - height / 2, x + width / 2, y + height / 2)
        boxes.append((box, (box[0], box[1], box[2], box[3] + below)))
    chosen: list[tuple[Box, Box] | None] = [None] * len(items)
    for index, (box, footprint) in enumerate(boxes):
        if not occupied.hits(footprint):
            occupied.add(footprint)
            chosen[index] = (box, footprint)
    for index, ((_spot, width, height, below), (box, footprint)) in enumerate(
        zip(items, boxes, strict=True)
    ):
        if chosen[index] is not None:
            continue
        pick = (box, footprint)  # nowhere free: its own spot, over whatever is there
        for dx, dy in _offsets(width + PAD * 2, height + below + PAD * 2)[1:]:
            moved = shifted(footprint, dx, dy)
            if inside(moved, bounds) and not occupied.hits(moved):
                pick = (shifted(box, dx, dy), moved)
                break
        occupied.add(pick[1])
        chosen[index] = pick
    placed = []
    for (spot, *_), (box, _), pick_or_none in zip(items, boxes, chosen, strict=True):
        assert pick_or_none is not None
        placed.append(Placed(pick_or_none[0], pick_or_none[1], spot, pick_or_none[0] != box))
    return placed


def place_label(
    centre: Spot,
    width: float,
    height: float,
    within: Callable[[float, float], bool],
    bounds: Box,
    occupied: Occupied,
) -> Box:
    """Where a terrain name of this size goes: its area's centre if free, else the nearest
    free spot whose middle is ``within`` the area, else the nearest free spot around it;
    the box is added to ``occupied``."""
    x, y = centre
    box = (x - width / 2, y - height / 2, x + width / 2, y + height / 2)
    offsets = _offsets(max(12.0, width / 3), max(8.0, height * 0.8))
    for need_inside in (True, False):
        for dx, dy in offsets:
            candidate = shifted(box, dx, dy)
            if need_inside and not within(x + dx, y + dy):
                continue
            if (dx or dy) and not inside(candidate, bounds):
                continue
            if not occupied.hits(candidate):
                occupied.add(candidate)
                return candidate
    occupied.add(box)
    return box


def point_in_polygon(x: float, y: float, outline: Sequence[Spot]) -> bool:
    """Whether (x, y) is inside the polygon (ray casting; the outline in pixels)."""
    result = False
    count = len(outline)
    for i in range(count):
        x0, y0 = outline[i]
        x1, y1 = outline[(i + 1) % count]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            result = not result
    return result


def stack_cells(count: int, band: Box, gap: float = 2.0) -> list[Box]:
    """The boxes of ``count`` counters sharing ``band`` (a hex's middle): one column of
    rows up to three, then two columns."""
    columns = 1 if count <= 3 else 2
    rows = math.ceil(count / columns)
    left, top, right, bottom = band
    width = (right - left - gap * (columns - 1)) / columns
    height = (bottom - top - gap * (rows - 1)) / rows
    return [
        (
            left + (i % columns) * (width + gap),
            top + (i // columns) * (height + gap),
            left + (i % columns) * (width + gap) + width,
            top + (i // columns) * (height + gap) + height,
        )
        for i in range(count)
    ]


def leader_end(anchor: Spot, box: Box) -> Spot:
    """The point of ``box``'s edge nearest to ``anchor``: where a leader line meets it."""
    return (min(max(anchor[0], box[0]), box[2]), min(max(anchor[1], box[1]), box[3]))


__all__ = [
    "MAX_TRIES",
    "Box",
    "Occupied",
    "Placed",
    "leader_end",
    "overlaps",
    "place_counters",
    "place_label",
    "point_in_polygon",
    "stack_cells",
]
