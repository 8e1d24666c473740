"""Benchmark: the web pages (bot/web/) of a 1,000-event game, and the bot's commands while
50 readers keep refreshing them, served beside the bot as ``ARBITRO_WEB_URL`` serves them.

Both ways of serving pages run at once and are measured turn about, so that each meets the
same load from the machine's other jobs: in the bot's own process on worker threads
(``threads``: as the tests, and a database in memory, serve them) and in a process of
their own on the same database (``process``: as ``arbitro run`` and ``arbitro console``
serve them, `bot.web.beside`).

1. A game's page (linea_gotica, hidden units; the last page of a 1,000-event log), after one
   warm-up request: built from scratch (every remembered page, picture and log line
   forgotten: threads only, the code is the same both ways), and built after a new event
   (a refresh after a command: the older lines remembered); target: p99 ≤ 50 ms. The same
   page answered 304 to a reader holding its ETag.
2. 50 readers (each their own link, sent from a process of their own as browsers would be)
   refresh the page and its picture every ``--refresh`` seconds, each with the ETag they
   hold, while a player's commands run on the same game and on another (each a new event:
   every reader's next refresh builds a new page). Phases turn about ``--cycles`` times:
   no readers, readers of the threads, readers of the pages' process. The commands' p50/p99
   in each (target: p99 ≤ 10 ms with the readers), how the readers were answered, and the
   bot process's CPU time a second (not inflated by the machine's other jobs).
   The browsers' own work (sending, reading, parsing the answers) is a phone's, not the
   server's: their process runs at niceness ``--crowd-nice`` (19 by default; 0 to let it
   compete with the bot for this machine's cores as it did before), and with
   ``--crowd-idle`` in Linux's idle scheduling class (a core only when nothing else here
   wants one: nearer browsers on other machines). The pages' process is the server's and
   runs as ``arbitro run`` runs it; ``--compare-idle`` adds readers of a second pages'
   process in the idle class (``ARBITRO_WEB_IDLE=1``), turn about with the others.
3. For each phase, the slowest 1% of commands taken apart (`Parts`): the bot process's CPU
   time, how long its threads waited for a core, the garbage collector's pauses, the
   store's writes; and the WAL's length in frames and how many were not yet copied back
   (read from the wal-index between commands).

For the threads, the three slowest pages of each kind are shown with the full garbage
collection of the bot's process that fell inside any of them (the pages' own process is
measured apart: docs/web.md, "Speed").

The last lines are each way's verdicts: PASS or FAIL for each target, and the ratios of the
commands' p99 and p50 with readers to those without.

Run: .venv/bin/python bench/bench_web.py [--rounds N] [--seconds S] [--cycles C]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import multiprocessing
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextlib import AsyncExitStack

from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

from bot.app import loop as app_loop
from bot.app.settings import load_settings
from bot.service import GameService, Request
from bot.service.links import LinkSigner, use_links
from bot.web.app import WebPages
from bot.web.beside import settle_pages, start_pages_process
from db.drivers.sqlite import SqliteStore

GAME, OTHER = 10, 11
REFEREE, ANNA, BRUNO = 1, 2, 3
READERS = 50
PAGE_TARGET_MS = 50
COMMANDS_TARGET_MS = 10
#: The two ways of building pages, measured turn about.
MODES = ("threads", "process")
SECRET = "a bench secret of some length"
#: The commands each game takes turn about (verb, who, options): a seat taken and given
#: up, which leaves the game's document as it was (a new head, the same state) ...
_TOGGLE: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("seat.assign", REFEREE, {"user": ANNA, "side": "alleati"}),
    ("seat.remove", REFEREE, {"user": ANNA}),
)
#: ... or, with ``--plays``, a play and its undo: the initiative rolled by the Germans'
#: player, then undone by the referee, so that every head has a document of its own.
_PLAYS: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("turn.next", BRUNO, {}),
    ("game.undo", REFEREE, {}),
)


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def figures(values: list[float]) -> str:
    return (
        f"n={len(values)} p50 {p(values, 0.5):.1f} ms, p99 {p(values, 0.99):.1f} ms, "
        f"mean {statistics.mean(values) * 1000:.1f} ms"
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


async def main(
    rounds: int,
    seconds: float,
    refresh: float,
    cycles: int,
    crowd_nice: int = 19,
    crowd_idle: bool = False,
    compare_idle: bool = False,
    plays: bool = False,
) -> None:
    modes = (*MODES, "idle") if compare_idle else MODES
    folder = tempfile.mkdtemp(prefix="bench-web-")
    store = await SqliteStore.open(f"{folder}/arbitro.db")
    service = GameService(store)
    # What the bot's process keeps for life frozen out of the collector's sight, as
    # `arbitro run` does at start (`bot.app.warmup`), with the pages' templates: the
    # threads' pages are served from it.
    settle_pages()
    # Each game's own turn of seating and unseating (whatever number of rounds went before).
    turns = _PLAYS if plays else _TOGGLE
    toggles = {GAME: itertools.cycle(turns), OTHER: itertools.cycle(turns)}
    command = commands_of(service)

    async def new_event() -> None:
        verb, who, options = next(toggles[GAME])
        await command(GAME, who, verb, **options)

    started = time.perf_counter()
    await two_games(command, store, 1_000)
    version = (await store.load(GAME)).version
    print(f"game of {version} events written in {time.perf_counter() - started:.1f} s")

    signer = LinkSigner(SECRET, "http://bench")
    use_links(signer)
    here = WebPages(store, signer, "en")
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(TestServer(here.application(), host="127.0.0.1"))
        # As `arbitro run` serves them: a process of their own on the same database.
        os.environ.update(
            ARBITRO_WEB_URL="http://bench",
            ARBITRO_WEB_SECRET=SECRET,
            ARBITRO_DB=f"{folder}/arbitro.db",
            ARBITRO_LOG_LEVEL="WARNING",
        )
        beside = await start_pages_process(load_settings(), "127.0.0.1", free_port())
        stack.push_async_callback(beside.stop)
        bases = {
            "threads": f"http://127.0.0.1:{server.port}",
            "process": "http://{}:{}".format(*beside.address),
        }
        pids = {"process": beside.process.pid}
        if compare_idle:  # a pages' process in Linux's idle scheduling class
            os.environ["ARBITRO_WEB_IDLE"] = "1"
            idle = await start_pages_process(load_settings(), "127.0.0.1", free_port())
            del os.environ["ARBITRO_WEB_IDLE"]
            stack.push_async_callback(idle.stop)
            bases["idle"] = "http://{}:{}".format(*idle.address)
            pids["idle"] = idle.process.pid
        session = await stack.enter_async_context(ClientSession())
        own = signer.relative(signer.link("game", GAME, BRUNO))

        # Full garbage collections in this process (the threads' pages), to tell whether
        # the slowest pages are the ones a full collection landed in.
        full_passes: list[tuple[float, float]] = []
        passing: list[float] = []

        def on_collection(phase: str, info: dict[str, int]) -> None:
            if info["generation"] == 2 and phase == "start":
                passing[:] = [time.perf_counter()]
            elif info["generation"] == 2 and passing:
                full_passes.append((passing[0], time.perf_counter()))

        gc.callbacks.append(on_collection)
        spans: dict[str, list[tuple[float, float]]] = {"cold": [], "fresh": []}

        async def timed(mode: str, headers: dict[str, str] | None = None) -> tuple[float, str]:
            moment = time.perf_counter()
            async with session.get(bases[mode] + own, headers=headers) as response:
                await response.read()
                assert response.status in (200, 304), response.status
                return time.perf_counter() - moment, response.headers["ETag"]

        for mode in modes:  # warm up: the pages' process, its verified chain
            await timed(mode)
        cold: dict[str, list[float]] = {"threads": []}
        fresh: dict[str, list[float]] = {mode: [] for mode in modes}
        unchanged: dict[str, list[float]] = {mode: [] for mode in modes}
        for number in range(rounds):
            order = modes if number % 2 == 0 else modes[::-1]  # turn about: the same load
            here.forget()  # nothing remembered: built from scratch (the same code, both ways)
            moment = time.perf_counter()
            cold["threads"].append((await timed("threads"))[0])
            spans["cold"].append((moment, time.perf_counter()))
            await new_event()  # a new head: a refresh after a command
            for mode in order:
                moment = time.perf_counter()
                spent, tag = await timed(mode)
                fresh[mode].append(spent)
                if mode == "threads":
                    spans["fresh"].append((moment, time.perf_counter()))
                unchanged[mode].append((await timed(mode, {"If-None-Match": tag}))[0])
        gc.callbacks.remove(on_collection)
        print(f"[threads] {slowest_pages(spans, full_passes)}")
        page_p99 = {}
        for mode in modes:
            page_p99[mode] = max(
                p(values, 0.99) for values in (cold.get(mode, []), fresh[mode]) if values
            )
            if mode in cold:
                print(
                    f"[{mode}] page of a {version}-event game from scratch: {figures(cold[mode])}"
                )
            print(f"[{mode}] the same after a new event: {figures(fresh[mode])}")
            print(f"[{mode}] 304 to a reader holding its ETag: {figures(unchanged[mode])}")

        tails: dict[str, list[Parts]] = {}
        wal = Path(f"{folder}/arbitro.db-shm")
        wal_sizes: dict[str, list[tuple[int, int]]] = {}
        gc.callbacks.append(pauses.on_collection)
        store_execute = store._execute

        async def timed_execute(operation: Any) -> Any:
            if operation.transaction != "write":
                return await store_execute(operation)
            moment = time.perf_counter()
            try:
                return await store_execute(operation)
            finally:
                pauses.writing += time.perf_counter() - moment

        store._execute = timed_execute  # type: ignore[method-assign]

        async def commands(span: float, label: str) -> list[float]:
            """A command on the game and one on another game every 50 ms, timed; each
            command's parts kept for the tail (`Parts`), the WAL's size after each."""
            timings: list[float] = []
            parts = tails.setdefault(label, [])
            sizes = wal_sizes.setdefault(label, [])
            end = time.perf_counter() + span
            while time.perf_counter() < end:
                for channel in (GAME, OTHER):
                    verb, who, options = next(toggles[channel])
                    waited, cpu, paused, written = (
                        run_queue_wait(),
                        time.process_time(),
                        pauses.paused,
                        pauses.writing,
                    )
                    moment = time.perf_counter()
                    await command(channel, who, verb, **options)
                    spent = time.perf_counter() - moment
                    timings.append(spent)
                    parts.append(
                        Parts(
                            spent,
                            time.process_time() - cpu,
                            run_queue_wait() - waited,
                            pauses.paused - paused,
                            pauses.writing - written,
                        )
                    )
                    sizes.append(wal_frames(wal))
                await asyncio.sleep(0.05)
            return timings

        # The readers are browsers elsewhere: their requests are sent from a process of
        # their own, so the bot's process pays only for answering them. Phases turn about
        # (no readers, readers of the threads, readers of the pages' own process), so each
        # way meets the same load from the machine's other jobs.
        span = seconds / cycles
        alone: list[float] = []
        # The bot process's CPU time (every thread) per second of each phase: unlike the
        # latencies, not inflated by the other jobs on the machine.
        busy: dict[str, list[float]] = {"alone": [], **{mode: [] for mode in modes}}

        async def phase(label: str, span: float) -> list[float]:
            cpu, wall = time.process_time(), time.perf_counter()
            timings = await commands(span, label)
            busy[label].append((time.process_time() - cpu) / (time.perf_counter() - wall))
            return timings

        crowded: dict[str, list[float]] = {mode: [] for mode in modes}
        # CPU seconds of the machine's cores the pages' own processes and the browsers
        # took in each mode's phases (the threads' pages are the bot's process's).
        others = {mode: {"pages": 0.0, "browsers": 0.0} for mode in modes}
        answered: dict[str, dict[str, int]] = {mode: {} for mode in modes}
        spawn = multiprocessing.get_context("spawn")
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(
            1, mp_context=spawn, initializer=lower_crowd, initargs=(crowd_nice, crowd_idle)
        ) as crowd:
            await loop.run_in_executor(crowd, int, 0)  # started before the clock runs
            for _ in range(cycles):
                alone += await phase("alone", span)
                for mode in modes:
                    links = [
                        bases[mode] + signer.relative(signer.link("game", GAME, 100 + n))
                        for n in range(READERS)
                    ]
                    reading = loop.run_in_executor(crowd, read_in_a_crowd, links, refresh, span)
                    served = cpu_seconds(pids.get(mode))
                    crowded[mode] += await phase(mode, span)
                    served = cpu_seconds(pids.get(mode)) - served
                    counts, browsing = await reading
                    for status, count in counts.items():
                        answered[mode][status] = answered[mode].get(status, 0) + count
                    others[mode]["pages"] += served
                    others[mode]["browsers"] += browsing
        print(
            f"commands (both games), no readers: {figures(alone)}; "
            f"the bot's process busy {statistics.mean(busy['alone']) * 1000:.0f} ms a second"
        )
        for mode in modes:
            print(
                f"[{mode}] commands (both games), {READERS} readers refreshing every "
                f"{refresh} s (page and picture): {figures(crowded[mode])}; "
                f"answers {dict(sorted(answered[mode].items()))}; the bot's process busy "
                f"{statistics.mean(busy[mode]) * 1000:.0f} ms a second, "
                + (
                    f"the pages' process {others[mode]['pages'] * 1000 / (span * cycles):.0f}, "
                    if mode in pids
                    else ""
                )
                + f"the browsers' {others[mode]['browsers'] * 1000 / (span * cycles):.0f}"
            )
        for label in ("alone", *modes):
            behind = max(frames[0] for frames in wal_sizes[label])
            longest = max(frames[1] for frames in wal_sizes[label])
            print(
                f"[{label}] {tail(tails[label])}; the WAL at most {longest} frames long, "
                f"{behind} not copied back"
            )
        before = p(alone, 0.99)
        for mode in modes:
            worst = p(crowded[mode], 0.99)
            print(
                f"[{mode}] page p99 {page_p99[mode]:.1f} ms <= {PAGE_TARGET_MS} ms: "
                f"{verdict(page_p99[mode] <= PAGE_TARGET_MS)}; commands p99 with {READERS} "
                f"readers {worst:.1f} ms <= {COMMANDS_TARGET_MS} ms: "
                f"{verdict(worst <= COMMANDS_TARGET_MS)} (without readers {before:.1f} ms: "
                f"x{worst / before:.2f}; p50 x{p(crowded[mode], 0.5) / p(alone, 0.5):.2f})"
            )
    await store.close()


#: A command sent to the bench's service: ``command(channel, who, verb, **options)``.
Command = Callable[..., Awaitable[None]]


def commands_of(service: GameService) -> Command:
    """Commands to ``service``, each with an interaction id of its own."""
    counter = itertools.count()

    async def command(channel: int, who: int, verb: str, /, **options: object) -> None:
        await service.handle(
            Request(channel, who, verb, options, guild_id=7, interaction_id=f"b{next(counter)}")
        )

    return command


async def two_games(command: Command, store: SqliteStore, versions: int) -> None:
    """The bench's two linea_gotica games, each with a player; the first seated and unseated
    until it has ``versions`` events."""
    for channel in (GAME, OTHER):
        await command(
            channel,
            REFEREE,
            "game.new",
            ruleset="linea_gotica",
            scenario="esempio_gotica_campo",
            language="en",
        )
        await command(channel, BRUNO, "game.join", side="tedeschi")
    while (await store.load(GAME)).version < versions:
        await command(GAME, REFEREE, "seat.assign", user=ANNA, side="alleati")
        await command(GAME, REFEREE, "seat.remove", user=ANNA)


@dataclass(frozen=True)
class Parts:
    """What a command's time was made of, in seconds: its wall time; the bot process's CPU
    time meanwhile (every thread); how long its threads waited on a run queue for a core
    (Linux's schedstat, summed over the threads); the garbage collector's pauses; the
    store's writes (queued on the store's thread, the statements, the fsync)."""

    wall: float
    cpu: float
    run_queue: float
    collecting: float
    writing: float


class _Pauses:
    """The garbage collector's pauses and the store's writes of this process, summed."""

    def __init__(self) -> None:
        self.paused = 0.0
        self.writing = 0.0
        self._started = 0.0

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.paused += time.perf_counter() - self._started


pauses = _Pauses()


def run_queue_wait() -> float:
    """Seconds the threads of this process have waited on a run queue for a core (0 where
    /proc has no schedstat); threads gone since are not counted, and none goes mid-run."""
    waited = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            waited += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return waited / 1e9


def wal_frames(shm: Path) -> tuple[int, int]:
    """The WAL's frames not yet copied back and its length in frames, from the wal-index
    header in the ``-shm`` file (SQLite's file format: mxFrame at byte 16, nBackfill at 96):
    a WAL that restarts stays short; readers or a checkpoint falling behind let it grow.
    A read of 100 bytes, taken between two timed commands."""
    with shm.open("rb") as index:
        header = index.read(100)
    if len(header) < 100:
        return 0, 0
    length = int.from_bytes(header[16:20], sys.byteorder)
    copied = int.from_bytes(header[96:100], sys.byteorder)
    return length - copied, length


def tail(parts: list[Parts]) -> str:
    """The slowest 1% of commands: their median wall time and what it was made of (ms)."""
    slowest = sorted(parts, key=lambda part: part.wall)[-max(1, len(parts) // 100) :]

    def median(of: Callable[[Parts], float]) -> float:
        return statistics.median(of(part) for part in slowest) * 1000

    return (
        f"slowest 1% of commands ({len(slowest)}), medians: wall {median(lambda x: x.wall):.1f}, "
        f"CPU {median(lambda x: x.cpu):.1f}, waiting for a core "
        f"{median(lambda x: x.run_queue):.1f}, collector {median(lambda x: x.collecting):.1f}, "
        f"store writes {median(lambda x: x.writing):.1f} ms (all commands' medians: wall "
        f"{statistics.median(x.wall for x in parts) * 1000:.1f}, waiting for a core "
        f"{statistics.median(x.run_queue for x in parts) * 1000:.1f})"
    )


def slowest_pages(
    spans: dict[str, list[tuple[float, float]]], full_passes: list[tuple[float, float]]
) -> str:
    """The slowest threads' pages of each kind, each with the full garbage collection that
    fell inside it, if any (ms)."""
    told = []
    for kind, timed_spans in spans.items():
        slowest = sorted(timed_spans, key=lambda span: span[0] - span[1])[:3]
        shown = []
        for start, end in slowest:
            inside = [stop - begin for begin, stop in full_passes if start <= begin < end]
            passes = f" (full collection {inside[0] * 1000:.1f})" if inside else ""
            shown.append(f"{(end - start) * 1000:.1f}{passes}")
        told.append(f"{kind}: {', '.join(shown)}")
    return (
        f"slowest pages, ms: {'; '.join(told)}; full collections in this process: "
        f"{len(full_passes)}, each {figures([stop - begin for begin, stop in full_passes])}"
        if full_passes
        else f"slowest pages, ms: {'; '.join(told)}; no full collection in this process"
    )


def lower_crowd(nice: int, idle: bool) -> None:
    """The browsers' process: at niceness ``nice``, with ``idle`` in the idle scheduling
    class (a core only when nothing else of this machine wants one)."""
    os.nice(nice)
    if idle:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def read_in_a_crowd(
    links: list[str], refresh: float, seconds: float
) -> tuple[dict[str, int], float]:
    """In a process of its own: each link refreshed every ``refresh`` seconds as a browser
    does (the page, then its picture, each with the ETag it holds), for ``seconds``; how
    many answers of each status, and the CPU seconds the browsers took doing it."""
    started = time.process_time()
    counts = app_loop.run(_crowd(links, refresh, seconds))
    return counts, time.process_time() - started


def cpu_seconds(pid: int | None) -> float:
    """The CPU time process ``pid`` has taken (user and system, every thread; 0 for None)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _crowd(links: list[str], refresh: float, seconds: float) -> dict[str, int]:
    counts: dict[str, int] = {}
    end = time.perf_counter() + seconds

    async def get(session: ClientSession, url: str, held: dict[str, str]) -> None:
        async with session.get(url, headers={"If-None-Match": held.get(url, "")}) as response:
            await response.read()
            held[url] = response.headers.get("ETag", held.get(url, ""))
            counts[str(response.status)] = counts.get(str(response.status), 0) + 1

    async def reader(index: int, link: str, session: ClientSession) -> None:
        held: dict[str, str] = {}
        await asyncio.sleep(refresh * index / len(links))  # readers spread out
        while time.perf_counter() < end:
            await get(session, link, held)
            await get(session, link + "/map.png", held)
            await asyncio.sleep(refresh)

    async with ClientSession() as session:
        await asyncio.gather(*(reader(n, link, session) for n, link in enumerate(links)))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="readers' time, each way")
    parser.add_argument("--refresh", type=float, default=1.0)
    parser.add_argument("--cycles", type=int, default=4, help="phases turn about this often")
    parser.add_argument(
        "--crowd-nice", type=int, default=19, help="the browsers' process's niceness (0-19)"
    )
    parser.add_argument(
        "--crowd-idle",
        action="store_true",
        help="the browsers' process in the idle scheduling class: it takes no core the "
        "bot or its pages want (browsers are on other machines)",
    )
    parser.add_argument(
        "--compare-idle",
        action="store_true",
        help="also readers of a pages' process in the idle scheduling class "
        "(ARBITRO_WEB_IDLE=1), turn about",
    )
    parser.add_argument(
        "--plays",
        action="store_true",
        help="the commands are a play and its undo (every head a new document), "
        "not a seat taken and given up (every head the same document)",
    )
    arguments = parser.parse_args()
    app_loop.run(
        main(
            arguments.rounds,
            arguments.seconds,
            arguments.refresh,
            arguments.cycles,
            arguments.crowd_nice,
            arguments.crowd_idle,
            arguments.compare_idle,
            arguments.plays,
        )
    )
