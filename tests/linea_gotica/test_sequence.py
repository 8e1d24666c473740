"""The linea_gotica sequence of play as declared in rules/linea_gotica/sequence.yaml, played
on the test scenario and compared with the seed (docs/seeds/004_linea_gotica.txt) line by
line."""

from __future__ import annotations

import pytest

from rules.core.legal import verbs_of
from rules.core.sequence import transition_problem
from rules.linea_gotica import turn as g
from rules.linea_gotica.legal import legal_actions
from rules.linea_gotica.scenario import parse_scenario
from rules.linea_gotica.state import PendingMorale, Phase
from rules.linea_gotica.turn import steps
from tests.linea_gotica.test_game import SCENARIO, Game


@pytest.fixture()
def game() -> Game:
    return Game(g.new_game(parse_scenario(SCENARIO)))


def _walk(game: Game) -> list[tuple[str, str]]:
    """The referee's /turn next from the initiative to the next turn's initiative: every
    position the game passed through, each checked as the fuzzer does."""
    walked = [(steps.position(game.state).phase, steps.position(game.state).step)]
    while True:
        was = steps.position(game.state)
        if game.state.phase is Phase.INITIATIVE:
            game("turn.next", None, (9, 1))  # Blu wins
        elif game.state.phase is Phase.CHOICE:
            game("turn.next", None, order="first")
        else:
            game("turn.next", None)
        now = steps.position(game.state)
        assert transition_problem(steps.declaration(), was, now, "turn.next") is None
        walked.append((now.phase, now.step))
        if now.step == "dadi":
            return list(dict.fromkeys(walked))


def test_the_position_follows_the_declared_steps(game: Game) -> None:
    """Lines 82-86, 158 and 398: initiative and choice; covering fire, movement, observation;
    fire and actions class by class, Elite to Marmaglia; observation; the next turn."""
    assert _walk(game) == [
        ("iniziativa", "dadi"),
        ("iniziativa", "scelta"),
        ("movimento", "copertura"),
        ("movimento", "movimento"),
        ("movimento", "osservazione"),
        ("tiro", "elite"),
        ("tiro", "veterani"),
        ("tiro", "regolari"),
        ("tiro", "reclute"),
        ("tiro", "marmaglia"),
        ("tiro", "osservazione"),
    ]
    assert game.state.turn == 2


def test_a_class_with_nobody_to_act_is_passed_over(game: Game) -> None:
    """Line 158: the classes act from Elite down; without an Elite unit the fire phase opens
    at the Veterans, and the fuzzer's check accepts it."""
    game.state.units["osservatore"].figures[0].dead = True
    game.to_phase(Phase.OBSERVE_MOVE)
    was = steps.position(game.state)
    game("turn.next", None)
    assert steps.position(game.state).step == "veterani"
    assert (
        transition_problem(steps.declaration(), was, steps.position(game.state), "turn.next")
        is None
    )


def test_an_owed_morale_test_blocks_only_its_sides_turn_next(game: Game) -> None:
    """Line 86: "Le unità di livello inferiore potranno sparare/compiere azioni solo dopo aver
    subito le eventuali perdite": a class is not over before its morale tests; the side that
    owes one cannot end its class, the other may."""
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")  # the Elite class: the Reds have none
    assert steps.position(game.state).step == "veterani"
    game.state.done = []
    game.state.pending = [PendingMorale(unit="nemici", reasons=["soldato_ucciso"])]
    refused = game.refused("error.linea_gotica.morale_owed", "turn.next", "rossi")
    assert refused.localized("en") == "First the morale tests owed."
    actions = legal_actions(game.state)
    assert "turn.next" not in verbs_of([a for a in actions if a.side == "rossi"])
    assert "morale" in verbs_of([a for a in actions if a.side == "rossi"])
    game("turn.next", "blu")
    assert game.state.done == ["blu"]


def test_a_closed_step_refuses_naming_the_step_now_open(game: Game) -> None:
    """Lines 85-86: movement and fire end with the phase's observation; a move or a shot
    then is refused with the step now open (and the service adds what the seat may do)."""
    game.to_phase(Phase.OBSERVE_MOVE)
    refused = game.refused(
        "error.linea_gotica.step_closed", "move", "blu", unit="squadra", distance=5
    )
    assert refused.localized("en") == (
        'Not now: the step "I giocatori muovono le proprie unità" is over; now: '
        '"alla fine della fase tentano di osservare nemici nascosti".'
    )
    game.to_phase(Phase.OBSERVE_FIRE)
    game.refused(
        "error.linea_gotica.step_closed",
        "fire",
        "rossi",
        unit="nemici",
        target="squadra",
        distance=30,
    )
    assert verbs_of(legal_actions(game.state)) == ["turn.next"]


def test_help_says_when_each_verb_is_given() -> None:
    """/help reads the declaration: fire is given in covering fire, movement and every class."""
    places = steps.declaration().when("fire")
    assert places[0] == (
        "MOVIMENTO › Ambedue i giocatori indicano quali delle loro unità effettuano tiri di "
        "copertura (85, 150, 152, 154)"
    )
    assert "TIRO ed AZIONI › Elite (86, 158)" in places
    assert steps.declaration().when("morale") == [
        "Le unità di livello inferiore potranno sparare/compiere azioni solo dopo aver subito "
        "le eventuali perdite. (86, 158, 362, 371)"
    ]
