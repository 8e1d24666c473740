"""Owed tests (CT, SF, ET) and panic recovery; a test nobody owes is refused."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.legal import NotOwed
from rules.manovra.orders import RecoverPanic, TakeTest
from rules.manovra.procedures import checks, ground
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.turn.common import _acting_unit, _apply_effects, _own, _resolve
from rules.manovra.turn.sequence import _finish_action


def _do_test(
    state: ManovraState, command: TakeTest, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = state.unit(command.unit)
    _own(state, unit, actor_side)
    owed = next(
        (p for p in state.pending if p.unit == unit.id and p.kind == command.kind.value), None
    )
    if owed is None:
        # Only an owed test (CT after losses, SF after a hit, ET on mines and wire) is rolled:
        # one nobody owes would be logged and change nothing (issue 26).
        raise NotOwed("error.manovra.test_not_owed", unit=unit.name, test=command.kind.value)
    if owed.kind == "ET":
        data = ground.ObstacleInput(
            obstacle=ground.Obstacle.MINE if owed.reason == "mine" else ground.Obstacle.WIRE,
            target=ground.MineTarget(unit.kind["mines"]),
            ad=unit.ad,
            models_present=unit.models,
            target_id=unit.id,
        )
        resolution = _resolve("obstacle", data, tray)
        state.pending.remove(owed)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        return
    opponent = state.unit(command.opponent) if command.opponent else None
    resolution = _resolve(
        "test",
        checks.TestInput(
            kind=command.kind,
            ad=unit.ad,
            cv=unit.cv,
            opponent_ad=opponent.ad if opponent else 0,
            opponent_cv=opponent.cv if opponent else 0,
            crew_losses=bool(unit.kind["crew"]) and unit.crew_losses > 0,
            opponent_crew_losses=bool(
                opponent and opponent.kind["crew"] and opponent.crew_losses > 0
            ),
            opponent_side=opponent.side if opponent else None,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    state.pending.remove(owed)
    if resolution.outcome.key == "manovra.test.failed":
        if owed.kind == "CT":
            unit.add("panic")
            if unit.has("immobilised") and unit.kind["vehicle"]:
                unit.add("abandoned")
                unit.add("destroyed")
        elif owed.kind == "SF":
            unit.add("skip_fire")


def _commanders_cv(state: ManovraState, unit: UnitState) -> tuple[int, ...]:
    """The unit's own leader, and the platoon's senior leader if another unit holds one."""
    platoon = state.platoons[unit.platoon]
    others = [state.units[u] for u in platoon.units if u != unit.id and state.units[u].alive]
    senior = max(others, key=lambda u: u.cv, default=None)
    cvs = [unit.cv]
    if senior is not None and senior.cv > unit.cv:
        cvs.append(senior.cv)
    return tuple(cvs)


def _do_recover(
    state: ManovraState,
    command: RecoverPanic,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if not unit.has("panic"):
        raise IllegalAction("error.manovra.not_panicked", unit=unit.name)
    resolution = _resolve(
        "panic_recovery",
        ground.PanicRecoveryInput(
            ad=unit.ad, commanders_cv=_commanders_cv(state, unit), target_id=unit.id
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)
    if resolution.outcome.key == "manovra.panic.recovered":
        unit.add("recovered")  # may now make a tactical move (or hold) as its action
        return
    _finish_action(state, unit, result)
