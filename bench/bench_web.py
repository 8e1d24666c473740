"""Benchmark: the web pages (bot/web/) of a 1,000-event game, and the bot's commands while
50 readers keep refreshing them, served beside the bot as ``ARBITRO_WEB_URL`` serves them.

Each way of building pages is measured in turn, in one run: on the server's own threads
(``threads``: as the tests serve them) and in a page process of its own (``process``: as
``arbitro run`` and ``arbitro web`` serve them, `bot.web.processes`).

1. A game's page (linea_gotica, hidden units; the last page of a 1,000-event log), after one
   warm-up request: built from scratch (every remembered page and log line forgotten), and
   built after a new event (a refresh after a command: the older lines remembered),
   p50/p99 (target: p99 ≤ 50 ms for both); the same page answered 304 to a reader holding
   its ETag.
2. 50 readers (each their own link, sent from a process of their own as browsers would be)
   refresh the page every ``--refresh`` seconds, with the
   ETag they hold, while a player's commands run on the same game and on another (each a
   new event: every reader's next refresh builds a new page): the commands' p50/p99 without
   readers, then with them (target: p99 ≤ 10 ms with the readers), and how the readers
   were answered (200, 304, 503).

The last lines are each way's verdicts: PASS or FAIL for each target.

Run: .venv/bin/python bench/bench_web.py [--rounds N] [--seconds S] [--only threads|process]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

from bot.service import GameService, Request
from bot.service.web import use_links
from bot.web.app import WEB_PROCESSES, WebPages
from bot.web.links import LinkSigner
from db.sqlite import SqliteStore

GAME, OTHER = 10, 11
REFEREE, ANNA, BRUNO = 1, 2, 3
READERS = 50
PAGE_TARGET_MS = 50
COMMANDS_TARGET_MS = 10


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def measure(
    pages: WebPages,
    command: Callable[..., Awaitable[None]],
    signer: LinkSigner,
    version: int,
    rounds: int,
    seconds: float,
    refresh: float,
) -> str:
    """Both targets for ``pages``; its verdicts, one line."""
    async with TestServer(pages.application(), host="127.0.0.1") as server:
        base = f"http://127.0.0.1:{server.port}"
        async with ClientSession() as session:
            path = base + signer.relative(signer.link("game", GAME, BRUNO))
            async with session.get(path) as response:  # warm up: the process, the chain
                assert response.status == 200, response.status
            toggle = itertools.cycle((("seat.assign", {"side": "alleati"}), ("seat.remove", {})))

            async def timed_page(before: Callable[[], Awaitable[None]]) -> list[float]:
                """The page's time, ``rounds`` times, each after ``before`` (not timed)."""
                times: list[float] = []
                for _ in range(rounds):
                    await before()
                    moment = time.perf_counter()
                    async with session.get(path) as response:
                        await response.read()
                    times.append(time.perf_counter() - moment)
                return times

            async def new_event() -> None:
                verb, options = next(toggle)
                await command(GAME, REFEREE, verb, user=ANNA, **options)

            cold = await timed_page(pages.forget)  # nothing remembered: built from scratch
            fresh = await timed_page(new_event)  # a new head, as a refresh after a command
            async with session.get(path) as response:
                tag = response.headers["ETag"]
            unchanged: list[float] = []
            for _ in range(rounds):
                moment = time.perf_counter()
                async with session.get(path, headers={"If-None-Match": tag}) as response:
                    assert response.status == 304
                unchanged.append(time.perf_counter() - moment)
            worst_page = max(p(cold, 0.99), p(fresh, 0.99))
            page_ok = worst_page <= PAGE_TARGET_MS
            print(
                f"page of a {version}-event game, built from scratch: p50 {p(cold, 0.5):.1f} ms, "
                f"p99 {p(cold, 0.99):.1f} ms; after a new event: p50 {p(fresh, 0.5):.1f} ms, "
                f"p99 {p(fresh, 0.99):.1f} ms (target p99 <= {PAGE_TARGET_MS} ms: "
                f"{verdict(page_ok)}); "
                f"304: p50 {p(unchanged, 0.5):.1f} ms, p99 {p(unchanged, 0.99):.1f} ms"
            )

            async def commands(span: float) -> dict[str, list[float]]:
                """A command on the game and one on another game every 50 ms, timed."""
                timings: dict[str, list[float]] = {"same game": [], "other game": []}
                end = time.perf_counter() + span
                while time.perf_counter() < end:
                    verb, options = next(toggle)
                    for label, channel in (("same game", GAME), ("other game", OTHER)):
                        moment = time.perf_counter()
                        await command(channel, REFEREE, verb, user=ANNA, **options)
                        timings[label].append(time.perf_counter() - moment)
                    await asyncio.sleep(0.05)
                return timings

            def report(timings: dict[str, list[float]], readers: int) -> None:
                for label, values in timings.items():
                    print(
                        f"commands ({label}), {readers} readers refreshing every {refresh} s: "
                        f"n={len(values)} p50 {p(values, 0.5):.1f} ms, "
                        f"p99 {p(values, 0.99):.1f} ms, "
                        f"mean {statistics.mean(values) * 1000:.1f} ms"
                    )

            alone = await commands(seconds / 2)  # the same machine without readers
            report(alone, 0)
            # The readers are browsers elsewhere: their requests are sent from a process
            # of their own, so the bot's process pays only for answering them.
            links = [
                base + signer.relative(signer.link("game", GAME, 100 + n)) for n in range(READERS)
            ]
            with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as crowd:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(crowd, int, 0)  # started before the clock runs
                reading = loop.run_in_executor(crowd, read_in_a_crowd, links, refresh, seconds)
                crowded = await commands(seconds)
                counts = await reading
            report(crowded, READERS)
            print(
                f"reader responses: {counts['200']} pages built or sent, {counts['304']} 304, "
                f"{counts['503']} 503"
            )
    worst = max(p(values, 0.99) for values in crowded.values())
    before = max(p(values, 0.99) for values in alone.values())
    commands_ok = worst <= COMMANDS_TARGET_MS
    return (
        f"page p99 {worst_page:.1f} ms <= {PAGE_TARGET_MS} ms: {verdict(page_ok)}; "
        f"commands p99 with {READERS} readers {worst:.1f} ms <= {COMMANDS_TARGET_MS} ms: "
        f"{verdict(commands_ok)} (without readers {before:.1f} ms, lifted "
        f"{worst - before:+.1f} ms, x{worst / before:.2f})"
    )


def read_in_a_crowd(links: list[str], refresh: float, seconds: float) -> dict[str, int]:
    """In a process of its own: each link refreshed every ``refresh`` seconds with the ETag
    it holds, for ``seconds``; how many answers of each status."""
    return asyncio.run(_crowd(links, refresh, seconds))


async def _crowd(links: list[str], refresh: float, seconds: float) -> dict[str, int]:
    counts = {"200": 0, "304": 0, "503": 0}
    end = time.perf_counter() + seconds

    async def reader(index: int, link: str, session: ClientSession) -> None:
        held = ""
        await asyncio.sleep(refresh * index / len(links))  # readers spread out
        while time.perf_counter() < end:
            async with session.get(link, headers={"If-None-Match": held}) as response:
                await response.read()
                held = response.headers.get("ETag", held)
                counts[str(response.status)] = counts.get(str(response.status), 0) + 1
            await asyncio.sleep(refresh)

    async with ClientSession() as session:
        await asyncio.gather(*(reader(n, link, session) for n, link in enumerate(links)))
    return counts


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


async def main(rounds: int, seconds: float, refresh: float, only: str | None) -> None:
    folder = tempfile.mkdtemp(prefix="bench-web-")
    store = await SqliteStore.open(f"{folder}/arbitro.db")
    service = GameService(store)
    counter = itertools.count()

    async def command(channel: int, who: int, verb: str, /, **options: object) -> None:
        await service.handle(
            Request(channel, who, verb, options, guild_id=7, interaction_id=f"b{next(counter)}")
        )

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
    started = time.perf_counter()
    while (await store.load(GAME)).version < 1_000:
        await command(GAME, REFEREE, "seat.assign", user=ANNA, side="alleati")
        await command(GAME, REFEREE, "seat.remove", user=ANNA)
    version = (await store.load(GAME)).version
    print(f"game of {version} events written in {time.perf_counter() - started:.1f} s")

    signer = LinkSigner("a bench secret of some length", "http://bench")
    use_links(signer)
    modes = {
        "threads": {},  # the server's own process (worker threads), as before
        "process": {"database": f"{folder}/arbitro.db", "processes": WEB_PROCESSES},
    }
    verdicts = []
    for mode in modes if only is None else (only,):
        print(f"-- pages built in {mode} ({'one page process' if modes[mode] else 'threads'})")
        pages = WebPages(store, signer, "en", **modes[mode])  # type: ignore[arg-type]
        verdicts.append(await measure(pages, command, signer, version, rounds, seconds, refresh))
    for verdict in verdicts:
        print(verdict)
    await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--refresh", type=float, default=1.0)
    parser.add_argument("--only", choices=("threads", "process"), help="one way of building")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rounds, arguments.seconds, arguments.refresh, arguments.only))
