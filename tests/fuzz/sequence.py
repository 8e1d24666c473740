"""Game after game per channel, in one process: the whole-game fuzzer's sequence mode.

One store and one service per run (a SQLite file, or a PostgreSQL database), two or three
channels interleaved at random, each playing ``games`` games one after another. Each game is
a scenario drawn among every ruleset's bundled ones (a channel changes ruleset between
games), with a referee and seats drawn from a few users (who referees one game may play the
next); it is played to its end or ended early by the referee (``/game end``), and the next
``/game new`` archives it. Mixed into play at random, each checked against what it promises
(tests/fuzz/history.py tells it from the log; a refusal must be the one expected and change
nothing):

* ``/takeback`` by the seat that just acted (now and then by another, or too late);
* ``/game undo`` (the state before the event it undoes), ``/game rewind seq:N`` (the state
  event N left; now and then a seq out of range);
* commands with dice typed by hand (answered die by die), disputed or confirmed by the other
  seat, and ``/reroll`` of a recent roll (the new event replays);
* ``/roll`` free rolls by seated players (logged while the game is on, not after), now and
  then typed by hand and disputed (a re-roll of one is refused);
* around the end: ``/game new`` refused while the game is in play, history commands
  refused once it has ended, ``/game undo`` reopening it now and then; an early end by
  ``/game end``, a seat's confirmed ``/game concede`` or the referee's ``/game end result:``.

After each game the full audit: the store's ``check()`` (``arbitro db check``) finds
nothing, ``/game export`` verifies (``db.chain.hashing.verify_export``) up to the stored head,
the log replays through the rules to every stored state, and it has exactly one result
event, the final state's, whose replay gives the same result (tests/fuzz/history.py);
when the next game archives it, its archive verifies to that same head (through the store
and ``/game export archive:N``).
At the end of the run, ``check()`` again, each channel's last game replayed, and every
archive of the store.

Everything comes from ``random.Random`` instances seeded by the run's seed, and commands run
one at a time, so a failure is reproduced by its seed and sizes.
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.service import RESULT_ARG, Reply
from bot.service.replay import replay_game
from db.chain.hashing import canonical_json, verify_export
from db.errors import ChainBroken
from db.models import VERB_ENDED, VERB_UNDO, EventRecord
from db.open import open_store
from db.protocol import GameStore
from rules.core.errors import RulesError
from tests.fuzz import history
from tests.fuzz.harness import (
    CHANNEL,
    OUTSIDER,
    Fuzzer,
    GameRun,
    Table,
    bundled_games,
    describe,
)

#: Users who referee and play: who referees one game may sit at a side in the next.
USERS = tuple(range(1, 8))
#: Keep this many lines of a run's trail (a failure shows the last few).
TRAIL_KEPT = 400
MAX_TURNS = 50
# How often, at random:
#: a channel's step is a history command (undo, rewind, re-roll, roll, late take-back);
HISTORY = 0.08
#: the sender of a command accepted takes it back at once;
TAKEBACK = 0.12
#: a seat types its command's dice by hand (answering each die asked);
HAND_DICE = 0.12
#: dice typed by hand are then confirmed or disputed (mostly disputed);
CHECK_DICE = 0.7
DISPUTE = 0.75
#: a disputed roll is re-rolled by the referee at once.
REROLL_AT_ONCE = 0.6


@dataclass(frozen=True)
class Sizes:
    """How much a sequence run plays."""

    channels: int = 2
    #: Games played one after another in each channel.
    games: int = 3
    #: Share of games played to the scenario's end (the others are ended early).
    full_games: float = 0.4
    #: An early end comes after this many commands, at random.
    early_end: tuple[int, int] = (4, 120)
    #: A game played to its end stops here at the latest (the referee then ends it).
    max_commands: int = 1_500

    def describe(self) -> str:
        """``2 channels × 3 games``."""
        return f"{self.channels} channels × {self.games} games"


@dataclass
class SequenceRun:
    """What one sequence run did."""

    seed: int
    sizes: Sizes
    backend: str = "sqlite"
    games: int = 0
    ended_by_rules: int = 0
    ended_early: int = 0
    commands: int = 0
    probes: int = 0
    audits: int = 0
    archives_verified: int = 0
    seconds: float = 0.0
    #: Accepted and refused history commands, by kind ("rewind", "rewind refused"…).
    history: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    trail: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """One line of figures."""
        done = ", ".join(f"{kind} {count}" for kind, count in sorted(self.history.items()))
        return (
            f"seed {self.seed} ({self.backend}, {self.sizes.describe()}): {self.games} games "
            f"({self.ended_by_rules} to their end, {self.ended_early} ended early), "
            f"{self.commands} commands, "
            f"{self.probes} probes, {self.audits} audits, {self.archives_verified} archives; "
            f"{done}; {len(self.failures)} failures, {self.seconds:.1f} s"
        )


class ChannelSequence:
    """One channel's games, one after another, a step at a time."""

    def __init__(self, table: Table, channel: int, rng: random.Random, run: SequenceRun) -> None:
        self.table = table
        self.store: GameStore = table.store
        self.channel = channel
        self.rng = rng
        self.games = run.sizes.games
        self.run = run
        self.played = 0
        self.fuzzer: Fuzzer | None = None
        self.budget = 0
        self.over = False  # the current game is to be ended (or has been)
        self.counted = False  # the current game's end was counted
        #: (head hash, version) of the channel's ended game, audited, awaiting its archive.
        self.previous: tuple[str, int] | None = None
        self._acted_seq: int | None = None

    # -- the loop -------------------------------------------------------------------------

    async def step(self) -> bool:
        """One step of the channel: a command or a check; False once its games are done."""
        if self.fuzzer is None:
            if self.played == self.games:
                return False
            await self._new_game()
            return not self.failed
        if not self.over and (await self.store.load(self.channel)).status == "ended":
            # The last command (a re-roll, a rewind) ended the game: its end is written.
            self.over = True
            self.fuzzer.run.ended = True
        if self.over:
            await self._finish()
            return not self.failed
        if self.rng.random() < HISTORY:
            await self._history_command()
            return not self.failed
        fuzzer = self.fuzzer
        commands, probes = fuzzer.run.commands, fuzzer.run.probes
        going = await fuzzer.step(max_turns=MAX_TURNS, max_commands=self.budget)
        self.run.commands += fuzzer.run.commands - commands
        self.run.probes += fuzzer.run.probes - probes
        if self.failed:
            return False
        acted = fuzzer.last_act
        if acted is not None and acted.seq != self._acted_seq:
            self._acted_seq = acted.seq
            if self.rng.random() < TAKEBACK:
                await self._takeback(wrong_user=self.rng.random() < 0.2)
            elif acted.seq in fuzzer.hand_rolls and self.rng.random() < CHECK_DICE:
                await self._check_dice(acted.seq, acted.user)
        if not going:
            self.over = True
        return not self.failed

    @property
    def failed(self) -> bool:
        """Whether the run has a failure (every channel stops)."""
        return bool(self.run.failures)

    def _fail(self, message: str) -> None:
        if self.fuzzer is not None:  # its failures are the run's (the same list)
            self.fuzzer.run.fail(message)
        else:
            self.run.failures.append(f"channel {self.channel}: {message}")

    def _note(self, line: str) -> None:
        if self.fuzzer is not None:
            self.fuzzer.note(line)

    # -- a game's beginning and end -------------------------------------------------------

    async def _new_game(self) -> None:
        ruleset, scenario = self.rng.choice(bundled_games())
        self.played += 1
        self.run.games += 1
        referee, *seats = self.rng.sample(USERS, k=len(USERS))
        game = GameRun(
            ruleset,
            scenario,
            self.run.seed,
            failures=self.run.failures,
            trail=self.run.trail,
            context=(
                f"sequence seed {self.run.seed} ({self.run.sizes.describe()}, "
                f"{self.run.backend}), channel {self.channel} game {self.played}"
            ),
        )
        fuzzer = Fuzzer.at_table(
            self.table, self.channel, ruleset, scenario, self.rng, game, referee=referee
        )
        fuzzer.prefix = f"#{self.channel} g{self.played} "
        fuzzer.hand_dice = HAND_DICE
        self.fuzzer, self.over, self.counted, self._acted_seq = fuzzer, False, False, None
        sizes = self.run.sizes
        full = self.rng.random() < sizes.full_games
        self.budget = sizes.max_commands if full else self.rng.randint(*sizes.early_end)
        try:
            reply = await fuzzer.create(self.rng.choice(("it", "en", "fr")))
        except RulesError as error:
            self._fail(f"/game new refused: {error.localized('en')}")
            return
        await self._check_archived(reply)
        members = await self.store.members(self.channel)
        if [(m.user_id, m.role) for m in members] != [(referee, "referee")]:
            self._fail(f"a new game's members are {members}, not its referee alone")
            return
        await fuzzer.join(seats)

    async def _check_archived(self, reply: Reply) -> None:
        """``/game new`` archived the channel's previous game, as it was audited."""
        ids = [
            int(str(n.param("id"))) for n in reply.notices if n.key == "bot.games.archived_previous"
        ]
        if self.previous is None:
            if ids:
                self._fail(f"/game new archived {ids} in a channel without an ended game")
            return
        if len(ids) != 1:
            self._fail(f"/game new after an ended game archived {ids}")
            return
        head, version = self.previous
        self.previous = None
        data = await self.store.archived_export(ids[0])
        await self._verify(data, head, version, f"archive {ids[0]} (store)")
        asker = self.fuzzer.referee if self.fuzzer is not None else OUTSIDER
        reply = await self.table.send(self.channel, asker, "game.export", {"archive": ids[0]})
        await self._verify(
            exported_log(reply.files), head, version, f"/game export archive:{ids[0]}"
        )
        self.run.archives_verified += 1

    async def _verify(
        self, data: Mapping[str, Any], head: str | None, version: int, what: str
    ) -> None:
        try:
            verified = verify_export(data)
        except ChainBroken as error:
            self._fail(f"{what} does not verify: {error}")
            return
        game = data.get("game") or {}
        if (
            verified != head
            or game.get("version") != version
            or game.get("channel_id") != self.channel
        ):
            self._fail(
                f"{what}: head {verified[:12]} version {game.get('version')} of channel "
                f"{game.get('channel_id')}, the game ended at {str(head)[:12]} version {version}"
            )

    async def _finish(self) -> None:
        """End the game (refusing a new one first), probe the ended game, then audit it."""
        assert self.fuzzer is not None
        fuzzer = self.fuzzer
        record = await self.store.load(self.channel)
        if record.status != "ended":
            # A game in play keeps its channel: /game new is refused and changes nothing.
            await self._expect(
                self.rng.choice(USERS),
                "game.new",
                {"ruleset": fuzzer.ruleset, "scenario": fuzzer.scenario},
                history.GAME_EXISTS,
                "new game",
            )
            # Ended early: by the referee's plain /game end (the score as it stands), a
            # seat's concession or the referee's decision.
            # In turn, so that every run tries each of them.
            ends = EARLY_ENDS
            how = ends[sum(self.run.history[kind] for kind in ends) % len(ends)]
            if how == "end":
                await self._expect(fuzzer.referee, "game.end", {}, None, "end")
            else:
                await fuzzer.end_early(how)
                self.run.history[how] += 1
            if self.failed:
                return
        if not self.counted:  # a game reopened by an undo and ended again counts once
            self.counted = True
            if fuzzer.run.ended and not fuzzer.run.ended_by:
                self.run.ended_by_rules += 1
            else:
                self.run.ended_early += 1
        await self._after_the_end()
        if self.failed or (await self.store.load(self.channel)).status != "ended":
            return  # reopened by an undo: play goes on
        await self._audit()
        self.fuzzer = None

    async def _after_the_end(self) -> None:
        """Commands on the ended game: history refused, a free roll not logged, and now and
        then the referee's undo of the end (the game is back in play)."""
        assert self.fuzzer is not None
        fuzzer = self.fuzzer
        seated = self.rng.choice(list(fuzzer.players.values()))
        version = (await self.store.load(self.channel)).version
        for _ in range(self.rng.randint(0, 3)):
            kind = self.rng.choice(("takeback", "rewind", "reroll", "end", "roll"))
            if kind == "takeback":
                await self._expect(seated, "takeback", {}, history.GAME_ENDED, kind)
            elif kind == "rewind":
                await self._expect(
                    fuzzer.referee,
                    "game.rewind",
                    {"seq": self._seq(version)},
                    history.GAME_ENDED,
                    kind,
                )
            elif kind == "reroll":
                await self._expect(
                    fuzzer.referee,
                    "dice.reroll",
                    {"seq": self._seq(version)},
                    history.GAME_ENDED,
                    kind,
                )
            elif kind == "end":
                await self._expect(fuzzer.referee, "game.end", {}, history.GAME_ENDED, kind)
            else:
                await self._free_roll(seated, logged=False)
            if self.failed:
                return
        if self.rng.random() < 0.1:
            events = await self._events()
            if await self._undo(events) is not None:
                self.run.history["reopened"] += 1
                self.over = False
                fuzzer.run.ended, fuzzer.run.ended_by = False, ""
                self.budget = fuzzer.run.commands + self.rng.randint(*self.run.sizes.early_end)

    async def _audit(self) -> None:
        """``arbitro db check``, ``/game export`` verified to the head, and the replay."""
        assert self.fuzzer is not None
        problems = await self.store.check()
        if problems:
            self._fail("db check: " + "; ".join(problems[:5]))
            return
        record = await self.store.load(self.channel)
        seated = self.rng.choice(list(self.fuzzer.players.values()))
        try:
            reply = await self.table.send(self.channel, seated, "game.export", {})
        except RulesError as error:
            self._fail(f"/game export refused: {error.localized('en')}")
            return
        await self._verify(
            exported_log(reply.files), record.head_hash, record.version, "/game export"
        )
        if self.failed:
            return
        await self.fuzzer.check_replay()
        if self.failed:
            return
        await self.fuzzer.check_result()
        if self.failed:
            return
        self.previous = (str(record.head_hash), record.version)
        self.run.audits += 1

    # -- history commands -----------------------------------------------------------------

    async def _history_command(self) -> None:
        """One history command at random, on the game in play."""
        assert self.fuzzer is not None
        kind = self.rng.choices(
            ("undo", "rewind", "reroll", "roll", "takeback"), weights=(3, 3, 2, 3, 1)
        )[0]
        if kind == "undo":
            await self._undo(await self._events())
        elif kind == "rewind":
            await self._rewind((await self.store.load(self.channel)).version)
        elif kind == "reroll":
            await self._reroll(await self._events())
        elif kind == "roll":
            await self._free_roll(self.rng.choice(list(self.fuzzer.players.values())), logged=True)
        else:  # a take-back by a seat that probably did not just act
            await self._takeback(wrong_user=True)

    async def _takeback(self, *, wrong_user: bool) -> None:
        """``/takeback`` by the seat that just acted (or by anyone at the table)."""
        assert self.fuzzer is not None
        acted = self.fuzzer.last_act
        users = [*self.fuzzer.players.values(), self.fuzzer.referee]
        user = self.rng.choice(users) if wrong_user or acted is None else acted.user
        latest = await self._latest()
        expected = history.takeback_refusal(latest, user, self.fuzzer.play.verbs())
        if (await self.store.load(self.channel)).status == "ended":
            expected = history.GAME_ENDED  # the command just taken back ended the game
        reply = await self._expect(user, "takeback", {}, expected, "takeback")
        if reply is not None:
            await self._check_undone(latest.seq, latest.seq, "takeback")

    async def _undo(self, events: list[EventRecord]) -> Reply | None:
        """The referee's ``/game undo``: the state before the event it undoes."""
        assert self.fuzzer is not None
        targets = history.undo_targets(events)
        expected = None if targets else history.NOTHING_TO_UNDO
        reply = await self._expect(self.fuzzer.referee, "game.undo", {}, expected, "undo")
        if reply is not None and targets:
            # Undoing the end of a game with a result undoes its result event as well.
            await self._check_undone(targets[-1], len(events) + len(targets) - 1, "undo")
        return reply

    async def _check_undone(self, target: int, version: int, what: str) -> None:
        """The latest event is an undo of ``target`` and the state is the one before it."""
        latest = await self._latest()
        if latest.seq != version + 1 or latest.verb != VERB_UNDO or latest.undoes_seq != target:
            self._fail(
                f"{what}: event {latest.seq} {latest.verb} undoes {latest.undoes_seq}, not {target}"
            )
            return
        before = await self.store.state_at(self.channel, target - 1)
        now = await self.store.load(self.channel)
        if now.status != before.status or _text(now.document) != _text(before.document):
            self._fail(f"{what} of event {target}: the state is not the one before it")

    async def _rewind(self, version: int) -> None:
        """The referee's ``/game rewind seq:N`` to a recent event (now and then out of range)."""
        assert self.fuzzer is not None
        seq = (
            self._seq(version)
            if self.rng.random() < 0.85
            else self.rng.choice((0, version, version + 3))
        )
        expected = history.rewind_refusal(version, seq)
        status = (await self.store.load(self.channel)).status
        reply = await self._expect(
            self.fuzzer.referee, "game.rewind", {"seq": seq}, expected, "rewind"
        )
        if reply is None:
            return
        latest, ended = await self._history_event(version + 1)
        if ended:
            status = "ended"  # back to a state whose game had ended: it ends again
        if (
            latest.seq != version + 1
            or latest.verb != history.VERB_REWIND
            or latest.args.get("seq") != seq
        ):
            self._fail(
                f"rewind to {seq}: the latest event is {latest.seq} {latest.verb} {latest.args}"
            )
            return
        earlier = await self.store.state_at(self.channel, seq)
        now = await self.store.load(self.channel)
        if now.status != status or _text(now.document) != _text(earlier.document):
            self._fail(f"rewind to {seq}: the state is not the one event {seq} left")

    def _seq(self, version: int) -> int:
        """A recent event of the log (the last 40)."""
        return self.rng.randint(max(1, version - 40), max(1, version - 1))

    async def _reroll(self, events: list[EventRecord], seq: int | None = None) -> None:
        """The referee's ``/reroll`` of ``seq``, else of a roll typed by hand or a recent
        event; accepted exactly when the log says so, and the log then replays it."""
        assert self.fuzzer is not None
        if seq is None:
            rolls = [n for n in self.fuzzer.hand_rolls if n <= len(events)]
            recent = self.rng.random() < 0.2 or not rolls
            seq = self._seq(len(events)) if recent else self.rng.choice(rolls)
        expected = history.reroll_refusal(events, seq, self.fuzzer.play.verbs())
        reply = await self._expect(
            self.fuzzer.referee, "dice.reroll", {"seq": seq}, expected, "reroll"
        )
        if reply is None:
            return
        latest, _ = await self._history_event(len(events) + 1)
        if (
            latest.seq != len(events) + 1
            or latest.verb != history.VERB_REROLL
            or latest.args.get("seq") != seq
            or not latest.dice
        ):
            self._fail(
                f"reroll of {seq}: the latest event is {latest.seq} {latest.verb} {latest.args}"
            )
            return
        await self.fuzzer.check_replay()  # the re-roll replays from the dice it recorded

    async def _check_dice(self, seq: int, roller: int) -> None:
        """The other seat disputes (or confirms) dice typed by hand; the roller may not."""
        assert self.fuzzer is not None
        others = [u for u in self.fuzzer.players.values() if u != roller] or [self.fuzzer.referee]
        verb = "dice.dispute" if self.rng.random() < DISPUTE else "dice.confirm"
        if self.rng.random() < 0.15 and roller != self.fuzzer.referee:
            await self._expect(roller, verb, {"seq": seq}, history.OWN_DICE, verb)
            return
        document = _text((await self.store.load(self.channel)).document)
        reply = await self._expect(self.rng.choice(others), verb, {"seq": seq}, None, verb)
        if reply is None:
            return
        latest = await self._latest()
        now = await self.store.load(self.channel)
        if latest.verb != verb or latest.args.get("seq") != seq or _text(now.document) != document:
            self._fail(f"{verb} of {seq}: the latest event is {latest.verb} {latest.args}")
        if verb == "dice.dispute" and self.rng.random() < REROLL_AT_ONCE:
            await self._reroll(await self._events(), seq)  # the referee settles it at once

    async def _free_roll(self, user: int, *, logged: bool) -> None:
        """A seated player's ``/roll``: its total is its dice; logged while the game is on."""
        count, sides = self.rng.randint(1, 4), self.rng.choice((4, 6, 8, 10, 12, 20, 100))
        modifier = self.rng.randint(-3, 5)
        expression = f"{count}d{sides}" + (f"{modifier:+d}" if modifier else "")
        typed = (
            [self.rng.randint(1, sides) for _ in range(count)] if self.rng.random() < 0.2 else None
        )
        before = await self.store.load(self.channel)
        options = {"expression": expression}
        self._note(describe(f"u{user}", "roll", options) + (f"  dice:{typed}" if typed else ""))
        try:
            reply = await self.table.send(
                self.channel,
                user,
                "roll",
                options,
                dice=",".join(map(str, typed)) if typed else None,
            )
        except RulesError as error:
            self._fail(f"/roll {expression} refused: {error.localized('en')}")
            return
        self.run.history["roll" if logged else "roll after the end"] += 1
        roll = reply.roll
        faces = [r.face for r in roll.rolls] if roll is not None else []
        if roll is None or len(faces) != count or roll.total != sum(faces) + modifier:
            self._fail(f"/roll {expression}: {roll}")
            return
        if typed is not None and faces != typed:
            self._fail(f"/roll {expression} dice:{typed} rolled {faces}")
            return
        now = await self.store.load(self.channel)
        if _text(now.document) != _text(before.document) or now.status != before.status:
            self._fail(f"/roll {expression} changed the game")
            return
        if not logged:
            if now.version != before.version:
                self._fail(f"/roll {expression} was logged in an ended game")
            return
        latest = await self._latest()
        recorded = [int(die["face"]) for die in latest.dice]
        if (
            now.version != before.version + 1
            or latest.verb != "roll"
            or latest.args.get("total") != roll.total
            or recorded != faces
        ):
            self._fail(f"/roll {expression}: logged as {latest.verb} {latest.args} {recorded}")
        elif typed is not None and self.rng.random() < CHECK_DICE:
            await self._check_dice(latest.seq, user)  # typed by hand: it may be disputed too

    # -- sending and reading --------------------------------------------------------------

    async def _expect(
        self, user: int, verb: str, options: Mapping[str, Any], refusal: str | None, kind: str
    ) -> Reply | None:
        """Send a command whose fate is known: accepted (``refusal`` None) or refused with
        that key, changing nothing. Returns the reply of an accepted one."""
        before = await self.store.load(self.channel)
        line = describe(f"u{user}", verb, options) + f"  (expected: {refusal or 'accepted'})"
        self._note(line)
        try:
            reply = await self.table.send(self.channel, user, verb, options)
        except RulesError as error:
            self.run.history[f"{kind} refused"] += 1
            if error.key != refusal:
                self._fail(f"{line}: refused with {error.key}: {error.localized('en')}")
                return None
            after = await self.store.load(self.channel)
            if after.version != before.version or _text(after.document) != _text(before.document):
                self._fail(f"a refused command changed the state: {line}")
            return None
        self.run.history[kind] += 1
        if refusal is not None:
            self._fail(f"{line}: accepted")
            return None
        self.run.commands += 1
        return reply

    async def _events(self) -> list[EventRecord]:
        """The game's whole log, in order."""
        events: list[EventRecord] = []
        while True:
            page = await self.store.events(self.channel, after_seq=len(events), limit=200)
            events += page
            if len(page) < 200:
                return events

    async def _history_event(self, seq: int) -> tuple[EventRecord, bool]:
        """The event of a history command expected at ``seq``, and whether it ended the
        game (then the store's end follows it and it carries the result)."""
        latest = await self._latest()
        if latest.seq == seq + 1 and latest.verb == VERB_ENDED:
            event = (await self.store.events(self.channel, after_seq=seq - 1, limit=1))[0]
            if RESULT_ARG not in event.args:
                self._fail(f"event {seq} {event.verb} ended the game without its result")
            return event, True
        return latest, False

    async def _latest(self) -> EventRecord:
        version = (await self.store.load(self.channel)).version
        return (await self.store.events(self.channel, after_seq=version - 1, limit=1))[0]


#: The ways a game is ended early, taken in turn.
EARLY_ENDS = ("end", "concede", "decide")


def exported_log(files: Mapping[str, bytes]) -> dict[str, Any]:
    """The JSON log of an export's files (plain, gzip-compressed, or in numbered parts)."""
    names = sorted(name for name in files if name.startswith("arbitro-log"))
    if names == ["arbitro-log.json"]:
        return dict(json.loads(files[names[0]]))
    packed = b"".join(files[name] for name in names)
    return dict(json.loads(gzip.decompress(packed)))


def _text(document: Mapping[str, Any]) -> str:
    return canonical_json(document)


async def play_sequence(
    url: str, seed: int, sizes: Sizes = Sizes(), *, backend: str = "sqlite"
) -> SequenceRun:
    """Play ``sizes.games`` games in each of ``sizes.channels`` channels of the store at
    ``url`` (empty), in one process, interleaved at random; audit each game and, at the end,
    the whole store."""
    run = SequenceRun(seed, sizes, backend)
    started = time.perf_counter()
    rng = random.Random(seed)
    store = await open_store(url)
    try:
        table = Table(store, random.Random(f"dice-{seed}"), f"seq{seed}")
        lanes = [
            ChannelSequence(table, CHANNEL + index, random.Random(f"{seed}-{index}"), run)
            for index in range(sizes.channels)
        ]
        try:
            while lanes and not run.failures:
                lane = rng.choice(lanes)
                if not await lane.step():
                    lanes.remove(lane)
                if len(run.trail) > 2 * TRAIL_KEPT:
                    del run.trail[:-TRAIL_KEPT]
            if not run.failures:
                await _final_audit(store, run)
        except Exception as error:  # every crash is reported with its trail
            tail = "\n    ".join(run.trail[-16:])
            run.failures.append(
                f"sequence seed {seed} ({sizes.describe()}, {backend}): "
                f"crash: {type(error).__name__}: {error}\n  after:\n    {tail}"
            )
    finally:
        await store.close()
        run.seconds = time.perf_counter() - started
    return run


async def _final_audit(store: GameStore, run: SequenceRun) -> None:
    """The whole store once more: ``check()``, the replay of each channel's last game, and
    every archived game's export (one per game but the last of each channel)."""
    where = f"sequence seed {run.seed} ({run.sizes.describe()}, {run.backend})"
    problems = await store.check()
    if problems:
        run.failures.append(f"{where}: db check at the end: {problems[:5]}")
    for game in await store.all_games():
        report = await replay_game(store, game.channel_id)
        if not report.matches:
            run.failures.append(f"{where}: at the end, {report}")
    archives = await store.all_archives()
    if len(archives) != run.games - run.sizes.channels:
        run.failures.append(f"{where}: {len(archives)} archives after {run.games} games")
    for entry in archives:
        try:
            head = verify_export(await store.archived_export(entry.id))
        except ChainBroken as error:
            run.failures.append(f"{where}: archive {entry.id}: {error}")
            continue
        if head != entry.head_hash:
            run.failures.append(f"{where}: archive {entry.id}: its head is not its export's")


def sqlite_url(directory: Path, seed: int) -> str:
    """A fresh SQLite file for one run."""
    return str(directory / f"sequence-{seed}.db")
