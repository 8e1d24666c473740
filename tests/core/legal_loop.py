"""A small pure loop that plays random legal actions (until tests/fuzz checks every ruleset).

It drives a ruleset through its three calls alone (:mod:`rules.core.surface`: ``setup``,
``view``, ``act``) and checks the contract of :mod:`rules.core.legal` at the play level:
every listed action is accepted for its side, some seat always has an action until the game
ends, and owed actions block the others; and what the seat views derive: each seat's legal
actions are the referee's for that side, every follow-up button is a legal action of its
side, and no view for one side shows a unit hidden from it.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.seatview import REFEREE, SPECTATOR, Seat, SeatView
from rules.core.surface import Rules

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
    rules: Rules,
    scenario: str,
    seed: int,
    *,
    max_commands: int = 3000,
    pass_weight: float = 0.1,
    check_views_every: int = 7,
) -> GameLog:
    """Play one game of random legal actions to its end; fail on any breach of the contract.

    Every ``check_views_every`` commands, each seat's view is checked too
    (:func:`check_seat_views`)."""
    rng = random.Random(seed)
    dice = SeededDice(rng)
    document = rules.setup(scenario)
    log = GameLog()
    for _ in range(max_commands):
        view = rules.view(document, REFEREE)
        if view.status.ended:
            break
        actions = view.legal
        assert actions, f"dead end (seed {seed}): nothing listed in {view.status}"
        if log.commands % check_views_every == 0:
            check_seat_views(rules, document, view)
        owed = [a for a in actions if a.owed]
        if owed:
            # A side that owes something may not pass (the pass may itself be owed: a roll for
            # the initiative); in linea_gotica the other side still may.
            owing = {a.side for a in owed}
            passes = [
                a for a in actions if a.verb == "turn.next" and not a.owed and a.side in owing
            ]
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
            played = rules.act(document, Seat.of(choice.side), choice.verb, options, dice)
        except RulesError as error:
            raise AssertionError(
                f"listed action refused (seed {seed}, command {log.commands}): "
                f"{choice.verb} {options} for {choice.side}: {error.key} {error.params}"
            ) from None
        document = played.document
        log.commands += 1
        log.verbs[choice.verb] = log.verbs.get(choice.verb, 0) + 1
    status = rules.view(document, SPECTATOR).status
    log.turns = status.turn
    log.ended = status.ended
    assert log.ended, f"seed {seed}: not ended after {log.commands} commands (turn {status.turn})"
    return log


def _same(action: LegalAction, verb: str, options: dict[str, str], side: str | None) -> bool:
    """Whether a button is this legal action (its free options given any allowed value)."""
    if action.verb != verb or (side is not None and action.side != side):
        return False
    free = {spec.name: spec for spec in action.free}
    for name, value in options.items():
        if name in action.options:
            if str(action.options[name]) != value:
                return False
        elif name not in free or (free[name].choices and value not in free[name].choices):
            return False
    return all(name in options for name in action.options)


def check_seat_views(rules: Rules, document: dict[str, Any], whole: SeatView) -> None:
    """What the core derives for each seat agrees with the referee's view of the state."""
    every = whole.legal
    status = whole.status
    for button in whole.follow_ups:
        assert any(_same(a, button.verb, dict(button.options), button.side) for a in every), (
            f"a button with no legal action behind it: {button}"
        )
    if whole.owed and whole.awaiting is not None:
        assert any(a.side == whole.awaiting for a in every), "the side to move has no action"
    hidden = {u.id: u.side for u in status.units if u.hidden}
    spectator = rules.view(document, SPECTATOR)
    assert spectator.legal == []
    assert not any(u.hidden for u in spectator.status.units), "a hidden unit shown to all"
    for side in status.sides:
        seat = rules.view(document, Seat(side))
        assert seat.legal == [a for a in every if a.side == side]
        assert seat.awaiting == whole.awaiting
        secret = {uid for uid, owner in hidden.items() if owner != side}
        shown = {u.id for u in seat.status.units}
        assert not shown & secret, f"{side} sees hidden units {shown & secret}"
        for kind in ("unit", "target"):
            named = set(seat.names(kind))
            assert not named & secret, f"{side} is offered hidden {kind}s {named & secret}"
        picture = seat.map()
        if picture is not None:
            drawn = {c.unit_id for c in picture.counters}
            assert not drawn & secret, f"{side}'s map draws hidden units {drawn & secret}"


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
    play: Rules,
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
        view = play.view(document, REFEREE).status
        if view.ended or view.turn >= until_turn:
            return given
        actions = play.view(document, REFEREE).every_legal
        owed_now = [a for a in actions if a.owed]
        if not owed_now and not pass_turns:
            return given
        choice = owed_now[0] if owed_now else next(a for a in actions if a.verb == "turn.next")
        assert choice.side is not None, f"{choice} is for the referee only"
        await table(players[choice.side], choice.verb, **fill(choice, rng))
        given.append(choice.verb)
    raise AssertionError(f"turn {until_turn} not reached: {given[-10:]}")
