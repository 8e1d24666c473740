"""Benchmark: a long campaign log — its first command, another channel meanwhile, its export.

Printed, measured in one run on SQLite files:

1. **First touch of a long log.** A campaign channel whose log holds ``--events`` events
   (default 5,000; its document carries ``--kb`` KB, as a campaign's state grows with its
   rosters) is opened by a store that never saw it — as after a restart — while a healthy
   channel reads its game every 5 ms. The first ``open_command`` (what every command starts
   with) is timed, then the end of the history's check, with the healthy reads' p50/p99/max
   from the first touch to that end, interleaved in three ways: the event chain before the
   command and the states in the background (`db.chain.long_history`, now); the whole history
   page by page before the command (`LongHistories.verify_whole`, before); the whole
   history inside the command's one read (earlier: the limit raised past the log's length).
2. **An old version** (``state_at``) of that long channel, 30 at random, once verified.
3. **Bytes stored per adjustment** of that long channel: ``--adjusts`` more small changes
   of its document, the file's payload (SQLite's ``dbstat``) before and after, per change.
4. **``/campaign export`` at ``--export-events``** (default 10,000) through the service:
   wall time, then Python's peak memory (tracemalloc, in a second export: it slows every
   allocation), the files' sizes.

Run: ``.venv/bin/python bench/bench_long_campaign.py [--events N] [--kb K]
[--adjusts N] [--export-events N (0: none)] [--rounds N]``. The ``/fire`` ratio against a
raw commit is ``bench/bench_command_path.py``'s.
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
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))

import db.chain.long_history as long_history  # noqa: E402
from bot.app import loop as app_loop  # noqa: E402
from bot.render.campaign_report import with_report  # noqa: E402
from bot.service import GameService, Request  # noqa: E402
from bot.service.export import discard  # noqa: E402
from db.chain.long_history import LongHistories  # noqa: E402
from db.chain.verify import VerifiedHead  # noqa: E402
from db.core.steps import Query, read  # noqa: E402
from db.drivers.sqlite import SqliteStore  # noqa: E402
from db.models import NewEvent  # noqa: E402

LONG, HEALTHY, CAMPAIGN, REFEREE = 11, 12, 500, 1


async def _fast(store: SqliteStore, on: bool) -> None:
    """No fsync while the file is built (it is measured afterwards at FULL)."""
    mode = "OFF" if on else "FULL"
    await store._execute(read(Query(f"PRAGMA synchronous = {mode}")))


async def build_long_log(path: Path, events: int, kb: int, seed: int) -> None:
    """The long channel (a document of ``kb`` KB, a small change per event) and a healthy
    game beside it."""
    rng = random.Random(seed)  # a private generator: the global random is never seeded
    rosters = {f"unit{n}": rng.randbytes(48).hex() for n in range(max(1, kb * 1024 // 110))}
    store = await SqliteStore.open(str(path))
    try:
        await _fast(store, True)
        for channel, document in ((LONG, {"turn": 0, "rosters": rosters}), (HEALTHY, {"turn": 0})):
            await store.create_game(
                channel,
                guild_id=1,
                ruleset="toy",
                language="en",
                document=document,
                status="active",
                actor_id=REFEREE,
            )
        version, document = 1, {"turn": 0, "rosters": rosters}
        for n in range(events - 1):
            unit = f"unit{rng.randrange(len(rosters))}"
            # A roster rewritten at its size: the document stays at ``kb`` KB.
            roster = rng.randbytes(48).hex()
            document = {**document, "turn": n, "rosters": {**document["rosters"], unit: roster}}
            event = NewEvent(verb="campaign.adjusted", args={"unit": unit, "n": n})
            version = (await store.commit(LONG, version, document, event)).version
        await _fast(store, False)
    finally:
        await store.close()


class WholeFirst(LongHistories):
    """The verification before `db.chain.long_history`: the whole history, states included,
    before the command."""

    async def _verify_events(self, channel_id: int, head: VerifiedHead) -> dict[int, str]:
        return await self.verify_whole(channel_id, head)

    def _start(self, channel_id: int, head: VerifiedHead) -> None:
        return None


#: How the first touch is verified: (label, the store's `LongHistories`, one read).
MODES = (
    ("events, states in background", LongHistories, False),
    ("whole history, paged (before)", WholeFirst, False),
    ("whole history, one read", WholeFirst, True),
)


async def first_touch(
    path: Path, histories: type[LongHistories], one_read: bool
) -> tuple[float, float, list[float]]:
    """The long channel's first ``open_command`` in a fresh store, the end of its history's
    check, and the healthy channel's read times from the first touch to that end (ms)."""
    limit = long_history.LONG_HISTORY
    if one_read:
        long_history.LONG_HISTORY = 1 << 30  # verified inside the command's read
    store = await SqliteStore.open(str(path))
    store.long_histories = histories(
        store.verified_chains, lambda steps, channel: store._run(steps, "read", channel)
    )
    try:
        await store.load(HEALTHY)
        healthy: list[float] = []
        done = asyncio.Event()

        async def reader() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await store.open_command(HEALTHY)
                healthy.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.005)

        task = asyncio.ensure_future(reader())
        await asyncio.sleep(0.02)
        started = time.perf_counter()
        await store.open_command(LONG)
        spent = (time.perf_counter() - started) * 1000
        await store.history_checks()
        checked = (time.perf_counter() - started) * 1000
        done.set()
        await task
        return spent, checked, healthy
    finally:
        long_history.LONG_HISTORY = limit
        await store.close()


async def old_versions(path: Path, count: int, seed: int) -> list[float]:
    """``state_at`` of ``count`` random old versions of the long channel once its history
    is verified (ms): the nearest snapshot below each, its patches, its events checked."""
    rng = random.Random(seed + 2)
    store = await SqliteStore.open(str(path))
    try:
        head = (await store.load(LONG)).version
        await store.history_checks()
        times: list[float] = []
        for _ in range(count):
            version = rng.randrange(1, head)
            started = time.perf_counter()
            await store.state_at(LONG, version)
            times.append((time.perf_counter() - started) * 1000)
        return times
    finally:
        await store.close()


def payload(path: Path) -> int:
    """The bytes SQLite stores for the file's tables and indexes (``dbstat``)."""
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("SELECT sum(payload) FROM dbstat").fetchone()[0])
    finally:
        connection.close()


async def bytes_per_adjust(path: Path, adjusts: int, seed: int) -> tuple[float, int, int]:
    """``adjusts`` more small changes of the long channel's document: the bytes stored per
    change, the document's size and the largest patch."""
    before = payload(path)
    rng = random.Random(seed + 1)
    store = await SqliteStore.open(str(path))
    try:
        record = await store.load(LONG)
        version, document = record.version, record.document
        for n in range(adjusts):
            rosters = dict(document["rosters"])
            rosters[f"unit{rng.randrange(len(rosters))}"] = f"adjusted {n}"
            document = {**document, "rosters": rosters}
            event = NewEvent(verb="campaign.adjusted", args={"n": n})
            version = (await store.commit(LONG, version, document, event)).version
        pages = await store.history_page(LONG, version - adjusts, version, adjusts)
        largest = max(len(page.patch[1]) for page in pages if page.patch is not None)
    finally:
        await store.close()
    size = len(json.dumps(document, separators=(",", ":"), ensure_ascii=False))
    return (payload(path) - before) / adjusts, size, largest


async def campaign_export(folder: Path, events: int) -> tuple[float, int, int, int]:
    """``/campaign export`` of a campaign whose log holds ``events`` events: seconds, peak
    bytes of Python memory, the log's events and the files' bytes."""
    store = await SqliteStore.open(str(folder / "campaign.db"))
    service = GameService(store)
    count = 0

    async def call(verb: str, **options: Any) -> Any:
        nonlocal count
        count += 1
        return await service.handle(
            Request(CAMPAIGN, REFEREE, verb, options, guild_id=1, interaction_id=f"b{count}")
        )

    try:
        await call("campaign.new", ruleset="w40k4", name="Orbita", language="en")
        discard((await call("campaign.export")).spool)  # what a first export loads
        record = await store.load(CAMPAIGN)
        created = (await store.events(CAMPAIGN, limit=1))[0]
        await _fast(store, True)
        version = record.version
        while version < events:
            event = NewEvent(verb="campaign.created", args=created.args)
            version = (await store.commit(CAMPAIGN, version, record.document, event)).version
        await _fast(store, False)
        started = time.perf_counter()  # timed alone: tracemalloc slows every allocation
        discard((await with_report(await call("campaign.export"))).spool)
        spent = time.perf_counter() - started
        tracemalloc.start()
        exported = await with_report(await call("campaign.export"))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        size = sum(
            len(content) if isinstance(content, bytes) else content.stat().st_size
            for content in exported.files.values()
        )
        discard(exported.spool)
        return spent, peak, version, size
    finally:
        await store.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def main(args: argparse.Namespace) -> None:
    folder = Path(args.dir or tempfile.mkdtemp(prefix="arbitro-bench-"))
    path = folder / "long.db"
    started = time.perf_counter()
    await build_long_log(path, args.events, args.kb, args.seed)
    print(
        f"built {args.events} events of a {args.kb} KB document in "
        f"{time.perf_counter() - started:.1f} s"
    )
    results: dict[str, list[tuple[float, float, list[float]]]] = {m[0]: [] for m in MODES}
    for _ in range(args.rounds):
        for label, histories, one_read in MODES:  # interleaved: the machine's drift hits all
            results[label].append(await first_touch(path, histories, one_read))
    print(
        "first command on the long log (open_command, fresh store), then the end of the "
        "history's check, ms; the healthy channel's reads from the first touch to that end"
    )
    print(
        f"{'verification':<32}{'first p50':>10}{'checked p50':>13}{'healthy p50':>13}"
        f"{'p99':>9}{'max':>9}"
    )
    for label, _, _ in MODES:
        firsts = [first for first, _, _ in results[label]]
        checked = [end for _, end, _ in results[label]]
        healthy = [t for _, _, reads in results[label] for t in reads]
        print(
            f"{label:<32}{statistics.median(firsts):>10.0f}{statistics.median(checked):>13.0f}"
            f"{pct(healthy, 0.5):>13.1f}{pct(healthy, 0.99):>9.1f}"
            f"{max(healthy, default=0.0):>9.1f}"
        )
    reads = await old_versions(path, 30, args.seed)
    print(
        f"state_at of 30 random old versions: p50 {pct(reads, 0.5):.1f} ms, "
        f"max {max(reads):.1f} ms"
    )
    per_adjust, size, largest = await bytes_per_adjust(path, args.adjusts, args.seed)
    print(
        f"bytes stored per adjustment of the {size / 1e3:.0f} KB document, over "
        f"{args.adjusts}: {per_adjust:,.0f} B (largest patch {largest} B; a snapshot every "
        f"16 versions, before, added {size / 16 / 1e3:.1f} KB each besides)"
    )
    if args.export_events <= 0:
        return
    spent, peak, events, size = await campaign_export(folder, args.export_events)
    print(
        f"/campaign export of {events} events: {spent:.2f} s, Python peak "
        f"{peak / 1e6:.1f} MB, files {size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--kb", type=int, default=64)
    parser.add_argument("--export-events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--adjusts", type=int, default=200)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--dir", default=None, help="directory for the files (default: temp)")
    app_loop.run(main(parser.parse_args()))
