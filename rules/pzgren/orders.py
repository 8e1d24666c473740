"""The commands players give in a pzgren game (``commands.py`` builds them from a verb and
its options)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.pzgren.state import (
    MAX_FIRERS,
    MAX_TEXT,
)


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_TEXT)


class Next(_Command):
    """Pass the activation (/turn next)."""

    verb: Literal["next"] = "next"


class Move(_Command):
    """Move a unit to a hex (/move unit:… hex:q,r)."""

    verb: Literal["move"] = "move"
    unit: str
    hex: str


class Hold(_Command):
    """The unit stays put and spends its action (/move unit:… kind:hold)."""

    verb: Literal["hold"] = "hold"
    unit: str


class Fire(_Command):
    """Fire (/fire): direct fire at a hex, or anti-tank fire at a unit."""

    verb: Literal["fire"] = "fire"
    units: tuple[str, ...] = Field(min_length=1, max_length=MAX_FIRERS)
    target: str | None = None
    hex: str | None = None
    mode: Literal["direct", "at"] | None = None
    opportunity: bool = False
    modifiers: tuple[str, ...] = Field((), max_length=8)


class Morale(_Command):
    """Take an owed morale check (/morale unit:…)."""

    verb: Literal["morale"] = "morale"
    unit: str


class Recover(_Command):
    """Rally a disrupted or demoralized unit (/recover unit:…; not in the seed)."""

    verb: Literal["recover"] = "recover"
    unit: str


class Step(_Command):
    """Choose the unit that takes one owed step loss (/step unit:…)."""

    verb: Literal["step"] = "step"
    unit: str


Command = Annotated[
    Next | Move | Hold | Fire | Morale | Recover | Step, Field(discriminator="verb")
]
