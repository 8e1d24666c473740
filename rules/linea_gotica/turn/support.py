"""TIRO INDIRETTO and AEREI (``/callarty``, ``/execute``): contacting a battery, ranging shots,
the observer's orders, air attacks, strafing and damaged aircraft returning.
"""

from __future__ import annotations

from rules.core import geometry
from rules.core.battlefield import Overlay, Point
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY, Direction, Level
from rules.linea_gotica.orders import CallSupport, Execute
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.procedures.fire import DamageSpec, SoftClass
from rules.linea_gotica.state import (
    Blast,
    GameState,
    Mission,
    Phase,
    Smoke,
    SupportState,
    UnitState,
)
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.blasts import burst_at, radii_of, resolve_under
from rules.linea_gotica.turn.common import (
    acting_unit,
    actor_figure,
    fire_class_name,
    may_act_in_fire_phase,
    owes_morale,
    quality_modifier_of,
    require_fresh_soldiers,
    resolve,
    wrong_phase,
)

K = RULESET_KEY
Applied = CoreApplied[GameState]


def do_call(
    state: GameState, command: CallSupport, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = acting_unit(state, command.unit, actor)
    may_act_in_fire_phase(state, unit)
    require_fresh_soldiers(state, unit)
    owes_morale(state, unit)
    support = state.supports.get(command.battery)
    if support is None or support.side != unit.side:
        raise IllegalAction("error.linea_gotica.not_your_support", battery=command.battery[:40])
    if not unit.observer and not (unit.commander and support.platoon_mortars):
        raise IllegalAction(
            "error.linea_gotica.not_an_observer", unit=unit.name, battery=support.name
        )
    if any(m.support == support.id and m.stage != "done" for m in state.missions):
        raise IllegalAction("error.linea_gotica.support_busy", battery=support.name)
    aim = _aim(state, unit, command.target, actor)
    table = load_tables()["supporto"]
    level = Level(str(table.row_by_id(support.contact).data["action"]))
    # The radio's +1 and poor coordination are named steps of their own, not the referee's.
    radio = unit.radio and support.contact in ("dedicata", "mortaio_leggero")
    figure = actor_figure(unit, None, state)
    resolution = resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=quality_modifier_of(state, unit),
            radio=radio,
            coordination=state.coordination.get(unit.side, 0),
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
        aim=aim,
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


def _aim(state: GameState, unit: UnitState, target: str, actor: str | None) -> Point | None:
    """The aimed point on the battlefield: a unit the side can see, a named point or area,
    coordinates, a bearing from the observer (rules.core.geometry's forms)."""
    if state.field is None or unit.id not in state.positions:
        return None
    places = {
        u.id: state.positions[u.id]
        for u in state.units.values()
        if u.id in state.positions
        and u.alive
        and (actor is None or u.side == actor or not u.hidden)
    }
    aim = field.destination(state.field, target, state.positions[unit.id], places)
    # "L'osservatore deve essere in grado di vedere il bersaglio prescelto".
    smoke = tuple(s.place for s in state.smoke if s.effective and s.place)
    _, blocking = field.sight(state.field, state.positions[unit.id], aim, smoke)
    field.refuse_blocked(state.field, blocking, target)
    return aim


def _mission(state: GameState, marker: str) -> Mission:
    for mission in state.missions:
        if mission.id == marker:
            return mission
    raise UnknownName("error.linea_gotica.unknown_marker", name=marker[:40])


def _deviate(
    state: GameState, observer: UnitState, tray: DiceTray, result: Applied, modifier: int = 0
) -> tuple[str, bool]:
    where, lost, _ = _deviation(state, observer, tray, result, modifier)
    return where, lost


def _deviation(
    state: GameState, observer: UnitState, tray: DiceTray, result: Applied, modifier: int = 0
) -> tuple[str, bool, list[tuple[Direction, float]]]:
    """A ranging shot (or an air attack's approach): where it lands, and whether it is lost."""
    resolution = resolve(
        "ranging",
        fire.RangingInput(
            quality=observer.quality,
            quality_modifier=quality_modifier_of(state, observer),
            coordination=modifier,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    outcome = resolution.outcome
    if outcome.key == f"{K}.ranging.lost":
        return "", True, []
    if outcome.key == f"{K}.ranging.on_target":
        return "0", False, []
    parts: list[str] = []
    moves: list[tuple[Direction, float]] = []
    for direction_key, dice_key in (("along", "along_dice"), ("across", "across_dice")):
        direction = outcome.param(direction_key)
        dice = outcome.param(dice_key)
        if direction is None or not dice:
            continue
        distance = resolve(
            "scatter_distance",
            fire.ScatterDistanceInput(dice=int(dice), direction=Direction(str(direction))),
            tray,
        )
        result.resolutions.append(distance)
        parts.append(f"{distance.outcome.param('cm')} cm {direction}")
        moves.append((Direction(str(direction)), float(distance.outcome.param("cm") or 0)))
    return " + ".join(parts), False, moves


def do_execute(
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
            raise wrong_phase(state)
        if observer.class_index != state.fire_class:
            raise IllegalAction(
                "error.linea_gotica.not_this_class",
                unit=observer.name,
                quality=fire_class_name(state),
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
    where, lost, moves = _deviation(state, observer, tray, result)
    if is_preview():
        return
    landed = _landing(state, mission, observer, moves) if not lost else None
    visible = command.visible
    if landed is not None and state.field is not None:
        # The observer sees where the round fell, or not: measured, not declared.
        seen = field.landing(state.field, landed)
        smoke = tuple(s.place for s in state.smoke if s.effective and s.place)
        visible = (
            seen is not None
            and not field.sight(state.field, state.positions[observer.id], seen, smoke)[1]
        )
    mission.due_turn = state.turn + 1
    mission.fired_turn = state.turn
    if lost or not visible:
        result.notices.append(Outcome.of(f"{K}.mission.lost", marker=mission.id))
        return
    mission.stage = "order"
    mission.point = f"{mission.target} ({where})" if where != "0" else mission.target
    if landed is not None:
        mission.landed = landed
        mission.point += f" [{field.cm(landed.x)}, {field.cm(landed.y)}]"
    result.notices.append(Outcome.of(f"{K}.mission.ranged", marker=mission.id, point=mission.point))


def _landing(
    state: GameState, mission: Mission, observer: UnitState, moves: list[tuple[Direction, float]]
) -> Point | None:
    """Where a ranging shot lands on the battlefield: long/short along the observer's line
    to the aimed point, right/left across it (the battery is off the table, so its line of
    fire is unknown: the observer's stands for it, a decision not in the seed)."""
    if state.field is None or mission.aim is None or observer.id not in state.positions:
        return None
    origin = state.positions[observer.id]
    moved = field.deviate(mission.aim, field.bearing(origin, mission.aim), moves)
    state.marks = [field.arrow_mark(mission.aim, moved, mission.id)]
    return moved


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
        require_fresh_soldiers(state, observer)
        observer.activity = "action"
    if command.order == "fine":
        mission.stage = "done"
        result.notices.append(Outcome.of(f"{K}.mission.ended", marker=mission.id))
        return
    if command.order == "aggiusta":
        adjust = int(load_tables()["supporto"].data["adjust_cm"])
        if state.field is not None and mission.landed is not None and command.where:
            moved = field.destination(state.field, command.where, mission.landed, {})
            shift = geometry.distance(mission.landed, moved)
            if shift > adjust + field.terrain_data().tolerance_cm:
                raise IllegalAction(
                    "error.linea_gotica.field.adjust_too_far",
                    cm=field.cm(shift),
                    limit=adjust,
                )
            state.marks = [field.arrow_mark(mission.landed, moved, mission.id)]
            mission.landed = moved
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
        resolution = resolve("smoke", checks.SmokeInput(source="proiettili"), tray)
        result.resolutions.append(resolution)
        state.smoke.append(
            Smoke(
                id=state.next_id("f"),
                source="proiettili",
                side=mission.side,
                place=_smoke_place(state, mission),
                effect_at="fire_phase_end",
                turns=int(resolution.outcome.param("turns") or 0),
            )
        )
    else:
        blast = _support_blast(state, mission, support)
        center = mission.landed or mission.aim
        if state.field is not None and center is not None:
            state.marks = []
            with tray.rolled_by(mission.side):
                burst_at(state, blast, field.landing(state.field, center), tray, result)
        result.notices.append(
            Outcome.of(
                f"{K}.mission.effect",
                marker=blast.id,
                point=mission.point,
                **radii_of(blast.blast_row),
            )
        )
    mission.due_turn = state.turn + 1
    mission.fired_turn = state.turn


def _smoke_place(state: GameState, mission: Mission) -> str:
    """Where a smoke mission's screen stands: on the battlefield, the area its round came
    down in (smoke blocks sight by area; in the open it marks the point only)."""
    center = mission.landed or mission.aim
    if state.field is None or center is None:
        return mission.point
    _, area = geometry.terrain_at(state.field, center)
    return area or mission.point


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
    where, lost, moves = _deviation(
        state, observer, tray, result, state.coordination.get(mission.side, 0)
    )
    if is_preview():
        return
    landed = _landing(state, mission, observer, moves) if not lost else None
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
        if landed is not None:
            _air_zones(state, mission, observer, blast, landed, tray, result)
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
        if landed is not None:
            _air_zones(state, mission, observer, strafe, landed, tray, result)
        mission.stage = "done"
    mission.fired_turn = state.turn


def _air_zones(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    blast: Blast,
    landed: Point,
    tray: DiceTray,
    result: Applied,
) -> None:
    """An air attack on the battlefield: the bot finds the units in AEREI's rectangles (the
    bombs' long zone 30 × 10 cm with the short 15 × 5 at its centre; strafing's 5 × 30 strip)
    and resolves them. The seed gives no direction: the long side runs along the observer's
    line to the point (not in the seed)."""
    assert state.field is not None
    center = field.landing(state.field, landed)
    if center is None or observer.id not in state.positions:
        result.notices.append(Outcome.of(f"{K}.field.off_table", marker=blast.id))
        return
    blast.center = center
    axis = field.bearing(state.positions[observer.id], mission.aim or center)
    aerei = load_tables()["aerei"]
    if blast.strafe_quality is not None:
        width, length = (float(v) for v in aerei.row_by_id("mitragliamento").data["area_cm"])
        zones = [("lunga", length, width)]
    else:
        zones = [
            (str(row.data["zone"]), float(row.data["area_cm"][0]), float(row.data["area_cm"][1]))
            for row in (aerei.row_by_id("area_breve"), aerei.row_by_id("area_lunga"))
        ]
    found: list[tuple[UnitState, str]] = []
    for unit in state.units.values():
        at = state.positions.get(unit.id)
        if at is None or not unit.alive or unit.riding is not None:
            continue
        zone = next(
            (z for z, length, width in zones if field.in_strip(center, axis, length, width, at)),
            None,
        )
        if zone is not None:
            found.append((unit, zone))
    label = " / ".join(f"{length:g} × {width:g} cm" for _, length, width in zones)
    state.marks.append(Overlay(kind="point", points=(center,), label=f"{blast.id} {label}"))
    hits = [(unit, zone, f" ({zone})") for unit, zone in found]
    resolve_under(state, blast, center, hits, tray, result)


def _aircraft_return(
    state: GameState,
    mission: Mission,
    observer: UnitState,
    support: SupportState,
    tray: DiceTray,
    result: Applied,
) -> None:
    resolution = resolve(
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
