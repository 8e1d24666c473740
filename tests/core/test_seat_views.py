"""The seat views of the four bundled rulesets, on random legal games played through the
three calls: what the core derives (whose move, the buttons, each seat's legal actions, no
hidden unit shown to the other side) agrees with the rules at every step checked."""

from __future__ import annotations

import random

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction
from rules.core.legal import LegalAction, OptionSpec
from rules.core.play import DocumentRules
from rules.core.resolution import Outcome
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR, FollowUp, Seat, awaiting_of, follow_ups_of
from tests.core.legal_loop import play_random_game
from tests.fuzz.harness import SeededDice, fill_options


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
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
        assert view.awaiting == play.game.awaiting(play._load_state(document))
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


def test_an_initiative_either_side_may_roll_is_one_button_for_anyone():
    play = _play("linea_gotica")
    view = play.view(play.setup("esempio_gotica"), REFEREE)
    owed_by = sorted(str(a.side) for a in view.owed)
    assert owed_by == sorted(view.status.sides) and view.awaiting is None
    assert view.follow_ups == [
        FollowUp("turn.next", {}, Outcome.of("linea_gotica.follow.initiative"), None)
    ]


LABEL = Outcome.of("t.follow.roll")


def test_the_buttons_are_the_labelled_owed_actions_a_press_can_give():
    actions = [
        LegalAction("roll", "a", {"unit": "u1"}, owed=True, label=LABEL),
        LegalAction("roll", "a", {"unit": "u2"}, owed=True),  # no label: typed
        LegalAction(
            "place", "a", {}, (OptionSpec("x", low=0, high=9),), owed=True, label=LABEL
        ),  # a number to give: typed
        LegalAction(
            "fire",
            "a",
            {"unit": "u1"},
            (OptionSpec("ammo", ("he",), required=False),),
            owed=True,
            label=LABEL,
        ),  # an optional option left out
        LegalAction(
            "pick",
            "b",
            {},
            (OptionSpec("unit", ("u3", "u4"), labels=(LABEL, Outcome.of("t.other"))),),
            owed=True,
        ),  # a button per choice
        LegalAction("order", "b", {"marker": "m"}, button=True, label=LABEL),  # offered
        LegalAction("move", "b", {"unit": "u3"}, label=LABEL),  # neither owed nor offered
    ]
    buttons = [(f.verb, dict(f.options), f.side) for f in follow_ups_of(actions, "t")]
    assert buttons == [
        ("roll", {"unit": "u1"}, "a"),
        ("fire", {"unit": "u1"}, "a"),
        ("pick", {"unit": "u3"}, "b"),
        ("pick", {"unit": "u4"}, "b"),
        ("order", {"marker": "m"}, "b"),
    ]


def test_whose_move_is_the_first_owing_side_else_the_sequences():
    def turn() -> str:
        return "seq"

    roll = LegalAction("roll", "b", {"unit": "u"}, owed=True, label=LABEL)
    assert awaiting_of([], turn) == "seq"
    assert awaiting_of([LegalAction("order", "a", button=True, label=LABEL)], turn) == "seq"
    assert awaiting_of([roll, LegalAction("roll", "a", owed=True)], turn) == "b"
    either = [LegalAction("turn.next", side, owed=True) for side in ("a", "b")]
    assert awaiting_of(either, turn) is None
