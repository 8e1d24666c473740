"""AZIONI (``/test``): actions and multi-turn tasks, spotting mines, command distance and smoke.
Observation has its own module.
"""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY, Level
from rules.linea_gotica.orders import TakeTest
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.procedures.fire import TargetMovement
from rules.linea_gotica.state import GameState, Phase, Smoke, Task, UnitState
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.common import (
    acting_unit,
    actor_figure,
    crew_able,
    isolation_rolls,
    known_minefield,
    may_act_in_fire_phase,
    move_side,
    owes_morale,
    quality_modifier_of,
    require_fresh_soldiers,
    resolve,
)
from rules.linea_gotica.turn.observation import do_observe

K = RULESET_KEY
Applied = CoreApplied[GameState]


def check_action(state: GameState, unit: UnitState, command: TakeTest) -> None:
    """Every check of an action (``/test`` but observation, mines, command distance) that
    does not need dice: the handler and the legal-action listing both call it."""
    command = with_the_only_weapon(state, unit, command)
    kind = command.kind
    _action_phase_check(state, unit, kind)
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    if kind == "fumo":
        _smoke_source_check(state, unit, command)
        return
    figure = actor_figure(unit, None if kind == "medicare" else command.man, state)
    if unit.vehicle is None and figure is None:
        raise IllegalAction("error.linea_gotica.no_shooters", unit=unit.name)
    if unit.vehicle is not None and not crew_able(state, unit):
        raise IllegalAction("error.linea_gotica.crew_cannot", unit=unit.name)
    _check_action_target(state, unit, command)


def _smoke_source_check(state: GameState, unit: UnitState, command: TakeTest) -> None:
    if command.source == "lanciafumogeni_veicolo":
        if unit.vehicle is None or not any(state.weapons[w].smoke for w in unit.working_weapons()):
            raise IllegalAction("error.linea_gotica.no_smoke", unit=unit.name)
    elif unit.vehicle is not None:
        raise IllegalAction("error.linea_gotica.no_smoke", unit=unit.name)


def _action_phase_check(state: GameState, unit: UnitState, kind: str) -> None:
    if is_preview():
        return
    if kind == "fumo" and state.phase is Phase.MOVEMENT:
        if unit.side != move_side(state):
            raise IllegalAction("error.linea_gotica.not_your_move")
        return
    may_act_in_fire_phase(state, unit)


def do_test(
    state: GameState, command: TakeTest, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = acting_unit(state, command.unit, actor)
    command = with_the_only_weapon(state, unit, command)
    kind = command.kind
    if kind == "osservare":
        do_observe(state, unit, command, tray, actor, result)
        return
    if kind == "mine":
        _spot_mines(state, unit, command, tray, actor, result)
        return
    if kind == "comando":
        _command_check(state, unit, command, tray, result)
        return
    check_action(state, unit, command)
    if kind == "disinnescare":
        known_minefield(state, command.minefield, actor)  # not one the side cannot see
    continuing = (
        kind == "azione" and unit.task is not None and command.task in (None, unit.task.name)
    )
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    if kind == "fumo":
        _throw_smoke(state, unit, command, tray, result)
        return
    figure = actor_figure(unit, None if kind == "medicare" else command.man, state)
    if unit.vehicle is None and figure is None:
        raise IllegalAction("error.linea_gotica.no_shooters", unit=unit.name)
    if unit.vehicle is not None and not crew_able(state, unit):
        raise IllegalAction("error.linea_gotica.crew_cannot", unit=unit.name)
    if (
        figure is not None
        and not is_preview()
        and not isolation_rolls(state, unit, [figure], tray, result)
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
    resolution = resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=quality_modifier_of(state, unit),
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


def _weapon_candidates(state: GameState, unit: UnitState, kind: str) -> list[str]:
    """The weapons ``/test kind:ricaricare`` (those waiting for a reload) or ``piazzare``
    (those that must be emplaced and are not yet) may be about: the listing's choice."""
    if unit.vehicle is not None:
        carried = unit.working_weapons()
    else:
        carried = [f.weapon for f in unit.figures if f.alive and f.weapon]
    rows = [w for w in dict.fromkeys(carried) if w in state.weapons and state.weapons[w].row]
    if kind == "ricaricare":
        return [w for w in rows if w in unit.needs_reload]
    return [
        w
        for w in rows
        if w not in unit.emplaced
        and (
            (row := fire.weapon_row(str(state.weapons[w].row)).data).get("must_emplace")
            or "unemplaced_as" in row
        )
    ]


def with_the_only_weapon(state: GameState, unit: UnitState, command: TakeTest) -> TakeTest:
    """An emplacing or a reload without ``weapon:`` is about the unit's one weapon it can
    be about, when there is exactly one."""
    if command.kind not in ("piazzare", "ricaricare") or command.weapon is not None:
        return command
    candidates = _weapon_candidates(state, unit, command.kind)
    if len(candidates) != 1:
        return command
    return command.model_copy(update={"weapon": candidates[0]})


def _check_action_target(state: GameState, unit: UnitState, command: TakeTest) -> None:
    kind = command.kind
    if kind in ("piazzare", "ricaricare"):
        if command.weapon is None:
            candidates = _weapon_candidates(state, unit, kind)
            if not candidates:
                raise IllegalAction(f"error.linea_gotica.nothing_to_{kind}", unit=unit.name)
            raise InvalidInput("error.linea_gotica.weapon_among", weapons=", ".join(candidates))
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


def _spot_mines(
    state: GameState,
    unit: UnitState,
    command: TakeTest,
    tray: DiceTray,
    actor: str | None,
    result: Applied,
) -> None:
    """``/test kind:mine``: a squad standing or moving cautiously looks for mines (seed
    line 451: within 5 cm, a Difficult Action; engineers 10 cm, Easy). Without
    ``minefield:`` it searches around itself, the minefields its side does not know of
    measured by the bot (``_search_for_mines``); with one, the minefield its side knows
    (the referee: any) is checked at its distance."""
    if command.minefield is None:
        _search_for_mines(state, unit, command, tray, result)
        return
    mines = known_minefield(state, command.minefield, actor)
    within = _mines_standing(unit)
    spotted_cm = command.distance_cm
    at = state.positions.get(unit.id)
    if state.field is not None and mines.shape is not None and at is not None:
        # The bot measures from the squad to the minefield's nearest edge.
        notices: list[Outcome] = []
        spotted_cm = field.settle_distance(
            command.distance_cm, field.gap(mines.shape, at), actor, notices
        )
        result.notices.extend(notices)
    if spotted_cm is None:
        raise InvalidInput("error.linea_gotica.distance_needed")
    if spotted_cm > within:
        raise IllegalAction("error.linea_gotica.mines_too_far", limit=within)
    if _mines_spotted(state, unit, command, tray, result) and unit.side not in mines.known_to:
        mines.known_to.append(unit.side)


def _search_for_mines(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> None:
    """A squad's search for mines it cannot name: the roll is made whatever lies near (a
    roll made only near a minefield would tell the side one is there); a passed roll finds
    every minefield its side does not know of within reach of the squad on the
    battlefield."""
    within = _mines_standing(unit)
    at = state.positions.get(unit.id)
    near = [
        mines
        for mines in state.minefields.values()
        if not mines.cleared
        and unit.side not in mines.known_to
        and state.field is not None
        and mines.shape is not None
        and at is not None
        and field.gap(mines.shape, at) <= within
    ]
    if not _mines_spotted(state, unit, command, tray, result) or not near:
        result.notices.append(Outcome.of(f"{K}.mines.none_spotted", unit=unit.name))
        return
    for mines in near:
        mines.known_to.append(unit.side)
        result.notices.append(Outcome.of(f"{K}.mines.spotted", unit=unit.name, name=mines.name))


def _mines_standing(unit: UnitState) -> int:
    """How near (cm) ``unit`` spots mines, if it may look for them at all."""
    if unit.vehicle is not None or unit.pace not in (TargetMovement.FERMO, TargetMovement.CAUTO):
        raise IllegalAction("error.linea_gotica.mines_standing_only", unit=unit.name)
    tables = load_tables()
    table = tables["individuazione_mine"]
    row = table.row_by_id("genieri" if unit.engineers else "fanteria")
    within: int = tables.parsed(table, row, table.column("entro"))
    return within


def _mines_spotted(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> bool:
    """The roll to spot mines (its resolution added): whether it passed, in play."""
    tables = load_tables()
    table = tables["individuazione_mine"]
    row = table.row_by_id("genieri" if unit.engineers else "fanteria")
    level: Level = tables.parsed(table, row, table.column("difficolta"))
    figure = actor_figure(unit, command.man, state)
    resolution = resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=quality_modifier_of(state, unit),
            level=level,
            shift=-1 if figure is not None and figure.wounded else 0,
            purpose=checks.Purpose.MINE,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    return not is_preview() and resolution.outcome.key in (
        f"{K}.action.passed",
        f"{K}.action.automatic",
    )


def _command_check(
    state: GameState, unit: UnitState, command: TakeTest, tray: DiceTray, result: Applied
) -> None:
    if unit.vehicle is not None or unit.leader_ability is None:
        raise IllegalAction("error.linea_gotica.no_command_distance", unit=unit.name)
    if command.man is None or command.distance_cm is None:
        raise InvalidInput("error.linea_gotica.man_and_distance_needed")
    figure = unit.figure(command.man)
    resolution = resolve(
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
    _smoke_source_check(state, unit, command)
    if state.field is not None and command.place:
        # Smoke blocks sight by area on the battlefield: it must name one.
        areas = [area.id for area in state.field.areas]
        if command.place not in areas:
            raise InvalidInput(
                "error.field.unknown_place", name=command.place[:40], known=", ".join(areas)
            )
    resolution = resolve("smoke", checks.SmokeInput(source=command.source), tray)
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
