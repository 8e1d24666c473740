"""The battlefield a scenario may carry, and the picture of it that front ends draw.

Two contracts live here, both pure data:

* :class:`Battlefield` — what a scenario's optional ``battlefield:`` section holds for the
  measured rulesets (manovra, linea_gotica, w40k4): the table's size in cm, terrain areas
  (polygons or circles, each named with one of the ruleset's own terrain classes), named
  points, and where each unit starts. Geometry over it (distances, the terrain a point
  stands in, what a line crosses) lives in :mod:`rules.core.geometry`.
* :class:`MapView` — what a ruleset says should be drawn for one viewer: the table, its
  areas (or a hex grid), the counters the viewer may see, and the last action's overlays
  (line of fire, scatter arrow, template and blast circles). A renderer in ``bot/`` turns a
  MapView into a PNG; it knows nothing of any ruleset.

Coordinates are in the ruleset's measuring unit (``unit``: centimetres for manovra and
linea_gotica, inches for w40k4), on the table x to the right and y *up* from the bottom-left
corner (the way players measure from their own table edge); a renderer flips y.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.i18n import DEFAULT_LANGUAGE
from rules.core.upload import ScenarioReferenceError
from rules.core.words import LocalizedLabel, in_language, names_in

Cm = Annotated[float, Field(ge=0, le=10_000, allow_inf_nan=False)]
#: The smallest side a table may have (cm, or inches): a degenerate table (``1e-300``)
#: cannot be measured on nor drawn, so a scenario naming one is refused on its line.
MIN_TABLE_SIDE = 10.0
TableSide = Annotated[float, Field(ge=MIN_TABLE_SIDE, le=10_000, allow_inf_nan=False)]


class Point(BaseModel):
    """A point on the table, in cm from the bottom-left corner."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    x: Cm
    y: Cm


class CircleShape(BaseModel):
    """A round area: a wood, a crater, a blast."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["circle"] = "circle"
    center: Point
    radius: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)]


class PolygonShape(BaseModel):
    """A simple polygon (no self-intersection), its corners in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["polygon"] = "polygon"
    points: tuple[Point, ...] = Field(min_length=3, max_length=200)


Shape = Annotated[CircleShape | PolygonShape, Field(discriminator="kind")]


class TerrainArea(BaseModel):
    """One terrain feature: its shape and the ruleset's terrain class it counts as."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=40)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's): its label on
    #: the map reads in the reader's language.
    name: LocalizedLabel
    terrain: str = Field(min_length=1, max_length=40)  # a terrain class of the ruleset
    shape: Shape
    # Whether the area hides what is behind it (woods, buildings, hills); a line of sight
    # that crosses it is blocked, one that only enters it (the target stands inside) is not.
    blocks_sight: bool = False


class Battlefield(BaseModel):
    """The table of a measured game: its size, terrain areas, named points, deployment."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width_cm: TableSide
    height_cm: TableSide
    # The measuring unit of every number here ("cm" despite the field names' suffix when
    # the ruleset measures in inches: one geometry serves both).
    unit: Literal["cm", "in"] = "cm"
    # The terrain class of ground no area covers (the ruleset's open ground).
    open_terrain: str = Field(min_length=1, max_length=40)
    areas: tuple[TerrainArea, ...] = Field(default=(), max_length=200)
    points: dict[str, Point] = Field(default_factory=dict, max_length=200)
    deployment: dict[str, Point] = Field(default_factory=dict, max_length=500)

    @model_validator(mode="after")
    def _on_the_table(self) -> Battlefield:
        def inside(point: Point) -> bool:
            return point.x <= self.width_cm and point.y <= self.height_cm

        ids = [area.id for area in self.areas]
        if len(set(ids)) != len(ids):
            raise ValueError("two terrain areas share an id")
        for section, points in (("points", self.points), ("deployment", self.deployment)):
            for name, point in points.items():
                if not inside(point):
                    raise ScenarioReferenceError(f"{name!r} is off the table", (section, name))
        return self

    def deploying(self, units: Collection[str]) -> Battlefield:
        """The table with only the deployment of ``units`` (a campaign's muster leaves the
        others behind: a position of a unit not in play is drawn as nothing but a crash)."""
        kept = {unit: point for unit, point in self.deployment.items() if unit in units}
        return self.model_copy(update={"deployment": kept})


# --- What a renderer draws -------------------------------------------------------------


class MapArea(BaseModel):
    """A terrain area as drawn: its shape, its class (the renderer picks a fill) and label."""

    model_config = ConfigDict(frozen=True)

    shape: Shape
    terrain: str
    label: str
    blocks_sight: bool = False


class MapHex(BaseModel):
    """One hex of a hex map (pzgren): offset coordinates, its terrain class and label."""

    model_config = ConfigDict(frozen=True)

    col: int
    row: int
    terrain: str
    label: str = ""


class HexGrid(BaseModel):
    """A hex map: which hexes exist, their terrain, and how the coordinates are laid out.

    ``layout`` says how ``col``/``row`` (of hexes and counters) map onto the picture:
    ``odd-q`` — flat-topped hexes in offset columns, every odd column shifted half a hex
    down, ``cols`` × ``rows`` of them; ``axial`` — pointy-topped hexes in axial coordinates
    (``col`` = q, ``row`` = r, the hex to the east is q + 1; ``rules.pzgren.field``), the
    hexes with 0 ≤ q < ``cols`` and 0 ≤ r < ``rows`` (a rhombus on the table).
    """

    model_config = ConfigDict(frozen=True)

    cols: int = Field(ge=1, le=200)
    rows: int = Field(ge=1, le=200)
    hexes: tuple[MapHex, ...] = ()
    layout: Literal["odd-q", "axial"] = "odd-q"


class Counter(BaseModel):
    """A unit as drawn: where, whose, and the few words a player needs at a glance."""

    model_config = ConfigDict(frozen=True)

    unit_id: str
    label: str  # short text on the counter (the unit id or an abbreviation)
    side: str  # side id: the renderer gives each side of the game its own colour
    x: float  # cm on a measured table; on a hex map, the hex (col, row)
    y: float
    models: int = 0
    initial_models: int = 0
    statuses: tuple[str, ...] = ()  # localized status words (pinned, panic, destroyed…)
    destroyed: bool = False
    hidden: bool = False  # drawn only in a view for its owner (dashed outline)


class Overlay(BaseModel):
    """A mark of the last action: a line of fire, a deviation arrow, a blast or template."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["line_of_fire", "arrow", "circle", "point"]
    points: tuple[Point, ...] = ()  # line/arrow: from, to; circle/point: the centre
    radius: float = 0.0
    label: str = ""
    blocked: bool = False  # a line of fire drawn as blocked


class ObjectiveMark(BaseModel):
    """A victory objective as drawn: its place (a point's circle or an area on a measured
    table, hexes ``(col, row)`` on a hex map), its label in the game's language, and who
    holds it now (a side id: its colour; None: nobody), or whether it is contested."""

    model_config = ConfigDict(frozen=True)

    label: str
    shape: Shape | None = None
    hexes: tuple[tuple[int, int], ...] = ()
    holder: str | None = None
    contested: bool = False


class MapView(BaseModel):
    """Everything one viewer may see of the table now, ready to draw."""

    model_config = ConfigDict(frozen=True)

    title: str
    sides: dict[str, str]  # side id → name (colours go by the ids' order, not this dict's)
    width_cm: float = 0.0
    height_cm: float = 0.0
    unit: str = "cm"  # what the numbers are in, for the scale bar
    open_terrain: str = ""
    areas: tuple[MapArea, ...] = ()
    grid: HexGrid | None = None  # a hex map instead of a measured table
    counters: tuple[Counter, ...] = ()
    overlays: tuple[Overlay, ...] = ()
    objectives: tuple[ObjectiveMark, ...] = ()  # the scenario's victory objectives
    # Under the picture, in the game's language: a ruleset writes its last action (a sentence,
    # or nothing); the front ends put the state of the game on a line above it.
    caption: str = ""


def table_view(
    field: Battlefield,
    *,
    title: str,
    sides: dict[str, str],
    counters: Iterable[Counter] = (),
    overlays: Iterable[Overlay] = (),
    caption: str = "",
    extra_areas: Iterable[MapArea] = (),
    objectives: Iterable[ObjectiveMark] = (),
    language: str = DEFAULT_LANGUAGE,
) -> MapView:
    """A MapView of a measured table: its size, unit, open ground and every terrain area,
    with what the ruleset draws on it (``extra_areas`` go over the table's own: a minefield
    its viewer knows). The title, the areas' labels and the sides read in ``language``."""
    areas = tuple(
        MapArea(
            shape=area.shape,
            terrain=area.terrain,
            label=in_language(area.name, language),
            blocks_sight=area.blocks_sight,
        )
        for area in field.areas
    )
    return MapView(
        title=in_language(title, language),
        sides=names_in(sides, language),
        width_cm=field.width_cm,
        height_cm=field.height_cm,
        unit=field.unit,
        open_terrain=field.open_terrain,
        areas=areas + tuple(extra_areas),
        counters=tuple(counters),
        overlays=tuple(overlays),
        objectives=tuple(objectives),
        caption=caption,
    )
