"""The whole-game fuzzer: seats play random legal actions through the service to the end.

For a bundled scenario, a referee creates the game and one player joins each side; then,
until the scenario ends (or a turn cap), a seat gives a random action taken from the
ruleset's legal actions (its referee view's ``every_legal``), its free options filled at random,
with random dice, through :class:`bot.service.GameService` on a real SQLite file. Between
legal actions it sends random commands that are not listed (wrong seat, wrong unit, junk
options) and checks that a refusal changed nothing.

A run fails on: an exception that is not a refusal; a dead end (the game has not ended and
no seat has an action, or a follow-up button with no legal action behind it, or no progress
for too long); a listed action refused; a refused command that changed the stored state; an
event log that does not replay to the stored state.

Everything is drawn from one ``random.Random(seed)`` (never the global generator), so a
failure is reproduced by its seed.

A game is played at a :class:`Table` (one service on one store) in one channel, step by
step (:meth:`Fuzzer.step`): tests/fuzz/sequence.py seats several channels at one table and
plays game after game in each, interleaved, with history commands mixed in.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.service import ConfirmReply, GameService, Reply, Request, ResultReply
from bot.service.replay import replay_game
from bot.service.rolls import DicePrompt
from db.drivers.sqlite import SqliteStore
from db.protocol import GameStore
from rules.core.dice import Die
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.ruleset import get_ruleset
from rules.core.score import EndingKind
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import Seat
from rules.core.sequence import Tracked, transition_problem
from rules.core.surface import Rules
from tests.fuzz import history
from tests.fuzz.notices import NoticeCheck

REFEREE = 1
FIRST_PLAYER = 100
CHANNEL = 4242
GUILD = 9
#: Someone with no seat in any game.
OUTSIDER = 999
#: More dice asked for one command typed by hand than any command of the rulesets rolls.
MAX_TYPED_DICE = 400
#: Lines of the trail a failure shows.
TRAIL_SHOWN = 16
# Without progress for this many commands in one turn, the game is stuck.
MAX_COMMANDS_PER_TURN = 600
#: The chance, at each step, that the game ends there by a concession or the referee.
EARLY_END = 0.002
JUNK_VALUES: tuple[Any, ...] = ("", "nessuno", "x" * 40, -1, 0, 10**6, "1.5", "🎲", None)


class SeededDice:
    """Fair dice from a seeded ``random.Random`` instance (reproducible runs)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def face(self, die: Die, label: str) -> int:
        """A uniform face of ``die``."""
        return self._rng.randint(1, die.sides)

    @property
    def by_hand(self) -> bool:
        """Never typed by a player."""
        return False


@dataclass
class GameRun:
    """What one fuzzed game did."""

    ruleset: str
    scenario: str
    seed: int
    turns: int = 0
    commands: int = 0
    probes: int = 0
    probes_refused: int = 0
    ended: bool = False
    #: How it ended, when not by its rules: "concede" or "decide".
    ended_by: str = ""
    failures: list[str] = field(default_factory=list)
    trail: list[str] = field(default_factory=list)
    #: Where the game was played, to reproduce it (a sequence: its seed, channel and game).
    context: str = ""

    def fail(self, message: str) -> None:
        """Record a failure with the last commands that led to it."""
        tail = "\n    ".join(self.trail[-TRAIL_SHOWN:])
        where = self.context or f"seed {self.seed}"
        self.failures.append(
            f"{self.ruleset}/{self.scenario} {where}: {message}\n  after:\n    {tail}"
        )


def fill_options(action: LegalAction, rng: random.Random) -> dict[str, Any]:
    """The action's fixed options plus a random allowed value for each free option."""
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


def describe(seat: str, verb: str, options: Mapping[str, Any]) -> str:
    """One line of the trail: who sent what."""
    text = " ".join(f"{key}:{value}" for key, value in options.items())
    return f"[{seat}] /{verb} {text}".rstrip()


def _choose(actions: Sequence[LegalAction], rng: random.Random) -> LegalAction:
    """Owed actions first; otherwise advance the turn now and then, else act."""
    owed = [a for a in actions if a.owed]
    if owed and rng.random() < 0.9:
        return rng.choice(owed)
    advancing = [a for a in actions if a.verb.startswith("turn.")]
    acting = [a for a in actions if not a.verb.startswith("turn.")]
    if advancing and (not acting or rng.random() < 0.2):
        return rng.choice(advancing)
    return rng.choice(acting or list(actions))


class Table:
    """One service on one store: where a run's channels play, in one process.

    Interaction ids are unique across the store (a retried one gets its first answer), so
    every request of a run takes the next number after the table's label.
    """

    def __init__(self, store: GameStore, dice: random.Random, label: str) -> None:
        self.store = store
        self.service = GameService(store, dice=SeededDice(dice))
        self.label = label
        self.sent = 0

    async def send(
        self,
        channel: int,
        user: int,
        verb: str,
        options: Mapping[str, Any],
        *,
        dice: str | None = None,
        attachment: str | None = None,
    ) -> Reply:
        """Run one command as ``user`` in ``channel`` (a refusal raises `RulesError`)."""
        self.sent += 1
        return await self.service.handle(
            Request(
                channel_id=channel,
                guild_id=GUILD,
                user_id=user,
                verb=verb,
                options=dict(options),
                dice=dice,
                attachment=attachment,
                interaction_id=f"fuzz-{self.label}-{self.sent}",
                user_name=f"u{user}",
            )
        )


@dataclass(frozen=True)
class Acted:
    """The last command a game's fuzzer had accepted: who sent it and what it became."""

    user: int
    seat: str
    seq: int
    version_before: int
    verb: str


class Fuzzer:
    """Plays one game of a bundled scenario in one channel of a table, step by step.

    Alone (:meth:`play_game`) it opens its own SQLite file; a sequence
    (tests/fuzz/sequence.py) makes it with :meth:`at_table` and drives :meth:`step`.
    """

    def __init__(self, ruleset: str, scenario: str, seed: int, db_path: Path | None = None) -> None:
        self.ruleset = ruleset
        self.scenario = scenario
        self.rng = random.Random(seed)
        self.db_path = db_path
        self.run = GameRun(ruleset, scenario, seed)
        self.rules: Rules = _play(ruleset)
        #: The ruleset's declared sequence of play, checked after each command (None: none).
        self.sequence: Tracked | None = get_ruleset(ruleset).sequence
        #: Whether the ruleset declares that it may hide units (`Ruleset.hides_units`): the
        #: service skips reading hidden units where it does not, so one never may be.
        self.hides_units = get_ruleset(ruleset).hides_units
        self.players: dict[str, int] = {}
        self.channel = CHANNEL
        self.referee = REFEREE
        #: Put before each line of the trail (a sequence names the channel and the game).
        self.prefix = ""
        #: Share of seat commands sent with dice typed by hand, ``?``: the service asks
        #: for each die and the seat answers (a sequence's re-rolls need such rolls).
        self.hand_dice = 0.0
        #: The chance at each step of an end by a concession or a decision (a sequence
        #: ends its games early itself).
        self.early_end = EARLY_END
        #: The last command accepted (for a take-back by its sender).
        self.last_act: Acted | None = None
        #: Events of commands whose dice a seat typed (for disputes and re-rolls).
        self.hand_rolls: list[int] = []
        self._last_turn = 0
        self._turn_started_at = 0
        #: The notices' check (a whole game's players ask for direct messages).
        self.notices: NoticeCheck | None = None

    @classmethod
    def at_table(
        cls,
        table: Table,
        channel: int,
        ruleset: str,
        scenario: str,
        rng: random.Random,
        run: GameRun,
        *,
        referee: int,
    ) -> Fuzzer:
        """A fuzzer for one game of a sequence: its table, channel, generator and referee."""
        fuzzer = cls(ruleset, scenario, run.seed)
        fuzzer.table, fuzzer.rng, fuzzer.run = table, rng, run
        fuzzer.channel, fuzzer.referee = channel, referee
        fuzzer.early_end = 0.0
        return fuzzer

    @property
    def store(self) -> GameStore:
        """The table's store."""
        return self.table.store

    async def _send(
        self, user: int, verb: str, options: Mapping[str, Any], *, dice: str | None = None
    ) -> Reply:
        return await self.table.send(self.channel, user, verb, options, dice=dice)

    def note(self, line: str) -> None:
        """Add a line to the trail."""
        self.run.trail.append(self.prefix + line)

    async def play_game(self, *, max_turns: int, max_commands: int) -> GameRun:
        """Play to the scenario's end, ``max_turns`` or ``max_commands``, checking as it goes,
        in a game of its own on its SQLite file."""
        assert self.db_path is not None, "a fuzzer at a table is driven by its sequence"
        store = await SqliteStore.open(self.db_path)
        self.table = Table(store, self.rng, str(self.run.seed))
        try:
            await self._setup()
            while await self.step(max_turns=max_turns, max_commands=max_commands):
                pass
            if not self.run.failures:
                await self.check_replay()
            if not self.run.failures:
                await self.check_result()
        except Exception as error:  # the fuzzer reports every crash with its trail
            self.run.fail(f"crash: {type(error).__name__}: {error}")
        finally:
            await store.close()
        return self.run

    async def _setup(self) -> None:
        language = self.rng.choice(("it", "en", "fr"))
        await self.create(language)
        await self.join(itertools.count(FIRST_PLAYER))
        self.notices = NoticeCheck(self.store, GUILD, self.rules)
        await self.notices.opt_in(self._send, list(self.players.values()))

    async def _check_notices(self, line: str, before: Mapping[str, Any] | None = None) -> None:
        """No notice queued twice, none for a side that owes nothing (tests/fuzz/notices)."""
        if self.notices is None:
            return
        owed = None if before is None else self.notices.owed_users(before, self.players)
        for fault in await self.notices.after(self.channel, self.players, owed):
            self.run.fail(f"notices: {fault}: {line}")

    async def create(self, language: str) -> Reply:
        """The referee's ``/game new`` of this fuzzer's scenario."""
        options = {"ruleset": self.ruleset, "scenario": self.scenario, "language": language}
        self.note(describe("referee", "game.new", options))
        return await self._send(self.referee, "game.new", options)

    async def join(self, users: Iterable[int]) -> None:
        """One of ``users`` joins each side, in order."""
        document = (await self.store.load(self.channel)).document
        for side, user in zip(self.rules.sides(document), users, strict=False):
            self.players[side] = user
            self.note(describe(f"u{user}", "game.join", {"side": side}))
            await self._send(user, "game.join", {"side": side})

    async def step(self, *, max_turns: int, max_commands: int) -> bool:
        """One listed action (perhaps after a probe); False once the game has ended, a cap
        is reached or a check failed."""
        if self.run.commands >= max_commands:
            return False
        await self._check_notices("after a probe")  # what an accepted probe queued
        record = await self.store.load(self.channel)
        status = self.rules.view(record.document, REFEREE_SEAT).status
        if status.turn != self._last_turn:
            self._last_turn, self._turn_started_at = status.turn, self.run.commands
        self.run.turns = status.turn
        if status.ended or record.status == "ended":
            self.run.ended = True
            return False
        if status.turn > max_turns:
            return False
        if self.run.commands - self._turn_started_at > MAX_COMMANDS_PER_TURN:
            self.run.fail(f"no progress: {MAX_COMMANDS_PER_TURN} commands in turn {status.turn}")
            return False
        actions = self.rules.view(record.document, REFEREE_SEAT).every_legal
        if not actions:
            self.run.fail(f"dead end: no seat has an action (turn {status.turn})")
            return False
        self._check_follow_ups(record.document, actions)
        if self.run.failures:
            return False
        if self.early_end and self.rng.random() < self.early_end:
            await self.end_early(self.rng.choice(("concede", "decide")))
            return False
        if self.rng.random() < 0.15:
            accepted = await self._probe(record.version, record.document, actions)
            if self.run.failures:
                return False
            if accepted:  # the state moved on: these actions may no longer be legal
                return True
        await self._act(self._pick(actions))
        return not self.run.failures

    def _pick(self, actions: Sequence[LegalAction]) -> LegalAction:
        return _choose(actions, self.rng)

    def _check_follow_ups(
        self, document: Mapping[str, Any], actions: Sequence[LegalAction]
    ) -> None:
        for follow in self.rules.view(document, REFEREE_SEAT).follow_ups:
            if not any(
                a.verb == follow.verb
                and all(
                    str(a.options.get(k, "")) == str(v)
                    for k, v in follow.options.items()
                    if k in a.options
                )
                for a in actions
            ):
                self.run.fail(
                    f"dead end: button {follow.verb} {dict(follow.options)} has no legal action"
                )
                return

    async def _act(self, action: LegalAction) -> None:
        options = fill_options(action, self.rng)
        if action.side is None or self.rng.random() < 0.1:
            user, seat = self.referee, "referee"
        else:
            user, seat = self.players[action.side], action.side
        by_hand = (
            self.hand_dice > 0 and action.verb != "odds" and self.rng.random() < self.hand_dice
        )
        line = describe(seat, action.verb, options) + ("  dice:?" if by_hand else "")
        self.note(line)
        before = await self.store.load(self.channel)
        typed: list[int] = []
        try:
            reply = await self._send(user, action.verb, options, dice="?" if by_hand else None)
            while reply.dice_prompt is not None:  # the seat rolls each die it is asked for
                answered = await self._answer_prompt(user, seat, reply.dice_prompt, typed)
                if answered is None:
                    return
                reply = answered
        except RulesError as error:
            self.run.fail(f"listed action refused: {line}: {error.localized('en')}")
            await self._unchanged(before.version, before.document, line)
            return
        self.run.commands += 1
        await self._check_notices(line, before.document)
        if reply.seq is None:  # a preview (odds): nothing was logged
            return
        self.last_act = Acted(user, seat, reply.seq, before.version, action.verb)
        await self._check_sequence(before.document, action.verb, line)
        await self._check_declared_hiding(line)
        if by_hand:
            await self._check_typed(reply.seq, typed, line)

    async def _check_sequence(self, before: Mapping[str, Any], verb: str, line: str) -> None:
        """The command kept the declared sequence: acted in its step, no step gone back, no
        phase skipped (rules.core.sequence.transition_problem)."""
        if self.sequence is None:
            return
        after = (await self.store.load(self.channel)).document
        if self.rules.view(after, REFEREE_SEAT).status.ended:
            return
        was, now = self.sequence.position(before), self.sequence.position(after)
        problem = transition_problem(self.sequence.declaration, was, now, verb)
        if problem is not None:
            self.run.fail(f"sequence of play: {problem}: {line}")

    async def _check_declared_hiding(self, line: str) -> None:
        """A ruleset that does not declare it hides units shows every seat every unit."""
        if self.hides_units:
            return
        document = (await self.store.load(self.channel)).document
        every = {u.id for u in self.rules.view(document, REFEREE_SEAT).status.units}
        for side in self.rules.sides(document):
            seen = {u.id for u in self.rules.view(document, Seat.of(side)).status.units}
            if seen != every:
                hidden = sorted(every - seen)
                self.run.fail(f"units hidden from {side} by an undeclared ruleset {hidden}: {line}")
                return

    async def _answer_prompt(
        self, user: int, seat: str, prompt: DicePrompt, typed: list[int]
    ) -> Reply | None:
        """Give the die a prompt asks for (a face of that die) as the roller; None (a
        failure) for a prompt that is not the one expected."""
        if prompt.user_id != user or list(prompt.faces) != typed:
            self.run.fail(f"dice prompt for u{prompt.user_id} after {prompt.faces}, typed {typed}")
            return None
        if len(typed) >= MAX_TYPED_DICE:
            self.run.fail(f"more than {MAX_TYPED_DICE} dice asked for one command")
            return None
        face = self.rng.randint(1, prompt.sides)
        typed.append(face)
        options = {"prompt": prompt.prompt_id, "n": prompt.position, "face": face}
        self.note(describe(seat, "dice.roll", options))
        return await self._send(user, "dice.roll", options)

    async def _check_typed(self, seq: int, typed: Sequence[int], line: str) -> None:
        """The command's event records the faces typed, in order, as typed by hand."""
        event = (await self.store.events(self.channel, after_seq=seq - 1, limit=1))[0]
        recorded = [int(roll["face"]) for roll in event.dice if roll.get("by_hand")]
        if event.seq != seq or not event.args.get("by_hand") or recorded != list(typed):
            self.run.fail(f"typed dice {list(typed)} logged as {recorded}: {line}")
        elif event.dice:
            self.hand_rolls.append(seq)

    async def _probe(
        self, version: int, document: Mapping[str, Any], actions: Sequence[LegalAction]
    ) -> bool:
        """A random command that is probably not legal: a refusal must change nothing.

        Returns whether it was accepted (the state changed)."""
        verbs = [v for v in self.rules.verbs() if v != "odds"]
        names = sorted(
            {k for a in actions for k in a.options} | {s.name for a in actions for s in a.free}
        )
        units = sorted({str(v) for a in actions for v in a.options.values()})
        verb = self.rng.choice([*verbs, "game.undo", "game.end", "game.deadline"])
        options: dict[str, Any] = {}
        for name in self.rng.sample(names, k=min(len(names), self.rng.randint(0, 4))):
            pool = [*units, *JUNK_VALUES] if units else list(JUNK_VALUES)
            options[name] = self.rng.choice(pool)
        options = {k: v for k, v in options.items() if v is not None}
        user = self.rng.choice([*self.players.values(), OUTSIDER])
        line = describe(f"probe u{user}", verb, options)
        self.run.probes += 1
        try:
            reply = await self._send(user, verb, options)
        except RulesError:
            self.run.probes_refused += 1
            await self._unchanged(version, document, line)
            return False
        # Accepted: it was legal after all (a player's legal move the listing also has).
        self.note(line + "  (probe accepted)")
        self.run.commands += 1
        if reply.seq is not None:
            side = next((s for s, u in self.players.items() if u == user), "?")
            self.last_act = Acted(user, side, reply.seq, version, verb)
        return True

    async def _unchanged(self, version: int, document: Mapping[str, Any], line: str) -> None:
        after = await self.store.load(self.channel)
        if after.version != version or _canonical(after.document) != _canonical(document):
            self.run.fail(f"a refused command changed the state: {line}")

    async def end_early(self, how: str) -> None:
        """End the game by a seat's concession (asked, now and then withdrawn once, then
        confirmed) or by the referee's decision, and check the result it gives."""
        document = (await self.store.load(self.channel)).document
        sides = list(self.rules.sides(document))
        try:
            if how == "concede":
                side = self.rng.choice(sides)
                user = self.players[side]
                self.note(describe(side, "game.concede", {}))
                asked = await self._send(user, "game.concede", {})
                if self.rng.random() < 0.3:
                    self.note(describe(side, "game.concede", {"cancel": True}))
                    await self._send(user, "game.concede", {"cancel": True})
                if not isinstance(asked, ConfirmReply) or asked.seq is not None:
                    self.run.fail(f"a concession not asked first: {asked}")
                    return
                self.note(describe(side, "game.concede", asked.confirm))
                reply = await self._send(user, "game.concede", dict(asked.confirm))
                expected = (EndingKind.CONCESSION, side)
            else:
                winner = self.rng.choice([*sides, "none"])
                options = {"result": winner, "reason": "fuzz"}
                if winner != "none":  # a draw has no level
                    options["level"] = self.rng.choice(("decisive", "marginal"))
                self.note(describe("referee", "game.decide", options))
                reply = await self._send(self.referee, "game.decide", options)
                expected = (EndingKind.DECISION, None)
        except RulesError as error:
            self.run.fail(f"/{how} refused: {error.localized('en')}")
            return
        if not isinstance(reply, ResultReply):
            self.run.fail(f"/{how} answered without a result: {reply}")
            return
        ending = reply.result.result.ending
        if ending.kind is not expected[0] or (expected[1] and ending.side != expected[1]):
            self.run.fail(f"/{how} ended as {ending}")
        self.run.commands += 1
        self.run.ended, self.run.ended_by = True, how

    async def check_result(self) -> None:
        """Exactly one result event for a game that has ended (none for one in play), the
        final state's result, and the log's replay gives the same result."""
        record = await self.store.load(self.channel)
        events = [event async for event in self._all_events()]
        final = self.rules.view(
            self.rules.document_format.upgrade(record.document), REFEREE_SEAT
        ).result
        problem = history.result_problem(events, record.status == "ended", final)
        if problem is not None:
            self.run.fail(problem)
            return
        report = await replay_game(self.store, self.channel)
        if report.final_result != final:
            self.run.fail(f"the replay ends with {report.final_result}, the game with {final}")

    async def _all_events(self) -> Any:
        after = 0
        while True:
            page = await self.store.events(self.channel, after_seq=after, limit=200)
            for event in page:
                yield event
            if len(page) < 200:
                return
            after = page[-1].seq

    async def check_replay(self) -> None:
        """The event log, replayed through the rules, gives every stored state."""
        report = await replay_game(self.store, self.channel)
        if not report.matches:
            self.run.fail(f"the event log does not replay to the stored state: {report}")


def _canonical(document: Mapping[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False)


def _play(ruleset: str) -> Rules:
    play = get_ruleset(ruleset).rules
    assert play is not None, ruleset
    return play


def bundled_games() -> list[tuple[str, str]]:
    """(ruleset, scenario) for every bundled scenario of every playable ruleset."""
    from rules.core.ruleset import all_rulesets

    return [
        (ruleset.key, scenario)
        for ruleset in all_rulesets()
        if ruleset.rules is not None
        for scenario in ruleset.rules.scenarios()
    ]


async def fuzz(
    ruleset: str,
    scenario: str,
    seed: int,
    directory: Path,
    *,
    max_turns: int = 50,
    max_commands: int = 5_000,
) -> GameRun:
    """Play one fuzzed game in a fresh SQLite file under ``directory``."""
    path = directory / f"fuzz-{ruleset}-{scenario}-{seed}.db"
    fuzzer = Fuzzer(ruleset, scenario, seed, path)
    return await fuzzer.play_game(max_turns=max_turns, max_commands=max_commands)
