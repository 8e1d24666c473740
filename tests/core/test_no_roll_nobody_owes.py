"""Issue 26, item 3, in every ruleset: a test or morale roll nobody owes is refused.

Random legal play through every bundled scenario; at each state every unit is asked for
each roll verb (``/morale``, and ``/test`` where it is a roll: manovra's CT/SF/ET, w40k4's
Leadership test). Whatever the owed legal actions do not list is refused before any die is
rolled (the dice given have no face), and the refusal names what is owed.
"""

from __future__ import annotations

import random

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import DiceError, RulesError
from rules.core.legal import NotOwed
from rules.core.ruleset import get_ruleset
from tests.fuzz.harness import SeededDice, bundled_games
from tests.fuzz.harness import fill_options as fill
from tests.rulesets import facts

COMMANDS = 30  # random legal actions per game
ROLLS: dict[str, list[tuple[str, dict[str, str]]]] = facts("ROLL_VERBS")


def _owed(actions, verb: str, unit: str, options: dict[str, str]) -> bool:
    for action in actions:
        if not action.owed or action.unit != unit:
            continue
        kind = action.options.get("kind")
        if verb == "morale" and action.verb in ("morale", "test") and kind in (None, "CT"):
            return True
        if verb == "test" and action.verb in ("morale", "test") and kind == options.get("kind"):
            return True
    return False


@pytest.mark.parametrize(("ruleset", "scenario"), bundled_games())
def test_no_roll_nobody_owes_is_accepted(ruleset, scenario) -> None:
    play = get_ruleset(ruleset).play
    rng = random.Random(26)
    dice = SeededDice(rng)
    document = play.new_game(scenario, None)
    refused = 0
    for _ in range(COMMANDS):
        if play.status(document).ended:
            break
        actions = play.legal_actions(document)
        for line in play.status(document).units:
            for verb, options in ROLLS[ruleset]:
                if _owed(actions, verb, line.id, options):
                    continue
                try:
                    play.apply(document, verb, {"unit": line.id, **options}, ScriptedDice([]), None)
                except DiceError:
                    pytest.fail(f"{ruleset}: {verb} {line.id} {options} rolled a die")
                except NotOwed:
                    refused += 1
                except RulesError:
                    pass  # refused for another reason (no Leadership, the game is over)
                else:
                    pytest.fail(f"{ruleset}: {verb} {line.id} {options} nobody owes was played")
        owed = [a for a in actions if a.owed]
        choice = rng.choice(owed if owed and rng.random() < 0.7 else actions)
        document = play.apply(document, choice.verb, fill(choice, rng), dice, choice.side).document
    assert refused
