"""MORALE (``/morale``): the owed tests of a unit, or those a trigger calls for, and their
effects.
"""

from __future__ import annotations

from rules.core import geometry
from rules.core.dice import DiceTray
from rules.core.errors import UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.legal import NotOwed
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.orders import MoraleTest
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.state import Figure, GameState, PendingMorale, UnitState
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.common import (
    is_isolated,
    quality_modifier_of,
    require_alive,
    require_own,
    resolve,
)

K = RULESET_KEY
Applied = CoreApplied[GameState]


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
        isolated = is_isolated(unit, figure)
    badly = sum(1 for f in unit.figures if f.alive and f.badly_wounded and f is not figure)
    return checks.MoraleInput(
        quality=unit.quality,
        quality_modifier=quality_modifier_of(state, unit),
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
        enemy_near=_enemy_near(state, unit, command),
        air_attack=(pending.air if pending else False) or command.air,
    )


def _enemy_near(state: GameState, unit: UnitState, command: MoraleTest) -> bool:
    """Visible enemies within the surrender distance (EFFETTI DEL MORALE, Resa). With a
    battlefield the bot measures it (an enemy in play, not hidden, in sight); the
    ``enemy_near`` option counts only in a game without one."""
    at = state.positions.get(unit.id)
    if state.field is None or at is None:
        return command.enemy_near
    row = next(
        r for r in load_tables()["effetti_morale"].rows if r.data.get("result") == "surrender"
    )
    within = float(row.data["within_cm"])
    smoke = tuple(s.place for s in state.smoke if s.effective and s.place)
    for enemy in state.units.values():
        there = state.positions.get(enemy.id)
        if enemy.side == unit.side or enemy.hidden or not enemy.alive or there is None:
            continue
        if geometry.distance(at, there) <= within:
            _, blocking = field.sight(state.field, there, at, smoke)
            if not blocking:
                return True
    return False


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


def do_morale(
    state: GameState, command: MoraleTest, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    require_own(unit, actor)
    require_alive(unit)
    owed = [p for p in state.pending if p.unit == unit.id]
    if not owed:
        if command.reason is None:
            # A test nobody owes is refused; one a trigger calls for names it (``reason``).
            raise NotOwed("error.linea_gotica.no_morale_owed", unit=unit.name)
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
        resolution = resolve("morale", _morale_input(state, unit, figure, pending, command), tray)
        result.resolutions.append(resolution)
        if not is_preview():
            _apply_morale(state, unit, figure, resolution.outcome.key, result)
    state.pending = [p for p in state.pending if p.unit != unit.id]
