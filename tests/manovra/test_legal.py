"""Legal actions of manovra: every listed action is accepted, and a game always reaches its end.

A small pure loop plays random legal actions with random dice (seeded) through
``ManovraPlay`` until the scenario's last turn; the whole-game fuzzer of ``tests/fuzz``
does the same through the application service.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.seatview import REFEREE, Seat
from rules.manovra.surface import PLAY
from tests.fuzz.harness import SeededDice as RandomDice
from tests.fuzz.harness import fill_options as fill

SCENARIO = "esempio_normandia"


def check_owed_block(actions: list[LegalAction]) -> None:
    """While a test is owed, only owed actions and fragments of fired rounds are listed."""
    if any(a.owed and a.verb == "test" for a in actions):
        assert all(a.owed or a.verb == "fragments" for a in actions), actions


def play_game(seed: int, limit: int = 4000) -> tuple[dict[str, Any], int]:
    """Play random legal actions to the end; return the final document and commands played."""
    rng = random.Random(seed)
    dice = RandomDice(rng)
    document = PLAY.setup(SCENARIO)
    for played in range(limit):
        if PLAY.view(document, REFEREE).status.ended:
            return document, played
        actions = PLAY.view(document, REFEREE).every_legal
        assert actions, f"dead end at {PLAY.view(document, REFEREE).status}"
        check_owed_block(actions)
        follow = PLAY.view(document, REFEREE).follow_ups
        assert [(f.verb, dict(f.options)) for f in follow] == [
            (a.verb, {k: str(v) for k, v in a.options.items()}) for a in actions if a.owed
        ][: len(follow)]
        action = rng.choice(actions)
        options = fill(action, rng)
        try:
            result = PLAY.act(document, Seat.of(action.side), action.verb, options, dice, dice)
        except RulesError as error:
            state = PLAY.view(document, REFEREE).status
            pytest.fail(
                f"seed {seed}, command {played}: listed {action.verb} {options} for "
                f"{action.side} refused at turn {state.turn} {state.phase.key}: "
                f"{error.key} {error.localized('en')}"
            )
        document = result.document
    pytest.fail(f"seed {seed}: no end after {limit} commands")


@pytest.mark.parametrize("seed", range(2))
def test_random_legal_games_reach_the_end(seed):
    document, played = play_game(seed)
    status = PLAY.view(document, REFEREE).status
    ending = document["victory"]["result"]["ending"]
    # The last turn, unless a side broke or was wiped out first (the scenario's sudden death).
    assert status.ended and (status.turn == 8 or ending["kind"] == "sudden_death")
    assert played > 50


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 12))
def test_more_random_legal_games_reach_the_end(seed):
    document, _ = play_game(seed)
    assert PLAY.view(document, REFEREE).status.ended


@pytest.mark.slow
@pytest.mark.parametrize("seed", [114, 1013, 1034])
def test_games_that_once_failed_reach_the_end(seed):
    """Seeds whose games found a defect (a killed unit left listed, a side left to declare);
    each defect also has its own test in test_defects.py."""
    document, _ = play_game(seed)
    assert PLAY.view(document, REFEREE).status.ended
