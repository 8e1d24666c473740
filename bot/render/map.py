"""A :class:`~rules.core.battlefield.MapView` as a PNG picture (Pillow).

The picture is laid out for Discord's preview on a phone: a fixed width
(:data:`WIDTH` pixels), the table scaled to it (a tall table is capped in height and
centred), text no smaller than :data:`SMALL_TEXT` pixels. Top to bottom: the title, the
table (terrain, the last action's overlays, the counters), then a band with the sides'
colours, the scale bar and the caption.

Output is deterministic: the same view gives the same bytes on a machine (no timestamp
or other metadata in the PNG, a font that ships with Pillow rather than the system's, no
dict or set order that could vary). Nothing here knows a ruleset: terrain classes get a
fill by name (:data:`TERRAIN_STYLES`, then keywords, then a stable colour from the name).
"""

from __future__ import annotations

import io
import itertools
import math
import unicodedata
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFont

from rules.core.battlefield import (
    CircleShape,
    Counter,
    HexGrid,
    MapArea,
    MapView,
    Overlay,
    PolygonShape,
)
from rules.core.caches import BoundedCache
from rules.core.i18n import translate

#: The picture's width in pixels: about what Discord shows of an image on a phone at full
#: resolution, and small enough to render fast and post as a light PNG.
WIDTH = 960
#: A very tall table would make a picture too long to read in the preview: its map is
#: scaled to fit this height instead (and centred).
MAX_MAP_HEIGHT = 1100
MARGIN = 16
TITLE_TEXT = 26
LABEL_TEXT = 17
#: zlib level of the PNG: encoding is a good part of a render's time; level 3 is faster
#: than the default 6 for a file a little larger (about 40 KB).
COMPRESS_LEVEL = 3
SMALL_TEXT = 14

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]

BACKGROUND: RGB = (250, 248, 242)
OPEN_GROUND: RGB = (222, 230, 196)
INK: RGB = (33, 33, 33)
MUTED: RGB = (110, 110, 110)
HALO: RGB = (255, 255, 255)
HALO_PLATE: RGBA = (255, 255, 255, 185)

#: Side colours, in the order of ``MapView.sides`` (then of first appearance): strong,
#: told apart by colour-blind readers (blue/red/… differ in lightness too).
SIDE_COLOURS: tuple[RGB, ...] = (
    (25, 80, 170),
    (190, 30, 35),
    (30, 120, 50),
    (120, 40, 150),
    (215, 110, 0),
    (0, 120, 130),
)


@dataclass(frozen=True, slots=True)
class TerrainStyle:
    """How a terrain class is filled: a colour, and an optional hatch (lines drawn over)."""

    fill: RGB
    hatch: str = ""  # "" none, "/" diagonal, "#" cross, "-" horizontal dashes, "." dots


#: Terrain classes by exact name (the rulesets' own words, lower case).
TERRAIN_STYLES: dict[str, TerrainStyle] = {
    "open": TerrainStyle(OPEN_GROUND),
    "clear": TerrainStyle(OPEN_GROUND),
    "aperto": TerrainStyle(OPEN_GROUND),
    "woods": TerrainStyle((96, 150, 80), "."),
    "town": TerrainStyle((170, 160, 150), "#"),
    "hill": TerrainStyle((205, 180, 125), "/"),
    "marsh": TerrainStyle((150, 190, 180), "-"),
}

#: Keywords found in a class name, in this order (Italian, English, French): the fallback
#: for classes not named above.
TERRAIN_KEYWORDS: tuple[tuple[tuple[str, ...], TerrainStyle], ...] = (
    (("strad", "road", "route", "pista", "path", "sentier"), TerrainStyle((200, 185, 150))),
    (("fium", "river", "rivi", "acqu", "water", "eau", "lago", "lake", "lac"),
     TerrainStyle((120, 170, 220), "-")),
    (("palud", "marsh", "marais", "swamp"), TerrainStyle((150, 190, 180), "-")),
    (("bosc", "wood", "bois", "forest", "foret", "forêt", "selva", "jungle", "giungla"),
     TerrainStyle((96, 150, 80), ".")),
    (("edific", "building", "bâtiment", "batiment", "town", "ville", "città", "citta",
      "casa", "house", "maison", "village", "villaggio", "urban"),
     TerrainStyle((170, 160, 150), "#")),
    (("rovin", "ruin", "rubble", "macerie", "crater", "cratere", "cratère"),
     TerrainStyle((160, 150, 140), "/")),
    (("collin", "hill", "colline", "rilievo", "elev", "altura", "rise"),
     TerrainStyle((205, 180, 125), "/")),
    (("muro", "wall", "mur", "siepe", "hedge", "haie", "bocage", "fence", "recinto"),
     TerrainStyle((140, 120, 90), "#")),
    (("camp", "field", "champ", "crop", "grano", "wheat"), TerrainStyle((225, 215, 140))),
    (("trincea", "trench", "tranch", "bunker", "fortif"), TerrainStyle((150, 130, 110), "/")),
    (("minat", "mine", "filo", "wire", "barbel"), TerrainStyle((215, 160, 160), "#")),
)


def terrain_style(terrain: str) -> TerrainStyle:
    """The fill of a terrain class: by name, else by keyword, else a stable pale colour."""
    key = terrain.strip().lower()
    if key in TERRAIN_STYLES:
        return TERRAIN_STYLES[key]
    for words, style in TERRAIN_KEYWORDS:
        if any(word in key for word in words):
            return style
    # crc32, not hash(): Python salts str hashes per process, and the picture must not change.
    seed = zlib.crc32(key.encode("utf-8"))
    return TerrainStyle((150 + seed % 80, 150 + (seed >> 8) % 80, 150 + (seed >> 16) % 80))


# Pillow's bundled font covers printable ASCII and a few signs only: the rest is spelled
# with what it has (é → e, — → -) rather than drawn as empty boxes.
_FONT_HAS = frozenset(chr(c) for c in range(0x20, 0x7F)) | frozenset("°±«»·©")
_SPELLED = str.maketrans(
    {"—": "-", "–": "-", "→": "->", "←": "<-", "×": "x", "≤": "<=", "≥": ">=", "’": "'",
     "‘": "'", "“": '"', "”": '"', "…": "...", "✓": "v", "½": "1/2", "ß": "ss", "Œ": "OE",
     "œ": "oe", "Æ": "AE", "æ": "ae", "\n": " "}
)


@lru_cache(maxsize=4096)
def plain(text: str) -> str:
    """``text`` in the characters the bundled font draws (accents dropped, signs spelled)."""
    if all(char in _FONT_HAS for char in text):
        return text
    spelled = unicodedata.normalize("NFKD", text.translate(_SPELLED))
    kept = (char for char in spelled if not unicodedata.combining(char))
    return "".join(char if char in _FONT_HAS else "?" for char in kept)


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels (never the machine's fonts)."""
    return ImageFont.load_default(size=size)


def side_colours(view: MapView) -> dict[str, RGB]:
    """Each side's colour: the view's sides in order, then any other side counters name."""
    order = list(view.sides)
    order += [c.side for c in view.counters if c.side not in order]
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
    height: float  # the map's height in pixels

    def table(self, x: float, y: float, table_height: float) -> tuple[float, float]:
        """A measured table's point (y up) as a pixel (y down)."""
        return self.left + x * self.scale, self.top + (table_height - y) * self.scale


def _hex_centre(grid: HexGrid, col: float, row: float, radius: float) -> tuple[float, float]:
    """The centre of hex (col, row), from the grid's first hex centred at (0, 0)."""
    if grid.layout == "axial":
        return radius * math.sqrt(3) * (col + row / 2), radius * 1.5 * row
    shift = 0.5 if int(col) % 2 else 0.0
    return radius * 1.5 * col, radius * math.sqrt(3) * (row + shift)


def _hex_corners(cx: float, cy: float, radius: float, layout: str) -> list[tuple[float, float]]:
    start = 30 if layout == "axial" else 0  # pointy-topped: a corner straight up
    return [
        (cx + radius * math.cos(math.radians(start + 60 * k)),
         cy + radius * math.sin(math.radians(start + 60 * k)))
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


# -- drawing ----------------------------------------------------------------------------------


Lettering = tuple[Image.Image, int, int]

#: Words rendered, by (text, size, anchor): at most 4,096 and about 4 MB of masks (a caption
#: changes with every event; the words of a game's units and areas come back).
_LETTERING: BoundedCache[tuple[str, int, str], Lettering] = BoundedCache(
    4096,
    name="map lettering",
    max_weight=4 * 1024 * 1024,
    weigh=lambda key, value: 200 + len(key[0]) + value[0].width * value[0].height,
)


def _lettering(text: str, size: int, anchor: str) -> Lettering:
    """``text`` rendered once as a coverage mask, with its offset from the anchor point.

    The same words come back in picture after picture of a game (unit ids, hex
    coordinates, area names, side names): each is rendered by FreeType once, then pasted.
    """
    key = (text, size, anchor)
    kept = _LETTERING.get(key)
    if kept is not None:
        return kept
    lettering = _render_lettering(text, size, anchor)
    _LETTERING.put(key, lettering)
    return lettering


def _render_lettering(text: str, size: int, anchor: str) -> Lettering:
    font = _font(size)
    box = font.getbbox(text, anchor=anchor)
    left, top = math.floor(box[0]), math.floor(box[1])
    right, bottom = math.ceil(box[2]), math.ceil(box[3])
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


def _letter(
    image: Image.Image, at: tuple[float, float], text: str, size: int, fill: RGB, anchor: str
) -> tuple[int, int, int, int]:
    """Paste ``text`` (already spelled for the font) at ``at``; returns its box."""
    mask, left, top = _lettering(text, size, anchor)
    x, y = round(at[0]) + left, round(at[1]) + top
    box = (x, y, x + mask.width, y + mask.height)
    image.paste(fill, box, mask)
    return box


def _text(
    image: Image.Image,
    at: tuple[float, float],
    text: str,
    size: int,
    fill: RGB = INK,
    anchor: str = "mm",
    halo: bool = True,
) -> None:
    """Text, on a see-through white plate when ``halo``: readable over any fill. (A plate
    costs one rectangle; an outline stroke would render every glyph twice.)"""
    shown = plain(text)
    if halo:
        mask, left, top = _lettering(shown, size, anchor)
        x0, y0 = round(at[0]) + left, round(at[1]) + top
        ImageDraw.Draw(image, "RGBA").rounded_rectangle(
            (x0 - 3, y0 - 2, x0 + mask.width + 3, y0 + mask.height + 2),
            radius=3,
            fill=HALO_PLATE,
        )
    _letter(image, at, shown, size, fill, anchor)


def _fit(text: str, size: int, width: float) -> str:
    """``text`` (spelled for the font) cut with "..." to fit ``width`` pixels at ``size``."""
    font = _font(size)
    text = plain(text)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "...") > width:
        text = text[:-1]
    return text + "..." if text else ""


def _hatch(
    layer: Image.Image, outline: Sequence[tuple[float, float]], style: TerrainStyle
) -> None:
    """Draw the style's hatch inside ``outline`` (a mask keeps it inside the shape)."""
    if not style.hatch:
        return
    xs = [p[0] for p in outline]
    ys = [p[1] for p in outline]
    box = (int(min(xs)), int(min(ys)), int(max(xs)) + 1, int(max(ys)) + 1)
    w, h = box[2] - box[0], box[3] - box[1]
    if w <= 1 or h <= 1:
        return
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).polygon([(x - box[0], y - box[1]) for x, y in outline], fill=255)
    pattern = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    pen = ImageDraw.Draw(pattern)
    ink = (*(max(0, c - 60) for c in style.fill), 150)
    step = 12
    if style.hatch in ("/", "#"):
        for k in range(-h, w, step):
            pen.line([(k, h), (k + h, 0)], fill=ink, width=1)
    if style.hatch == "#":
        for k in range(0, w + h, step):
            pen.line([(k - h, 0), (k, h)], fill=ink, width=1)
    if style.hatch == "-":
        for y in range(step // 2, h, step):
            offset = (y // step) % 2 * step // 2
            for x in range(offset, w, step):
                pen.line([(x, y), (x + step // 2, y)], fill=ink, width=1)
    if style.hatch == ".":
        for y in range(step // 2, h, step):
            offset = (y // step) % 2 * step // 2
            for x in range(offset, w, step):
                pen.ellipse([x - 1.5, y - 1.5, x + 1.5, y + 1.5], fill=ink)
    # The pattern's own alpha, kept inside the shape.
    alpha = ImageChops.multiply(pattern.getchannel("A"), mask)
    layer.paste(pattern.convert("RGB"), (box[0], box[1]), alpha)


def _circle_outline(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    count = max(24, min(180, int(r / 2)))
    return [
        (cx + r * math.cos(2 * math.pi * k / count), cy + r * math.sin(2 * math.pi * k / count))
        for k in range(count)
    ]


def _area_outline(area: MapArea, frame: _Frame, table_h: float) -> list[tuple[float, float]]:
    shape = area.shape
    if isinstance(shape, CircleShape):
        cx, cy = frame.table(shape.center.x, shape.center.y, table_h)
        return _circle_outline(cx, cy, shape.radius * frame.scale)
    assert isinstance(shape, PolygonShape)
    return [frame.table(p.x, p.y, table_h) for p in shape.points]


def _draw_areas(image: Image.Image, view: MapView, frame: _Frame) -> None:
    draw = ImageDraw.Draw(image)
    table_h = view.height_cm
    outlines = [(_area_outline(area, frame, table_h), area) for area in view.areas]
    for outline, area in outlines:
        style = terrain_style(area.terrain)
        edge = tuple(max(0, c - 70) for c in style.fill)
        draw.polygon(outline, fill=style.fill, outline=edge, width=2 if area.blocks_sight else 1)
        _hatch(image, outline, style)
    for outline, area in outlines:  # labels last: no later fill may cover one
        if not area.label:
            continue
        cx = sum(p[0] for p in outline) / len(outline)
        cy = sum(p[1] for p in outline) / len(outline)
        width = max(p[0] for p in outline) - min(p[0] for p in outline)
        _text(image, (cx, cy), _fit(area.label, SMALL_TEXT, max(60.0, width)), SMALL_TEXT, MUTED)


def _draw_grid(image: Image.Image, view: MapView, grid: HexGrid, frame: _Frame) -> None:
    draw = ImageDraw.Draw(image)
    by_cell = {(h.col, h.row): h for h in grid.hexes}
    radius = frame.scale
    base = terrain_style(view.open_terrain or "open")
    min_x, min_y, _, _ = _grid_extent(grid)
    for col, row in _grid_cells(grid):
        cx, cy = _centre(grid, col, row, frame, min_x, min_y)
        corners = _hex_corners(cx, cy, radius, grid.layout)
        cell = by_cell.get((col, row))
        style = terrain_style(cell.terrain) if cell is not None else base
        draw.polygon(corners, fill=style.fill, outline=(120, 120, 110), width=1)
        _hatch(image, corners, style)
    coordinate_size = max(10, min(SMALL_TEXT, int(radius * 0.3)))
    for col, row in _grid_cells(grid):
        cx, cy = _centre(grid, col, row, frame, min_x, min_y)
        # The coordinates players type, at the top of each hex.
        _text(image, (cx, cy - radius * 0.68), f"{col},{row}", coordinate_size, MUTED, halo=False)
        cell = by_cell.get((col, row))
        if cell is not None and cell.label:
            label = _fit(cell.label, coordinate_size, radius * 1.5)
            _text(image, (cx, cy + radius * 0.72), label, coordinate_size, MUTED, halo=False)


def _centre(
    grid: HexGrid, col: float, row: float, frame: _Frame, min_x: float, min_y: float
) -> tuple[float, float]:
    x, y = _hex_centre(grid, col, row, frame.scale)
    return frame.left + x - min_x * frame.scale, frame.top + y - min_y * frame.scale


def _dashed_line(
    draw: ImageDraw.ImageDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    fill: RGB | RGBA,
    width: int,
    dash: float = 12,
    gap: float = 8,
) -> None:
    length = math.dist(start, end)
    if length == 0:
        return
    ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
    at = 0.0
    while at < length:
        stop = min(length, at + dash)
        a = (start[0] + ux * at, start[1] + uy * at)
        b = (start[0] + ux * stop, start[1] + uy * stop)
        draw.line([a, b], fill=fill, width=width)
        at = stop + gap


def _dashed_outline(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: RGB, width: int
) -> None:
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    for a, b in itertools.pairwise(corners):
        _dashed_line(draw, a, b, fill, width, dash=6, gap=4)


def _arrow_head(
    draw: ImageDraw.ImageDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    fill: RGB | RGBA,
    size: float = 16,
) -> None:
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    left = (end[0] - size * math.cos(angle - 0.45), end[1] - size * math.sin(angle - 0.45))
    right = (end[0] - size * math.cos(angle + 0.45), end[1] - size * math.sin(angle + 0.45))
    draw.polygon([end, left, right], fill=fill)


LINE_OF_FIRE: RGB = (20, 20, 20)
BLOCKED: RGB = (210, 20, 20)
DEVIATION: RGB = (120, 30, 160)
BLAST_FILL: RGBA = (240, 120, 20, 80)
BLAST_EDGE: RGB = (200, 80, 0)


def _draw_overlays(
    image: Image.Image,
    overlays: Iterable[Overlay],
    to_pixel: _ToPixel,
    scale: float,
    language: str,
) -> None:
    """Blasts under the lines, lines under the labels; blasts see-through."""
    # An RGBA pen on the RGB picture blends see-through colours in place: no layer.
    draw = ImageDraw.Draw(image, "RGBA")
    labels: list[tuple[tuple[float, float], str, RGB]] = []
    ordered = sorted(overlays, key=lambda o: o.kind != "circle")  # stable: blasts first
    for overlay in ordered:
        points = [to_pixel(p.x, p.y) for p in overlay.points]
        if not points:
            continue
        if overlay.kind == "circle":
            cx, cy = points[0]
            r = max(4.0, overlay.radius * scale)
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=BLAST_FILL, outline=BLAST_EDGE,
                         width=2)
            if overlay.label:
                labels.append(((cx, cy - r - 10), overlay.label, BLAST_EDGE))
        elif overlay.kind == "point" or len(points) < 2:
            cx, cy = points[0]
            draw.line([(cx - 9, cy), (cx + 9, cy)], fill=DEVIATION, width=3)
            draw.line([(cx, cy - 9), (cx, cy + 9)], fill=DEVIATION, width=3)
            if overlay.label:
                labels.append(((cx, cy - 18), overlay.label, DEVIATION))
        elif overlay.kind == "line_of_fire":
            start, end = points[0], points[-1]
            if overlay.blocked:
                _dashed_line(draw, start, end, BLOCKED, 4)
                text = overlay.label or translate("bot.map.blocked", language)
                labels.append((_middle(start, end), text, BLOCKED))
            else:
                draw.line([start, end], fill=(255, 255, 255, 220), width=8)
                draw.line([start, end], fill=LINE_OF_FIRE, width=4)
                _arrow_head(draw, start, end, LINE_OF_FIRE, 18)
                if overlay.label:
                    labels.append((_middle(start, end), overlay.label, LINE_OF_FIRE))
        else:  # arrow: a deviation from the aimed point to where the shot landed
            start, end = points[0], points[-1]
            draw.ellipse([start[0] - 6, start[1] - 6, start[0] + 6, start[1] + 6],
                         outline=DEVIATION, width=2)
            _dashed_line(draw, start, end, DEVIATION, 3, dash=8, gap=5)
            _arrow_head(draw, start, end, DEVIATION)
            if overlay.label:
                labels.append((_middle(start, end), overlay.label, DEVIATION))
    for at, text, colour in labels:
        _text(image, at, _fit(text, SMALL_TEXT, 260), SMALL_TEXT, colour)


def _middle(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 12


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


def _draw_counters(
    image: Image.Image,
    counters: Sequence[Counter],
    to_pixel: _ToPixel,
    colours: dict[str, RGB],
    size: float,
    widest: float,
) -> None:
    """Counters as boxes of their side's colour, wide enough for their label (up to
    ``widest`` pixels); several at one spot are stacked, in two columns past three."""
    draw = ImageDraw.Draw(image)
    spots: dict[tuple[float, float], list[Counter]] = {}
    for counter in counters:
        spots.setdefault((counter.x, counter.y), []).append(counter)
    placed: list[tuple[Counter, tuple[float, float, float, float], int]] = []
    for (x, y), here in spots.items():
        cx, cy = to_pixel(x, y)
        # Up to three in a column (a hex of pzgren holds three combat units), wide enough
        # for their ids; more side by side.
        columns = 1 if len(here) <= 3 else 2
        rows = math.ceil(len(here) / columns)
        height = size if len(here) == 1 else size * 0.62
        room = widest / columns - 2
        # The largest lettering (down to 11 px) at which every id here fits its counter.
        text_size = max(10, min(LABEL_TEXT, int(height * 0.42)))
        while text_size > 11 and any(
            _font(text_size).getlength(plain(c.label)) + 6 > room for c in here
        ):
            text_size -= 1
        wanted = max(_font(text_size).getlength(plain(c.label)) + 10 for c in here)
        width = max(min(height * 1.3, room), min(wanted, room))
        for index, counter in enumerate(here):
            col, row = index % columns, index // columns
            left = cx - columns * width / 2 - (columns - 1) + col * (width + 2)
            top = cy - rows * height / 2 - (rows - 1) + row * (height + 2)
            placed.append((counter, (left, top, left + width, top + height), text_size))
    ghosts = [(c, box) for c, box, _ in placed if c.hidden]
    if ghosts:
        # Shown to its owner only: see-through and dashed, so the owner knows the enemy
        # does not see it.
        ghost = ImageDraw.Draw(image, "RGBA")
        for counter, box in ghosts:
            ghost.rounded_rectangle(box, radius=4, fill=(*colours[counter.side], 110))
    for counter, box, _ in placed:
        if not counter.hidden:
            colour = (150, 150, 150) if counter.destroyed else colours[counter.side]
            draw.rounded_rectangle(box, radius=4, fill=colour, outline=INK, width=1)
    for counter, box, big in placed:
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        if counter.hidden:
            _dashed_outline(draw, box, INK, 2)
        small = max(9, min(SMALL_TEXT, int(h * 0.32)))
        label = _fit(counter.label, big, w - 4)
        _letter(image, ((x0 + x1) / 2, y0 + h * 0.36), label, big, HALO, "mm")
        if counter.initial_models:
            losses = f"{counter.models}/{counter.initial_models}"
            _letter(image, ((x0 + x1) / 2, y0 + h * 0.77), losses, small, HALO, "mm")
        if counter.destroyed:
            draw.line([(x0 + 2, y0 + 2), (x1 - 2, y1 - 2)], fill=BLOCKED, width=3)
            draw.line([(x0 + 2, y1 - 2), (x1 - 2, y0 + 2)], fill=BLOCKED, width=3)
        if counter.statuses:
            words = _fit(", ".join(counter.statuses), small, max(w * 1.6, 90))
            _text(image, ((x0 + x1) / 2, y1 + small * 0.75), words, small, INK)


def _draw_footer(
    image: Image.Image,
    view: MapView,
    colours: dict[str, RGB],
    top: float,
    scale_px: float,
    unit_count: float,
    language: str,
    hidden_shown: bool,
) -> None:
    draw = ImageDraw.Draw(image)
    x = float(MARGIN)
    y = top + 14
    # The scale bar keeps the right end of the band; sides that would run into it are
    # left out of the legend (their colours still tell them apart on the table).
    room = WIDTH - MARGIN - (scale_px + 90 if scale_px > 0 else 0)
    for side, colour in colours.items():
        name = _fit(view.sides.get(side, side), LABEL_TEXT, 220)
        if x + 32 + _font(LABEL_TEXT).getlength(name) > room:
            break
        draw.rounded_rectangle([x, y - 9, x + 24, y + 9], radius=3, fill=colour, outline=INK)
        _text(image, (x + 32, y), name, LABEL_TEXT, INK, anchor="lm", halo=False)
        x += 32 + _font(LABEL_TEXT).getlength(name) + 24
    if hidden_shown:
        _dashed_outline(draw, (x, y - 9, x + 24, y + 9), INK, 2)
        _text(image, (x + 32, y), translate("bot.map.hidden", language), LABEL_TEXT, INK,
              anchor="lm", halo=False)
    if scale_px > 0:
        right = WIDTH - MARGIN
        left = right - scale_px
        draw.rectangle([left, y - 4, right, y + 4], fill=(255, 255, 255), outline=INK)
        draw.rectangle([left, y - 4, left + scale_px / 2, y + 4], fill=INK)
        number = f"{unit_count:g} {view.unit}"
        _text(image, (left - 8, y), number, SMALL_TEXT, INK, anchor="rm", halo=False)
    if view.caption:
        _text(image, (MARGIN, y + 30), _fit(view.caption, LABEL_TEXT, WIDTH - 2 * MARGIN),
              LABEL_TEXT, INK, anchor="lm", halo=False)


def _nice_length(longest: float) -> float:
    """A round length (1, 2, 5 × 10ⁿ) no longer than ``longest``."""
    if longest <= 0:
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
    map_width = WIDTH - 2 * MARGIN
    title_band = TITLE_TEXT + 20
    footer_band = 66 if view.caption else 40
    if grid is not None:
        min_x, min_y, max_x, max_y = _grid_extent(grid)
        radius = min(map_width / (max_x - min_x), MAX_MAP_HEIGHT / (max_y - min_y))
        map_height = (max_y - min_y) * radius
        left = MARGIN + (map_width - (max_x - min_x) * radius) / 2
        frame = _Frame(left, title_band, radius, map_height)
        counter_size = radius * 1.05
        # Just short of the next hex's centre distance (√3 r): neighbours never overlap.
        widest = radius * 1.7
        unit_scale = 0.0
        map_width_px = (max_x - min_x) * radius
    else:
        table_w = max(view.width_cm, 1.0)
        table_h = max(view.height_cm, 1.0)
        scale = min(map_width / table_w, MAX_MAP_HEIGHT / table_h)
        map_height = table_h * scale
        left = MARGIN + (map_width - table_w * scale) / 2
        frame = _Frame(left, title_band, scale, map_height)
        counter_size = 36.0
        widest = 130.0
        unit_scale = scale
        map_width_px = table_w * scale
    height = int(title_band + map_height + 12 + footer_band)
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _text(image, (MARGIN, title_band / 2), _fit(view.title, TITLE_TEXT, map_width), TITLE_TEXT,
          INK, anchor="lm", halo=False)
    if grid is not None:
        _draw_grid(image, view, grid, frame)
    else:
        box = [frame.left, frame.top, frame.left + map_width_px, frame.top + map_height]
        draw.rectangle(box, fill=terrain_style(view.open_terrain or "open").fill)
        _draw_areas(image, view, frame)
        ImageDraw.Draw(image).rectangle(box, outline=INK, width=2)
    to_pixel = _ToPixel(view, frame)
    # On a hex map a radius counts hexes: from one hex centre to the next.
    hex_step = frame.scale * math.sqrt(3)
    _draw_overlays(image, view.overlays, to_pixel, unit_scale or hex_step, language)
    _draw_counters(image, counters, to_pixel, colours, counter_size, widest)
    if unit_scale:
        length = _nice_length(view.width_cm / 5)
        scale_px, scale_units = length * unit_scale, length
    else:
        scale_px, scale_units = 0.0, 0.0
    _draw_footer(
        image,
        view,
        colours,
        title_band + map_height + 8,
        scale_px,
        scale_units,
        language,
        any(c.hidden for c in counters),
    )
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
    "render_map",
    "side_colours",
    "terrain_style",
    "visible_counters",
]
