"""The lettering of the map pictures: the bundled font, and text fitted, wrapped and pasted.

The font is Noto Sans Regular (SIL Open Font License 1.1, ``fonts/OFL.txt``), cut down to
what the pictures write: Basic Latin, Latin-1 and Latin Extended-A (``décembre``,
``Américains``, ``Żółć``) and the usual punctuation (— – ’ “ ” … • € −). It ships inside
the package (``fonts/NotoSans-Regular.ttf``, 28 KB; ``fonts/README.md`` says how it was
made), so a fresh ``pip install`` or the Docker image draws the same letters with no
system font and no network. A character outside it is spelled with what the font has
(→ as ->, ≤ as <=, a letter with an accent the font lacks without it) rather than drawn as
an empty box.
"""

from __future__ import annotations

import io
import math
import unicodedata
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from rules.core.caches import BoundedCache

RGB = tuple[int, int, int]

HALO_PLATE = (255, 255, 255, 185)

#: The bundled font file, inside this package.
FONT_FILE = "fonts/NotoSans-Regular.ttf"

#: The code points the bundled font was cut to (fonts/README.md gives the same ranges).
FONT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x017F),  # Latin-1 Supplement and Latin Extended-A
    (0x2009, 0x2009),  # thin space
    (0x2013, 0x2014),  # – —
    (0x2018, 0x201A),  # ‘ ’ ‚
    (0x201C, 0x201E),  # “ ” „
    (0x2022, 0x2022),  # •
    (0x2026, 0x2026),  # …
    (0x202F, 0x202F),  # narrow no-break space (French typography)
    (0x2039, 0x203A),  # ‹ ›
    (0x20AC, 0x20AC),  # €
    (0x2212, 0x2212),  # −
)
FONT_HAS = frozenset(chr(c) for low, high in FONT_RANGES for c in range(low, high + 1))

# Signs the font lacks, spelled with what it has; any other character outside it loses its
# accents (NFKD), else reads "?".
_SPELLED = str.maketrans(
    {"→": "->", "←": "<-", "≤": "<=", "≥": ">=", "✓": "v", "\n": " ", "\t": " "}
)


@lru_cache(maxsize=4096)
def plain(text: str) -> str:
    """``text`` in the characters the bundled font draws."""
    if all(char in FONT_HAS for char in text):
        return text
    spelled = text.translate(_SPELLED)
    kept: list[str] = []
    for char in spelled:
        if char in FONT_HAS:
            kept.append(char)
            continue
        decomposed = unicodedata.normalize("NFKD", char)
        base = "".join(c for c in decomposed if not unicodedata.combining(c))
        kept.append(base if base and all(c in FONT_HAS for c in base) else "?")
    return "".join(kept)


@cache
def _font_bytes() -> bytes:
    return (resources.files("bot.render") / FONT_FILE).read_bytes()


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The bundled font at ``size`` pixels (never the machine's fonts)."""
    return ImageFont.truetype(io.BytesIO(_font_bytes()), size)


def width_of(text: str, size: int) -> float:
    """How wide ``text`` (already spelled for the font) is at ``size``, in pixels."""
    return float(font(size).getlength(text))


Lettering = tuple[Image.Image, int, int]

#: Words rendered, by (text, size, anchor): at most 4,096 and about 4 MB of masks (a caption
#: changes with every event; the words of a game's units and areas come back).
LETTERING: BoundedCache[tuple[str, int, str], Lettering] = BoundedCache(
    4096,
    name="map lettering",
    max_weight=4 * 1024 * 1024,
    weigh=lambda key, value: 200 + len(key[0]) + value[0].width * value[0].height,
)


def lettering(text: str, size: int, anchor: str) -> Lettering:
    """``text`` rendered once as a coverage mask, with its offset from the anchor point.

    The same words come back in picture after picture of a game (unit ids, hex
    coordinates, area names, side names): each is rendered by FreeType once, then pasted.
    """
    key = (text, size, anchor)
    kept = LETTERING.get(key)
    if kept is not None:
        return kept
    face = font(size)
    box = face.getbbox(text, anchor=anchor)
    left, top = math.floor(box[0]), math.floor(box[1])
    right, bottom = math.ceil(box[2]), math.ceil(box[3])
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=face, fill=255, anchor=anchor)
    rendered = (mask, left, top)
    LETTERING.put(key, rendered)
    return rendered


def text_box(
    at: tuple[float, float], text: str, size: int, anchor: str = "mm", pad: int = 0
) -> tuple[float, float, float, float]:
    """Where ``text`` (spelled for the font) lands, drawn at ``at``: its box, padded."""
    mask, left, top = lettering(text, size, anchor)
    x, y = round(at[0]) + left, round(at[1]) + top
    return (x - pad, y - pad, x + mask.width + pad, y + mask.height + pad)


def letter(
    image: Image.Image, at: tuple[float, float], text: str, size: int, fill: RGB, anchor: str
) -> tuple[int, int, int, int]:
    """Paste ``text`` (already spelled for the font) at ``at``; returns its box."""
    mask, left, top = lettering(text, size, anchor)
    x, y = round(at[0]) + left, round(at[1]) + top
    box = (x, y, x + mask.width, y + mask.height)
    image.paste(fill, box, mask)
    return box


def write(
    image: Image.Image,
    at: tuple[float, float],
    text: str,
    size: int,
    fill: RGB,
    anchor: str = "mm",
    halo: bool = True,
) -> None:
    """Text, on a see-through white plate when ``halo``: readable over any fill. (A plate
    costs one rectangle; an outline stroke would render every glyph twice.)"""
    shown = plain(text)
    if halo:
        x0, y0, x1, y1 = text_box(at, shown, size, anchor)
        ImageDraw.Draw(image, "RGBA").rounded_rectangle(
            (x0 - 3, y0 - 2, x1 + 3, y1 + 2), radius=3, fill=HALO_PLATE
        )
    letter(image, at, shown, size, fill, anchor)


def fit(text: str, size: int, width: float) -> str:
    """``text`` (spelled for the font) cut with "…" to fit ``width`` pixels at ``size``: for
    one-line texts that may be cut (a caption, a status); names are wrapped instead."""
    text = plain(text)
    if width_of(text, size) <= width:
        return text
    while text and width_of(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def wrap(text: str, size: int, width: float, max_lines: int = 3) -> list[str]:
    """``text`` (spelled for the font) in lines no wider than ``width`` at ``size``, broken
    between words: a name is never cut. A single word wider than ``width`` keeps its own
    line (it overflows rather than lose letters); past ``max_lines`` the rest joins the
    last line."""
    words = plain(text).split()
    lines: list[str] = []
    for word in words:
        if lines and width_of(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        elif len(lines) < max_lines:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}"
    return lines or [""]


__all__ = [
    "FONT_HAS",
    "FONT_RANGES",
    "fit",
    "font",
    "letter",
    "lettering",
    "plain",
    "text_box",
    "width_of",
    "wrap",
    "write",
]
