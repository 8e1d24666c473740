"""What a commit stores and costs with the history kept as snapshots and patches.

Replays a real game — every state and event of an export (by default a whole fuzzed game
of linea_gotica's bundled scenario, the largest documents, ~16 KB) — into a fresh SQLite
file through `SqliteStore.commit`, one command at a time with a short pause (as between
players), and prints:

* commit latency p50/p99 (synchronous=FULL);
* bytes stored per event (payload of events + states + patches and their indexes, from
  SQLite's dbstat) and the file's size per event;
* `state_at` of random old versions (snapshot + patches) and a verified export;
* the game's first load in a new process (its whole history verified against the chain,
  once: db/chain/verify.py) and the next one;
* the CPU a commit spends making its patch, and the patches' sizes;
* with ``--group-channels N``: group commit at concurrency 50 over N channels, each
  walking through the game's states.

``--root`` imports the store from another checkout (e.g. the main branch, before schema 8)
to compare the same game on both layouts::

    python bench/bench_history.py --bundle game.json
    python bench/bench_history.py --bundle game.json --root /path/to/other/checkout
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def percentile(samples: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank) of ``samples``."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def played_bundle(directory: Path) -> dict[str, Any]:
    """The export of one whole fuzzed game of linea_gotica's bundled scenario."""
    from tests.fuzz.harness import CHANNEL, fuzz

    run = await fuzz("linea_gotica", "esempio_gotica", 1, directory, max_commands=400)
    if run.failures:
        raise SystemExit("\n".join(run.failures))
    from db.drivers.sqlite import SqliteStore

    path = directory / "fuzz-linea_gotica-esempio_gotica-1.db"
    async with await SqliteStore.open(path) as store:
        return (await store.export(CHANNEL)).to_json_dict()


def stored_bytes(path: Path) -> tuple[int, int]:
    """Payload bytes of the history tables and their indexes, and the file's size."""
    connection = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        history = [name for name in ("events", "states", "patches") if name in tables]
        rows = connection.execute(
            "SELECT m.tbl_name, sum(d.payload) FROM dbstat AS d "
            "JOIN sqlite_master AS m ON m.name = d.name GROUP BY 1"
        ).fetchall()
        payload = sum(int(size) for name, size in rows if name in history)
    finally:
        connection.close()
    return payload, path.stat().st_size


async def replay(bundle: dict[str, Any], directory: Path, pause_s: float) -> None:
    """Commit the bundle's states in order, timing each commit; then read old versions."""
    from db.drivers.sqlite import SqliteStore
    from db.models import NewEvent

    states = {state["version"]: state for state in bundle["states"]}
    events = bundle["events"]
    path = directory / "history.db"
    channel = 77
    latencies: list[float] = []
    async with await SqliteStore.open(path) as store:
        first = states[1]
        await store.create_game(
            channel,
            guild_id=1,
            ruleset=bundle["game"]["ruleset"],
            language="it",
            document=first["document"],
            status=first["status"],
        )
        version = 1
        for event in events[1:]:
            state = states[event["seq"]]
            if state["status"] == "ended":
                break  # the store ends games with end_game only; the rest is the same
            new_event = NewEvent(
                verb="bench." + event["verb"],
                args=event["args"],
                dice=event["dice"],
                resolution=event["resolution"],
            )
            await asyncio.sleep(pause_s)
            started = time.perf_counter()
            result = await store.commit(
                channel, version, state["document"], new_event, status=state["status"]
            )
            latencies.append(time.perf_counter() - started)
            version = result.event.seq
        rng = random.Random(7)
        reads: list[float] = []
        for _ in range(200):
            wanted = rng.randint(1, version)
            started = time.perf_counter()
            await store.state_at(channel, wanted)
            reads.append(time.perf_counter() - started)
        started = time.perf_counter()
        await store.export(channel)
        exported = time.perf_counter() - started
    # A new process's first read of the game verifies its whole history once (db/chain/verify.py);
    # the next reads cost a lookup.
    async with await SqliteStore.open(path) as store:
        started = time.perf_counter()
        await store.load(channel)
        first_load = time.perf_counter() - started
        started = time.perf_counter()
        await store.load(channel)
        next_load = time.perf_counter() - started
    payload, size = stored_bytes(path)
    print(f"{version} versions of a {bundle['game']['ruleset']} game, document "
          f"{len(json.dumps(states[version]['document'])) / 1e3:.1f} KB at the end")
    print(f"commit p50 {statistics.median(latencies) * 1e3:.2f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1e3:.2f} ms")
    print(f"stored per event: {payload / version:.0f} B (events + states + patches payload), "
          f"file {size / version:.0f} B")
    print(f"state_at of a random version p50 {statistics.median(reads) * 1e3:.2f} ms, "
          f"p99 {percentile(reads, 0.99) * 1e3:.2f} ms; verified export {exported * 1e3:.0f} ms")
    print(f"load in a new process: first {first_load * 1e3:.1f} ms (the whole history "
          f"verified), then {next_load * 1e3:.2f} ms")


async def group_commits(
    bundle: dict[str, Any], directory: Path, channels: int, commits: int, workers: int
) -> None:
    """Commits alone (no rules), ``workers`` at a time on distinct channels, each channel
    walking through the game's successive states (documents that really change)."""
    from db.drivers.sqlite import SqliteStore
    from db.models import NewEvent

    documents = [s["document"] for s in bundle["states"] if s["status"] != "ended"]
    async with await SqliteStore.open(directory / "group.db") as store:
        version: dict[int, int] = {}
        for channel in range(1, channels + 1):
            await store.create_game(
                channel, guild_id=1, ruleset="bench", language="it", document=documents[0],
                status="active",
            )  # fmt: skip
            version[channel] = 1
        latencies: list[float] = []

        async def worker(mine: list[int], rng: random.Random) -> None:
            for n in range(commits // workers):
                channel = rng.choice(mine)
                # A fresh object, as the rules' model_dump gives one.
                document = json.loads(json.dumps(documents[version[channel] % len(documents)]))
                event = NewEvent(verb="bench", args={"n": n}, dice=[{"die": "D10", "face": 7}])
                started = time.perf_counter()
                result = await store.commit(channel, version[channel], document, event)
                latencies.append(time.perf_counter() - started)
                version[channel] = result.event.seq

        owned = list(version)
        started = time.perf_counter()
        await asyncio.gather(
            *(worker(owned[i::workers], random.Random(i)) for i in range(workers))
        )
        elapsed = time.perf_counter() - started
    print(f"group commit, {channels} channels, concurrency {workers}, changing documents: "
          f"{len(latencies) / elapsed:.0f} commits/s, p50 "
          f"{statistics.median(latencies) * 1e3:.1f} ms, p99 "
          f"{percentile(latencies, 0.99) * 1e3:.1f} ms")


def patch_cost(bundle: dict[str, Any]) -> None:
    """CPU a commit spends on its patch, as the store does it (previous version parsed)."""
    try:
        from db.chain.patch import make_patch
    except ImportError:  # a checkout before schema 8
        return
    from db.chain.hashing import canonical_json

    texts = [canonical_json(state["document"]) for state in bundle["states"]]
    costs: list[float] = []
    sizes: list[int] = []
    previous = json.loads(texts[0])
    for text in texts[1:]:
        started = time.perf_counter()
        new = json.loads(text)
        patch = make_patch(previous, new, text)
        costs.append(time.perf_counter() - started)
        sizes.append(len(patch.encode("utf-8")))
        previous = new
    print(f"patch per commit: p50 {statistics.median(costs) * 1e3:.2f} ms CPU "
          f"(p99 {percentile(costs, 0.99) * 1e3:.2f} ms), "
          f"size p50 {statistics.median(sizes)} B, p99 {percentile(sizes, 0.99)} B")


def main() -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", help="an export (JSON) to replay; default: play one")
    parser.add_argument("--save", help="write the played game's export here")
    parser.add_argument("--root", help="import the store from this checkout instead")
    parser.add_argument("--pause-ms", type=float, default=2.0)
    parser.add_argument("--dir", help="directory for the files (default: a temporary one)")
    parser.add_argument("--group-channels", type=int, default=0,
                        help="also measure group commit on this many channels (e.g. 1000)")
    parser.add_argument("--group-commits", type=int, default=2000)
    arguments = parser.parse_args()
    sys.path.insert(0, str(Path(arguments.root).resolve() if arguments.root else ROOT))
    try:  # the loop the checkout's processes run (bot/app/loop.py)
        from bot.app.loop import run
    except ImportError:  # a checkout from before it: asyncio's
        from asyncio import run
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(arguments.dir or temporary)
        directory.mkdir(parents=True, exist_ok=True)
        if arguments.bundle:
            bundle = json.loads(Path(arguments.bundle).read_text(encoding="utf-8"))
        else:
            bundle = run(played_bundle(directory))
        if arguments.save:
            Path(arguments.save).write_text(json.dumps(bundle), encoding="utf-8")
        run(replay(bundle, directory, arguments.pause_ms / 1000))
        patch_cost(bundle)
        if arguments.group_channels:
            run(
                group_commits(
                    bundle, directory, arguments.group_channels, arguments.group_commits, 50
                )
            )


if __name__ == "__main__":
    main()
