"""The w40k4 game state: units, owed tests and templates, the whole game document."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.battlefield import Battlefield, Overlay, Point
from rules.core.ending import VictoryRecord
from rules.core.errors import UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.words import LocalizedName, LocalizedTitle
from rules.w40k4.model import (
    Phase,
)
from rules.w40k4.scenario import Weapon

MAX_TEXT = 80


PHASES = (Phase.MOVEMENT, Phase.SHOOTING, Phase.ASSAULT)


class StateModel(BaseModel):
    """Base of the state models: unknown fields refused, assignment unchecked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class UnitState(StateModel):
    """A unit in play."""

    id: str
    name: LocalizedName
    side: str
    type: str
    models: int
    initial_models: int
    #: The scenario's strength of a unit a campaign mustered below it, carried losses and
    #: all (None: it began whole): shown as its strength out of this.
    full_strength: int | None = None
    wounds_taken: int = 0
    ws: int | None = None
    bs: int | None = None
    s: int | None = None
    t: int | None = None
    w: int = 1
    i: int | None = None
    a: int | None = None
    ld: int | None = None
    sv: int | None = None
    invulnerable: int | None = None
    weapons: dict[str, int] = Field(default_factory=dict)
    weapon_order: list[str] = Field(default_factory=list)
    destroyed_weapons: list[str] = Field(default_factory=list)
    close_combat_weapon: bool = True
    move: int = 6
    assault: int = 6
    deep_strike: bool = False
    vehicle: bool = False
    walker: bool = False
    fast: bool = False
    armour: dict[str, int] = Field(default_factory=dict)
    open_topped: bool = False
    squadron: bool = False
    guns: int = 0
    location: Literal["table", "reserve", "arriving"] = "table"
    cover: str | None = None
    statuses: list[str] = Field(default_factory=list)
    timed: dict[str, int] = Field(default_factory=dict)
    # what the unit did in its current (or last) player turn
    moved: bool = False
    moved_inches: float = 0
    speed: str | None = None
    entered: bool = False
    deep_struck: bool = False
    mishap_rolled: bool = False
    fired: bool = False
    fired_types: list[str] = Field(default_factory=list)
    fired_at: str | None = None
    assaulted: bool = False
    charged: bool = False
    # the current phase
    phase_start: int = 0
    phase_losses: int = 0
    locked_with: list[str] = Field(default_factory=list)
    # where the unit stands, in inches, when the game has a battlefield (None: off the table)
    at: Point | None = None

    @property
    def alive(self) -> bool:
        """Whether the unit is still in the game (on the table or off it)."""
        return self.models > 0 and "destroyed" not in self.statuses

    @property
    def on_table(self) -> bool:
        """Alive and on the table."""
        return self.alive and self.location == "table"

    def has(self, status: str) -> bool:
        """Whether the unit carries a status."""
        return status in self.statuses

    def add(self, status: str) -> None:
        """Add a status once."""
        if status not in self.statuses:
            self.statuses.append(status)

    def drop(self, status: str) -> None:
        """Remove a status."""
        self.statuses = [s for s in self.statuses if s != status]


class PendingTest(StateModel):
    """A morale check or regroup test owed by a unit."""

    unit: str
    reason: Literal["losses", "combat", "regroup"]
    modifier: int = 0
    winners: list[str] = Field(default_factory=list)


class PendingTemplate(StateModel):
    """A blast template that has scattered: the players count the models under it."""

    id: str
    unit: str
    weapon: str
    landed: str


class LastAction(StateModel):
    """The last action the map shows: a caption (catalogue key) and its overlays."""

    key: str
    params: dict[str, str | int | float] = Field(default_factory=dict)
    overlays: list[Overlay] = Field(default_factory=list)


class W40kState(StateModel):
    """The whole game document of a w40k4 game (stored as JSON by ``db/``)."""

    ruleset: Literal["w40k4"] = "w40k4"
    scenario_id: str
    #: The scenario's title, in every language it gives (read in the reader's).
    title: LocalizedTitle
    turn: int = 1
    max_turns: int = 6
    first_side: str
    active: str
    phase: Phase = Phase.MOVEMENT
    closing: bool = False
    ended: bool = False
    #: Side id → name: the scenario's, in every language it gives (read in the reader's).
    sides: dict[str, LocalizedName]
    units: dict[str, UnitState]
    order: list[str] = Field(default_factory=list, description="unit ids in scenario order")
    weapons: dict[str, Weapon]
    pending: list[PendingTest] = Field(default_factory=list)
    templates: list[PendingTemplate] = Field(default_factory=list)
    resolved_combats: list[str] = Field(default_factory=list)
    counter: int = 0
    # the table the bot measures on (None: players type distances and terrain)
    battlefield: Battlefield | None = None
    last: LastAction | None = None
    # Added with issue 25 (format 4): the victory conditions, and the result once over.
    victory: VictoryRecord = Field(default_factory=VictoryRecord)

    def unit(self, unit_id: str) -> UnitState:
        """A unit by id."""
        try:
            return self.units[unit_id]
        except KeyError:
            raise UnknownName("error.w40k4.unknown_unit", name=unit_id[:MAX_TEXT]) from None

    def ordered(self) -> list[UnitState]:
        """The units in the scenario's order (the stored document sorts its keys)."""
        return [self.units[u] for u in self.order if u in self.units]

    def other_side(self, side: str) -> str:
        """The opponent of ``side``."""
        return next(s for s in self.sides if s != side)

    @property
    def player_turn(self) -> int:
        """0, 1, 2, … : the index of the current player turn in the game."""
        return (self.turn - 1) * 2 + (0 if self.active == self.first_side else 1)


Applied = CoreApplied[W40kState]
