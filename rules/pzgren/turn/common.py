"""Checks and plumbing every pzgren verb shares: the acting unit and resolving through the
ruleset's procedures (owed answers first is the declared sequence's: ``steps``)."""

from __future__ import annotations

from typing import Any

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.game import is_preview
from rules.core.resolution import Resolution
from rules.pzgren.procedures import PROCEDURES
from rules.pzgren.state import (
    PzgrenState,
    UnitState,
)


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    return PROCEDURES[procedure].resolve_on(data, tray)


def _own(unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.pzgren.not_your_unit", unit=unit.name)


def _acting_unit(state: PzgrenState, unit_id: str, actor_side: str | None) -> UnitState:
    """The unit must exist, be the actor's, be alive, be its side's to activate, not have acted."""
    unit = state.unit(unit_id)
    _own(unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.pzgren.unit_out", unit=unit.name)
    if is_preview():
        return unit
    if unit.side != state.active_side:
        raise IllegalAction("error.pzgren.not_your_activation", side=state.sides[state.active_side])
    if unit.acted:
        raise IllegalAction("error.pzgren.already_acted", unit=unit.name)
    return unit
