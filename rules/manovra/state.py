"""The manovra game state: units, platoons, owed tests, IF markers, the turn step."""

from __future__ import annotations

import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.battlefield import Battlefield, Overlay, Point
from rules.core.ending import VictoryRecord
from rules.core.errors import UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.words import LocalizedName, LocalizedTitle
from rules.manovra.scenario import Weapon, unit_types

MAX_TEXT = 80


class TurnStep(enum.IntEnum):
    """The five steps of TURNO DI GIOCO."""

    TOKENS = 1
    REQUESTS = 2
    MANOEUVRE = 3
    INDIRECT = 4
    END = 5


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class UnitState(_State):
    """A unit in play."""

    id: str
    name: LocalizedName
    side: str
    platoon: str
    type: str
    ad: int
    cv: int
    models: int
    initial_models: int
    #: The scenario's strength of a unit a campaign mustered below it, carried losses and
    #: all (None: it began whole): shown as its strength out of this.
    full_strength: int | None = None
    tactical_cm: float
    weapons: dict[str, int]
    armour: dict[str, dict[str, int]] = Field(default_factory=dict)
    turret: bool = True
    tracked: bool = True
    open_topped: bool = False
    radio: bool = False
    terrain: str = "piano_scoperto"
    # Where the unit stands when the scenario has a battlefield (None: off the table, or a
    # game without one, where players state distances and terrain).
    position: Point | None = None
    statuses: list[str] = Field(default_factory=list)
    # A transport vehicle: the infantry models it carries (it also tows one gun); 0 for others.
    carries: int = 0
    # The transport this unit rides in (infantry) or is hooked to (a gun): it goes where the
    # transport goes and acts only to get off (infantry) or hold.
    aboard: str | None = None
    acted: bool = False
    moved: bool = False
    fired: bool = False

    @property
    def kind(self) -> dict[str, Any]:
        """The unit type's table columns."""
        return unit_types()[self.type]

    @property
    def alive(self) -> bool:
        """Whether the unit can still act or be targeted."""
        return self.models > 0 and "destroyed" not in self.statuses

    @property
    def crew_losses(self) -> int:
        """Dead crew members (only meaningful for crews)."""
        return self.initial_models - self.models

    def has(self, status: str) -> bool:
        """Whether the unit carries a status."""
        return status in self.statuses

    def add(self, status: str) -> None:
        """Add a status once."""
        if status not in self.statuses:
            self.statuses.append(status)


class PlatoonState(_State):
    """A platoon or battery."""

    id: str
    name: LocalizedName
    side: str
    kind: Literal["platoon", "battery"]
    off_table: bool
    units: list[str]


class PendingTest(_State):
    """A roll owed by a unit after a resolution (CT after losses, SF after a hit, ET)."""

    unit: str
    kind: Literal["CT", "SF", "ET"]
    reason: str = ""


class FireMarker(_State):
    """An IF marker: indirect fire requested at step 2, executed at step 4."""

    id: str
    battery: str
    requested_by: str
    target: str
    executed: bool = False
    shots: int = 0
    fragment_hits: list[str] = Field(
        default_factory=list, description="units already resolved in this marker's blasts"
    )
    aim: Point | None = Field(None, description="the aimed point on a battlefield")
    landings: list[Point] = Field(default_factory=list, description="where each round burst")


class Burst(_State):
    """HE rounds of a direct fire (a miss, a mortar or a grenade) whose fragments are owed.

    The firer's side resolves SCHEGGE MUNIZIONI HE for each unit the players find within a
    blast (``/fragments marker:<id> target:…``), each unit at most once per round fired.
    """

    id: str
    unit: str
    side: str
    calibre_mm: int
    ad: int
    shots: int = 1
    fragment_hits: list[str] = Field(default_factory=list)


class LastAction(_State):
    """What the map shows of the latest fire: lines, arrows and blasts, and a caption."""

    overlays: list[Overlay] = Field(default_factory=list)
    caption: str = ""  # a catalogue key, localized when drawn
    params: dict[str, str | int | float] = Field(default_factory=dict)


class ManovraState(_State):
    """The whole game document of a manovra game (stored as JSON by ``db/``)."""

    ruleset: Literal["manovra"] = "manovra"
    scenario_id: str
    #: The scenario's title, in every language it gives (read in the reader's).
    title: LocalizedTitle
    turn: int = 1
    max_turns: int = 8
    step: TurnStep = TurnStep.TOKENS
    ended: bool = False
    first_side: str
    #: Side id → name: the scenario's, in every language it gives (read in the reader's).
    sides: dict[str, LocalizedName]
    tokens: dict[str, int] = Field(default_factory=dict)
    declarations: dict[str, str] = Field(default_factory=dict)
    manoeuvred: list[str] = Field(default_factory=list)
    queue: list[str] = Field(default_factory=list)
    pending: list[PendingTest] = Field(default_factory=list)
    markers: list[FireMarker] = Field(default_factory=list)
    marker_order: list[str] = Field(default_factory=list)
    # Added with issue 11; the defaults keep older documents loading.
    requests_done: list[str] = Field(
        default_factory=list, description="sides that have finished their step-2 requests"
    )
    requested: list[str] = Field(
        default_factory=list, description="units that have relayed a request this turn"
    )
    bursts: list[Burst] = Field(default_factory=list)
    # Added with issue 16 (format 4): the table the bot measures on, and the last action drawn.
    battlefield: Battlefield | None = None
    last_action: LastAction | None = None
    # Added with issue 25 (format 5): the victory conditions, and the result once over.
    victory: VictoryRecord = Field(default_factory=VictoryRecord)
    platoons: dict[str, PlatoonState]
    units: dict[str, UnitState]
    weapons: dict[str, Weapon]

    def unit(self, unit_id: str) -> UnitState:
        """A unit by id, or a clear error listing none of the internals."""
        try:
            return self.units[unit_id]
        except KeyError:
            raise UnknownName("error.manovra.unknown_unit", name=unit_id[:MAX_TEXT]) from None

    def platoon(self, platoon_id: str) -> PlatoonState:
        """A platoon or battery by id."""
        try:
            return self.platoons[platoon_id]
        except KeyError:
            raise UnknownName("error.manovra.unknown_platoon", name=platoon_id[:MAX_TEXT]) from None

    def other_side(self, side: str) -> str:
        """The opponent of ``side``."""
        return next(s for s in self.sides if s != side)


Applied = CoreApplied[ManovraState]
