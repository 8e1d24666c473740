"""Playing linea_gotica: the turn sequence, who may do what, and how commands resolve.

``apply(state, command, dice)`` checks a command against the state (phase, whose move,
quality class, one activity per unit per turn, ownership, the state of each soldier),
resolves it through the ruleset's procedures (with their odds), and returns a new state.
It never mutates its input: a refused command leaves the state exactly as it was.

Turn (SEQUENZA DI GIOCO): initiative (and leader replacements) → the winner chooses →
covering fire declared (first mover, then the other) → movement (first mover, then the
other; the other side may fire at movers) → observation → fire and actions by quality
class, Elite to Marmaglia (simultaneous within a class; its results, morale included,
apply before the next class) → observation → end of turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.dice import DiceSource, DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview, run_command
from rules.core.resolution import EffectKind, Outcome, Resolution
from rules.linea_gotica import checks, fire, movement
from rules.linea_gotica.checks import Cover
from rules.linea_gotica.fire import DamageSpec, SoftClass, TargetMovement, TargetSpec
from rules.linea_gotica.model import QUALITY_ORDER, RULESET_KEY, Direction, Level, lower_quality
from rules.linea_gotica.scenario import Scenario, Weapon
from rules.linea_gotica.state import (
    Blast,
    CallSupport,
    Covering,
    Execute,
    Figure,
    Fire,
    Fragments,
    GameState,
    Minefield,
    Mission,
    MoraleTest,
    Move,
    Next,
    PendingMorale,
    Phase,
    Smoke,
    SupportState,
    TakeTest,
    Task,
    UnitState,
    VehicleState,
)
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY


Applied = CoreApplied[GameState]


# -- setting up --------------------------------------------------------------------------------


def new_game(scenario: Scenario) -> GameState:
    """The state at the start of turn 1 (initiative to roll)."""
    units: dict[str, UnitState] = {}
    supports: dict[str, SupportState] = {}
    for side in scenario.sides:
        for spec in side.units:
            figures: list[Figure] = []
            for group in spec.figures:
                for _ in range(group.count):
                    figures.append(Figure(n=len(figures) + 1, role=group.role, weapon=group.weapon))
            vehicle = None
            if spec.vehicle is not None:
                v = spec.vehicle
                vehicle = VehicleState(
                    type=v.type,
                    armoured=v.armoured,
                    armour=v.armour,
                    weight=v.weight,
                    turret=v.turret,
                    open=v.open,
                    transport=v.transport,
                )
            has_leader = any(f.role == "leader" for f in figures)
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                quality=spec.quality,
                quality_modifier=spec.quality_modifier,
                leader_ability=(spec.leader or spec.quality) if has_leader else None,
                section=spec.section,
                fanatic=spec.fanatic,
                radio=spec.radio,
                engineers=spec.engineers,
                observer=spec.observer,
                commander=spec.commander,
                figures=figures,
                vehicle=vehicle,
                weapons=list(spec.weapons),
                cover=Cover(spec.cover),
                hidden=spec.hidden,
                place=spec.place,
                emplaced=list(spec.emplaced),
            )
        for sup in side.supports:
            supports[sup.id] = SupportState(
                id=sup.id,
                name=sup.name,
                side=side.id,
                kind=sup.kind,
                contact=sup.contact,
                calibre_mm=sup.calibre_mm,
                platoon_mortars=sup.platoon_mortars,
                smoke=sup.smoke,
                bombs=sup.bombs,
                strafing=sup.strafing,
                quality=sup.quality,
            )
    return GameState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        night=fire.Night(scenario.night),
        passengers_on_tanks=scenario.passengers_on_tanks,
        sides={s.id: s.name for s in scenario.sides},
        coordination={s.id: s.coordination for s in scenario.sides},
        units=units,
        supports=supports,
        minefields={
            m.id: Minefield(id=m.id, name=m.name, kind=m.kind, owner=m.owner, known_to=[m.owner])
            for m in scenario.minefields
        },
        weapons=dict(scenario.weapons),
    )


def load_state(document: dict[str, Any]) -> GameState:
    """Rebuild a state from its stored JSON document."""
    return GameState.model_validate(document)


# -- whose move --------------------------------------------------------------------------------


def awaiting(state: GameState) -> str | None:
    """The side whose move it is (None: either may act, or the game is over)."""
    if state.ended:
        return None
    owing = [p for p in state.pending if p.unit in state.units]
    if state.phase is Phase.INITIATIVE:
        return None
    if state.phase is Phase.CHOICE:
        return state.winner
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        return state.order[state.mover]
    if owing and state.phase is Phase.FIRE:
        return state.units[owing[0].unit].side
    for side in state.order:
        if side not in state.done:
            return side
    return None


def _move_side(state: GameState) -> str | None:
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        return state.order[state.mover]
    return None


# -- applying commands -------------------------------------------------------------------------


def apply(
    state: GameState,
    command: Any,
    dice: DiceSource,
    *,
    actor_side: str | None = None,
    preview: bool = False,
    other_dice: DiceSource | None = None,
) -> Applied:
    """Check and resolve ``command`` for ``actor_side`` (None: the referee).

    Returns a new state; raises a :class:`RulesError` (changing nothing) if the command is
    not allowed now or its arguments are wrong.
    """
    if state.ended:
        raise IllegalAction("error.linea_gotica.game_over")
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        preview=preview,
        settle=_settle,
        other_dice=other_dice,
    )


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    from rules.linea_gotica import PROCEDURES  # the registry imports this module

    return PROCEDURES[procedure].resolve_on(data, tray)


def _own(unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.linea_gotica.not_your_unit", unit=unit.name)


def _alive(unit: UnitState) -> None:
    if not unit.alive:
        raise IllegalAction("error.linea_gotica.unit_out", unit=unit.name)


def _fresh(unit: UnitState) -> None:
    """One activity per unit per turn (a preview of the odds does not check it)."""
    if unit.activity is not None and not is_preview():
        raise IllegalAction(
            "error.linea_gotica.already_acted", unit=unit.name, activity=unit.activity
        )


def _weapon(state: GameState, weapon_id: str) -> Weapon:
    try:
        return state.weapons[weapon_id]
    except KeyError:
        raise UnknownName("error.linea_gotica.unknown_weapon", name=weapon_id[:40]) from None


def _quality_modifier(state: GameState, unit: UnitState) -> int:
    return unit.quality_modifier


def _figure_key(unit: UnitState, figure: Figure | None) -> str:
    return unit.id if figure is None else f"{unit.id}#{figure.n}"


def _roster_for(state: GameState, index: int) -> list[str]:
    keys: list[str] = []
    for unit in state.units.values():
        if unit.class_index != index or not unit.alive:
            continue
        if unit.vehicle is not None:
            if unit.crew_able(state.turn):
                keys.append(unit.id)
        else:
            keys += [_figure_key(unit, f) for f in unit.figures if f.able(state.turn)]
    return keys


def _able_figures(state: GameState, unit: UnitState) -> list[Figure]:
    """Soldiers who may fire or act now (in the fire phase, those of the class roster)."""
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    return [
        f
        for f in unit.figures
        if f.able(state.turn) or (in_class and _figure_key(unit, f) in state.roster)
    ]


def _crew_able(state: GameState, unit: UnitState) -> bool:
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    return unit.crew_able(state.turn) or (in_class and unit.id in state.roster)


def _isolated(unit: UnitState, figure: Figure) -> bool:
    """Out of command distance (declared), or his squad has lost its leader."""
    if figure.role == "sniper":
        free = load_tables()["distanze_comando"].data["sniper_free_qualities"]
        if unit.quality.value in free:
            return False
    if figure.role == "leader":
        return False
    return figure.isolated or unit.leaderless


def _isolation_rolls(
    state: GameState, unit: UnitState, figures: list[Figure], tray: DiceTray, result: Applied
) -> list[Figure]:
    """Isolated soldiers roll 1d10 ≤ quality before acting; those who fail stay put."""
    kept: list[Figure] = []
    for figure in figures:
        if not _isolated(unit, figure):
            kept.append(figure)
            continue
        resolution = _resolve(
            "action",
            checks.ActionInput(
                quality=unit.quality,
                quality_modifier=_quality_modifier(state, unit),
                level=Level.NORMALE,
                purpose=checks.Purpose.ISOLATO,
            ),
            tray,
        )
        result.resolutions.append(resolution)
        if resolution.outcome.key == f"{K}.action.passed":
            kept.append(figure)
    return kept


# -- turn sequence -----------------------------------------------------------------------------


def _class_has_actors(state: GameState, index: int) -> bool:
    for unit in state.units.values():
        if unit.class_index != index or not unit.alive or unit.activity is not None:
            continue
        if unit.vehicle is not None and unit.crew_able(state.turn):
            return True
        if any(f.able(state.turn) for f in unit.figures):
            return True
    return any(
        m.stage != "done"
        and m.due_turn <= state.turn
        and state.units[m.observer].class_index == index
        for m in state.missions
        if m.observer in state.units
    )


def _side_has_actors(state: GameState, side: str, index: int) -> bool:
    for unit in state.units.values():
        if unit.side != side or unit.class_index != index or not unit.alive:
            continue
        if unit.activity is not None:
            continue
        if (unit.vehicle is not None and unit.crew_able(state.turn)) or any(
            f.able(state.turn) for f in unit.figures
        ):
            return True
    return any(
        m.side == side
        and m.stage != "done"
        and m.due_turn <= state.turn
        and m.observer in state.units
        and state.units[m.observer].class_index == index
        for m in state.missions
    )


def _enter_phase(state: GameState, phase: Phase, result: Applied) -> None:
    if state.phase is Phase.FIRE and phase is not Phase.FIRE:
        for mission in state.missions:
            if mission.stage == "strafe":
                mission.stage = "done"
    for mission in state.missions:
        observer = state.units.get(mission.observer)
        if mission.stage != "done" and (observer is None or not observer.alive):
            mission.stage = "done"
            result.notices.append(Outcome.of(f"{K}.mission.observer_lost", marker=mission.id))
    state.phase = phase
    state.done = []
    state.blasts = []
    result.notices.append(Outcome.of(f"{K}.turn.phase", turn=state.turn, phase=phase.value))


def _open_class(state: GameState, index: int, result: Applied) -> None:
    """Start the fire phase at the first class from ``index`` that has someone to act."""
    while index < len(QUALITY_ORDER) and not _class_has_actors(state, index):
        index += 1
    if index >= len(QUALITY_ORDER):
        _enter_phase(state, Phase.OBSERVE_FIRE, result)
        return
    state.fire_class = index
    state.done = [s for s in state.sides if not _side_has_actors(state, s, index)]
    state.roster = _roster_for(state, index)
    result.notices.append(Outcome.of(f"{K}.turn.fire_class", quality=QUALITY_ORDER[index].value))


def _smoke_takes_effect(state: GameState, moment: str, result: Applied) -> None:
    for screen in state.smoke:
        if not screen.effective and screen.effect_at == moment:
            screen.effective = True
            screen.expires_after = state.turn + screen.turns
            result.notices.append(
                Outcome.of(
                    f"{K}.smoke.effective", place=screen.place or "-", turn=screen.expires_after
                )
            )


def _settle(state: GameState, result: Applied) -> None:
    """Move the turn on as far as the state allows (a class with both sides done)."""
    for _ in range(12):
        if state.ended:
            return
        if state.phase is Phase.FIRE:
            if state.pending or any(s not in state.done for s in state.sides):
                return
            _open_next_class(state, result)
            continue
        if state.phase in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE):
            if any(s not in state.done for s in state.sides):
                return
            if state.phase is Phase.OBSERVE_MOVE:
                _smoke_takes_effect(state, "phase_end", result)
                _enter_phase(state, Phase.FIRE, result)
                _open_class(state, 0, result)
            else:
                _smoke_takes_effect(state, "phase_end", result)
                _smoke_takes_effect(state, "fire_phase_end", result)
                _end_turn(state, result)
            continue
        return


def _open_next_class(state: GameState, result: Applied) -> None:
    _open_class(state, state.fire_class + 1, result)


def _end_turn(state: GameState, result: Applied) -> None:
    for unit in state.units.values():
        for figure in unit.figures:
            if (
                figure.alive
                and figure.badly_wounded
                and figure.bleed_until is not None
                and figure.bleed_until <= state.turn
            ):
                figure.dead = True
                result.notices.append(
                    Outcome.of(f"{K}.turn.bled_to_death", unit=unit.name, figure=figure.n)
                )
                _killed(state, unit, figure, result)
    state.smoke = [
        s for s in state.smoke if s.expires_after is None or s.expires_after > state.turn
    ]
    if state.turn >= state.max_turns:
        state.ended = True
        result.notices.append(Outcome.of(f"{K}.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.order = []
    state.winner = None
    state.mover = 0
    state.covering = []
    state.observed = []
    state.roster = []
    for unit in state.units.values():
        unit.ran_last_turn = unit.pace is TargetMovement.CORSA
        if unit.task is not None and unit.task.last_turn < state.turn - 1:
            unit.task = None
        unit.activity = None
        unit.pace = TargetMovement.FERMO
        unit.fired = fire.TargetFired.NO
        unit.behind_armour = False
    _enter_phase(state, Phase.INITIATIVE, result)


def _replacements(state: GameState, tray: DiceTray, result: Applied) -> None:
    """At the start of each turn a leaderless squad rolls 1d10 ≤ quality for a new leader."""
    if state.replaced_turn >= state.turn:
        return
    state.replaced_turn = state.turn
    for unit in state.units.values():
        if not unit.alive or not unit.leaderless or unit.leader_ability is None:
            continue
        candidates = [f for f in unit.figures if f.able(state.turn)]
        if not candidates:
            continue
        resolution = _resolve(
            "action",
            checks.ActionInput(
                quality=unit.quality,
                quality_modifier=_quality_modifier(state, unit),
                purpose=checks.Purpose.RIMPIAZZO,
            ),
            tray,
        )
        result.resolutions.append(resolution)
        if resolution.outcome.key == f"{K}.action.passed":
            chosen = candidates[0]
            chosen.role = "leader"
            chosen.isolated = False
            unit.leader_ability = lower_quality(unit.leader_ability)
            result.notices.append(
                Outcome.of(
                    f"{K}.turn.new_leader",
                    unit=unit.name,
                    figure=chosen.n,
                    quality=unit.leader_ability.value,
                )
            )


def _do_next(
    state: GameState, command: Next, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    if state.phase is Phase.INITIATIVE:
        _replacements(state, tray, result)
        first, second = list(state.sides)
        resolution = _resolve(
            "initiative", checks.InitiativeInput(first=first, second=second), tray
        )
        result.resolutions.append(resolution)
        if resolution.outcome.key == f"{K}.initiative.tie":
            return
        state.winner = str(resolution.outcome.param("side"))
        state.phase = Phase.CHOICE
        return
    waiting = awaiting(state)
    if (
        actor is not None
        and state.phase in (Phase.CHOICE, Phase.COVERING, Phase.MOVEMENT)
        and actor != waiting
    ):
        raise IllegalAction("error.linea_gotica.not_your_move")
    if actor is not None and any(state.units[p.unit].side == actor for p in state.pending):
        raise IllegalAction("error.linea_gotica.morale_owed")
    if state.phase is Phase.CHOICE:
        assert state.winner is not None
        loser = state.other_side(state.winner)
        state.order = [state.winner, loser] if command.order != "second" else [loser, state.winner]
        result.notices.append(Outcome.of(f"{K}.turn.order", side=state.sides[state.order[0]]))
        _enter_phase(state, Phase.COVERING, result)
        state.mover = 0
        return
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        state.mover += 1
        if state.mover >= 2:
            state.mover = 0
            if state.phase is Phase.COVERING:
                _enter_phase(state, Phase.MOVEMENT, result)
            else:
                _enter_phase(state, Phase.OBSERVE_MOVE, result)
        return
    if state.phase is Phase.FIRE and actor is not None:
        due = [
            m
            for m in state.missions
            if m.side == actor
            and m.stage in ("ranging", "aircraft", "returning")
            and m.due_turn <= state.turn
            and m.observer in state.units
            and state.units[m.observer].alive
            and state.units[m.observer].class_index == state.fire_class
        ]
        if due:
            raise IllegalAction("error.linea_gotica.mission_due", marker=due[0].id)
    sides = list(state.sides) if actor is None else [actor]
    for side in sides:
        if side not in state.done:
            state.done.append(side)
    if actor is None and state.phase is Phase.FIRE and state.pending:
        state.pending = []
        result.notices.append(Outcome.of(f"{K}.turn.morale_waived"))


# -- phase checks for acting ---------------------------------------------------------------------


def _acting(state: GameState, unit_id: str, actor: str | None) -> UnitState:
    """The unit must be the actor's and in play (or, in the fire phase, of the class roster:
    results within a class are simultaneous)."""
    unit = state.unit(unit_id)
    _own(unit, actor)
    in_roster = (
        state.phase is Phase.FIRE
        and unit.class_index == state.fire_class
        and any(key == unit.id or key.startswith(f"{unit.id}#") for key in state.roster)
    )
    if not in_roster:
        _alive(unit)
    return unit


def _may_act_in_fire_phase(state: GameState, unit: UnitState) -> None:
    if is_preview():
        return
    if state.phase is not Phase.FIRE:
        raise IllegalAction("error.linea_gotica.wrong_phase", phase=state.phase.value)
    if unit.class_index != state.fire_class:
        raise IllegalAction(
            "error.linea_gotica.not_this_class",
            unit=unit.name,
            quality=QUALITY_ORDER[state.fire_class].value,
        )
    if unit.side in state.done:
        raise IllegalAction("error.linea_gotica.side_done")


def _owes_morale(state: GameState, unit: UnitState) -> None:
    if is_preview():
        return
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    if not in_class and any(p.unit == unit.id for p in state.pending):
        raise IllegalAction("error.linea_gotica.unit_owes_morale", unit=unit.name)


# -- movement ---------------------------------------------------------------------------------


def _do_move(
    state: GameState, command: Move, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor)
    if not is_preview():
        if state.phase is not Phase.MOVEMENT:
            raise IllegalAction("error.linea_gotica.wrong_phase", phase=state.phase.value)
        if unit.side != _move_side(state):
            raise IllegalAction("error.linea_gotica.not_your_move")
    _fresh(unit)
    _owes_morale(state, unit)
    if unit.riding is not None and command.kind != "scendi":
        raise IllegalAction("error.linea_gotica.riding", unit=unit.name, vehicle=unit.riding)
    if unit.vehicle is not None:
        _move_vehicle(state, unit, command, tray, result)
    else:
        _move_foot(state, unit, command, tray, result)
    unit.activity = "moved"
    if command.cover is not None:
        unit.cover = command.cover
    if command.place is not None:
        unit.place = command.place
    if command.hidden is not None:
        unit.hidden = command.hidden
    unit.behind_armour = command.behind
    if command.minefield is not None:
        _cross_minefield(state, unit, command, tray, result)


def _move_foot(
    state: GameState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    pace = {"cauto": movement.Pace.CAUTO, "corsa": movement.Pace.CORSA}.get(
        command.kind, movement.Pace.NORMALE
    )
    if command.kind in ("strada", "fuori_strada"):
        raise InvalidInput("error.linea_gotica.foot_kinds_only", unit=unit.name)
    movers = [f for f in unit.figures if f.alive and not f.badly_wounded]
    if not movers:
        raise IllegalAction("error.linea_gotica.cannot_move", unit=unit.name)
    mods = list(command.mods)
    if unit.under_fire_serial is not None and unit.under_fire_serial == state.serial - 1:
        mods.append("sotto_fuoco")
    if any(f.wounded for f in movers):
        mods.append("ferito")
    if command.kind == "sali":
        target = _vehicle_to_ride(state, unit, command.vehicle)
        unit.riding = target.id
    elif command.kind == "scendi":
        if unit.riding is None:
            raise IllegalAction("error.linea_gotica.not_riding", unit=unit.name)
        unit.riding = None
    resolution = _resolve(
        "foot_move",
        movement.FootMoveInput(
            pace=pace,
            distance_cm=command.distance_cm,
            modifiers=tuple(dict.fromkeys(mods)),
            ran_last_turn=unit.ran_last_turn,
        ),
        tray,
    )
    if resolution.outcome.key not in (f"{K}.move.ok", f"{K}.move.whole_turn"):
        raise IllegalAction(resolution.outcome.key, **dict(resolution.outcome.params))
    _isolation_rolls(state, unit, [f for f in movers if f.able(state.turn)], tray, result)
    result.resolutions.append(resolution)
    if "alzarsi_sdraiarsi" in command.mods:
        unit.prone = not unit.prone
    unit.pace = TargetMovement(pace.value)
    for figure in unit.figures:
        if figure.panic and figure.alive:
            figure.panic = False
            figure.shocked_until = state.turn + 1
            result.notices.append(Outcome.of(f"{K}.morale.fled", unit=unit.name, figure=figure.n))


def _vehicle_to_ride(state: GameState, unit: UnitState, vehicle_id: str | None) -> UnitState:
    if vehicle_id is None:
        raise InvalidInput("error.linea_gotica.vehicle_needed")
    vehicle = state.unit(vehicle_id)
    if vehicle.side != unit.side or vehicle.vehicle is None or not vehicle.alive:
        raise IllegalAction("error.linea_gotica.cannot_ride", vehicle=vehicle.name)
    if vehicle.vehicle.type == "carri":
        table = load_tables()["passeggeri"]
        max_men = int(table.row_by_id("massimo").data["max_men"])
        light = set(table.row_by_id("armamento").data["weapons"])
        weights = table.row_by_id("carri").data["tank_weights"]
        alive = [f for f in unit.figures if f.alive]
        rows = {state.weapons[f.weapon].row for f in alive if f.weapon in state.weapons}
        if (
            not state.passengers_on_tanks
            or vehicle.vehicle.weight not in weights
            or len(alive) > max_men
            or not rows <= light
        ):
            raise IllegalAction("error.linea_gotica.no_passengers", vehicle=vehicle.name)
    return vehicle


def _move_vehicle(
    state: GameState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    assert unit.vehicle is not None
    if unit.vehicle.immobilised:
        raise IllegalAction("error.linea_gotica.immobilised", unit=unit.name)
    if command.kind not in ("strada", "fuori_strada"):
        raise InvalidInput("error.linea_gotica.vehicle_kinds_only", unit=unit.name)
    mods = list(command.mods)
    if unit.under_fire_serial is not None and unit.under_fire_serial == state.serial - 1:
        mods.append("sotto_fuoco")
    if unit.vehicle.mobility_damaged:
        mods.append("danno_mobilita")
    resolution = _resolve(
        "vehicle_move",
        movement.VehicleMoveInput(
            vehicle=unit.vehicle.type,
            road=command.kind == "strada",
            distance_cm=command.distance_cm,
            modifiers=tuple(dict.fromkeys(mods)),
            tank_weight=unit.vehicle.weight,
        ),
        tray,
    )
    if resolution.outcome.key not in (
        f"{K}.move.ok",
        f"{K}.move.whole_turn",
        f"{K}.move.ok_damaged",
    ):
        raise IllegalAction(resolution.outcome.key, **dict(resolution.outcome.params))
    result.resolutions.append(resolution)
    if resolution.outcome.key == f"{K}.move.ok_damaged":
        _vehicle_damage(state, unit, "mobility_damaged", None, result)
    unit.pace = TargetMovement.NORMALE
    if unit.crew_panic:
        unit.crew_panic = False
        unit.crew_shocked_until = state.turn + 1
    for rider in state.units.values():
        if rider.riding == unit.id:
            rider.pace = TargetMovement.NORMALE
            rider.place = command.place if command.place is not None else rider.place


def _cross_minefield(
    state: GameState, unit: UnitState, command: Move, tray: DiceTray, result: Applied
) -> None:
    field_id = command.minefield or ""
    if field_id not in state.minefields or state.minefields[field_id].cleared:
        raise UnknownName("error.linea_gotica.unknown_minefield", name=field_id[:40])
    mines = state.minefields[field_id]
    table = load_tables()["mine"]
    row = table.row_by_id(mines.kind)
    spec = DamageSpec(soft_class=SoftClass.EXPLOSIVE)
    if unit.vehicle is not None:
        if mines.kind == "antiuomo":
            if unit.vehicle.armoured:
                result.notices.append(Outcome.of(f"{K}.mines.no_effect", unit=unit.name))
                return
            _he_on(state, unit, None, "breve", spec, "none", False, tray, result)
        elif unit.vehicle.armoured:
            pen = str(row.data["armoured"])
            resolution = _resolve(
                "damage",
                fire.DamageInput(
                    spec=DamageSpec(penetration=pen), target=_target_spec(state, unit, None)
                ),
                tray,
            )
            result.resolutions.append(resolution)
            _apply_effects(state, resolution, result)
        else:
            resolution = _resolve(
                "mine_vehicle", fire.MineVehicleInput(target=_target_spec(state, unit, None)), tray
            )
            result.resolutions.append(resolution)
            _apply_effects(state, resolution, result)
        for rider in [u for u in state.units.values() if u.riding == unit.id]:
            rider.riding = None
        return
    if mines.kind == "anticarro":
        result.notices.append(Outcome.of(f"{K}.mines.no_effect", unit=unit.name))
        return
    alive = [f for f in unit.figures if f.alive]
    if not alive:
        return
    _he_on(state, unit, alive[0], "breve", spec, "none", False, tray, result)
    for figure in alive[1 : 1 + command.models]:
        _he_on(state, unit, figure, "lunga", spec, "none", False, tray, result)
    if unit.side not in mines.known_to:
        mines.known_to.append(unit.side)


# -- fire ---------------------------------------------------------------------------------------


def _target_spec(state: GameState, unit: UnitState, figure: Figure | None) -> TargetSpec:
    vehicle = unit.vehicle
    return TargetSpec(
        kind=unit.target_kind,
        armour=vehicle.armour if vehicle is not None else fire.Armour.MEDIA,
        turret=vehicle.turret if vehicle is not None else True,
        weapons=min(len(unit.working_weapons()), 6),
        wounded=bool(figure and (figure.wounded or figure.badly_wounded)),
        unit=unit.id,
        figure=figure.n if figure is not None else None,
    )


def _fire_context(
    state: GameState,
    unit: UnitState,
    command: Fire,
    target: UnitState | None,
    aircraft: Mission | None,
) -> str:
    """normal | opportunity | covering (and checks that this fire is allowed now)."""
    if command.kind == "copertura":
        if not is_preview():
            if state.phase is not Phase.COVERING:
                raise IllegalAction("error.linea_gotica.wrong_phase", phase=state.phase.value)
            if unit.side != _move_side(state):
                raise IllegalAction("error.linea_gotica.not_your_move")
        return "covering"
    if is_preview():
        return "opportunity" if state.phase is Phase.MOVEMENT else "normal"
    if aircraft is not None:
        if aircraft.due_turn > state.turn:
            raise IllegalAction("error.linea_gotica.aircraft_not_here", marker=aircraft.id)
        if state.phase is Phase.MOVEMENT:
            return "opportunity"
        _may_act_in_fire_phase(state, unit)
        return "normal"
    if state.phase is Phase.MOVEMENT:
        if unit.side == _move_side(state):
            raise IllegalAction("error.linea_gotica.mover_cannot_fire")
        moving = (
            target is not None and target.activity == "moved" and target.side == _move_side(state)
        )
        if not moving:
            raise IllegalAction(
                "error.linea_gotica.not_moving", target=target.name if target else "-"
            )
        return "opportunity"
    _may_act_in_fire_phase(state, unit)
    return "normal"


def _shooters(state: GameState, unit: UnitState, command: Fire) -> list[tuple[Figure | None, str]]:
    """Who fires with what: soldiers with their weapons, or the vehicle's weapon."""
    if unit.vehicle is not None:
        if not _crew_able(state, unit):
            raise IllegalAction("error.linea_gotica.crew_cannot", unit=unit.name)
        working = [w for w in unit.working_weapons() if state.weapons[w].row]
        weapon_id = command.weapon or (working[0] if working else None)
        if weapon_id is None or weapon_id not in working:
            raise IllegalAction(
                "error.linea_gotica.no_weapon", unit=unit.name, weapons=", ".join(working) or "-"
            )
        return [(None, weapon_id)]
    able = _able_figures(state, unit)
    if command.weapon is not None:
        chosen = [f for f in able if f.weapon == command.weapon]
    else:
        chosen = [
            f
            for f in able
            if f.weapon
            and state.weapons[f.weapon].row
            and _row_mode(state.weapons[f.weapon]) in ("single",)
        ]
    if command.shooters is not None:
        chosen = chosen[: command.shooters]
    if not chosen:
        raise IllegalAction("error.linea_gotica.no_shooters", unit=unit.name)
    return [(f, str(f.weapon)) for f in chosen]


def _row_mode(weapon: Weapon) -> str:
    if weapon.row is None:
        return "none"
    return str(fire.weapon_row(weapon.row).data["mode"])


def _crew_size(unit: UnitState, figure: Figure) -> int:
    helpers = [
        f
        for f in unit.figures
        if f is not figure
        and f.alive
        and not f.badly_wounded
        and f.role in ("servente", "portamunizioni")
    ]
    return 1 + len(helpers)


def _fire_row(
    state: GameState, unit: UnitState, figure: Figure | None, weapon_id: str, mode: str
) -> tuple[str, int]:
    """The weapons-table row a weapon fires on (notes 3–5), and its shots."""
    weapon = _weapon(state, weapon_id)
    if weapon.row is None:
        raise IllegalAction("error.linea_gotica.not_direct_fire", weapon=weapon.name)
    row_id = weapon.row
    row = fire.weapon_row(row_id)
    on_vehicle = unit.vehicle is not None
    if row.data.get("must_emplace") and not on_vehicle and weapon_id not in unit.emplaced:
        raise IllegalAction("error.linea_gotica.must_emplace", weapon=weapon.name)
    if "unemplaced_as" in row.data and not on_vehicle and weapon_id not in unit.emplaced:
        row_id = str(row.data["unemplaced_as"])
        row = fire.weapon_row(row_id)
    if mode == "area":
        if "area_row" not in row.data:
            raise IllegalAction("error.linea_gotica.no_area_fire", weapon=weapon.name)
        row_id = str(row.data["area_row"])
        row = fire.weapon_row(row_id)
    if weapon_id in unit.needs_reload:
        raise IllegalAction("error.linea_gotica.must_reload", weapon=weapon.name)
    tables = load_tables()
    table = tables["armi_tiro_diretto"]
    shots: int = tables.parsed(table, row, table.column("colpi"))
    if (
        row.data.get("mg")
        and figure is not None
        and _crew_size(unit, figure) == 1
        and mode != "area"
    ):
        shots = 1
    return row_id, shots


def _check_uses(state: GameState, unit: UnitState, figure: Figure | None, weapon_id: str) -> None:
    """Flamethrowers have 2 uses (infantry) or 6 (vehicles) in the whole game (note 7)."""
    weapon = state.weapons[weapon_id]
    row = fire.weapon_row(str(weapon.row))
    limit = row.data.get("uses")
    if limit is None:
        return
    used = figure.uses if figure is not None else unit.weapon_uses.get(weapon_id, 0)
    if used >= int(limit):
        raise IllegalAction("error.linea_gotica.exhausted", weapon=weapon.name)


def _portable_he(row_data: dict[str, Any], figure: Figure | None) -> bool:
    """An infantry HE weapon of note 6 (guns and vehicle weapons are served by their crews)."""
    return (
        figure is not None
        and row_data["mode"] == "he"
        and 6 in row_data.get("notes", [])
        and not row_data.get("blast_by_calibre")
    )


def _spend_use(
    state: GameState, unit: UnitState, figure: Figure | None, weapon_id: str, row_id: str
) -> None:
    """Count flamethrower uses; reusable HE must reload (note 6), others are spent; a
    one-man machine gun that fired at an area must reload (note 4)."""
    weapon = state.weapons[weapon_id]
    base = fire.weapon_row(str(weapon.row))
    row = fire.weapon_row(row_id)
    if base.data.get("uses") is not None:
        if figure is not None:
            figure.uses += 1
        else:
            unit.weapon_uses[weapon_id] = unit.weapon_uses.get(weapon_id, 0) + 1
    if _portable_he(base.data, figure):
        assert figure is not None
        if weapon.reusable:
            unit.needs_reload.append(weapon_id)
        else:
            figure.uses += 1
            if figure.uses >= weapon.uses:
                figure.weapon = None  # spent (a Panzerfaust, the last grenade)
                figure.uses = 0
    if (
        row.data.get("mg")
        and row.data["mode"] == "area"
        and figure is not None
        and _crew_size(unit, figure) == 1
    ):
        unit.needs_reload.append(weapon_id)


def _target_figures(target: UnitState, command: Fire, count: int) -> list[Figure]:
    alive = [f for f in target.figures if f.alive]
    if command.man is not None:
        chosen = target.figure(command.man)
        if not chosen.alive:
            raise IllegalAction("error.linea_gotica.figure_out", unit=target.name, figure=chosen.n)
        alive = [chosen] + [f for f in alive if f is not chosen]
    else:
        alive.sort(key=lambda f: f.role == "leader")
    return alive[:count]


def _direct_input(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    weapon_id: str,
    row_id: str,
    target: UnitState,
    target_figure: Figure | None,
    command: Fire,
    context: str,
) -> fire.DirectFireInput:
    weapon = state.weapons[weapon_id]
    shocked = target_figure is not None and target_figure.shocked(state.turn)
    return fire.DirectFireInput(
        quality=unit.quality,
        quality_modifier=_quality_modifier(state, unit),
        weapon=row_id,
        distance_cm=command.distance_cm,
        calibre_mm=weapon.calibre_mm,
        penetration=weapon.penetration,
        short_gun=weapon.short_gun,
        flank=command.facing != "fronte",
        aimed=unit.aimed_turn == state.turn - 1,
        sniper=figure is not None and figure.role == "sniper",
        wounded=figure is not None and figure.wounded,
        covering=context == "covering",
        opportunity=context == "opportunity",
        semiautomatic=weapon.semiautomatic,
        target_movement=target.pace,
        prone=target.vehicle is None and (target.prone or shocked),
        cover=target.cover,
        behind_armour=target.behind_armour,
        night=state.night,
        target_fired=target.fired,
        modifier=command.modifier,
        target=_target_spec(state, target, target_figure),
    )


def _do_fire(
    state: GameState, command: Fire, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor)
    if command.modifier and actor is not None:
        raise IllegalAction("error.linea_gotica.referee_modifier")
    aircraft = next(
        (m for m in state.missions if m.id == command.target and m.stage == "aircraft"), None
    )
    target = state.units.get(command.target)
    if target is None and aircraft is None and command.kind != "copertura":
        raise UnknownName("error.linea_gotica.unknown_unit", name=command.target[:40])
    context = _fire_context(state, unit, command, target, aircraft)
    _fresh(unit)
    _owes_morale(state, unit)
    if aircraft is not None:
        _fire_anti_aircraft(state, unit, aircraft, command, context, tray, result)
        return
    if target is None:
        _declare_covering(state, unit, command, result)
        return
    if target.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=target.name)
    _alive(target)
    if target.hidden and not is_preview():
        raise IllegalAction("error.linea_gotica.not_spotted", target=target.name)
    if unit.riding is not None:
        raise IllegalAction("error.linea_gotica.riding", unit=unit.name, vehicle=unit.riding)
    if not is_preview():
        _trigger_covering(state, unit, tray, result)
        if not unit.alive:
            unit.activity = "fired"
            return
    shooters = _shooters(state, unit, command)
    sniping = any(f is not None and f.role == "sniper" for f, _ in shooters)
    if unit.hidden and sniping and not is_preview():
        check = _resolve("sniper", checks.SniperInput(quality=unit.quality), tray)
        result.resolutions.append(check)
        if check.outcome.key != f"{K}.sniper.fires":
            unit.activity = "fired"
            return
    figures = [f for f, _ in shooters if f is not None]
    if figures and not is_preview():
        kept = _isolation_rolls(state, unit, figures, tray, result)
        shooters = [(f, w) for f, w in shooters if f is None or f in kept]
    automatic = False
    for index, (figure, weapon_id) in enumerate(shooters):
        if not target.alive:
            break
        row_id, shots = _fire_row(state, unit, figure, weapon_id, command.mode)
        _check_uses(state, unit, figure, weapon_id)
        row = fire.weapon_row(row_id)
        automatic = automatic or bool(row.data.get("automatic")) or row.data["mode"] != "single"
        _one_weapon(
            state,
            unit,
            figure,
            weapon_id,
            row_id,
            shots,
            index,
            target,
            command,
            context,
            tray,
            result,
        )
        if not is_preview():
            _spend_use(state, unit, figure, weapon_id, row_id)
        if unit.vehicle is not None and not row.data.get("mg"):
            _dismount_riders(state, unit, result)
    unit.activity = {"covering": "covering", "opportunity": "opportunity"}.get(context, "fired")
    unit.fired = fire.TargetFired.AUTOMATICO if automatic else fire.TargetFired.SINGOLO
    unit.fired_serial = state.serial
    if automatic:
        target.under_fire_serial = state.serial
    _dismount_riders(state, target, result)
    if target.riding is not None:
        target.riding = None
        result.notices.append(Outcome.of(f"{K}.passengers.dismount", unit=target.name))


def _one_weapon(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    weapon_id: str,
    row_id: str,
    shots: int,
    index: int,
    target: UnitState,
    command: Fire,
    context: str,
    tray: DiceTray,
    result: Applied,
) -> None:
    row = fire.weapon_row(row_id)
    mode = str(row.data["mode"])
    if target.vehicle is not None:
        weapon = state.weapons[weapon_id]
        piercing = (
            row.data.get("penetration")
            or row.data.get("penetration_by_calibre")
            or weapon.penetration
            or mode == "flame"
        )
        if target.vehicle.armoured and not piercing:
            raise IllegalAction("error.linea_gotica.cannot_penetrate", target=target.name)
        for _ in range(shots):
            if not target.alive:
                break
            data = _direct_input(
                state, unit, figure, weapon_id, row_id, target, None, command, context
            )
            _shot(state, unit, data, target, None, command, tray, result)
        _flame_morale(state, row_id, target, command)
        return
    if mode == "area":
        count = command.models or len([f for f in target.figures if f.alive])
        for victim in _target_figures(target, command, count):
            data = _direct_input(
                state, unit, figure, weapon_id, row_id, target, victim, command, context
            )
            _shot(state, unit, data, target, victim, command, tray, result)
        _flame_morale(state, row_id, target, command)
        return
    alive = _target_figures(target, command, 30)
    if not alive:
        return
    victim = alive[index % len(alive)] if command.man is None else alive[0]
    for _ in range(shots):
        if not victim.alive:
            break
        data = _direct_input(
            state, unit, figure, weapon_id, row_id, target, victim, command, context
        )
        _shot(state, unit, data, target, victim, command, tray, result)
    _flame_morale(state, row_id, target, command)


def _flame_morale(state: GameState, row_id: str, target: UnitState, command: Fire) -> None:
    """Under attack by an enemy flamethrower within its normal range: a morale test."""
    if is_preview() or fire.weapon_row(row_id).data["mode"] != "flame":
        return
    normal = fire.weapon_ranges(row_id)[1] or 0
    if command.distance_cm > normal:
        return
    if target.vehicle is not None:
        _owe(state, target, None, "lanciafiamme")
    for fig in target.figures:
        _owe(state, target, fig, "lanciafiamme")


def _shot(
    state: GameState,
    firer: UnitState,
    data: fire.DirectFireInput,
    target: UnitState,
    aimed: Figure | None,
    command: Fire,
    tray: DiceTray,
    result: Applied,
) -> None:
    resolution = _resolve("direct_fire", data, tray)
    result.resolutions.append(resolution)
    if is_preview():
        return
    row = fire.weapon_row(data.weapon)
    if row.data["mode"] in ("he", "flame"):
        target.under_fire_serial = state.serial
    _apply_effects(state, resolution, result)
    outcome = resolution.outcome
    if outcome.key == f"{K}.fire.blast":
        blast = _blast_from_direct(state, data, firer.side)
        others = [f for f in target.figures if f.alive and f is not aimed]
        others.sort(key=lambda f: f.role == "leader")
        short_count = (command.models or 1) - (1 if aimed is not None else 0)
        inner = ([aimed] if aimed is not None else []) + others[:short_count]
        outer = others[short_count : short_count + command.models_long]
        for victim in inner:
            _he_on_blast(state, blast, target, victim, "breve", tray, result)
        for victim in outer:
            _he_on_blast(state, blast, target, victim, "lunga", tray, result)
    elif outcome.key == f"{K}.fire.deviated":
        blast = _blast_from_direct(state, data, firer.side)
        result.notices.append(
            Outcome.of(
                f"{K}.fire.blast_marker",
                marker=blast.id,
                direction=str(outcome.param("direction")),
                cm=outcome.param("cm") or 0,
                **_radii(blast.blast_row),
            )
        )


def _blast_from_direct(state: GameState, data: fire.DirectFireInput, side: str) -> Blast:
    row = fire.weapon_row(data.weapon)
    calibre = data.calibre_mm or 0
    if row.data.get("blast_by_calibre"):
        blast_row: str | None = fire.blast_row_for_calibre(calibre)
    else:
        blast_row = row.data.get("blast")
    spec = fire.weapon_damage(data, row)
    heavy = bool(row.data.get("blast_by_calibre")) and calibre >= int(
        load_tables()["probabilita_he"].data["heavy_calibre_from_mm"]
    )
    blast = Blast(
        id=state.next_id("b"),
        label=str(row.label),
        side=side,
        spec=spec.model_dump(mode="json"),
        blast_row=blast_row,
        heavy_calibre=heavy,
        serial=state.serial,
    )
    state.blasts.append(blast)
    return blast


def _radii(blast_row: str | None) -> dict[str, int]:
    """The two radii (cm) of an HE area row, for the players to measure."""
    if blast_row is None:
        return {"breve": 0, "lunga": 0}
    tables = load_tables()
    table = tables["area_he"]
    row = table.row_by_id(blast_row)
    return {
        zone: int(tables.parsed(table, row, table.column(zone)) or 0) for zone in ("breve", "lunga")
    }


def _terrain_for_he(unit: UnitState) -> str:
    if unit.cover is Cover.ENTRENCHED:
        return "trincerati"
    if unit.cover is Cover.NONE:
        return "aperto"
    return "copertura"


def _he_on(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    zone: str,
    spec: DamageSpec,
    bombs: str,
    heavy: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    resolution = _resolve(
        "he_effect",
        fire.HeEffectInput(
            zone=zone,
            terrain=_terrain_for_he(unit),
            heavy_calibre=heavy,
            bombs=bombs,
            spec=spec,
            target=_target_spec(state, unit, figure),
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if not is_preview():
        unit.under_fire_serial = state.serial
        _apply_effects(state, resolution, result)


def _he_on_blast(
    state: GameState,
    blast: Blast,
    unit: UnitState,
    figure: Figure | None,
    zone: str,
    tray: DiceTray,
    result: Applied,
) -> None:
    spec = DamageSpec.model_validate(blast.spec)
    if (
        unit.vehicle is not None
        and unit.vehicle.armoured
        and spec.penetration is None
        and not spec.flame
    ):
        result.notices.append(Outcome.of(f"{K}.he.armour_unharmed", unit=unit.name))
        return
    _he_on(state, unit, figure, zone, spec, blast.bombs, blast.heavy_calibre, tray, result)


def _dismount_riders(state: GameState, vehicle: UnitState, result: Applied) -> None:
    for rider in state.units.values():
        if rider.riding == vehicle.id:
            rider.riding = None
            result.notices.append(Outcome.of(f"{K}.passengers.dismount", unit=rider.name))


def _declare_covering(state: GameState, unit: UnitState, command: Fire, result: Applied) -> None:
    """Covering fire at a terrain element: automatic weapons only, resolved later."""
    if unit.vehicle is not None:
        carried = unit.working_weapons()
    else:
        carried = [f.weapon for f in _able_figures(state, unit) if f.weapon]
    automatic = [
        w
        for w in carried
        if state.weapons[w].row and fire.weapon_row(str(state.weapons[w].row)).data.get("automatic")
    ]
    weapon_id = command.weapon or (automatic[0] if automatic else None)
    if weapon_id is None or weapon_id not in automatic:
        raise IllegalAction("error.linea_gotica.covering_automatic_only", weapon=weapon_id or "-")
    figure = next((f for f in unit.figures if f.weapon == weapon_id and f.alive), None)
    _fire_row(state, unit, figure, weapon_id, "singolo")
    if is_preview():
        return
    state.covering.append(
        Covering(unit=unit.id, side=unit.side, place=command.target, weapon=weapon_id)
    )
    unit.activity = "covering"
    result.notices.append(
        Outcome.of(f"{K}.covering.declared", unit=unit.name, place=command.target)
    )


def _trigger_covering(state: GameState, unit: UnitState, tray: DiceTray, result: Applied) -> None:
    """Covering fire on a terrain element hits a hidden enemy there before it fires (½)."""
    if not unit.place:
        return
    for cover in state.covering:
        if cover.side == unit.side or cover.place != unit.place or unit.id in cover.resolved:
            continue
        cover.resolved.append(unit.id)
        shooter = state.units.get(cover.unit)
        if shooter is None or not shooter.alive:
            continue
        result.notices.append(
            Outcome.of(f"{K}.covering.triggered", unit=unit.name, place=cover.place)
        )
        figure = next((f for f in shooter.figures if f.weapon == cover.weapon and f.alive), None)
        mode = "area"
        try:
            row_id, shots = _fire_row(state, shooter, figure, cover.weapon, "area")
        except IllegalAction:
            mode = "singolo"
            try:
                row_id, shots = _fire_row(state, shooter, figure, cover.weapon, "singolo")
            except IllegalAction:
                continue
        ranges = fire.weapon_ranges(row_id)
        distance = (
            ranges[1] if ranges[1] is not None else next((r for r in ranges if r is not None), 0)
        )
        command = Fire(
            unit=shooter.id,
            target=unit.id,
            distance_cm=float(distance or 0),
            weapon=cover.weapon,
            mode=mode,
            kind="copertura",
        )
        _one_weapon(
            state,
            shooter,
            figure,
            cover.weapon,
            row_id,
            shots,
            0,
            unit,
            command,
            "covering",
            tray,
            result,
        )


def _fire_anti_aircraft(
    state: GameState,
    unit: UnitState,
    mission: Mission,
    command: Fire,
    context: str,
    tray: DiceTray,
    result: Applied,
) -> None:
    if mission.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=mission.id)
    candidates = (
        unit.working_weapons()
        if unit.vehicle is not None
        else [f.weapon for f in _able_figures(state, unit) if f.weapon]
    )
    weapon_id = command.weapon or next(
        (w for w in candidates if state.weapons[w].anti_aircraft), None
    )
    if (
        weapon_id is None
        or weapon_id not in candidates
        or not (state.weapons[weapon_id].anti_aircraft)
    ):
        raise IllegalAction("error.linea_gotica.no_anti_aircraft", unit=unit.name)
    resolution = _resolve(
        "anti_aircraft",
        checks.AntiAircraftInput(
            weapon=state.weapons[weapon_id].anti_aircraft,
            quality=unit.quality,
            opportunity=context == "opportunity",
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if is_preview():
        return
    unit.activity = "opportunity" if context == "opportunity" else "fired"
    unit.fired = fire.TargetFired.AUTOMATICO
    unit.fired_serial = state.serial
    if resolution.outcome.key == f"{K}.aa.shot_down":
        mission.stage = "done"
    elif resolution.outcome.key == f"{K}.aa.damaged":
        mission.stage = "returning"
        mission.attempts = 0
        mission.due_turn = state.turn + 1


# -- effects ------------------------------------------------------------------------------------


def _owe(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    reason: str,
    modifier: int = 0,
    air: bool = False,
) -> None:
    if not unit.alive or (figure is not None and not figure.alive):
        return
    number = figure.n if figure is not None else None
    for pending in state.pending:
        if pending.unit == unit.id and pending.figure == number:
            if reason not in pending.reasons:
                pending.reasons.append(reason)
            pending.modifier = min(pending.modifier, modifier)
            pending.air = pending.air or air
            return
    state.pending.append(
        PendingMorale(unit=unit.id, figure=number, reasons=[reason], modifier=modifier, air=air)
    )


def _killed(state: GameState, unit: UnitState, figure: Figure, result: Applied) -> None:
    """A soldier killed: his squad tests morale; a leader killed leaves it leaderless."""
    state.pending = [p for p in state.pending if not (p.unit == unit.id and p.figure == figure.n)]
    for other in unit.figures:
        if other.alive and other is not figure:
            _owe(state, unit, other, "soldato_ucciso")
            if figure.role == "leader":
                _owe(state, unit, other, "comandante")


def _figure_damage(
    state: GameState,
    unit: UnitState,
    figure: Figure,
    key: str,
    params: dict[str, Any],
    result: Applied,
) -> None:
    if key == "shocked":
        if figure.shocked(state.turn):
            figure.panic = True
        figure.shocked_until = state.turn + 1
    elif key == "wounded":
        figure.wounded = True
        if figure.role == "leader":
            for other in unit.figures:
                if other.alive and other is not figure:
                    _owe(state, unit, other, "comandante")
    elif key == "badly_wounded":
        figure.badly_wounded = True
        figure.bleed_until = state.turn + int(params.get("bleed", 1)) - 1
        if figure.role == "leader":
            for other in unit.figures:
                if other.alive and other is not figure:
                    _owe(state, unit, other, "comandante")
    elif key == "dead":
        figure.dead = True
        _killed(state, unit, figure, result)


def _vehicle_damage(
    state: GameState, unit: UnitState, key: str, weapon: int | None, result: Applied
) -> None:
    vehicle = unit.vehicle
    assert vehicle is not None
    damaged = load_tables()["danni_blindati"].data["damaged_results"]
    if key == "mobility_damaged":
        if vehicle.mobility_damaged:
            vehicle.immobilised = True
        vehicle.mobility_damaged = True
    elif key == "immobilised":
        vehicle.immobilised = True
    elif key == "radio_destroyed":
        vehicle.radio_destroyed = True
    elif key == "turret_jammed":
        vehicle.turret_jammed = True
    elif key == "weapon_destroyed":
        working = unit.working_weapons()
        if working:
            lost = working[min(max((weapon or 1) - 1, 0), len(working) - 1)]
            unit.weapons_destroyed.append(lost)
    elif key == "destroyed":
        vehicle.destroyed = True
        state.pending = [p for p in state.pending if p.unit != unit.id]
        for rider in state.units.values():
            if rider.riding == unit.id:
                rider.riding = None
    if key in damaged:
        vehicle.damaged = True


def _apply_effects(state: GameState, resolution: Resolution, result: Applied) -> None:
    """Apply a resolution's effects to the units (and soldiers) they name."""
    for effect in resolution.effects:
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        params = dict(effect.params)
        number = params.get("figure")
        figure = unit.figure(int(number)) if isinstance(number, int) else None
        if effect.kind is EffectKind.DAMAGE:
            if figure is not None:
                _figure_damage(state, unit, figure, effect.key, params, result)
            elif unit.vehicle is not None:
                weapon = params.get("weapon")
                _vehicle_damage(
                    state, unit, effect.key, weapon if isinstance(weapon, int) else None, result
                )
        elif effect.kind is EffectKind.TEST_OWED and effect.key == "morale":
            modifier = params.get("modifier", 0)
            _owe(
                state,
                unit,
                figure,
                str(params.get("reason", "tabelle")),
                modifier if isinstance(modifier, int) else 0,
            )


# -- morale ---------------------------------------------------------------------------------------


def _morale_input(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    pending: PendingMorale | None,
    command: MoraleTest,
) -> checks.MoraleInput:
    vehicle = unit.vehicle
    isolated = unit.isolated_flag or command.isolated
    if vehicle is not None:
        isolated = isolated or vehicle.radio_destroyed or vehicle.transport
    elif figure is not None:
        isolated = _isolated(unit, figure)
    badly = sum(1 for f in unit.figures if f.alive and f.badly_wounded and f is not figure)
    return checks.MoraleInput(
        quality=unit.quality,
        quality_modifier=_quality_modifier(state, unit),
        wounded=figure is not None and (figure.wounded or figure.badly_wounded),
        isolated=isolated,
        cover=unit.cover,
        under_fire=unit.under_fire_serial == state.serial,
        leader_killed=unit.leaderless,
        badly_wounded_near=min(badly, 12),
        fanatic=unit.fanatic,
        result_modifier=max(pending.modifier if pending else 0, -6),
        vehicle=vehicle is not None,
        armoured_undamaged=vehicle is not None and vehicle.armoured and not vehicle.damaged,
        already_shocked=(
            figure.shocked(state.turn)
            if figure is not None
            else unit.crew_shocked_until is not None and unit.crew_shocked_until >= state.turn
        ),
        enemy_near=command.enemy_near,
        air_attack=(pending.air if pending else False) or command.air,
    )


def _apply_morale(
    state: GameState, unit: UnitState, figure: Figure | None, key: str, result: Applied
) -> None:
    reaction = key.removeprefix(f"{K}.morale.")
    if figure is None:
        if reaction == "shocked":
            unit.crew_shocked_until = state.turn + 1
        elif reaction in ("panic", "panic_no_enemy"):
            unit.crew_panic = True
        elif reaction == "abandon":
            assert unit.vehicle is not None
            unit.vehicle.abandoned = True
            unit.crew_panic = True
            for rider in state.units.values():
                if rider.riding == unit.id:
                    rider.riding = None
        return
    if reaction == "shocked":
        figure.shocked_until = state.turn + 1
    elif reaction in ("panic", "panic_no_enemy"):
        figure.panic = True
        if reaction == "panic_no_enemy" and figure.weapon in state.weapons:
            weapon = state.weapons[figure.weapon]
            if weapon.row and fire.weapon_row(weapon.row).data.get("mg"):
                figure.weapon = None  # abandons heavy weapons
    elif reaction == "surrender":
        figure.surrendered = True
    del result


def _do_morale(
    state: GameState, command: MoraleTest, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor)
    _alive(unit)
    owed = [p for p in state.pending if p.unit == unit.id]
    if not owed:
        if command.reason is None:
            raise IllegalAction("error.linea_gotica.no_morale_owed", unit=unit.name)
        table = load_tables()["cause_morale"]
        known = [str(r.id) for r in table.rows]
        if command.reason not in known:
            raise UnknownName(
                "error.linea_gotica.unknown_reason",
                name=command.reason[:40],
                known=", ".join(known),
            )
        if unit.vehicle is not None:
            owed = [PendingMorale(unit=unit.id, reasons=[command.reason], air=command.air)]
        else:
            owed = [
                PendingMorale(unit=unit.id, figure=f.n, reasons=[command.reason], air=command.air)
                for f in unit.figures
                if f.alive
            ]
    for pending in owed:
        figure = unit.figure(pending.figure) if pending.figure is not None else None
        if figure is not None and not figure.alive:
            continue
        resolution = _resolve("morale", _morale_input(state, unit, figure, pending, command), tray)
        result.resolutions.append(resolution)
        if not is_preview():
            _apply_morale(state, unit, figure, resolution.outcome.key, result)
    state.pending = [p for p in state.pending if p.unit != unit.id]


# -- actions, observation, mines, command distance, smoke ----------------------------------------


def _actor_figure(unit: UnitState, man: int | None, state: GameState) -> Figure | None:
    if unit.vehicle is not None:
        return None
    if man is not None:
        figure = unit.figure(man)
        if not figure.alive:
            raise IllegalAction("error.linea_gotica.figure_out", unit=unit.name, figure=figure.n)
        return figure
    able = [f for f in unit.figures if f.able(state.turn)]
    able.sort(key=lambda f: (f.wounded, f.role != "leader"))
    return able[0] if able else None


def _action_phase_check(state: GameState, unit: UnitState, kind: str) -> None:
    if is_preview():
        return
    if kind == "fumo" and state.phase is Phase.MOVEMENT:
        if unit.side != _move_side(state):
            raise IllegalAction("error.linea_gotica.not_your_move")
        return
    _may_act_in_fire_phase(state, unit)


def _do_test(
    state: GameState, command: TakeTest, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor)
    kind = command.kind
    if kind == "osservare":
        _observe(state, unit, command, tray, actor, result)
        return
    if kind == "mine":
        _spot_mines(state, unit, command, tray, result)
        return
    if kind == "comando":
        _command_check(state, unit, command, tray, result)
        return
    _action_phase_check(state, unit, kind)
    continuing = (
        kind == "azione" and unit.task is not None and command.task in (None, unit.task.name)
    )
    _fresh(unit)
    _owes_morale(state, unit)
    if kind == "fumo":
        _throw_smoke(state, unit, command, tray, result)
        return
    figure = _actor_figure(unit, None if kind == "medicare" else command.man, state)
    if unit.vehicle is None and figure is None:
        raise IllegalAction("error.linea_gotica.no_shooters", unit=unit.name)
    if unit.vehicle is not None and not _crew_able(state, unit):
        raise IllegalAction("error.linea_gotica.crew_cannot", unit=unit.name)
    if (
        figure is not None
        and not is_preview()
        and not _isolation_rolls(state, unit, [figure], tray, result)
    ):
        unit.activity = "action"
        return
    tasks = load_tables()["azioni"].data["tasks"]
    level_name = {
        "mirare": tasks["mirare"],
        "piazzare": tasks["piazzare"],
        "ricaricare": tasks["ricaricare"],
        "medicare": tasks["medicare"],
        "scavare": tasks["scavare"],
        "disinnescare": tasks["disinnescare"],
    }.get(kind, command.difficulty)
    level = Level(str(level_name))
    _check_action_target(state, unit, command)
    if kind == "azione" and (command.turns > 1 or continuing):
        task = unit.task if continuing else None
        if task is None:
            task = Task(
                name=command.task or "azione",
                level=level.value,
                needed=command.turns,
                done=0,
                last_turn=state.turn,
            )
        task.done += 1
        task.last_turn = state.turn
        unit.activity = "action"
        if task.done < task.needed:
            unit.task = task
            result.notices.append(
                Outcome.of(
                    f"{K}.action.progress",
                    unit=unit.name,
                    task=task.name,
                    done=task.done,
                    needed=task.needed,
                )
            )
            return
        unit.task = None
        level = Level(task.level)
    resolution = _resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=_quality_modifier(state, unit),
            level=level,
            shift=-1 if figure is not None and figure.wounded else 0,
            purpose=_purpose(kind),
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if is_preview():
        return
    unit.activity = "action"
    if resolution.outcome.key in (f"{K}.action.passed", f"{K}.action.automatic"):
        _action_succeeded(state, unit, command, result)


def _purpose(kind: str) -> checks.Purpose:
    return {
        "medicare": checks.Purpose.MEDICARE,
        "scavare": checks.Purpose.SCAVARE,
    }.get(kind, checks.Purpose.AZIONE)


def _check_action_target(state: GameState, unit: UnitState, command: TakeTest) -> None:
    kind = command.kind
    if kind in ("piazzare", "ricaricare"):
        if command.weapon is None:
            raise InvalidInput("error.linea_gotica.weapon_needed")
        carried = [f.weapon for f in unit.figures if f.alive] + unit.working_weapons()
        if command.weapon not in carried:
            raise IllegalAction(
                "error.linea_gotica.no_weapon",
                unit=unit.name,
                weapons=", ".join(sorted({w for w in carried if w})) or "-",
            )
        if kind == "ricaricare":
            weapon = state.weapons[command.weapon]
            row = fire.weapon_row(str(weapon.row)) if weapon.row else None
            if (
                row is not None
                and row.data["mode"] == "he"
                and not any(f.alive and f.role == "portamunizioni" for f in unit.figures)
            ):
                raise IllegalAction("error.linea_gotica.no_ammo_bearer", unit=unit.name)
    if kind == "medicare":
        if command.man is None:
            raise InvalidInput("error.linea_gotica.man_needed")
        patient = unit.figure(command.man)
        if not patient.alive or not (patient.badly_wounded or patient.wounded):
            raise IllegalAction("error.linea_gotica.not_wounded", unit=unit.name, figure=patient.n)
    if kind == "disinnescare" and command.minefield not in state.minefields:
        raise UnknownName("error.linea_gotica.unknown_minefield", name=str(command.minefield)[:40])


def _action_succeeded(
    state: GameState, unit: UnitState, command: TakeTest, result: Applied
) -> None:
    kind = command.kind
    if kind == "mirare":
        unit.aimed_turn = state.turn
    elif kind == "piazzare" and command.weapon is not None:
        if command.weapon not in unit.emplaced:
            unit.emplaced.append(command.weapon)
    elif kind == "ricaricare" and command.weapon is not None:
        unit.needs_reload = [w for w in unit.needs_reload if w != command.weapon]
    elif kind == "medicare" and command.man is not None:
        patient = unit.figure(command.man)
        if patient.badly_wounded:
            patient.badly_wounded = False
            patient.bleed_until = None
            patient.wounded = True
    elif kind == "scavare":
        unit.cover = Cover.ENTRENCHED
    elif kind == "disinnescare" and command.minefield is not None:
        state.minefields[command.minefield].cleared = True
    result.notices.append(Outcome.of(f"{K}.action.done", unit=unit.name, task=kind))


def _observe(
    state: GameState,
    unit: UnitState,
    command: TakeTest,
    tray: DiceTray,
    actor: str | None,
    result: Applied,
) -> None:
    if command.target is None:
        raise InvalidInput("error.linea_gotica.target_needed")
    target = state.unit(command.target)
    if target.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=target.name)
    if not target.hidden:
        raise IllegalAction("error.linea_gotica.already_seen", target=target.name)
    moving_now = (
        state.phase is Phase.MOVEMENT
        and target.activity == "moved"
        and target.side == _move_side(state)
    )
    if (
        not is_preview()
        and state.phase not in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE)
        and not moving_now
    ):
        raise IllegalAction("error.linea_gotica.not_observation_time")
    element = target.place or target.id
    key = f"{unit.side}:{state.phase.value}:{element}"
    if key in state.observed and not is_preview():
        raise IllegalAction("error.linea_gotica.observed_already", place=element)
    figure = _actor_figure(unit, command.man, state)
    scout = any(
        f.role == "esploratore" and f.able(state.turn) for f in unit.figures
    ) and unit.pace in (TargetMovement.FERMO, TargetMovement.CAUTO)
    if unit.vehicle is None:
        observer = checks.Observer.FANTERIA
    else:
        observer = (
            checks.Observer.VEICOLO_APERTO if unit.vehicle.open else checks.Observer.VEICOLO_CHIUSO
        )
    sniper_unit = (
        target.vehicle is None
        and any(f.role == "sniper" and f.alive for f in target.figures)
        and all(f.role in ("sniper", "osservatore") for f in target.figures if f.alive)
    )
    resolution = _resolve(
        "observation",
        checks.ObservationInput(
            quality=unit.quality,
            quality_modifier=_quality_modifier(state, unit),
            target="infantry" if target.vehicle is None else "vehicle",
            target_moving=target.pace is not TargetMovement.FERMO,
            target_in_cover=target.cover is not Cover.NONE,
            observer=observer,
            target_fired=target.fired_serial == state.serial,
            night=state.night is not fire.Night.GIORNO,
            scout=scout,
            wounded=figure is not None and figure.wounded,
            hidden_sniper=sniper_unit,
            moonless=state.night is fire.Night.SENZA_LUNA,
            distance_cm=command.distance_cm,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if is_preview():
        return
    state.observed.append(key)
    if resolution.outcome.key == f"{K}.observe.seen":
        target.hidden = False
    del actor


def _spot_mines(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> None:
    field_id = command.minefield or ""
    if field_id not in state.minefields:
        raise UnknownName("error.linea_gotica.unknown_minefield", name=field_id[:40])
    mines = state.minefields[field_id]
    if unit.vehicle is not None or unit.pace not in (TargetMovement.FERMO, TargetMovement.CAUTO):
        raise IllegalAction("error.linea_gotica.mines_standing_only", unit=unit.name)
    tables = load_tables()
    table = tables["individuazione_mine"]
    row = table.row_by_id("genieri" if unit.engineers else "fanteria")
    within: int = tables.parsed(table, row, table.column("entro"))
    if command.distance_cm is None:
        raise InvalidInput("error.linea_gotica.distance_needed")
    if command.distance_cm > within:
        raise IllegalAction("error.linea_gotica.mines_too_far", limit=within)
    level: Level = tables.parsed(table, row, table.column("difficolta"))
    figure = _actor_figure(unit, command.man, state)
    resolution = _resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=_quality_modifier(state, unit),
            level=level,
            shift=-1 if figure is not None and figure.wounded else 0,
            purpose=checks.Purpose.MINE,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if (
        not is_preview()
        and resolution.outcome.key in (f"{K}.action.passed", f"{K}.action.automatic")
        and unit.side not in mines.known_to
    ):
        mines.known_to.append(unit.side)


def _command_check(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> None:
    if unit.vehicle is not None or unit.leader_ability is None:
        raise IllegalAction("error.linea_gotica.no_command_distance", unit=unit.name)
    if command.man is None or command.distance_cm is None:
        raise InvalidInput("error.linea_gotica.man_and_distance_needed")
    figure = unit.figure(command.man)
    resolution = _resolve(
        "command",
        checks.CommandInput(
            leader=unit.leader_ability,
            section=unit.section,
            scout=figure.role == "esploratore",
            sniper_quality=unit.quality if figure.role == "sniper" else None,
            distance_cm=command.distance_cm,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if not is_preview():
        figure.isolated = resolution.outcome.key == f"{K}.command.isolated"


def _throw_smoke(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> None:
    if command.source == "lanciafumogeni_veicolo":
        if unit.vehicle is None or not any(state.weapons[w].smoke for w in unit.working_weapons()):
            raise IllegalAction("error.linea_gotica.no_smoke", unit=unit.name)
    elif unit.vehicle is not None:
        raise IllegalAction("error.linea_gotica.no_smoke", unit=unit.name)
    resolution = _resolve("smoke", checks.SmokeInput(source=command.source), tray)
    result.resolutions.append(resolution)
    if is_preview():
        return
    turns = int(resolution.outcome.param("turns") or 0)
    state.smoke.append(
        Smoke(
            id=state.next_id("f"),
            source=command.source,
            side=unit.side,
            place=command.place or unit.place,
            turns=turns,
        )
    )
    unit.activity = "action"


# -- indirect fire and aircraft -------------------------------------------------------------------


def _do_call(
    state: GameState, command: CallSupport, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = _acting(state, command.unit, actor)
    _may_act_in_fire_phase(state, unit)
    _fresh(unit)
    _owes_morale(state, unit)
    support = state.supports.get(command.battery)
    if support is None or support.side != unit.side:
        raise IllegalAction("error.linea_gotica.not_your_support", battery=command.battery[:40])
    if not unit.observer and not (unit.commander and support.platoon_mortars):
        raise IllegalAction(
            "error.linea_gotica.not_an_observer", unit=unit.name, battery=support.name
        )
    if any(m.support == support.id and m.stage != "done" for m in state.missions):
        raise IllegalAction("error.linea_gotica.support_busy", battery=support.name)
    table = load_tables()["supporto"]
    level = Level(str(table.row_by_id(support.contact).data["action"]))
    modifier = _quality_modifier(state, unit) + state.coordination.get(unit.side, 0)
    if unit.radio and support.contact in ("dedicata", "mortaio_leggero"):
        modifier += int(table.row_by_id("radio").data["quality_modifier"])
    figure = _actor_figure(unit, None, state)
    resolution = _resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=max(-6, min(6, modifier)),
            level=level,
            shift=-1 if figure is not None and figure.wounded else 0,
            purpose=checks.Purpose.CONTATTO,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if is_preview():
        return
    unit.activity = "action"
    if resolution.outcome.key not in (f"{K}.action.passed", f"{K}.action.automatic"):
        return
    delay = int(table.data["ranging_delay_turns"])
    mission = Mission(
        id=state.next_id("m"),
        support=support.id,
        side=unit.side,
        observer=unit.id,
        target=command.target,
        stage="aircraft" if support.kind == "aereo" else "ranging",
        due_turn=state.turn + delay,
        point=command.target,
    )
    state.missions.append(mission)
    result.notices.append(
        Outcome.of(
            f"{K}.mission.contacted", marker=mission.id, battery=support.name, turn=mission.due_turn
        )
    )


def _mission(state: GameState, marker: str) -> Mission:
    for mission in state.missions:
        if mission.id == marker:
            return mission
    raise UnknownName("error.linea_gotica.unknown_marker", name=marker[:40])


def _deviate(
    state: GameState, observer: UnitState, tray: DiceTray, result: Applied, modifier: int = 0
) -> tuple[str, bool]:
    """A ranging shot (or an air attack's approach): where it lands, and whether it is lost."""
    resolution = _resolve(
        "ranging",
        fire.RangingInput(
            quality=observer.quality,
            quality_modifier=max(-6, min(6, _quality_modifier(state, observer) + modifier)),
        ),
        tray,
    )
    result.resolutions.append(resolution)
    outcome = resolution.outcome
    if outcome.key == f"{K}.ranging.lost":
        return "", True
    if outcome.key == f"{K}.ranging.on_target":
        return "0", False
    parts: list[str] = []
    for direction_key, dice_key in (("along", "along_dice"), ("across", "across_dice")):
        direction = outcome.param(direction_key)
        dice = outcome.param(dice_key)
        if direction is None or not dice:
            continue
        distance = _resolve(
            "scatter_distance",
            fire.ScatterDistanceInput(dice=int(dice), direction=Direction(str(direction))),
            tray,
        )
        result.resolutions.append(distance)
        parts.append(f"{distance.outcome.param('cm')} cm {direction}")
    return " + ".join(parts), False


def _do_execute(
    state: GameState, command: Execute, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    mission = _mission(state, command.marker)
    if actor is not None and mission.side != actor:
        raise IllegalAction("error.linea_gotica.not_your_support", battery=mission.id)
    if mission.stage == "done":
        raise IllegalAction("error.linea_gotica.mission_over", marker=mission.id)
    observer = state.unit(mission.observer)
    support = state.supports[mission.support]
    if not is_preview():
        if state.phase is not Phase.FIRE:
            raise IllegalAction("error.linea_gotica.wrong_phase", phase=state.phase.value)
        if observer.class_index != state.fire_class:
            raise IllegalAction(
                "error.linea_gotica.not_this_class",
                unit=observer.name,
                quality=QUALITY_ORDER[state.fire_class].value,
            )
        if mission.due_turn > state.turn:
            raise IllegalAction(
                "error.linea_gotica.mission_not_due", marker=mission.id, turn=mission.due_turn
            )
    if mission.stage == "ranging":
        _ranging_shot(state, mission, observer, command, tray, result)
    elif mission.stage == "order":
        _observer_order(state, mission, observer, support, command, tray, result)
    elif mission.stage == "returning":
        _aircraft_return(state, mission, observer, support, tray, result)
    elif mission.stage in ("aircraft", "strafe"):
        _air_attack(state, mission, observer, support, command, tray, result)


def _ranging_shot(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    command: Execute,
    tray: DiceTray,
    result: Applied,
) -> None:
    if command.order not in ("tiro",):
        raise IllegalAction("error.linea_gotica.ranging_first", marker=mission.id)
    where, lost = _deviate(state, observer, tray, result)
    if is_preview():
        return
    mission.due_turn = state.turn + 1
    mission.fired_turn = state.turn
    if lost or not command.visible:
        result.notices.append(Outcome.of(f"{K}.mission.lost", marker=mission.id))
        return
    mission.stage = "order"
    mission.point = f"{mission.target} ({where})" if where != "0" else mission.target
    result.notices.append(Outcome.of(f"{K}.mission.ranged", marker=mission.id, point=mission.point))


def _observer_order(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    support: SupportState,
    command: Execute,
    tray: DiceTray,
    result: Applied,
) -> None:
    if command.order == "tiro":
        raise IllegalAction("error.linea_gotica.order_needed", marker=mission.id)
    if not is_preview():
        _fresh(observer)
        observer.activity = "action"
    if command.order == "fine":
        mission.stage = "done"
        result.notices.append(Outcome.of(f"{K}.mission.ended", marker=mission.id))
        return
    if command.order == "aggiusta":
        adjust = int(load_tables()["supporto"].data["adjust_cm"])
        mission.point = command.where or mission.point
        mission.due_turn = state.turn + 1
        result.notices.append(
            Outcome.of(f"{K}.mission.adjusted", marker=mission.id, point=mission.point, cm=adjust)
        )
        return
    if command.order != "effetto":
        raise IllegalAction("error.linea_gotica.order_needed", marker=mission.id)
    if command.ammo == "fumo":
        if not support.smoke:
            raise IllegalAction("error.linea_gotica.no_smoke", unit=support.name)
        resolution = _resolve("smoke", checks.SmokeInput(source="proiettili"), tray)
        result.resolutions.append(resolution)
        state.smoke.append(
            Smoke(
                id=state.next_id("f"),
                source="proiettili",
                side=mission.side,
                place=mission.point,
                effect_at="fire_phase_end",
                turns=int(resolution.outcome.param("turns") or 0),
            )
        )
    else:
        blast = _support_blast(state, mission, support)
        result.notices.append(
            Outcome.of(
                f"{K}.mission.effect",
                marker=blast.id,
                point=mission.point,
                **_radii(blast.blast_row),
            )
        )
    mission.due_turn = state.turn + 1
    mission.fired_turn = state.turn


def _support_blast(state: GameState, mission: Mission, support: SupportState) -> Blast:
    heavy_from = int(load_tables()["probabilita_he"].data["heavy_calibre_from_mm"])
    calibre = support.calibre_mm
    spec = DamageSpec(
        soft_class=SoftClass.CANNON,
        penetration=fire.penetration_row_for_calibre(calibre, indirect=True),
        indirect=True,
    )
    blast = Blast(
        id=mission.id,
        label=support.name,
        side=mission.side,
        spec=spec.model_dump(mode="json"),
        blast_row=fire.blast_row_for_calibre(calibre),
        heavy_calibre=calibre >= heavy_from,
        serial=state.serial,
    )
    state.blasts = [b for b in state.blasts if b.id != blast.id] + [blast]
    return blast


def _air_attack(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    support: SupportState,
    command: Execute,
    tray: DiceTray,
    result: Applied,
) -> None:
    if mission.stage == "strafe":
        if command.order == "fine":
            mission.stage = "done"
            return
        if command.order != "mitraglia":
            raise IllegalAction("error.linea_gotica.order_needed", marker=mission.id)
    elif command.order not in ("tiro",):
        raise IllegalAction("error.linea_gotica.order_needed", marker=mission.id)
    where, lost = _deviate(state, observer, tray, result, state.coordination.get(mission.side, 0))
    if is_preview():
        return
    point = mission.target if where in ("0", "") else f"{mission.target} ({where})"
    if lost:
        point = "-"
    if mission.stage == "aircraft":
        aerei = load_tables()["aerei"]
        bombs = str(support.bombs)
        spec = DamageSpec(
            soft_class=SoftClass.CANNON,
            penetration=str(aerei.data["bomb_penetration"]),
            indirect=True,
        )
        blast = Blast(
            id=mission.id,
            label=support.name,
            side=mission.side,
            spec=spec.model_dump(mode="json"),
            blast_row=None,
            bombs=bombs,
            serial=state.serial,
        )
        state.blasts = [b for b in state.blasts if b.id != blast.id] + [blast]
        result.notices.append(Outcome.of(f"{K}.mission.bombs", marker=mission.id, point=point))
        if bombs == "napalm" and not lost:
            state.smoke.append(
                Smoke(
                    id=state.next_id("f"),
                    source="napalm",
                    side=mission.side,
                    place=point,
                    effective=True,
                    turns=999,
                    expires_after=state.max_turns + 1,
                )
            )
        mission.stage = "strafe" if support.strafing else "done"
    else:
        strafe = Blast(
            id=mission.id,
            label=support.name,
            side=mission.side,
            spec=DamageSpec(soft_class=SoftClass.CANNON).model_dump(mode="json"),
            blast_row=None,
            strafe_quality=support.quality,
            serial=state.serial,
        )
        state.blasts = [b for b in state.blasts if b.id != strafe.id] + [strafe]
        result.notices.append(Outcome.of(f"{K}.mission.strafe", marker=mission.id, point=point))
        mission.stage = "done"
    mission.fired_turn = state.turn


def _aircraft_return(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    support: SupportState,
    tray: DiceTray,
    result: Applied,
) -> None:
    resolution = _resolve(
        "aircraft_return", checks.AircraftReturnInput(attempt=min(mission.attempts + 1, 3)), tray
    )
    result.resolutions.append(resolution)
    if is_preview():
        return
    mission.attempts += 1
    if resolution.outcome.key == f"{K}.aa.returns":
        mission.stage = "aircraft"
        mission.due_turn = state.turn
    elif resolution.outcome.key == f"{K}.aa.back_to_base":
        mission.stage = "done"
    else:
        mission.due_turn = state.turn + 1
    del observer, support


def _do_fragments(
    state: GameState, command: Fragments, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    blast = next((b for b in state.blasts if b.id == command.marker), None)
    if blast is None:
        raise UnknownName("error.linea_gotica.unknown_marker", name=command.marker[:40])
    if actor is not None and blast.side != actor:
        raise IllegalAction("error.linea_gotica.not_your_blast", marker=blast.id)
    target = state.unit(command.target)
    _alive(target)
    if blast.strafe_quality is not None:
        _strafe(state, blast, target, command, tray, result)
        return
    if target.vehicle is not None:
        _he_on_blast(state, blast, target, None, command.ring, tray, result)
    else:
        alive = [f for f in target.figures if f.alive]
        for figure in alive[: command.models or len(alive)]:
            _he_on_blast(state, blast, target, figure, command.ring, tray, result)


def alive_figures(unit: UnitState) -> list[Figure | None]:
    """The living soldiers of a unit (typed for mixed lists)."""
    return [f for f in unit.figures if f.alive]


def _strafe(
    state: GameState,
    blast: Blast,
    target: UnitState,
    command: Fragments,
    tray: DiceTray,
    result: Applied,
) -> None:
    aerei = load_tables()["aerei"]
    row_id = str(aerei.row_by_id("mitragliamento").data["weapon"])
    ranges = fire.weapon_ranges(row_id)
    distance = float((ranges[0] or 0) + 1)
    victims: list[Figure | None] = [None]
    if target.vehicle is None:
        victims = list(alive_figures(target)[: command.models or 30])
    assert blast.strafe_quality is not None
    for victim in victims:
        data = fire.DirectFireInput(
            quality=blast.strafe_quality,
            weapon=row_id,
            distance_cm=distance,
            cover=target.cover,
            prone=target.vehicle is None and target.prone,
            target=_target_spec(state, target, victim),
        )
        resolution = _resolve("direct_fire", data, tray)
        result.resolutions.append(resolution)
        if not is_preview():
            target.under_fire_serial = state.serial
            _apply_effects(state, resolution, result)


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Move: _do_move,
    Fire: _do_fire,
    TakeTest: _do_test,
    MoraleTest: _do_morale,
    CallSupport: _do_call,
    Execute: _do_execute,
    Fragments: _do_fragments,
}
