"""The campaign map as a picture: the book's areas as labelled boxes in the order the book
gives them, each filled with its holder's colour, the area fought for now outlined thick,
the sides' legend below.

A campaign's map names areas, not shapes: the boxes stand in a grid (at most four a row,
:data:`rules.core.campaign_book.MAX_AREAS` areas at most: the work is bounded). Drawn with
Pillow by the front ends (``/campaign export`` attaches it, the web page shows it) from
the service's :class:`~rules.core.campaign_story.CampaignMap`, off the event loop.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from bot.render.lettering import RGB, fit, wrap, write
from bot.render.map import SIDE_COLOURS
from rules.core.campaign_story import CampaignMap

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


def campaign_map_png(view: CampaignMap) -> bytes:
    """The picture as PNG bytes."""
    title, areas, sides = view.title, view.areas, view.sides
    colours = {side: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, side in enumerate(sorted(sides))}
    rows = max(1, -(-len(areas) // COLUMNS))
    box_width = (WIDTH - 2 * MARGIN - (COLUMNS - 1) * GAP) / COLUMNS
    top = MARGIN + TITLE_SIZE + GAP
    legend_top = top + rows * (BOX_HEIGHT + GAP)
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
    for index, area in enumerate(areas):
        row, column = divmod(index, COLUMNS)
        x0 = MARGIN + column * (box_width + GAP)
        y0 = top + row * (BOX_HEIGHT + GAP)
        box = (x0, y0, x0 + box_width, y0 + BOX_HEIGHT)
        fill = _light(colours.get(area.holder, (150, 150, 150)))
        draw.rounded_rectangle(box, radius=10, fill=fill, outline=INK, width=2)
        if area.contested:  # the area fought for now
            draw.rounded_rectangle(
                (x0 - 4, y0 - 4, x0 + box_width + 4, y0 + BOX_HEIGHT + 4),
                radius=12,
                outline=CONTESTED,
                width=5,
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
            (x0 + box_width / 2, y0 + BOX_HEIGHT - 20),
            fit(area.holder_name, HOLDER_SIZE, box_width - 16),
            HOLDER_SIZE,
            colours.get(area.holder, INK),
        )
    x = float(MARGIN)
    for side, label in sides.items():
        colour = colours[side]
        draw.rectangle((x, legend_top, x + HOLDER_SIZE, legend_top + HOLDER_SIZE), fill=colour)
        shown = fit(label, HOLDER_SIZE, 260)
        write(
            image,
            (x + HOLDER_SIZE + 6, legend_top + HOLDER_SIZE / 2),
            shown,
            HOLDER_SIZE,
            INK,
            anchor="lm",
            halo=False,
        )
        x += HOLDER_SIZE + 30 + 10 * len(shown)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _light(colour: RGB) -> RGB:
    """A side's colour lightened for a box's fill (its name stays readable on it)."""
    r, g, b = colour
    return (r + (255 - r) * 2 // 3, g + (255 - g) * 2 // 3, b + (255 - b) * 2 // 3)


__all__ = ["campaign_map_png"]
