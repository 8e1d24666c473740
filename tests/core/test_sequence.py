"""The declared sequence of play (rules/core/sequence.py): its format, the refusals it gives
and the transitions the whole-game fuzzer checks, on a toy declaration and on every
ruleset that declares one."""

from __future__ import annotations

import pytest

from rules.core.errors import IllegalAction
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.sequence import (
    Owing,
    Position,
    declared_sequence,
    parse_sequence,
    transition_problem,
)
from rules.core.sequence import (
    check as sequence_check,
)
from tests.core.test_concordance import SEEDS

TOY = """
ruleset: toy
seed: toy.txt
advance: turn.next
refusals: {step_closed: error.toy.step_closed}
phases:
  - id: move
    lines: [1]
    seed: Move
    steps:
      - {id: moves, lines: [1], seed: Move, actor: active, verbs: [move], opens: a, closes: b}
  - id: fight
    lines: [2]
    seed: Fight
    steps:
      - {id: charges, lines: [3], seed: Charge, actor: active, verbs: [charge], opens: a, closes: b}
      - {id: react, lines: [4], seed: React, actor: bot, announces: toy.react, opens: a, closes: b}
      - {id: melee, lines: [5], seed: Melee, actor: active, verbs: [melee], opens: a, closes: b}
owed:
  - {id: rout, lines: [6], seed: Rout, actor: owner, verbs: [morale], blocks: all,
     refusal: error.toy.rout, closes_phase: true}
  - {id: arrive, lines: [7], seed: Arrive, actor: active, verbs: [move], blocks: [turn.next],
     refusal: error.toy.arrive, referee_skips: true}
"""


def _refusal(position: Position, verb: str, *, by_referee: bool = False) -> str | None:
    try:
        sequence_check(parse_sequence(TOY, "toy"), position, verb, by_referee=by_referee)
    except IllegalAction as refused:
        return refused.key
    return None


def test_a_closed_step_and_a_blocking_owed_resolution_refuse() -> None:
    melee = Position("fight", "melee")
    assert _refusal(melee, "charge") == "error.toy.step_closed"
    assert _refusal(melee, "melee") is None
    assert _refusal(Position("fight", "charges"), "melee") is None  # a later step opens
    routing = Position("fight", "charges", (Owing("rout", {"unit": "u"}),))
    assert _refusal(routing, "charge") == "error.toy.rout"
    assert _refusal(routing, "morale") is None
    arriving = Position("move", "moves", (Owing("arrive"),))
    assert _refusal(arriving, "turn.next") == "error.toy.arrive"
    assert _refusal(arriving, "turn.next", by_referee=True) is None
    assert _refusal(arriving, "move") is None


def test_the_transitions_the_fuzzer_refuses() -> None:
    declared = parse_sequence(TOY, "toy")
    charges, melee = Position("fight", "charges"), Position("fight", "melee")
    moves = Position("move", "moves")
    assert transition_problem(declared, charges, melee, "melee") is None
    assert transition_problem(declared, melee, melee, "charge") is not None
    assert transition_problem(declared, melee, charges, "morale") is not None
    assert transition_problem(declared, charges, charges, "melee") is not None
    assert transition_problem(declared, melee, moves, "turn.next") is None
    assert transition_problem(declared, moves, melee, "turn.next") is not None
    assert transition_problem(declared, melee, moves, "melee") is not None
    routing = Position("fight", "melee", (Owing("rout"),))
    assert transition_problem(declared, routing, moves, "morale") is None


CLASSES = """
ruleset: toy
seed: toy.txt
advance: turn.next
refusals: {step_closed: error.toy.step_closed}
phases:
  - id: move
    lines: [1]
    seed: Move
    steps:
      - {id: moves, lines: [1], seed: Move, actor: either, verbs: [move], opens: a, closes: b}
  - id: fire
    lines: [2]
    seed: Fire
    steps:
      - {id: elite, lines: [3], seed: Elite, actor: either, verbs: [fire], opens: a, closes: b,
         skippable: true}
      - {id: rabble, lines: [4], seed: Rabble, actor: either, verbs: [fire], opens: a, closes: b,
         skippable: true}
      - {id: observe, lines: [5], seed: Observe, actor: either, verbs: [look], opens: a, closes: b}
"""


def test_a_verb_of_several_steps_is_refused_once_they_are_all_closed() -> None:
    declared = parse_sequence(CLASSES, "toy")
    elite, rabble = Position("fire", "elite"), Position("fire", "rabble")
    observe = Position("fire", "observe")
    sequence_check(declared, rabble, "fire")
    with pytest.raises(IllegalAction) as refused:
        sequence_check(declared, observe, "fire")
    assert refused.value.params == {"step": "Rabble", "now": "Observe"}
    assert transition_problem(declared, elite, elite, "fire") is None
    assert transition_problem(declared, elite, rabble, "turn.next") is None
    assert transition_problem(declared, rabble, elite, "turn.next") is not None
    assert transition_problem(declared, elite, observe, "fire") is not None


def test_a_phase_may_open_past_the_steps_nobody_acts_in() -> None:
    declared = parse_sequence(CLASSES, "toy")
    moves = Position("move", "moves")
    assert transition_problem(declared, moves, Position("fire", "rabble"), "turn.next") is None
    assert transition_problem(declared, moves, Position("fire", "observe"), "turn.next") is None
    assert transition_problem(declared, Position("fire", "observe"), moves, "turn.next") is None
    toy = parse_sequence(TOY, "toy")
    assert transition_problem(toy, moves, Position("fight", "melee"), "turn.next") is not None


def test_a_phase_the_bot_closes_is_left_by_whatever_command_closes_it() -> None:
    """``closed_by_bot``: the last action of a phase that ends by itself leaves it (not only
    the advance verb); with nothing to play it is passed through; it is still left forward."""
    declared = parse_sequence(TOY, "toy")
    rally = (
        "  - {id: rally, lines: [8], seed: Rally, steps: [{id: rally, lines: [8], seed: Rally,\n"
        "      actor: active, verbs: [rally], opens: a, closes: b}]}\nowed:\n"
    )
    closes = "    seed: Move\n    closed_by_bot: every unit moved\n"
    closing = parse_sequence(
        TOY.replace("    seed: Move\n", closes).replace("owed:\n", rally), "toy"
    )
    moves, charges = Position("move", "moves"), Position("fight", "charges")
    assert transition_problem(declared, moves, charges, "move") is not None
    assert transition_problem(closing, moves, charges, "move") is None
    melee, rallying = Position("fight", "melee"), Position("rally", "rally")
    assert transition_problem(closing, melee, moves, "melee") is not None  # fight is not
    assert transition_problem(closing, rallying, charges, "turn.next") is None  # moves passed
    assert transition_problem(closing, melee, moves, "turn.next") is not None  # rally skipped


@pytest.mark.parametrize(
    "broken",
    [
        TOY.replace("verbs: [melee]", "verbs: [melee, melee]"),  # a verb twice in a step
        TOY.replace("announces: toy.react, ", ""),  # a step nobody acts in
        TOY.replace("blocks: all", "blocks: some"),
    ],
)
def test_a_broken_declaration_is_refused_naming_its_file(broken: str) -> None:
    with pytest.raises(ValueError, match=r"^toy:"):
        parse_sequence(broken, "toy")


DECLARING = [key for key in KNOWN_RULESETS if declared_sequence(key) is not None]


@pytest.mark.parametrize("key", DECLARING)
def test_a_declared_sequence_cites_its_seed_and_is_tracked(key: str) -> None:
    declared = declared_sequence(key)
    assert declared is not None and declared.ruleset == key
    seed = (SEEDS / declared.seed).read_text(encoding="utf-8").splitlines()
    assert all(1 <= n <= len(seed) and seed[n - 1].strip() for n in declared.cited_lines())
    tracked = get_ruleset(key).sequence
    assert tracked is not None and tracked.declaration == declared
