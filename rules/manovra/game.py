"""Playing manovra: the game state, the commands players give, and the turn sequence.

``apply(state, command, dice)`` checks a command against the state (turn step, whose
declaration, which unit acts next, who owns the unit, statuses and crew losses), resolves
it through the ruleset's procedures, and returns a new state with the resolutions. It never
mutates its input: a refused command leaves the state exactly as it was.

Turn sequence (TURNO DI GIOCO): 1 manoeuvre tokens, 2 indirect-fire requests, 3 manoeuvre
phases, 4 indirect-fire execution, 5 end of turn.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from rules.core.dice import D6, DiceSource, DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview, run_command
from rules.core.resolution import EffectKind, Modifier, Outcome, Resolution, ResolutionBuilder
from rules.manovra import checks, fire, ground
from rules.manovra.model import RULESET_KEY, Cover, MoveRate, RangeBand
from rules.manovra.scenario import Scenario, Weapon, WeaponKind, unit_types
from rules.manovra.tables import load_tables

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
    name: str
    side: str
    platoon: str
    type: str
    ad: int
    cv: int
    models: int
    initial_models: int
    tactical_cm: float
    weapons: dict[str, int]
    armour: dict[str, dict[str, int]] = Field(default_factory=dict)
    turret: bool = True
    tracked: bool = True
    open_topped: bool = False
    radio: bool = False
    terrain: str = "piano_scoperto"
    statuses: list[str] = Field(default_factory=list)
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
    name: str
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


class ManovraState(_State):
    """The whole game document of a manovra game (stored as JSON by ``db/``)."""

    ruleset: Literal["manovra"] = "manovra"
    scenario_id: str
    title: str
    turn: int = 1
    max_turns: int = 8
    step: TurnStep = TurnStep.TOKENS
    ended: bool = False
    first_side: str
    sides: dict[str, str]
    tokens: dict[str, int] = Field(default_factory=dict)
    declarations: dict[str, str] = Field(default_factory=dict)
    manoeuvred: list[str] = Field(default_factory=list)
    queue: list[str] = Field(default_factory=list)
    pending: list[PendingTest] = Field(default_factory=list)
    markers: list[FireMarker] = Field(default_factory=list)
    marker_order: list[str] = Field(default_factory=list)
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


# -- commands --------------------------------------------------------------------------------


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
    """Move a unit (/move): its last leg's terrain becomes the unit's terrain."""

    verb: Literal["move"] = "move"
    unit: str
    terrain: str
    distance_cm: float = Field(gt=0, le=1000)
    kind: MoveRate = MoveRate.TATTICO
    via: tuple[ground.Leg, ...] = Field(default=(), max_length=10)
    conceal: bool = False


class Fire(_Command):
    """Fire at a unit (/fire); with ``move_*`` it is the complex action move-and-fire."""

    verb: Literal["fire"] = "fire"
    unit: str
    target: str
    distance_cm: float = Field(ge=0, le=10_000)
    weapon: str | None = None
    ammo: Literal["AP", "HE"] | None = None
    facing: Literal["front", "side", "rear"] = "front"
    impact: Literal["lt75", "gt75"] = "lt75"
    move_terrain: str | None = None
    move_cm: float | None = Field(None, gt=0, le=1000)
    models_touched: int = Field(1, ge=1, le=20)
    chosen_location: str | None = None


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
    | Hold
    | TakeTest
    | RecoverPanic
    | Assault
    | ExecuteFire
    | Fragments,
    Field(discriminator="verb"),
]


Applied = CoreApplied[ManovraState]


# -- setting up --------------------------------------------------------------------------------


def new_game(scenario: Scenario) -> ManovraState:
    """The state at the start of turn 1 (step 1: tokens are assigned at once)."""
    tables = load_tables()
    cv_table = tables["valenza_comando"]
    units: dict[str, UnitState] = {}
    platoons: dict[str, PlatoonState] = {}
    for side in scenario.sides:
        for spec in side.platoons:
            platoons[spec.id] = PlatoonState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                kind=spec.kind,
                off_table=spec.off_table,
                units=[u.id for u in spec.units],
            )
            for unit in spec.units:
                units[unit.id] = UnitState(
                    id=unit.id,
                    name=unit.name,
                    side=side.id,
                    platoon=spec.id,
                    type=unit.type,
                    ad=unit.ad,
                    cv=int(cv_table.row_by_id(unit.leader).data["cv"]),
                    models=unit.models,
                    initial_models=unit.models,
                    tactical_cm=unit.tactical_cm,
                    weapons=dict(unit.weapons),
                    armour={k: dict(v) for k, v in unit.armour.items()},
                    turret=unit.turret,
                    tracked=unit.tracked,
                    open_topped=unit.open_topped,
                    radio=unit.radio,
                    terrain=unit.terrain,
                )
    state = ManovraState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        first_side=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        platoons=platoons,
        units=units,
        weapons=dict(scenario.weapons),
    )
    _assign_tokens(state, [])
    return state


def load_state(document: dict[str, Any]) -> ManovraState:
    """Rebuild a state from its stored JSON document."""
    return ManovraState.model_validate(document)


def _field_platoons(state: ManovraState, side: str) -> list[PlatoonState]:
    return [
        p
        for p in state.platoons.values()
        if p.side == side and not p.off_table and any(state.units[u].alive for u in p.units)
    ]


def _assign_tokens(state: ManovraState, notices: list[Outcome]) -> None:
    """Step 1: the side with fewer platoons and batteries on the field takes the difference."""
    counts = {side: len(_field_platoons(state, side)) for side in state.sides}
    low = min(counts, key=lambda s: counts[s])
    difference = max(counts.values()) - counts[low]
    state.tokens = {side: 0 for side in state.sides}
    if difference:
        state.tokens[low] = difference
    notices.append(
        Outcome.of(
            "manovra.turn.tokens", side=state.sides[low] if difference else "-", n=difference
        )
    )


# -- whose move ------------------------------------------------------------------------------


def awaiting(state: ManovraState) -> str | None:
    """The side whose move it is (None when either may act, or the game is over)."""
    if state.ended:
        return None
    if state.step is TurnStep.MANOEUVRE:
        if state.queue:
            return state.units[state.queue[0]].side
        return _declaring_side(state)
    if state.step is TurnStep.INDIRECT:
        for marker_id in state.marker_order:
            marker = _marker(state, marker_id)
            if not marker.executed:
                return state.platoons[marker.battery].side
    return state.first_side


def _declaring_side(state: ManovraState) -> str | None:
    for side in (state.first_side, state.other_side(state.first_side)):
        if side not in state.declarations:
            return side
    return None


# -- applying commands -----------------------------------------------------------------------


def apply(
    state: ManovraState,
    command: Any,
    dice: DiceSource,
    *,
    actor_side: str | None = None,
    preview: bool = False,
    other_dice: DiceSource | None = None,
) -> Applied:
    """Check and resolve ``command`` for ``actor_side`` (None: the referee).

    Returns a new state; raises :class:`RulesError` (and changes nothing) if the command
    is not allowed now or its arguments are wrong.
    """
    if state.ended and not isinstance(command, TakeTest):
        raise IllegalAction("error.manovra.game_over")
    return run_command(state, command, dice, _HANDLERS, actor_side=actor_side, preview=preview,
        other_dice=other_dice)


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    from rules.manovra import PROCEDURES  # the registry imports this module

    return PROCEDURES[procedure].resolve_on(data, tray)


def _own(state: ManovraState, unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.manovra.not_your_unit", unit=unit.name)


def _require_step(state: ManovraState, step: TurnStep) -> None:
    if state.step is not step:
        raise IllegalAction("error.manovra.wrong_step", needed=int(step), current=int(state.step))


def _acting_unit(state: ManovraState, unit_id: str, actor_side: str | None) -> UnitState:
    """The unit must exist, be the actor's, be alive, and be first in the IT order.

    A preview (odds while planning) checks only the unit itself, not whose turn it is.
    """
    unit = state.unit(unit_id)
    _own(state, unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.manovra.unit_out", unit=unit.name)
    if is_preview():
        return unit
    _require_step(state, TurnStep.MANOEUVRE)
    if not state.queue:
        raise IllegalAction("error.manovra.no_unit_to_act")
    if state.queue[0] != unit.id:
        raise IllegalAction(
            "error.manovra.not_this_units_turn",
            unit=unit.name,
            next=state.units[state.queue[0]].name,
        )
    blocking = [p for p in state.pending if p.unit == unit.id]
    if blocking:
        raise IllegalAction("error.manovra.test_owed", unit=unit.name, test=blocking[0].kind)
    return unit


def _finish_action(state: ManovraState, unit: UnitState, result: Applied) -> None:
    unit.acted = True
    unit.statuses = [s for s in unit.statuses if s != "recovered"]
    if state.queue and state.queue[0] == unit.id:
        state.queue.pop(0)
    _after_activation(state, result)


def _after_activation(state: ManovraState, result: Applied) -> None:
    """Skip units that can no longer act; open the next phase when the queue is empty."""
    while state.queue and not state.units[state.queue[0]].alive:
        state.queue.pop(0)
    if state.queue:
        return
    if state.declarations:
        state.declarations = {}
        result.notices.append(Outcome.of("manovra.turn.phase_over"))
    _auto_declare(state, result)


def _can_declare(state: ManovraState, side: str) -> list[PlatoonState]:
    return [p for p in _field_platoons(state, side) if p.id not in state.manoeuvred]


def _auto_declare(state: ManovraState, result: Applied) -> None:
    """Settle the declarations of a manoeuvre phase as far as the state allows.

    Sides with no platoon left to declare and no token to hand over pass; when both sides
    have declared, IT orders the units; at the start of a phase with nothing left to declare
    on either side, the turn moves on to step 4.
    """
    if state.step is not TurnStep.MANOEUVRE:
        return
    if not state.declarations and not any(_can_declare(state, side) for side in state.sides):
        _enter_indirect(state, result)
        return
    side = _declaring_side(state)
    while side is not None and not _can_declare(state, side) and state.tokens.get(side, 0) == 0:
        state.declarations[side] = "-"
        side = _declaring_side(state)
    if side is None:
        _start_activations(state, result)


def _do_next(
    state: ManovraState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    if (
        actor_side is not None
        and actor_side != awaiting(state)
        and state.step is not TurnStep.REQUESTS
    ):
        raise IllegalAction("error.manovra.not_your_move")
    if state.step is TurnStep.TOKENS:
        state.step = TurnStep.REQUESTS
    elif state.step is TurnStep.REQUESTS:
        state.step = TurnStep.MANOEUVRE
        state.declarations = {}
        _auto_declare(state, result)
    elif state.step is TurnStep.MANOEUVRE:
        if actor_side is not None and (
            state.queue or any(_can_declare(state, s) for s in state.sides)
        ):
            raise IllegalAction("error.manovra.manoeuvres_left")
        state.queue = []
        _enter_indirect(state, result, tray)
    elif state.step is TurnStep.INDIRECT:
        left = [m for m in state.markers if not m.executed]
        if left and actor_side is not None:
            raise IllegalAction("error.manovra.fire_left", n=len(left))
        state.step = TurnStep.END
    else:
        _end_turn(state, result)
    result.notices.append(Outcome.of("manovra.turn.step", turn=state.turn, step=int(state.step)))


def _enter_indirect(state: ManovraState, result: Applied, tray: DiceTray | None = None) -> None:
    """Step 4: order the IF markers — artillery on the field first, then off it, by IT."""
    state.step = TurnStep.INDIRECT
    state.queue = []
    tray = tray or result.tray
    pending = [m for m in state.markers if not m.executed]
    if pending and tray is not None:
        order: list[str] = []
        for off in (False, True):
            group = [m for m in pending if state.platoons[m.battery].off_table is off]
            if not group:
                continue
            units = [state.units[state.platoons[m.battery].units[0]] for m in group]
            resolution = _initiative(state, units, tray)
            result.resolutions.append(resolution)
            ranked = [str(v) for _, v in resolution.outcome.params]
            order += [
                m.id
                for unit_id in ranked
                for m in group
                if state.platoons[m.battery].units[0] == unit_id
            ]
        state.marker_order = list(dict.fromkeys(order))
    else:
        state.marker_order = [m.id for m in pending]
    result.notices.append(Outcome.of("manovra.turn.step", turn=state.turn, step=int(state.step)))


def _end_turn(state: ManovraState, result: Applied) -> None:
    if state.turn >= state.max_turns:
        state.ended = True
        result.notices.append(Outcome.of("manovra.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.step = TurnStep.TOKENS
    state.declarations = {}
    state.manoeuvred = []
    state.queue = []
    state.markers = []
    state.marker_order = []
    state.pending = [p for p in state.pending if p.kind != "SF"]
    for unit in state.units.values():
        unit.acted = unit.moved = unit.fired = False
        unit.statuses = [s for s in unit.statuses if s not in ("skip_fire", "recovered")]
    _assign_tokens(state, result.notices)


def _declaring(state: ManovraState, actor_side: str | None) -> str:
    """The side due to declare now, which must be the actor's (or the referee acting)."""
    _require_step(state, TurnStep.MANOEUVRE)
    side = _declaring_side(state)
    if side is None or state.queue:
        raise IllegalAction("error.manovra.no_declaration_now")
    if actor_side is not None and actor_side != side:
        raise IllegalAction("error.manovra.not_your_declaration", side=state.sides[side])
    return side


def _do_declare(
    state: ManovraState, command: Declare, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    side = _declaring(state, actor_side)
    platoon = state.platoon(command.platoon)
    if platoon.side != side:
        raise IllegalAction("error.manovra.not_your_platoon", platoon=platoon.name)
    if platoon not in _can_declare(state, side):
        raise IllegalAction("error.manovra.platoon_done", platoon=platoon.name)
    state.declarations[side] = platoon.id
    state.manoeuvred.append(platoon.id)
    result.notices.append(
        Outcome.of("manovra.turn.declared", side=state.sides[side], platoon=platoon.name)
    )
    _auto_declare(state, result)


def _do_pass(
    state: ManovraState, command: PassToken, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    side = _declaring(state, actor_side)
    if state.tokens.get(side, 0) <= 0:
        raise IllegalAction("error.manovra.no_tokens")
    state.tokens[side] -= 1
    state.declarations[side] = "token"
    result.notices.append(
        Outcome.of("manovra.turn.token_passed", side=state.sides[side], left=state.tokens[side])
    )
    _auto_declare(state, result)


def _start_activations(state: ManovraState, result: Applied, tray: DiceTray | None = None) -> None:
    """Both sides declared: IT tests order the units of the declared platoons."""
    units = [
        state.units[u]
        for platoon_id in state.declarations.values()
        if platoon_id in state.platoons
        for u in state.platoons[platoon_id].units
        if state.units[u].alive
    ]
    if not units:
        state.declarations = {}
        _auto_declare(state, result)
        return
    tray = tray or result.tray
    if tray is None:
        state.queue = [u.id for u in units]
        return
    resolution = _initiative(state, units, tray)
    result.resolutions.append(resolution)
    state.queue = [str(v) for _, v in resolution.outcome.params]


def _initiative(state: ManovraState, units: list[UnitState], tray: DiceTray) -> Resolution:
    """IT for each unit (D6 + AD + CV; a crew with losses counts 1); higher totals act first.

    Ties keep the side that began the turn first, then the declaration order (the seed
    gives no tie rule).
    """
    fixed = int(
        load_tables()["perdite_equipaggi"].row_by_id("almeno_un_morto").data["fixed_die_face"]
    )
    builder = ResolutionBuilder(RULESET_KEY, "initiative", tray)
    totals: list[tuple[int, int, int, str]] = []
    for index, unit in enumerate(units):
        mods = [Modifier("manovra.mod.ad", unit.ad), Modifier("manovra.mod.cv", unit.cv)]
        if unit.kind["crew"] and unit.crew_losses > 0:
            rolls: tuple[Any, ...] = ()
            base = fixed
            mods.insert(0, Modifier("manovra.mod.crew_fixed_die", fixed))
        else:
            roll = tray.roll(D6, f"IT — {unit.name}")
            rolls, base = (roll,), roll.face
        total = base + unit.ad + unit.cv
        totals.append((-total, 0 if unit.side == state.first_side else 1, index, unit.id))
        builder.step(
            "manovra.step.initiative",
            rolls=rolls,
            modifiers=tuple(mods),
            total=total,
            unit=unit.name,
        )
    order = [unit_id for *_, unit_id in sorted(totals)]
    return builder.finish(
        Outcome("manovra.turn.order", tuple((str(i + 1), u) for i, u in enumerate(order)))
    )


# -- step 2: requests ---------------------------------------------------------------------------


def _do_request(
    state: ManovraState,
    command: RequestFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    _require_step(state, TurnStep.REQUESTS)
    unit = state.unit(command.unit)
    _own(state, unit, actor_side)
    if not unit.alive or unit.has("panic"):
        raise IllegalAction("error.manovra.unit_cannot", unit=unit.name)
    battery = state.platoon(command.battery)
    if battery.kind != "battery" or battery.side != unit.side:
        raise IllegalAction("error.manovra.not_a_battery", battery=battery.name)
    if any(m.battery == battery.id for m in state.markers):
        raise IllegalAction("error.manovra.battery_busy", battery=battery.name)
    comms = _resolve(
        "communication",
        checks.CommunicationInput(
            link=command.link,
            distance_cm=command.distance_cm,
            line_of_sight=command.line_of_sight,
            both_entrenched=command.both_entrenched,
        ),
        tray,
    )
    result.resolutions.append(comms)
    if comms.outcome.key != "manovra.comms.ok":
        return
    kind = checks.TestKind.IFR if battery.off_table else checks.TestKind.DFR
    test = _resolve("test", checks.TestInput(kind=kind, ad=unit.ad, cv=unit.cv), tray)
    result.resolutions.append(test)
    if test.outcome.key == "manovra.test.passed":
        marker = FireMarker(
            id=f"if{state.turn}-{len(state.markers) + 1}",
            battery=battery.id,
            requested_by=unit.id,
            target=command.target,
        )
        state.markers.append(marker)
        result.notices.append(
            Outcome.of("manovra.turn.marker_placed", marker=marker.id, target=marker.target)
        )


# -- step 3: actions ----------------------------------------------------------------------------


def _simple_only(unit: UnitState) -> bool:
    """PERDITE EQUIPAGGI: a crew with half or more dead performs simple actions only."""
    row = load_tables()["perdite_equipaggi"].row_by_id("meta_morti")
    fraction = float(row.data["trigger"]["dead_fraction_at_least"])
    return bool(unit.kind["crew"]) and unit.crew_losses >= fraction * unit.initial_models


def _light_only(unit: UnitState) -> bool:
    """PERDITE EQUIPAGGI: a crew with one survivor fires light weapons only."""
    row = load_tables()["perdite_equipaggi"].row_by_id("un_superstite")
    return bool(unit.kind["crew"]) and unit.models == int(row.data["trigger"]["survivors_exactly"])


def _move_resolution(
    unit: UnitState, kind: MoveRate, legs: tuple[ground.Leg, ...], conceal: bool, tray: DiceTray
) -> Resolution:
    if unit.has("immobilised"):
        raise IllegalAction("error.manovra.immobilised", unit=unit.name)
    if unit.has("short") and kind is MoveRate.TATTICO:
        raise IllegalAction("error.manovra.short_only", unit=unit.name)
    if unit.has("cautious") and kind is not MoveRate.CAUTO:
        raise IllegalAction("error.manovra.cautious_only", unit=unit.name)
    try:
        data = ground.MoveInput(
            unit_class=unit.kind["movement"],
            tactical_cm=unit.tactical_cm,
            kind=kind,
            legs=legs,
            conceal=conceal,
        )
    except ValueError as error:
        raise InvalidInput("error.invalid_input.detail", detail=str(error)[:200]) from None
    for leg in legs:
        load_tables()["tipi_terreno"].row_by_id(leg.terrain)
    resolution = _resolve("move", data, tray)
    if resolution.outcome.key != "manovra.move.ok":
        raise IllegalAction(resolution.outcome.key, **dict(resolution.outcome.params))
    return resolution


def _apply_move(state: ManovraState, unit: UnitState, resolution: Resolution, terrain: str) -> None:
    unit.terrain = terrain
    unit.moved = True
    unit.statuses = [s for s in unit.statuses if s != "concealed"]
    for effect in resolution.effects:
        if effect.kind is EffectKind.STATUS and effect.key == "concealed":
            unit.add("concealed")
        if effect.kind is EffectKind.TEST_OWED and effect.key == "ET":
            terrain_id = dict(effect.params).get("terrain", "")
            reason = "mine" if terrain_id == "campi_minati" else "wire"
            state.pending.append(PendingTest(unit=unit.id, kind="ET", reason=reason))


def _do_move(
    state: ManovraState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("recovered") and command.kind is not MoveRate.TATTICO:
        raise IllegalAction("error.manovra.recovered_tactical_only", unit=unit.name)
    legs = (*command.via, ground.Leg(terrain=command.terrain, cm=command.distance_cm))
    resolution = _move_resolution(unit, command.kind, legs, command.conceal, tray)
    result.resolutions.append(resolution)
    _apply_move(state, unit, resolution, command.terrain)
    _finish_action(state, unit, result)


def _do_hold(
    state: ManovraState, command: Hold, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    result.notices.append(Outcome.of("manovra.action.hold", unit=unit.name))
    _finish_action(state, unit, result)


def _target_unit(state: ManovraState, unit: UnitState, target_id: str) -> UnitState:
    target = state.unit(target_id)
    if target.side == unit.side:
        raise IllegalAction("error.manovra.friendly_target", target=target.name)
    if not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    return target


@cache
def _observation_terrain() -> dict[str, Any]:
    text = (resources.files("rules.manovra") / "data" / "observation_terrain.yaml").read_text(
        "utf-8"
    )
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _observe(state: ManovraState, target: UnitState, distance: float, tray: DiceTray) -> Resolution:
    """OSSERVAZIONE: can the firer see the target where it stands, doing what it did?"""
    mapping = _observation_terrain()
    observed = str(target.kind["observed"])
    group = str(mapping["default"])
    for name, terrains in mapping["groups"][observed].items():
        if target.terrain in terrains:
            group = str(name)
    table = load_tables()["osservazione"]
    if not any(
        r.keys.get("unita") == observed and r.keys.get("terreno") == group for r in table.rows
    ):
        group = "copertura"
    status = "ha_sparato" if target.fired else "in_movimento" if target.moved else "appostata"
    return _resolve(
        "observation",
        checks.ObservationInput(
            observed=checks.ObservedClass(observed),
            terrain=checks.ObservedTerrain(group),
            state=checks.ObservedState(status),
            distance_cm=distance,
            terrain_detail=mapping["details"].get(target.terrain),
        ),
        tray,
    )


def _target_cover(target: UnitState) -> Cover:
    tables = load_tables()
    table = tables["tipi_terreno"]
    cover: Cover = tables.parsed(table, table.row_by_id(target.terrain), table.column("riparo"))
    return cover


def _weapon(state: ManovraState, unit: UnitState, weapon_id: str) -> Weapon:
    if weapon_id not in unit.weapons:
        raise IllegalAction(
            "error.manovra.no_such_weapon",
            unit=unit.name,
            weapon=weapon_id[:MAX_TEXT],
            weapons=", ".join(unit.weapons),
        )
    return state.weapons[weapon_id]


def _do_fire(
    state: ManovraState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    if unit.has("skip_fire"):
        raise IllegalAction("error.manovra.skip_fire", unit=unit.name)
    target = _target_unit(state, unit, command.target)
    moving = command.move_terrain is not None
    if moving:
        if _simple_only(unit):
            raise IllegalAction("error.manovra.simple_only", unit=unit.name)
        if command.move_cm is None:
            raise InvalidInput("error.manovra.move_needs_distance")
        move = _move_resolution(
            unit,
            MoveRate.BREVE,
            (ground.Leg(terrain=command.move_terrain or "", cm=command.move_cm),),
            False,
            tray,
        )
        result.resolutions.append(move)
        _apply_move(state, unit, move, command.move_terrain or unit.terrain)
    seen = _observe(state, target, command.distance_cm, tray)
    result.resolutions.append(seen)
    if seen.outcome.key != "manovra.observe.seen":
        raise IllegalAction(
            "error.manovra.not_spotted", target=target.name, limit=seen.outcome.param("limit") or 0
        )
    rof: Callable[[Weapon], int] = (
        (lambda w: w.rof_moving) if moving else (lambda w: w.rof_stationary)
    )
    weapon_ids = (
        [command.weapon] if command.weapon else _default_weapons(state, unit, target, command.ammo)
    )
    if not weapon_ids:
        raise IllegalAction("error.manovra.choose_weapon", weapons=", ".join(unit.weapons))
    weapons = [(w, _weapon(state, unit, w)) for w in weapon_ids]
    kinds = {weapon.kind for _, weapon in weapons}
    if WeaponKind.HEAVY in kinds or WeaponKind.INCENDIARY in kinds:
        weapon_id, weapon = weapons[0]
        if weapon.kind is WeaponKind.HEAVY:
            _fire_heavy(state, unit, target, weapon_id, weapon, command, rof(weapon), tray, result)
        else:
            _fire_incendiary(state, unit, target, weapon, command, tray, result)
    else:
        _fire_light(state, unit, target, weapons, command, rof, tray, result)
    unit.fired = True
    _finish_action(state, unit, result)


def _default_weapons(
    state: ManovraState, unit: UnitState, target: UnitState, ammo: str | None
) -> list[str]:
    """No weapon named: the main gun against armour (or when ammo is given), else the light ones."""
    heavy = [
        w
        for w in unit.weapons
        if state.weapons[w].kind is WeaponKind.HEAVY and not state.weapons[w].indirect
    ]
    if heavy and (ammo is not None or target.kind["small_arms"] is None):
        return heavy[:1]
    return [w for w in unit.weapons if state.weapons[w].kind is WeaponKind.LIGHT]


def _fire_light(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapons: list[tuple[str, Weapon]],
    command: Fire,
    rof: Callable[[Weapon], int],
    tray: DiceTray,
    result: Applied,
) -> None:
    in_range = [(wid, w, w.band_for(command.distance_cm)) for wid, w in weapons]
    shooting = [(wid, w, band) for wid, w, band in in_range if band is not None]
    if not shooting:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    shots_by = [(rof(w) * min(unit.weapons[wid], unit.models), band) for wid, w, band in shooting]
    shots = sum(s for s, _ in shots_by)
    if shots <= 0:
        raise IllegalAction("error.manovra.no_shots", unit=unit.name)
    # One die for the whole volley: the range band of the weapons firing the most shots.
    band = max(shots_by, key=lambda pair: pair[0])[1]
    small_arms = target.kind["small_arms"]
    if small_arms is None:
        raise IllegalAction("error.manovra.light_vs_armour", target=target.name)
    resolution = _resolve(
        "small_arms",
        fire.SmallArmsInput(
            target_kind=fire.SmallArmsTarget(small_arms),
            band=band,
            ad=unit.ad,
            shots=shots,
            target_moving=target.moved,
            cover=_target_cover(target),
            models_present=target.models,
            initial_models=target.initial_models,
            target=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)


def _fire_heavy(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon_id: str,
    weapon: Weapon,
    command: Fire,
    shots: int,
    tray: DiceTray,
    result: Applied,
) -> None:
    if _light_only(unit):
        raise IllegalAction("error.manovra.light_only", unit=unit.name)
    if any(
        unit.has(s) for s in ("weapon_destroyed", "gun_destroyed", "gun_jammed", "piece_jammed")
    ):
        raise IllegalAction("error.manovra.gun_out", unit=unit.name)
    band = weapon.band_for(command.distance_cm)
    if band is None:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    if shots <= 0:
        raise IllegalAction("error.manovra.no_shots", unit=unit.name)
    ammo = command.ammo or weapon.ammo[0]
    if ammo not in weapon.ammo:
        raise IllegalAction("error.manovra.no_such_ammo", weapon=weapon.name, ammo=ammo)
    for _ in range(shots):
        if not target.alive:
            break
        data = fire.HeavyFireInput(
            band=band,
            ad=unit.ad,
            target=fire.HeavyTarget(target.kind["heavy_target"]),
            target_moving=target.moved,
            ammo=fire.Ammo(ammo),
            calibre_mm=weapon.calibre_mm or 1,
            gun_class=weapon.gun_class,
            impact=command.impact,
            armour=target.armour.get(command.facing, {}),
            turret=target.turret,
            tracked=target.tracked,
            open_topped=target.open_topped,
            chosen_location=command.chosen_location,
            cover=_target_cover(target),
            models_present=target.models,
            target_has_manoeuvred=target.acted,
            target_id=target.id,
        )
        resolution = _resolve("heavy_fire", data, tray)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    del weapon_id


def _fire_incendiary(
    state: ManovraState,
    unit: UnitState,
    target: UnitState,
    weapon: Weapon,
    command: Fire,
    tray: DiceTray,
    result: Applied,
) -> None:
    if weapon.band_for(command.distance_cm) is None:
        raise IllegalAction("error.manovra.out_of_range", distance=round(command.distance_cm))
    resolution = _resolve(
        "incendiary",
        fire.IncendiaryInput(
            target=fire.IncendiaryTarget(target.kind["incendiary"]),
            models_touched=min(command.models_touched, max(target.models, 1)),
            cover=_target_cover(target),
            target_id=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)


def _apply_effects(state: ManovraState, resolution: Resolution) -> None:
    """Apply a resolution's effects to the units they name; owed tests become pending."""
    for effect in resolution.effects:
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.CASUALTIES:
            lost = unit.models if effect.amount is None else effect.amount
            unit.models = max(0, unit.models - lost)
            if unit.models == 0:
                unit.add("destroyed")
        elif effect.kind in (EffectKind.STATUS, EffectKind.MOVEMENT):
            unit.add(effect.key)
        elif effect.kind is EffectKind.CLEAR_STATUS:
            unit.statuses = [s for s in unit.statuses if s != effect.key]
        elif effect.kind is EffectKind.TEST_OWED and effect.key in ("CT", "SF", "ET"):
            if effect.key == "SF" and unit.acted:
                continue
            if not any(p.unit == unit.id and p.kind == effect.key for p in state.pending):
                reason = str(dict(effect.params).get("reason", resolution.procedure))
                state.pending.append(
                    PendingTest(
                        unit=unit.id,
                        kind=effect.key,
                        reason=reason,
                    )
                )
    for pending in list(state.pending):
        if not state.units[pending.unit].alive:
            state.pending.remove(pending)


def _do_test(
    state: ManovraState, command: TakeTest, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(state, unit, actor_side)
    owed = next(
        (p for p in state.pending if p.unit == unit.id and p.kind == command.kind.value), None
    )
    if owed is not None and owed.kind == "ET":
        data = ground.ObstacleInput(
            obstacle=ground.Obstacle.MINE if owed.reason == "mine" else ground.Obstacle.WIRE,
            target=ground.MineTarget(unit.kind["mines"]),
            ad=unit.ad,
            models_present=unit.models,
            target_id=unit.id,
        )
        resolution = _resolve("obstacle", data, tray)
        state.pending.remove(owed)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        return
    opponent = state.unit(command.opponent) if command.opponent else None
    resolution = _resolve(
        "test",
        checks.TestInput(
            kind=command.kind,
            ad=unit.ad,
            cv=unit.cv,
            opponent_ad=opponent.ad if opponent else 0,
            opponent_cv=opponent.cv if opponent else 0,
            crew_losses=bool(unit.kind["crew"]) and unit.crew_losses > 0,
            opponent_crew_losses=bool(
                opponent and opponent.kind["crew"] and opponent.crew_losses > 0
            ),
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if owed is None:
        return
    state.pending.remove(owed)
    if resolution.outcome.key == "manovra.test.failed":
        if owed.kind == "CT":
            unit.add("panic")
            if unit.has("immobilised") and unit.kind["vehicle"]:
                unit.add("abandoned")
                unit.add("destroyed")
        elif owed.kind == "SF":
            unit.add("skip_fire")


def _commanders_cv(state: ManovraState, unit: UnitState) -> tuple[int, ...]:
    """The unit's own leader, and the platoon's senior leader if another unit holds one."""
    platoon = state.platoons[unit.platoon]
    others = [state.units[u] for u in platoon.units if u != unit.id and state.units[u].alive]
    senior = max(others, key=lambda u: u.cv, default=None)
    cvs = [unit.cv]
    if senior is not None and senior.cv > unit.cv:
        cvs.append(senior.cv)
    return tuple(cvs)


def _do_recover(
    state: ManovraState,
    command: RecoverPanic,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if not unit.has("panic"):
        raise IllegalAction("error.manovra.not_panicked", unit=unit.name)
    resolution = _resolve(
        "panic_recovery",
        ground.PanicRecoveryInput(
            ad=unit.ad, commanders_cv=_commanders_cv(state, unit), target_id=unit.id
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)
    if resolution.outcome.key == "manovra.panic.recovered":
        unit.add("recovered")  # may now make a tactical move (or hold) as its action
        return
    _finish_action(state, unit, result)


def _do_assault(
    state: ManovraState, command: Assault, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    target = _target_unit(state, unit, command.target)
    if unit.kind["vehicle"] and unit.kind["small_arms"] is None:
        # Armour against infantry or soft vehicles: the target's ET to avoid being overrun.
        resolution = _resolve(
            "overrun", ground.OverrunInput(ad=target.ad, target_id=target.id), tray
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        _finish_action(state, unit, result)
        return
    if unit.type not in ("fanteria", "mortaio"):
        raise IllegalAction("error.manovra.cannot_assault", unit=unit.name)
    closed_vehicle = target.kind["vehicle"] and not target.open_topped
    if not closed_vehicle:
        courage = _resolve(
            "assault", ground.AssaultInput(ad=unit.ad, cv=unit.cv, target_id=target.id), tray
        )
        result.resolutions.append(courage)
        if courage.outcome.key != "manovra.assault.goes_in":
            _finish_action(state, unit, result)
            return
    if target.kind["vehicle"]:
        weapon_id = command.weapon or next(
            (w for w in unit.weapons if state.weapons[w].kind is WeaponKind.HEAVY), None
        )
        if weapon_id is None:
            raise IllegalAction("error.manovra.choose_weapon", weapons=", ".join(unit.weapons))
        weapon = _weapon(state, unit, weapon_id)
        fire_command = Fire(
            unit=unit.id, target=target.id, distance_cm=0, weapon=weapon_id, impact="gt75"
        )
        _fire_heavy(state, unit, target, weapon_id, weapon, fire_command, 1, tray, result)
    else:
        duels = tuple(
            ground.Duel(ad=unit.ad, opponent_ad=target.ad)
            for _ in range(min(unit.models, target.models, 12))
        )
        resolution = _resolve(
            "close_combat",
            ground.CloseCombatInput(duels=duels, target_id=target.id, attacker_id=unit.id),
            tray,
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    _finish_action(state, unit, result)


# -- step 4: indirect fire ----------------------------------------------------------------------


def _marker(state: ManovraState, marker_id: str) -> FireMarker:
    for marker in state.markers:
        if marker.id == marker_id:
            return marker
    raise UnknownName("error.manovra.unknown_marker", name=marker_id[:MAX_TEXT])


def _do_execute(
    state: ManovraState,
    command: ExecuteFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    _require_step(state, TurnStep.INDIRECT)
    marker = _marker(state, command.marker)
    battery = state.platoons[marker.battery]
    if actor_side is not None and battery.side != actor_side:
        raise IllegalAction("error.manovra.not_your_unit", unit=battery.name)
    if marker.executed:
        raise IllegalAction("error.manovra.marker_done", marker=marker.id)
    next_id = next((m for m in state.marker_order if not _marker(state, m).executed), marker.id)
    if next_id != marker.id:
        raise IllegalAction("error.manovra.marker_order", marker=marker.id, next=next_id)
    gunners = state.units[battery.units[0]]
    kind = (
        checks.ScatterKind.INDIRETTO_FUORI_CAMPO
        if battery.off_table
        else checks.ScatterKind.INDIRETTO_IN_CAMPO
    )
    shots = max(
        1,
        sum(
            w.rof_stationary for wid in gunners.weapons for w in [state.weapons[wid]] if w.indirect
        ),
    )
    for _ in range(shots):
        resolution = _resolve(
            "scatter", checks.ScatterInput(kind=kind, ad=gunners.ad, cv=gunners.cv), tray
        )
        result.resolutions.append(resolution)
    marker.executed = True
    result.notices.append(
        Outcome.of("manovra.turn.marker_executed", marker=marker.id, target=marker.target)
    )


def _do_fragments(
    state: ManovraState, command: Fragments, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    target = state.unit(command.target)
    if not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    ad = command.ad
    calibre = command.calibre_mm
    if command.marker is not None:
        marker = _marker(state, command.marker)
        if not marker.executed:
            raise IllegalAction("error.manovra.marker_not_fired", marker=marker.id)
        gunners = state.units[state.platoons[marker.battery].units[0]]
        if actor_side is not None and gunners.side != actor_side:
            raise IllegalAction("error.manovra.not_your_unit", unit=gunners.name)
        ad = gunners.ad if ad is None else ad
        calibre = calibre or max((state.weapons[w].calibre_mm or 0) for w in gunners.weapons)
    elif actor_side is not None:
        raise IllegalAction("error.manovra.fragments_need_marker")
    if ad is None or not calibre:
        raise InvalidInput("error.manovra.fragments_need_calibre")
    resolution = _resolve(
        "he_fragments",
        fire.HeFragmentsInput(
            ad=ad,
            target=fire.HeavyTarget(target.kind["heavy_target"]),
            calibre_mm=calibre,
            armour=target.armour.get("side", {}),
            turret=target.turret,
            tracked=target.tracked,
            open_topped=target.open_topped,
            cover=_target_cover(target),
            models_present=target.models,
            target_has_manoeuvred=target.acted,
            target_id=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Declare: _do_declare,
    PassToken: _do_pass,
    RequestFire: _do_request,
    Move: _do_move,
    Fire: _do_fire,
    Hold: _do_hold,
    TakeTest: _do_test,
    RecoverPanic: _do_recover,
    Assault: _do_assault,
    ExecuteFire: _do_execute,
    Fragments: _do_fragments,
}

RANGE_BANDS = tuple(RangeBand)
