"""The commands players give in a linea_gotica game (``commands.py`` builds them from a
verb and its options)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.state import MAX_TEXT


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_TEXT)


class Next(_Command):
    """Advance the turn sequence (/turn next); the initiative winner chooses the order."""

    verb: Literal["next"] = "next"
    order: Literal["first", "second"] | None = None


MoveKind = Literal["cauto", "normale", "corsa", "strada", "fuori_strada", "sali", "scendi"]


class Move(_Command):
    """Move a unit (/move)."""

    verb: Literal["move"] = "move"
    unit: str
    kind: MoveKind = "normale"
    distance_cm: float = Field(0, ge=0, le=1000)
    mods: tuple[str, ...] = Field((), max_length=11)
    cover: Cover | None = None
    place: str | None = None
    hidden: bool | None = None
    behind: bool = False
    vehicle: str | None = None
    minefield: str | None = None
    models: int = Field(0, ge=0, le=30, description="other figures within 4 cm of a mine")
    to: str | None = Field(None, max_length=MAX_TEXT, description="a destination on the table")


class Fire(_Command):
    """Fire (/fire): normal, opportunity or covering fire, or anti-aircraft fire."""

    verb: Literal["fire"] = "fire"
    unit: str
    target: str
    distance_cm: float = Field(0, ge=0, le=10_000)
    weapon: str | None = None
    mode: Literal["singolo", "area"] = "singolo"
    kind: Literal["normale", "copertura"] = "normale"
    models: int | None = Field(None, ge=1, le=30, description="targets in the area / HE zone")
    models_long: int = Field(0, ge=0, le=30, description="targets in the long HE zone")
    man: int | None = Field(None, ge=1, le=100, description="the enemy soldier aimed at")
    shooters: int | None = Field(None, ge=1, le=30)
    facing: Literal["fronte", "fianco", "retro"] = "fronte"
    modifier: int = Field(0, ge=-6, le=6)


TestKind = Literal[
    "azione",
    "mirare",
    "piazzare",
    "ricaricare",
    "medicare",
    "scavare",
    "disinnescare",
    "osservare",
    "mine",
    "comando",
    "fumo",
]


class TakeTest(_Command):
    """An action, observation, mine spotting, command check or smoke (/test)."""

    verb: Literal["test"] = "test"
    unit: str
    kind: TestKind = "azione"
    difficulty: Literal["molto_facile", "facile", "normale", "difficile"] = "normale"
    target: str | None = None
    man: int | None = Field(None, ge=1, le=100)
    distance_cm: float | None = Field(None, ge=0, le=10_000)
    minefield: str | None = None
    weapon: str | None = None
    task: str | None = None
    turns: int = Field(1, ge=1, le=10)
    source: Literal["bomba_mano", "lanciafumogeni_veicolo"] = "bomba_mano"
    place: str | None = None


class MoraleTest(_Command):
    """Morale tests (/morale): the owed ones, or those a trigger calls for."""

    verb: Literal["morale"] = "morale"
    unit: str
    reason: str | None = None
    enemy_near: bool = False
    air: bool = False
    isolated: bool = Field(False, description="a combat vehicle the referee deems isolated")


class CallSupport(_Command):
    """Contact artillery, mortars or an aircraft (/callarty)."""

    verb: Literal["callarty"] = "callarty"
    unit: str
    battery: str
    target: str = Field(min_length=1)


class Execute(_Command):
    """Fire a mission's due shot, or give the observer's order (/execute)."""

    verb: Literal["execute"] = "execute"
    marker: str
    order: Literal["tiro", "effetto", "aggiusta", "fine", "mitraglia"] = "tiro"
    visible: bool = True
    ammo: Literal["he", "fumo"] = "he"
    where: str | None = None


class Fragments(_Command):
    """Resolve an HE blast on the soldiers or a vehicle inside it (/fragments)."""

    verb: Literal["fragments"] = "fragments"
    target: str
    marker: str
    ring: Literal["breve", "lunga"] = "breve"
    models: int | None = Field(None, ge=1, le=30)


Command = Annotated[
    Next | Move | Fire | TakeTest | MoraleTest | CallSupport | Execute | Fragments,
    Field(discriminator="verb"),
]
