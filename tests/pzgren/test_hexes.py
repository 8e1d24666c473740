"""Hex geometry: parsing, distances, adjacency and the entry direction of an attack."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.core.errors import InvalidInput
from rules.pzgren.field import (
    DIRECTIONS,
    Hex,
    adjacent,
    directions_adjacent,
    distance,
    entry_direction,
    parse_hex,
)

coords = st.integers(min_value=-50, max_value=50)
hexes = st.builds(Hex, coords, coords)


@pytest.mark.parametrize("text", ["3,4", " 3 , 4 ", "3 4", "3;4", "3:4"])
def test_parse(text):
    assert parse_hex(text) == Hex(3, 4)
    assert str(parse_hex(text)) == "3,4"


@pytest.mark.parametrize("text", ["", "3", "a,b", "3,4,5", "1234,1"])
def test_parse_refuses(text):
    with pytest.raises(InvalidInput) as caught:
        parse_hex(text)
    assert caught.value.key == "error.pzgren.bad_hex"


def test_distances():
    origin = Hex(0, 0)
    assert distance(origin, origin) == 0
    assert all(distance(origin, n) == 1 for n in origin.neighbours())
    assert distance(Hex(2, 3), Hex(4, 3)) == 2
    assert distance(Hex(1, 3), Hex(6, 3)) == 5
    assert distance(Hex(1, 3), Hex(6, 4)) == 6
    assert distance(Hex(0, 0), Hex(3, -3)) == 3
    assert adjacent(Hex(6, 3), Hex(5, 4)) and not adjacent(Hex(6, 3), Hex(6, 3))
    assert not adjacent(Hex(6, 3), Hex(4, 3))


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a, b, c):
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(hexes, hexes)
def test_entry_direction_steps_towards_the_firer(target, firer):
    if target == firer:
        with pytest.raises(InvalidInput):
            entry_direction(target, firer)
        return
    direction = entry_direction(target, firer)
    first = target.neighbour(direction)
    assert distance(first, firer) == distance(target, firer) - 1


def test_entry_direction_of_neighbours_is_their_direction():
    target = Hex(5, 5)
    for index, (dq, dr) in enumerate(DIRECTIONS):
        assert entry_direction(target, Hex(5 + dq, 5 + dr)) == index


def test_directions_adjacent():
    assert directions_adjacent(0, 0) and directions_adjacent(0, 1) and directions_adjacent(0, 5)
    assert not directions_adjacent(0, 2) and not directions_adjacent(0, 3)
    assert not directions_adjacent(1, 5) and directions_adjacent(5, 4)
    # consecutive directions are neighbouring hexes of the centre, the others are not
    centre = Hex(0, 0)
    for a in range(6):
        for b in range(6):
            near = distance(centre.neighbour(a), centre.neighbour(b)) <= 1
            assert directions_adjacent(a, b) == near
