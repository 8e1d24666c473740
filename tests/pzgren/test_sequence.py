"""The pzgren sequence of play as declared in rules/pzgren/sequence.yaml: what an X result
owes (the owner's step losses, then the morale checks; seed 003 lines 139-146) blocks every
other command, for the players and the referee, in the refusals, the legal listing and
/help; a scripted turn keeps the transitions the whole-game fuzzer checks."""

from __future__ import annotations

from bot.commands import COMMANDS
from bot.service.help import command_lines
from rules.core.dice import ScriptedDice
from rules.core.legal import verbs_of
from rules.core.ruleset import get_ruleset
from rules.core.sequence import transition_problem
from rules.pzgren import turn as g
from rules.pzgren.legal import legal_actions
from rules.pzgren.scenario import load_bundled
from rules.pzgren.turn import steps
from tests.pzgren.test_game import Table, fire, small


def _three_x() -> Table:
    """A 3X (fire 45, 2D6 = 2) on a hex of two units: B chooses where the steps go."""
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 45, range: 5}, '
        '{id: a2, name: A2, type: infantry, hex: "1,2", fire: 2, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1", steps: 3}, '
        '{id: b2, name: B2, type: infantry, hex: "3,1", steps: 3}, '
        '{id: b3, name: B3, type: infantry, hex: "6,6"}',
    )
    table(fire("a1", hex="3,1"), "a", [1, 1])
    return table


def test_the_step_losses_are_owed_before_the_morale_checks_and_block_everything():
    """Lines 141-146: the owner decides which unit takes the step losses; then the units
    left check their morale (139-140). Nothing else is given meanwhile."""
    table = _three_x()
    assert [o.kind for o in steps.position(table.state).owing] == ["steps"]
    assert verbs_of(legal_actions(table.state)) == ["step"]
    refusal = table.refused(g.Morale(unit="b1"), "b", "error.pzgren.steps_owed")
    assert refusal.localized("en") == "Not now: B must first assign 3 step losses in 3,1 (/step)."
    table.refused(g.Hold(unit="b3"), "b", "error.pzgren.steps_owed")
    table.refused(g.Next(), None, "error.pzgren.steps_owed")
    table(g.Step(unit="b1"), "b")
    table(g.Step(unit="b2"), "b")
    table(g.Step(unit="b1"), "b")
    owing = steps.position(table.state).owing
    assert [(o.kind, o.params["unit"]) for o in owing] == [("morale", "B1"), ("morale", "B2")]
    assert verbs_of(legal_actions(table.state)) == ["morale"]
    table.refused(g.Step(unit="b1"), "b", "error.pzgren.morale_owed")
    table.refused(fire("a2", hex="3,1"), None, "error.pzgren.morale_owed")
    table.refused(g.Hold(unit="a2"), "a", "error.pzgren.morale_owed")
    table(g.Morale(unit="b2"), "b", [1, 1])  # in any order
    table(g.Morale(unit="b1"), "b", [1, 1])
    assert steps.position(table.state).owing == ()
    assert "turn.next" in verbs_of(legal_actions(table.state))


def test_a_preview_is_not_held_by_what_is_owed():
    """The odds of a fire may be asked while a step loss is owed; nothing is committed."""
    table = _three_x()
    before = table.state.model_dump(mode="json")
    applied = g.apply(
        table.state, fire("a2", hex="3,1"), ScriptedDice([1, 1]), actor_side="a", preview=True
    )
    assert applied.resolutions[0].odds is not None
    assert table.state.model_dump(mode="json") == before


def _help(name: str, language: str = "en") -> list[str]:
    command = next(c for c in COMMANDS if c.name == name)
    return command_lines(command, get_ruleset("pzgren").play, language)


def test_help_says_when_a_command_is_given_in_the_seeds_words():
    assert "  ce tour › segment d'action (163, 165)" in _help("fire")
    assert "  ce tour › segment d'action (163, 165)" in _help("move")
    step = _help("step")
    assert any(line.startswith("  Le joueur propriétaire décide") for line in step)
    assert "  vérification de moral (139, 140, 142, 155)" in _help("morale")


def test_a_scripted_turn_keeps_the_declared_sequence():
    """Every command of a turn with opportunity fire, a step choice and morale checks is a
    transition the whole-game fuzzer accepts (rules.core.sequence.transition_problem)."""
    table = Table(g.new_game(load_bundled("exemple_ardennes")))
    script = [
        (g.Move(unit="us_rifle_1", hex="4,3"), "us", []),
        (fire("de_pzgren_1", hex="4,3", opportunity=True), "de", [1, 1]),
        (g.Morale(unit="us_rifle_1"), "us", [3, 3]),
        (fire("de_panther", target="us_m10"), "de", [1, 1]),
        (g.Morale(unit="us_m10"), "us", [1, 1]),
        (fire("us_rifle_2,us_mortar", hex="6,3"), "us", [1, 1]),
        (g.Step(unit="de_hmg"), "de", []),
        (g.Morale(unit="de_pzgren_1"), "de", [4, 2]),
        (g.Next(), "de", []),
        (g.Next(), "us", []),
    ]
    declared = steps.declaration()
    for command, side, faces in script:
        was = steps.position(table.state)
        table(command, side, faces)
        verb = steps.verb_of(command.verb)
        assert transition_problem(declared, was, steps.position(table.state), verb) is None
    assert table.state.turn == 2
