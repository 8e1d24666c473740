"""Playing w40k4: the game state, the commands players give, and the turn sequence.

``apply(state, command, dice)`` checks a command against the state (whose player turn,
which phase, who owns the unit, what the unit already did this turn, what it fired, whether
it is locked in combat, falling back, in reserve, shaken or stunned), resolves it through
the ruleset's procedures, and returns a new state with the resolutions. It never mutates
its input: a refused command leaves the state exactly as it was.

Turn sequence (SEQUENZA DEL TURNO), per player turn: movement (reserves rolled as it
begins, regroup tests owed), shooting, assault (assault moves, then every combat resolved).
Morale checks for 25% losses are owed when the movement and shooting phases end; the phase
closes once they are taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.core.dice import DiceSource, DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview, run_command
from rules.core.procedures import InputT, describe_validation_error
from rules.core.resolution import EffectKind, Outcome, Resolution
from rules.w40k4 import chain, checks, lookups
from rules.w40k4.model import (
    Allowance,
    Damage,
    Facing,
    Phase,
    Speed,
    Template,
    Terrain,
    WeaponType,
    unit_types,
)
from rules.w40k4.scenario import Scenario, Weapon
from rules.w40k4.tables import load_tables

MAX_TEXT = 80
PHASES = (Phase.MOVEMENT, Phase.SHOOTING, Phase.ASSAULT)


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class UnitState(_State):
    """A unit in play."""

    id: str
    name: str
    side: str
    type: str
    models: int
    initial_models: int
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


class PendingTest(_State):
    """A morale check or regroup test owed by a unit."""

    unit: str
    reason: Literal["losses", "combat", "regroup"]
    modifier: int = 0
    winners: list[str] = Field(default_factory=list)


class PendingTemplate(_State):
    """A blast template that has scattered: the players count the models under it."""

    id: str
    unit: str
    weapon: str
    landed: str


class W40kState(_State):
    """The whole game document of a w40k4 game (stored as JSON by ``db/``)."""

    ruleset: Literal["w40k4"] = "w40k4"
    scenario_id: str
    title: str
    turn: int = 1
    max_turns: int = 6
    first_side: str
    active: str
    phase: Phase = Phase.MOVEMENT
    closing: bool = False
    ended: bool = False
    sides: dict[str, str]
    units: dict[str, UnitState]
    order: list[str] = Field(default_factory=list, description="unit ids in scenario order")
    weapons: dict[str, Weapon]
    pending: list[PendingTest] = Field(default_factory=list)
    templates: list[PendingTemplate] = Field(default_factory=list)
    resolved_combats: list[str] = Field(default_factory=list)
    counter: int = 0

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


# -- commands --------------------------------------------------------------------------------


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
    terrain: Terrain = Terrain.OPEN
    inside: bool = False
    cover: str | None = None
    kind: Literal["normal", "deepstrike", "mishap"] = "normal"
    target: str | None = None


class Fire(_Command):
    """Shoot at an enemy unit (/fire); /odds previews it."""

    verb: Literal["fire"] = "fire"
    unit: str
    target: str
    distance: float = Field(ge=0, le=240)
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
    distance: float = Field(ge=0, le=48)
    terrain: Terrain = Terrain.OPEN


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


Applied = CoreApplied[W40kState]


# -- setting up --------------------------------------------------------------------------------


def new_game(scenario: Scenario) -> W40kState:
    """The state at the start of turn 1: the first side's movement phase."""
    units: dict[str, UnitState] = {}
    for side in scenario.sides:
        for spec in side.units:
            kind = unit_types()[spec.type]
            p = spec.profile
            cover = lookups.cover_save(spec.cover)[2] if spec.cover is not None else None
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                type=spec.type,
                models=spec.models,
                initial_models=spec.models,
                ws=p.ws,
                bs=p.bs,
                s=p.s,
                t=p.t,
                w=p.w,
                i=p.i,
                a=p.a,
                ld=p.ld,
                sv=p.sv,
                invulnerable=spec.invulnerable,
                weapons=dict(spec.weapons),
                weapon_order=list(spec.weapons),
                close_combat_weapon=spec.close_combat_weapon,
                move=spec.move if spec.move is not None else int(kind["move"]),
                assault=spec.assault if spec.assault is not None else int(kind["assault"]),
                deep_strike=spec.deep_strike,
                vehicle=bool(kind.get("vehicle")),
                walker=bool(kind.get("walker")),
                fast=spec.fast,
                armour=spec.armour.model_dump() if spec.armour else {},
                open_topped=spec.open_topped,
                squadron=spec.squadron,
                guns=spec.guns,
                location="reserve" if spec.reserve else "table",
                cover=cover,
                phase_start=spec.models,
            )
    return W40kState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        first_side=scenario.first_side,
        active=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        units=units,
        order=list(units),
        weapons=dict(scenario.weapons),
    )


def load_state(document: dict[str, Any]) -> W40kState:
    """Rebuild a state from its stored JSON document."""
    return W40kState.model_validate(document)


# -- whose move ------------------------------------------------------------------------------


def awaiting(state: W40kState) -> str | None:
    """The side whose move it is: the side owing a test first, else the active player."""
    if state.ended:
        return None
    if state.pending:
        return state.units[state.pending[0].unit].side
    return state.active


# -- applying commands -----------------------------------------------------------------------


def apply(
    state: W40kState,
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
    if state.ended and not isinstance(command, Test):
        raise IllegalAction("error.w40k4.game_over")
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        preview=preview,
        other_dice=other_dice,
    )


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    from rules.w40k4 import PROCEDURES  # the registry imports this module

    return PROCEDURES[procedure].resolve_on(data, tray)


def _input(model: type[InputT], **fields: Any) -> InputT:
    """A procedure input built from the state; out-of-bounds values become a clear error."""
    try:
        return model(**fields)
    except ValidationError as error:
        raise InvalidInput(
            "error.invalid_input.detail", detail=describe_validation_error(error)
        ) from None


def _own(unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.w40k4.not_your_unit", unit=unit.name)


def _require_phase(state: W40kState, phase: Phase) -> None:
    if state.phase is not phase:
        raise IllegalAction(f"error.w40k4.needs_{phase.value}")


def _acting(state: W40kState, unit_id: str, actor_side: str | None, phase: Phase) -> UnitState:
    """The unit must exist, be the actor's and alive; outside a preview it must also be its
    side's player turn, in ``phase``, with no test owed and the phase not closing."""
    unit = state.unit(unit_id)
    _own(unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.w40k4.unit_out", unit=unit.name)
    if is_preview():
        return unit
    if unit.side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    _require_phase(state, phase)
    if state.closing:
        raise IllegalAction("error.w40k4.phase_closing")
    owed = [p for p in state.pending if p.unit == unit.id]
    if owed:
        raise IllegalAction("error.w40k4.test_owed", unit=unit.name)
    return unit


def _enemy(state: W40kState, unit: UnitState, target_id: str) -> UnitState:
    target = state.unit(target_id)
    if target.side == unit.side:
        raise IllegalAction("error.w40k4.friendly_target", target=target.name)
    if not target.on_table:
        raise IllegalAction("error.w40k4.target_not_on_table", target=target.name)
    return target


def _timed(state: W40kState, unit: UnitState, status: str) -> bool:
    return unit.timed.get(status, -1) >= state.player_turn


def _locked(unit: UnitState) -> bool:
    return bool(unit.locked_with)


# -- the turn ----------------------------------------------------------------------------------


def _do_next(
    state: W40kState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    if actor_side is not None and actor_side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    if state.pending:
        first = state.units[state.pending[0].unit]
        raise IllegalAction("error.w40k4.tests_owed", unit=first.name)
    if state.templates:
        raise IllegalAction(
            "error.w40k4.template_owed", unit=state.units[state.templates[0].unit].name
        )
    if state.phase is Phase.MOVEMENT:
        waiting = [
            u
            for u in state.ordered()
            if u.side == state.active and u.alive and u.location == "arriving"
        ]
        if waiting and actor_side is not None:
            raise IllegalAction("error.w40k4.must_enter", unit=waiting[0].name)
        for unit in waiting:  # the referee moved on: they stay in reserve
            unit.location = "reserve"
    if state.phase is Phase.ASSAULT:
        open_combats = _open_combats(state)
        if open_combats and actor_side is not None:
            raise IllegalAction(
                "error.w40k4.combats_left", unit=state.units[open_combats[0][0]].name
            )
    if state.phase in (Phase.MOVEMENT, Phase.SHOOTING) and _owe_losses_tests(state, result):
        state.closing = True
        result.notices.append(Outcome.of("w40k4.turn.closing", phase=state.phase.value))
        return
    _advance(state, result, tray)


def _owe_losses_tests(state: W40kState, result: Applied) -> bool:
    """CONTROLLI DI MORALE: 25% or more lost in this phase → a check at its end."""
    fraction = float(load_tables()["controlli_morale"].row_by_id("losses").data["fraction"])
    owed = False
    for unit in state.ordered():
        if (
            unit.on_table
            and not unit.vehicle
            and unit.ld is not None
            and not unit.has("falling_back")
            and not _locked(unit)
            and unit.phase_losses > 0
            and unit.phase_losses >= fraction * unit.phase_start
        ):
            state.pending.append(PendingTest(unit=unit.id, reason="losses"))
            result.notices.append(
                Outcome.of(
                    "w40k4.turn.morale_owed",
                    unit=unit.name,
                    lost=unit.phase_losses,
                    start=unit.phase_start,
                )
            )
            owed = True
    return owed


def _advance(state: W40kState, result: Applied, tray: DiceTray | None) -> None:
    """Close the phase: into the next one, or the next player's turn."""
    state.closing = False
    if state.phase is Phase.ASSAULT:
        _end_player_turn(state, result, tray)
        return
    _enter_phase(state, PHASES[PHASES.index(state.phase) + 1], result, tray)


def _enter_phase(state: W40kState, phase: Phase, result: Applied, tray: DiceTray | None) -> None:
    state.phase = phase
    state.resolved_combats = []
    for unit in state.ordered():
        unit.phase_start = unit.models
        unit.phase_losses = 0
    result.notices.append(
        Outcome.of(
            "w40k4.turn.phase",
            turn=state.turn,
            side=state.sides[state.active],
            phase=phase.value,
        )
    )
    if phase is not Phase.MOVEMENT:
        return
    for unit in state.ordered():
        if unit.side != state.active or not unit.alive:
            continue
        if unit.location == "reserve" and tray is not None and state.turn > 1:
            resolution = _resolve(
                "reserves", checks.ReservesInput(turn=state.turn, target=unit.id), tray
            )
            result.resolutions.append(resolution)
            if resolution.outcome.key == "w40k4.reserves.arrives":
                unit.location = "arriving"
                result.notices.append(Outcome.of("w40k4.turn.arrives", unit=unit.name))
        if unit.location == "table" and unit.has("falling_back") and not _locked(unit):
            state.pending.append(PendingTest(unit=unit.id, reason="regroup"))


def _end_player_turn(state: W40kState, result: Applied, tray: DiceTray | None) -> None:
    ending = state.player_turn
    for unit in state.ordered():
        unit.timed = {k: v for k, v in unit.timed.items() if v > ending}
        unit.charged = False
    if state.active == state.first_side:
        state.active = state.other_side(state.first_side)
    else:
        if state.turn >= state.max_turns:
            _end_game(state, result)
            return
        state.turn += 1
        state.active = state.first_side
    for unit in state.ordered():
        if unit.side == state.active:
            unit.moved = unit.fired = unit.assaulted = False
            unit.entered = unit.deep_struck = unit.mishap_rolled = False
            unit.moved_inches = 0
            unit.speed = None
            unit.fired_types = []
            unit.fired_at = None
    _enter_phase(state, Phase.MOVEMENT, result, tray)


def _end_game(state: W40kState, result: Applied) -> None:
    state.ended = True
    if lookups.standard("fine_partita").get("reserves_destroyed"):
        for unit in state.ordered():
            if unit.alive and unit.location != "table":
                unit.add("destroyed")
                result.notices.append(Outcome.of("w40k4.turn.lost_in_reserve", unit=unit.name))
    result.notices.append(Outcome.of("w40k4.turn.game_over", turn=state.turn))


# -- effects -----------------------------------------------------------------------------------


def _lose_models(state: W40kState, unit: UnitState, lost: int | None) -> int:
    """Remove models (None: all); returns how many were removed."""
    amount = unit.models if lost is None else min(lost, unit.models)
    unit.models -= amount
    unit.phase_losses += amount
    if unit.models <= 0:
        unit.models = 0
        unit.wounds_taken = 0
        unit.add("destroyed")
        _unlock(state, unit)
        state.pending = [p for p in state.pending if p.unit != unit.id]
    return amount


def _unlock(state: W40kState, unit: UnitState) -> None:
    for other_id in unit.locked_with:
        other = state.units[other_id]
        other.locked_with = [u for u in other.locked_with if u != unit.id]
    unit.locked_with = []


def _wound_models(state: W40kState, unit: UnitState, wounds: int) -> int:
    """Wounds with no save (dangerous terrain): models removed as wounds accumulate."""
    total = unit.wounds_taken + wounds
    killed = min(unit.models, total // unit.w)
    unit.wounds_taken = total % unit.w if killed < unit.models else 0
    return _lose_models(state, unit, killed)


def _chain_step(resolution: Resolution) -> dict[str, Any]:
    for step in resolution.steps:
        if step.key == "w40k4.step.casualties":
            return dict(step.params)
    return {}


def _apply_effects(state: W40kState, resolution: Resolution, result: Applied) -> int:
    """Apply a resolution's effects; returns the models lost (vehicles destroyed)."""
    lost = 0
    for effect in resolution.effects:
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.CASUALTIES:
            lost += _lose_models(state, unit, effect.amount)
        elif effect.kind is EffectKind.DAMAGE:
            lost += _apply_damage(state, unit, effect.key, effect.amount or 1, result)
        elif effect.kind is EffectKind.STATUS and effect.key == "falling_back":
            unit.add("falling_back")
            _unlock(state, unit)
    return lost


def _hit(state: W40kState, target: UnitState, resolution: Resolution, result: Applied) -> int:
    """Apply an attack chain to its target: casualties or damage, and the wounds left."""
    lost = _apply_effects(state, resolution, result)
    params = _chain_step(resolution)
    if "wounds_taken" in params and target.alive:
        target.wounds_taken = int(params["wounds_taken"])
    return lost


def _apply_damage(state: W40kState, unit: UnitState, key: str, amount: int, result: Applied) -> int:
    if key == "dangerous_models":
        return _wound_models(state, unit, amount)
    if key == "dangerous_guns":
        unit.guns = max(0, unit.guns - amount)
        result.notices.append(Outcome.of("w40k4.move.guns_lost", unit=unit.name, n=amount))
        return 0
    if key == "dangerous_vehicles":
        if unit.squadron:
            return sum(
                _apply_damage(state, unit, Damage.WRECKED.value, 1, result) for _ in range(amount)
            )
        return _apply_damage(state, unit, Damage.IMMOBILISED.value, 1, result)
    damage = Damage(key)
    if damage.destroys:
        unit.add(damage.value)
        return _lose_models(state, unit, 1)
    if damage is Damage.IMMOBILISED:
        unit.add("immobilised")
    elif damage is Damage.WEAPON_DESTROYED:
        working = [w for w in _weapon_order(state, unit) if w not in unit.destroyed_weapons]
        if working:
            unit.destroyed_weapons.append(working[0])
        else:
            unit.add("immobilised")
    else:
        expiry = state.player_turn + (2 if unit.side == state.active else 1)
        unit.timed[damage.value] = max(unit.timed.get(damage.value, -1), expiry)
    return 0


def _defensive(state: W40kState, weapon: Weapon) -> bool:
    if weapon.defensive is not None:
        return weapon.defensive
    return weapon.strength <= int(lookups.standard("armi_difensive")["max_strength"])


def _weapon_order(state: W40kState, unit: UnitState) -> list[str]:
    """The unit's weapons, main weapons first (the order 'Arma distrutta' takes them)."""
    names = list(unit.weapon_order)
    return sorted(names, key=lambda w: _defensive(state, state.weapons[w]))


# -- movement phase ----------------------------------------------------------------------------


def _do_move(
    state: W40kState, command: Move, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor_side, Phase.MOVEMENT)
    if command.kind == "deepstrike":
        _deep_strike(state, unit, command, tray, result)
        return
    if command.kind == "mishap":
        _mishap(state, unit, command, tray, result)
        return
    if unit.location == "reserve":
        raise IllegalAction("error.w40k4.in_reserve", unit=unit.name)
    if unit.moved or unit.entered or unit.deep_struck:
        raise IllegalAction("error.w40k4.already_moved", unit=unit.name)
    if unit.has("falling_back"):
        raise IllegalAction("error.w40k4.falling_back", unit=unit.name)
    if _locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    moving = command.distance > 0
    if moving and unit.vehicle and (unit.has("immobilised") or _timed(state, unit, "stunned")):
        raise IllegalAction("error.w40k4.cannot_move", unit=unit.name)
    if unit.location == "arriving" and not moving:
        raise IllegalAction("error.w40k4.must_enter", unit=unit.name)
    limit = unit.move
    if unit.vehicle and not unit.walker:
        limit = int(lookups.standard("velocita_veicoli")["tavoletta" if unit.fast else "manovra"])
    if command.distance > limit:
        raise IllegalAction("error.w40k4.too_far", unit=unit.name, limit=limit)
    cover = lookups.cover_save(command.cover)[2] if command.cover is not None else None
    plan_input = checks.MovementInput(
        unit_type=unit.type,
        distance=command.distance,
        terrain=command.terrain,
        inside=command.inside,
        fast=unit.fast,
    )
    plan = checks.plan_move(plan_input)
    if moving:
        result.resolutions.append(_resolve("movement", plan_input, tray))
    distance = command.distance
    if plan.slowed:
        difficult = _resolve(
            "difficult_terrain",
            checks.DifficultTerrainInput(distance=command.distance, limit=min(limit, 24)),
            tray,
        )
        result.resolutions.append(difficult)
        distance = min(distance, float(dict(difficult.outcome.params)["inches"]))
    if moving:
        _dangerous(state, unit, plan.dangerous, tray, result)
    unit.moved = distance > 0
    unit.moved_inches = distance
    if unit.vehicle:
        row = lookups.vehicle_row(unit.fast, unit.walker)
        unit.speed = (lookups.vehicle_speed(distance, row) or Speed.STAZIONARIO).value
    if unit.location == "arriving":
        unit.location = "table"
        unit.entered = True
    if moving or command.cover is not None:
        unit.cover = cover
    result.notices.append(
        Outcome.of(
            "w40k4.move.done", unit=unit.name, inches=_inches(distance), cover=unit.cover or "-"
        )
    )
    if command.target is not None:
        _tank_shock(state, unit, command.target, tray, result)


def _inches(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _dangerous(
    state: W40kState, unit: UnitState, owed: str, tray: DiceTray, result: Applied
) -> None:
    kinds = {
        "models": ["models"],
        "vehicles": ["vehicles"],
        "guns": ["guns"],
        "guns_and_models": ["guns", "models"],
    }.get(owed, [])
    for kind in kinds:
        dice = unit.guns if kind == "guns" else unit.models
        if dice <= 0 or not unit.alive:
            continue
        data = checks.DangerousTerrainInput(dice=dice, kind=kind, target=unit.id)
        resolution = _resolve("dangerous_terrain", data, tray)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution, result)


def _tank_shock(
    state: W40kState, unit: UnitState, target_id: str, tray: DiceTray, result: Applied
) -> None:
    if not unit.vehicle or unit.walker or not unit.moved:
        raise IllegalAction("error.w40k4.cannot_tank_shock", unit=unit.name)
    target = _enemy(state, unit, target_id)
    if target.vehicle or target.ld is None or _locked(target):
        raise IllegalAction("error.w40k4.cannot_tank_shock_target", target=target.name)
    test = _resolve(
        "leadership",
        checks.LeadershipInput(leadership=target.ld, reason="tank_shock", target=target.id),
        tray,
    )
    result.resolutions.append(test)
    if test.outcome.key == "w40k4.test.failed":
        _fall_back(state, target, tray, result)


def _fall_back(state: W40kState, unit: UnitState, tray: DiceTray, result: Applied) -> None:
    resolution = _resolve("fall_back", checks.FallBackInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)


def _deep_strike(
    state: W40kState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    if unit.location != "arriving":
        raise IllegalAction("error.w40k4.not_arriving", unit=unit.name)
    if not unit.deep_strike:
        raise IllegalAction("error.w40k4.no_deep_strike", unit=unit.name)
    resolution = _resolve("deep_strike", checks.DeepStrikeInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.location = "table"
    unit.entered = unit.deep_struck = unit.moved = True
    if command.cover is not None:
        unit.cover = lookups.cover_save(command.cover)[2]
    else:
        unit.cover = None


def _mishap(
    state: W40kState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    if not unit.deep_struck or unit.mishap_rolled:
        raise IllegalAction("error.w40k4.no_mishap", unit=unit.name)
    resolution = _resolve("mishap", checks.MishapInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    unit.mishap_rolled = True
    effect = resolution.outcome.key.rsplit(".", 1)[-1]
    if effect == "destroyed":
        _lose_models(state, unit, None)
    elif effect == "delayed":
        unit.location = "reserve"
        unit.deep_struck = unit.entered = unit.moved = False
    elif command.terrain is not Terrain.OPEN:
        _dangerous(state, unit, "vehicles" if unit.vehicle else "models", tray, result)


# -- shooting phase ----------------------------------------------------------------------------


@dataclass
class _Group:
    weapon_id: str
    weapon: Weapon
    count: int
    shots: int


def _weapon_count(unit: UnitState, weapon_id: str, weapon: Weapon) -> int:
    carried = unit.weapons[weapon_id]
    if unit.vehicle:
        return -(-carried * unit.models // unit.initial_models)
    count = min(carried, unit.models)
    if unit.guns and weapon.type is WeaponType.PESANTE:
        count = min(count, unit.guns)
    return count


def _groups(state: W40kState, unit: UnitState, command: Fire, result: Applied) -> list[_Group]:
    """The weapon groups that fire: checked against range, movement and the vehicle table."""
    explicit = command.weapon is not None
    names = (
        [n.strip() for n in (command.weapon or "").split(",") if n.strip()]
        if explicit
        else list(unit.weapon_order)
    )
    if explicit and not names:
        raise InvalidInput("error.w40k4.no_weapon_named")
    moved = unit.moved or unit.has("falling_back")  # falling back: fires as if it moved
    heavy_ok = unit.vehicle or bool(unit_types()[unit.type].get("moves_and_fires_heavy"))
    groups: list[_Group] = []
    for name in dict.fromkeys(names):
        if name not in unit.weapons:
            raise UnknownName(
                "error.w40k4.no_such_weapon",
                unit=unit.name,
                weapon=name[:40],
                weapons=", ".join(unit.weapon_order),
            )
        weapon = state.weapons[name]
        problem: str | None = None
        rules = lookups.weapon_rules(weapon.type.value)
        shots = int(rules.get("fixed_shots", weapon.shots))
        if name in unit.destroyed_weapons:
            problem = "weapon_destroyed"
        elif "rapid_fire" in rules:
            rapid = rules["rapid_fire"]
            if command.distance <= float(rapid["short_range"]):
                shots = int(rapid["short_shots"])
            elif weapon.range is not None and command.distance <= weapon.range:
                shots = int(rapid["long_shots"])
                if moved and rapid["long_needs_stationary"] and not unit.vehicle:
                    problem = "rapid_fire_moved"
            else:
                problem = "out_of_range"
        elif weapon.range is not None and command.distance > weapon.range:
            problem = "out_of_range"
        if problem is None and moved and not rules["move_and_fire"] and not heavy_ok:
            problem = "heavy_moved"
        count = _weapon_count(unit, name, weapon)
        if problem is None and count <= 0:
            problem = "no_crew"
        if problem is not None:
            if explicit:
                raise IllegalAction(
                    f"error.w40k4.{problem}",
                    weapon=weapon.name,
                    distance=_inches(command.distance),
                )
            result.notices.append(Outcome.of(f"w40k4.fire.skipped_{problem}", weapon=weapon.name))
            continue
        groups.append(_Group(name, weapon, count, shots))
    if not groups:
        raise IllegalAction("error.w40k4.nothing_fires", unit=unit.name)
    if unit.vehicle:
        _vehicle_allowance(state, unit, groups, explicit, result)
    return groups


def _vehicle_allowance(
    state: W40kState, unit: UnitState, groups: list[_Group], explicit: bool, result: Applied
) -> None:
    speed = Speed(unit.speed) if unit.speed else Speed.STAZIONARIO
    allowance, _ = lookups.vehicle_allowance(lookups.vehicle_row(unit.fast, unit.walker), speed)
    if allowance in (Allowance.NONE, Allowance.NOT_ALLOWED):
        raise IllegalAction("error.w40k4.vehicle_cannot_fire", unit=unit.name, speed=speed.value)
    if allowance is Allowance.ALL:
        return
    main = [g for g in groups if not _defensive(state, g.weapon)]
    if len(main) > 1:
        raise IllegalAction(
            "error.w40k4.one_main_weapon",
            unit=unit.name,
            weapons=", ".join(g.weapon_id for g in main),
        )
    if main and main[0].count > 1:
        main[0].count = 1
        result.notices.append(Outcome.of("w40k4.fire.one_main", weapon=main[0].weapon.name))


def _do_fire(
    state: W40kState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor_side, Phase.SHOOTING)
    preview = is_preview()
    if not preview and unit.fired:
        raise IllegalAction("error.w40k4.already_fired", unit=unit.name)
    if not unit.on_table:
        raise IllegalAction("error.w40k4.not_on_table", unit=unit.name)
    if _locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    if unit.vehicle and (_timed(state, unit, "shaken") or _timed(state, unit, "stunned")):
        raise IllegalAction("error.w40k4.crew_shaken", unit=unit.name)
    if unit.bs is None:
        raise IllegalAction("error.w40k4.cannot_shoot", unit=unit.name)
    target = _enemy(state, unit, command.target)
    if _locked(target):
        raise IllegalAction("error.w40k4.target_locked", target=target.name)
    groups = _groups(state, unit, command, result)
    cover = command.cover if command.cover is not None else target.cover
    for group in groups:
        if not target.alive:
            result.notices.append(Outcome.of("w40k4.fire.target_gone", weapon=group.weapon.name))
            continue
        _fire_group(state, unit, target, group, command, cover, tray, result)
    unit.fired = True
    unit.fired_at = target.id
    unit.fired_types = sorted({*unit.fired_types, *(g.weapon.type.value for g in groups)})


def _fire_group(
    state: W40kState,
    unit: UnitState,
    target: UnitState,
    group: _Group,
    command: Fire,
    cover: str | None,
    tray: DiceTray,
    result: Applied,
) -> None:
    weapon = group.weapon
    template = weapon.template
    if template in (Template.AREA, Template.ARTIGLIERIA):
        for _ in range(group.count * group.shots):
            scatter = _resolve(
                "blast_scatter",
                checks.BlastScatterInput(
                    template=template.value, bs=unit.bs or 1, barrage=weapon.barrage
                ),
                tray,
            )
            result.resolutions.append(scatter)
            if is_preview():
                continue
            state.counter += 1
            state.templates.append(
                PendingTemplate(
                    id=f"t{state.counter}",
                    unit=unit.id,
                    weapon=group.weapon_id,
                    landed=scatter.outcome.code,
                )
            )
        return
    attacks, auto_hits = group.count * group.shots, 0
    if template is Template.SAGOMA:
        if command.models is None:
            raise InvalidInput("error.w40k4.models_needed", weapon=weapon.name)
        attacks = 0
        auto_hits = min(command.models, group.count if target.vehicle else target.models)
        if auto_hits == 0:
            result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=weapon.name))
            return
    resolution = _attack(
        state,
        target,
        tray,
        weapon=weapon,
        attacks=attacks,
        auto_hits=auto_hits,
        hit={"bs": unit.bs},
        cover=cover,
        facing=command.facing,
    )
    result.resolutions.append(resolution)
    _hit(state, target, resolution, result)


def _attack(
    state: W40kState,
    target: UnitState,
    tray: DiceTray,
    *,
    weapon: Weapon | None,
    attacks: int,
    auto_hits: int,
    hit: dict[str, int | None],
    cover: str | None,
    facing: Facing,
    strength: int | None = None,
    close_combat: bool = False,
) -> Resolution:
    """One group of attacks at a unit: the chain against models or against a vehicle."""
    s = strength if strength is not None else (weapon.strength if weapon else 1)
    ap = weapon.ap if weapon else None
    label = weapon.name if weapon else None
    if target.vehicle:
        armour = target.armour.get(facing.value, 10)
        vehicle_data = _input(
            chain.VehicleAttackInput,
            weapon=label,
            attacks=attacks,
            auto_hits=auto_hits,
            strength=s,
            ap=ap,
            armour=armour,
            facing=facing,
            open_topped=target.open_topped,
            squadron=target.squadron,
            models=max(1, min(target.models, 20)),
            target=target.id,
            **hit,
        )
        return _resolve("vehicle_hits", vehicle_data, tray)
    data = _input(
        chain.AttackInput,
        weapon=label,
        attacks=attacks,
        auto_hits=auto_hits,
        strength=s,
        ap=ap,
        toughness=target.t or 1,
        save=target.sv,
        invulnerable=target.invulnerable,
        cover=None if close_combat else cover,
        ignores_cover=bool(weapon and weapon.template is Template.SAGOMA),
        wounds=target.w,
        wounds_taken=target.wounds_taken,
        models=max(1, min(target.models, 1000)),
        target=target.id,
        **hit,
    )
    return _resolve("close_combat" if close_combat else "shooting", data, tray)


def _do_template(
    state: W40kState,
    command: PlaceTemplate,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor_side)
    pending = next((t for t in state.templates if t.unit == unit.id), None)
    if pending is None:
        raise IllegalAction("error.w40k4.no_template", unit=unit.name)
    target = state.unit(command.target)
    if not target.on_table:
        raise IllegalAction("error.w40k4.target_not_on_table", target=target.name)
    weapon = state.weapons[pending.weapon]
    state.templates.remove(pending)
    hits = min(command.models, 1 if target.vehicle else target.models)
    partial = 0 if target.vehicle else min(command.partial, max(target.models - hits, 0))
    if hits + partial == 0:
        result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=weapon.name))
        return
    hit_on = int(lookups.standard("sagoma_parziale")["score"])
    resolution = _attack(
        state,
        target,
        tray,
        weapon=weapon,
        attacks=partial,
        auto_hits=hits,
        hit={"hit_on": hit_on if partial else None},
        cover=target.cover,
        facing=command.facing,
    )
    result.resolutions.append(resolution)
    _hit(state, target, resolution, result)


# -- assault phase -----------------------------------------------------------------------------


def _do_assault(
    state: W40kState, command: Assault, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor_side, Phase.ASSAULT)
    if not unit.on_table:
        raise IllegalAction("error.w40k4.not_on_table", unit=unit.name)
    if unit.assaulted:
        raise IllegalAction("error.w40k4.already_assaulted", unit=unit.name)
    if _locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    if unit.has("falling_back"):
        raise IllegalAction("error.w40k4.falling_back", unit=unit.name)
    if (unit.vehicle and not unit.walker) or unit.assault <= 0:
        raise IllegalAction("error.w40k4.cannot_assault", unit=unit.name)
    rule = lookups.standard("assalto_dopo_tiro")
    if unit.deep_struck and rule.get("no_assault_after_deep_strike"):
        raise IllegalAction("error.w40k4.deep_struck_no_assault", unit=unit.name)
    for fired in unit.fired_types:
        if not lookups.weapon_rules(fired)["assault_after"]:
            raise IllegalAction("error.w40k4.fired_no_assault", unit=unit.name, type=fired)
    target = _enemy(state, unit, command.target)
    if unit.fired_at is not None and rule.get("same_target") and target.id != unit.fired_at:
        raise IllegalAction(
            "error.w40k4.assault_fired_target", target=state.units[unit.fired_at].name
        )
    if command.distance > unit.assault:
        raise IllegalAction("error.w40k4.too_far", unit=unit.name, limit=unit.assault)
    slowed, _, _ = lookups.terrain_rules(unit.type)
    resolution = _resolve(
        "assault_move",
        checks.AssaultMoveInput(
            distance=command.distance,
            assault_range=unit.assault,
            slowed=slowed and command.terrain is not Terrain.OPEN,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    unit.assaulted = True
    if resolution.outcome.key != "w40k4.assault.charged":
        return
    unit.charged = True
    unit.locked_with.append(target.id)
    if unit.id not in target.locked_with:
        target.locked_with.append(unit.id)
    result.notices.append(Outcome.of("w40k4.assault.react", target=target.name))


def _component(state: W40kState, unit: UnitState) -> list[str]:
    seen: list[str] = []
    frontier = [unit.id]
    while frontier:
        current = frontier.pop()
        if current in seen:
            continue
        seen.append(current)
        frontier += [u for u in state.units[current].locked_with if u not in seen]
    return [u.id for u in state.ordered() if u.id in seen]


def _open_combats(state: W40kState) -> list[list[str]]:
    """Combats not yet resolved in this assault phase (each a list of unit ids)."""
    combats: list[list[str]] = []
    seen: set[str] = set()
    for unit in state.ordered():
        if unit.id in seen or not unit.locked_with or not unit.alive:
            continue
        members = _component(state, unit)
        seen.update(members)
        if not any(m in state.resolved_combats for m in members):
            combats.append(members)
    return combats


def _attacks_of(state: W40kState, unit: UnitState) -> int:
    rule = lookups.standard("attacchi")
    per_model = (unit.a or 0) + (int(rule["charge_bonus"]) if unit.charged else 0)
    attacks = unit.models * per_model
    if unit.close_combat_weapon:
        pistols = sum(
            count
            for name, count in unit.weapons.items()
            if lookups.weapon_rules(state.weapons[name].type.value).get("extra_close_combat_weapon")
        )
        attacks += min(pistols, unit.models) * int(rule["second_weapon_bonus"])
    return attacks


def _cc_hit(
    state: W40kState, unit: UnitState, enemy: UnitState, attacks: int
) -> tuple[dict[str, int | None], int, int, Facing]:
    """How ``unit``'s attacks hit ``enemy``: (hit fields, rolled attacks, auto hits, facing)."""
    rule = lookups.standard("veicoli_corpo_a_corpo")
    if not enemy.vehicle or enemy.walker:
        facing = Facing(rule["walker_armour"]) if enemy.walker else Facing.FRONT
        return {"ws": unit.ws or 1, "target_ws": enemy.ws or 1}, attacks, 0, facing
    facing = Facing(rule["armour"])
    speed = enemy.speed or Speed.STAZIONARIO.value
    if speed == Speed.STAZIONARIO.value or enemy.has("immobilised"):
        return {}, 0, attacks, facing
    score = int(rule["combat"] if speed == Speed.COMBATTIMENTO.value else rule["faster"])
    return {"hit_on": score}, attacks, 0, facing


def _do_combat(
    state: W40kState, command: Combat, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    if actor_side is not None and actor_side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    _require_phase(state, Phase.ASSAULT)
    if not unit.alive or not unit.locked_with:
        raise IllegalAction("error.w40k4.not_in_combat", unit=unit.name)
    members = _component(state, unit)
    if any(m in state.resolved_combats for m in members):
        raise IllegalAction("error.w40k4.combat_resolved", unit=unit.name)
    fighters = [state.units[m] for m in members]
    strikers = [u for u in fighters if (not u.vehicle or u.walker) and u.i is not None]
    losses = {u.id: 0 for u in fighters}
    suffered = {side: 0 for side in state.sides}
    for level in sorted({u.i or 0 for u in strikers}, reverse=True):
        at_level = [u for u in strikers if u.i == level and u.alive]
        counts = {u.id: _attacks_of(state, u) for u in at_level}  # simultaneous blows
        for striker in at_level:
            enemy = next(
                (state.units[e] for e in striker.locked_with if state.units[e].alive), None
            )
            if enemy is None or counts[striker.id] <= 0:
                continue
            hit, rolled, auto, facing = _cc_hit(state, striker, enemy, counts[striker.id])
            resolution = _attack(
                state,
                enemy,
                tray,
                weapon=None,
                attacks=rolled,
                auto_hits=auto,
                hit=hit,
                cover=None,
                facing=facing,
                strength=striker.s or 1,
                close_combat=True,
            )
            result.resolutions.append(resolution)
            losses[enemy.id] += _hit(state, enemy, resolution, result)
            suffered[enemy.side] += _wounds_counted(enemy, resolution)
    state.resolved_combats += members
    fighting_sides = {u.side for u in fighters if not u.vehicle or u.walker}
    for vehicle in [u for u in fighters if u.vehicle and not u.walker]:
        _unlock(state, vehicle)  # vehicles are never locked in combat
    sides = list(state.sides)
    if len(fighting_sides) < 2:
        _after_combat(state, members, tray, result)
        return
    outcome = _resolve(
        "combat_result",
        checks.CombatResultInput(
            side_a=state.sides[sides[0]],
            side_b=state.sides[sides[1]],
            suffered_a=suffered[sides[0]],
            suffered_b=suffered[sides[1]],
        ),
        tray,
    )
    result.resolutions.append(outcome)
    if suffered[sides[0]] != suffered[sides[1]]:
        winner = sides[0] if suffered[sides[0]] < suffered[sides[1]] else sides[1]
        winners = [u.id for u in fighters if u.side == winner and u.alive]
        per_casualty = int(
            load_tables()["controlli_morale"].row_by_id("combat").data["modifier_per_casualty"]
        )
        for loser in fighters:
            if loser.side == winner or not loser.alive or loser.vehicle or loser.ld is None:
                continue
            state.pending.append(
                PendingTest(
                    unit=loser.id,
                    reason="combat",
                    modifier=max(-10, per_casualty * losses[loser.id]),
                    winners=winners,
                )
            )
    _after_combat(state, members, tray, result)


def _wounds_counted(enemy: UnitState, resolution: Resolution) -> int:
    """Wounds inflicted for the combat result: unsaved wounds; a walker's damaging hits."""
    if enemy.vehicle:
        if not enemy.walker:
            return 0
        step = next((s for s in resolution.steps if s.key == "w40k4.step.penetration_facing"), None)
        if step is None or step.outcome is None:
            return 0
        params = dict(step.outcome.params)
        return int(params.get("pen", 0)) + int(params.get("glance", 0))
    return int(_chain_step(resolution).get("inflicted", 0))


def _after_combat(state: W40kState, members: list[str], tray: DiceTray, result: Applied) -> None:
    """Winners whose enemies are all gone consolidate."""
    for member in members:
        unit = state.units[member]
        was_fighting = unit.alive and not unit.locked_with and not unit.has("falling_back")
        if unit.vehicle and not unit.walker:
            continue
        if was_fighting and not any(p.unit == unit.id for p in state.pending):
            resolution = _resolve("consolidate", checks.ConsolidateInput(target=unit.id), tray)
            result.resolutions.append(resolution)


# -- tests -------------------------------------------------------------------------------------


def _do_morale(
    state: W40kState, command: Morale, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor_side)
    owed = next((p for p in state.pending if p.unit == unit.id), None)
    if owed is None:
        raise IllegalAction("error.w40k4.no_test_owed", unit=unit.name)
    state.pending.remove(owed)
    if owed.reason == "regroup":
        minimum = float(lookups.standard("raggruppamento")["min_fraction"])
        if unit.models < minimum * unit.initial_models:
            result.notices.append(Outcome.of("w40k4.morale.cannot_regroup", unit=unit.name))
            _fall_back(state, unit, tray, result)
        else:
            test = _resolve(
                "leadership",
                checks.LeadershipInput(leadership=unit.ld or 1, reason="regroup", target=unit.id),
                tray,
            )
            result.resolutions.append(test)
            if test.outcome.key != "w40k4.test.failed":
                unit.drop("falling_back")
            else:
                _fall_back(state, unit, tray, result)
    else:
        test = _resolve(
            "leadership",
            checks.LeadershipInput(
                leadership=unit.ld or 1,
                modifier=owed.modifier,
                reason=owed.reason,
                target=unit.id,
            ),
            tray,
        )
        result.resolutions.append(test)
        if test.outcome.key == "w40k4.test.failed":
            if owed.reason == "combat":
                _escape(state, unit, owed, tray, result)
            else:
                _fall_back(state, unit, tray, result)
    if state.closing and not state.pending:
        _advance(state, result, tray)


def _escape(
    state: W40kState, unit: UnitState, owed: PendingTest, tray: DiceTray, result: Applied
) -> None:
    winners = [state.units[w] for w in owed.winners if state.units[w].alive]
    strikers = [w for w in winners if w.i is not None]
    members = _component(state, unit)
    if strikers:
        resolution = _resolve(
            "escape",
            checks.EscapeInput(
                initiative=unit.i or 1,
                winners_initiative=max(w.i or 1 for w in strikers),
                target=unit.id,
            ),
            tray,
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution, result)
    if unit.alive:
        _fall_back(state, unit, tray, result)
    _after_combat(state, [m for m in members if m != unit.id], tray, result)


def _do_test(
    state: W40kState, command: Test, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor_side)
    if unit.ld is None:
        raise IllegalAction("error.w40k4.no_leadership", unit=unit.name)
    result.resolutions.append(
        _resolve(
            "leadership",
            checks.LeadershipInput(
                leadership=unit.ld, modifier=command.modifier, reason="test", target=unit.id
            ),
            tray,
        )
    )


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Move: _do_move,
    Fire: _do_fire,
    PlaceTemplate: _do_template,
    Assault: _do_assault,
    Combat: _do_combat,
    Morale: _do_morale,
    Test: _do_test,
}
