"""Owed morale checks and regroup tests (``/morale``, ``/test``), the escape test."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.legal import NotOwed
from rules.core.resolution import Outcome
from rules.w40k4 import lookups
from rules.w40k4.orders import Morale, Test
from rules.w40k4.procedures import checks
from rules.w40k4.state import Applied, PendingTest, UnitState, W40kState
from rules.w40k4.turn.assault import after_combat
from rules.w40k4.turn.common import component, require_own, resolve
from rules.w40k4.turn.effects import apply_effects, fall_back
from rules.w40k4.turn.sequence import advance


def do_morale(
    state: W40kState, command: Morale, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/morale: take an owed morale check or regroup test."""
    unit = state.unit(command.unit)
    require_own(unit, actor_side)
    _take_owed(state, unit, _owed_by(state, unit), 0, tray, result)


def _owed_by(state: W40kState, unit: UnitState) -> PendingTest:
    """The test ``unit`` owes; a test nobody owes is refused (issue 26)."""
    owed = next((p for p in state.pending if p.unit == unit.id), None)
    if owed is None:
        raise NotOwed("error.w40k4.no_test_owed", unit=unit.name)
    return owed


def _take_owed(
    state: W40kState,
    unit: UnitState,
    owed: PendingTest,
    modifier: int,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Roll the owed test (``modifier``: the referee's, on top of the rules' own)."""
    state.pending.remove(owed)
    if owed.reason == "regroup":
        minimum = float(lookups.standard("raggruppamento")["min_fraction"])
        if unit.models < minimum * unit.initial_models:
            result.notices.append(Outcome.of("w40k4.morale.cannot_regroup", unit=unit.name))
            fall_back(state, unit, tray, result)
        else:
            test = resolve(
                "leadership",
                checks.LeadershipInput(
                    leadership=unit.ld or 1, modifier=modifier, reason="regroup", target=unit.id
                ),
                tray,
            )
            result.resolutions.append(test)
            if test.outcome.key != "w40k4.test.failed":
                unit.drop("falling_back")
            else:
                fall_back(state, unit, tray, result)
    else:
        test = resolve(
            "leadership",
            checks.LeadershipInput(
                leadership=unit.ld or 1,
                modifier=max(-10, min(10, owed.modifier + modifier)),
                reason=owed.reason,
                target=unit.id,
            ),
            tray,
        )
        result.resolutions.append(test)
        if test.outcome.key == "w40k4.test.failed":
            if owed.reason == "combat":
                escape(state, unit, owed, tray, result)
            else:
                fall_back(state, unit, tray, result)
    if state.closing and not state.pending:
        advance(state, result, tray)


def escape(
    state: W40kState, unit: UnitState, owed: PendingTest, tray: DiceTray, result: Applied
) -> None:
    """A unit that lost a combat and failed its test tries to escape, then falls back."""
    winners = [state.units[w] for w in owed.winners if state.units[w].alive]
    strikers = [w for w in winners if w.i is not None]
    members = component(state, unit)
    if strikers:
        resolution = resolve(
            "escape",
            checks.EscapeInput(
                initiative=unit.i or 1,
                winners_initiative=max(w.i or 1 for w in strikers),
                winners_side=strikers[0].side,
                target=unit.id,
            ),
            tray,
        )
        result.resolutions.append(resolution)
        apply_effects(state, resolution, result)
    if unit.alive:
        fall_back(state, unit, tray, result)
    after_combat(state, [m for m in members if m != unit.id], tray, result)


def do_test(
    state: W40kState, command: Test, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/test: the Leadership test the unit owes, as /morale, with the referee's ``modifier``
    (a special rule or a ruling). A test nobody owes is refused (issue 26): it would be
    rolled, logged, and change nothing."""
    unit = state.unit(command.unit)
    require_own(unit, actor_side)
    if unit.ld is None:
        raise IllegalAction("error.w40k4.no_leadership", unit=unit.name)
    owed = _owed_by(state, unit)
    if command.modifier and actor_side is not None:
        raise IllegalAction("error.w40k4.referee_modifier")
    _take_owed(state, unit, owed, command.modifier, tray, result)
