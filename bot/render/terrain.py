"""How terrain is filled on the map pictures: a colour and a hatch per terrain class.

Nothing here knows a ruleset: a class gets its fill by name (:data:`TERRAIN_STYLES`), then
by a keyword in Italian, English or French (:data:`TERRAIN_KEYWORDS`), then a stable pale
colour from its name.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageDraw

RGB = tuple[int, int, int]
OPEN_GROUND: RGB = (222, 230, 196)


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
    (
        ("fium", "river", "rivi", "acqu", "water", "eau", "lago", "lake", "lac"),
        TerrainStyle((120, 170, 220), "-"),
    ),
    (("palud", "marsh", "marais", "swamp"), TerrainStyle((150, 190, 180), "-")),
    (
        ("bosc", "wood", "bois", "forest", "foret", "forêt", "selva", "jungle", "giungla"),
        TerrainStyle((96, 150, 80), "."),
    ),
    (
        (
            "edific",
            "building",
            "bâtiment",
            "batiment",
            "town",
            "ville",
            "città",
            "citta",
            "casa",
            "house",
            "maison",
            "village",
            "villaggio",
            "urban",
        ),
        TerrainStyle((170, 160, 150), "#"),
    ),
    (
        ("rovin", "ruin", "rubble", "macerie", "crater", "cratere", "cratère"),
        TerrainStyle((160, 150, 140), "/"),
    ),
    (
        ("collin", "hill", "colline", "rilievo", "elev", "altura", "rise"),
        TerrainStyle((205, 180, 125), "/"),
    ),
    (
        ("muro", "wall", "mur", "siepe", "hedge", "haie", "bocage", "fence", "recinto"),
        TerrainStyle((140, 120, 90), "#"),
    ),
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


def hatch(layer: Image.Image, outline: Sequence[tuple[float, float]], style: TerrainStyle) -> None:
    """Draw the style's hatch inside ``outline`` (a mask keeps it inside the shape)."""
    hatch_all(layer, [outline], style)


def hatch_all(
    layer: Image.Image, outlines: Sequence[Sequence[tuple[float, float]]], style: TerrainStyle
) -> None:
    """Draw the style's hatch inside every one of ``outlines`` at once: one pattern over
    their union (a hex map's thousands of woods hexes cost one pattern, not one each)."""
    if not style.hatch or not outlines:
        return
    xs = [p[0] for outline in outlines for p in outline]
    ys = [p[1] for outline in outlines for p in outline]
    box = (int(min(xs)), int(min(ys)), int(max(xs)) + 1, int(max(ys)) + 1)
    w, h = box[2] - box[0], box[3] - box[1]
    if w <= 1 or h <= 1:
        return
    mask = Image.new("L", (w, h), 0)
    shaper = ImageDraw.Draw(mask)
    for outline in outlines:
        shaper.polygon([(x - box[0], y - box[1]) for x, y in outline], fill=255)
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
    # The pattern's own alpha, kept inside the shapes.
    alpha = ImageChops.multiply(pattern.getchannel("A"), mask)
    layer.paste(pattern.convert("RGB"), (box[0], box[1]), alpha)


__all__ = [
    "OPEN_GROUND",
    "TERRAIN_KEYWORDS",
    "TERRAIN_STYLES",
    "TerrainStyle",
    "hatch",
    "hatch_all",
    "terrain_style",
]
