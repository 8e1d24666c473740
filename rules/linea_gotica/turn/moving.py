"""MOVIMENTO (``/move``): foot and vehicle moves with their modifiers, riding on tanks, and
crossing a minefield.
"""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.orders import Move
from rules.linea_gotica.procedures import fire, movement
from rules.linea_gotica.procedures.fire import DamageSpec, SoftClass, TargetMovement
from rules.linea_gotica.state import GameState, Phase, UnitState
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.blasts import he_on
from rules.linea_gotica.turn.common import (
    acting_unit,
    isolation_rolls,
    known_minefield,
    move_side,
    owes_morale,
    require_fresh,
    resolve,
    target_spec,
    transport_may_act,
    wrong_phase,
)
from rules.linea_gotica.turn.effects import apply_effects, vehicle_damage

K = RULESET_KEY
Applied = CoreApplied[GameState]


def do_move(
    state: GameState, command: Move, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = acting_unit(state, command.unit, actor)
    if not is_preview():
        if state.phase is not Phase.MOVEMENT:
            raise wrong_phase(state)
        if unit.side != move_side(state):
            raise IllegalAction("error.linea_gotica.not_your_move")
    require_fresh(unit)
    owes_morale(state, unit)
    if unit.riding is not None and command.kind != "scendi":
        raise IllegalAction("error.linea_gotica.riding", unit=unit.name, vehicle=unit.riding)
    if command.minefield is not None:
        known_minefield(state, command.minefield, actor)  # typed: one the side knows of
    plan = None
    if state.field is not None:
        command, plan = _on_the_table(state, unit, command, actor, result)
    elif command.to is not None:
        raise field.no_battlefield()
    if unit.vehicle is not None and not transport_may_act(state, unit, tray, result):
        unit.activity = "moved"  # out of its squad's command and the roll failed: it stays
        return
    if unit.vehicle is not None:
        _move_vehicle(state, unit, command, tray, result)
    else:
        _move_foot(state, unit, command, tray, result)
    unit.activity = "moved"
    if plan is not None and state.field is not None:
        origin = state.positions[unit.id]
        state.positions[unit.id] = plan.destination
        unit.cover, unit.place = field.where(state.field, plan.destination)
        for rider in state.units.values():
            if rider.riding == unit.id:
                state.positions[rider.id] = plan.destination
                rider.cover, rider.place = unit.cover, unit.place
        state.marks = [field.arrow_mark(origin, plan.destination, unit.id)]
        state.marks_of = [unit.id]
    if command.cover is not None:
        unit.cover = command.cover
    if command.place is not None:
        unit.place = command.place
    if command.hidden is not None:
        unit.hidden = command.hidden
        if unit.hidden and unit.side not in state.concealing:
            state.concealing.append(unit.side)
    unit.behind_armour = command.behind
    if command.minefield is not None:
        mines = state.minefields.get(command.minefield)
        # The mines are the owner's: their dice, not the mover's typed ones.
        with tray.rolled_by(mines.owner if mines is not None else None):
            _cross_minefield(state, unit, command, tray, result)


def _on_the_table(
    state: GameState, unit: UnitState, command: Move, actor: str | None, result: Applied
) -> tuple[Move, field.PathPlan | None]:
    """A move on the battlefield: ``to:`` parsed from the unit's position, its path walked
    through the terrain (the movement rows its legs take), the kind of a vehicle's move
    (on road only if the whole path is), the distance measured. Getting on or off a tank
    and moves that go nowhere (lying down, a floor up) need no ``to:``."""
    assert state.field is not None
    if (command.cover is not None or command.place is not None) and actor is not None:
        raise InvalidInput("error.linea_gotica.field.from_map", unit=unit.name)
    origin = state.positions.get(unit.id)
    if command.kind in ("sali", "scendi"):
        if command.to is not None:
            raise InvalidInput("error.linea_gotica.field.no_to_for_riding")
        if command.kind == "sali" and command.vehicle in state.positions:
            # Getting on: the squad is where its tank is (checked by the move itself).
            state.positions[unit.id] = state.positions[command.vehicle]
        return command, None
    if command.to is None:
        if command.distance_cm > 0:
            raise InvalidInput("error.linea_gotica.field.to_needed", unit=unit.name)
        return command, None
    if origin is None:
        raise IllegalAction("error.linea_gotica.field.no_position", unit=unit.name)
    places = {
        u.id: state.positions[u.id]
        for u in state.units.values()
        if u.id in state.positions and (actor is None or u.side == actor or not u.hidden)
    }
    destination = field.destination(state.field, command.to, origin, places)
    plan = field.plan_path(state.field, origin, destination)
    tolerance = field.terrain_data().tolerance_cm
    if command.distance_cm > 0 and abs(command.distance_cm - plan.cm) > tolerance:
        if actor is not None:
            raise InvalidInput(
                "error.linea_gotica.field.distance_differs",
                typed=field.cm(command.distance_cm),
                cm=field.cm(plan.cm),
            )
        result.notices.append(
            Outcome.of(
                f"{K}.field.override", typed=field.cm(command.distance_cm), cm=field.cm(plan.cm)
            )
        )
    result.notices.append(
        Outcome.of(
            f"{K}.field.path",
            unit=unit.name,
            x=field.cm(destination.x),
            y=field.cm(destination.y),
            cm=field.cm(plan.cm),
            legs=field.legs_text(state.field, plan.legs),
        )
    )
    minefield = command.minefield or next(
        (
            mines.id
            for mines in state.minefields.values()
            if mines.shape is not None
            and not mines.cleared
            and field.enters(mines.shape, origin, destination)
        ),
        None,
    )
    distance = command.distance_cm if command.distance_cm > 0 and actor is None else plan.cm
    kind = command.kind
    if unit.vehicle is not None:
        terrain_mods = plan.vehicle_mods
        if plan.step_across_vehicle:
            distance = 0.0
        if kind == "strada" and not plan.on_road:
            off = next(leg for leg in plan.legs if not field.terrain_class(leg.terrain).road)
            raise IllegalAction(
                "error.linea_gotica.field.off_road",
                unit=unit.name,
                area=field.area_name(state.field, off.area) if off.area else off.terrain,
            )
        if kind not in ("strada", "fuori_strada"):
            kind = "strada" if plan.on_road else "fuori_strada"
    else:
        terrain_mods = plan.foot_mods
        if plan.step_across_foot:
            distance = 0.0
    mods = tuple(dict.fromkeys([*command.mods, *terrain_mods]))
    update = {"distance_cm": distance, "mods": mods, "kind": kind, "minefield": minefield}
    return command.model_copy(update=update), plan


def automatic_mods(state: GameState, unit: UnitState) -> list[str]:
    """The movement modifiers the bot applies by itself: under fire in the previous phase,
    a wounded mover, a vehicle's mobility damage."""
    mods: list[str] = []
    if unit.under_fire_serial is not None and unit.under_fire_serial == state.serial - 1:
        mods.append("sotto_fuoco")
    if unit.vehicle is not None:
        if unit.vehicle.mobility_damaged:
            mods.append("danno_mobilita")
    elif any(f.wounded for f in unit.figures if f.alive and not f.badly_wounded):
        mods.append("ferito")
    return mods


def check_move(state: GameState, unit: UnitState, kind: str | None = None) -> None:
    """The checks of ``/move`` that depend on the unit, not on the distance (a unit riding a
    tank may only get off: ``kind`` scendi)."""
    if state.phase is not Phase.MOVEMENT:
        raise wrong_phase(state)
    if unit.side != move_side(state):
        raise IllegalAction("error.linea_gotica.not_your_move")
    require_fresh(unit)
    owes_morale(state, unit)
    if unit.riding is not None and kind != "scendi":
        raise IllegalAction("error.linea_gotica.riding", unit=unit.name, vehicle=unit.riding)
    if unit.vehicle is not None:
        if unit.vehicle.immobilised:
            raise IllegalAction("error.linea_gotica.immobilised", unit=unit.name)
    elif not [f for f in unit.figures if f.alive and not f.badly_wounded]:
        raise IllegalAction("error.linea_gotica.cannot_move", unit=unit.name)


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
    mods = list(command.mods) + automatic_mods(state, unit)
    if command.kind == "sali":
        target = vehicle_to_ride(state, unit, command.vehicle)
        unit.riding = target.id
    elif command.kind == "scendi":
        if unit.riding is None:
            raise IllegalAction("error.linea_gotica.not_riding", unit=unit.name)
        unit.riding = None
    resolution = resolve(
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
    isolation_rolls(state, unit, [f for f in movers if f.able(state.turn)], tray, result)
    result.resolutions.append(resolution)
    if "alzarsi_sdraiarsi" in command.mods:
        unit.prone = not unit.prone
    unit.pace = TargetMovement(pace.value)
    for figure in unit.figures:
        if figure.panic and figure.alive:
            figure.panic = False
            figure.shocked_until = state.turn + 1
            result.notices.append(Outcome.of(f"{K}.morale.fled", unit=unit.name, figure=figure.n))


def vehicle_to_ride(state: GameState, unit: UnitState, vehicle_id: str | None) -> UnitState:
    """The vehicle a squad gets on (``/move kind:sali``), or why it cannot: the handler and
    the legal-action listing both call it."""
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
    mods = list(command.mods) + automatic_mods(state, unit)
    resolution = resolve(
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
        vehicle_damage(state, unit, "mobility_damaged", None, result)
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
            he_on(state, unit, None, "breve", spec, "none", False, tray, result)
        elif unit.vehicle.armoured:
            pen = str(row.data["armoured"])
            resolution = resolve(
                "damage",
                fire.DamageInput(
                    spec=DamageSpec(penetration=pen), target=target_spec(state, unit, None)
                ),
                tray,
            )
            result.resolutions.append(resolution)
            apply_effects(state, resolution, result)
        else:
            resolution = resolve(
                "mine_vehicle", fire.MineVehicleInput(target=target_spec(state, unit, None)), tray
            )
            result.resolutions.append(resolution)
            apply_effects(state, resolution, result)
        for rider in [u for u in state.units.values() if u.riding == unit.id]:
            rider.riding = None
        return
    if mines.kind == "anticarro":
        result.notices.append(Outcome.of(f"{K}.mines.no_effect", unit=unit.name))
        return
    alive = [f for f in unit.figures if f.alive]
    if not alive:
        return
    he_on(state, unit, alive[0], "breve", spec, "none", False, tray, result)
    for figure in alive[1 : 1 + command.models]:
        he_on(state, unit, figure, "lunga", spec, "none", False, tray, result)
    if unit.side not in mines.known_to:
        mines.known_to.append(unit.side)
