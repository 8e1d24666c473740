"""What the slowest commands of `bench_web` are: each command's kind and CPU per thread.

The commands of `bench_web.py` without its readers: a linea_gotica game of ``--versions``
events and another game, the referee seating and unseating a player on each in turn every
``--pace`` seconds, in a process settled as `arbitro run` settles it. For every command:

* its wall time and the CPU of each of the process's threads (Linux's schedstat, in
  nanoseconds): the event loop, the rules thread, aiosqlite's thread, the WAL's checkpoint
  thread, any other;
* what kind of command it was: channel, verb, whether its game was kept from the channel's
  last command (`bot.service.kept_games`), whether its version was stored as a snapshot
  (db/chain/patch.py), the garbage collections in it by generation and their pauses, the
  WAL's frames copied back meanwhile (a checkpoint), the functions sent to aiosqlite's
  thread.

Printed: the whole run's and the slowest ``--tail`` share's medians (by the process's CPU),
the tail's composition by kind against the run's, and, with ``--profile``, cProfile of
every command on its three threads (loop, rules job, aiosqlite's functions), the functions
whose time per command in the tail exceeds that of all commands the most. Profiling slows
every command; the kinds are the same, since the commands are (no dice are rolled).

Run: ``.venv/bin/python bench/bench_command_tail.py [--commands N] [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import json
import pstats
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for entry in (ROOT, ROOT / "bench"):
    if str(entry) not in sys.path:  # Runnable as a plain script from anywhere.
        sys.path.insert(0, str(entry))

import aiosqlite.core  # noqa: E402
from bench_web import _TOGGLE, ANNA, GAME, OTHER, REFEREE, commands_of, two_games, wal_frames  # noqa: E402

import bot.service.kept_games as kept_games  # noqa: E402
import bot.service.workers as workers  # noqa: E402
from bot.app import loop as app_loop  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.web.beside import settle_pages  # noqa: E402
from db.drivers import checkpoint  # noqa: E402
from db.drivers.sqlite import SqliteStore  # noqa: E402

_unknown: set[str] = set()
THREADS = ("loop", "rules", "aiosqlite", "executor", "checkpoint", "other")


@dataclass
class Row:
    """One command: its kind and what it cost (seconds)."""

    index: int
    channel: int
    verb: str
    version: int = 0
    wall: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    kept: bool = False
    snapshot: bool = False
    collections: tuple[int, int, int] = (0, 0, 0)
    paused: float = 0.0
    copied_back: int = 0
    hops: int = 0
    profile: pstats.Stats | None = None

    @property
    def total(self) -> float:
        return sum(self.cpu.values())


class _Watch:
    """The instruments' state for the command under way (commands run one at a time)."""

    def __init__(self) -> None:
        self.collections = [0, 0, 0]
        self.paused = 0.0
        self.started = 0.0
        self.kept: bool | None = None
        self.hops = 0
        self.profiling = False
        self.profiles: list[cProfile.Profile] = []

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        self.paused += time.perf_counter() - self.started
        self.collections[info["generation"]] += 1

    def profiled(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function``, profiled on whichever thread runs it while a command is."""

        def run(*args: Any, **kwargs: Any) -> Any:
            if not self.profiling:
                return function(*args, **kwargs)
            profile = cProfile.Profile(time.thread_time)
            self.profiles.append(profile)
            profile.enable()
            try:
                return function(*args, **kwargs)
            finally:
                profile.disable()

        return run


watch = _Watch()


def _instrument() -> None:
    gc.callbacks.append(watch.on_collection)
    take = kept_games.KeptGames.take

    def taken(self: kept_games.KeptGames, record: Any) -> Any:
        game = take(self, record)
        watch.kept = game is not None
        return game

    kept_games.KeptGames.take = taken  # type: ignore[method-assign]
    run = workers.ChannelWorkers.run

    async def profiled_run(self: workers.ChannelWorkers, key: Any, job: Callable[[], Any]) -> Any:
        return await run(self, key, watch.profiled(job))

    workers.ChannelWorkers.run = profiled_run  # type: ignore[method-assign]
    to_thread = asyncio.to_thread

    async def profiled_to_thread(function: Callable[..., Any], /, *args: Any, **kw: Any) -> Any:
        return await to_thread(watch.profiled(function), *args, **kw)

    asyncio.to_thread = profiled_to_thread
    execute = aiosqlite.core.Connection._execute

    async def counted(self: Any, function: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        watch.hops += 1
        return await execute(self, watch.profiled(function), *args, **kw)

    aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]


def _thread_kind(thread: threading.Thread) -> str:
    if thread is threading.main_thread():
        return "loop"
    if getattr(getattr(thread, "_target", None), "__name__", "") == "_connection_worker_thread":
        return "aiosqlite"
    if thread.name.startswith("arbitro-checkpoint"):
        return "checkpoint"
    if thread.name.startswith("arbitro-rules"):
        return "rules"
    if thread.name.startswith(("uvloop_", "asyncio_")):
        return "executor"  # the loop's default executor (asyncio.to_thread)
    _unknown.add(thread.name)
    return "other"


def _cpu_by_thread() -> dict[str, float]:
    """Every thread's CPU so far, in seconds, summed by kind (schedstat: nanoseconds)."""
    kinds = {thread.native_id: _thread_kind(thread) for thread in threading.enumerate()}
    spent: dict[str, float] = defaultdict(float)
    for task in Path("/proc/self/task").iterdir():
        try:
            nanoseconds = int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue
        kind = kinds.get(int(task.name))
        if kind is None:
            kind = "other"
            _unknown.add((task / "comm").read_text().strip())
        spent[kind] += nanoseconds / 1e9
    return spent


async def play(commands: int, versions: int, pace: float, profile: bool) -> list[Row]:
    folder = tempfile.mkdtemp(prefix="bench-tail-")
    path = f"{folder}/arbitro.db"
    store = await SqliteStore.open(path)
    service = GameService(store)
    settle_pages()  # as bench_web: what `arbitro run` freezes at start
    command = commands_of(service)
    await two_games(command, store, versions)
    _instrument()
    toggles = {GAME: itertools.cycle(_TOGGLE), OTHER: itertools.cycle(_TOGGLE)}
    shm = Path(f"{path}-shm")
    rows: list[Row] = []
    for index in range(commands):
        channel = (GAME, OTHER)[index % 2]
        verb, options = next(toggles[channel])
        row = Row(index, channel, verb)
        watch.collections, watch.paused, watch.kept, watch.hops = [0, 0, 0], 0.0, None, 0
        watch.profiles = []
        loop_profile = cProfile.Profile(time.thread_time) if profile else None
        watch.profiling = profile
        behind, _ = wal_frames(shm)
        cpu = _cpu_by_thread()
        moment = time.perf_counter()
        if loop_profile is not None:
            loop_profile.enable()
        await command(channel, REFEREE, verb, user=ANNA, **options)
        if loop_profile is not None:
            loop_profile.disable()
        row.wall = time.perf_counter() - moment
        after = _cpu_by_thread()
        watch.profiling = False
        row.cpu = {kind: after.get(kind, 0.0) - cpu.get(kind, 0.0) for kind in THREADS}
        row.kept = bool(watch.kept)
        row.collections = (watch.collections[0], watch.collections[1], watch.collections[2])
        row.paused = watch.paused
        row.hops = watch.hops
        behind_after, _ = wal_frames(shm)
        row.copied_back = max(0, behind + 2 - behind_after)  # a command appends ~2 frames
        if loop_profile is not None:
            stats = pstats.Stats(loop_profile)
            for other in watch.profiles:
                stats.add(other)
            row.profile = stats
        rows.append(row)
        if index % 2:
            await asyncio.sleep(pace)
    versions_of = {channel: (await store.load(channel)).version for channel in (GAME, OTHER)}
    await store.close()
    _mark_snapshots(path, rows, versions_of)
    return rows


def _mark_snapshots(path: str, rows: list[Row], heads: dict[int, int]) -> None:
    """Each row's version (counted back from the heads: every command writes one) and
    whether the store kept it as a snapshot."""
    for channel, head in heads.items():
        mine = [row for row in rows if row.channel == channel]
        for offset, row in enumerate(reversed(mine)):
            row.version = head - offset
    with sqlite3.connect(path) as connection:
        kept = set(connection.execute("SELECT channel_id, version FROM patches WHERE snapshot"))
    for row in rows:
        row.snapshot = (row.channel, row.version) in kept


def _on_thread(kind: str) -> Callable[[Row], float]:
    return lambda row: row.cpu[kind]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:6.2f}" if values else "     -"


def report(rows: list[Row], tail: float, top: int) -> None:
    ordered = sorted(rows, key=lambda row: row.total)
    slowest = ordered[-max(1, int(len(rows) * tail)) :]
    print(f"{len(rows)} commands; the slowest {len(slowest)} by the process's CPU")
    print(f"{'medians, ms':<24}{'all':>8}{'tail':>8}")
    for label, of in (
        ("wall", lambda row: row.wall),
        ("CPU, every thread", lambda row: row.total),
        *((f"CPU, {kind}", _on_thread(kind)) for kind in THREADS),
        ("collector's pauses", lambda row: row.paused),
    ):
        print(f"{label:<24}{_ms([of(r) for r in rows]):>8}{_ms([of(r) for r in slowest]):>8}")
    print("\nkinds, share of all commands / of the tail (median CPU of the tail's, ms)")
    kinds: dict[str, Callable[[Row], bool]] = {
        "on the long game": lambda row: row.channel == GAME,
        "seat.assign": lambda row: row.verb == "seat.assign",
        "game not kept": lambda row: not row.kept,
        "stored as a snapshot": lambda row: row.snapshot,
        "young collection": lambda row: row.collections[0] > 0,
        "middle collection": lambda row: row.collections[1] > 0,
        "full collection": lambda row: row.collections[2] > 0,
        "checkpoint copied back": lambda row: row.copied_back > 0,
        "checkpoint thread ran": lambda row: row.cpu["checkpoint"] > 0,
        "more than 8 hops": lambda row: row.hops > 8,
    }
    for label, test in kinds.items():
        mine = [row for row in slowest if test(row)]
        share = sum(map(test, rows)) / len(rows)
        print(
            f"{label:<24}{share:>7.1%} /{len(mine) / len(slowest):>7.1%}"
            f"  ({_ms([row.total for row in mine]).strip()})"
        )
    for verb in ("seat.assign", "seat.remove"):
        mine = [row for row in rows if row.verb == verb]
        print(
            f"{verb}: CPU p50 {_ms([r.total for r in mine]).strip()}, loop "
            f"{_ms([r.cpu['loop'] for r in mine]).strip()}, aiosqlite "
            f"{_ms([r.cpu['aiosqlite'] for r in mine]).strip()}, executor "
            f"{_ms([r.cpu['executor'] for r in mine]).strip()}, wall "
            f"{_ms([r.wall for r in mine]).strip()}, hops "
            f"{statistics.median(r.hops for r in mine)}"
        )
    hops = Counter(row.hops for row in slowest)
    print(f"hops in the tail: {dict(sorted(hops.items()))}")
    print("\nthe tail, slowest first: index channel verb version kept snapshot gc CPU/thread")
    for row in reversed(slowest[-12:]):
        print(
            f"  {row.index:5} {row.channel} {row.verb:<12} v{row.version:<5} kept={row.kept:d} "
            f"snap={row.snapshot:d} gc={row.collections} paused={row.paused * 1e3:.2f} "
            f"copied={row.copied_back} "
            + " ".join(f"{k}={v * 1e3:.2f}" for k, v in row.cpu.items() if v)
        )
    if rows[0].profile is not None:
        _profile_difference(rows, slowest, top)


def _profile_difference(rows: list[Row], slowest: list[Row], top: int) -> None:
    """The functions whose own time per command is larger in the tail than in all."""

    def per_command(chosen: list[Row]) -> dict[Any, tuple[float, float, float]]:
        summed: dict[Any, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for row in chosen:
            for key, (_, calls, tottime, cumtime, _) in row.profile.stats.items():  # type: ignore[union-attr]
                summed[key][0] += tottime
                summed[key][1] += cumtime
                summed[key][2] += calls
        return {
            key: (own / len(chosen), cum / len(chosen), calls / len(chosen))
            for key, (own, cum, calls) in summed.items()
        }

    everyone, tail = per_command(rows), per_command(slowest)
    for inclusive in (False, True):
        column = 1 if inclusive else 0
        print(
            f"\ncProfile: {'cumulative' if inclusive else 'own'} time per command, the tail "
            "against all (ms, calls per command)"
        )
        ranked = sorted(
            tail, key=lambda key: -(tail[key][column] - everyone.get(key, (0, 0, 0))[column])
        )[:top]
        for key in ranked:
            file, line, name = key
            where = f"{Path(file).parent.name}/{Path(file).name}:{line}" if line else file
            base = everyone.get(key, (0.0, 0.0, 0.0))
            print(
                f"{tail[key][column] * 1e3:8.3f} {base[column] * 1e3:8.3f} "
                f"{tail[key][2]:7.1f} {base[2]:7.1f}  {name} ({where})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between pairs")
    parser.add_argument("--tail", type=float, default=0.02, help="share of slowest commands")
    parser.add_argument("--profile", action="store_true", help="cProfile every command")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--checkpoint-interval",
        type=float,
        help="seconds between the WAL's background checkpoints (db.drivers.checkpoint)",
    )
    parser.add_argument("--dump", type=Path, help="write every command's row there (JSON)")
    arguments = parser.parse_args()
    if arguments.checkpoint_interval is not None:
        defaults = checkpoint.Checkpointer.__init__.__kwdefaults__ or {}
        defaults["interval_s"] = arguments.checkpoint_interval
    rows = app_loop.run(
        play(arguments.commands, arguments.versions, arguments.pace, arguments.profile)
    )
    report(rows, arguments.tail, arguments.top)
    if arguments.dump is not None:
        fields = (
            "index",
            "channel",
            "verb",
            "version",
            "wall",
            "cpu",
            "kept",
            "snapshot",
            "collections",
            "paused",
            "copied_back",
            "hops",
        )
        arguments.dump.write_text(
            json.dumps([{name: getattr(row, name) for name in fields} for row in rows])
        )
    print(f"threads not named by Python (counted as 'other'): {sorted(_unknown)}")


if __name__ == "__main__":
    main()
