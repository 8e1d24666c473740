"""Hex geometry: axial coordinates ``q,r``, distances, adjacency and lines of fire.

Positions are axial hex coordinates (the third cube coordinate is ``s = -q - r``). The
distance between two hexes is the number of hex steps between them; two hexes are adjacent
at distance 1. The *entry direction* of an attack is the neighbour of the target hex through
which the line from the target towards the firer leaves it: the anti-tank table's +2 for
attacks "à travers des hexagones non adjacents" compares these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.core.errors import InvalidInput

# The six neighbours, counter-clockwise from "east": consecutive entries are adjacent hexes.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
MAX_COORDINATE = 999
_HEX = re.compile(r"^\s*(-?\d{1,3})\s*[,;: ]\s*(-?\d{1,3})\s*$")


@dataclass(frozen=True, slots=True, order=True)
class Hex:
    """An axial hex coordinate."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate."""
        return -self.q - self.r

    def __str__(self) -> str:
        return f"{self.q},{self.r}"

    def neighbour(self, direction: int) -> Hex:
        """The neighbouring hex in one of the six directions (0..5)."""
        dq, dr = DIRECTIONS[direction % 6]
        return Hex(self.q + dq, self.r + dr)

    def neighbours(self) -> tuple[Hex, ...]:
        """The six neighbours, in direction order."""
        return tuple(self.neighbour(index) for index in range(6))


def parse_hex(text: str) -> Hex:
    """Parse ``"3,4"`` (also ``"3 4"``, ``"3;4"``) into a :class:`Hex`."""
    match = _HEX.match(str(text))
    if match is None:
        raise InvalidInput("error.pzgren.bad_hex", text=str(text)[:20])
    return Hex(int(match.group(1)), int(match.group(2)))


def distance(a: Hex, b: Hex) -> int:
    """The number of hex steps from ``a`` to ``b``."""
    dq, dr = a.q - b.q, a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def adjacent(a: Hex, b: Hex) -> bool:
    """Whether ``a`` and ``b`` are neighbours (distance 1; a hex is not adjacent to itself)."""
    return distance(a, b) == 1


def _cube_round(q: float, r: float) -> Hex:
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return Hex(int(rq), int(rr))


def entry_direction(target: Hex, firer: Hex) -> int:
    """The direction (0..5) of the neighbour of ``target`` on the line towards ``firer``.

    A line along a hex spine is nudged consistently (the usual epsilon), so the answer is
    deterministic. ``target`` and ``firer`` must differ.
    """
    steps = distance(target, firer)
    if steps == 0:
        raise InvalidInput("error.pzgren.same_hex")
    fraction = 1.0 / steps
    q = target.q + 1e-6 + (firer.q - target.q) * fraction
    r = target.r + 2e-6 + (firer.r - target.r) * fraction
    first = _cube_round(q, r)
    return DIRECTIONS.index((first.q - target.q, first.r - target.r))


def directions_adjacent(a: int, b: int) -> bool:
    """Whether the neighbours in directions ``a`` and ``b`` are the same or adjacent hexes."""
    difference = abs(a - b) % 6
    return min(difference, 6 - difference) <= 1
