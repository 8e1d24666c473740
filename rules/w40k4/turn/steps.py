"""Where a w40k4 game stands in its declared sequence of play (``sequence.yaml``).

The order of play is written once, in the declaration: :func:`check` refuses a command out
of order (``apply`` asks it before any handler), the legal listing keeps only what
:func:`allows`, and the whole-game fuzzer follows :func:`position` after every command.

The assault phase's step is read from the state: its assault moves are open until the first
combat of the phase is fought (``resolved_combats`` is empty until then); that first
``/combat`` closes them, and the defenders' reaction (step 2) is announced then, for every
unit assaulted in the phase, before the combat is resolved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import sequence
from rules.core.resolution import Outcome
from rules.core.words import joined
from rules.w40k4.migrations import FORMAT
from rules.w40k4.model import RULESET_KEY, Phase
from rules.w40k4.state import Applied, W40kState
from rules.w40k4.turn.common import open_combats

#: A command's verb as the declaration names it (the service's verb).
VERBS = {"next": "turn.next"}

_OWED_TEST = {"combat": "combat_morale", "losses": "losses_morale", "regroup": "regroup"}
_FIRST_STEP = {Phase.MOVEMENT: "moves", Phase.SHOOTING: "fire", Phase.ASSAULT: "assault_moves"}


def declaration() -> sequence.SequenceDeclaration:
    """The w40k4 sequence (``rules/w40k4/sequence.yaml``)."""
    declared = sequence.declared_sequence(RULESET_KEY)
    if declared is None:  # pragma: no cover - the file ships with the ruleset
        raise RuntimeError("rules/w40k4/sequence.yaml is missing")
    return declared


def position(state: W40kState) -> sequence.Position:
    """The phase, its step and the resolutions owed now, first owed first."""
    step = _FIRST_STEP[state.phase]
    if state.phase is Phase.ASSAULT and state.resolved_combats:
        step = "combats"
    return sequence.Position(state.phase.value, step, owing(state))


def document_position(document: Mapping[str, Any]) -> sequence.Position:
    """:func:`position` of a stored game document."""
    fields = FORMAT.state_fields(FORMAT.upgrade(document))
    return position(W40kState.model_validate(fields))


def owing(state: W40kState) -> tuple[sequence.Owing, ...]:
    """What is owed, in the order a refusal names it: tests, templates, arrivals, combats."""
    found: list[sequence.Owing] = []
    for test in state.pending:
        unit = state.units[test.unit]
        params = {"side": state.sides[unit.side], "unit": unit.name}
        found.append(sequence.Owing(_OWED_TEST[test.reason], params))
    for template in state.templates:
        firer = state.units[template.unit]
        found.append(
            sequence.Owing("template", {"side": state.sides[firer.side], "unit": firer.name})
        )
    side = state.sides[state.active]
    if state.phase is Phase.MOVEMENT:
        for unit in state.ordered():
            if unit.side == state.active and unit.alive and unit.location == "arriving":
                found.append(sequence.Owing("arrival", {"side": side, "unit": unit.name}))
    if state.phase is Phase.ASSAULT:
        for members in open_combats(state):
            names = joined(state.units[m].name for m in members)
            found.append(sequence.Owing("combat", {"side": side, "unit": names}))
    return tuple(found)


def verb_of(command_verb: str) -> str:
    """The declaration's name of a command's verb."""
    return VERBS.get(command_verb, command_verb)


def check(state: W40kState, command_verb: str, actor_side: str | None) -> None:
    """Refuse a command the sequence does not allow now (see :func:`sequence.check`)."""
    sequence.check(
        declaration(), position(state), verb_of(command_verb), by_referee=actor_side is None
    )


def allows(state: W40kState, verb: str, side: str | None) -> bool:
    """Whether the sequence lets ``side`` (None: the referee) give ``verb`` now."""
    return sequence.allows(declaration(), position(state), verb, by_referee=side is None)


def close_assault_moves(state: W40kState, result: Applied) -> None:
    """The first combat of an assault phase closes the assault moves: the defenders of every
    unit that reached its target this phase react (FASE D'ASSALTO, step 2), all together."""
    if state.phase is not Phase.ASSAULT or position(state).step != "assault_moves":
        return
    announced = [s.announces for s in declaration().phase(Phase.ASSAULT.value).steps]
    key = next(k for k in announced if k is not None)
    reacting: list[str] = []
    for unit in state.ordered():
        if unit.charged and unit.side == state.active:
            reacting += [t for t in unit.locked_with if t not in reacting]
    for target in reacting:
        result.notices.append(Outcome.of(key, target=state.units[target].name))
