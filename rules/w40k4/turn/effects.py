"""Applying a resolution's effects: casualties, damage, falling back, dangerous terrain."""

from __future__ import annotations

from rules.core.battlefield import Overlay
from rules.core.dice import DiceTray
from rules.core.resolution import EffectKind, Resolution
from rules.w40k4 import field
from rules.w40k4.procedures import checks
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.turn.common import chain_step, lose_models, resolve, unlock
from rules.w40k4.turn.vehicles import apply_damage


def apply_effects(state: W40kState, resolution: Resolution, result: Applied) -> int:
    """Apply a resolution's effects; returns the models lost (vehicles destroyed)."""
    lost = 0
    for effect in resolution.effects:
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.CASUALTIES:
            lost += lose_models(state, unit, effect.amount)
        elif effect.kind is EffectKind.DAMAGE:
            lost += apply_damage(state, unit, effect.key, effect.amount or 1, result)
        elif effect.kind is EffectKind.STATUS and effect.key == "falling_back":
            unit.add("falling_back")
            unlock(state, unit)
    return lost


def apply_hits(state: W40kState, target: UnitState, resolution: Resolution, result: Applied) -> int:
    """Apply an attack chain to its target: casualties or damage, and the wounds left."""
    lost = apply_effects(state, resolution, result)
    params = chain_step(resolution)
    if "wounds_taken" in params and target.alive:
        target.wounds_taken = int(params["wounds_taken"])
    return lost


def fall_back(state: W40kState, unit: UnitState, tray: DiceTray, result: Applied) -> None:
    """The unit falls back (2D6")."""
    with tray.rolled_by(unit.side):  # the falling unit's own 2D6, whoever gave the command
        resolution = resolve("fall_back", checks.FallBackInput(target=unit.id), tray)
    result.resolutions.append(resolution)
    apply_effects(state, resolution, result)
    if state.battlefield is not None and unit.at is not None:
        start = unit.at
        field.fall_back(state, unit, float(resolution.outcome.param("inches", 0) or 0))
        assert unit.at is not None
        field.remember(
            state,
            "w40k4.map.fell_back",
            [Overlay(kind="arrow", points=(start, unit.at))],
            unit=unit.name,
        )


def dangerous_tests(
    state: W40kState, unit: UnitState, owed: str, tray: DiceTray, result: Applied
) -> None:
    """The dangerous-terrain tests a move owes (models, vehicles, guns)."""
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
        resolution = resolve("dangerous_terrain", data, tray)
        result.resolutions.append(resolution)
        apply_effects(state, resolution, result)
