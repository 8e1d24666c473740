"""The commands players give (one pydantic model per verb)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.manovra.model import MoveRate
from rules.manovra.procedures import checks, ground
from rules.manovra.state import MAX_TEXT


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_TEXT)


class Next(_Command):
    """Advance the turn sequence (/turn next)."""

    verb: Literal["next"] = "next"


class Declare(_Command):
    """Declare the manoeuvre of a platoon or battery (/manoeuvre declare)."""

    verb: Literal["declare"] = "declare"
    platoon: str


class PassToken(_Command):
    """Hand over a manoeuvre token instead of declaring (/manoeuvre pass)."""

    verb: Literal["pass"] = "pass"


class RequestFire(_Command):
    """Request indirect fire at step 2 (/callarty)."""

    verb: Literal["callarty"] = "callarty"
    unit: str
    battery: str
    target: str = Field(min_length=1, description="where the IF marker goes (a description)")
    distance_cm: float = Field(ge=0, le=10_000, description="to the unit relaying the request")
    link: checks.Link = checks.Link.STESSO_PLOTONE
    line_of_sight: Literal["diretta", "interrotta"] = "diretta"
    both_entrenched: bool = False


class Move(_Command):
    """Move a unit (/move): its last leg's terrain becomes the unit's terrain.

    On a battlefield ``to`` names the destination and the bot measures the legs; without
    one the player gives ``terrain`` and ``distance_cm`` (and ``via``).
    """

    verb: Literal["move"] = "move"
    unit: str
    terrain: str | None = None
    distance_cm: float | None = Field(None, gt=0, le=1000)
    to: str | None = Field(None, min_length=1, description="the destination on the battlefield")
    kind: MoveRate = MoveRate.TATTICO
    via: tuple[ground.Leg, ...] = Field(default=(), max_length=10)
    conceal: bool = False


class Fire(_Command):
    """Fire at a unit (/fire) with all the unit's weapons, or the one ``weapon`` named.

    The complex actions of seed line 10 are options: ``move_*`` moves (Breve) then fires, or
    fires then moves with ``fire_first``; ``conceal`` fires then conceals (within a Cauto
    move); a transport ``hook``s or ``unhook``s a gun, ``load``s or ``unload``s infantry.
    """

    verb: Literal["fire"] = "fire"
    unit: str
    target: str
    distance_cm: float | None = Field(
        None, ge=0, le=10_000, description="measured by the bot on a battlefield"
    )
    weapon: str | None = None
    ammo: Literal["AP", "HE"] | None = None
    facing: Literal["front", "side", "rear"] = "front"
    impact: Literal["lt75", "gt75"] = "lt75"
    move_terrain: str | None = None
    move_cm: float | None = Field(None, gt=0, le=1000)
    move_to: str | None = Field(None, min_length=1, description="the short move's destination")
    models_touched: int = Field(1, ge=1, le=20)
    chosen_location: str | None = None
    fire_first: bool = False
    conceal: bool = False
    hook: str | None = Field(None, min_length=1, description="the gun a transport hooks")
    unhook: bool = False
    load: str | None = Field(None, min_length=1, description="the infantry a transport loads")
    unload: bool = False


class Embark(_Command):
    """Imbarcarsi: infantry boards a transport that stays still (/embark)."""

    verb: Literal["embark"] = "embark"
    unit: str
    vehicle: str


class Disembark(_Command):
    """Sbarcare: infantry gets off its transport, moving Breve (Tattico if it stayed still)."""

    verb: Literal["disembark"] = "disembark"
    unit: str
    to: str | None = Field(None, min_length=1, description="where it goes, on a battlefield")
    terrain: str | None = None
    distance_cm: float | None = Field(None, gt=0, le=1000)


class Hook(_Command):
    """Agganciare: a transport hooks the gun it stands against (/hook)."""

    verb: Literal["hook"] = "hook"
    unit: str
    gun: str


class Unhook(_Command):
    """Sganciare: a stationary transport unhooks the gun it tows (/unhook)."""

    verb: Literal["unhook"] = "unhook"
    unit: str


class Hold(_Command):
    """Appostarsi: the unit stays where it is (/move hold)."""

    verb: Literal["hold"] = "hold"
    unit: str


class TakeTest(_Command):
    """Roll a test (/test, /morale): an owed one if pending, otherwise a free one."""

    verb: Literal["test"] = "test"
    unit: str
    kind: checks.TestKind
    opponent: str | None = None


class RecoverPanic(_Command):
    """Recupero panico: a CT per commander (/morale recover)."""

    verb: Literal["recover"] = "recover"
    unit: str


class Assault(_Command):
    """Assault an enemy unit (/assault)."""

    verb: Literal["assault"] = "assault"
    unit: str
    target: str
    weapon: str | None = None
    distance_cm: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="the approach into base contact (0: already in contact; measured on a "
        "battlefield)",
    )
    terrain: str | None = Field(None, description="the approach's terrain (default: the target's)")


class ExecuteFire(_Command):
    """Execute an IF marker at step 4."""

    verb: Literal["execute"] = "execute"
    marker: str


class Fragments(_Command):
    """HE fragments of an executed IF marker (or a direct HE burst) on a unit in the blast."""

    verb: Literal["fragments"] = "fragments"
    target: str
    marker: str | None = None
    calibre_mm: int | None = Field(None, ge=1, le=1000)
    ad: int | None = Field(None, ge=0, le=3)


Command = Annotated[
    Next
    | Declare
    | PassToken
    | RequestFire
    | Move
    | Fire
    | Embark
    | Disembark
    | Hook
    | Unhook
    | Hold
    | TakeTest
    | RecoverPanic
    | Assault
    | ExecuteFire
    | Fragments,
    Field(discriminator="verb"),
]
