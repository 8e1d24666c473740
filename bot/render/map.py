"""A :class:`~rules.core.battlefield.MapView` as a PNG picture (Pillow).

The picture is laid out for Discord's preview on a phone: a fixed width
(:data:`WIDTH` pixels), the table scaled to it (a tall table is capped in height and
centred), text no smaller than :data:`SMALL_TEXT` pixels on a measured table. Top to
bottom: the title, the table (terrain, a light coordinate grid numbered along its left
and bottom edges, the last action's marks, the counters), then a band with the sides'
colours, the scale bar and the caption (the state of the game, then the last action).

Nothing covers a counter or a terrain name (:mod:`bot.render.layout`): a counter whose spot
is taken sits beside it, tied to its unit's point by a leader line; a name moves within its
area; a hex's counters share its middle. Names are wrapped, never cut. Each side keeps one
colour for the whole game: colours go to the sides in the order of their ids, whatever
order a stored document keeps them in.

Output is deterministic: the same view gives the same bytes on a machine (no timestamp
or other metadata in the PNG, the font bundled with the package rather than the system's,
no dict or set order that could vary). Nothing here knows a ruleset.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from PIL import Image, ImageDraw

from bot.render.layout import (
    Box,
    Occupied,
    leader_end,
    place_counters,
    place_label,
    point_in_polygon,
    stack_cells,
)
from bot.render.lettering import fit, letter, plain, width_of, wrap, write
from bot.render.marks import (
    BLOCKED,
    OBJECTIVE,
    dashed_outline,
    draw_objectives,
    draw_overlays,
    objective_boxes,
)
from bot.render.terrain import (
    TERRAIN_KEYWORDS,
    TERRAIN_STYLES,
    TerrainStyle,
    hatch,
    hatch_all,
    terrain_style,
)
from rules.core.battlefield import (
    CircleShape,
    Counter,
    HexGrid,
    MapArea,
    MapView,
    PolygonShape,
    Shape,
)
from rules.core.i18n import colon, translate
from rules.core.words import in_language

#: The picture's width in pixels: about what Discord shows of an image on a phone at full
#: resolution, and small enough to render fast and post as a light PNG.
WIDTH = 960
#: A very tall table would make a picture too long to read in the preview: its map is
#: scaled to fit this height instead (and centred).
MAX_MAP_HEIGHT = 1100
MARGIN = 16
#: Room left of and under a measured table for its grid's numbers.
GUTTER_LEFT = 30
GUTTER_BOTTOM = 18
TITLE_TEXT = 26
LABEL_TEXT = 17
SMALL_TEXT = 14
#: The least a word on a hex map may shrink to (a hex is small).
HEX_TEXT = 9
#: zlib level of the PNG: encoding is a good part of a render's time; level 3 is faster
#: than the default 6 for a file a little larger (about 40 KB).
COMPRESS_LEVEL = 3
#: Lines of caption under the picture at most (the state of the game, the last action).
CAPTION_LINES = 3

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]

BACKGROUND: RGB = (250, 248, 242)
INK: RGB = (33, 33, 33)
MUTED: RGB = (110, 110, 110)
HALO: RGB = (255, 255, 255)
GRID_LINE: RGBA = (60, 60, 60, 34)
DESTROYED: RGB = (150, 150, 150)

#: Side colours, given to the sides in the order of their ids: strong, told apart by
#: colour-blind readers (blue/red/… differ in lightness too).
SIDE_COLOURS: tuple[RGB, ...] = (
    (25, 80, 170),
    (190, 30, 35),
    (30, 120, 50),
    (120, 40, 150),
    (215, 110, 0),
    (0, 120, 130),
)


def side_colours(view: MapView) -> dict[str, RGB]:
    """Each side's colour, by the order of the side ids (then of any other side a counter
    names): never by the order of ``view.sides``, which a stored document may change, so a
    side keeps its colour for the whole game. The legend lists the sides in this order."""
    order = sorted(view.sides)
    order += sorted({c.side for c in view.counters} - set(order))
    return {side: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, side in enumerate(order)}


def visible_counters(view: MapView, *, public: bool) -> tuple[Counter, ...]:
    """The counters to draw: a public picture never carries a hidden one."""
    return tuple(c for c in view.counters if not (public and c.hidden))


# -- geometry: table units → pixels ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Frame:
    """Where the map sits in the picture and how table coordinates become pixels."""

    left: float
    top: float
    scale: float  # pixels per table unit (measured), or the hex radius in pixels
    width: float  # the map's size in pixels
    height: float

    def table(self, x: float, y: float, table_height: float) -> tuple[float, float]:
        """A measured table's point (y up) as a pixel (y down)."""
        return self.left + x * self.scale, self.top + (table_height - y) * self.scale

    @property
    def bounds(self) -> Box:
        return (self.left, self.top, self.left + self.width, self.top + self.height)


def _hex_centre(grid: HexGrid, col: float, row: float, radius: float) -> tuple[float, float]:
    """The centre of hex (col, row), from the grid's first hex centred at (0, 0)."""
    if grid.layout == "axial":
        return radius * math.sqrt(3) * (col + row / 2), radius * 1.5 * row
    shift = 0.5 if int(col) % 2 else 0.0
    return radius * 1.5 * col, radius * math.sqrt(3) * (row + shift)


def _hex_corners(cx: float, cy: float, radius: float, layout: str) -> list[tuple[float, float]]:
    start = 30 if layout == "axial" else 0  # pointy-topped: a corner straight up
    return [
        (
            cx + radius * math.cos(math.radians(start + 60 * k)),
            cy + radius * math.sin(math.radians(start + 60 * k)),
        )
        for k in range(6)
    ]


def _grid_cells(grid: HexGrid) -> list[tuple[int, int]]:
    return [(c, r) for r in range(grid.rows) for c in range(grid.cols)]


def _grid_extent(grid: HexGrid) -> tuple[float, float, float, float]:
    """The grid's bounding box for a hex radius of 1: min x, min y, max x, max y."""
    xs: list[float] = []
    ys: list[float] = []
    for col, row in _grid_cells(grid):
        cx, cy = _hex_centre(grid, col, row, 1.0)
        xs.append(cx)
        ys.append(cy)
    half_w, half_h = (math.sqrt(3) / 2, 1.0) if grid.layout == "axial" else (1.0, math.sqrt(3) / 2)
    return min(xs) - half_w, min(ys) - half_h, max(xs) + half_w, max(ys) + half_h


class _ToPixel:
    """Table (or hex) coordinates of counters and overlays → pixels."""

    def __init__(self, view: MapView, frame: _Frame) -> None:
        self.view = view
        self.frame = frame
        grid = view.grid
        self.min = _grid_extent(grid)[:2] if grid is not None else (0.0, 0.0)

    def __call__(self, x: float, y: float) -> tuple[float, float]:
        grid = self.view.grid
        if grid is None:
            return self.frame.table(x, y, self.view.height_cm)
        return _centre(grid, x, y, self.frame, self.min[0], self.min[1])


def _centre(
    grid: HexGrid, col: float, row: float, frame: _Frame, min_x: float, min_y: float
) -> tuple[float, float]:
    x, y = _hex_centre(grid, col, row, frame.scale)
    return frame.left + x - min_x * frame.scale, frame.top + y - min_y * frame.scale


# -- a measured table -----------------------------------------------------------------------


def _circle_outline(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    count = max(24, min(180, int(r / 2)))
    return [
        (cx + r * math.cos(2 * math.pi * k / count), cy + r * math.sin(2 * math.pi * k / count))
        for k in range(count)
    ]


def _area_outline(area: MapArea, frame: _Frame, table_h: float) -> list[tuple[float, float]]:
    return _shape_outline(area.shape, frame, table_h)


def _objective_outlines(
    view: MapView, frame: _Frame, to_pixel: _ToPixel, colours: dict[str, RGB]
) -> list[tuple[list[tuple[float, float]], str, RGB]]:
    """Each objective's outline in pixels (a hex map: every hex of it), label and colour."""
    found: list[tuple[list[tuple[float, float]], str, RGB]] = []
    for mark in view.objectives:
        colour = colours.get(mark.holder or "", OBJECTIVE)
        if view.grid is not None:
            layout = view.grid.layout
            for col, row in mark.hexes:
                cx, cy = to_pixel(col, row)
                corners = _hex_corners(cx, cy, frame.scale * 0.86, layout)
                found.append((corners, "", colour))  # labels go under the map: see render_map
        elif mark.shape is not None:
            found.append((_shape_outline(mark.shape, frame, view.height_cm), mark.label, colour))
    return found


def _shape_outline(shape: Shape, frame: _Frame, table_h: float) -> list[tuple[float, float]]:
    if isinstance(shape, CircleShape):
        cx, cy = frame.table(shape.center.x, shape.center.y, table_h)
        return _circle_outline(cx, cy, shape.radius * frame.scale)
    assert isinstance(shape, PolygonShape)
    return [frame.table(p.x, p.y, table_h) for p in shape.points]


def _draw_areas(
    image: Image.Image, view: MapView, frame: _Frame
) -> list[list[tuple[float, float]]]:
    """Fill every area (its class's colour and hatch); returns their outlines in pixels."""
    draw = ImageDraw.Draw(image)
    outlines = [_area_outline(area, frame, view.height_cm) for area in view.areas]
    for outline, area in zip(outlines, view.areas, strict=True):
        style = terrain_style(area.terrain)
        edge = tuple(max(0, c - 70) for c in style.fill)
        draw.polygon(outline, fill=style.fill, outline=edge, width=2 if area.blocks_sight else 1)
        hatch(image, outline, style)
    return outlines


def _grid_step(length: float, pixels_per_unit: float) -> float:
    """The coordinate grid's spacing: a round length (1, 2, 5 × 10ⁿ) giving about ten
    squares across, never under 40 pixels apart."""
    step = _nice_length(length / 8)
    while step > 0 and step * pixels_per_unit < 40:
        step *= 2
    return step


def _draw_coordinate_grid(image: Image.Image, view: MapView, frame: _Frame) -> None:
    """A light grid over the table, numbered along its left and bottom edges: the ``x,y``
    a move's ``to:`` takes, read off the picture (y up from the bottom edge)."""
    step = _grid_step(view.width_cm, frame.scale)
    if step <= 0:
        return
    draw = ImageDraw.Draw(image, "RGBA")
    left, top, right, bottom = frame.bounds
    size = 12
    count = int(view.width_cm / step + 1e-9)
    for k in range(count + 1):
        x = left + k * step * frame.scale
        if k:
            draw.line([(x, top), (x, bottom)], fill=GRID_LINE, width=1)
        write(image, (x, bottom + 3), f"{k * step:g}", size, MUTED, anchor="mt", halo=False)
    count = int(view.height_cm / step + 1e-9)
    for k in range(count + 1):
        y = bottom - k * step * frame.scale
        if k:  # the corner's 0 is written once, under the table
            draw.line([(left, y), (right, y)], fill=GRID_LINE, width=1)
            write(image, (left - 4, y), f"{k * step:g}", size, MUTED, anchor="rm", halo=False)


@dataclass(frozen=True, slots=True)
class _Piece:
    """A counter as drawn on a measured table: its lettering and the size it needs."""

    counter: Counter
    label_size: int
    width: float
    height: float
    status: str  # the status words under it ("" for none)
    status_size: int


COUNTER_HEIGHT = 36.0
COUNTER_WIDEST = 130.0


def _piece(counter: Counter) -> _Piece:
    """The counter's box: wide enough for its id at the largest size (down to 11 px) that
    keeps it within :data:`COUNTER_WIDEST`; a longer id widens the box rather than lose
    letters."""
    label = plain(counter.label)
    size = LABEL_TEXT
    while size > 11 and width_of(label, size) + 10 > COUNTER_WIDEST:
        size -= 1
    width = max(COUNTER_HEIGHT * 1.3, width_of(label, size) + 10)
    small = 12
    status = fit(", ".join(counter.statuses), small, 220) if counter.statuses else ""
    return _Piece(counter, size, width, COUNTER_HEIGHT, status, small)


def _layout_table(
    view: MapView,
    counters: Sequence[Counter],
    outlines: Sequence[Sequence[tuple[float, float]]],
    frame: _Frame,
    to_pixel: _ToPixel,
) -> tuple[list[tuple[_Piece, Box, tuple[float, float], bool]], list[tuple[Box, list[str]]]]:
    """Where each counter and each terrain name goes: counters first (the living before the
    destroyed), each on its point if free, then the names around them and clear of the
    objectives' outlines, stars and labels."""
    occupied = Occupied()
    pieces = [_piece(c) for c in sorted(counters, key=lambda c: c.destroyed)]
    items = []
    for piece in pieces:
        below = piece.status_size * 1.6 if piece.status else 0.0
        items.append((to_pixel(piece.counter.x, piece.counter.y), piece.width, piece.height, below))
    placed = place_counters(items, frame.bounds, occupied)
    counters_at = [
        (piece, spot.box, spot.anchor, spot.moved)
        for piece, spot in zip(pieces, placed, strict=True)
    ]
    names: list[tuple[Box, list[str]]] = []
    # Where draw_objectives will draw (the colours do not move anything).
    for box in objective_boxes(_objective_outlines(view, frame, to_pixel, {})):
        occupied.add(box)
    for outline, area in zip(outlines, view.areas, strict=True):
        if not area.label:
            continue
        xs = [p[0] for p in outline]
        width = max(90.0, max(xs) - min(xs) - 8)
        lines = wrap(area.label, SMALL_TEXT, width)
        line_height = SMALL_TEXT + 3
        box_w = max(width_of(line, SMALL_TEXT) for line in lines) + 6
        box_h = line_height * len(lines) + 4
        centre = (sum(xs) / len(xs), sum(p[1] for p in outline) / len(outline))
        box = place_label(
            centre,
            box_w,
            box_h,
            partial(_within, outline),
            frame.bounds,
            occupied,
        )
        names.append((box, lines))
    return counters_at, names


def _within(outline: Sequence[tuple[float, float]], x: float, y: float) -> bool:
    return point_in_polygon(x, y, outline)


def _draw_names(image: Image.Image, names: Sequence[tuple[Box, list[str]]]) -> None:
    draw = ImageDraw.Draw(image, "RGBA")
    for box, lines in names:
        draw.rounded_rectangle(box, radius=3, fill=(255, 255, 255, 185))
        middle = (box[0] + box[2]) / 2
        for k, line in enumerate(lines):
            y = box[1] + 2 + (SMALL_TEXT + 3) * (k + 0.5)
            letter(image, (middle, y), line, SMALL_TEXT, MUTED, "mm")


def _draw_table_counters(
    image: Image.Image,
    placed: Sequence[tuple[_Piece, Box, tuple[float, float], bool]],
    colours: dict[str, RGB],
) -> None:
    """Counters in their side's colour, each with its id, losses and status words; a moved
    one tied to its unit's point by a leader line (a dot marks the point)."""
    draw = ImageDraw.Draw(image, "RGBA")
    for piece, box, anchor, moved in placed:
        if moved:
            colour = colours[piece.counter.side]
            end = leader_end(anchor, box)
            draw.line([anchor, end], fill=INK, width=2)
            draw.ellipse(
                [anchor[0] - 4, anchor[1] - 4, anchor[0] + 4, anchor[1] + 4],
                fill=colour,
                outline=INK,
            )
    for piece, box, _anchor, _moved in placed:
        counter = piece.counter
        colour = colours[counter.side]
        if counter.hidden:
            # Shown to its owner only: see-through and dashed, so the owner knows the enemy
            # does not see it.
            draw.rounded_rectangle(box, radius=4, fill=(*colour, 110))
            dashed_outline(draw, box, INK, 2)
        else:
            fill = DESTROYED if counter.destroyed else colour
            draw.rounded_rectangle(box, radius=4, fill=fill, outline=INK, width=1)
        x0, y0, x1, y1 = box
        h = y1 - y0
        letter(
            image,
            ((x0 + x1) / 2, y0 + h * 0.36),
            plain(counter.label),
            piece.label_size,
            HALO,
            "mm",
        )
        if counter.initial_models:
            losses = f"{counter.models}/{counter.initial_models}"
            letter(image, ((x0 + x1) / 2, y0 + h * 0.77), losses, 12, HALO, "mm")
        if counter.destroyed:
            draw.line([(x0 + 2, y0 + 2), (x1 - 2, y1 - 2)], fill=BLOCKED, width=3)
            draw.line([(x0 + 2, y1 - 2), (x1 - 2, y0 + 2)], fill=BLOCKED, width=3)
        if piece.status:
            write(
                image,
                ((x0 + x1) / 2, y1 + piece.status_size * 0.8),
                piece.status,
                piece.status_size,
                INK,
            )


# -- a hex map --------------------------------------------------------------------------------


def _largest(text: str, width: float, biggest: int, least: int = HEX_TEXT) -> int:
    """The largest size, down to ``least``, at which ``text`` fits ``width`` pixels."""
    size = biggest
    while size > least and width_of(text, size) > width:
        size -= 1
    return size


def _hex_words(label: str, radius: float, empty: bool) -> tuple[list[str], int]:
    """A hex's terrain words at its foot: one line at a readable size; in an empty hex two
    lines if need be. None (``[]``) when they do not fit beside the hex's counters: the
    band under the map lists them instead."""
    shown = plain(label)
    width = radius * 1.6
    size = _largest(shown, width, max(HEX_TEXT, min(SMALL_TEXT, int(radius * 0.3))))
    if width_of(shown, size) <= width:
        return [shown], size
    if empty:
        return wrap(shown, HEX_TEXT, width, max_lines=2), HEX_TEXT
    return [], HEX_TEXT


def _draw_grid(
    image: Image.Image,
    view: MapView,
    grid: HexGrid,
    frame: _Frame,
    counters: Sequence[Counter],
    language: str,
) -> tuple[list[str], list[tuple[list[Counter], Box, str]]]:
    """The hexes (fill, hatch, the coordinates players type on top, terrain words at the
    foot). Returns the notes for the band under the map (what did not fit in its hex) and,
    per hex with counters, the band between its coordinates and its words where they go:
    a stack never leaves its hex."""
    draw = ImageDraw.Draw(image)
    by_cell = {(h.col, h.row): h for h in grid.hexes}
    radius = frame.scale
    base = terrain_style(view.open_terrain or "open")
    min_x, min_y, _, _ = _grid_extent(grid)
    # Fills, then each terrain's hatch over all its hexes at once, then the hex outlines on top.
    hexes: list[list[tuple[float, float]]] = []
    by_style: dict[TerrainStyle, list[list[tuple[float, float]]]] = {}
    for col, row in _grid_cells(grid):
        cx, cy = _centre(grid, col, row, frame, min_x, min_y)
        corners = _hex_corners(cx, cy, radius, grid.layout)
        cell = by_cell.get((col, row))
        style = terrain_style(cell.terrain) if cell is not None else base
        draw.polygon(corners, fill=style.fill)
        hexes.append(corners)
        by_style.setdefault(style, []).append(corners)
    for style, outlines in by_style.items():
        hatch_all(image, outlines, style)
    for corners in hexes:
        draw.polygon(corners, outline=(120, 120, 110), width=1)
    coordinate_size = max(HEX_TEXT, min(SMALL_TEXT, int(radius * 0.28)))
    stacks: dict[tuple[float, float], list[Counter]] = {}
    for counter in counters:
        stacks.setdefault((counter.x, counter.y), []).append(counter)
    notes: list[str] = []
    stacked: list[tuple[list[Counter], Box, str]] = []
    for col, row in _grid_cells(grid):
        cx, cy = _centre(grid, col, row, frame, min_x, min_y)
        top = cy - radius * 0.72
        write(image, (cx, top), f"{col},{row}", coordinate_size, MUTED, halo=False)
        band_top = top + coordinate_size * 0.6 + 2
        band_bottom = cy + radius * 0.62
        cell = by_cell.get((col, row))
        here = stacks.get((col, row), [])
        if cell is not None and cell.label:
            lines, size = _hex_words(cell.label, radius, empty=not here)
            line_height = size + 1
            first = cy + radius * 0.62 - line_height * (len(lines) - 1)
            for k, line in enumerate(lines):
                write(image, (cx, first + k * line_height), line, size, INK, halo=True)
            if lines:
                band_bottom = first - size * 0.6 - 3
            else:
                notes.append(map_note(f"{col},{row}", cell.label, language))
        if here:
            half = radius * 0.82
            band = (cx - half, band_top, cx + half, max(band_top + 10, band_bottom))
            stacked.append((here, band, f"{col},{row}"))
    return notes, stacked


def map_note(place: str, what: str, language: str) -> str:
    """A note under a hex map for what did not fit in its hex (``7,3: ville``), with the
    language's colon: French puts a narrow no-break space before it (``7,3\u202f: ville``)."""
    return f"{place}{colon(language)} {what}"


def _draw_stack(
    image: Image.Image,
    here: Sequence[Counter],
    band: Box,
    colours: dict[str, RGB],
    hex_: str,
    language: str,
) -> list[str]:
    """The counters of one hex in ``band``: each with its id whole, then its losses and
    status words where they fit. Returns notes for the status words that did not."""
    draw = ImageDraw.Draw(image)
    notes: list[str] = []
    for counter, box in zip(here, stack_cells(len(here), band), strict=True):
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        fill = DESTROYED if counter.destroyed else colours[counter.side]
        draw.rounded_rectangle(box, radius=3, fill=fill, outline=INK, width=1)
        label = plain(counter.label)
        losses = f"{counter.models}/{counter.initial_models}" if counter.initial_models else ""
        status = plain(", ".join(counter.statuses))
        middle = (x0 + x1) / 2
        lines: list[tuple[str, int]] = []
        if h >= 26:
            lines.append((label, _largest(label, w - 4, min(LABEL_TEXT, int(h * 0.4)))))
            small = max(HEX_TEXT, min(12, int(h * 0.26)))
            together = f"{losses} · {status}" if losses and status else losses or status
            if together and width_of(together, small) <= w - 4:
                lines.append((together, small))
            else:
                lines += [(part, small) for part in (losses, status) if part]
            if h < 36 and len(lines) > 2:
                lines = lines[:2]
        else:
            size = _largest(label, w - 4, max(HEX_TEXT, int(h * 0.75)))
            line = f"{label} {losses}" if losses else label
            lines.append((line if width_of(line, size) <= w - 4 else label, size))
        if status and not any(status in text for text, _ in lines):
            notes.append(map_note(f"{hex_} {label}", status, language))
        heights = sum(size + 1 for _, size in lines)
        y = (y0 + y1) / 2 - heights / 2
        for text, size in lines:
            letter(image, (middle, y + size / 2), text, size, HALO, "mm")
            y += size + 1
        if counter.destroyed:
            draw.line([(x0 + 2, y0 + 2), (x1 - 2, y1 - 2)], fill=BLOCKED, width=2)
            draw.line([(x0 + 2, y1 - 2), (x1 - 2, y0 + 2)], fill=BLOCKED, width=2)
    return notes


# -- the band under the map -------------------------------------------------------------------


def _caption_lines(view: MapView, notes: Sequence[str] = ()) -> list[str]:
    """The caption as drawn: each of its lines (the state, the last action) wrapped to the
    picture's width, at most :data:`CAPTION_LINES` in all; then the notes of what did not
    fit on a hex map (``7,3: ville, retranchement``), on lines of their own."""
    lines: list[str] = []
    if notes:
        lines += wrap(" · ".join(notes), LABEL_TEXT, WIDTH - 2 * MARGIN, max_lines=2)
    for part in view.caption.split("\n"):
        if part.strip():
            lines += wrap(part, LABEL_TEXT, WIDTH - 2 * MARGIN, max_lines=CAPTION_LINES)
    limit = CAPTION_LINES + (2 if notes else 0)
    if len(lines) > limit:
        rest = fit(" ".join(lines[limit - 1 :]), LABEL_TEXT, WIDTH - 2 * MARGIN)
        lines = [*lines[: limit - 1], rest]
    return lines


def _draw_footer(
    image: Image.Image,
    view: MapView,
    colours: dict[str, RGB],
    top: float,
    scale_px: float,
    unit_count: float,
    language: str,
    hidden_shown: bool,
    caption: Sequence[str],
) -> None:
    draw = ImageDraw.Draw(image)
    x = float(MARGIN)
    y = top + 14
    # The scale bar keeps the right end of the band; sides that would run into it are
    # left out of the legend (their colours still tell them apart on the table).
    room = WIDTH - MARGIN - (scale_px + 90 if scale_px > 0 else 0)
    for side, colour in colours.items():
        name = fit(in_language(view.sides.get(side, side), language), LABEL_TEXT, 220)
        if x + 32 + width_of(name, LABEL_TEXT) > room:
            break
        draw.rounded_rectangle([x, y - 9, x + 24, y + 9], radius=3, fill=colour, outline=INK)
        write(image, (x + 32, y), name, LABEL_TEXT, INK, anchor="lm", halo=False)
        x += 32 + width_of(name, LABEL_TEXT) + 24
    if hidden_shown:
        dashed_outline(draw, (x, y - 9, x + 24, y + 9), INK, 2)
        write(
            image,
            (x + 32, y),
            translate("bot.map.hidden", language),
            LABEL_TEXT,
            INK,
            anchor="lm",
            halo=False,
        )
    if scale_px > 0:
        right = WIDTH - MARGIN
        left = right - scale_px
        draw.rectangle([left, y - 4, right, y + 4], fill=(255, 255, 255), outline=INK)
        draw.rectangle([left, y - 4, left + scale_px / 2, y + 4], fill=INK)
        number = f"{unit_count:g} {view.unit}"
        write(image, (left - 8, y), number, SMALL_TEXT, INK, anchor="rm", halo=False)
    for k, line in enumerate(caption):
        write(image, (MARGIN, y + 30 + 24 * k), line, LABEL_TEXT, INK, anchor="lm", halo=False)


def _nice_length(longest: float) -> float:
    """A round length (1, 2, 5 × 10ⁿ) no longer than ``longest``."""
    if longest <= 0 or not math.isfinite(longest):
        return 0.0
    power = 10.0 ** math.floor(math.log10(longest))
    for step in (5, 2, 1):
        if step * power <= longest:
            return step * power
    return power


def render_map(view: MapView, language: str, *, public: bool = False) -> bytes:
    """The view as a PNG picture (bytes), labels in ``language``.

    ``public``: the picture posted in the channel — hidden counters are left out even if
    the view carries them (the ruleset should not have put them in a public view; this
    makes sure no trace of them reaches the channel). Deterministic for a given view.
    """
    colours = side_colours(view)
    counters = visible_counters(view, public=public)
    grid = view.grid
    title_band = TITLE_TEXT + 20
    notes: list[str] = []
    if grid is not None:
        map_width = WIDTH - 2 * MARGIN
        min_x, min_y, max_x, max_y = _grid_extent(grid)
        radius = min(map_width / (max_x - min_x), MAX_MAP_HEIGHT / (max_y - min_y))
        width, height = (max_x - min_x) * radius, (max_y - min_y) * radius
        frame = _Frame(MARGIN + (map_width - width) / 2, title_band, radius, width, height)
        picture_height = title_band + height
    else:
        map_width = WIDTH - 2 * MARGIN - GUTTER_LEFT
        table_w = max(view.width_cm, 1.0)
        table_h = max(view.height_cm, 1.0)
        scale = min(map_width / table_w, MAX_MAP_HEIGHT / table_h)
        width, height = table_w * scale, table_h * scale
        left = MARGIN + GUTTER_LEFT + (map_width - width) / 2
        frame = _Frame(left, title_band, scale, width, height)
        picture_height = title_band + height + GUTTER_BOTTOM
    # Drawn on a tall canvas, cut to its height once the band's lines are known.
    image = Image.new("RGB", (WIDTH, int(picture_height + 12 + 42 + 24 * 8)), BACKGROUND)
    draw = ImageDraw.Draw(image)
    write(
        image,
        (MARGIN, title_band / 2),
        fit(view.title, TITLE_TEXT, WIDTH - 2 * MARGIN),
        TITLE_TEXT,
        INK,
        anchor="lm",
        halo=False,
    )
    to_pixel = _ToPixel(view, frame)
    if grid is not None:
        notes, stacked = _draw_grid(image, view, grid, frame, counters, language)
        draw_objectives(image, _objective_outlines(view, frame, to_pixel, colours))
        # Hexes are too small for a label beside the counters: the objectives are named under
        # the map, before the notes of the hexes.
        notes = [
            f"{' '.join(f'{c},{r}' for c, r in mark.hexes)} \u2013 {mark.label}"
            for mark in view.objectives
        ] + notes
        # On a hex map a radius counts hexes: from one hex centre to the next.
        draw_overlays(image, view.overlays, to_pixel, frame.scale * math.sqrt(3), language)
        for here, band, hex_ in stacked:  # counters last: no mark covers one
            notes += _draw_stack(image, here, band, colours, hex_, language)
        scale_px, scale_units = 0.0, 0.0
    else:
        draw.rectangle(frame.bounds, fill=terrain_style(view.open_terrain or "open").fill)
        outlines = _draw_areas(image, view, frame)
        _draw_coordinate_grid(image, view, frame)
        ImageDraw.Draw(image).rectangle(frame.bounds, outline=INK, width=2)
        objectives = _objective_outlines(view, frame, to_pixel, colours)
        placed, names = _layout_table(view, counters, outlines, frame, to_pixel)
        _draw_names(image, names)
        draw_objectives(image, objectives)
        draw_overlays(image, view.overlays, to_pixel, frame.scale, language)
        _draw_table_counters(image, placed, colours)
        length = _nice_length(view.width_cm / 5)
        scale_px, scale_units = length * frame.scale, length
    caption = _caption_lines(view, notes)
    _draw_footer(
        image,
        view,
        colours,
        picture_height + 8,
        scale_px,
        scale_units,
        language,
        any(c.hidden for c in counters),
        caption,
    )
    image = image.crop((0, 0, WIDTH, int(picture_height + 12 + 42 + 24 * len(caption))))
    out = io.BytesIO()
    # A palette of 256 colours: a drawing of flat fills has far fewer, and one byte a pixel
    # halves the encoding time and the file (a phone on mobile data thanks us). Octree
    # without dithering is deterministic and keeps flat fills flat. No metadata: the bytes
    # depend on the picture alone.
    palette = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette.save(out, format="PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue()


__all__ = [
    "SIDE_COLOURS",
    "TERRAIN_KEYWORDS",
    "TERRAIN_STYLES",
    "WIDTH",
    "TerrainStyle",
    "plain",
    "render_map",
    "side_colours",
    "terrain_style",
    "visible_counters",
]
