"""The state of a linea_gotica game (stored as JSON by ``db/``).

One figure is one man: squads keep their soldiers one by one (wounds, shock, panic, death);
vehicles keep their damage and their crew's morale as one.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.battlefield import Battlefield, Overlay, Point, Shape
from rules.core.ending import VictoryRecord
from rules.core.errors import UnknownName
from rules.core.words import LocalizedName, LocalizedTitle
from rules.linea_gotica.model import QUALITY_ORDER, Quality
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.procedures.fire import (
    Armour,
    Night,
    TargetFired,
    TargetKind,
    TargetMovement,
)
from rules.linea_gotica.scenario import Role, Weapon

MAX_TEXT = 80


class Phase(enum.StrEnum):
    """Where the turn is: SEQUENZA DI GIOCO, split into the steps the bot enforces."""

    INITIATIVE = "iniziativa"
    CHOICE = "scelta"
    COVERING = "copertura"
    MOVEMENT = "movimento"
    OBSERVE_MOVE = "osservazione_movimento"
    FIRE = "tiro"
    OBSERVE_FIRE = "osservazione_tiro"

    @property
    def in_movement_phase(self) -> bool:
        """Steps of phase 2 (and the initiative before it)."""
        return self not in (Phase.FIRE, Phase.OBSERVE_FIRE)


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Figure(_State):
    """One soldier."""

    n: int
    role: Role = "soldato"
    weapon: str | None = None
    wounded: bool = False
    badly_wounded: bool = False
    bleed_until: int | None = None
    dead: bool = False
    surrendered: bool = False
    shocked_until: int | None = None
    panic: bool = False
    isolated: bool = False
    uses: int = 0

    @property
    def alive(self) -> bool:
        """Still in play (not dead, not captured)."""
        return not self.dead and not self.surrendered

    def shocked(self, turn: int) -> bool:
        """Shocked (no movement toward the enemy, no combat, no action)."""
        return self.shocked_until is not None and self.shocked_until >= turn

    def able(self, turn: int) -> bool:
        """May fire or act."""
        return self.alive and not self.badly_wounded and not self.panic and not self.shocked(turn)


class VehicleState(_State):
    """A vehicle's nature and damage."""

    type: str
    armoured: bool
    armour: Armour
    weight: str
    turret: bool
    open: bool
    transport: bool
    damaged: bool = False
    mobility_damaged: bool = False
    immobilised: bool = False
    radio_destroyed: bool = False
    turret_jammed: bool = False
    destroyed: bool = False
    abandoned: bool = False


class Task(_State):
    """A multi-turn action in progress."""

    name: str
    level: str
    needed: int
    done: int
    last_turn: int


class UnitState(_State):
    """A squad, section, team or vehicle in play."""

    id: str
    name: LocalizedName
    side: str
    quality: Quality
    quality_modifier: int = 0
    leader_ability: Quality | None = None
    section: bool = False
    fanatic: int = 0
    radio: bool = False
    engineers: bool = False
    observer: bool = False
    commander: bool = False
    figures: list[Figure] = Field(default_factory=list)
    #: The scenario's strength of a unit a campaign mustered below it, carried losses and
    #: all (None: it began whole): shown as its strength out of this.
    full_strength: int | None = None
    vehicle: VehicleState | None = None
    weapons: list[str] = Field(default_factory=list)
    weapons_destroyed: list[str] = Field(default_factory=list)
    cover: Cover = Cover.NONE
    prone: bool = False
    hidden: bool = False
    place: str = ""
    activity: str | None = None
    pace: TargetMovement = TargetMovement.FERMO
    ran_last_turn: bool = False
    fired: TargetFired = TargetFired.NO
    fired_serial: int | None = None
    under_fire_serial: int | None = None
    behind_armour: bool = False
    emplaced: list[str] = Field(default_factory=list)
    needs_reload: list[str] = Field(default_factory=list)
    weapon_uses: dict[str, int] = Field(default_factory=dict)
    aimed_turn: int | None = None
    task: Task | None = None
    riding: str | None = None
    crew_shocked_until: int | None = None
    crew_panic: bool = False
    isolated_flag: bool = False
    squad: str | None = Field(None, description="an unarmed transport's own squad")
    covered_by: list[int] = Field(
        default_factory=list,
        description="soldiers who fired covering fire this turn (the others may still fire or act)",
    )

    @property
    def is_vehicle(self) -> bool:
        """A vehicle (crew tests morale as one)."""
        return self.vehicle is not None

    @property
    def alive(self) -> bool:
        """Still in play."""
        if self.vehicle is not None:
            return not self.vehicle.destroyed and not self.vehicle.abandoned
        return any(f.alive for f in self.figures)

    @property
    def class_index(self) -> int:
        """0 for Elite … 4 for Marmaglia."""
        return QUALITY_ORDER.index(self.quality)

    @property
    def target_kind(self) -> TargetKind:
        """Which damage table a hit reads."""
        if self.vehicle is None:
            return TargetKind.INFANTRY
        if not self.vehicle.armoured:
            return TargetKind.SOFT
        return TargetKind.TANK if self.vehicle.type == "carri" else TargetKind.ARMOURED

    def leader(self) -> Figure | None:
        """The living leader, if any."""
        return next((f for f in self.figures if f.role == "leader" and f.alive), None)

    @property
    def leaderless(self) -> bool:
        """A squad whose leader was killed (or captured) and not yet replaced."""
        return self.vehicle is None and self.leader_ability is not None and self.leader() is None

    def figure(self, n: int) -> Figure:
        """A soldier by number."""
        for fig in self.figures:
            if fig.n == n:
                return fig
        raise UnknownName("error.linea_gotica.unknown_figure", unit=self.name, n=n)

    def crew_able(self, turn: int) -> bool:
        """A vehicle's crew may fire or act."""
        shocked = self.crew_shocked_until is not None and self.crew_shocked_until >= turn
        return self.alive and not self.crew_panic and not shocked

    def working_weapons(self) -> list[str]:
        """A vehicle's weapons not destroyed, in order."""
        return [w for w in self.weapons if w not in self.weapons_destroyed]


class SupportState(_State):
    """An off-table battery or mortar group, or an aircraft."""

    id: str
    name: LocalizedName
    side: str
    kind: Literal["artiglieria", "mortai", "aereo"]
    contact: str
    calibre_mm: int
    platoon_mortars: bool
    smoke: bool
    bombs: str | None
    strafing: bool
    quality: Quality


class Mission(_State):
    """A call for fire or an air attack, from contact to its end."""

    id: str
    support: str
    side: str
    observer: str
    target: str
    stage: Literal["ranging", "order", "aircraft", "strafe", "returning", "done"]
    due_turn: int
    point: str = ""
    attempts: int = 0
    fired_turn: int | None = None
    aim: Point | None = Field(None, description="the aimed point on the battlefield")
    landed: Point | None = Field(None, description="where the ranging shot came down")


class Blast(_State):
    """Where HE came down this phase, for the soldiers and vehicles inside it."""

    id: str
    label: str
    side: str
    spec: dict[str, Any]
    blast_row: str | None
    heavy_calibre: bool = False
    bombs: str = "none"
    strafe_quality: Quality | None = None
    serial: int
    center: Point | None = Field(None, description="where it burst, on the battlefield")
    resolved: list[str] = Field(
        default_factory=list, description="units the bot already resolved inside it"
    )


class Smoke(_State):
    """A smoke screen: pending until the end of its phase, then lasting some turns."""

    id: str
    source: str
    side: str
    place: str
    effective: bool = False
    effect_at: str = "phase_end"
    turns: int
    expires_after: int | None = None


class Minefield(_State):
    """A strip of mines."""

    id: str
    name: str
    kind: Literal["antiuomo", "anticarro"]
    owner: str
    known_to: list[str] = Field(default_factory=list)
    cleared: bool = False
    shape: Shape | None = None


class Covering(_State):
    """Covering fire at a terrain element, resolved when a hidden enemy there fires."""

    unit: str
    side: str
    place: str
    weapon: str
    resolved: list[str] = Field(default_factory=list)


class PendingMorale(_State):
    """A morale test owed by a soldier (or by a vehicle's crew: figure None)."""

    unit: str
    figure: int | None = None
    reasons: list[str] = Field(default_factory=list)
    modifier: int = 0
    air: bool = False


class GameState(_State):
    """The whole game document of a linea_gotica game."""

    ruleset: Literal["linea_gotica"] = "linea_gotica"
    scenario_id: str
    #: The scenario's title, in every language it gives (read in the reader's).
    title: LocalizedTitle
    turn: int = 1
    max_turns: int = 10
    ended: bool = False
    night: Night = Night.GIORNO
    passengers_on_tanks: bool = False
    #: Side id → name: the scenario's, in every language it gives (read in the reader's).
    sides: dict[str, LocalizedName]
    coordination: dict[str, int] = Field(default_factory=dict)
    phase: Phase = Phase.INITIATIVE
    order: list[str] = Field(default_factory=list)
    winner: str | None = None
    mover: int = 0
    fire_class: int = 0
    done: list[str] = Field(default_factory=list)
    roster: list[str] = Field(default_factory=list)
    concealing: list[str] = Field(default_factory=list)
    """The sides that have hidden a unit this game (the scenario's, a move's ``hidden``): no
    class step of the fire phase passes them over, so the steps tell their enemy nothing of
    their hidden units, revealed or killed ones included (docs/linea_gotica.md)."""
    replaced_turn: int = 0
    units: dict[str, UnitState]
    supports: dict[str, SupportState] = Field(default_factory=dict)
    missions: list[Mission] = Field(default_factory=list)
    blasts: list[Blast] = Field(default_factory=list)
    smoke: list[Smoke] = Field(default_factory=list)
    minefields: dict[str, Minefield] = Field(default_factory=dict)
    covering: list[Covering] = Field(default_factory=list)
    pending: list[PendingMorale] = Field(default_factory=list)
    observed: list[str] = Field(default_factory=list)
    places: list[str] = Field(default_factory=list)
    """The table's named terrain elements (the scenario's ``terrain``, public): those a side
    may observe without knowing what hides there."""
    weapons: dict[str, Weapon]
    counter: int = 0
    field: Battlefield | None = None
    """The table (issue 16): with one, the bot keeps every unit's position and measures."""
    positions: dict[str, Point] = Field(default_factory=dict)
    marks: list[Overlay] = Field(default_factory=list)
    """The last action's marks for the picture: line of fire, deviation arrow, blasts."""
    marks_of: list[str] = Field(default_factory=list)
    """The units the last action's lines and arrows are of (a mover; a firer and its target):
    a seat that may not see one of them is not shown them."""
    victory: VictoryRecord = Field(default_factory=VictoryRecord)
    """Added with issue 25 (format 6): the victory conditions, and the result once over."""

    @property
    def serial(self) -> int:
        """The number of the current phase (movement 2t−1, fire 2t)."""
        return 2 * self.turn - (1 if self.phase.in_movement_phase else 0)

    def unit(self, unit_id: str) -> UnitState:
        """A unit by id."""
        try:
            return self.units[unit_id]
        except KeyError:
            raise UnknownName("error.linea_gotica.unknown_unit", name=unit_id[:MAX_TEXT]) from None

    def other_side(self, side: str) -> str:
        """The opponent of ``side``."""
        return next(s for s in self.sides if s != side)

    def next_id(self, prefix: str) -> str:
        """A fresh id for a mission, blast or smoke."""
        self.counter += 1
        return f"{prefix}{self.counter}"
