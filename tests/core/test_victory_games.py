"""Every bundled scenario of every ruleset, played to its end by random legal actions at the
rules level (no bot): the game ends with exactly one result, the score recomputed from the
final state equals the result's breakdown, and replaying the same commands with the same
dice gives the same result."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from typing import Any

import pytest

from rules.core.dice import Die, ScriptedDice
from rules.core.play import DocumentRules
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.score import GameResult, compute_score
from rules.core.seatview import REFEREE, Seat
from tests.fuzz.harness import fill_options

RULESETS = KNOWN_RULESETS
MAX_COMMANDS = 3000


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    return play


CASES = [(ruleset, scenario) for ruleset in RULESETS for scenario in _play(ruleset).scenarios()]


@dataclass
class RecordingDice:
    """Fair seeded dice that remember every face they gave, for the replay."""

    rng: random.Random
    faces: list[int] = field(default_factory=list)

    def face(self, die: Die, label: str) -> int:
        value = self.rng.randint(1, die.sides)
        self.faces.append(value)
        return value

    @property
    def by_hand(self) -> bool:
        return False


@dataclass
class Game:
    document: dict[str, Any]
    commands: list[tuple[str, dict[str, Any], str | None, int]] = field(default_factory=list)
    faces: list[int] = field(default_factory=list)  # every face rolled, in order


def _random_game(play: DocumentRules, scenario: str, seed: int) -> Game:
    """A random legal game through the three calls (setup, view, act)."""
    rng = random.Random(seed)
    game = Game(play.setup(scenario))
    for _ in range(MAX_COMMANDS):
        view = play.view(game.document, REFEREE)
        if view.status.ended:
            return game
        assert view.result is None, "a result while the game goes on"
        actions = view.legal
        owed = [a for a in actions if a.owed]
        passes = [a for a in actions if a.verb == "turn.next"]
        others = [a for a in actions if a.verb != "turn.next" and not a.owed]
        if owed:
            choice = rng.choice(owed)
        elif others and (not passes or rng.random() > 0.15):
            choice = rng.choice(others)
        else:
            choice = rng.choice(passes)
        options = fill_options(choice, rng)
        dice = RecordingDice(random.Random(rng.random()))
        played = play.act(game.document, Seat.of(choice.side), choice.verb, options, dice)
        game.commands.append((choice.verb, options, choice.side, len(dice.faces)))
        game.faces += dice.faces
        game.document = played.document
    raise AssertionError(f"{scenario} (seed {seed}) did not end in {MAX_COMMANDS} commands")


def _replay(play: DocumentRules, scenario: str, game: Game) -> dict[str, Any]:
    faces = list(game.faces)
    document = play.setup(scenario)
    for verb, options, side, used in game.commands:
        dice = ScriptedDice(faces[:used])
        faces = faces[used:]
        document = play.act(document, Seat.of(side), verb, options, dice).document
        dice.ensure_consumed()
    return document


@pytest.mark.parametrize(("ruleset", "scenario"), CASES)
def test_every_bundled_scenario_ends_with_one_result_that_replays(ruleset: str, scenario: str):
    play = _play(ruleset)
    game = _random_game(play, scenario, seed=zlib.crc32(f"{ruleset}:{scenario}".encode()) % 1000)
    result = play.view(game.document, REFEREE).result
    assert isinstance(result, GameResult), f"{scenario}: ended without a result"
    assert result.winner is None or result.winner in play.sides(game.document)
    assert not result.score.empty, f"{scenario}: a bundled scenario scores something"
    # The breakdown is the score of the final state, recomputed here from scratch.
    state = play._load_state(game.document)
    recomputed = compute_score(
        state.victory.conditions, play.victory.battle(state), state.victory.held
    )
    assert recomputed == result.score
    assert play.view(game.document, REFEREE).score == result.score
    assert play.view(game.document, REFEREE).score == result.score  # the older interface agrees
    assert GameResult.from_json(result.to_json()) == result
    replayed = _replay(play, scenario, game)
    assert play.view(replayed, REFEREE).result == result
    assert replayed == game.document


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_game_saved_before_victory_conditions_loads_and_ends_in_a_draw(ruleset: str):
    play = _play(ruleset)
    scenario = play.scenarios()[0]
    document = play.setup(scenario)
    old = {key: value for key, value in document.items() if key != "victory"}
    old["format"] = play.document_format.version - 1
    loaded = play.canonical(old)
    assert loaded["victory"]["conditions"] is None
    assert play.view(loaded, REFEREE).score.empty and play.view(loaded, REFEREE).result is None
    state = play._load_state(loaded)
    state.turn = state.max_turns  # the last turn: ending it ends the game
    game = _random_game_from(play, play._document(state), seed=3)
    result = play.view(game, REFEREE).result
    assert result is not None and result.winner is None and result.score.empty


def _random_game_from(play: DocumentRules, document: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    for _ in range(MAX_COMMANDS):
        if play.view(document, REFEREE).status.ended:
            return document
        actions = play.view(document, REFEREE).every_legal
        owed = [a for a in actions if a.owed]
        choice = rng.choice(owed or actions)
        options = fill_options(choice, rng)
        document = play.act(
            document, Seat.of(choice.side), choice.verb, options, RecordingDice(rng)
        ).document
    raise AssertionError("did not end")
