"""DANNI applied to the state: wounds, shock, deaths, vehicle damage, and the morale tests they
owe.
"""

from __future__ import annotations

from typing import Any

from rules.core.game import Applied as CoreApplied
from rules.core.resolution import EffectKind, Resolution
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.state import (
    Figure,
    GameState,
    PendingMorale,
    UnitState,
)
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.common import armament

K = RULESET_KEY
Applied = CoreApplied[GameState]


def owe_morale(
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


def on_killed(state: GameState, unit: UnitState, figure: Figure, result: Applied) -> None:
    """A soldier killed: his squad tests morale; a leader killed leaves it leaderless."""
    state.pending = [p for p in state.pending if not (p.unit == unit.id and p.figure == figure.n)]
    for other in unit.figures:
        if other.alive and other is not figure:
            owe_morale(state, unit, other, "soldato_ucciso")
            if figure.role == "leader":
                owe_morale(state, unit, other, "comandante")


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
                    owe_morale(state, unit, other, "comandante")
    elif key == "badly_wounded":
        figure.badly_wounded = True
        figure.bleed_until = state.turn + int(params.get("bleed", 1)) - 1
        if figure.role == "leader":
            for other in unit.figures:
                if other.alive and other is not figure:
                    owe_morale(state, unit, other, "comandante")
    elif key == "dead":
        figure.dead = True
        on_killed(state, unit, figure, result)


def vehicle_damage(
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
        working = armament(state, unit)
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


def apply_effects(state: GameState, resolution: Resolution, result: Applied) -> None:
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
                vehicle_damage(
                    state, unit, effect.key, weapon if isinstance(weapon, int) else None, result
                )
        elif effect.kind is EffectKind.TEST_OWED and effect.key == "morale":
            modifier = params.get("modifier", 0)
            owe_morale(
                state,
                unit,
                figure,
                str(params.get("reason", "tabelle")),
                modifier if isinstance(modifier, int) else 0,
            )
