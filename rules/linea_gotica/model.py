"""Domain vocabulary of linea_gotica and the readers of its table cells.

Cells stay verbatim in the table files; these parsers turn them into typed values once,
when the tables load, so a cell the rules cannot read fails the load, not a game.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass

from rules.core.tables import Column, Row, Table

RULESET_KEY = "linea_gotica"


class Quality(enum.StrEnum):
    """QUALITA': the rows of the quality table, best first."""

    ELITE = "elite"
    VETERANI = "veterani"
    REGOLARI = "regolari"
    RECLUTE = "reclute"
    MARMAGLIA = "marmaglia"


QUALITY_ORDER: tuple[Quality, ...] = tuple(Quality)


def lower_quality(quality: Quality) -> Quality:
    """One level lower (Marmaglia stays Marmaglia)."""
    index = QUALITY_ORDER.index(quality)
    return QUALITY_ORDER[min(index + 1, len(QUALITY_ORDER) - 1)]


class Level(enum.StrEnum):
    """Difficulty of an action (AZIONI), with NO (impossible) below Difficile."""

    NO = "no"
    DIFFICILE = "difficile"
    NORMALE = "normale"
    FACILE = "facile"
    MOLTO_FACILE = "molto_facile"


LEVEL_BY_TEXT = {
    "NO": Level.NO,
    "Difficile": Level.DIFFICILE,
    "Normale": Level.NORMALE,
    "Facile": Level.FACILE,
    "Molto Facile": Level.MOLTO_FACILE,
}
LADDER: tuple[Level, ...] = (
    Level.NO,
    Level.DIFFICILE,
    Level.NORMALE,
    Level.FACILE,
    Level.MOLTO_FACILE,
)


def shift_level(level: Level, steps: int) -> Level:
    """Move along NO < Difficile < Normale < Facile < Molto Facile (clamped)."""
    index = LADDER.index(level) + steps
    return LADDER[max(0, min(index, len(LADDER) - 1))]


def half_up(value: int) -> int:
    """Half, rounded up ("Tutti gli arrotondamenti sono per eccesso")."""
    return math.ceil(value / 2)


# -- cell readers --------------------------------------------------------------------------

_CM = re.compile(r"^cm\.?\s*(\d+)$")
_CM_SUFFIX = re.compile(r"^(\d+)\s*cm$")


def parse_cm(text: str) -> int | None:
    """'cm. 16', 'cm 5', 'cm120', 'cm.3', '2cm' → cm; 'NO', 'Non consentito', '' → None."""
    token = text.strip()
    token = re.sub(r"\s*\(.*\)$", "", token)
    if token in ("NO", "Non consentito", ""):
        return None
    match = _CM.match(token) or _CM_SUFFIX.match(token)
    if match is None:
        raise ValueError(f"not a distance: {text!r}")
    return int(match.group(1))


def cm_cell(_table: Table, _row: Row, _column: Column, text: str) -> int | None:
    """A distance cell."""
    return parse_cm(text)


def int_cell(_table: Table, _row: Row, _column: Column, text: str) -> int:
    """A plain number."""
    return int(text.strip())


@dataclass(frozen=True, slots=True)
class MoveModifier:
    """A movement modifier cell: a percentage, a whole turn, or impassable."""

    percent: int = 0
    whole_turn: bool = False
    impassable: bool = False


def movement_modifier_cell(_table: Table, _row: Row, _column: Column, text: str) -> MoveModifier:
    """'-25%' | '1 turno' | 'invalidabile' (read as invalicabile)."""
    token = text.strip()
    if token == "1 turno":
        return MoveModifier(whole_turn=True)
    if token == "invalidabile":
        return MoveModifier(impassable=True)
    match = re.fullmatch(r"(-\d+)%", token)
    if match is None:
        raise ValueError(f"not a movement modifier: {text!r}")
    return MoveModifier(percent=int(match.group(1)))


@dataclass(frozen=True, slots=True)
class ChanceModifier:
    """A to-hit or morale modifier: an addition, or a halving."""

    add: int = 0
    halve: bool = False
    choices: tuple[int, ...] = ()


def chance_modifier_cell(_table: Table, _row: Row, column: Column, text: str) -> object:
    """'+1', '+ 1', '-2', '1/2', '+1 o +2 o +3'; other columns stay text."""
    if column.key not in ("modifica", "soglia"):
        return text
    token = text.strip()
    if token == "1/2":
        return ChanceModifier(halve=True)
    parts = [part.replace(" ", "") for part in token.split(" o ")]
    values = []
    for part in parts:
        if re.fullmatch(r"[+-]\d+", part) is None:
            if column.key == "soglia" and re.fullmatch(r"\d(,\d)*", part):
                return ChanceModifier(add=max(int(face) for face in part.split(",")))
            raise ValueError(f"not a modifier: {text!r}")
        values.append(int(part))
    if len(values) > 1:
        return ChanceModifier(choices=tuple(values))
    return ChanceModifier(add=values[0])


def level_cell(_table: Table, _row: Row, _column: Column, text: str) -> Level:
    """'Molto Facile' … 'NO'; also 'Azione Normale'."""
    token = text.strip().removeprefix("Azione ").strip()
    if token not in LEVEL_BY_TEXT:
        raise ValueError(f"not a difficulty: {text!r}")
    return LEVEL_BY_TEXT[token]


@dataclass(frozen=True, slots=True)
class ActionChance:
    """AZIONI: automatic, or quality × numerator / denominator (rounded up)."""

    automatic: bool = False
    numerator: int = 1
    denominator: int = 1

    def chance(self, quality: int) -> int:
        """The chance for a quality value."""
        if self.automatic:
            return 10
        return math.ceil(quality * self.numerator / self.denominator)


def action_chance_cell(_table: Table, _row: Row, _column: Column, text: str) -> ActionChance:
    """'Automatica', '2 x Qualità', 'Qualità', '½ x Qualità'."""
    token = text.strip()
    if token == "Automatica":
        return ActionChance(automatic=True)
    if token == "Qualità":
        return ActionChance()
    match = re.fullmatch(r"(\d|½) x Qualità", token)
    if match is None:
        raise ValueError(f"not an action chance: {text!r}")
    if match.group(1) == "½":
        return ActionChance(numerator=1, denominator=2)
    return ActionChance(numerator=int(match.group(1)))


class Direction(enum.StrEnum):
    """Where a round lands relative to its aim point."""

    NONE = "none"
    LONG = "lungo"
    SHORT = "corto"
    RIGHT = "destra"
    LEFT = "sinistra"


@dataclass(frozen=True, slots=True)
class HeDeviation:
    """A row of the direct-fire HE deviation table."""

    dud: bool
    direction: Direction = Direction.NONE
    percent: int = 0


def he_deviation_cell(_table: Table, _row: Row, _column: Column, text: str) -> HeDeviation:
    """'Lungo 20%' … or the dud row."""
    token = text.strip()
    if "nessun effetto" in token:
        return HeDeviation(dud=True)
    match = re.fullmatch(r"(Lungo|Corto|Destra|Sinistra) (\d+)%", token)
    if match is None:
        raise ValueError(f"not a deviation: {text!r}")
    return HeDeviation(False, Direction(match.group(1).lower()), int(match.group(2)))


@dataclass(frozen=True, slots=True)
class IndirectDeviation:
    """A row of an indirect-fire deviation table: dice per direction, or on target, or lost."""

    on_target: bool = False
    lost: bool = False
    along: Direction = Direction.NONE
    along_dice: int = 0
    across: Direction = Direction.NONE
    across_dice: int = 0


_ALONG = re.compile(r"(\d)d\s*10\s*cm\.?\s*(lungo|corto)")
_ACROSS = re.compile(r"\+\s*(\d)d\s*10\s*a\s+(destra|sinistra)")


def indirect_deviation_cell(_table: Table, _row: Row, column: Column, text: str) -> object:
    """Read the 'effetto' cell of the PRECISO/IMPRECISO tables; 'risultato' stays text."""
    if column.key != "effetto":
        return text
    token = text.strip().rstrip(",").strip()
    if token == "Sul bersaglio":
        return IndirectDeviation(on_target=True)
    if token == "Colpo finito chissadove":
        return IndirectDeviation(lost=True)
    along = _ALONG.search(token)
    if along is None:
        raise ValueError(f"not a deviation: {text!r}")
    across = _ACROSS.search(token)
    rest = _ACROSS.sub("", _ALONG.sub("", token)).strip()
    if rest:
        raise ValueError(f"unread part {rest!r} in {text!r}")
    return IndirectDeviation(
        along=Direction(along.group(2)),
        along_dice=int(along.group(1)),
        across=Direction(across.group(2)) if across else Direction.NONE,
        across_dice=int(across.group(1)) if across else 0,
    )


@dataclass(frozen=True, slots=True)
class WeaponLine:
    """A row of the weapons table, read: shots, target, area in cm, ranges (None = NO)."""

    shots: int
    target: str  # single | area | he | flame
    area_cm: tuple[int, int] | None
    ranges: tuple[int | None, int | None, int | None]


_AREA = re.compile(r"^cm\.?\s*(\d+)x(\d+)$")


def weapon_cell(_table: Table, _row: Row, column: Column, text: str) -> object:
    """Cells of the weapons table, by column."""
    token = text.strip()
    if column.key == "colpi":
        return int(token)
    if column.key == "bersaglio":
        if token.lower() == "singolo":
            return "single"
        if token == "HE":
            return "he"
        if token.lower() == "come fosse he":
            return "flame"
        match = _AREA.match(token)
        if match is None:
            raise ValueError(f"not a target: {text!r}")
        return (int(match.group(1)), int(match.group(2)))
    return parse_cm(token)


def mine_spotting_cell(table: Table, row: Row, column: Column, text: str) -> object:
    """INDIVIDUARE UN CAMPO MINATO: a distance, or a difficulty."""
    if column.key == "entro":
        return parse_cm(text)
    return level_cell(table, row, column, text)


def result_cell(_table: Table, _row: Row, _column: Column, text: str) -> str:
    """Result cells are shown as printed; their meaning is in the row's data."""
    return text
