"""Playing w40k4: the game state, the commands players give, and the turn sequence.

``apply(state, command, dice)`` checks a command against the state (whose player turn,
which phase, who owns the unit, what the unit already did this turn, what it fired, whether
it is locked in combat, falling back, in reserve, shaken or stunned), resolves it through
the ruleset's procedures, and returns a new state with the resolutions. It never mutates
its input: a refused command leaves the state exactly as it was.

Over the ruleset's ``state`` (the document) and ``orders`` (the commands), the turn lives in
one module per part of the game: ``sequence`` (phases and player turns), ``reserves``
(reserves, deep strike), ``movement``, ``shooting`` (with blast templates), ``assault``
(assaults and combats), ``morale`` (owed tests), ``vehicles`` (damage and fire allowances),
``effects`` and ``common`` (what the phases share). This module is their entry point.

Turn sequence (SEQUENZA DEL TURNO), per player turn: movement (reserves rolled as it
begins, regroup tests owed), shooting, assault (assault moves, then every combat resolved).
Morale checks for 25% losses are owed when the movement and shooting phases end; the phase
closes once they are taken. The order itself (steps, what blocks what) is declared in
``rules/w40k4/sequence.yaml``: ``steps.check`` refuses what it does not allow before any
handler runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.dice import DiceSource
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction
from rules.core.game import run_command
from rules.core.geometry import terrain_at
from rules.w40k4 import lookups, victory
from rules.w40k4.model import Phase, unit_types
from rules.w40k4.orders import (
    Assault,
    Combat,
    Command,
    Fire,
    Morale,
    Move,
    Next,
    PlaceTemplate,
    Test,
)
from rules.w40k4.scenario import Scenario
from rules.w40k4.state import Applied, PendingTemplate, PendingTest, UnitState, W40kState
from rules.w40k4.turn import steps
from rules.w40k4.turn.assault import do_assault, do_combat
from rules.w40k4.turn.common import open_combats, timed_active
from rules.w40k4.turn.morale import do_morale, do_test
from rules.w40k4.turn.movement import do_move
from rules.w40k4.turn.sequence import awaiting, do_next
from rules.w40k4.turn.shooting import do_fire, do_template

__all__ = [
    "Applied",
    "Assault",
    "Combat",
    "Command",
    "Fire",
    "Morale",
    "Move",
    "Next",
    "PendingTemplate",
    "PendingTest",
    "Phase",
    "PlaceTemplate",
    "Test",
    "UnitState",
    "W40kState",
    "apply",
    "awaiting",
    "load_state",
    "new_game",
    "open_combats",
    "timed_active",
]


def new_game(scenario: Scenario) -> W40kState:
    """The state at the start of turn 1: the first side's movement phase."""
    units: dict[str, UnitState] = {}
    battlefield = scenario.battlefield
    for side in scenario.sides:
        for spec in side.units:
            kind = unit_types()[spec.type]
            p = spec.profile
            cover = lookups.cover_save(spec.cover)[2] if spec.cover is not None else None
            at = battlefield.deployment.get(spec.id) if battlefield is not None else None
            if battlefield is not None and at is not None:
                cover = lookups.terrain_cover(terrain_at(battlefield, at)[0])
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                type=spec.type,
                models=spec.models,
                initial_models=spec.models,
                ws=p.ws,
                bs=p.bs,
                s=p.s,
                t=p.t,
                w=p.w,
                i=p.i,
                a=p.a,
                ld=p.ld,
                sv=p.sv,
                invulnerable=spec.invulnerable,
                weapons=dict(spec.weapons),
                weapon_order=list(spec.weapons),
                close_combat_weapon=spec.close_combat_weapon,
                move=spec.move if spec.move is not None else int(kind["move"]),
                assault=spec.assault if spec.assault is not None else int(kind["assault"]),
                deep_strike=spec.deep_strike,
                vehicle=bool(kind.get("vehicle")),
                walker=bool(kind.get("walker")),
                fast=spec.fast,
                armour=spec.armour.model_dump() if spec.armour else {},
                open_topped=spec.open_topped,
                squadron=spec.squadron,
                guns=spec.guns,
                location="reserve" if spec.reserve else "table",
                cover=cover,
                phase_start=spec.models,
                at=at,
            )
    return W40kState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        first_side=scenario.first_side,
        active=scenario.first_side,
        sides={s.id: s.name for s in scenario.sides},
        units=units,
        order=list(units),
        weapons=dict(scenario.weapons),
        battlefield=battlefield,
        victory=VictoryRecord(conditions=scenario.victory),
    )


def load_state(document: dict[str, Any]) -> W40kState:
    """Rebuild a state from its stored JSON document."""
    return W40kState.model_validate(document)


def apply(
    state: W40kState,
    command: Any,
    dice: DiceSource,
    *,
    actor_side: str | None = None,
    preview: bool = False,
    other_dice: DiceSource | None = None,
    owned: bool = False,
) -> Applied:
    """Check and resolve ``command`` for ``actor_side`` (None: the referee).

    Returns a new state (``owned``: the caller hands ``state`` over, and the command
    works on it in place); raises :class:`RulesError` (and changes nothing) if the command
    is not allowed now or its arguments are wrong.
    """
    if state.ended:
        raise IllegalAction("error.w40k4.game_over")
    if not preview:  # odds may be asked of any command, in or out of its step
        steps.check(state, command.verb, actor_side)
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        preview=preview,
        settle=victory.settle,
        other_dice=other_dice,
        owned=owned,
    )


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: do_next,
    Move: do_move,
    Fire: do_fire,
    PlaceTemplate: do_template,
    Assault: do_assault,
    Combat: do_combat,
    Morale: do_morale,
    Test: do_test,
}
