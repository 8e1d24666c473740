"""Where a command's time goes: its phases, and each thread's CPU, one command at a time.

The channels and commands of `bench_command_path` (random legal actions of the four
rulesets' bundled scenarios, on the embedded SQLite default), played at concurrency 1.
Printed, per committed command (odds and status reads left out), p50 and mean in ms:

* each thread's CPU time (``time.thread_time``): the event loop's, the rules thread's (the
  command's one job), aiosqlite's (inside the functions it runs: the statements, the
  fsync's wait not counted) — and the wall time besides them: hand-overs between the
  threads, waiting for a core, the fsync;
* the phases, each timed exclusive of the others nested in it: the state's validation
  (``_load_state``), the rules' own work in ``act``, the dump of the new state, the parts
  of the views (whose move, the buttons, the status, the picture), the document's and the
  event's preparation for the store (canonical JSON, patch), on the loop the kept head's
  parse and the event's hashes; the store's read and commit inclusive, as the loop waits
  for them;
* how many functions the command sent to aiosqlite's thread (each a hop and back), in all
  and per store operation and statement (``hops, append: INSERT``);
* the cyclic garbage collector's pauses (which stop every thread) and full collections;
* with ``--profile-loop N``: the event loop's iterations and callbacks per command, and the
  N functions that take most of the loop's own time (cProfile, which sees only the thread
  that enables it: the loop's), per committed command (a refused command's profile is left
  out; a coroutine's "calls" count its resumptions); ``--callers PATTERN`` shows who calls
  the functions matching it. The counts patch asyncio's own loop
  (``BaseEventLoop._run_once``, ``Handle._run``): uvloop's (the default, bot/app/loop.py)
  is C, so there the profile shows the Python the loop runs, without counts or the loop's
  own machinery; ``ARBITRO_EVENT_LOOP=asyncio`` profiles asyncio's;
* with ``--profile-rules N``: the rules thread's CPU per ruleset and verb, and the N
  functions that take most of it (cProfile enabled inside the rules job itself), per
  command.

The phases are found by wrapping the functions that do them (this bench reaches into the
code it measures, and must follow it when that moves). The wrappers cost a little of each
phase; ``--cpu-only`` takes the threads' CPU without them.

Run: ``.venv/bin/python bench/bench_command_phases.py [--channels N] [--commands N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for entry in (ROOT, ROOT / "bench"):
    if str(entry) not in sys.path:  # Runnable as a plain script from anywhere.
        sys.path.insert(0, str(entry))

import aiosqlite.core  # noqa: E402
import bench_command_path as path_bench  # noqa: E402

import bot.service.core as service_core  # noqa: E402
import bot.service.play as service_play  # noqa: E402
import bot.service.workers as workers  # noqa: E402
import db.chain.prepare as store_prepare  # noqa: E402
import db.core.games as store_games  # noqa: E402
import db.store as store_module  # noqa: E402
import rules.core.play as rules_play  # noqa: E402
from bot.app import loop as app_loop  # noqa: E402
from bot.app.warmup import settle_heap  # noqa: E402
from bot.service import GameService  # noqa: E402
from db.drivers.sqlite import SqliteStore  # noqa: E402
from rules.core.errors import RulesError  # noqa: E402

# Phase name -> seconds spent in the command being measured (exclusive of nested phases).
_spent: dict[str, float] = defaultdict(float)
_nesting = threading.local()
_cpu = {"rules": 0.0, "aiosqlite": 0.0, "hops": 0}
# The functions sent to aiosqlite's thread in the command being measured, per store
# operation (the step function the store ran) and statement's first word.
_hops: dict[str, int] = defaultdict(int)
# The store operation under way (commands are measured one at a time).
_operation = {"name": "(none)"}
# Set by ``--profile-rules``: enabled inside each rules job of a measured command.
_rules_profile: list[cProfile.Profile] = []
_measuring = threading.Event()  # set while a measured command runs
# The event loop's iterations and the callbacks it ran, in the command being measured.
_loop = {"iterations": 0, "callbacks": 0}
#: Whether the loop's iterations and callbacks are counted (asyncio's loop only: `_count_loop`).
_loop_counted = False
# The cyclic garbage collector's pauses in the command being measured (any thread's).
_gc = {"seconds": 0.0, "started": 0.0, "full": 0}


def _time_gc() -> None:
    """Time every collection of the cyclic garbage collector (it stops every thread)."""

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _gc["started"] = time.perf_counter()
            return
        _gc["seconds"] += time.perf_counter() - _gc["started"]
        _gc["full"] += info["generation"] == 2

    gc.callbacks.append(timed)


def _exclusive(owner: Any, name: str, label: str) -> None:
    """Time ``owner.name`` as phase ``label``, without the phases it calls."""
    function: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        stack: list[float] = _nesting.__dict__.setdefault("stack", [])
        started = time.perf_counter()
        stack.append(0.0)
        try:
            return function(*args, **kwargs)
        finally:
            spent = time.perf_counter() - started
            inner = stack.pop()
            _spent[label] += spent - inner
            if stack:
                stack[-1] += spent

    setattr(owner, name, timed)


def _inclusive(owner: Any, name: str, label: str) -> None:
    """Time the coroutine function ``owner.name`` as phase ``label``, all of it."""
    function: Callable[..., Any] = getattr(owner, name)

    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            _spent[label] += time.perf_counter() - started

    setattr(owner, name, timed)


def _count_threads() -> None:
    """Each thread's CPU: the rules job's, and that of every function aiosqlite runs."""
    run = workers.ChannelWorkers.run

    async def timed_run(self: workers.ChannelWorkers, key: Any, job: Callable[[], Any]) -> Any:
        def rules_job() -> Any:
            started = time.thread_time()
            profiled = bool(_rules_profile) and _measuring.is_set()
            if profiled:
                _rules_profile[0].enable()  # cProfile sees the thread that enables it
            try:
                return job()
            finally:
                if profiled:
                    _rules_profile[0].disable()
                _cpu["rules"] += time.thread_time() - started

        return await run(self, key, rules_job)

    workers.ChannelWorkers.run = timed_run  # type: ignore[method-assign]
    execute = aiosqlite.core.Connection._execute

    async def counted(self: Any, function: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        def timed(*inner: Any, **inner_kw: Any) -> Any:
            started = time.thread_time()
            try:
                return function(*inner, **inner_kw)
            finally:
                _cpu["aiosqlite"] += time.thread_time() - started

        _cpu["hops"] += 1
        sql = args[0] if args and isinstance(args[0], str) else ""
        _hops[f"{_operation['name']}: {sql.split(maxsplit=1)[0] if sql else '?'}"] += 1
        return await execute(self, timed, *args, **kw)

    aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]
    store_run = store_module.CoreStore._run

    def named(self: Any, steps: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        _operation["name"] = getattr(steps, "func", steps).__name__
        return store_run(self, steps, *args, **kw)

    store_module.CoreStore._run = named  # type: ignore[method-assign]


def _count_loop() -> None:
    """Count the event loop's iterations and the callbacks (task steps, futures' wake-ups,
    ``call_soon_threadsafe`` from the other threads) it runs: asyncio's loop only (uvloop's
    runs them in C, out of reach of a patch)."""
    global _loop_counted
    _loop_counted = True
    run_once = asyncio.BaseEventLoop._run_once  # type: ignore[attr-defined]
    run_handle = asyncio.Handle._run

    def counted_once(self: asyncio.AbstractEventLoop) -> None:
        _loop["iterations"] += 1
        run_once(self)

    def counted_handle(self: asyncio.Handle) -> None:
        _loop["callbacks"] += 1
        run_handle(self)

    asyncio.BaseEventLoop._run_once = counted_once  # type: ignore[attr-defined]
    asyncio.Handle._run = counted_handle  # type: ignore[method-assign]


def _time_phases() -> None:
    document_rules = rules_play.DocumentRules
    source = rules_play.StateSource
    for owner, name, label in (
        (document_rules, "_load_state", "rules: validate the state"),
        (document_rules, "play_on", "rules: act (the rules' own work)"),
        (document_rules, "_document", "rules: dump the new state"),
        (source, "prompts", "rules: view, buttons and owed"),
        (source, "turn", "rules: view, whose turn"),
        (source, "status", "rules: view, status"),
        (source, "map", "rules: view, picture"),
        (source, "marks", "rules: view, marks"),
        (source, "result", "rules: view, result"),
        (document_rules, "sides", "sides' names"),
        (store_prepare.CommitPreparer, "prepare", "store prep: document, patch"),
        (service_play, "prepare_event", "store prep: event texts"),
        (service_play, "command_event", "service: the command's event"),
        (service_play, "channel_map", "service: the picture, localized"),
        (service_play, "status_caption", "service: the picture's caption"),
        (store_module, "parse_kept", "loop: parse the kept head"),
        (store_games, "event_writes", "loop: event hashes and rows"),
    ):
        _exclusive(owner, name, label)
    _inclusive(service_core, "open_table", "store: open_command (loop waits)")


async def _measure(
    channels: int, commands: int, folder: Path, profiled: list[pstats.Stats] | None = None
) -> list[dict[str, float]]:
    """The rows of the committed commands; with ``profiled`` (a list to fill), the event
    loop's profile of those commands alone (a refused command's is left out)."""
    settle_heap()  # as the bot does once started (`arbitro run`)
    print(f"event loop: {app_loop.running_loop_name()} ({app_loop.EVENT_LOOP_ENV} chooses)")
    store = await SqliteStore.open(str(folder / "phases.db"))
    _inclusive(store, "commit", "store: commit (loop waits)")
    service = GameService(store)
    table = path_bench.Table(channels, seed=20261123)
    await path_bench.create(service, table)
    rows: list[dict[str, float]] = []
    channel_ids = list(table.ruleset)
    while len(rows) < commands:
        channel = table.rng.choice(channel_ids)
        record = await store.load(channel)
        request = table.request(channel, record.document)
        if request is None or request.verb in ("odds", "game.status"):
            continue
        await asyncio.sleep(0.002)  # the read's own COMMIT behind it is done
        _spent.clear()
        _hops.clear()
        _cpu.update(rules=0.0, aiosqlite=0.0, hops=0)
        _loop.update(iterations=0, callbacks=0)
        _gc.update(seconds=0.0, full=0)
        wall, loop_cpu = time.perf_counter(), time.thread_time()
        # CPU time: a wait for the GIL is not the loop's work.
        profile = None if profiled is None else cProfile.Profile(time.thread_time)
        if profile is not None:
            profile.enable()
        _measuring.set()
        try:
            await service.handle(request)
        except RulesError:
            continue
        finally:
            _measuring.clear()
            if profile is not None:
                profile.disable()
        if profile is not None and profiled is not None:
            if profiled:
                profiled[0].add(profile)
            else:
                profiled.append(pstats.Stats(profile))
        row = dict(_spent)
        row["ruleset"], row["verb"] = table.ruleset[channel][0], request.verb  # type: ignore[assignment]
        row["wall"] = time.perf_counter() - wall
        row["CPU: event loop"] = time.thread_time() - loop_cpu
        row["CPU: rules thread"] = _cpu["rules"]
        row["CPU: aiosqlite thread"] = _cpu["aiosqlite"]
        row["wall besides the CPU"] = row["wall"] - sum(
            row[k] for k in ("CPU: event loop", "CPU: rules thread", "CPU: aiosqlite thread")
        )
        row["hops to aiosqlite's thread (count)"] = _cpu["hops"]
        for name, count in _hops.items():
            row[f"hops, {name} (count)"] = count
        row["garbage collector's pauses"] = _gc["seconds"]
        row["full collections (count)"] = _gc["full"]
        if _loop_counted:
            row["loop iterations (count)"] = _loop["iterations"]
            row["loop callbacks (count)"] = _loop["callbacks"]
        rows.append(row)
    await store.close()
    return rows


#: A row's labels, not figures: the command's ruleset and verb.
_LABELS = ("ruleset", "verb")


def _print_by_verb(rows: list[dict[str, float]]) -> None:
    """The rules thread's CPU per ruleset and verb."""
    groups: dict[tuple[Any, Any], list[float]] = defaultdict(list)
    for row in rows:
        groups[(row["ruleset"], row["verb"])].append(row["CPU: rules thread"])
    print("\nthe rules thread's CPU per ruleset and verb, ms (cProfile: slower than without it)")
    print(f"{'':<32}{'count':>6}{'p50':>9}{'mean':>9}")
    for (ruleset, verb), values in sorted(groups.items(), key=lambda item: -sum(item[1])):
        print(
            f"{ruleset + ' ' + verb:<32}{len(values):>6}"
            f"{statistics.median(values) * 1e3:>9.2f}{statistics.mean(values) * 1e3:>9.2f}"
        )


def _print_profile(
    title: str, stats: pstats.Stats, commands: int, top: int, *, inclusive: bool = False
) -> None:
    """The ``top`` functions by their own time (``inclusive``: with what they call), ms per
    command."""
    print(f"\n{title}, ms per command (cProfile: slower than without it)")
    entries = sorted(
        stats.stats.items(),  # type: ignore[attr-defined]
        key=lambda item: -item[1][3 if inclusive else 2],
    )[:top]
    print(f"{'tottime':>9}{'cumtime':>9}{'calls':>8}  function")
    for (file, line, name), (_, calls, tottime, cumtime, _) in entries:
        where = f"{Path(file).parent.name}/{Path(file).name}:{line}" if line else file
        print(
            f"{tottime / commands * 1e3:>9.3f}{cumtime / commands * 1e3:>9.3f}"
            f"{calls / commands:>8.1f}  {name} ({where})"
        )


def _print(rows: list[dict[str, float]]) -> None:
    names = sorted(
        {k for row in rows for k in row if k not in _LABELS},
        key=lambda k: (not k.startswith(("wall", "CPU", "hops")), k),
    )
    print(f"{len(rows)} committed commands; ms (counts as they are)")
    print(f"{'':<40}{'p50':>9}{'mean':>9}")
    for name in names:
        values = [row.get(name, 0.0) for row in rows]
        scale = 1 if name.endswith("(count)") else 1e3
        print(
            f"{name:<40}{statistics.median(values) * scale:>9.2f}"
            f"{statistics.mean(values) * scale:>9.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--channels", type=int, default=200)
    parser.add_argument("--commands", type=int, default=400)
    parser.add_argument("--cpu-only", action="store_true", help="no phase wrappers")
    parser.add_argument(
        "--profile-loop",
        type=int,
        default=0,
        metavar="N",
        help="profile the event loop (no phase wrappers); print its N costliest functions",
    )
    parser.add_argument(
        "--callers",
        metavar="PATTERN",
        help="with --profile-loop: print who calls the functions matching PATTERN on the loop",
    )
    parser.add_argument(
        "--profile-rules",
        type=int,
        default=0,
        metavar="N",
        help="profile the rules thread (no phase wrappers); print its N costliest functions",
    )
    parser.add_argument(
        "--profile-file",
        type=Path,
        metavar="PATH",
        help="with --profile-rules: also save the rules thread's profile (pstats) there",
    )
    arguments = parser.parse_args()
    _count_threads()
    _time_gc()
    profiled: list[pstats.Stats] | None = None
    if arguments.profile_loop:
        if app_loop.loop_name() == app_loop.ASYNCIO:
            _count_loop()
        profiled = []
    elif arguments.profile_rules:
        _rules_profile.append(cProfile.Profile(time.thread_time))
    elif not arguments.cpu_only:
        _time_phases()
    with tempfile.TemporaryDirectory() as folder:
        rows = app_loop.run(
            _measure(arguments.channels, arguments.commands, Path(folder), profiled)
        )
    _print(rows)
    if profiled:
        if not _loop_counted:
            print(
                "\nuvloop's loop is C: its iterations and callbacks are not counted, and its "
                f"own machinery is not in the profile ({app_loop.EVENT_LOOP_ENV}=asyncio "
                "profiles asyncio's)"
            )
        _print_profile("the event loop's own CPU", profiled[0], len(rows), arguments.profile_loop)
        if arguments.callers:
            profiled[0].print_callers(arguments.callers)
    if _rules_profile:
        if arguments.profile_file is not None:
            _rules_profile[0].dump_stats(arguments.profile_file)
        _print_by_verb(rows)
        for inclusive in (False, True):
            _print_profile(
                "the rules thread's CPU" + (", with what each calls" if inclusive else ""),
                pstats.Stats(_rules_profile[0]),
                len(rows),
                arguments.profile_rules,
                inclusive=inclusive,
            )


if __name__ == "__main__":
    main()
