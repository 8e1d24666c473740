"""The commands players give in a w40k4 game (the service builds them in commands.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.w40k4.model import (
    Facing,
    Terrain,
)
from rules.w40k4.state import MAX_TEXT


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_TEXT)


class Next(_Command):
    """Close the current phase (/turn next)."""

    verb: Literal["next"] = "next"


class Move(_Command):
    """Move a unit (/move); kind deepstrike or mishap for deep strikes."""

    verb: Literal["move"] = "move"
    unit: str
    distance: float = Field(0, ge=0, le=48)
    terrain: Terrain | None = None  # None: open ground (or, on a battlefield, measured)
    inside: bool = False
    cover: str | None = None
    kind: Literal["normal", "deepstrike", "mishap"] = "normal"
    target: str | None = None
    to: str | None = Field(None, min_length=1, description="where on the battlefield")


class Fire(_Command):
    """Shoot at an enemy unit (/fire); /odds previews it."""

    verb: Literal["fire"] = "fire"
    unit: str
    target: str
    distance: float | None = Field(None, ge=0, le=240)  # None: measured on the battlefield
    weapon: str | None = None
    facing: Facing = Facing.FRONT
    cover: str | None = None
    models: int | None = Field(None, ge=0, le=100)


class PlaceTemplate(_Command):
    """Count the models under a blast template that has scattered (/template)."""

    verb: Literal["template"] = "template"
    unit: str
    target: str
    models: int = Field(ge=0, le=100)
    partial: int = Field(0, ge=0, le=100)
    facing: Facing = Facing.FRONT


class Assault(_Command):
    """Assault an enemy unit (/assault)."""

    verb: Literal["assault"] = "assault"
    unit: str
    target: str
    distance: float | None = Field(None, ge=0, le=48)  # None: measured on the battlefield
    terrain: Terrain | None = None


class Combat(_Command):
    """Resolve the combat a unit is locked in (/combat)."""

    verb: Literal["combat"] = "combat"
    unit: str


class Morale(_Command):
    """Take the morale check or regroup test a unit owes (/morale)."""

    verb: Literal["morale"] = "morale"
    unit: str


class Test(_Command):
    """A free Leadership test (/test), e.g. for a special rule or a referee's ruling."""

    verb: Literal["test"] = "test"
    unit: str
    modifier: int = Field(0, ge=-10, le=10)


Command = Annotated[
    Next | Move | Fire | PlaceTemplate | Assault | Combat | Morale | Test,
    Field(discriminator="verb"),
]
