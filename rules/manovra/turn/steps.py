"""Where a manovra game stands in its declared sequence of play (``sequence.yaml``).

The order of play is written once, in the declaration: :func:`check` refuses a command out
of order (``apply`` asks it before any handler), the legal listing keeps only what
:func:`allows`, and the whole-game fuzzer follows :func:`document_position` after every
command.

The phases are the five steps of TURNO DI GIOCO (seed line 5). Inside step 3 the manoeuvre
phases repeat (line 8); their order is what is owed: a declaration (the side that began the
turn first, then its opponent), then the action of the unit first in the IT order. A test a
unit owes (CT, SF, ET) comes before anything else but the fragments of a fire under way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import sequence
from rules.manovra.migrations import FORMAT
from rules.manovra.model import RULESET_KEY
from rules.manovra.state import ManovraState, TurnStep
from rules.manovra.turn.common import _marker
from rules.manovra.turn.sequence import _can_declare

#: A command's verb as the declaration names it (the service's verb).
VERBS = {
    "next": "turn.next",
    "declare": "manoeuvre.declare",
    "pass": "manoeuvre.pass",
    "hold": "move",
}

_PHASES = {
    TurnStep.TOKENS: ("tokens", "tokens"),
    TurnStep.REQUESTS: ("requests", "requests"),
    TurnStep.MANOEUVRE: ("manoeuvre", "manoeuvre_phases"),
    TurnStep.INDIRECT: ("indirect", "indirect_fire"),
    TurnStep.END: ("end", "end"),
}


def declaration() -> sequence.SequenceDeclaration:
    """The manovra sequence (``rules/manovra/sequence.yaml``)."""
    declared = sequence.declared_sequence(RULESET_KEY)
    if declared is None:  # pragma: no cover - the file ships with the ruleset
        raise RuntimeError("rules/manovra/sequence.yaml is missing")
    return declared


def position(state: ManovraState) -> sequence.Position:
    """The step of the turn and the resolutions owed now, first owed first."""
    phase, step = _PHASES[state.step]
    return sequence.Position(phase, step, owing(state))


def document_position(document: Mapping[str, Any]) -> sequence.Position:
    """:func:`position` of a stored game document."""
    fields = FORMAT.state_fields(FORMAT.upgrade(document))
    return position(ManovraState.model_validate(fields))


def owing(state: ManovraState) -> tuple[sequence.Owing, ...]:
    """What is owed, in the order a refusal names it: tests, then the declaration or the
    action due in a manoeuvre phase, then the next IF marker."""
    found = [
        sequence.Owing(
            "test", {"unit": state.units[p.unit].name, "test": p.kind, "side": _side(state, p.unit)}
        )
        for p in state.pending
    ]
    if state.step is TurnStep.MANOEUVRE:
        if state.queue:
            unit = state.queue[0]
            found.append(
                sequence.Owing(
                    "action", {"unit": state.units[unit].name, "side": _side(state, unit)}
                )
            )
        else:
            side = _due_to_declare(state)
            if side is not None:
                found.append(sequence.Owing("declaration", {"side": state.sides[side]}))
    if state.step is TurnStep.INDIRECT:
        left = [m for m in state.marker_order if not _marker(state, m).executed]
        left += [m.id for m in state.markers if not m.executed and m.id not in left]
        if left:
            found.append(sequence.Owing("marker", {"marker": left[0], "n": len(left)}))
    return tuple(found)


def _due_to_declare(state: ManovraState) -> str | None:
    """The side that declares next (the one that began the turn first): one with a platoon
    left to declare or a token to hand over (the bot passes for the others); nobody once
    no platoon is left to declare on either side (step 3 is over)."""
    if not state.declarations and not any(_can_declare(state, s) for s in state.sides):
        return None
    for side in (state.first_side, state.other_side(state.first_side)):
        if side not in state.declarations and (
            _can_declare(state, side) or state.tokens.get(side, 0) > 0
        ):
            return side
    return None


def _side(state: ManovraState, unit_id: str) -> str:
    return state.sides[state.units[unit_id].side]


def verb_of(command_verb: str) -> str:
    """The declaration's name of a command's verb."""
    return VERBS.get(command_verb, command_verb)


def check(state: ManovraState, command_verb: str, actor_side: str | None) -> None:
    """Refuse a command the sequence does not allow now (see :func:`sequence.check`)."""
    sequence.check(
        declaration(), position(state), verb_of(command_verb), by_referee=actor_side is None
    )


def allows(state: ManovraState, verb: str, side: str | None) -> bool:
    """Whether the sequence lets ``side`` (None: the referee) give ``verb`` now."""
    return sequence.allows(declaration(), position(state), verb, by_referee=side is None)
