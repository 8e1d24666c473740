"""Where a linea_gotica game stands in its declared sequence of play (``sequence.yaml``).

The order of play is written once, in the declaration: :func:`check` refuses a command out
of order (``apply`` asks it before any handler), the legal listing keeps only what
:func:`allows`, and the whole-game fuzzer follows :func:`document_position` after every
command. Who is awaited inside a step (the first mover before the other, a side that has
ended its class) stays with the handlers, which name the side the game waits for.

The state's finer phases map onto the seed's three (SEQUENZA DI GIOCO, lines 84-86): the
initiative roll and the winner's choice; covering fire, movement and the observation at the
end of the movement phase; the fire phase class by class (Elite → Marmaglia), then its
observation.

What is owed blocks the owing side's ``/turn next`` only (the other side may end its step):
each morale test owed by one of its units (the fire phase's class does not close before
them, line 86), and each mission due in the class of its observer. The initiative roll waits
for nobody: a test owed as the turn ended (a man bled to death) is taken in the new turn,
before the winner chooses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import sequence
from rules.linea_gotica.migrations import FORMAT
from rules.linea_gotica.model import QUALITY_ORDER, RULESET_KEY
from rules.linea_gotica.state import GameState, Mission, Phase

#: A command's verb as the declaration names it (the service's verb).
VERBS = {"next": "turn.next"}

_PLACE = {
    Phase.INITIATIVE: ("iniziativa", "dadi"),
    Phase.CHOICE: ("iniziativa", "scelta"),
    Phase.COVERING: ("movimento", "copertura"),
    Phase.MOVEMENT: ("movimento", "movimento"),
    Phase.OBSERVE_MOVE: ("movimento", "osservazione"),
    Phase.OBSERVE_FIRE: ("tiro", "osservazione"),
}
#: The missions an observer must execute in his class (a ranging shot, an air attack or a
#: damaged aircraft's return); the observer's orders after a ranging shot may wait.
DUE_STAGES = ("ranging", "aircraft", "returning")


def declaration() -> sequence.SequenceDeclaration:
    """The linea_gotica sequence (``rules/linea_gotica/sequence.yaml``)."""
    declared = sequence.declared_sequence(RULESET_KEY)
    if declared is None:  # pragma: no cover - the file ships with the ruleset
        raise RuntimeError("rules/linea_gotica/sequence.yaml is missing")
    return declared


def position(state: GameState, side: str | None = None) -> sequence.Position:
    """The phase, its step and what is owed now (with ``side``: what that side owes)."""
    if state.phase is Phase.FIRE:
        phase, step = "tiro", QUALITY_ORDER[state.fire_class].value
    else:
        phase, step = _PLACE[state.phase]
    return sequence.Position(phase, step, owing(state, side))


def document_position(document: Mapping[str, Any]) -> sequence.Position:
    """:func:`position` of a stored game document."""
    fields = FORMAT.state_fields(FORMAT.upgrade(document))
    return position(GameState.model_validate(fields))


def owing(state: GameState, side: str | None = None) -> tuple[sequence.Owing, ...]:
    """The morale tests owed (after the initiative roll), then the missions due now; with
    ``side``, those of that side only."""
    found: list[sequence.Owing] = []
    if state.phase is not Phase.INITIATIVE:
        for unit_id in dict.fromkeys(p.unit for p in state.pending):
            unit = state.units.get(unit_id)
            if unit is not None and unit.alive and side in (None, unit.side):
                params: dict[str, str] = {"side": state.sides[unit.side], "unit": unit.name}
                found.append(sequence.Owing("morale", params))
    if state.phase is Phase.FIRE:
        for mission in due_missions(state):
            if side in (None, mission.side):
                params = {"side": state.sides[mission.side], "marker": mission.id}
                found.append(sequence.Owing("mission", params))
    return tuple(found)


def due_missions(state: GameState) -> list[Mission]:
    """The missions to execute in the class acting now: their observer is of it and alive."""
    return [
        m
        for m in state.missions
        if m.stage in DUE_STAGES
        and m.due_turn <= state.turn
        and m.observer in state.units
        and state.units[m.observer].alive
        and state.units[m.observer].class_index == state.fire_class
    ]


def verb_of(command_verb: str) -> str:
    """The declaration's name of a command's verb."""
    return VERBS.get(command_verb, command_verb)


def check(state: GameState, command_verb: str, actor_side: str | None) -> None:
    """Refuse a command the sequence does not allow now (see :func:`sequence.check`)."""
    sequence.check(
        declaration(),
        position(state, actor_side),
        verb_of(command_verb),
        by_referee=actor_side is None,
    )


def allows(state: GameState, verb: str, side: str | None) -> bool:
    """Whether the sequence lets ``side`` (None: the referee) give ``verb`` now."""
    return sequence.allows(declaration(), position(state, side), verb, by_referee=side is None)
