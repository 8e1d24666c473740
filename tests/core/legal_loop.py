"""A small pure loop that plays random legal actions (until tests/fuzz checks every ruleset).

It checks the contract of :mod:`rules.core.legal` at the play level: every listed action is
accepted for its side, some seat always has an action until the game ends, and owed
actions block the others.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.core.play import GamePlay

# One seeded dice source and one option filler serve every random-play test.
from tests.fuzz.harness import SeededDice
from tests.fuzz.harness import fill_options as fill


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


class QueuedThenSeeded:
    """Faces a test queues, then faces from a seeded generator (for service scripts)."""

    def __init__(self, seed: int) -> None:
        self.faces: deque[int] = deque()
        self._rng = random.Random(seed)

    @property
    def by_hand(self) -> bool:
        """Never typed."""
        return False

    def push(self, *faces: int) -> None:
        """Queue faces for the next rolls."""
        self.faces.extend(faces)

    def face(self, die: Die, label: str) -> int:
        """The next queued face (checked against the die), else a seeded one."""
        if self.faces:
            value = self.faces.popleft()
            assert die.can_show(value), f"{die.name} cannot show {value} ({label})"
            return value
        return self._rng.randint(1, die.sides)


async def play_owed_then_pass(
    table: Any,
    store: Any,
    play: GamePlay,
    players: dict[str, int],
    until_turn: int,
    *,
    pass_turns: bool = True,
) -> list[str]:
    """Through the service, the players (never the referee) answer whatever is owed, by the
    side that owes it, and otherwise pass, until ``until_turn`` begins; returns the verbs.

    Without ``pass_turns`` it stops as soon as nothing is owed."""
    rng = random.Random(0)
    given: list[str] = []
    for _ in range(500):
        document = (await store.load(table.channel)).document
        view = play.status(document)
        if view.ended or view.turn >= until_turn:
            return given
        actions = play.legal_actions(document)
        owed_now = [a for a in actions if a.owed]
        if not owed_now and not pass_turns:
            return given
        choice = owed_now[0] if owed_now else next(a for a in actions if a.verb == "turn.next")
        assert choice.side is not None, f"{choice} is for the referee only"
        await table(players[choice.side], choice.verb, **fill(choice, rng))
        given.append(choice.verb)
    raise AssertionError(f"turn {until_turn} not reached: {given[-10:]}")
