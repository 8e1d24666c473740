"""The pzgren game state (stored as JSON by ``db/``): the map's hexes, the units, the step
losses and morale checks owed, and the victory record."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.ending import VictoryRecord
from rules.core.errors import UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.words import LocalizedName, LocalizedTitle
from rules.pzgren.field import Hex, parse_hex
from rules.pzgren.model import Armour, Category, MoraleState
from rules.pzgren.scenario import unit_types

MAX_TEXT = 80
MAX_FIRERS = 6
MORALE_STATES = frozenset(state.value for state in MoraleState)


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class HexState(_State):
    """A map hex with something on it besides units."""

    terrain: str = "clear"
    elevation: int = 0
    entrenchment: bool = False
    minefield: str | None = None


class UnitState(_State):
    """A unit in play."""

    id: str
    name: LocalizedName
    side: str
    type: str
    hex: str
    fire: int
    at: int | None = None
    armour: int | None = None
    top: Literal["closed", "open"] | None = None
    range: int
    movement: int
    steps: int
    initial_steps: int
    #: The scenario's strength of a unit a campaign mustered below it, carried losses and
    #: all (None: it began whole): shown as its strength out of this.
    full_strength: int | None = None
    morale: int
    status: MoraleState = MoraleState.GOOD_ORDER
    dug_in: bool = False
    acted: bool = False
    moved: bool = False

    @property
    def kind(self) -> dict[str, Any]:
        """The unit type's data."""
        return unit_types()[self.type]

    @property
    def alive(self) -> bool:
        """Whether the unit has steps left."""
        return self.steps > 0

    @property
    def air(self) -> bool:
        """Whether the unit is an attacking aircraft."""
        return bool(self.kind.get("air"))

    @property
    def category(self) -> Category:
        """Combat unit or transport (wagon, truck, sledge)."""
        return Category(self.kind["category"])

    @property
    def armour_kind(self) -> Armour:
        """Closed- or open-top AFV, or no armour value."""
        if self.armour is None:
            return Armour.NONE
        return Armour.OPEN if self.top == "open" else Armour.CLOSED

    @property
    def position(self) -> Hex:
        """The unit's hex."""
        return parse_hex(self.hex)


class PendingSteps(_State):
    """Step losses of an X result that the owner distributes (the bot asks, one at a time)."""

    hex: str
    category: Category
    owed: int
    units: list[str]
    open_top: list[str] = Field(default_factory=list)
    open_top_done: bool = False
    side: str


class PendingMorale(_State):
    """A morale check owed by a unit (M, M1, M2 …)."""

    unit: str
    n: int


class PzgrenState(_State):
    """The whole game document of a pzgren game (stored as JSON by ``db/``)."""

    ruleset: Literal["pzgren"] = "pzgren"
    scenario_id: str
    #: The scenario's title, in every language it gives (read in the reader's).
    title: LocalizedTitle
    turn: int = 1
    max_turns: int = 6
    night_turns: list[int] = Field(default_factory=list)
    ended: bool = False
    first_side: str
    active_side: str
    passes: int = 0
    #: Side id → name: the scenario's, in every language it gives (read in the reader's).
    sides: dict[str, LocalizedName]
    columns: int
    rows: int
    hexes: dict[str, HexState] = Field(default_factory=dict)
    units: dict[str, UnitState]
    pending_steps: list[PendingSteps] = Field(default_factory=list)
    pending_morale: list[PendingMorale] = Field(default_factory=list)
    moved_last: list[str] = Field(default_factory=list)
    at_entries: dict[str, list[int]] = Field(default_factory=dict)
    # Added with issue 25 (format 3): the victory conditions, and the result once over.
    victory: VictoryRecord = Field(default_factory=VictoryRecord)

    def unit(self, unit_id: str) -> UnitState:
        """A unit by id."""
        try:
            return self.units[unit_id]
        except KeyError:
            raise UnknownName("error.pzgren.unknown_unit", name=unit_id[:MAX_TEXT]) from None

    def other_side(self, side: str) -> str:
        """The opponent of ``side``."""
        return next(s for s in self.sides if s != side)

    def hex_at(self, where: str) -> HexState:
        """The hex's terrain and features (clear when the scenario says nothing of it)."""
        return self.hexes.get(where) or HexState()

    def on_map(self, where: Hex) -> bool:
        """Whether the hex is on the map."""
        return 0 <= where.q < self.columns and 0 <= where.r < self.rows

    def units_in(self, where: str) -> list[UnitState]:
        """The units alive in a hex (aircraft are never in a hex)."""
        return [u for u in self.units.values() if u.alive and not u.air and u.hex == where]

    def occupancy(self) -> dict[str, list[UnitState]]:
        """:meth:`units_in` of every occupied hex at once (the same units in the same order),
        for a caller that asks of many hexes while nothing moves."""
        found: dict[str, list[UnitState]] = {}
        for unit in self.units.values():
            if unit.alive and not unit.air:
                found.setdefault(unit.hex, []).append(unit)
        return found


Applied = CoreApplied[PzgrenState]
