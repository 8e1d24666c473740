"""Domain vocabulary of manovra shared by its procedures and its game logic."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import lru_cache

from rules.core.dice import Die, parse_die
from rules.core.tables import Column, Row, Table

RULESET_KEY = "manovra"


class RangeBand(enum.StrEnum):
    """Range bands of the seed: gittata utile (D8), efficace (D10), breve (D12); schegge (D10)."""

    UTILE = "utile"
    EFFICACE = "efficace"
    BREVE = "breve"
    SCHEGGE = "schegge"


def band_die(table: Table, band: RangeBand) -> Die:
    """The die a range band rolls, read from the table's heading data."""
    # Read on every path of an odds enumeration: parsed once per table text and band.
    return _die_of(str(table.data["range_dice"][band.value]))


@lru_cache(maxsize=64)  # by die name: a handful
def _die_of(text: str) -> Die:
    return parse_die(text)


class Cover(enum.StrEnum):
    """Riparo: none (allo scoperto), leggero (L), medio (M), pesante (P)."""

    NONE = "scoperto"
    LIGHT = "leggero"
    MEDIUM = "medio"
    HEAVY = "pesante"

    @property
    def rank(self) -> int:
        """0 for none … 3 for heavy."""
        return _COVER_RANK[self]


_COVER_RANK = {Cover.NONE: 0, Cover.LIGHT: 1, Cover.MEDIUM: 2, Cover.HEAVY: 3}
SAVED_BY = {"light": Cover.LIGHT, "medium": Cover.MEDIUM, "heavy": Cover.HEAVY}


def cover_from_cell(text: str) -> Cover:
    """Read the 'Riparo' cell of TIPI DI TERRENO ('-', 'L leggero', 'M medio', 'P pesante')."""
    token = text.strip()
    if token == "-":
        return Cover.NONE
    letter = token[:1].upper()
    for cover in (Cover.LIGHT, Cover.MEDIUM, Cover.HEAVY):
        if cover.value[0].upper() == letter:
            return cover
    raise ValueError(f"unknown cover {text!r}")


class MoveRate(enum.StrEnum):
    """Movement classes of TIPI DI TERRENO and the move kinds of a unit."""

    TATTICO = "tattico"
    BREVE = "breve"
    CAUTO = "cauto"


@dataclass(frozen=True, slots=True)
class TerrainMovement:
    """A movement cell of TIPI DI TERRENO, read.

    ``rate`` is ``None`` when the terrain is impassable; ``road_cm_per_cm`` is set for roads
    ('2 cm ogni 1'); ``obstacle`` is what crossing does to the element (elimina, rovina,
    sposta); ``needs_et`` when an ET test is owed (mines, wire).
    """

    rate: MoveRate | None
    road_cm_per_cm: int | None = None
    obstacle: str | None = None
    needs_et: bool = False

    @property
    def passable(self) -> bool:
        """Whether the unit may enter at all."""
        return self.rate is not None or self.road_cm_per_cm is not None


_ROAD = re.compile(r"^(\d+) cm ogni 1$")
_MOVE = re.compile(r"^(tattico|breve|cauto)\s*(?:/\s*(elimina|rovina|sposta))?\s*(\+\s*ET)?$")


def parse_movement_cell(_table: Table, _row: Row, column: Column, text: str) -> object:
    """Parse a TIPI DI TERRENO cell: cover for 'riparo', a movement class otherwise."""
    token = re.sub(r"\s+", " ", text.strip())
    if column.key == "riparo":
        return cover_from_cell(token)
    if token == "intransitabile":
        return TerrainMovement(None)
    if (road := _ROAD.match(token)) is not None:
        return TerrainMovement(None, road_cm_per_cm=int(road.group(1)))
    if (move := _MOVE.match(token)) is not None:
        return TerrainMovement(
            MoveRate(move.group(1)), None, move.group(2), move.group(3) is not None
        )
    raise ValueError(f"unknown movement class {text!r}")


def parse_int_cell(_table: Table, _row: Row, _column: Column, text: str) -> int | None:
    """A number, or None for '-'."""
    token = text.strip()
    if token == "-":
        return None
    return int(token)


def parse_distance_cell(_table: Table, _row: Row, _column: Column, text: str) -> tuple[int, ...]:
    """An observation distance in cm, possibly split 'a/b' by terrain."""
    return tuple(int(part) for part in text.split("/"))
