"""Reading the manovra seed's result cells into typed effects.

Cells stay verbatim in the table files; the phrase vocabulary in ``data/vocabulary.yaml``
says what each phrase means. Parsing happens once, when the tables load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.tables import Column, Row, Table
from rules.core.yamlio import load_yaml

EffectKindName = Literal[
    "nothing",
    "casualties",
    "crew_safe",
    "test",
    "status",
    "movement",
    "building",
    "killed_unless_cover",
    "killed",
    "location",
]


@dataclass(frozen=True, slots=True)
class CellEffect:
    """One meaning of a cell: e.g. ``casualties`` × 2, ``test`` CT, ``status`` immobilised."""

    kind: EffectKindName
    key: str | None = None
    amount: int | None = None
    all: bool = False
    saved_by: str | None = None


class _EffectTemplate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: EffectKindName
    key: str | None = None
    amount: str | int | None = None
    all: bool = False
    saved_by: Literal["light", "medium", "heavy"] | None = None


class _Phrase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    pattern: str
    only: tuple[str, ...] = ()
    effects: tuple[_EffectTemplate, ...] = Field(min_length=1)


class _Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    phrases: tuple[_Phrase, ...]


@cache
def _vocabulary() -> tuple[
    tuple[re.Pattern[str], frozenset[str], tuple[_EffectTemplate, ...]], ...
]:
    text = (resources.files("rules.manovra") / "data" / "vocabulary.yaml").read_text("utf-8")
    vocabulary = _Vocabulary.model_validate(load_yaml(text))
    return tuple(
        (re.compile(phrase.pattern, re.IGNORECASE), frozenset(phrase.only), phrase.effects)
        for phrase in vocabulary.phrases
    )


def _normalise(part: str) -> str:
    return re.sub(r"\s+", " ", part.strip())


def parse_phrase(part: str, scope: str) -> tuple[CellEffect, ...]:
    """The effects of one ``+``-separated part of a cell; ``scope`` is ``table.column``."""
    text = _normalise(part)
    scoped: list[tuple[re.Match[str], tuple[_EffectTemplate, ...]]] = []
    general: list[tuple[re.Match[str], tuple[_EffectTemplate, ...]]] = []
    for pattern, only, templates in _vocabulary():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        if only and scope in only:
            scoped.append((match, templates))
        elif not only:
            general.append((match, templates))
    candidates = scoped or general
    if not candidates:
        raise ValueError(f"unknown phrase {text!r}")
    match, templates = candidates[0]
    effects = []
    for template in templates:
        amount: int | None = None
        if isinstance(template.amount, str):
            amount = int(match.expand(template.amount.replace("$", "\\")))
        elif isinstance(template.amount, int):
            amount = template.amount
        effects.append(
            CellEffect(template.kind, template.key, amount, template.all, template.saved_by)
        )
    return tuple(effects)


def parse_effect_cell(table: Table, row: Row, column: Column, text: str) -> tuple[CellEffect, ...]:
    """Parse a whole result cell (parts joined by ``+``) into effects; ValueError if unknown."""
    scope = f"{table.id}.{column.key}"
    effects: list[CellEffect] = []
    for part in text.split("+"):
        if not part.strip():
            raise ValueError(f"empty part in {text!r}")
        effects.extend(parse_phrase(part, scope))
    meaningful = [effect for effect in effects if effect.kind != "nothing"]
    return tuple(meaningful)


def summarise(effects: tuple[CellEffect, ...]) -> dict[str, Any]:
    """A small dict view of effects (tests and debugging)."""
    return {
        "casualties": sum(e.amount or 0 for e in effects if e.kind == "casualties"),
        "all_dead": any(e.all for e in effects if e.kind == "casualties"),
        "tests": [e.key for e in effects if e.kind == "test"],
        "statuses": [e.key for e in effects if e.kind == "status"],
    }
