"""Where a pzgren game stands in its declared sequence of play (``sequence.yaml``).

The order written once in the declaration: what an X result owes (the owner's step losses,
then the morale checks) blocks every other command. :func:`check` refuses a command out of
order (``apply`` asks it before any handler), the legal listing keeps only what
:func:`allows`, and the whole-game fuzzer follows :func:`document_position` after every
command.

The turn is one phase of alternating action segments; whose segment it is, and opportunity
fire after a move, stay with the handlers (``sequence``, ``firing``): the declaration's
steps never reopen, and every segment is like the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import sequence
from rules.pzgren.migrations import FORMAT
from rules.pzgren.model import RULESET_KEY
from rules.pzgren.state import PzgrenState

#: A command's verb as the declaration names it (the service's verb).
VERBS = {"next": "turn.next", "hold": "move"}

PHASE, STEP = "turn", "activations"


def declaration() -> sequence.SequenceDeclaration:
    """The pzgren sequence (``rules/pzgren/sequence.yaml``)."""
    declared = sequence.declared_sequence(RULESET_KEY)
    if declared is None:  # pragma: no cover - the file ships with the ruleset
        raise RuntimeError("rules/pzgren/sequence.yaml is missing")
    return declared


def position(state: PzgrenState) -> sequence.Position:
    """The turn's segments and what is owed now."""
    return sequence.Position(PHASE, STEP, owing(state))


def document_position(document: Mapping[str, Any]) -> sequence.Position:
    """:func:`position` of a stored game document."""
    return position(PzgrenState.model_validate(FORMAT.state_fields(FORMAT.upgrade(document))))


def owing(state: PzgrenState) -> tuple[sequence.Owing, ...]:
    """What is owed now: the owner's step losses, one at a time; once they are all taken,
    every morale check (an X result's checks are owed by the units its steps leave)."""
    if state.pending_steps:
        entry = state.pending_steps[0]
        side = state.sides[entry.side]
        return (sequence.Owing("steps", {"side": side, "n": entry.owed, "hex": entry.hex}),)
    found: list[sequence.Owing] = []
    for owed in state.pending_morale:
        unit = state.units[owed.unit]
        found.append(sequence.Owing("morale", {"side": state.sides[unit.side], "unit": unit.name}))
    return tuple(found)


def verb_of(command_verb: str) -> str:
    """The declaration's name of a command's verb."""
    return VERBS.get(command_verb, command_verb)


def check(state: PzgrenState, command_verb: str, actor_side: str | None) -> None:
    """Refuse a command the sequence does not allow now (see :func:`sequence.check`)."""
    sequence.check(
        declaration(), position(state), verb_of(command_verb), by_referee=actor_side is None
    )


def allows(state: PzgrenState, verb: str, side: str | None) -> bool:
    """Whether the sequence lets ``side`` (None: the referee) give ``verb`` now."""
    return sequence.allows(declaration(), position(state), verb, by_referee=side is None)
