"""Measuring on the battlefield: lengths add up, sight and destinations as players expect."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.core.battlefield import Battlefield, CircleShape, Point, PolygonShape, TerrainArea
from rules.core.errors import InvalidInput
from rules.core.geometry import (
    centroid,
    contains,
    length_inside,
    line_of_sight,
    parse_destination,
    path_legs,
    terrain_at,
)

WOOD = TerrainArea(
    id="wood",
    name="Wood",
    terrain="woods",
    blocks_sight=True,
    shape=CircleShape(center=Point(x=60, y=40), radius=10),
)
HOUSE = TerrainArea(
    id="house",
    name="House",
    terrain="building",
    shape=PolygonShape(
        points=(Point(x=10, y=10), Point(x=20, y=10), Point(x=20, y=20), Point(x=10, y=20))
    ),
)
# An L-shaped (concave) ridge: a line can leave and re-enter it.
RIDGE = TerrainArea(
    id="ridge",
    name="Ridge",
    terrain="hill",
    blocks_sight=True,
    shape=PolygonShape(
        points=(
            Point(x=80, y=50),
            Point(x=110, y=50),
            Point(x=110, y=75),
            Point(x=100, y=75),
            Point(x=100, y=60),
            Point(x=80, y=60),
        )
    ),
)
FIELD = Battlefield(
    width_cm=120,
    height_cm=80,
    open_terrain="open",
    areas=(WOOD, HOUSE, RIDGE),
    points={"bridge": Point(x=100, y=5)},
)

coordinate_x = st.floats(min_value=0, max_value=120, allow_nan=False)
coordinate_y = st.floats(min_value=0, max_value=80, allow_nan=False)
points = st.builds(Point, x=coordinate_x, y=coordinate_y)


@given(points, points)
def test_path_legs_add_up_to_the_distance(a: Point, b: Point) -> None:
    legs = path_legs(FIELD, a, b)
    assert sum(leg.cm for leg in legs) == pytest.approx(math.dist((a.x, a.y), (b.x, b.y)), abs=1e-6)
    for leg in legs:
        assert leg.terrain in {"open", "woods", "building", "hill"}


@given(points, points)
def test_length_inside_is_between_zero_and_the_distance(a: Point, b: Point) -> None:
    for area in FIELD.areas:
        inside = length_inside(area.shape, a, b)
        assert -1e-9 <= inside <= math.dist((a.x, a.y), (b.x, b.y)) + 1e-6


@given(points)
def test_terrain_at_agrees_with_contains(point: Point) -> None:
    terrain, area = terrain_at(FIELD, point)
    inside = [a for a in FIELD.areas if contains(a.shape, point)]
    if inside:
        assert area == inside[-1].id and terrain == inside[-1].terrain
    else:
        assert (terrain, area) == ("open", None)


def test_a_wood_between_blocks_sight_but_not_the_wood_the_target_stands_in() -> None:
    across = line_of_sight(FIELD, Point(x=30, y=40), Point(x=90, y=40))
    assert across.blocked_by == ("wood",) and not across.clear and across.cm == 60
    into = line_of_sight(FIELD, Point(x=30, y=40), Point(x=60, y=40))
    assert into.clear and into.target_terrain == "woods" and into.target_area == "wood"
    out_of = line_of_sight(FIELD, Point(x=60, y=40), Point(x=30, y=40))
    assert out_of.clear


def test_a_concave_area_is_measured_piece_by_piece() -> None:
    # Along y = 70 the line crosses only the ridge's upright arm (x 100–110).
    assert length_inside(RIDGE.shape, Point(x=70, y=70), Point(x=120, y=70)) == pytest.approx(10)
    legs = path_legs(FIELD, Point(x=70, y=55), Point(x=120, y=55))
    assert [(leg.area, round(leg.cm, 6)) for leg in legs] == [
        (None, 10.0),
        ("ridge", 30.0),
        (None, 10.0),
    ]


def test_a_polygon_centroid() -> None:
    assert centroid(HOUSE.shape) == Point(x=15, y=15)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("45,30", (45.0, 30.0)),
        ("45 30", (45.0, 30.0)),
        ("45.5;30,5", (45.5, 30.5)),
        ("bridge", (100.0, 5.0)),
        ("HOUSE", (15.0, 15.0)),
        ("E 10", (40.0, 40.0)),
        ("N 10", (30.0, 50.0)),
        ("180° 10", (30.0, 30.0)),
        ("90deg 10", (40.0, 40.0)),
        ("toward wood 5", (35.0, 40.0)),
        ("verso wood 500", (60.0, 40.0)),
        ("vers squad 5", (30.0, 35.0)),
    ],
)
def test_destinations(text: str, expected: tuple[float, float]) -> None:
    point = parse_destination(text, FIELD, Point(x=30, y=40), {"squad": Point(x=30, y=0)})
    assert (round(point.x, 6), round(point.y, 6)) == expected


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("500,3", "error.field.off_table"),
        ("W 40", "error.field.off_table"),
        ("nowhere", "error.field.unknown_place"),
        ("toward nowhere 3", "error.field.unknown_place"),
        ("", "error.field.destination"),
        ("QQ 4", "error.field.destination"),
    ],
)
def test_bad_destinations_say_why(text: str, key: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_destination(text, FIELD, Point(x=30, y=40))
    assert caught.value.key == key
    for language in ("it", "en", "fr"):
        assert "{" not in caught.value.localized(language)


def test_a_battlefield_refuses_a_point_off_the_table() -> None:
    with pytest.raises(ValueError, match="off the table"):
        Battlefield(
            width_cm=50, height_cm=50, open_terrain="open", deployment={"squad": Point(x=60, y=10)}
        )


# Points around and on the areas' edges (where the exact tests and the boxes meet).
near = st.floats(min_value=0, max_value=123, allow_nan=False)
edge_points = st.one_of(
    points,
    st.builds(Point, x=near, y=near),
    st.sampled_from([p for a in (HOUSE, RIDGE) for p in a.shape.points]),  # type: ignore[union-attr]
    st.builds(
        Point,
        x=st.sampled_from([9.0, 10.0, 20.0, 21.0, 49.0, 50.0, 70.0, 71.0]),
        y=st.sampled_from([9.0, 10.0, 20.0, 30.0, 50.0, 60.0, 75.0, 76.0]),
    ),
)


@given(edge_points, edge_points)
def test_the_bounding_boxes_change_no_answer(a: Point, b: Point) -> None:
    """contains and length_inside skip a shape whose widened box the point or segment
    misses: the same answers as the exact tests alone (an endless box)."""
    from rules.core import geometry

    fast = [(contains(area.shape, a), length_inside(area.shape, a, b)) for area in FIELD.areas]
    endless = (-math.inf, -math.inf, math.inf, math.inf)
    original = geometry._box
    geometry._box = lambda shape: endless
    try:
        exact = [(contains(area.shape, a), length_inside(area.shape, a, b)) for area in FIELD.areas]
    finally:
        geometry._box = original
    assert fast == exact
