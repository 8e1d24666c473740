"""The marks of the last action on a map picture: lines of fire, deviation arrows, blast
and template circles, aimed points — and the dashed lines they and hidden counters use."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable

from PIL import Image, ImageDraw

from bot.render.lettering import fit, width_of, write
from rules.core.battlefield import Overlay
from rules.core.i18n import translate
from rules.core.words import in_language

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
SMALL_TEXT = 14


def dashed_line(
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


def dashed_outline(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: RGB, width: int
) -> None:
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    for a, b in itertools.pairwise(corners):
        dashed_line(draw, a, b, fill, width, dash=6, gap=4)


def arrow_head(
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


def draw_overlays(
    image: Image.Image,
    overlays: Iterable[Overlay],
    to_pixel: Callable[[float, float], tuple[float, float]],
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
            draw.ellipse(
                [cx - r, cy - r, cx + r, cy + r], fill=BLAST_FILL, outline=BLAST_EDGE, width=2
            )
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
                dashed_line(draw, start, end, BLOCKED, 4)
                text = overlay.label or translate("bot.map.blocked", language)
                labels.append((_middle(start, end), text, BLOCKED))
            else:
                draw.line([start, end], fill=(255, 255, 255, 220), width=8)
                draw.line([start, end], fill=LINE_OF_FIRE, width=4)
                arrow_head(draw, start, end, LINE_OF_FIRE, 18)
                if overlay.label:
                    labels.append((_middle(start, end), overlay.label, LINE_OF_FIRE))
        else:  # arrow: a deviation from the aimed point to where the shot landed
            start, end = points[0], points[-1]
            draw.ellipse(
                [start[0] - 6, start[1] - 6, start[0] + 6, start[1] + 6], outline=DEVIATION, width=2
            )
            dashed_line(draw, start, end, DEVIATION, 3, dash=8, gap=5)
            arrow_head(draw, start, end, DEVIATION)
            if overlay.label:
                labels.append((_middle(start, end), overlay.label, DEVIATION))
    for at, text, colour in labels:
        # A weapon's name carries its languages: the label reads in the picture's.
        shown = in_language(text, language)
        write(image, at, fit(shown, SMALL_TEXT, 260), SMALL_TEXT, colour)


#: An objective nobody holds; one a side holds takes that side's colour.
OBJECTIVE: RGB = (200, 150, 0)


def draw_objectives(
    image: Image.Image,
    objectives: Iterable[tuple[list[tuple[float, float]], str, RGB]],
) -> None:
    """Victory objectives: a thick dashed outline of each place in its holder's colour
    (gold when nobody holds it), a star on its top edge and its label (if any) above."""
    draw = ImageDraw.Draw(image, "RGBA")
    labels: list[tuple[tuple[float, float], str, RGB]] = []
    for outline, label, colour in objectives:
        if len(outline) < 2:
            continue
        for a, b in itertools.pairwise([*outline, outline[0]]):
            dashed_line(draw, a, b, (255, 255, 255, 200), 7, dash=10, gap=6)
            dashed_line(draw, a, b, colour, 4, dash=10, gap=6)
        top = min(y for _, y in outline)
        middle = (min(x for x, _ in outline) + max(x for x, _ in outline)) / 2
        star(draw, (middle, top), 9, colour)
        if label:
            labels.append(((middle, top - 19), label, colour))
    for at, text, colour in labels:
        write(image, at, fit(text, SMALL_TEXT, 260), SMALL_TEXT, colour)


def objective_boxes(
    objectives: Iterable[tuple[list[tuple[float, float]], str, RGB]],
) -> list[tuple[float, float, float, float]]:
    """Where `draw_objectives` will draw: small boxes along each dashed outline, its star and
    its label, so a terrain name placed before them keeps clear of them (a name under the
    outline or the star would be cut by it, as the chapel's was)."""
    boxes: list[tuple[float, float, float, float]] = []
    for outline, label, _ in objectives:
        if len(outline) < 2:
            continue
        for a, b in itertools.pairwise([*outline, outline[0]]):
            steps = max(1, math.ceil(math.dist(a, b) / 8))
            for k in range(steps + 1):
                x, y = a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps
                boxes.append((x - 3, y - 3, x + 3, y + 3))
        top = min(y for _, y in outline)
        middle = (min(x for x, _ in outline) + max(x for x, _ in outline)) / 2
        boxes.append((middle - 10, top - 10, middle + 10, top + 10))
        if label:
            half = width_of(fit(label, SMALL_TEXT, 260), SMALL_TEXT) / 2 + 2
            y = top - 19
            boxes.append(
                (middle - half, y - SMALL_TEXT / 2 - 2, middle + half, y + SMALL_TEXT / 2 + 2)
            )
    return boxes


def star(draw: ImageDraw.ImageDraw, centre: tuple[float, float], radius: float, fill: RGB) -> None:
    """A five-pointed star (the lettering's font has no star glyph), outlined in white."""
    corners = [
        (
            centre[0] + (radius if k % 2 == 0 else radius * 0.45) * math.sin(math.pi * k / 5),
            centre[1] - (radius if k % 2 == 0 else radius * 0.45) * math.cos(math.pi * k / 5),
        )
        for k in range(10)
    ]
    draw.polygon(corners, fill=fill, outline=(255, 255, 255), width=1)


def _middle(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 12


__all__ = [
    "BLOCKED",
    "OBJECTIVE",
    "arrow_head",
    "dashed_line",
    "dashed_outline",
    "draw_objectives",
    "draw_overlays",
    "objective_boxes",
    "star",
]
