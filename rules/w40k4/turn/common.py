"""Checks on the acting unit and its target, procedure plumbing, and the models units lose."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import is_preview
from rules.core.procedures import InputT, describe_validation_error
from rules.core.resolution import Resolution
from rules.w40k4.model import (
    Phase,
)
from rules.w40k4.procedures import PROCEDURES
from rules.w40k4.state import UnitState, W40kState


def resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    return PROCEDURES[procedure].resolve_on(data, tray)


def procedure_input(model: type[InputT], **fields: Any) -> InputT:
    """A procedure input built from the state; out-of-bounds values become a clear error."""
    try:
        return model(**fields)
    except ValidationError as error:
        raise InvalidInput(
            "error.invalid_input.detail", detail=describe_validation_error(error)
        ) from None


def require_own(unit: UnitState, actor_side: str | None) -> None:
    """Refuse a command on a unit the actor does not own (the referee owns all)."""
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.w40k4.not_your_unit", unit=unit.name)


def require_phase(state: W40kState, phase: Phase) -> None:
    """Refuse a command outside ``phase``."""
    if state.phase is not phase:
        raise IllegalAction(f"error.w40k4.needs_{phase.value}")


def acting_unit(state: W40kState, unit_id: str, actor_side: str | None, phase: Phase) -> UnitState:
    """The unit must exist, be the actor's and alive; outside a preview it must also be its
    side's player turn, in ``phase``, with no test owed and the phase not closing."""
    unit = state.unit(unit_id)
    require_own(unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.w40k4.unit_out", unit=unit.name)
    if is_preview():
        return unit
    if unit.side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    require_phase(state, phase)
    if state.closing:
        raise IllegalAction("error.w40k4.phase_closing")
    owed = [p for p in state.pending if p.unit == unit.id]
    if owed:
        raise IllegalAction("error.w40k4.test_owed", unit=unit.name)
    return unit


def enemy_target(state: W40kState, unit: UnitState, target_id: str) -> UnitState:
    """The target: an enemy unit on the table."""
    target = state.unit(target_id)
    if target.side == unit.side:
        raise IllegalAction("error.w40k4.friendly_target", target=target.name)
    if not target.on_table:
        raise IllegalAction("error.w40k4.target_not_on_table", target=target.name)
    return target


def timed_active(state: W40kState, unit: UnitState, status: str) -> bool:
    """Whether a timed status (shaken, stunned) still holds in this player turn."""
    return unit.timed.get(status, -1) >= state.player_turn


def is_locked(unit: UnitState) -> bool:
    """Whether the unit is locked in close combat."""
    return bool(unit.locked_with)


def lose_models(state: W40kState, unit: UnitState, lost: int | None) -> int:
    """Remove models (None: all); returns how many were removed."""
    amount = unit.models if lost is None else min(lost, unit.models)
    unit.models -= amount
    unit.phase_losses += amount
    if unit.models <= 0:
        unit.models = 0
        unit.wounds_taken = 0
        unit.add("destroyed")
        unlock(state, unit)
        state.pending = [p for p in state.pending if p.unit != unit.id]
    return amount


def unlock(state: W40kState, unit: UnitState) -> None:
    """Free a unit from every combat it is locked in."""
    for other_id in unit.locked_with:
        other = state.units[other_id]
        other.locked_with = [u for u in other.locked_with if u != unit.id]
    unit.locked_with = []


def wound_models(state: W40kState, unit: UnitState, wounds: int) -> int:
    """Wounds with no save (dangerous terrain): models removed as wounds accumulate."""
    total = unit.wounds_taken + wounds
    killed = min(unit.models, total // unit.w)
    unit.wounds_taken = total % unit.w if killed < unit.models else 0
    return lose_models(state, unit, killed)


def chain_step(resolution: Resolution) -> dict[str, Any]:
    """The parameters of an attack chain's casualties step."""
    for step in resolution.steps:
        if step.key == "w40k4.step.casualties":
            return dict(step.params)
    return {}


def inches(value: float) -> str:
    """A distance in inches as players write it (6, 6.5)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def component(state: W40kState, unit: UnitState) -> list[str]:
    """The units locked in the same combat as ``unit`` (scenario order)."""
    seen: list[str] = []
    frontier = [unit.id]
    while frontier:
        current = frontier.pop()
        if current in seen:
            continue
        seen.append(current)
        frontier += [u for u in state.units[current].locked_with if u not in seen]
    return [u.id for u in state.ordered() if u.id in seen]


def open_combats(state: W40kState) -> list[list[str]]:
    """Combats not yet resolved in this assault phase (each a list of unit ids)."""
    combats: list[list[str]] = []
    seen: set[str] = set()
    for unit in state.ordered():
        if unit.id in seen or not unit.locked_with or not unit.alive:
            continue
        members = component(state, unit)
        seen.update(members)
        if not any(m in state.resolved_combats for m in members):
            combats.append(members)
    return combats
