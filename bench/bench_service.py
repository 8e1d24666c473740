"""Benchmark: the application service over 1,000 channels on the SQLite default.

Every channel plays manovra turns through the service as its referee: a driver reads the
channel's state and sends a legal command (declare, hand over a token, fire or hold with
the unit whose turn it is, advance the turn), interleaved with reads (status, odds). Prints
p50/p99 per command and the throughput. Run: .venv/bin/python bench/bench_service.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bot.app import loop as app_loop
from bot.service import GameService, Request
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError

REFEREE = 1


def choose(document: dict, rng: random.Random) -> tuple[str, dict]:
    """A legal command for the channel's state (the referee may act for both sides)."""
    step = document["step"]
    if step == 3:
        if document["queue"]:
            unit = document["units"][document["queue"][0]]
            if document["pending"]:
                pending = document["pending"][0]
                return "test", {"unit": pending["unit"], "kind": pending["kind"]}
            if unit["type"] == "fanteria" and rng.random() < 0.5:
                enemy = "gruppe_1" if unit["side"] == "alleati" else "squadra_1"
                if document["units"][enemy]["models"] > 0:
                    return "fire", {"unit": unit["id"], "target": enemy, "distance": 10}
            return "move", {"unit": unit["id"], "kind": "hold"}
        declared = set(document["manoeuvred"])
        first = document["first_side"]
        for side in (first, next(s for s in document["sides"] if s != first)):
            if side in document["declarations"]:
                continue
            for platoon in document["platoons"].values():
                if (
                    platoon["side"] == side
                    and platoon["id"] not in declared
                    and not platoon["off_table"]
                ):
                    return "manoeuvre.declare", {"platoon": platoon["id"]}
            return "manoeuvre.pass", {}
    if step == 4:
        for marker in document["marker_order"]:
            if not next(m for m in document["markers"] if m["id"] == marker)["executed"]:
                return "execute", {"marker": marker}
    if step == 2 and not document["markers"] and rng.random() < 0.5:
        return "callarty", {
            "unit": "comando_plotone",
            "battery": "batteria_105",
            "target": "bosco",
            "distance": 20,
            "link": "stesso_plotone_radio",
        }
    return "turn.next", {}


async def main(channels: int, commands: int, db: Path) -> None:
    store = await SqliteStore.open(str(db))
    service = GameService(store)
    rng = random.Random(20261121)  # a private generator: the global random is never seeded
    started = time.perf_counter()
    for channel in range(1, channels + 1):
        await service.handle(
            Request(channel, REFEREE, "game.new", {"scenario": "esempio_normandia"}, guild_id=1)
        )
    print(f"created {channels} games in {time.perf_counter() - started:.1f} s")
    timings: dict[str, list[float]] = defaultdict(list)
    refused = 0
    begin = time.perf_counter()
    for index in range(commands):
        channel = rng.randint(1, channels)
        roll = rng.random()
        if roll < 0.15:
            verb, options = "game.status", {}
        elif roll < 0.20:
            verb, options = "odds", {"unit": "squadra_1", "target": "gruppe_1", "distance": 10}
        else:
            document = (await store.load(channel)).document
            verb, options = choose(document, rng)
        request = Request(channel, REFEREE, verb, options, interaction_id=f"b{index}")
        t0 = time.perf_counter()
        try:
            await service.handle(request)
        except RulesError:
            refused += 1
        timings[verb].append((time.perf_counter() - t0) * 1e6)
    elapsed = time.perf_counter() - begin
    await store.close()
    every = sorted(t for values in timings.values() for t in values)

    def pct(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    print(
        f"{commands} commands over {channels} channels in {elapsed:.1f} s: "
        f"{commands / elapsed:.0f} commands/s ({refused} refused by the rules)"
    )
    print(f"{'command':<20}{'count':>7}{'p50 µs':>10}{'p99 µs':>10}")
    for verb, values in sorted(timings.items(), key=lambda item: -len(item[1])):
        values.sort()
        print(
            f"{verb:<20}{len(values):>7}{statistics.median(values):>10.0f}"
            f"{pct(values, 0.99):>10.0f}"
        )
    print(f"{'all':<20}{len(every):>7}{statistics.median(every):>10.0f}{pct(every, 0.99):>10.0f}")
    print("target: p99 ≤ 10 ms (10,000 µs)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app_loop.run(main(args.channels, args.commands, Path(folder) / "bench.db"))
