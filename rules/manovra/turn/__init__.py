"""Playing manovra: the game state, the commands players give, and the turn sequence.

``apply(state, command, dice)`` checks a command against the state (turn step, whose
declaration, which unit acts next, who owns the unit, statuses and crew losses), resolves
it through the ruleset's procedures, and returns a new state with the resolutions. It never
mutates its input: a refused command leaves the state exactly as it was.

Turn sequence (TURNO DI GIOCO): 1 manoeuvre tokens, 2 indirect-fire requests, 3 manoeuvre
phases, 4 indirect-fire execution, 5 end of turn. The order of play is declared once, in
``rules/manovra/sequence.yaml``: ``steps.check`` refuses what it does not allow (an owed
test, declaration, unit's action or IF marker first) before any handler runs.

The package reads in the seed's order over the ruleset's ``state`` (the document) and
``orders`` (the commands): ``sequence`` (the turn), then one module per verb family:
``indirect`` (requests, IF markers, fragments), ``movement``, ``shooting`` (with
``combined``, the complex actions), ``transport``, ``assault`` and
``owed`` (tests and panic recovery); ``common`` holds the checks they share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.dice import DiceSource
from rules.core.errors import IllegalAction
from rules.core.game import run_command
from rules.manovra import victory
from rules.manovra.model import RangeBand
from rules.manovra.orders import (
    Assault,
    Command,
    Declare,
    Disembark,
    Embark,
    ExecuteFire,
    Fire,
    Fragments,
    Hold,
    Hook,
    Move,
    Next,
    PassToken,
    RecoverPanic,
    RequestFire,
    TakeTest,
    Unhook,
)
from rules.manovra.state import (
    MAX_TEXT,
    Applied,
    Burst,
    FireMarker,
    ManovraState,
    PendingTest,
    PlatoonState,
    TurnStep,
    UnitState,
)
from rules.manovra.turn import steps
from rules.manovra.turn.assault import _do_assault
from rules.manovra.turn.indirect import _do_execute, _do_fragments, _do_request
from rules.manovra.turn.movement import _do_hold, _do_move
from rules.manovra.turn.owed import _do_recover, _do_test
from rules.manovra.turn.sequence import (
    _after_activation,
    _auto_declare,
    _do_declare,
    _do_next,
    _do_pass,
    awaiting,
    load_state,
    new_game,
)
from rules.manovra.turn.shooting import _do_fire
from rules.manovra.turn.transport import _do_disembark, _do_embark, _do_hook, _do_unhook


def apply(
    state: ManovraState,
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
    if state.ended and not isinstance(command, TakeTest):
        raise IllegalAction("error.manovra.game_over")
    if not preview:  # odds may be asked of any command, in or out of its step
        steps.check(state, command.verb, actor_side)
    return run_command(
        state,
        command,
        dice,
        _HANDLERS,
        actor_side=actor_side,
        settle=_settle,
        preview=preview,
        other_dice=other_dice,
        owned=owned,
    )


def _settle(state: ManovraState, result: Applied) -> None:
    """After any command, step 3 catches up with losses taken out of turn (fragments, mines).

    A unit due to act that was killed gives its place to the next; a platoon wiped out
    before it was declared leaves its side nothing to declare, which passes. First of all,
    a side wiped out or broken may end the game (the scenario's sudden death).
    """
    if victory.settle(state, result):
        return
    if state.step is not TurnStep.MANOEUVRE:
        return
    if state.queue and not state.units[state.queue[0]].alive:
        _after_activation(state, result)
    elif not state.queue:
        _auto_declare(state, result)


_HANDLERS: dict[type, Callable[..., None]] = {
    Next: _do_next,
    Declare: _do_declare,
    PassToken: _do_pass,
    RequestFire: _do_request,
    Move: _do_move,
    Fire: _do_fire,
    Embark: _do_embark,
    Disembark: _do_disembark,
    Hook: _do_hook,
    Unhook: _do_unhook,
    Hold: _do_hold,
    TakeTest: _do_test,
    RecoverPanic: _do_recover,
    Assault: _do_assault,
    ExecuteFire: _do_execute,
    Fragments: _do_fragments,
}


RANGE_BANDS = tuple(RangeBand)


__all__ = [
    "MAX_TEXT",
    "RANGE_BANDS",
    "Applied",
    "Assault",
    "Burst",
    "Command",
    "Declare",
    "Disembark",
    "Embark",
    "ExecuteFire",
    "Fire",
    "FireMarker",
    "Fragments",
    "Hold",
    "Hook",
    "ManovraState",
    "Move",
    "Next",
    "PassToken",
    "PendingTest",
    "PlatoonState",
    "RecoverPanic",
    "RequestFire",
    "TakeTest",
    "TurnStep",
    "Unhook",
    "UnitState",
    "apply",
    "awaiting",
    "load_state",
    "new_game",
]
