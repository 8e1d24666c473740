"""Benchmark: the command path through the service, against a raw commit of the same rows.

1,000 channels (the four rulesets' bundled scenarios in turn) are played by their referee with
random LEGAL actions (each ruleset's ``legal_actions``, free options filled at random: tanks
and guns firing AP, assaults, indirect fire…), with 5 % ``/odds`` previews of a legal fire or
assault (cold: random distances and targets) and 10 % ``/game status`` reads, on the embedded
SQLite default (WAL, synchronous=FULL).

Printed, measured in one run:

* per verb and overall, the service's p50/p99 at concurrency 1, and next to it the p50 of a
  raw ``sqlite3`` FULL-synchronous commit of the very rows that command wrote (the game row
  update, the event row, the state/patch row), interleaved with the service's commands;
  target: service p50 ≤ 3× raw, p99 ≤ 10 ms;
* the floor of the fixed stack, interleaved the same way: the same rows written through
  aiosqlite's public API on a file of its own, as any driver of it must (``BEGIN
  IMMEDIATE``, each write, ``COMMIT``, each awaited in turn; and at best every statement
  queued before the first await), then each of those preceded by one hand-over to a worker
  thread and back (the rules' hop off the event loop); their p50s and ratios to raw;
* through the service, throughput and p99 at concurrency 1 and 50 (50 coroutines, each on
  its own channels; the players' choices made on a thread of their own), for information;
* the store's commits alone at concurrency 1 and 50 (group commit), prepared by the caller as
  the service prepares them (target: throughput at 50 ≥ 2× at 1 with p99 ≤ 25 ms), then as
  plain documents prepared by the store on a worker thread, for information.

Run: ``.venv/bin/python bench/bench_command_path.py [--channels N] [--commands N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiosqlite

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))

from bot.app import loop as app_loop  # noqa: E402
from bot.app.warmup import settle_heap  # noqa: E402
from bot.service import GameService, Request  # noqa: E402
from db.chain.prepare import prepare_event  # noqa: E402
from db.drivers.sqlite import SqliteStore  # noqa: E402
from db.models import NewEvent  # noqa: E402
from rules.core.errors import RulesError  # noqa: E402
from rules.core.legal import LegalAction  # noqa: E402
from rules.core.ruleset import get_ruleset  # noqa: E402
from rules.core.seatview import REFEREE as REFEREE_SEAT  # noqa: E402
from rules.core.surface import Rules  # noqa: E402

REFEREE = 1
GAMES = (
    ("manovra", "esempio_normandia"),
    ("linea_gotica", None),
    ("pzgren", None),
    ("w40k4", None),
)


_ROUNDS = itertools.count(1)


def _play(ruleset: str) -> Rules:
    play = get_ruleset(ruleset).rules
    assert play is not None
    return play


def fill(action: LegalAction, rng: random.Random) -> dict[str, Any]:
    """The action's fixed options, and a random allowed value for each free one."""
    options = dict(action.options)
    for spec in action.free:
        if not spec.required and rng.random() < 0.3:
            continue
        if spec.choices:
            options[spec.name] = rng.choice(list(spec.choices))
        elif spec.low is not None and spec.high is not None:
            low, high = spec.low, spec.high
            if isinstance(low, int) and isinstance(high, int):
                options[spec.name] = rng.randint(low, high)
            else:
                options[spec.name] = round(rng.uniform(float(low), float(high)), 1)
    return options


def pick(actions: Sequence[LegalAction], rng: random.Random) -> LegalAction | None:
    """An owed action first (the game waits on it), else any, preferring fire and assaults."""
    if not actions:
        return None
    owed = [a for a in actions if a.owed]
    if owed:
        return rng.choice(owed)
    violent = [a for a in actions if a.verb in ("fire", "assault", "callarty", "combat")]
    if violent and rng.random() < 0.5:
        return rng.choice(violent)
    return rng.choice(list(actions))


class Table:
    """The channels, their rulesets, and the next command of each."""

    def __init__(self, channels: int, seed: int) -> None:
        self.rng = random.Random(seed)  # a private generator: the global one is never seeded
        self.ruleset = {c: GAMES[(c - 1) % len(GAMES)] for c in range(1, channels + 1)}
        self.serial = 0

    def request(self, channel: int, document: Mapping[str, Any]) -> Request | None:
        ruleset = self.ruleset[channel][0]
        play = _play(ruleset)
        try:
            actions = [a for a in play.view(document, REFEREE_SEAT).every_legal if a.verb != "odds"]
        except RulesError:
            return None
        self.serial += 1
        roll = self.rng.random()
        if roll < 0.10:
            return Request(channel, REFEREE, "game.status", {}, interaction_id=f"s{self.serial}")
        if roll < 0.15:
            shots = [a for a in actions if a.verb in ("fire", "assault", "combat")]
            if shots:
                options = fill(self.rng.choice(shots), self.rng)
                return Request(channel, REFEREE, "odds", options, interaction_id=f"o{self.serial}")
        action = pick(actions, self.rng)
        if action is None:
            return None
        options = fill(action, self.rng)
        return Request(channel, REFEREE, action.verb, options, interaction_id=f"c{self.serial}")


_SCHEMA = (
    "CREATE TABLE games (channel_id INTEGER PRIMARY KEY, version INTEGER, updated TEXT);"
    "CREATE TABLE states (channel_id INTEGER, version INTEGER, document TEXT,"
    " PRIMARY KEY (channel_id, version));"
    "CREATE TABLE events (channel_id INTEGER, seq INTEGER, verb TEXT, args TEXT,"
    " dice TEXT, resolution TEXT, hash TEXT, PRIMARY KEY (channel_id, seq));"
)

Rows = tuple[str, str, str, str, str]


def _writes(channel: int, version: int, rows: Rows) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements (and their parameters) that store one command's rows."""
    verb, args, dice, resolution, document = rows
    writes: list[tuple[str, tuple[Any, ...]]] = [
        (
            "INSERT INTO games VALUES (?, ?, ?) ON CONFLICT (channel_id) DO UPDATE "
            "SET version = excluded.version, updated = excluded.updated",
            (channel, version, "2026-11-23T00:00:00+00:00"),
        )
    ]
    if document:
        writes.append(("INSERT INTO states VALUES (?, ?, ?)", (channel, version, document)))
    writes.append(
        (
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
            (channel, version, verb, args, dice, resolution, "0" * 64),
        )
    )
    return writes


class RawCommit:
    """A bare sqlite3 file with the same three rows a command writes, FULL synchronous."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.executescript(_SCHEMA)
        self.version: dict[int, int] = defaultdict(int)

    def commit(self, channel: int, rows: Rows) -> float:
        """Seconds to write the rows in one FULL-synchronous transaction."""
        self.version[channel] += 1
        writes = _writes(channel, self.version[channel], rows)
        started = time.perf_counter()
        connection = self.connection
        connection.execute("BEGIN IMMEDIATE")
        for sql, params in writes:
            connection.execute(sql, params)
        connection.execute("COMMIT")
        return time.perf_counter() - started


class FloorCommit:
    """The same rows through aiosqlite's public API, on a file of its own: the least any
    driver of it pays for a commit (its connection thread, a hop there and back per await).

    ``queued``: every statement sent before the first await (one wake of aiosqlite's thread
    for them all, the best a driver can do with the public API); otherwise ``BEGIN
    IMMEDIATE``, each write and ``COMMIT`` awaited in turn. ``hop``: first one hand-over to a
    worker thread and back, as the service's rules job is handed over before its commit.
    """

    def __init__(self, connection: aiosqlite.Connection, *, queued: bool, hop: bool) -> None:
        self.connection = connection
        self.queued = queued
        self.hop = hop
        self.version: dict[int, int] = defaultdict(int)

    @classmethod
    async def open(cls, path: Path, *, queued: bool, hop: bool) -> FloorCommit:
        connection = await aiosqlite.connect(path, isolation_level=None)
        await connection.execute("PRAGMA journal_mode=WAL")
        await connection.execute("PRAGMA synchronous=FULL")
        await connection.executescript(_SCHEMA)
        return cls(connection, queued=queued, hop=hop)

    @property
    def name(self) -> str:
        way = "all queued, one await" if self.queued else "each statement awaited"
        return f"aiosqlite, {way}" + (", after a worker hop" if self.hop else "")

    async def commit(self, channel: int, rows: Rows, worker: ThreadPoolExecutor) -> float:
        """Seconds to write the rows in one FULL-synchronous transaction."""
        self.version[channel] += 1
        writes = _writes(channel, self.version[channel], rows)
        connection = self.connection
        started = time.perf_counter()
        if self.hop:
            await asyncio.get_running_loop().run_in_executor(worker, _nothing)
        if self.queued:
            sent = [
                asyncio.ensure_future(connection.execute(sql, params))
                for sql, params in (("BEGIN IMMEDIATE", ()), *writes, ("COMMIT", ()))
            ]
            await asyncio.gather(*sent)
        else:
            await connection.execute("BEGIN IMMEDIATE")
            for sql, params in writes:
                await connection.execute(sql, params)
            await connection.execute("COMMIT")
        return time.perf_counter() - started


def _nothing() -> None:
    """The worker's job in a hand-over measured for itself."""


def _rows_of_last_commit(db: sqlite3.Connection, channel: int) -> Rows:
    """What the store wrote for the channel's last event: every row, as stored."""
    event = db.execute(
        "SELECT verb, args, dice, resolution, seq FROM events WHERE channel_id = ? "
        "ORDER BY seq DESC LIMIT 1",
        (channel,),
    ).fetchone()
    state = db.execute(
        "SELECT document FROM states WHERE channel_id = ? AND version = ?", (channel, event[4])
    ).fetchone()
    return (event[0], event[1], event[2], event[3], state[0] if state else "")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def create(service: GameService, table: Table) -> None:
    for channel, (ruleset, scenario) in table.ruleset.items():
        options: dict[str, Any] = {"ruleset": ruleset}
        if scenario:
            options["scenario"] = scenario
        await service.handle(Request(channel, REFEREE, "game.new", options, guild_id=1))


async def sequential(
    service: GameService,
    store: SqliteStore,
    table: Table,
    commands: int,
    raw: RawCommit,
    floors: Sequence[FloorCommit],
    db: Path,
) -> tuple[dict[str, list[float]], list[float], list[float], list[list[float]], float, int]:
    """Concurrency 1, with a raw commit of the same rows after each committed command, and
    the same rows through each of the ``floors`` (taken in turn, the first one changing
    from command to command so no way of committing always follows the same one)."""
    reader = sqlite3.connect(db)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-hop")
    timings: dict[str, list[float]] = defaultdict(list)
    service_commits: list[float] = []
    raw_commits: list[float] = []
    floor_commits: list[list[float]] = [[] for _ in floors]
    refused = 0
    channels = list(table.ruleset)
    begin = time.perf_counter()
    done = 0
    while done < commands:
        channel = table.rng.choice(channels)
        record = await store.load(channel)
        request = table.request(channel, record.document)
        if request is None:
            continue
        done += 1
        started = time.perf_counter()
        try:
            reply = await service.handle(request)
        except RulesError:
            refused += 1
            reply = None
        spent = time.perf_counter() - started
        timings[f"{table.ruleset[channel][0]}:{request.verb}"].append(spent)
        if reply is not None and reply.seq is not None and request.verb != "odds":
            service_commits.append(spent)
            rows = _rows_of_last_commit(reader, channel)
            turn = len(service_commits)
            for index in range(len(floors) + 1):
                way = (turn + index) % (len(floors) + 1)
                if way == len(floors):
                    raw_commits.append(raw.commit(channel, rows))
                else:
                    floor_commits[way].append(await floors[way].commit(channel, rows, worker))
    elapsed = time.perf_counter() - begin
    reader.close()
    worker.shutdown()
    return timings, service_commits, raw_commits, floor_commits, elapsed, refused


async def concurrent(
    service: GameService, store: SqliteStore, table: Table, commands: int, workers: int
) -> tuple[float, list[float]]:
    """``workers`` coroutines, each on its own channels; throughput and latencies."""
    channels = list(table.ruleset)
    latencies: list[float] = []
    per_worker = commands // workers

    # The players' side (reading the game, choosing a legal action: milliseconds of CPU)
    # runs on a thread of its own, so it does not hold the event loop the service runs on.
    players = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-players")
    loop = asyncio.get_running_loop()

    async def worker(mine: list[int], rng: random.Random) -> None:
        done = 0
        while done < per_worker:
            channel = rng.choice(mine)
            record = await store.load(channel)
            request = await loop.run_in_executor(
                players, table.request, channel, record.document
            )
            if request is None:
                continue
            done += 1
            started = time.perf_counter()
            with contextlib.suppress(RulesError):
                await service.handle(request)
            latencies.append(time.perf_counter() - started)

    begin = time.perf_counter()
    await asyncio.gather(
        *(
            worker(channels[index::workers], random.Random(index))
            for index in range(workers)
        )
    )
    elapsed = time.perf_counter() - begin
    players.shutdown()
    return len(latencies) / elapsed, latencies


async def store_commits(
    store: SqliteStore, table: Table, commits: int, workers: int, *, prepared: bool
) -> tuple[float, list[float]]:
    """Commits alone (no rules), ``workers`` at a time on distinct channels: group commit.

    ``prepared``: each commit's document and event are prepared by the caller before the
    commit, as the service prepares them on its rules thread (`db.chain.prepare`); else plain,
    prepared by the store on a worker thread first. Timed either way.
    """
    # A tag of its own per round: the same seeds again must not repeat interaction ids (a
    # repeated one is answered as a duplicate, nothing written).
    round_tag = next(_ROUNDS)
    channels = list(table.ruleset)
    current = {c: await store.load(c) for c in channels[: max(workers * 4, 50)]}
    owned = list(current)
    latencies: list[float] = []
    per_worker = commits // workers

    async def worker(mine: list[int], rng: random.Random) -> None:
        for n in range(per_worker):
            channel = rng.choice(mine)
            record = current[channel]
            event = NewEvent(
                verb="bench", args={"n": n}, dice=[{"die": "D10", "face": 7}],
                resolution=[], interaction_id=f"sc{round_tag}-{channel}-{n}-{rng.random()}",
            )
            started = time.perf_counter()
            if prepared:
                document: Any = store.preparer.prepare(
                    channel, record.document, base_text=record.document_text
                )
                pending: Any = prepare_event(event)
            else:
                document, pending = record.document, event
            result = await store.commit(channel, record.version, document, pending)
            latencies.append(time.perf_counter() - started)
            current[channel] = replace(record, version=result.version)

    begin = time.perf_counter()
    await asyncio.gather(
        *(worker(owned[index::workers], random.Random(index)) for index in range(workers))
    )
    return len(latencies) / (time.perf_counter() - begin), latencies


async def main(channels: int, commands: int, folder: Path) -> None:
    settle_heap()  # as the bot does once started (`arbitro run`)
    print(f"event loop: {app_loop.running_loop_name()} ({app_loop.EVENT_LOOP_ENV} chooses)")
    db = folder / "bench.db"
    store = await SqliteStore.open(str(db))
    service = GameService(store)
    table = Table(channels, seed=20261123)
    started = time.perf_counter()
    await create(service, table)
    print(f"created {channels} games in {time.perf_counter() - started:.1f} s")
    raw = RawCommit(folder / "raw.db")
    floors = [
        await FloorCommit.open(folder / f"floor{index}.db", queued=queued, hop=hop)
        for index, (hop, queued) in enumerate(itertools.product((False, True), repeat=2))
    ]
    timings, service_commits, raw_commits, floor_commits, elapsed, refused = await sequential(
        service, store, table, commands, raw, floors, db
    )
    print(
        f"\nconcurrency 1: {commands} commands in {elapsed:.1f} s "
        f"({commands / elapsed:.0f}/s, {refused} refused by the rules)"
    )
    print(f"{'ruleset:verb':<32}{'count':>6}{'p50 ms':>9}{'p99 ms':>9}")
    for name, values in sorted(timings.items(), key=lambda item: -len(item[1]))[:24]:
        print(f"{name:<32}{len(values):>6}{statistics.median(values)*1e3:>9.2f}"
              f"{pct(values, 0.99)*1e3:>9.2f}")
    every = [t for values in timings.values() for t in values]
    service_p50 = statistics.median(service_commits)
    raw_p50 = statistics.median(raw_commits)
    print(f"{'all':<32}{len(every):>6}{statistics.median(every)*1e3:>9.2f}"
          f"{pct(every, 0.99)*1e3:>9.2f}")
    print(
        f"\ncommitted commands p50 {service_p50*1e3:.2f} ms vs raw FULL commit of the same rows "
        f"p50 {raw_p50*1e3:.2f} ms: {service_p50/raw_p50:.1f}x (target <= 3x)"
    )
    print(f"p99 of every command {pct(every, 0.99)*1e3:.2f} ms (target <= 10 ms)")
    print("\nthe floor of the fixed stack: the same rows, interleaved with the commands")
    print(f"{'commit of the same rows':<58}{'p50 ms':>8}{'x raw':>7}{'cmd x':>7}")
    print(f"{'raw sqlite3, FULL':<58}{raw_p50*1e3:>8.3f}{1:>7.2f}{service_p50/raw_p50:>7.2f}")
    for floor, spent in zip(floors, floor_commits, strict=True):
        floor_p50 = statistics.median(spent)
        print(
            f"{floor.name:<58}{floor_p50*1e3:>8.3f}{floor_p50/raw_p50:>7.2f}"
            f"{service_p50/floor_p50:>7.2f}"
        )
    print("(x raw: the floor's p50 over the raw commit's; cmd x: the committed commands' p50 "
          "over the floor's)")
    for floor in floors:
        await floor.connection.close()
    results = {}
    for workers in (1, 50):
        rate, latencies = await concurrent(service, store, table, commands, workers)
        results[workers] = rate
        print(
            f"concurrency {workers:>2}: {rate:.0f} commands/s, p50 "
            f"{statistics.median(latencies)*1e3:.2f} ms, p99 {pct(latencies, 0.99)*1e3:.2f} ms"
        )
    print(
        f"service throughput ratio 50/1: {results[50]/results[1]:.2f}x (no target: the rules "
        "run on one thread and Python on one core, so 50 commands in flight queue for it)"
    )
    print("\nstore commits of the same documents (group commit):")
    for prepared in (True, False):
        print(
            "prepared by the caller, as the service commits (the target):"
            if prepared
            else "plain documents, prepared by the store on a worker thread:"
        )
        rates = {}
        for workers in (1, 50):
            rate, latencies = await store_commits(
                store, table, commands, workers, prepared=prepared
            )
            rates[workers] = rate
            print(
                f"  concurrency {workers:>2}: {rate:.0f} commits/s, p50 "
                f"{statistics.median(latencies)*1e3:.2f} ms, "
                f"p99 {pct(latencies, 0.99)*1e3:.2f} ms"
                + ("  (target p99 <= 25 ms)" if workers > 1 and prepared else "")
            )
        print(
            f"  commit throughput ratio 50/1: {rates[50]/rates[1]:.2f}x"
            + (" (target >= 2x)" if prepared else "")
        )
    raw.connection.close()
    await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--dir", default=None, help="directory for the files (default: temp)")
    arguments = parser.parse_args()
    if arguments.dir:
        os.makedirs(arguments.dir, exist_ok=True)
        app_loop.run(main(arguments.channels, arguments.commands, Path(arguments.dir)))
    else:
        with tempfile.TemporaryDirectory() as temporary:
            app_loop.run(main(arguments.channels, arguments.commands, Path(temporary)))
