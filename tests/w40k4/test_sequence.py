"""The w40k4 sequence of play as declared in rules/w40k4/sequence.yaml, played with scripted
dice and compared with the seed (docs/seeds/001_w40k4.txt) line by line."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.legal import verbs_of
from rules.render import describe
from rules.w40k4 import turn as g
from rules.w40k4.legal import legal_actions
from rules.w40k4.procedures import PROCEDURES
from rules.w40k4.scenario import load_bundled
from rules.w40k4.turn import steps
from tests.w40k4.test_game import Table

LEGIONE, PREDONI = "legione", "predoni"
# The devastators' 10 attacks hit, wound and are not saved; the band's 30 all miss.
DEVASTATORS_WIN = [6] * 20 + [1] * 10 + [1] * 30


@pytest.fixture()
def table() -> Table:
    """Avamposto at the Legione's assault phase (nobody has fired or moved)."""
    state = g.new_game(load_bundled("avamposto"))
    state.phase = g.Phase.ASSAULT
    return Table(state)


def _two_assaults(table: Table) -> list[g.Applied]:
    return [
        table(g.Assault(unit="squadra_tattica", target="motopredoni", distance=4), LEGIONE),
        table(g.Assault(unit="devastatori", target="banda", distance=4), LEGIONE),
    ]


def test_a_combat_waits_for_the_morale_the_last_one_owes(table: Table) -> None:
    """Lines 86-91: one combat at a time, each to its loser's morale test (step 4) before
    the next is chosen (step 1)."""
    _two_assaults(table)
    table(g.Combat(unit="banda"), LEGIONE, DEVASTATORS_WIN)
    assert [(p.unit, p.reason) for p in table.state.pending] == [("banda", "combat")]
    refusal = table.refused(g.Combat(unit="squadra_tattica"), LEGIONE, "error.w40k4.tests_owed")
    assert refusal.localized("en") == (
        "Not now: Raiders must first take the test of Raider Mob (/morale)."
    )
    table.refused(g.Next(), LEGIONE, "error.w40k4.tests_owed")
    assert verbs_of(legal_actions(table.state)) == ["morale"]


def test_no_assault_move_once_combats_are_resolved(table: Table) -> None:
    """Lines 18-22: the assault moves (1) come before the combats (3); the first combat
    closes them, a carried-over one too."""
    table(g.Assault(unit="devastatori", target="banda", distance=4), LEGIONE)
    table(g.Combat(unit="banda"), LEGIONE, DEVASTATORS_WIN)
    table(g.Morale(unit="banda"), PREDONI, [1, 1])
    refusal = table.refused(
        g.Assault(unit="squadra_tattica", target="motopredoni", distance=4),
        LEGIONE,
        "error.w40k4.step_closed",
    )
    assert refusal.localized("en") == (
        'Not now: the step "Muovete le unità in assalto" is over; now: "Risolvete i combattimenti".'
    )
    assert "assault" not in verbs_of(legal_actions(table.state))


def test_a_carried_over_combat_closes_the_assault_moves_in_the_opponents_turn() -> None:
    """Lines 18-22 and 91: units still locked fight in the next assault phase, the
    opponent's; once they have, its assault moves are over."""
    state = g.new_game(load_bundled("avamposto"))
    state.active, state.phase = PREDONI, g.Phase.ASSAULT
    state.units["banda"].locked_with = ["devastatori"]
    state.units["devastatori"].locked_with = ["banda"]
    table = Table(state)
    # The devastators' 5 blows and the band's 58 all miss: a draw, both stay locked.
    applied = table(g.Combat(unit="banda"), PREDONI, [1] * 63)
    assert applied.resolutions[-1].outcome.key == "w40k4.combat.draw"
    table.refused(
        g.Assault(unit="motopredoni", target="squadra_tattica", distance=5),
        PREDONI,
        "error.w40k4.step_closed",
    )


def test_the_defenders_react_once_every_assault_move_is_made(table: Table) -> None:
    """Lines 20-22: the assault moves (1), then the defenders' reaction (2), then the
    combats (3): the reaction is announced as the first combat closes the moves."""
    moves = _two_assaults(table)
    assert [m.notices for m in moves] == [[], []]
    applied = table(g.Combat(unit="banda"), LEGIONE, DEVASTATORS_WIN)
    assert [(n.key, dict(n.params)["target"]) for n in applied.notices] == [
        ("w40k4.assault.react", "Motopredoni"),
        ("w40k4.assault.react", "Banda di predoni"),
    ]
    table(g.Morale(unit="banda"), PREDONI, [1, 1])
    # Four bikes' worth of blows: all of them miss on both sides; nobody reacts again.
    applied = table(g.Combat(unit="motopredoni"), LEGIONE, [1] * 21 + [1] * 6)
    assert applied.notices == []


def test_an_assault_move_takes_the_dangerous_terrain_test() -> None:
    """Lines 42-46, 56: bikes test in difficult terrain; infantry is slowed and tests only
    in terrain defined as dangerous — an assault move as a move."""
    state = g.new_game(load_bundled("avamposto"))
    state.active, state.phase = PREDONI, g.Phase.ASSAULT
    table = Table(state)
    bikes = table(
        g.Assault(unit="motopredoni", target="squadra_tattica", distance=4, terrain="difficult"),
        PREDONI,
        [2, 2, 2],
    )
    assert [r.procedure for r in bikes.resolutions] == ["assault_move", "dangerous_terrain"]
    assert bikes.resolutions[1].outcome.code == "w40k4.dangerous.passed"
    # Infantry through dangerous terrain: the 2D6 slowed roll, then one die per model.
    band = table(
        g.Assault(unit="banda", target="devastatori", distance=4, terrain="dangerous"),
        PREDONI,
        [5, 3] + [1] + [2] * 19,
    )
    assert [r.procedure for r in band.resolutions] == ["assault_move", "dangerous_terrain"]
    assert band.resolutions[1].outcome.code == "w40k4.dangerous.failed_models(n=1)"
    assert table.unit("banda").models == 19


@pytest.mark.parametrize(("a", "b", "shown"), [(3, 0, "3 > 0"), (0, 3, "0 < 3"), (2, 2, "2 <= 2")])
def test_the_combat_result_prints_a_true_comparison(a: int, b: int, shown: str) -> None:
    """Line 88: the side that suffered fewer wounds wins; the line compares them truly."""
    procedure = PROCEDURES["combat_result"]
    data = procedure.parse_input({"side_a": "A", "side_b": "B", "suffered_a": a, "suffered_b": b})
    resolution = procedure.resolve(data, ScriptedDice([]))
    assert shown in describe(resolution, "en").steps[0]


@pytest.mark.parametrize(("faces", "shown"), [([4, 5], "5 < 6"), ([6, 1], "7 > 2")])
def test_the_escape_test_prints_a_true_comparison(faces: list[int], shown: str) -> None:
    """Line 90: the escape test; ``4 > 5`` was printed for a unit caught."""
    procedure = PROCEDURES["escape"]
    data = procedure.parse_input({"initiative": 1, "winners_initiative": 1})
    resolution = procedure.resolve(data, ScriptedDice(faces))
    step = resolution.steps[0]
    assert step.threshold is not None and step.total is not None
    assert step.threshold.passed(step.total)
    assert shown in describe(resolution, "en").steps[0]


def test_the_position_follows_the_declared_steps(table: Table) -> None:
    """The declaration's steps, in the game: assault moves until the first combat."""
    assert steps.position(table.state).step == "assault_moves"
    table(g.Assault(unit="devastatori", target="banda", distance=4), LEGIONE)
    table(g.Combat(unit="banda"), LEGIONE, DEVASTATORS_WIN)
    position = steps.position(table.state)
    assert (position.phase, position.step) == ("assault", "combats")
    assert [o.kind for o in position.owing] == ["combat_morale"]
