"""Issue 26, item 4, in every ruleset: a ``/turn next`` that is accepted changes the game.

linea_gotica accepted a side's repeated ``/turn next`` after it had ended its class, each
stored and changing nothing. This plays random legal actions through every bundled
scenario and, at each state, asks ``/turn next`` of every seat: a refusal is fine, an
accepted one must leave another document.
"""

from __future__ import annotations

import random

import pytest

from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, Seat
from tests.fuzz.harness import SeededDice, bundled_games
from tests.fuzz.harness import fill_options as fill

COMMANDS = 120  # random legal actions per game


@pytest.mark.parametrize(("ruleset", "scenario"), bundled_games())
def test_an_accepted_turn_next_always_changes_the_game(ruleset, scenario) -> None:
    play = get_ruleset(ruleset).rules
    rng = random.Random(26)
    dice = SeededDice(rng)
    document = play.setup(scenario)
    for _ in range(COMMANDS):
        if play.view(document, REFEREE).status.ended:
            break
        for seat in [*play.sides(document), None]:
            try:
                after = play.act(
                    document, Seat.of(seat), "turn.next", {}, SeededDice(random.Random(1))
                )
            except RulesError:
                continue
            assert after.document != document, f"{ruleset}: /turn next by {seat} changed nothing"
        actions = play.view(document, REFEREE).every_legal
        owed = [a for a in actions if a.owed]
        choice = rng.choice(owed if owed and rng.random() < 0.7 else actions)
        document = play.act(
            document, Seat.of(choice.side), choice.verb, fill(choice, rng), dice
        ).document
