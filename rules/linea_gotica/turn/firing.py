"""TIRO DIRETTO (``/fire``): normal, opportunity and covering fire, the weapons table's rows
(notes 3–7), each shot with its damage, and anti-aircraft fire.
"""

from __future__ import annotations

import math
from typing import Any

from rules.core import geometry
from rules.core.battlefield import PolygonShape
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.core.words import joined
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY, Direction
from rules.linea_gotica.orders import Fire
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.scenario import Weapon
from rules.linea_gotica.state import Covering, Figure, GameState, Mission, Phase, UnitState
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.blasts import blast_from_direct, burst_at, he_on_blast, radii_of
from rules.linea_gotica.turn.common import (
    able_figures,
    acting_unit,
    crew_able,
    isolation_rolls,
    may_act_in_fire_phase,
    move_side,
    owes_morale,
    quality_modifier_of,
    require_alive,
    require_fresh_soldiers,
    resolve,
    target_spec,
    transport_may_act,
    weapon_of,
    wrong_phase,
)
from rules.linea_gotica.turn.effects import apply_effects, owe_morale

K = RULESET_KEY
Applied = CoreApplied[GameState]


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
                raise wrong_phase(state)
            if unit.side != move_side(state):
                raise IllegalAction("error.linea_gotica.not_your_move")
        return "covering"
    if is_preview():
        return "opportunity" if state.phase is Phase.MOVEMENT else "normal"
    if aircraft is not None:
        if aircraft.due_turn > state.turn:
            raise IllegalAction("error.linea_gotica.aircraft_not_here", marker=aircraft.id)
        if state.phase is Phase.MOVEMENT:
            return "opportunity"
        may_act_in_fire_phase(state, unit)
        return "normal"
    if state.phase is Phase.MOVEMENT:
        if unit.side == move_side(state):
            raise IllegalAction("error.linea_gotica.mover_cannot_fire")
        moving = (
            target is not None and target.activity == "moved" and target.side == move_side(state)
        )
        if not moving:
            raise IllegalAction(
                "error.linea_gotica.not_moving", target=target.name if target else "-"
            )
        return "opportunity"
    may_act_in_fire_phase(state, unit)
    return "normal"


def _check_carried(state: GameState, unit: UnitState, command: Fire) -> None:
    """A weapon typed that the unit does not carry (a typo, another unit's) is an unknown
    name, offered back among the unit's own weapons ("did you mean …?"), not a unit with
    "no one able to do it"."""
    if command.weapon is None:
        return
    carried = list(
        dict.fromkeys([*(f.weapon for f in unit.figures if f.weapon), *unit.weapons])
    )
    if command.weapon not in carried:
        raise UnknownName(
            "error.linea_gotica.no_such_weapon",
            unit=unit.name,
            weapon=command.weapon[:40],
            weapons=joined(state.weapons[w].name for w in carried) or "-",
            among=tuple(carried),
        )


def _shooters(state: GameState, unit: UnitState, command: Fire) -> list[tuple[Figure | None, str]]:
    """Who fires with what: soldiers with their weapons, or the vehicle's weapon."""
    _check_carried(state, unit, command)
    if unit.vehicle is not None:
        if not crew_able(state, unit):
            raise IllegalAction("error.linea_gotica.crew_cannot", unit=unit.name)
        working = [w for w in unit.working_weapons() if state.weapons[w].row]
        weapon_id = command.weapon or (working[0] if working else None)
        if weapon_id is None or weapon_id not in working:
            raise IllegalAction(
                "error.linea_gotica.no_weapon",
                unit=unit.name,
                weapons=joined(state.weapons[w].name for w in working) or "-",
            )
        return [(None, weapon_id)]
    able = able_figures(state, unit)
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


def _has_shooters(state: GameState, unit: UnitState, command: Fire) -> bool:
    try:
        _shooters(state, unit, command)
    except IllegalAction:
        return False
    return True


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
    weapon = weapon_of(state, weapon_id)
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
    """The soldiers a shot falls on: the man aimed at first, then the others (leader last).

    The man aimed at is checked when the command is given (``check_aimed_man``); if an
    earlier shot of the same volley put him out, the later shooters' shots fall on the next
    man (decision recorded in docs/linea_gotica.md).
    """
    alive = [f for f in target.figures if f.alive]
    alive.sort(key=lambda f: f.role == "leader")
    if command.man is not None:
        chosen = target.figure(command.man)
        if chosen.alive:
            alive = [chosen] + [f for f in alive if f is not chosen]
    return alive[:count]


def check_aimed_man(target: UnitState, command: Fire) -> None:
    """The soldier aimed at (``man``) must be in play when the volley is ordered."""
    if command.man is None or target.vehicle is not None:
        return
    chosen = target.figure(command.man)
    if not chosen.alive:
        raise IllegalAction("error.linea_gotica.figure_out", unit=target.name, figure=chosen.n)


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
        quality_modifier=quality_modifier_of(state, unit),
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
        target=target_spec(state, target, target_figure),
    )


def check_fire(state: GameState, command: Fire, actor: str | None) -> None:
    """Every check of ``/fire`` at a unit or a terrain element that does not need dice: the
    handler and the legal-action listing both call it (aircraft: ``check_anti_aircraft``)."""
    unit = acting_unit(state, command.unit, actor)
    if command.modifier and actor is not None:
        raise IllegalAction("error.linea_gotica.referee_modifier")
    target = state.units.get(command.target)
    if target is None and command.kind != "copertura":
        raise UnknownName("error.linea_gotica.unknown_unit", name=command.target[:40])
    _fire_context(state, unit, command, target, None)
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    if target is None:
        _covering_weapon(state, unit, command)
        _covering_sight(state, unit, command.target)
        return
    _check_target(unit, target, command)
    if state.field is not None:
        if target.hidden and actor is not None and actor != target.side:
            # Even a preview: a measured distance or a blocked line would say where it is.
            raise IllegalAction("error.linea_gotica.not_spotted", target=target.name)
        measure_fire(state, unit, target)
    for figure, weapon_id in _shooters(state, unit, command):
        row_id, _ = _fire_row(state, unit, figure, weapon_id, command.mode)
        _check_uses(state, unit, figure, weapon_id)
        _check_pierces(state, weapon_id, row_id, target)


def smoke_places(state: GameState) -> tuple[str, ...]:
    """The places under a smoke screen now (they block sight on the battlefield)."""
    return tuple(screen.place for screen in state.smoke if screen.effective and screen.place)


def measure_fire(state: GameState, unit: UnitState, target: UnitState) -> float:
    """The distance firer → target on the battlefield; refused when something blocks the
    line (a sight-blocking area between, or smoke), naming it."""
    assert state.field is not None
    origin, aim = state.positions.get(unit.id), state.positions.get(target.id)
    if origin is None or aim is None:
        raise IllegalAction(
            "error.linea_gotica.field.no_position",
            unit=unit.name if origin is None else target.name,
        )
    measured, blocking = field.sight(state.field, origin, aim, smoke_places(state))
    field.refuse_blocked(state.field, blocking, target.name)
    return measured.cm


def _measured_command(
    state: GameState,
    unit: UnitState,
    target: UnitState,
    command: Fire,
    actor: str | None,
    result: Applied,
) -> Fire:
    """The fire command with the measured distance (a player's differing one refused, the
    referee's kept and logged), the target's terrain noted, the line of fire marked."""
    assert state.field is not None
    measured = measure_fire(state, unit, target)
    notices: list[Outcome] = []
    distance = field.settle_distance(command.distance_cm or None, measured, actor, notices)
    terrain, area = geometry.terrain_at(state.field, state.positions[target.id])
    notices.append(
        Outcome.of(
            f"{K}.field.target_terrain",
            target=target.name,
            terrain=terrain,
            area=field.area_name(state.field, area),
            cover=target.cover.value,
        )
    )
    result.notices.extend(notices)
    state.marks = [
        field.line_mark(
            state.positions[unit.id],
            state.positions[target.id],
            f"{unit.id} → {target.id} {field.cm(distance)} cm",
        )
    ]
    state.marks_of = [unit.id, target.id]
    return command.model_copy(update={"distance_cm": distance})


def _check_target(unit: UnitState, target: UnitState, command: Fire) -> None:
    if target.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=target.name)
    require_alive(target)
    if target.hidden and not is_preview():
        raise IllegalAction("error.linea_gotica.not_spotted", target=target.name)
    if unit.riding is not None:
        raise IllegalAction("error.linea_gotica.riding", unit=unit.name, vehicle=unit.riding)
    check_aimed_man(target, command)


def _check_pierces(state: GameState, weapon_id: str, row_id: str, target: UnitState) -> None:
    """Weapons with no row in PENETRAZIONE CORAZZA cannot harm armour."""
    if target.vehicle is None or not target.vehicle.armoured:
        return
    row = fire.weapon_row(row_id)
    weapon = state.weapons[weapon_id]
    piercing = (
        row.data.get("penetration")
        or row.data.get("penetration_by_calibre")
        or weapon.penetration
        or row.data["mode"] == "flame"
    )
    if not piercing:
        raise IllegalAction("error.linea_gotica.cannot_penetrate", target=target.name)


def do_fire(
    state: GameState, command: Fire, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = acting_unit(state, command.unit, actor)
    if command.modifier and actor is not None:
        raise IllegalAction("error.linea_gotica.referee_modifier")
    aircraft = next(
        (m for m in state.missions if m.id == command.target and m.stage == "aircraft"), None
    )
    target = state.units.get(command.target)
    if target is None and aircraft is None and command.kind != "copertura":
        raise UnknownName("error.linea_gotica.unknown_unit", name=command.target[:40])
    context = _fire_context(state, unit, command, target, aircraft)
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    if aircraft is not None:
        _fire_anti_aircraft(state, unit, aircraft, command, context, tray, result)
        return
    if target is None:
        _declare_covering(state, unit, command, result)
        return
    check_fire(state, command, actor)
    if state.field is not None:
        command = _measured_command(state, unit, target, command, actor, result)
    if not is_preview():
        _trigger_covering(state, unit, tray, result)
        if not unit.alive or not _has_shooters(state, unit, command):
            unit.activity = "fired"  # the covering fire it triggered stopped it
            return
    shooters = _shooters(state, unit, command)
    sniping = any(f is not None and f.role == "sniper" for f, _ in shooters)
    if unit.hidden and sniping and not is_preview():
        check = resolve("sniper", checks.SniperInput(quality=unit.quality), tray)
        result.resolutions.append(check)
        if check.outcome.key != f"{K}.sniper.fires":
            unit.activity = "fired"
            return
    if unit.vehicle is not None and not transport_may_act(state, unit, tray, result):
        unit.activity = "fired"
        return
    figures = [f for f, _ in shooters if f is not None]
    if figures and not is_preview():
        kept = isolation_rolls(state, unit, figures, tray, result)
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
    if (context == "covering" and unit.vehicle is not None) or context != "covering":
        unit.covered_by = []
    else:
        # One soldier, one activity (TIRO ed AZIONI): only the covering shooters are spent.
        unit.covered_by += [f.n for f, _ in shooters if f is not None]
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
        owe_morale(state, target, None, "lanciafiamme")
    for fig in target.figures:
        owe_morale(state, target, fig, "lanciafiamme")


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
    resolution = resolve("direct_fire", data, tray)
    result.resolutions.append(resolution)
    if is_preview():
        return
    row = fire.weapon_row(data.weapon)
    if row.data["mode"] in ("he", "flame"):
        target.under_fire_serial = state.serial
    apply_effects(state, resolution, result)
    outcome = resolution.outcome
    if outcome.key == f"{K}.fire.blast":
        blast = blast_from_direct(state, data, firer.side)
        if state.field is not None:
            # The target's own soldiers are counted as before (models, models_long); the
            # bot finds the other units under the blast.
            blast.resolved.append(target.id)
            burst_at(state, blast, state.positions.get(target.id), tray, result, (target.id,))
        others = [f for f in target.figures if f.alive and f is not aimed]
        others.sort(key=lambda f: f.role == "leader")
        short_count = (command.models or 1) - (1 if aimed is not None else 0)
        inner = ([aimed] if aimed is not None else []) + others[:short_count]
        outer = others[short_count : short_count + command.models_long]
        for victim in inner:
            he_on_blast(state, blast, target, victim, "breve", tray, result)
        for victim in outer:
            he_on_blast(state, blast, target, victim, "lunga", tray, result)
    elif outcome.key == f"{K}.fire.deviated":
        blast = blast_from_direct(state, data, firer.side)
        if state.field is not None:
            aim, origin = state.positions[target.id], state.positions[firer.id]
            moved = field.deviate(
                aim,
                field.bearing(origin, aim),
                [(Direction(str(outcome.param("direction"))), float(outcome.param("cm") or 0))],
            )
            landed = field.landing(state.field, moved)
            state.marks.append(field.arrow_mark(aim, moved, f"{blast.id}"))
            burst_at(state, blast, landed, tray, result)
            return
        result.notices.append(
            Outcome.of(
                f"{K}.fire.blast_marker",
                marker=blast.id,
                direction=str(outcome.param("direction")),
                cm=outcome.param("cm") or 0,
                **radii_of(blast.blast_row),
            )
        )


def _dismount_riders(state: GameState, vehicle: UnitState, result: Applied) -> None:
    for rider in state.units.values():
        if rider.riding == vehicle.id:
            rider.riding = None
            result.notices.append(Outcome.of(f"{K}.passengers.dismount", unit=rider.name))


def _declare_covering(state: GameState, unit: UnitState, command: Fire, result: Applied) -> None:
    """Covering fire at a terrain element: automatic weapons only, resolved later."""
    weapon_id, figure = _covering_weapon(state, unit, command)
    _covering_sight(state, unit, command.target)
    if is_preview():
        return
    state.covering.append(
        Covering(unit=unit.id, side=unit.side, place=command.target, weapon=weapon_id)
    )
    unit.activity = "covering"
    if figure is not None:
        # One soldier, one activity: the BAR man is spent, not his squad.
        unit.covered_by.append(figure.n)
    result.notices.append(
        Outcome.of(
            f"{K}.covering.declared",
            unit=unit.name,
            place=field.place_name(state.field, command.target),
        )
    )


def _covering_sight(state: GameState, unit: UnitState, place: str) -> None:
    """On the battlefield covering fire at a terrain element needs sight of some of it (its
    centre or a corner), and the element must be one of the table's areas; without one, one
    of the scenario's named elements (any name, for a scenario that names none). A name
    nobody has is refused: played, it would be told back as typed, and a unit hidden from
    the shooter is such a name (bot.service.redaction)."""
    if state.field is None:
        if state.places and place not in state.places:
            raise UnknownName(
                "error.field.unknown_place", name=place[:40], known=", ".join(state.places)
            )
        return
    if unit.id not in state.positions:
        return
    area = next((a for a in state.field.areas if a.id == place), None)
    if area is None:
        raise UnknownName(
            "error.field.unknown_place",
            name=place[:40],
            known=", ".join(a.id for a in state.field.areas),
        )
    origin = state.positions[unit.id]
    points = [geometry.centroid(area.shape)]
    if isinstance(area.shape, PolygonShape):
        points += list(area.shape.points)
    blocked: tuple[str, ...] = ()
    for point in points:
        _, blocked = field.sight(state.field, origin, point, smoke_places(state))
        if not blocked:
            return
    field.refuse_blocked(state.field, blocked, area.name)


def _covering_weapon(state: GameState, unit: UnitState, command: Fire) -> tuple[str, Figure | None]:
    """The automatic weapon that fires covering fire at a terrain element, and its soldier."""
    _check_carried(state, unit, command)
    if unit.vehicle is not None:
        carried = unit.working_weapons()
    else:
        carried = [f.weapon for f in able_figures(state, unit) if f.weapon]
    automatic = [
        w
        for w in carried
        if state.weapons[w].row and fire.weapon_row(str(state.weapons[w].row)).data.get("automatic")
    ]
    weapon_id = command.weapon or (automatic[0] if automatic else None)
    if weapon_id is None or weapon_id not in automatic:
        raise IllegalAction("error.linea_gotica.covering_automatic_only", weapon=weapon_id or "-")
    figure = next((f for f in able_figures(state, unit) if f.weapon == weapon_id), None)
    if unit.vehicle is not None:
        figure = None
    _fire_row(state, unit, figure, weapon_id, "singolo")
    return weapon_id, figure


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
            Outcome.of(
                f"{K}.covering.triggered",
                unit=unit.name,
                place=field.place_name(state.field, cover.place),
            )
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
        try:
            _check_pierces(state, cover.weapon, row_id, unit)
        except IllegalAction:
            continue  # a machine gun's covering fire cannot harm a tank
        ranges = fire.weapon_ranges(row_id)
        distance = (
            ranges[1] if ranges[1] is not None else next((r for r in ranges if r is not None), 0)
        )
        if state.field is not None and shooter.id in state.positions and unit.id in state.positions:
            distance = math.ceil(
                geometry.distance(state.positions[shooter.id], state.positions[unit.id])
            )
        command = Fire(
            unit=shooter.id,
            target=unit.id,
            distance_cm=float(distance or 0),
            weapon=cover.weapon,
            mode=mode,
            kind="copertura",
        )
        # The covering side's shots, made inside the hidden unit's command: its dice.
        with tray.rolled_by(shooter.side):
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


def check_anti_aircraft(state: GameState, command: Fire, actor: str | None) -> None:
    """Every check of ``/fire`` at an aircraft (a mission's marker) that needs no dice: the
    handler's own, in its order, for the legal-action listing."""
    unit = acting_unit(state, command.unit, actor)
    if command.modifier and actor is not None:
        raise IllegalAction("error.linea_gotica.referee_modifier")
    aircraft = next(
        (m for m in state.missions if m.id == command.target and m.stage == "aircraft"), None
    )
    if aircraft is None:
        raise UnknownName("error.linea_gotica.unknown_unit", name=command.target[:40])
    _fire_context(state, unit, command, None, aircraft)
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    _anti_aircraft_weapon(state, unit, aircraft, command)


def _anti_aircraft_weapon(
    state: GameState, unit: UnitState, mission: Mission, command: Fire
) -> str:
    """The weapon that fires at the aircraft (refused: a friendly aircraft, no AA weapon)."""
    if mission.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=mission.id)
    candidates = (
        unit.working_weapons()
        if unit.vehicle is not None
        else [f.weapon for f in able_figures(state, unit) if f.weapon]
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
    return weapon_id


def _fire_anti_aircraft(
    state: GameState,
    unit: UnitState,
    mission: Mission,
    command: Fire,
    context: str,
    tray: DiceTray,
    result: Applied,
) -> None:
    weapon_id = _anti_aircraft_weapon(state, unit, mission, command)
    resolution = resolve(
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
