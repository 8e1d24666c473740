"""Whole campaigns by random legal campaign actions: the campaign fuzzer.

One store and one service per run (a SQLite file, or a PostgreSQL database). A referee
creates a campaign of one ruleset (random points per win, draw and loss, a random
language) in a channel of its own; players join its sides; the referee links games in
other channels (several at once, and one after another in a channel); each linked game is
played by the whole-game fuzzer (tests/fuzz/harness.py: random legal actions, probes that
must change nothing) to its end, or ended early by the referee's ``/game end``, a seat's
concession or the referee's decision; now and then the referee undoes a game's end (the
campaign must reverse its result with a logged event; refused once the campaign has built
on it: an aftermath rolled, its losses settled since) and play goes on, or rewinds the
reopened game to the event that ended it (the result enters again, with the new head);
someone starts a game of their own (``/game new``) where a linked game has ended (the linked
game is archived, nothing of the new one reaches the campaign); the last command accepted
arrives again with its interaction id (a retry: answered as a duplicate, nothing changes);
between games (tests/fuzz/campaign_between.py) each ended game's aftermath is rolled (the
bot's dice, or every die typed by a player: logged as typed, each in its band) and confirmed
(each side's player, or the referee for all) before the next game may be linked, the referee
adjusts roster entries, rosters are shown and set from roster files the fuzzer writes, the
campaign is exported, days pass on the fuzzer's clock (``calendar.today`` is swapped for it
during a run) and the referee decides games past their date (``/campaign overdue``: extend,
forfeit, draw); campaigns start from one of the ruleset's books half the time, games are
linked with a date and now and then leave a unit behind (``leave:``); bad commands are
mixed in (each must be refused with the key expected and change nothing anywhere: every
channel's version and head, the campaign's state); ``/campaign status`` and ``log`` are
read; at last the referee ends the campaign and a few commands after its end must be refused.

After every step (:meth:`CampaignFuzzer.check`):

* the campaign's stored state equals :func:`rules.campaign.state.replay` of its log, read back
  from the store;
* each result is entered once: no two ``campaign.result`` events for one game's final hash,
  and a ``campaign.reversal`` for each result that no longer holds (results and reversals
  of a game alternate, each reversal naming the result before it);
* every linked game the campaign lists agrees with its game: while the game is in its
  channel, an ended game's result is held with the game's log head as its ``final_hash``
  and its winner and scores, a game in play has none; an archived game's result is the one
  held when it was archived, with its archive's head;
* the standings (:func:`rules.campaign.state.standings`) equal this module's own recount of
  the results the fuzzer saw the games end with (:func:`recount`);
* rosters (:func:`roster_problems`, folding the log event by event): no entry's strength
  rises except by an event in :data:`RAISES_STRENGTH` and by no more than it allows (an
  aftermath: the dice whose face falls in a band that returns, by the rules file, and the
  replacements the rules give the side; a result's reversal: that result's losses; an
  adjustment: its entry), none is ever above its ``full``, a ``dead`` entry never returns
  but by an aftermath unwound; the rosters equal the replay (the first point);
* each ``campaign.game`` carries the hash of the rosters as the log stood when it was
  linked (:func:`link_problems`), and the game's first event carries the same (checked as
  it is linked, with a unit left behind not fielded).

At the end: the store's audit (``arbitro db check``) is clean and every archived game's
export verifies to its head.

Everything comes from ``random.Random`` instances seeded by the run's seed (the service's
dice too: an injected `SeededDice`), and commands run one at a time, so a failure is
reproduced by its seed, ruleset and sizes (``bench/fuzz.py --campaign --seed N --runs 1``).

**Adding a campaign action** (rosters, the post-battle sequence, export, deadlines…): one
row of :data:`ACTIONS`, ``CampaignAction(name, ready, run, weight)``:

* ``ready(fuzzer) -> bool``: whether the action may be taken now, read from the fuzzer's
  model (``fuzzer.state`` is the campaign's state as last read, ``fuzzer.lanes`` the games
  in play or ended in their channels, ``fuzzer.players`` who plays which side);
* ``run(fuzzer) -> Awaitable[None]``: send the command(s) with :meth:`CampaignFuzzer.send`
  (accepted ones) or :meth:`CampaignFuzzer.expect_refused`, check what the reply promises,
  and record in the model what the invariants need (a result the fuzzer expects to hold);
  call :meth:`CampaignFuzzer.fail` on anything wrong;
* the invariants run after it; an event kind that may raise a roster entry's strength
  (a replacement, a recovery) is added to :data:`RAISES_STRENGTH`, one that may bring a
  dead entry back (none should) to :data:`REVIVES`.

A command that must be refused is a row of :data:`BAD_COMMANDS`:
``BadCommand(name, ready, make)`` where ``make(fuzzer)`` gives the channel, user, verb,
options and the catalogue key of the refusal expected.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.service import Reply, Request
from bot.service.campaign import CAMPAIGN_ARG, calendar
from bot.service.campaign.audit import campaign_problems
from bot.service.stored.campaign import (
    CAMPAIGN_LINK,
    LINK_KEY,
    CampaignLink,
    campaign_link_of,
)
from db.chain.hashing import canonical_json, verify_export
from db.errors import ChainBroken
from db.models import Scope
from db.open import open_store
from db.protocol import GameStore
from rules.campaign.book import book_files
from rules.campaign.events import CampaignEvent, event_of
from rules.campaign.state import CampaignState, replay
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.fuzz import campaign_between as between
from tests.fuzz.campaign_between import PLAYERS, REFEREE
from tests.fuzz.campaign_checks import (
    SeenResult,
    held_twice,
    link_problems,
    log_problems,
    roster_problems,
    standings_problems,
)
from tests.fuzz.campaign_refusals import BAD_COMMANDS, BadCommand, unconfirmed
from tests.fuzz.harness import (
    GUILD,
    Fuzzer,
    GameRun,
    Table,
    describe,
)
from tests.fuzz.notices import CampaignNoticeCheck

CAMPAIGN_CHANNEL = 7000
MAX_TURNS = 50
TRAIL_KEPT = 400
#: Commands tried after the campaign's end (each must be refused) before the run stops.
AFTER_END = 5
#: Commands that log nothing (a retry of one is simply answered again); ``/campaign
#: roster`` too when it only shows a roster.
READ_ONLY = frozenset({"campaign.status", "campaign.log", "campaign.export"})
#: Share of a seat's commands whose dice it types by hand.
HAND_DICE = 0.15
#: The fuzzer's first day (the calendar reads the fuzzer's clock during a run).
FIRST_DAY = dt.date(2026, 11, 26)
#: Share of campaigns started from one of the ruleset's books (``/campaign new book:``).
FROM_A_BOOK = 0.5
#: Share of linked games given a date (``by:``, a few days ahead).
DATED = 0.8
#: The ways a game is ended early, taken in turn.
EARLY_ENDS = ("end", "concede", "decide")


@dataclass(frozen=True)
class CampaignSizes:
    """How much a campaign run plays."""

    #: Games the campaign links before it ends.
    games: int = 3
    #: Channels its games are played in (several at once, one after another in each).
    channels: int = 2
    #: Share of games played on to the scenario's end (the others end early).
    full_games: float = 0.25
    #: An early end comes after this many game commands, at random.
    early_end: tuple[int, int] = (4, 60)
    #: A game played on to its end stops here at the latest (then ended early).
    max_commands: int = 1_500
    #: The chance that the referee undoes an ended game's end (its result reversed).
    undo_end: float = 0.3
    #: A run fails when its campaign has not ended after this many steps.
    max_steps: int = 2_000

    def describe(self) -> str:
        """``3 games in 2 channels``."""
        return f"{self.games} games in {self.channels} channels"


@dataclass
class CampaignRun:
    """What one campaign run did."""

    seed: int
    ruleset: str
    sizes: CampaignSizes
    backend: str = "sqlite"
    steps: int = 0
    game_commands: int = 0
    results: int = 0
    reversals: int = 0
    checks: int = 0
    #: Actions taken, and bad commands refused, by name.
    actions: Counter[str] = field(default_factory=Counter)
    ended: bool = False
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    trail: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """One line of figures."""
        done = ", ".join(f"{name} {n}" for name, n in sorted(self.actions.items()))
        return (
            f"campaign seed {self.seed} {self.ruleset} ({self.sizes.describe()}, "
            f"{self.backend}): {self.steps} steps, {self.game_commands} game commands, "
            f"{self.results} results, {self.reversals} reversals, {self.checks} checks; "
            f"{done}; {'ended' if self.ended else 'NOT ended'}, "
            f"{len(self.failures)} failures, {self.seconds:.1f} s"
        )


@dataclass
class Lane:
    """A linked game in its channel: played by the whole-game fuzzer."""

    number: int
    channel: int
    scenario: str
    fuzzer: Fuzzer
    budget: int
    #: The game has ended (by its rules, a concession, a decision or the referee's end).
    over: bool = False
    #: The event that gave the game its result, before the referee undid its end (a
    #: ``/game rewind`` to it ends the game again).
    result_seq: int | None = None


@dataclass(frozen=True)
class CampaignAction:
    """A row of the table: an action, when it may be taken, how, how often."""

    name: str
    ready: Callable[[CampaignFuzzer], bool]
    run: Callable[[CampaignFuzzer], Awaitable[None]]
    weight: float = 1.0


class CampaignFuzzer:
    """One campaign, played by random legal actions from :data:`ACTIONS`, checked after
    every step."""

    def __init__(self, table: Table, ruleset: str, rng: random.Random, run: CampaignRun) -> None:
        self.table = table
        self.store: GameStore = table.store
        self.ruleset = ruleset
        self.rules = get_ruleset(ruleset).rules
        assert self.rules is not None, ruleset
        self.rng = rng
        self.run = run
        self.channel = CAMPAIGN_CHANNEL
        self.game_channels = [CAMPAIGN_CHANNEL + 1 + n for n in range(run.sizes.channels)]
        self.state: CampaignState | None = None
        #: user -> side id, as the fuzzer joined them.
        self.players: dict[int, str] = {}
        #: channel -> the linked game there (in play, or ended and not yet replaced).
        self.lanes: dict[int, Lane] = {}
        #: game number -> the result it must hold (None: none must).
        self.expected: dict[int, SeenResult | None] = {}
        #: game number -> (channel, whether another game replaced it there).
        self.where: dict[int, tuple[int, bool]] = {}
        #: game number -> the roster entries it fields, by side, read from its document.
        self.fielded: dict[int, dict[str, set[str]]] = {}
        self.ends = 0
        self.after_end = 0
        #: The last command accepted, as sent (a retry sends it again).
        self.last_sent: Request | None = None
        #: channel -> whether the game there, one no campaign links, has ended.
        self.strangers: dict[int, bool] = {}
        #: The date on the fuzzer's clock (days pass by an action).
        self.today = FIRST_DAY
        #: Overdue decisions taken (their kinds taken in turn, from one the seed picks).
        self.overdues = run.seed
        #: The notices' check: every player asks for direct messages as they join.
        self.notices = CampaignNoticeCheck(self.store, GUILD)

    # -- the loop -------------------------------------------------------------------------

    async def play_campaign(self) -> None:
        """Create the campaign, then random ready actions until it has ended."""
        await self.create()
        await self.check()
        while not self.failed and self.after_end < AFTER_END:
            if self.run.steps >= self.run.sizes.max_steps:
                self.fail(f"the campaign has not ended after {self.run.steps} steps")
                return
            ready = [a for a in ACTIONS if a.ready(self)]
            if not ready:
                self.fail("no campaign action is ready")
                return
            action = self.rng.choices(ready, weights=[a.weight for a in ready])[0]
            self.run.steps += 1
            self.run.actions[action.name] += 1
            await action.run(self)
            if not self.failed:
                await self.check()
            if len(self.run.trail) > 2 * TRAIL_KEPT:
                del self.run.trail[:-TRAIL_KEPT]
        if not self.failed:
            await self.final_audit()
        self.run.actions.update({f"notice: {k}": n for k, n in self.notices.judged.items() if n})

    async def game_ended(self, lane: Lane) -> None:
        """A linked game has ended (by an action of another module)."""
        await _game_ended(self, lane)

    @property
    def failed(self) -> bool:
        return bool(self.run.failures)

    def fail(self, message: str) -> None:
        """Record a failure with the commands that led to it."""
        tail = "\n    ".join(self.run.trail[-16:])
        self.run.failures.append(
            f"campaign seed {self.run.seed} {self.ruleset} ({self.run.sizes.describe()}, "
            f"{self.run.backend}): {message}\n  after:\n    {tail}"
        )

    def note(self, line: str) -> None:
        self.run.trail.append(line)

    # -- sending --------------------------------------------------------------------------

    async def send(
        self,
        channel: int,
        user: int,
        verb: str,
        options: Mapping[str, Any],
        dice: str | None = None,
        *,
        attachment: str | None = None,
    ) -> Reply | None:
        """A command that must be accepted (with ``dice`` typed, a file attached): its reply
        (None, and a failure, if refused)."""
        typed = f" dice:{dice}" if dice else ""
        attached = f" file:<{len(attachment)} characters>" if attachment is not None else ""
        self.note(f"#{channel} " + describe(f"u{user}", verb, options) + typed + attached)
        try:
            reply = await self.table.send(
                channel, user, verb, options, dice=dice, attachment=attachment
            )
        except RulesError as error:
            self.fail(f"/{verb} {dict(options)} refused: {error.key}: {error.localized('en')}")
            return None
        if verb in READ_ONLY or (verb == "campaign.roster" and attachment is None):
            return reply  # answered again, not logged: nothing to retry
        # What Discord would send again if the answer were late: the same interaction.
        self.last_sent = Request(
            channel_id=channel,
            guild_id=GUILD,
            user_id=user,
            verb=verb,
            options=dict(options),
            dice=dice,
            attachment=attachment,
            interaction_id=f"fuzz-{self.table.label}-{self.table.sent}",
            user_name=f"u{user}",
        )
        return reply

    async def expect_refused(
        self, channel: int, user: int, verb: str, options: Mapping[str, Any], key: str
    ) -> None:
        """A command that must be refused with ``key`` and change nothing anywhere
        (``@dice`` and ``@file`` in ``options``: the dice typed and the file attached)."""
        options = dict(options)
        dice, attachment = options.pop("@dice", None), options.pop("@file", None)
        typed = f" dice:{dice}" if dice else ""
        line = f"#{channel} " + describe(f"u{user}", verb, options) + typed + f"  (expected: {key})"
        self.note(line)
        before = await self._fingerprint()
        try:
            await self.table.send(channel, user, verb, options, dice=dice, attachment=attachment)
        except RulesError as error:
            if error.key != key:
                self.fail(f"{line}: refused with {error.key}: {error.localized('en')}")
            elif await self._fingerprint() != before:
                self.fail(f"a refused command changed the store: {line}")
            return
        self.fail(f"{line}: accepted")

    async def _fingerprint(self) -> list[tuple[int, int, str | None, str, str]]:
        """Every channel's version, head, status and document, and the archives."""
        found = []
        for game in await self.store.all_games():
            record = await self.store.load(game.channel_id)
            found.append(
                (
                    record.channel_id,
                    record.version,
                    record.head_hash,
                    record.status,
                    canonical_json(record.document),
                )
            )
        found.append((0, len(await self.store.all_archives()), None, "", ""))
        return found

    # -- the campaign's beginning ---------------------------------------------------------

    async def create(self) -> None:
        """The referee's ``/campaign new`` with random points and language."""
        points = {
            "win": self.rng.randint(1, 5),
            "draw": self.rng.randint(-1, 2),
            "loss": self.rng.randint(-2, 0),
        }
        options = {
            "ruleset": self.ruleset,
            "name": f"Fuzz {self.run.seed}",
            "language": self.rng.choice(("it", "en", "fr")),
            **points,
        }
        books = sorted(book_files(self.ruleset))
        if books and self.rng.random() < FROM_A_BOOK:
            options["book"] = self.rng.choice(books)
            self.run.actions["a campaign from a book"] += 1
        reply = await self.send(self.channel, REFEREE, "campaign.new", options)
        if reply is None:
            return
        self.state = await self.read_state()
        if self.state.points.model_dump() != points:
            self.fail(f"points {self.state.points} for {points}")

    async def read_state(self) -> CampaignState:
        return CampaignState.from_json((await self.store.load(self.channel)).document)

    @property
    def sides(self) -> dict[str, str]:
        assert self.state is not None
        return self.state.sides

    @property
    def ended(self) -> bool:
        return self.state is not None and self.state.ended

    def in_play(self) -> list[Lane]:
        return [lane for lane in self.lanes.values() if not lane.over]

    def seat_of(self, side: str) -> int | None:
        """The first player who joined ``side``."""
        return next((u for u, s in self.players.items() if s == side), None)

    # -- the invariants -------------------------------------------------------------------

    async def campaign_events(self) -> list[CampaignEvent]:
        record = await self.store.load(self.channel)
        stored = await self.store.events(self.channel, after_seq=0, limit=record.version + 1)
        if len(stored) != record.version:
            self.fail(f"the campaign's log has {len(stored)} events, its version {record.version}")
        return [event_of(e.args[CAMPAIGN_ARG]) for e in stored]

    async def check(self) -> None:
        """Every invariant, on what the store holds now."""
        self.run.checks += 1
        record = await self.store.load(self.channel)
        events = await self.campaign_events()
        replayed = replay(events)
        if replayed.to_json() != record.document:
            self.fail("the campaign's state is not the replay of its log")
            return
        self.state = replayed
        for problem in (
            *log_problems(events),
            *roster_problems(events),
            *link_problems(events),
            *held_twice(replayed, self.fielded),
            *await self._games_problems(replayed),
            *standings_problems(replayed, self.expected),
            *[f"notices: {fault}" for fault in await self.notices.after(replayed, self.players)],
        ):
            self.fail(problem)
            return

    async def _games_problems(self, state: CampaignState) -> list[str]:
        """Each linked game's result in the campaign against its game (or what the fuzzer
        saw of it before it was archived)."""
        problems: list[str] = []
        if [entry.number for entry in state.games] != sorted(self.where):
            return [f"the campaign links games {[e.number for e in state.games]}"]
        for channel in self.strangers:
            found = await self.store.feature_get(CAMPAIGN_LINK, Scope.of_game(channel), LINK_KEY)
            if found is not None:
                problems.append(f"channel {channel}'s unlinked game is linked: {found.value}")
        for entry in state.games:
            channel, replaced = self.where[entry.number]
            held = entry.result
            if entry.channel != channel:
                problems.append(f"game {entry.number} linked in {entry.channel}, not {channel}")
                continue
            if not replaced:
                found = await self.store.feature_get(
                    CAMPAIGN_LINK, Scope.of_game(channel), LINK_KEY
                )
                link = None if found is None else campaign_link_of((found,))
                if link != CampaignLink(self.channel, entry.number):
                    problems.append(f"channel {channel}'s game links to {link}")
                    continue
                game = await self.store.load(channel)
                if game.status == "ended" and (held is None or held.final_hash != game.head_hash):
                    problems.append(
                        f"game {entry.number} ended at {str(game.head_hash)[:12]}, the campaign "
                        f"holds {held.final_hash[:12] if held else None}"
                    )
                if game.status != "ended" and held is not None:
                    problems.append(f"game {entry.number} in play, its result still held")
            seen = self.expected.get(entry.number)
            if (held is None) != (seen is None) or (
                held is not None
                and seen is not None
                and (
                    held.final_hash != seen.final_hash
                    or held.winner != seen.winner
                    or tuple(held.scores.items()) != seen.scores
                )
            ):
                problems.append(f"game {entry.number}: the campaign holds {held}, seen {seen}")
        return problems

    # -- the end --------------------------------------------------------------------------

    async def final_audit(self) -> None:
        """The store's audit, and every archive verified to its head."""
        # What ``db check`` runs: the store's audit and the campaigns' invariants.
        problems = await self.store.check() + await campaign_problems(self.store)
        if problems:
            self.fail(f"db check at the end: {problems[:5]}")
            return
        heads = set()
        for entry in await self.store.all_archives():
            try:
                head = verify_export(await self.store.archived_export(entry.id))
            except ChainBroken as error:
                self.fail(f"archive {entry.id}: {error}")
                return
            if head != entry.head_hash:
                self.fail(f"archive {entry.id}: its export's head is not its own")
                return
            heads.add(head)
        assert self.state is not None
        for entry in self.state.games:
            _, replaced = self.where[entry.number]
            if replaced and (entry.result is None or entry.result.final_hash not in heads):
                self.fail(f"game {entry.number}'s final hash is in no archive")
                return


# -- the actions ------------------------------------------------------------------------------


def _free_channels(fuzzer: CampaignFuzzer) -> list[int]:
    """Game channels with no game in play (empty, or holding an ended one)."""
    return [
        c
        for c in fuzzer.game_channels
        if (c not in fuzzer.lanes or fuzzer.lanes[c].over) and fuzzer.strangers.get(c, True)
    ]


def _can_join(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and any(user not in fuzzer.players for user in PLAYERS)


async def _join(fuzzer: CampaignFuzzer) -> None:
    """A player joins a side (one without players first), by its id or its name; no side
    is taken without consent: the referee invites them first."""
    user = fuzzer.rng.choice([u for u in PLAYERS if u not in fuzzer.players])
    empty = [side for side in fuzzer.sides if fuzzer.seat_of(side) is None]
    side = fuzzer.rng.choice(empty or list(fuzzer.sides))
    typed = side if fuzzer.rng.random() < 0.5 else fuzzer.sides[side].upper()
    invite = {"user": user, "side": side}
    if await fuzzer.send(fuzzer.channel, REFEREE, "campaign.invite", invite) is None:
        return
    if await fuzzer.send(fuzzer.channel, user, "campaign.join", {"side": typed}) is not None:
        fuzzer.players[user] = side
        await fuzzer.table.send(fuzzer.channel, user, "notify.set", {"kind": "all", "via": "dm"})


def _can_link(fuzzer: CampaignFuzzer) -> bool:
    return (
        not fuzzer.ended
        and len(fuzzer.where) < fuzzer.run.sizes.games
        and all(fuzzer.seat_of(side) is not None for side in fuzzer.sides)
        and bool(_free_channels(fuzzer))
        and fuzzer.state is not None
        and not between.owes(fuzzer.state)
        # While other games hold the units a new one would need, the referee waits for them.
        and (
            not any(between.holding(fuzzer).values())
            or bool(between.fielding_scenarios(fuzzer, len(fuzzer.where) + 1))
        )
    )


async def _link(fuzzer: CampaignFuzzer) -> None:
    """The referee's ``/campaign game`` in a free channel (an ended game there is archived);
    the whole-game fuzzer is to play it with the campaign's seated players."""
    rng, sizes = fuzzer.rng, fuzzer.run.sizes
    channel = rng.choice(_free_channels(fuzzer))
    assert fuzzer.rules is not None
    number = len(fuzzer.where) + 1
    fielding = between.fielding_scenarios(fuzzer, number)
    scenario = rng.choice(fielding or fuzzer.rules.scenarios())
    options: dict[str, Any] = {"scenario": scenario, "channel": channel}
    if not fielding:  # every scenario leaves a side nothing to field: refused
        await fuzzer.expect_refused(
            fuzzer.channel, REFEREE, "campaign.game", options, "error.campaign.side_empty"
        )
        return
    if rng.random() < DATED:
        options["by"] = (fuzzer.today + dt.timedelta(days=rng.randint(0, 5))).isoformat()
    left = between.leavable(fuzzer, scenario, number)
    if left is not None:
        options["leave"] = left
        fuzzer.run.actions["link leaving a unit"] += 1
    holding = between.holding(fuzzer)
    reply = await fuzzer.send(fuzzer.channel, REFEREE, "campaign.game", options)
    if reply is None:
        return
    await between.check_mustered(fuzzer, channel, number, left, holding)
    previous = fuzzer.lanes.get(channel)
    if previous is not None:
        fuzzer.where[previous.number] = (channel, True)
    fuzzer.where[number] = (channel, False)
    fuzzer.strangers.pop(channel, None)
    fuzzer.expected[number] = None
    game = GameRun(
        fuzzer.ruleset,
        scenario,
        fuzzer.run.seed,
        failures=fuzzer.run.failures,
        trail=fuzzer.run.trail,
        context=f"campaign seed {fuzzer.run.seed} ({fuzzer.run.backend}), game {number}",
    )
    player = Fuzzer.at_table(
        fuzzer.table, channel, fuzzer.ruleset, scenario, rng, game, referee=REFEREE
    )
    player.prefix = f"#{channel} g{number} "
    player.players = {side: user for side in fuzzer.sides if (user := fuzzer.seat_of(side))}
    player.hand_dice = HAND_DICE  # rolls typed by hand (checked after the end: refused)
    full = rng.random() < sizes.full_games
    budget = sizes.max_commands if full else rng.randint(*sizes.early_end)
    fuzzer.lanes[channel] = Lane(number, channel, scenario, player, budget)
    # Every player of the campaign is seated at their side, the referee referees.
    members = await fuzzer.store.members(channel)
    seated = {(m.user_id, m.side) for m in members if m.role == "player"}
    referees = [m.user_id for m in members if m.role == "referee"]
    if seated != set(fuzzer.players.items()) or referees != [REFEREE]:
        fuzzer.fail(f"game {number}'s members are {members}, the campaign's {fuzzer.players}")


def _can_play(fuzzer: CampaignFuzzer) -> bool:
    return bool(fuzzer.in_play())


async def _play(fuzzer: CampaignFuzzer) -> None:
    """A few commands of a game in play, by the whole-game fuzzer; the game ended early
    once its budget of commands is spent."""
    lane = fuzzer.rng.choice(fuzzer.in_play())
    player = lane.fuzzer
    going = True
    for _ in range(fuzzer.rng.randint(1, 25)):
        before = player.run.commands
        going = await player.step(max_turns=MAX_TURNS, max_commands=lane.budget)
        fuzzer.run.game_commands += player.run.commands - before
        if fuzzer.failed or not going:
            break
    if fuzzer.failed:
        return
    if (await fuzzer.store.load(lane.channel)).status == "ended":
        fuzzer.run.actions["ended by the rules"] += 1
        await _game_ended(fuzzer, lane)
    elif not going:
        await _end_early(fuzzer, lane)


async def _end_game(fuzzer: CampaignFuzzer) -> None:
    """A game in play ended at once: the referee's end, a concession or a decision."""
    await _end_early(fuzzer, fuzzer.rng.choice(fuzzer.in_play()))


async def _end_early(fuzzer: CampaignFuzzer, lane: Lane) -> None:
    how = EARLY_ENDS[fuzzer.ends % len(EARLY_ENDS)]
    fuzzer.ends += 1
    fuzzer.run.actions[f"ended by {how}"] += 1
    if how == "end":
        if await fuzzer.send(lane.channel, REFEREE, "game.end", {}) is None:
            return
    else:
        await lane.fuzzer.end_early(how)
    if not fuzzer.failed:
        await _game_ended(fuzzer, lane)


async def _game_ended(fuzzer: CampaignFuzzer, lane: Lane) -> None:
    """A linked game has ended: its log replays, it has one result, and that result (its
    final hash, winner and scores) is what the campaign must hold."""
    lane.over = True
    await lane.fuzzer.check_replay()
    await lane.fuzzer.check_result()
    if fuzzer.failed:
        return
    record = await fuzzer.store.load(lane.channel)
    assert fuzzer.rules is not None
    result = fuzzer.rules.view(
        fuzzer.rules.document_format.upgrade(record.document), REFEREE_SEAT
    ).result
    if record.status != "ended" or result is None or record.head_hash is None:
        fuzzer.fail(f"game {lane.number} ended as {record.status} with result {result}")
        return
    fuzzer.expected[lane.number] = SeenResult(
        record.head_hash, result.winner, tuple(result.score.totals)
    )
    fuzzer.run.results += 1


def _undoable(fuzzer: CampaignFuzzer) -> list[Lane]:
    """Ended games whose result an undone end reverses (nothing was built on it)."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    return [
        lane
        for lane in fuzzer.lanes.values()
        if lane.over and between.reopenable(state, lane.number)
    ]


def _can_undo_end(fuzzer: CampaignFuzzer) -> bool:
    return bool(_undoable(fuzzer))


async def _undo_end(fuzzer: CampaignFuzzer) -> None:
    """The referee undoes an ended game's end: the game is in play again and the campaign
    reverses its result (a logged event, announced in the game's channel)."""
    lane = fuzzer.rng.choice(_undoable(fuzzer))
    ended_at = (await fuzzer.store.load(lane.channel)).version
    reply = await fuzzer.send(lane.channel, REFEREE, "game.undo", {})
    if reply is None:
        return
    lane.result_seq = ended_at - 1  # the store's end follows the result's event
    if (await fuzzer.store.load(lane.channel)).status == "ended":
        fuzzer.fail(f"/game undo of game {lane.number}'s end left it ended")
        return
    if "bot.campaign.reversed" not in [notice.key for notice in reply.notices]:
        fuzzer.fail(f"/game undo of game {lane.number}'s end: no reversal announced")
    lane.over = False
    fuzzer.expected[lane.number] = None
    fuzzer.run.reversals += 1
    player = lane.fuzzer
    player.run.ended, player.run.ended_by = False, ""
    lane.budget = player.run.commands + fuzzer.rng.randint(*fuzzer.run.sizes.early_end)


def _can_rewind_to_end(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and any(lane.result_seq for lane in fuzzer.in_play())


async def _rewind_to_end(fuzzer: CampaignFuzzer) -> None:
    """The referee rewinds a reopened game to the event that had ended it: the game ends
    again (a new head), and the campaign enters its result anew."""
    lane = fuzzer.rng.choice([lane for lane in fuzzer.in_play() if lane.result_seq])
    options = {"seq": lane.result_seq}
    lane.result_seq = None
    if await fuzzer.send(lane.channel, REFEREE, "game.rewind", options) is None:
        return
    if (await fuzzer.store.load(lane.channel)).status != "ended":
        fuzzer.fail(f"/game rewind to game {lane.number}'s result left it in play")
        return
    await _game_ended(fuzzer, lane)


async def _retry(fuzzer: CampaignFuzzer) -> None:
    """The last command accepted arrives again with its interaction id (a retry): it is
    answered as a duplicate and changes nothing anywhere."""
    request = fuzzer.last_sent
    assert request is not None
    fuzzer.last_sent = None
    fuzzer.note(f"#{request.channel_id} " + describe("retry", request.verb, request.options))
    before = await fuzzer._fingerprint()
    try:
        reply = await fuzzer.table.service.handle(request)
    except RulesError as error:
        fuzzer.fail(f"a retried /{request.verb} refused: {error.key}")
        return
    if not reply.duplicate:
        fuzzer.fail(f"a retried /{request.verb} not answered as a duplicate")
    elif await fuzzer._fingerprint() != before:
        fuzzer.fail(f"a retried /{request.verb} changed the store")


def _can_end(fuzzer: CampaignFuzzer) -> bool:
    return (
        not fuzzer.ended
        and len(fuzzer.where) == fuzzer.run.sizes.games
        and not fuzzer.in_play()
        and not unconfirmed(fuzzer)
        and not (fuzzer.state is not None and between.unsettled(fuzzer.state))
    )


async def _end_campaign(fuzzer: CampaignFuzzer) -> None:
    """The referee's ``/campaign end``: every game settled, the campaign is over."""
    if await fuzzer.send(fuzzer.channel, REFEREE, "campaign.end", {}) is not None:
        fuzzer.state = await fuzzer.read_state()
        fuzzer.run.ended = fuzzer.state.ended
        if not fuzzer.ended:
            fuzzer.fail("/campaign end accepted, the campaign not over")


def _ready_bad(fuzzer: CampaignFuzzer) -> list[BadCommand]:
    return [bad for bad in BAD_COMMANDS if bad.ready(fuzzer)]


async def _bad(fuzzer: CampaignFuzzer) -> None:
    """A command that must be refused with the key expected and change nothing."""
    bad = fuzzer.rng.choice(_ready_bad(fuzzer))
    fuzzer.run.actions[f"refused: {bad.name}"] += 1
    if fuzzer.ended:
        fuzzer.after_end += 1
    channel, user, verb, options, key = bad.make(fuzzer)
    await fuzzer.expect_refused(channel, user, verb, options, key)


#: The table of campaign actions: what the fuzzer may do, when, and how often.
ACTIONS: tuple[CampaignAction, ...] = (
    CampaignAction("join", _can_join, _join, 2.0),
    CampaignAction("link a game", _can_link, _link, 3.0),
    CampaignAction("play", _can_play, _play, 8.0),
    CampaignAction("end a game", _can_play, _end_game, 0.5),
    CampaignAction("undo a game's end", _can_undo_end, _undo_end, 3.0),
    CampaignAction("rewind to a game's end", _can_rewind_to_end, _rewind_to_end, 3.0),
    CampaignAction("retry", lambda f: f.last_sent is not None, _retry, 0.5),
    CampaignAction("view", lambda f: True, between.view, 0.8),
    CampaignAction("bad command", lambda f: bool(_ready_bad(f)), _bad, 1.5),
    CampaignAction("end the campaign", _can_end, _end_campaign, 1.0),
    CampaignAction("an unlinked game", between.can_start_unlinked, between.start_unlinked, 0.3),
    CampaignAction("an unlinked game ended", between.can_end_unlinked, between.end_unlinked, 0.5),
    CampaignAction("aftermath", between.can_roll, between.roll_aftermath, 3.0),
    CampaignAction("dispute an aftermath", between.can_dispute, between.dispute, 1.0),
    CampaignAction(
        "confirm by a player", between.can_confirm_as_player, between.confirm_as_player, 3.0
    ),
    CampaignAction(
        "confirm by the referee", between.can_confirm_as_referee, between.confirm_as_referee, 1.0
    ),
    CampaignAction("adjust", between.can_adjust, between.adjust, 0.6),
    CampaignAction("show a roster", lambda f: True, between.show_roster, 0.3),
    CampaignAction("set a roster from a file", between.can_set_roster, between.set_roster, 0.4),
    CampaignAction("export", lambda f: True, between.export, 0.2),
    CampaignAction("days pass", between.can_pass_time, between.pass_time, 1.5),
    CampaignAction("overdue", between.can_decide_overdue, between.decide_overdue, 4.0),
)


async def play_campaign(
    url: str,
    ruleset: str,
    seed: int,
    sizes: CampaignSizes = CampaignSizes(),
    *,
    backend: str = "sqlite",
) -> CampaignRun:
    """Play one whole campaign of ``ruleset`` on the (empty) store at ``url``, checking the
    invariants after every step and auditing the store at the end."""
    run = CampaignRun(seed, ruleset, sizes, backend)
    started = time.perf_counter()
    store = await open_store(url)
    try:
        table = Table(store, random.Random(f"campaign-dice-{seed}"), f"campaign{seed}")
        fuzzer = CampaignFuzzer(table, ruleset, random.Random(f"campaign-{ruleset}-{seed}"), run)
        # The calendar reads the date through calendar.today(): the run's clock is the
        # fuzzer's, which days pass on by an action.
        real_today = calendar.today
        calendar.today = lambda: fuzzer.today
        try:
            await fuzzer.play_campaign()
        except Exception as error:  # every crash is reported with its trail
            fuzzer.fail(f"crash: {type(error).__name__}: {error}")
        finally:
            calendar.today = real_today
    finally:
        await store.close()
        run.seconds = time.perf_counter() - started
    return run
