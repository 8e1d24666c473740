"""linea_gotica legal actions: the listing's contract, played to the scenario's end.

A pure loop (until tests/fuzz plays every ruleset through the service): from the bundled
scenario, repeatedly pick a random listed action, fill its free options at random, apply it
for its side with seeded dice; every listed action must be accepted, and while the game has
not ended some seat must have an action.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.linea_gotica.play import PLAY

MAX_COMMANDS = 3000


class SeededDice:
    """Dice from a seeded generator (never the global ``random``)."""

    by_hand = False

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def face(self, die: Die, label: str) -> int:
        return self._rng.randint(1, die.sides)


def fill(action: LegalAction, rng: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = dict(action.options)
    for spec in action.free:
        if not spec.required and rng.random() < 0.5:
            continue
        if spec.choices:
            options[spec.name] = rng.choice(spec.choices)
        else:
            assert spec.low is not None and spec.high is not None
            options[spec.name] = rng.randint(spec.low, spec.high)
    return options


def play_one_game(seed: int) -> tuple[dict[str, Any], int]:
    rng = random.Random(seed)
    dice = SeededDice(rng)
    document = PLAY.new_game("esempio_gotica", None)
    commands = 0
    while not PLAY.status(document, None).ended:
        actions = PLAY.legal_actions(document)
        assert actions, f"dead end at turn {document['turn']}, phase {document['phase']}"
        owed = [a for a in actions if a.owed]
        # Mostly give what is owed or end the step; sometimes try anything listed.
        pool = actions if rng.random() < 0.8 or not owed else owed
        action = rng.choice(pool)
        options = fill(action, rng)
        try:
            played = PLAY.apply(document, action.verb, options, dice, action.side)
        except RulesError as error:
            pytest.fail(
                f"seed {seed}: listed {action.verb} {options} for {action.side} refused: "
                f"{error.key} {error.params}"
            )
        document = played.document
        commands += 1
        assert commands < MAX_COMMANDS, f"seed {seed}: no end after {commands} commands"
    return document, commands


@pytest.mark.parametrize("seed", range(6))
def test_random_legal_play_reaches_the_end(seed):
    document, commands = play_one_game(seed)
    assert document["ended"] and document["turn"] == document["max_turns"]
    assert commands > 50


def test_owed_things_are_tagged_and_block_turn_next():
    document = PLAY.new_game("esempio_gotica", None)
    start = PLAY.legal_actions(document)
    assert {(a.verb, a.side, a.owed) for a in start} == {
        ("turn.next", "alleati", True),
        ("turn.next", "tedeschi", True),
    }
