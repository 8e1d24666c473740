"""Applying a resolution's effects: step losses, eliminations, the step choices an X result
leaves to the owner, and the morale checks they owe."""

from __future__ import annotations

from rules.core.game import is_preview
from rules.core.resolution import EffectKind, Outcome, Resolution
from rules.pzgren.model import Category, MoraleState
from rules.pzgren.state import (
    MORALE_STATES,
    Applied,
    PendingMorale,
    PendingSteps,
    PzgrenState,
    UnitState,
)


def _lose_steps(state: PzgrenState, unit: UnitState, n: int, result: Applied) -> None:
    unit.steps = max(0, unit.steps - n)
    if unit.steps == 0:
        _eliminated(state, unit, result)
    else:
        result.notices.append(Outcome.of("pzgren.unit.step_lost", unit=unit.name, left=unit.steps))


def _eliminated(state: PzgrenState, unit: UnitState, result: Applied) -> None:
    unit.steps = 0
    unit.dug_in = False
    state.pending_morale = [p for p in state.pending_morale if p.unit != unit.id]
    result.notices.append(Outcome.of("pzgren.unit.eliminated", unit=unit.name))


def _apply_effects(state: PzgrenState, resolution: Resolution, result: Applied) -> None:
    """Apply a resolution's effects: steps owed or lost, eliminations, states, morale owed."""
    if is_preview():
        return
    for effect in resolution.effects:
        params = dict(effect.params)
        if effect.kind is EffectKind.DAMAGE and effect.key.startswith("steps_"):
            ids = [u for u in str(params.get("units", "")).split(",") if u in state.units]
            if not ids:
                continue
            state.pending_steps.append(
                PendingSteps(
                    hex=effect.target or state.units[ids[0]].hex,
                    category=Category(str(params["category"])),
                    owed=effect.amount or 1,
                    units=ids,
                    open_top=[u for u in str(params.get("open_top", "")).split(",") if u],
                    side=state.units[ids[0]].side,
                )
            )
            continue
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.DAMAGE and effect.key == "step_loss":
            _lose_steps(state, unit, effect.amount or 1, result)
        elif effect.kind is EffectKind.STATUS and effect.key == "eliminated":
            _eliminated(state, unit, result)
        elif effect.kind is EffectKind.STATUS and effect.key in MORALE_STATES:
            unit.status = MoraleState(effect.key)
        elif effect.kind is EffectKind.TEST_OWED and unit.alive:
            n = int(params.get("n", 0))
            owed = next((p for p in state.pending_morale if p.unit == unit.id), None)
            if owed is None:
                state.pending_morale.append(PendingMorale(unit=unit.id, n=n))
            else:
                owed.n = max(owed.n, n)
    _settle_steps(state, result)


def step_choices(state: PzgrenState, entry: PendingSteps) -> list[str]:
    """The units that may take the next step of an owed step loss."""
    alive = [u for u in entry.units if state.units[u].alive]
    if entry.open_top and not entry.open_top_done and entry.owed == 1:
        open_top = [u for u in entry.open_top if state.units[u].alive]
        if open_top:
            return open_top
    return alive


def _take_step(state: PzgrenState, entry: PendingSteps, unit: UnitState, result: Applied) -> None:
    entry.owed -= 1
    if unit.id in entry.open_top:
        entry.open_top_done = True
    _lose_steps(state, unit, 1, result)


def _settle_steps(state: PzgrenState, result: Applied) -> None:
    """Apply every step loss that leaves no choice; keep the others for the owner."""
    kept: list[PendingSteps] = []
    for entry in state.pending_steps:
        while entry.owed > 0:
            choices = step_choices(state, entry)
            if not choices:
                break
            alive = [state.units[u] for u in entry.units if state.units[u].alive]
            if len(choices) == 1 or sum(u.steps for u in alive) <= entry.owed:
                _take_step(state, entry, state.units[choices[0]], result)
                continue
            kept.append(entry)
            break
    state.pending_steps = kept
