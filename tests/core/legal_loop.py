"""A small pure loop that plays random legal actions (until tests/fuzz checks every ruleset).

It checks the contract of :mod:`rules.core.legal` at the play level: every listed action is
accepted for its side, some seat always has an action until the game ends, and owed
actions block the others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.play import GamePlay


class SeededDice:
    """Dice from a seeded generator, so a failing game can be replayed."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def face(self, die: Die, label: str) -> int:
        """A face of ``die``."""
        return self._rng.randint(1, die.sides)

    @property
    def by_hand(self) -> bool:
        """Never typed."""
        return False


def fill(action: LegalAction, rng: random.Random) -> dict[str, Any]:
    """The action's fixed options plus a random allowed value of each free option."""
    options: dict[str, Any] = dict(action.options)
    for spec in action.free:
        if not spec.required and rng.random() < 0.3:
            continue
        if spec.choices:
            options[spec.name] = rng.choice(spec.choices)
        else:
            assert spec.low is not None and spec.high is not None
            options[spec.name] = rng.randint(spec.low, spec.high)
    return options


@dataclass
class GameLog:
    """What one random game did."""

    commands: int = 0
    turns: int = 0
    ended: bool = False
    verbs: dict[str, int] = field(default_factory=dict)


def play_random_game(
    play: GamePlay,
    scenario: str,
    seed: int,
    *,
    max_commands: int = 3000,
    pass_weight: float = 0.1,
) -> GameLog:
    """Play one game of random legal actions to its end; fail on any breach of the contract."""
    rng = random.Random(seed)
    dice = SeededDice(rng)
    document = play.new_game(scenario, None)
    log = GameLog()
    for _ in range(max_commands):
        if play.status(document).ended:
            break
        actions = play.legal_actions(document)
        assert actions, f"dead end (seed {seed}): nothing listed in {play.status(document)}"
        owed = [a for a in actions if a.owed]
        if owed:
            passes = [a for a in actions if a.verb == "turn.next"]
            assert not passes, f"turn.next listed while {owed[0]} is owed"
            others = [a for a in actions if not a.owed]
            choice = rng.choice(others if others and rng.random() < 0.3 else owed)
        else:
            passes = [a for a in actions if a.verb == "turn.next"]
            others = [a for a in actions if a.verb != "turn.next"]
            pick_pass = passes and (not others or rng.random() < pass_weight)
            choice = rng.choice(passes if pick_pass else others)
        options = fill(choice, rng)
        try:
            played = play.apply(document, choice.verb, options, dice, choice.side)
        except RulesError as error:
            raise AssertionError(
                f"listed action refused (seed {seed}, command {log.commands}): "
                f"{choice.verb} {options} for {choice.side}: {error.key} {error.params}"
            ) from None
        document = played.document
        log.commands += 1
        log.verbs[choice.verb] = log.verbs.get(choice.verb, 0) + 1
    view = play.status(document)
    log.turns = view.turn
    log.ended = view.ended
    assert log.ended, f"seed {seed}: not ended after {log.commands} commands (turn {view.turn})"
    return log
