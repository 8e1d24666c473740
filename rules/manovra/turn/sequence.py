"""TURNO DI GIOCO: tokens, declarations, IT order, step changes and the end of the turn."""

from __future__ import annotations

from typing import Any

from rules.core import ending
from rules.core.battlefield import Battlefield, Point
from rules.core.dice import DiceTray
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction
from rules.core.geometry import terrain_at
from rules.core.resolution import Outcome
from rules.manovra import victory
from rules.manovra.orders import Declare, Next, PassToken
from rules.manovra.scenario import Scenario
from rules.manovra.state import Applied, ManovraState, PlatoonState, TurnStep, UnitState
from rules.manovra.tables import load_tables
from rules.manovra.turn.common import (
    _declaring_side,
    _field_platoons,
    _initiative,
    _marker,
    _require_step,
)


def new_game(scenario: Scenario) -> ManovraState:
    """The state at the start of turn 1 (step 1: tokens are assigned at once)."""
    tables = load_tables()
    cv_table = tables["valenza_comando"]
    units: dict[str, UnitState] = {}
    platoons: dict[str, PlatoonState] = {}
    for side in scenario.sides:
        for spec in side.platoons:
            platoons[spec.id] = PlatoonState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                kind=spec.kind,
                off_table=spec.off_table,
                units=[u.id for u in spec.units],
            )
            for unit in spec.units:
                units[unit.id] = UnitState(
                    id=unit.id,
                    name=unit.name,
                    side=side.id,
                    platoon=spec.id,
                    type=unit.type,
                    ad=unit.ad,
                    cv=int(cv_table.row_by_id(unit.leader).data["cv"]),
                    models=unit.models,
                    initial_models=unit.models,
                    tactical_cm=unit.tactical_cm,
                    weapons=dict(unit.weapons),
                    armour={k: dict(v) for k, v in unit.armour.items()},
                    turret=unit.turret,
                    tracked=unit.tracked,
                    open_topped=unit.open_topped,
                    radio=unit.radio,
                    terrain=unit.terrain,
                    position=_deployed(scenario, unit.aboard or unit.id),
                    carries=unit.carries,
                    aboard=unit.aboard,
                )
    state = ManovraState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        victory=VictoryRecord(conditions=scenario.victory),
        first_side=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        platoons=platoons,
        units=units,
        weapons=dict(scenario.weapons),
        battlefield=(
            None
            if scenario.battlefield is None
            else Battlefield.model_validate(scenario.battlefield.model_dump())
        ),
    )
    for unit_state in state.units.values():
        if state.battlefield is not None and unit_state.position is not None:
            # The ground the unit is deployed on is its terrain (the scenario checked any
            # terrain it names agrees).
            unit_state.terrain = terrain_at(state.battlefield, unit_state.position)[0]
    for unit_state in state.units.values():
        if unit_state.aboard is not None:
            unit_state.terrain = state.units[unit_state.aboard].terrain
    _assign_tokens(state, [])
    return state


def _deployed(scenario: Scenario, unit_id: str) -> Point | None:
    if scenario.battlefield is None:
        return None
    return scenario.battlefield.deployment.get(unit_id)


def load_state(document: dict[str, Any]) -> ManovraState:
    """Rebuild a state from its stored JSON document."""
    return ManovraState.model_validate(document)


def _assign_tokens(state: ManovraState, notices: list[Outcome]) -> None:
    """Step 1: the side with fewer platoons and batteries on the field takes the difference."""
    counts = {side: len(_field_platoons(state, side)) for side in state.sides}
    low = min(counts, key=lambda s: counts[s])
    difference = max(counts.values()) - counts[low]
    state.tokens = {side: 0 for side in state.sides}
    if difference:
        state.tokens[low] = difference
    notices.append(
        Outcome.of(
            "manovra.turn.tokens", side=state.sides[low] if difference else "-", n=difference
        )
    )


def awaiting(state: ManovraState) -> str | None:
    """The side whose move it is (None when the game is over).

    An owed test comes first: its unit's side owes it. At step 2 it is the first side (in
    the order of the turn) still making requests.
    """
    if state.ended:
        return None
    if state.pending:
        return state.units[state.pending[0].unit].side
    if state.step is TurnStep.REQUESTS:
        return next(
            (s for s in _turn_order(state) if not _requests_over(state, s)), state.first_side
        )
    if state.step is TurnStep.MANOEUVRE:
        if state.queue:
            return state.units[state.queue[0]].side
        return _declaring_side(state)
    if state.step is TurnStep.INDIRECT:
        for marker_id in state.marker_order:
            marker = _marker(state, marker_id)
            if not marker.executed:
                return state.platoons[marker.battery].side
    return state.first_side


def _turn_order(state: ManovraState) -> tuple[str, str]:
    return (state.first_side, state.other_side(state.first_side))


def _requests_over(state: ManovraState, side: str) -> bool:
    """Step 2 is over for a side that said so, or that has no request left to make."""
    return side in state.requests_done or not _can_request(state, side)


def _can_request(state: ManovraState, side: str) -> bool:
    """Whether a side has a unit that may still relay a request and a battery free for it."""
    return bool(_requesting_units(state, side)) and bool(_free_batteries(state, side))


def _requesting_units(state: ManovraState, side: str) -> list[UnitState]:
    """Units on the field, alive and not in panic, that have not relayed a request this turn."""
    return [
        u
        for u in state.units.values()
        if u.side == side
        and u.alive
        and not u.has("panic")
        and not state.platoons[u.platoon].off_table
        and u.id not in state.requested
    ]


def _free_batteries(state: ManovraState, side: str) -> list[PlatoonState]:
    """The side's batteries with a living unit and no IF marker yet this turn."""
    return [
        p
        for p in state.platoons.values()
        if p.side == side
        and p.kind == "battery"
        and any(state.units[u].alive for u in p.units)
        and not any(m.battery == p.id for m in state.markers)
    ]


def _finish_action(state: ManovraState, unit: UnitState, result: Applied) -> None:
    unit.acted = True
    unit.statuses = [s for s in unit.statuses if s != "recovered"]
    if state.queue and state.queue[0] == unit.id:
        state.queue.pop(0)
    _after_activation(state, result)


def _after_activation(state: ManovraState, result: Applied) -> None:
    """Skip units that can no longer act; open the next phase when the queue is empty."""
    while state.queue and not state.units[state.queue[0]].alive:
        state.queue.pop(0)
    if state.queue:
        return
    if state.declarations:
        state.declarations = {}
        result.notices.append(Outcome.of("manovra.turn.phase_over"))
    _auto_declare(state, result)


def _can_declare(state: ManovraState, side: str) -> list[PlatoonState]:
    return [p for p in _field_platoons(state, side) if p.id not in state.manoeuvred]


def _auto_declare(state: ManovraState, result: Applied) -> None:
    """Settle the declarations of a manoeuvre phase as far as the state allows.

    Sides with no platoon left to declare and no token to hand over pass; when both sides
    have declared, IT orders the units; at the start of a phase with nothing left to declare
    on either side, the turn moves on to step 4. Not while a test is owed: it belongs to the
    action that caused it (an ET to its move, seed lines 11 and 65), so the next IT, or
    step 4, waits for it (``_settle`` comes back here once it is rolled).
    """
    if state.step is not TurnStep.MANOEUVRE or state.pending:
        return
    if not state.declarations and not any(_can_declare(state, side) for side in state.sides):
        _enter_indirect(state, result)
        return
    side = _declaring_side(state)
    while side is not None and not _can_declare(state, side) and state.tokens.get(side, 0) == 0:
        state.declarations[side] = "-"
        side = _declaring_side(state)
    if side is None:
        _start_activations(state, result)


def _check_next(state: ManovraState, actor_side: str | None) -> None:
    """Whether ``actor_side`` may move the turn on now (the referee always may).

    What must happen first (an owed test, declaration, unit's action or IF marker) the
    declared sequence refused before (``sequence.yaml``). At step 2 each side ends its own
    requests (the turn moves on when both have); at the other steps the side awaited does.
    """
    if actor_side is None:
        return
    if state.step is TurnStep.REQUESTS:
        if _requests_over(state, actor_side) and not (
            all(_requests_over(state, s) for s in state.sides) and actor_side == state.first_side
        ):
            raise IllegalAction("error.manovra.not_your_move")
        return
    if actor_side != awaiting(state):
        raise IllegalAction("error.manovra.not_your_move")


def _do_next(
    state: ManovraState, command: Next, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    _check_next(state, actor_side)
    if state.step is TurnStep.TOKENS:
        state.step = TurnStep.REQUESTS
        state.requests_done = []
        state.requested = []
    elif state.step is TurnStep.REQUESTS:
        if actor_side is not None and actor_side not in state.requests_done:
            state.requests_done.append(actor_side)
        if actor_side is not None and not all(_requests_over(state, s) for s in state.sides):
            result.notices.append(
                Outcome.of("manovra.turn.requests_done", side=state.sides[actor_side])
            )
            return
        state.step = TurnStep.MANOEUVRE
        state.declarations = {}
        state.requests_done = []  # step-2 bookkeeping, kept only while it matters
        state.requested = []
        _auto_declare(state, result)
    elif state.step is TurnStep.MANOEUVRE:
        state.queue = []
        _enter_indirect(state, result, tray)
    elif state.step is TurnStep.INDIRECT:
        state.step = TurnStep.END
    else:
        _end_turn(state, result)
    result.notices.append(Outcome.of("manovra.turn.step", turn=state.turn, step=int(state.step)))


def _enter_indirect(state: ManovraState, result: Applied, tray: DiceTray | None = None) -> None:
    """Step 4: order the IF markers — artillery on the field first, then off it, by IT."""
    state.step = TurnStep.INDIRECT
    state.queue = []
    tray = tray or result.tray
    pending = [m for m in state.markers if not m.executed]
    if pending and tray is not None:
        order: list[str] = []
        for off in (False, True):
            group = [m for m in pending if state.platoons[m.battery].off_table is off]
            if len(group) < 2:
                order += [m.id for m in group]  # one battery: no initiative to test
                continue
            units = [state.units[state.platoons[m.battery].units[0]] for m in group]
            initiative = _initiative(state, units, tray)
            result.resolutions.extend(initiative.resolutions)
            ranked = initiative.order
            order += [
                m.id
                for unit_id in ranked
                for m in group
                if state.platoons[m.battery].units[0] == unit_id
            ]
        state.marker_order = list(dict.fromkeys(order))
    else:
        state.marker_order = [m.id for m in pending]
    result.notices.append(Outcome.of("manovra.turn.step", turn=state.turn, step=int(state.step)))


def _end_turn(state: ManovraState, result: Applied) -> None:
    if victory.turn_over(state, result):
        return
    if ending.last_turn(state, result):
        victory.finish(state, result)
        result.notices.append(Outcome.of("manovra.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.step = TurnStep.TOKENS
    state.declarations = {}
    state.manoeuvred = []
    state.queue = []
    state.markers = []
    state.marker_order = []
    state.requests_done = []
    state.requested = []
    state.bursts = []
    state.pending = [p for p in state.pending if p.kind != "SF"]
    for unit in state.units.values():
        unit.acted = unit.moved = unit.fired = False
        unit.statuses = [s for s in unit.statuses if s not in ("skip_fire", "recovered")]
    _assign_tokens(state, result.notices)


def _declaring(state: ManovraState, actor_side: str | None) -> str:
    """The side due to declare now, which must be the actor's (or the referee acting)."""
    _require_step(state, TurnStep.MANOEUVRE)
    side = _declaring_side(state)
    if side is None or state.queue:
        raise IllegalAction("error.manovra.no_declaration_now")
    if actor_side is not None and actor_side != side:
        raise IllegalAction("error.manovra.not_your_declaration", side=state.sides[side])
    return side


def _do_declare(
    state: ManovraState, command: Declare, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    side = _declaring(state, actor_side)
    platoon = state.platoon(command.platoon)
    if platoon.side != side:
        raise IllegalAction("error.manovra.not_your_platoon", platoon=platoon.name)
    if platoon not in _can_declare(state, side):
        raise IllegalAction("error.manovra.platoon_done", platoon=platoon.name)
    state.declarations[side] = platoon.id
    state.manoeuvred.append(platoon.id)
    result.notices.append(
        Outcome.of("manovra.turn.declared", side=state.sides[side], platoon=platoon.name)
    )
    _auto_declare(state, result)


def _do_pass(
    state: ManovraState, command: PassToken, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    side = _declaring(state, actor_side)
    if state.tokens.get(side, 0) <= 0:
        raise IllegalAction("error.manovra.no_tokens")
    state.tokens[side] -= 1
    state.declarations[side] = "token"
    result.notices.append(
        Outcome.of("manovra.turn.token_passed", side=state.sides[side], left=state.tokens[side])
    )
    _auto_declare(state, result)


def _start_activations(state: ManovraState, result: Applied, tray: DiceTray | None = None) -> None:
    """Both sides declared: IT tests order the units of the declared platoons."""
    units = [
        state.units[u]
        for platoon_id in state.declarations.values()
        if platoon_id in state.platoons
        for u in state.platoons[platoon_id].units
        if state.units[u].alive
    ]
    if not units:
        state.declarations = {}
        _auto_declare(state, result)
        return
    tray = tray or result.tray
    if tray is None:
        state.queue = [u.id for u in units]
        return
    initiative = _initiative(state, units, tray)
    result.resolutions.extend(initiative.resolutions)
    state.queue = initiative.order
