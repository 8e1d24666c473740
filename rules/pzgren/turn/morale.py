"""Owed answers: the step an X result leaves to the owner (``/step``) and morale checks
(``/morale``)."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.legal import NotOwed
from rules.core.words import joined
from rules.pzgren.orders import Morale, Step
from rules.pzgren.procedures import morale
from rules.pzgren.state import (
    Applied,
    PzgrenState,
)
from rules.pzgren.turn.common import _own, _resolve
from rules.pzgren.turn.effects import _apply_effects, _settle_steps, _take_step, step_choices


def _do_step(
    state: PzgrenState, command: Step, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    if not state.pending_steps:
        raise IllegalAction("error.pzgren.no_steps_owed")
    entry = state.pending_steps[0]
    if actor_side is not None and actor_side != entry.side:
        raise IllegalAction("error.pzgren.not_your_choice", side=state.sides[entry.side])
    unit = state.unit(command.unit)
    choices = step_choices(state, entry)
    if unit.id not in choices:
        raise IllegalAction(
            "error.pzgren.not_a_step_choice",
            unit=unit.name,
            choices=joined(state.units[u].name for u in choices),
        )
    _take_step(state, entry, unit, result)
    _settle_steps(state, result)


def _do_morale(
    state: PzgrenState, command: Morale, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(unit, actor_side)
    owed = next((p for p in state.pending_morale if p.unit == unit.id), None)
    if owed is None:
        raise NotOwed("error.pzgren.no_morale_owed", unit=unit.name)
    resolution = _resolve(
        "morale",
        morale.MoraleInput(morale=unit.morale, n=owed.n, status=unit.status, target=unit.id),
        tray,
    )
    state.pending_morale.remove(owed)
    result.resolutions.append(resolution)
    _apply_effects(state, resolution, result)
