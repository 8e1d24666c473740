"""The seat views of the four bundled rulesets, on random legal games played through the
three calls: what the core derives (whose move, the buttons, each seat's legal actions, no
hidden unit shown to the other side) agrees with the rules at every step checked."""

from __future__ import annotations

import random

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction
from rules.core.play import DocumentPlay
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from tests.core.legal_loop import play_random_game
from tests.fuzz.harness import SeededDice, fill_options


def _play(ruleset: str) -> DocumentPlay:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentPlay)
    return play


CASES = [(key, scenario) for key in KNOWN_RULESETS for scenario in _play(key).scenarios()]


@pytest.mark.parametrize(("ruleset", "scenario"), CASES)
def test_every_bundled_scenario_plays_through_the_three_calls(ruleset: str, scenario: str):
    log = play_random_game(_play(ruleset), scenario, seed=11, check_views_every=5)
    assert log.ended


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_whose_move_the_core_derives_is_the_one_the_rules_check(ruleset: str):
    """The rules refuse a command out of turn by their own ``awaiting``; the side the views
    name (derived from what is owed, else the turn sequence) is that side at every step."""
    play = _play(ruleset)
    rng = random.Random(5)
    dice = SeededDice(rng)
    document = play.setup()
    for _ in range(400):
        view = play.view(document, REFEREE)
        assert view.awaiting == play.game.awaiting(play._state(document))
        assert play.view(document, SPECTATOR).status.awaiting == view.awaiting
        if view.status.ended:
            break
        actions = view.legal
        owed = [a for a in actions if a.owed]
        choice = rng.choice(owed if owed and rng.random() < 0.8 else actions)
        options = fill_options(choice, rng)
        document = play.act(document, Seat.of(choice.side), choice.verb, options, dice).document


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_a_spectator_gives_no_command(ruleset: str):
    play = _play(ruleset)
    document = play.setup()
    with pytest.raises(IllegalAction) as refused:
        play.act(document, SPECTATOR, "turn.next", {}, ScriptedDice([]))
    assert refused.value.key == "error.seat.spectator"
