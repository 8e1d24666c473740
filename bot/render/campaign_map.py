"""The campaign map as a picture: the book's areas as labelled boxes in the order the book
gives them, each filled with its holder's colour, the area fought for now outlined thick,
a legend below saying which colour is which side's and what the outline means.

A campaign's map names areas, not shapes: the boxes stand in a grid filling the picture's
width (at most four a row, the rows as even as they can be;
:data:`rules.campaign.book.MAX_AREAS` areas at most: the work is bounded). Drawn with
Pillow by the front ends (``/campaign export`` attaches it, the web page shows it) from
the service's :class:`~rules.campaign.story.CampaignMap`, off the event loop.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from bot.render.lettering import RGB, fit, wrap, write
from bot.render.map import SIDE_COLOURS
from rules.campaign.story import CampaignMap
from rules.core.i18n import translate

WIDTH = 960
COLUMNS = 4
BOX_HEIGHT = 120
MARGIN = 24
GAP = 16
TITLE_SIZE = 26
NAME_SIZE = 20
HOLDER_SIZE = 16
BACKGROUND: RGB = (246, 244, 238)
INK: RGB = (30, 30, 30)
CONTESTED: RGB = (0, 0, 0)


def box_layout(count: int) -> list[tuple[float, float, float, float]]:
    """Where each of ``count`` boxes stands (left, top, right, bottom): as few rows as four
    columns allow, the columns as many as the fullest row needs, so the boxes fill the
    picture's width; a shorter last row is centred."""
    rows = max(1, -(-count // COLUMNS))
    columns = max(1, -(-count // rows))
    width = (WIDTH - 2 * MARGIN - (columns - 1) * GAP) / columns
    top = MARGIN + TITLE_SIZE + GAP
    boxes: list[tuple[float, float, float, float]] = []
    for index in range(count):
        row, column = divmod(index, columns)
        in_row = min(columns, count - row * columns)
        offset = (columns - in_row) * (width + GAP) / 2
        x0 = MARGIN + offset + column * (width + GAP)
        y0 = top + row * (BOX_HEIGHT + GAP)
        boxes.append((x0, y0, x0 + width, y0 + BOX_HEIGHT))
    return boxes


def campaign_map_png(view: CampaignMap) -> bytes:
    """The picture as PNG bytes, in the view's language: the legend explains the thick
    outline when an area is fought for."""
    title, areas, sides = view.title, view.areas, view.sides
    contested_label = translate("bot.campaign.book.map_contested", view.language)
    colours = {side: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, side in enumerate(sorted(sides))}
    layout = box_layout(len(areas))
    legend_top = max((box[3] for box in layout), default=MARGIN + TITLE_SIZE) + GAP + 4
    height = int(legend_top + HOLDER_SIZE + 2 * MARGIN)
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    write(
        image,
        (WIDTH / 2, MARGIN + TITLE_SIZE / 2),
        fit(title, TITLE_SIZE, WIDTH),
        TITLE_SIZE,
        INK,
        halo=False,
    )
    for area, box in zip(areas, layout, strict=True):
        x0, y0, x1, y1 = box
        box_width = x1 - x0
        fill = _light(colours.get(area.holder, (150, 150, 150)))
        draw.rounded_rectangle(box, radius=10, fill=fill, outline=INK, width=2)
        if area.contested:  # the area fought for now
            draw.rounded_rectangle(
                (x0 - 4, y0 - 4, x1 + 4, y1 + 4), radius=12, outline=CONTESTED, width=5
            )
        lines = wrap(area.name, NAME_SIZE, box_width - 16, max_lines=2)
        for number, line in enumerate(lines):
            write(
                image,
                (x0 + box_width / 2, y0 + 30 + number * (NAME_SIZE + 4)),
                line,
                NAME_SIZE,
                INK,
            )
        write(
            image,
            (x0 + box_width / 2, y1 - 20),
            fit(area.holder_name, HOLDER_SIZE, box_width - 16),
            HOLDER_SIZE,
            colours.get(area.holder, INK),
        )
    x = float(MARGIN)
    for side, label in sides.items():
        x = _legend_item(image, draw, x, legend_top, label, fill=_light(colours[side]))
    if contested_label and any(area.contested for area in areas):
        _legend_item(image, draw, x, legend_top, contested_label, outline=CONTESTED)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _legend_item(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    x: float,
    top: float,
    label: str,
    *,
    fill: RGB | None = None,
    outline: RGB | None = None,
) -> float:
    """One swatch of the legend and its words, from ``x``: where the next one starts."""
    swatch = (x, top, x + HOLDER_SIZE * 1.5, top + HOLDER_SIZE)
    if outline is not None:
        draw.rectangle(swatch, fill=BACKGROUND, outline=outline, width=4)
    else:
        draw.rectangle(swatch, fill=fill, outline=INK, width=1)
    shown = fit(label, HOLDER_SIZE, 320)
    write(
        image,
        (swatch[2] + 6, top + HOLDER_SIZE / 2),
        shown,
        HOLDER_SIZE,
        INK,
        anchor="lm",
        halo=False,
    )
    return swatch[2] + 30 + 10 * len(shown)


def _light(colour: RGB) -> RGB:
    """A side's colour lightened for a box's fill (its name stays readable on it)."""
    r, g, b = colour
    return (r + (255 - r) * 2 // 3, g + (255 - g) * 2 // 3, b + (255 - b) * 2 // 3)


__all__ = ["box_layout", "campaign_map_png"]
