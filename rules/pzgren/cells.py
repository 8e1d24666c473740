"""Reading the pzgren result cells into typed results, once, when the tables load.

Cells stay verbatim in the table files; ``data/vocabulary.yaml`` says what each cell means.
A cell no pattern matches fails the load, not a game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict

from rules.core.tables import Column, Row, Table
from rules.core.yamlio import load_yaml
from rules.pzgren.model import MoraleState

EffectName = Literal["none", "morale", "steps", "step", "eliminated", "status"]


class _Pattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    pattern: str
    effect: EffectName
    n: str | None = None
    default: int | None = None
    morale: str | None = None
    status: MoraleState | None = None


class _Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    tir_direct: tuple[_Pattern, ...]
    tir_antichars: tuple[_Pattern, ...]
    moral: tuple[_Pattern, ...]


@cache
def vocabulary() -> dict[str, tuple[tuple[re.Pattern[str], _Pattern], ...]]:
    """Compiled patterns by table id."""
    text = (resources.files("rules.pzgren") / "data" / "vocabulary.yaml").read_text("utf-8")
    model = _Vocabulary.model_validate(load_yaml(text))
    return {
        name: tuple((re.compile(p.pattern, re.IGNORECASE), p) for p in getattr(model, name))
        for name in ("tir_direct", "tir_antichars", "moral")
    }


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


def _match(table_id: str, text: str) -> tuple[re.Match[str], _Pattern]:
    cleaned = _normalise(text)
    for pattern, spec in vocabulary()[table_id]:
        found = pattern.fullmatch(cleaned)
        if found is not None:
            return found, spec
    raise ValueError(f"unknown cell {cleaned!r}")


def _group_int(found: re.Match[str], template: str | None, default: int | None) -> int:
    if template is None:
        return default or 0
    value = found.expand(template.replace("$", "\\"))
    if value == "":
        if default is None:
            raise ValueError(f"no value for {template!r}")
        return default
    return int(value)


@dataclass(frozen=True, slots=True)
class FireResult:
    """A direct-fire cell: nothing, a morale check with ``n`` added, or ``n`` step losses."""

    kind: Literal["none", "morale", "steps"]
    n: int = 0

    @property
    def code(self) -> str:
        """The cell as the seed writes it."""
        if self.kind == "none":
            return "-"
        if self.kind == "morale":
            return "M" if self.n == 0 else f"M{self.n}"
        return "X" if self.n == 1 else f"{self.n}X"


@dataclass(frozen=True, slots=True)
class AntiTankResult:
    """An anti-tank cell: nothing, one step (and a morale check if it survives), eliminated."""

    kind: Literal["none", "step", "eliminated"]
    morale: int | None = None


@dataclass(frozen=True, slots=True)
class MoraleResult:
    """A morale cell: the unit's state afterwards (None: unchanged) and steps it loses."""

    status: MoraleState | None = None
    steps: int = 0


def parse_direct_cell(_table: Table, _row: Row, _column: Column, text: str) -> FireResult:
    """A TABLE DE TIR DIRECT cell: '-', 'M', 'M1', 'M2', 'X', '2X', '3X'."""
    found, spec = _match("tir_direct", text)
    if spec.effect == "none":
        return FireResult("none")
    n = _group_int(found, spec.n, spec.default)
    if spec.effect == "morale":
        return FireResult("morale", n)
    if spec.effect == "steps" and n >= 1:
        return FireResult("steps", n)
    raise ValueError(f"bad direct-fire cell {text!r}")


def parse_at_cell(_table: Table, _row: Row, _column: Column, text: str) -> AntiTankResult:
    """A TABLE DE TIR ANTI-CHARS cell."""
    found, spec = _match("tir_antichars", text)
    if spec.effect == "none":
        return AntiTankResult("none")
    if spec.effect == "step":
        return AntiTankResult("step", _group_int(found, spec.morale, None))
    if spec.effect == "eliminated":
        return AntiTankResult("eliminated")
    raise ValueError(f"bad anti-tank cell {text!r}")


def parse_morale_cell(_table: Table, _row: Row, _column: Column, text: str) -> MoraleResult:
    """A morale cell (not in the seed): '-', a state, '<n> pas', parts joined by '+'."""
    status: MoraleState | None = None
    steps = 0
    for part in text.split("+"):
        found, spec = _match("moral", part)
        if spec.effect == "status":
            status = spec.status
        elif spec.effect == "steps":
            steps += _group_int(found, spec.n, spec.default)
        elif spec.effect != "none":
            raise ValueError(f"bad morale cell {text!r}")
    return MoraleResult(status, steps)


def parse_modifier_cell(_table: Table, _row: Row, column: Column, text: str) -> int | str:
    """A modifier list: the signed value ('-2', '+1') or the condition's text."""
    if column.key == "valeur":
        return int(text.strip())
    return text
