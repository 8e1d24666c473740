"""Benchmark: 1,000 channels through 1, 2 and 4 service processes over one PostgreSQL,
against one process over SQLite.

Each run starts from fresh games (manovra, esempio_normandia) in every channel, then drives
a fixed number of commands with a fixed total concurrency (default 50 in flight) split
evenly between the processes; process ``i`` of ``N`` serves the channels with
``channel % N == i``, as shards split guilds. The commands are bench_service.py's mix (a
legal move read from the channel's state, status and odds reads). Every process is a real
OS process with its own GameService and store; they start together on a signal. Prints
throughput (commands / wall time) and p50/p99 latency per configuration side by side.

The PostgreSQL server is started here (tests/pgserver.py: a temporary directory, a Unix
socket, default durability, i.e. fsync on: comparable with SQLite's synchronous=FULL), or
given with --pg-url. Run: .venv/bin/python bench/bench_scaling.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_service import choose  # noqa: E402

from bot.app import loop as app_loop  # noqa: E402
from bot.service import GameService, Request  # noqa: E402
from db.open import open_store  # noqa: E402
from rules.core.errors import RulesError  # noqa: E402

REFEREE = 1


async def create_games(url: str, channels: int) -> float:
    """Fresh games in channels 1..channels; returns the seconds it took."""
    started = time.perf_counter()
    async with await open_store(url) as store:
        service = GameService(store)
        sem = asyncio.Semaphore(20)

        async def one(channel: int) -> None:
            async with sem:
                await service.handle(
                    Request(
                        channel, REFEREE, "game.new", {"scenario": "esempio_normandia"}, guild_id=1
                    )
                )

        await asyncio.gather(*(one(channel) for channel in range(1, channels + 1)))
    return time.perf_counter() - started


async def worker(
    url: str, index: int, of: int, channels: int, commands: int, concurrency: int, seed: int
) -> dict[str, Any]:
    """One service process: its share of the commands on its share of the channels."""
    mine = [channel for channel in range(1, channels + 1) if channel % of == index]
    rng = random.Random(seed)  # a private generator: the global random is never seeded
    latencies: list[float] = []
    outcome = {"refused": 0, "failed": 0}
    async with await open_store(url) as store:
        service = GameService(store)
        print("ready", flush=True)
        sys.stdin.readline()
        remaining = commands

        async def lane(lane_number: int) -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                number = remaining
                channel = rng.choice(mine)
                roll = rng.random()
                if roll < 0.15:
                    verb, options = "game.status", {}
                elif roll < 0.20:
                    verb, options = (
                        "odds",
                        {"unit": "squadra_1", "target": "gruppe_1", "distance": 10},
                    )
                else:
                    document = (await store.load(channel)).document
                    verb, options = choose(document, rng)
                request = Request(
                    channel, REFEREE, verb, options, interaction_id=f"w{index}-{number}"
                )
                t0 = time.perf_counter()
                try:
                    await service.handle(request)
                except RulesError:
                    outcome["refused"] += 1
                except Exception:  # a bug in a ruleset must not stop the measurement
                    outcome["failed"] += 1
                latencies.append((time.perf_counter() - t0) * 1000)

        await asyncio.gather(*(lane(n) for n in range(concurrency)))
    return {"latencies": latencies, **outcome}


def spawn_worker(
    url: str, index: int, of: int, args: argparse.Namespace, per_process: int, lanes: int
) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        url,
        "--index",
        str(index),
        "--of",
        str(of),
        "--channels",
        str(args.channels),
        "--commands",
        str(per_process),
        "--concurrency",
        str(lanes),
    ]
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )


def run_configuration(url: str, processes: int, args: argparse.Namespace) -> dict[str, Any]:
    """Fresh games, then ``processes`` workers started together; the measured figures."""
    created = app_loop.run(create_games(url, args.channels))
    per_process = args.commands // processes
    lanes = max(1, args.concurrency // processes)
    workers = [spawn_worker(url, i, processes, args, per_process, lanes) for i in range(processes)]
    for child in workers:
        assert child.stdout is not None
        line = child.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"worker did not start: {line!r}")
    started = time.perf_counter()
    for child in workers:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    results = []
    for child in workers:
        out, _ = child.communicate(timeout=1800)
        if child.returncode != 0:
            raise RuntimeError(f"worker failed with status {child.returncode}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.perf_counter() - started
    latencies = sorted(t for result in results for t in result["latencies"])

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    return {
        "processes": processes,
        "commands": len(latencies),
        "throughput": len(latencies) / wall,
        "p50": statistics.median(latencies),
        "p99": pct(0.99),
        "refused": sum(result["refused"] for result in results),
        "failed": sum(result["failed"] for result in results),
        "setup_s": created,
    }


def fresh_schema(url: str) -> str:
    """A new schema in the database at ``url``; the URL whose search_path is that schema."""
    import asyncpg

    name = f"bench_{os.getpid()}_{time.monotonic_ns()}"

    async def create() -> None:
        connection = await asyncpg.connect(url)
        try:
            await connection.execute(f"CREATE SCHEMA {name}")
        finally:
            await connection.close()

    app_loop.run(create())
    return f"{url}{'&' if '?' in url else '?'}search_path={name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=50, help="in flight, all processes")
    parser.add_argument("--processes", default="1,2,4", help="PostgreSQL process counts")
    parser.add_argument(
        "--pg-url", help="an existing PostgreSQL database (each run makes its own schema there)"
    )
    parser.add_argument("--quick", action="store_true", help="200 channels, 800 commands")
    parser.add_argument("--worker", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--of", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        result = app_loop.run(
            worker(
                args.worker,
                args.index,
                args.of,
                args.channels,
                args.commands,
                args.concurrency,
                seed=20261123 + args.index,
            )
        )
        print(json.dumps(result))
        return
    if args.quick:
        args.channels, args.commands = 200, 800
    counts = [int(part) for part in args.processes.split(",")]
    rows: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as folder:
        rows.append(("sqlite", run_configuration(str(Path(folder) / "bench.db"), 1, args)))
        print_row(*rows[-1], header=True)
    server = None
    if args.pg_url is None:
        from tests.pgserver import start_server

        server = start_server(durable=True)
    try:
        for processes in counts:
            url = fresh_schema(args.pg_url) if server is None else server.new_schema_url()
            rows.append(("postgresql", run_configuration(url, processes, args)))
            print_row(*rows[-1])
    finally:
        if server is not None:
            server.stop()
    print()
    print(
        f"{args.channels} channels, {args.commands} commands, {args.concurrency} in flight "
        f"in total, {os.cpu_count()} CPU(s)"
    )


def print_row(backend: str, row: dict[str, Any], header: bool = False) -> None:
    if header:
        print(
            f"{'backend':<12}{'processes':>10}{'commands/s':>12}{'p50 ms':>9}{'p99 ms':>9}"
            f"{'refused':>9}{'failed':>8}"
        )
    print(
        f"{backend:<12}{row['processes']:>10}{row['throughput']:>12.0f}{row['p50']:>9.1f}"
        f"{row['p99']:>9.1f}{row['refused']:>9}{row['failed']:>8}",
        flush=True,
    )


if __name__ == "__main__":
    main()
