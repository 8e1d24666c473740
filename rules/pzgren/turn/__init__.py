"""Playing pzgren: the turn sequence and the verbs, over the state (``rules.pzgren.state``)
and the commands (``rules.pzgren.orders``).

``apply(state, command, dice)`` checks a command against the state (whose activation, has
the unit acted, who owns it, is a step choice or a morale check owed), resolves it through
the ruleset's procedures, and returns a new state with the resolutions. It never mutates
its input: a refused command leaves the state exactly as it was.

Turn sequence (alternating activations; not spelled out by the seed): the scenario's first
side activates one unit (move, fire, hold or rally), then the other side, and so on; a side
with no unit left to act is skipped; ``turn.next`` passes the activation, and two passes in
a row (or a pass when the other side has nothing left) end the turn. Every unit acts once a
turn. Opportunity fire (rule 13.0) is fire by a unit that has not acted yet, of the side
that did not move, at a unit that moved in the activation just finished; it costs the
firing unit its action for the turn but no activation. Step losses an X result leaves to
the owner's choice, and the morale checks it owes, are answered before play continues:
that order is declared in ``rules/pzgren/sequence.yaml``, and ``steps.check`` refuses what
it does not allow before any handler runs.

One module per part: ``steps`` (where the game stands in the declared sequence),
``sequence`` (setting up, activations, the end of a turn),
``movement`` (move, hold, rally), ``firing`` (direct and anti-tank fire), ``morale`` (owed
steps and morale checks), ``effects`` (step losses and what they owe); ``common`` holds the
checks they share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.dice import DiceSource
from rules.core.errors import IllegalAction
from rules.core.game import run_command
from rules.pzgren.orders import Command, Fire, Hold, Morale, Move, Next, Recover, Step
from rules.pzgren.state import (
    MAX_TEXT,
    Applied,
    HexState,
    PendingMorale,
    PendingSteps,
    PzgrenState,
    UnitState,
)
from rules.pzgren.turn import steps
from rules.pzgren.turn.effects import step_choices
from rules.pzgren.turn.firing import (
    FirePlan,
    _do_fire,
    at_modifiers,
    direct_modifiers,
    plan_fire,
    unit_modifiers,
)
from rules.pzgren.turn.morale import _do_morale, _do_step
from rules.pzgren.turn.movement import _do_hold, _do_move, _do_recover, check_move
from rules.pzgren.turn.sequence import _do_next, awaiting, can_act, load_state, new_game


def apply(
    state: PzgrenState,
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
    is not allowed now or its arguments are wrong. ``preview`` (the odds of a fire while
    planning) skips the turn-order checks.
    """
    if state.ended and not isinstance(command, Step | Morale):
        raise IllegalAction("error.pzgren.game_over")
    if not preview:  # odds may be previewed while something is owed
        steps.check(state, command.verb, actor_side)
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        preview=preview,
        other_dice=other_dice,
        owned=owned,
    )


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Move: _do_move,
    Hold: _do_hold,
    Fire: _do_fire,
    Morale: _do_morale,
    Recover: _do_recover,
    Step: _do_step,
}


# The state lives in rules.pzgren.state; its names are this module's too.
__all__ = [
    "MAX_TEXT",
    "Applied",
    "Command",
    "Fire",
    "FirePlan",
    "HexState",
    "Hold",
    "Morale",
    "Move",
    "Next",
    "PendingMorale",
    "PendingSteps",
    "PzgrenState",
    "Recover",
    "Step",
    "UnitState",
    "apply",
    "at_modifiers",
    "awaiting",
    "can_act",
    "check_move",
    "direct_modifiers",
    "load_state",
    "new_game",
    "plan_fire",
    "step_choices",
    "unit_modifiers",
]
