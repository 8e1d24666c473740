"""Two bot processes racing a campaign's commands: the campaign fuzzer's concurrent driver.

Two services, each on its own store connection to one database (a SQLite file, or a
PostgreSQL schema), are what two bot processes sharing a database hold (a second shard, a
restart overlapping the old process). A referee creates a campaign, two players join it;
then, round after round, each process takes a random move of :data:`MOVES` — link a game
(half the time leaving some units behind, so that another can be linked beside it), end
one (the referee's decision, ``/game end``), undo a game's end, roll an aftermath, confirm
it, ``/campaign status`` (which catches up), ``/campaign end`` — and the two run at once
(``asyncio.gather``: each awaits its store, the other runs meanwhile). Either may be
refused (the race may take what it needed: a conflict, a game ended meanwhile); neither
may crash.

After every round, on what the store holds (:func:`race_problems`):

* the campaign's stored state is the replay of its log, its log holds the fuzzer's log
  invariants (each result entered once, reversals only of the result held, rosters that
  rise only by what may raise them, links carrying their rosters' hash:
  tests/fuzz/campaign_checks.py);
* ``arbitro db check`` is clean: the store's own check and the campaign's
  (:func:`bot.service.campaign.audit.campaign_problems`: every result held names its game's
  final event, no linked game unlisted, nothing owed once the campaign is over);
* after a ``/campaign status`` of its own (its catch-up), every linked game that has ended
  in its channel has its result held, with its head as final hash (unless the campaign is
  over), and a game in play holds none;
* no roster entry is on the field of two games that hold it at once (read from the games'
  documents: `campaign_checks.held_twice`).

The moves are chosen by a ``random.Random`` seeded by the run's seed, the dice too; the
interleaving is the event loop's, so a failure is reported with the moves of every round.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.service.campaign import CAMPAIGN_ARG
from bot.service.campaign.audit import campaign_problems
from bot.service.stored.campaign import CAMPAIGN_LINK, LINK_KEY, CampaignLink, campaign_link_of
from db.models import Scope
from db.open import open_store
from db.protocol import GameStore
from rules.campaign.events import event_of
from rules.campaign.state import CampaignState, replay
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from tests.fuzz.campaign_checks import held_twice, link_problems, log_problems, roster_problems
from tests.fuzz.harness import Table

CAMPAIGN = 7100
CHANNELS = (7101, 7102)
REFEREE, LEGION, RAIDERS = 1, 2, 3
RULESET, SCENARIO = "w40k4", "avamposto"
WINNERS = ("legione", "predoni", "none")
#: ``/campaign end`` is tried once the campaign has linked this many games.
GAMES_BEFORE_END = 4


@dataclass
class RaceRun:
    """What one race run did."""

    seed: int
    backend: str
    rounds: int = 0
    #: Moves taken and what each process saw (``ok`` or a refusal's key), by name.
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    trail: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def describe(self) -> str:
        seen = ", ".join(f"{k} {n}" for k, n in sorted(self.outcomes.items()))
        return (
            f"campaign race seed {self.seed} ({self.backend}): {self.rounds} rounds, "
            f"{seen}; {len(self.failures)} failures, {self.seconds:.1f} s"
        )


class Process:
    """One bot process: its service on its own store connection."""

    def __init__(self, store: GameStore, name: str, seed: int) -> None:
        self.store = store
        self.table = Table(store, random.Random(f"race-dice-{name}-{seed}"), f"race{seed}{name}")

    async def outcome(self, where: int, user: int, verb: str, /, **options: object) -> str:
        """What the player saw: ``ok`` or the refusal's key (a crash propagates)."""
        try:
            await self.table.send(where, user, verb, options)
        except RulesError as error:
            return error.key
        return "ok"


Move = Callable[[Process, random.Random], Awaitable[str]]


async def _link(process: Process, rng: random.Random) -> str:
    """``/campaign game``, half the time leaving about half of each side's units behind, so
    that another game can be linked beside it with the others (a unit never fights two)."""
    options: dict[str, object] = {"scenario": SCENARIO, "channel": rng.choice(CHANNELS)}
    if rng.random() < 0.5:
        muster = get_ruleset(RULESET).muster
        assert muster is not None
        units = muster.units(SCENARIO)
        options["leave"] = ",".join(
            unit for side in sorted(units) for unit in rng.sample(sorted(units[side]), 2)
        )
    return await process.outcome(CAMPAIGN, REFEREE, "campaign.game", **options)


async def _decide(process: Process, rng: random.Random) -> str:
    winner = rng.choice(WINNERS)
    channel = rng.choice(CHANNELS)
    if winner == "none":
        return await process.outcome(channel, REFEREE, "game.end")
    return await process.outcome(channel, REFEREE, "game.decide", result=winner, reason="race")


async def _undo(process: Process, rng: random.Random) -> str:
    return await process.outcome(rng.choice(CHANNELS), REFEREE, "game.undo")


async def _number(process: Process, rng: random.Random) -> int:
    record = await process.store.load(CAMPAIGN)
    games = CampaignState.from_json(record.document).games
    return rng.choice([entry.number for entry in games]) if games else 1


async def _aftermath(process: Process, rng: random.Random) -> str:
    number = await _number(process, rng)
    return await process.outcome(CAMPAIGN, REFEREE, "campaign.aftermath", game=number)


async def _confirm(process: Process, rng: random.Random) -> str:
    number = await _number(process, rng)
    return await process.outcome(CAMPAIGN, REFEREE, "campaign.confirm", game=number)


async def _status(process: Process, rng: random.Random) -> str:
    return await process.outcome(CAMPAIGN, rng.choice((LEGION, RAIDERS)), "campaign.status")


async def _end(process: Process, rng: random.Random) -> str:
    """``/campaign end``, once the campaign has linked a few games (before: a status)."""
    record = await process.store.load(CAMPAIGN)
    if len(CampaignState.from_json(record.document).games) < GAMES_BEFORE_END:
        return f"too early, status {await _status(process, rng)}"
    return await process.outcome(CAMPAIGN, REFEREE, "campaign.end")


#: The moves a process may take in a round, with their weights.
MOVES: dict[str, tuple[Move, float]] = {
    "link": (_link, 2.0),
    "decide": (_decide, 3.0),
    "undo": (_undo, 2.0),
    "aftermath": (_aftermath, 2.0),
    "confirm": (_confirm, 2.0),
    "status": (_status, 1.0),
    "end": (_end, 0.7),
}


async def race_problems(store: GameStore, referee: Process) -> list[str]:
    """Every invariant broken in the store after a round (see the module's docstring)."""
    record = await store.load(CAMPAIGN)
    stored = await store.events(CAMPAIGN, after_seq=0, limit=record.version + 1)
    events = [event_of(e.args[CAMPAIGN_ARG]) for e in stored]
    if replay(events).to_json() != record.document:
        return ["the campaign's state is not the replay of its log"]
    problems = [*log_problems(events), *roster_problems(events), *link_problems(events)]
    problems += await store.check() + await campaign_problems(store)
    if problems:
        return problems
    await referee.outcome(CAMPAIGN, REFEREE, "campaign.status")  # the catch-up, alone
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    fielded: dict[int, dict[str, set[str]]] = {}
    for entry in state.games:
        found = await store.feature_get(CAMPAIGN_LINK, Scope.of_game(entry.channel), LINK_KEY)
        if found is None or campaign_link_of((found,)) != CampaignLink(CAMPAIGN, entry.number):
            continue  # its channel holds another game by now
        game = await store.load(entry.channel)
        # The roster entries it fields, read from its document (not the campaign's record).
        for piece in get_ruleset(RULESET).rules.battle(game.document).pieces:
            roster = state.rosters.get(piece.side)
            if roster is not None and roster.entry(piece.id) is not None:
                fielded.setdefault(entry.number, {}).setdefault(piece.side, set()).add(piece.id)
        held = entry.result
        if (
            game.status == "ended"
            and not state.ended
            and (held is None or held.final_hash != game.head_hash)
        ):
            problems.append(
                f"game {entry.number} ended, after a catch-up the campaign holds {held}"
            )
        if game.status != "ended" and held is not None:
            problems.append(f"game {entry.number} in play, its result still held")
    return problems + held_twice(state, fielded)


async def race_campaign(url: str, seed: int, rounds: int, *, backend: str = "sqlite") -> RaceRun:
    """Race two processes over one campaign on the (empty) database at ``url`` for
    ``rounds`` rounds (or until the campaign is over), checking after each."""
    run = RaceRun(seed, backend)
    started = time.perf_counter()
    rng = random.Random(f"campaign-race-{seed}")
    first, second = await open_store(url), await open_store(url)
    try:
        a, b = Process(first, "a", seed), Process(second, "b", seed)
        await a.table.send(
            CAMPAIGN,
            REFEREE,
            "campaign.new",
            {"ruleset": RULESET, "name": "Gara", "language": "en"},
        )
        await a.table.send(CAMPAIGN, LEGION, "campaign.join", {"side": "legione"})
        await b.table.send(CAMPAIGN, RAIDERS, "campaign.join", {"side": "predoni"})
        names = list(MOVES)
        weights = [MOVES[name][1] for name in names]
        for _ in range(rounds):
            picked = rng.choices(names, weights=weights, k=2)
            seeds = (rng.random(), rng.random())
            try:
                seen = await asyncio.gather(
                    MOVES[picked[0]][0](a, random.Random(seeds[0])),
                    MOVES[picked[1]][0](b, random.Random(seeds[1])),
                )
            except Exception as error:  # a crash is reported with the rounds before it
                run.failures.append(f"crash: {type(error).__name__}: {error}")
                break
            run.rounds += 1
            run.trail.append(f"a {picked[0]}: {seen[0]} | b {picked[1]}: {seen[1]}")
            for name, outcome in zip(picked, seen, strict=True):
                key = f"{name} {outcome}"
                run.outcomes[key] = run.outcomes.get(key, 0) + 1
            problems = await race_problems(first, a)
            if problems:
                run.failures.append("; ".join(problems[:5]))
                break
            if CampaignState.from_json((await first.load(CAMPAIGN)).document).ended:
                break
    finally:
        await first.close()
        await second.close()
        run.seconds = time.perf_counter() - started
    if run.failures:
        run.failures[-1] += "\n  after:\n    " + "\n    ".join(run.trail[-12:])
    return run
