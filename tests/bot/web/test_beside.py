"""The web pages beside a bot (bot/web/beside.py): served from a process of their own on
their own connection to the database, each reader's redaction kept, the bot's new events
seen, refused when they cannot listen, stopped with the bot; a database in memory is
served from the bot's process."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest
from aiohttp import ClientSession

from bot.app.settings import load_settings
from bot.web import beside, pages
from bot.web.app import WebServer
from bot.web.beside import PagesProcess, start_pages_process, web_beside
from db.open import open_store
from tests.bot.web.conftest import ANNA, BRUNO, GAME, HIDDEN, REFEREE, SECRET


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture()
def settings_for(monkeypatch):
    def settings(database: str):
        monkeypatch.setenv("ARBITRO_WEB_URL", "http://arbitro.test/pages")
        monkeypatch.setenv("ARBITRO_WEB_SECRET", SECRET)
        monkeypatch.setenv("ARBITRO_WEB_PORT", str(free_port()))
        monkeypatch.setenv("ARBITRO_DB", database)
        return load_settings()

    return settings


def scheduling(pid: int) -> set[tuple[int, int]]:
    """The niceness and the scheduling class of each thread of process ``pid`` (Linux keeps
    them per thread): fields 19 and 41 of its stat."""
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        found.add((int(fields[16]), int(fields[38])))
    return found


async def test_the_pages_beside_a_bot_are_served_from_their_own_process(
    store, signer, table, settings_for
) -> None:
    settings = settings_for(store.path)
    pages = await web_beside(settings, store)
    assert isinstance(pages, PagesProcess) and pages.process.is_alive()
    assert pages.process.pid != multiprocessing.current_process().pid
    # Every thread of the pages' process below the bot's priority (ARBITRO_WEB_NICE: 10),
    # in the ordinary scheduling class (ARBITRO_WEB_IDLE off).
    lowered = min(19, os.getpriority(os.PRIO_PROCESS, 0) + settings.web_nice)
    assert settings.web_nice == 10 and not settings.web_idle
    assert scheduling(pages.process.pid) == {(lowered, os.SCHED_OTHER)}
    host, port = pages.address
    try:
        async with ClientSession() as session:

            async def read(reader: int, held: str = "") -> tuple[int, str, str]:
                path = signer.relative(signer.link("game", GAME, reader))
                headers = {"If-None-Match": held} if held else {}
                async with session.get(f"http://{host}:{port}{path}", headers=headers) as got:
                    return got.status, got.headers.get("ETag", ""), await got.text()

            for reader, shown in ((ANNA, False), (BRUNO, True), (REFEREE, True)):
                status, _, text = await read(reader)
                assert status == 200
                assert all((name in text) is shown for name in HIDDEN), reader
            _, tag, before = await read(BRUNO)
            assert (await read(BRUNO, tag))[0] == 304
            await table(GAME, REFEREE, "seat.remove", user=ANNA)  # the bot writes
            status, changed, after = await read(BRUNO, tag)
            assert status == 200 and changed != tag and after != before
    finally:
        await pages.stop()
    assert not pages.process.is_alive()
    assert (await store.load(GAME)).version > 0  # the bot's store still answers


def lowered_in_a_child(steps: int, idle: bool, refused: bool) -> tuple[str, int, int]:
    """In a process of its own (lowering cannot be undone): `beside.lower_priority`, the
    idle class refused as a sandbox would when ``refused``; what it said, and where the
    process then runs (niceness, scheduling class)."""
    if refused:

        def refuse(*_: object) -> None:
            raise PermissionError(1, "Operation not permitted")

        os.sched_setscheduler = refuse
    said = beside.lower_priority(steps, idle=idle)
    return said, os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)


@pytest.mark.parametrize(
    ("steps", "idle", "refused", "expected"),
    [
        (10, True, False, ("idle", 10, os.SCHED_IDLE)),
        (10, True, True, ("nice", 10, os.SCHED_OTHER)),  # the idle class refused: niced
        (10, False, False, ("nice", 10, os.SCHED_OTHER)),  # ARBITRO_WEB_IDLE=0
        (0, False, False, ("same", 0, os.SCHED_OTHER)),
        (0, True, True, ("same", 0, os.SCHED_OTHER)),
    ],
)
def test_the_pages_priority_is_the_idle_class_else_their_niceness(
    steps: int, idle: bool, refused: bool, expected: tuple[str, int, int]
) -> None:
    started = os.getpriority(os.PRIO_PROCESS, 0)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        said, nice, policy = child.submit(lowered_in_a_child, steps, idle, refused).result()
    assert (said, nice - started, policy) == (
        expected[0],
        min(expected[1], 19 - started),
        expected[2],
    )


async def test_the_pages_process_in_the_idle_class_when_asked(
    store, table, settings_for, monkeypatch
) -> None:
    monkeypatch.setenv("ARBITRO_WEB_IDLE", "")
    assert not settings_for(store.path).web_idle  # blank: the default
    monkeypatch.setenv("ARBITRO_WEB_IDLE", "1")
    settings = settings_for(store.path)
    pages = await start_pages_process(settings, "127.0.0.1", settings.web_port)
    try:
        lowered = min(19, os.getpriority(os.PRIO_PROCESS, 0) + settings.web_nice)
        assert scheduling(pages.process.pid) == {(lowered, os.SCHED_IDLE)}
    finally:
        await pages.stop()


async def test_the_pages_settle_their_heap_before_they_listen(
    store, table, settings_for, monkeypatch
) -> None:
    """Everything the pages' process keeps for life is frozen out of the garbage
    collector's sight before the first reader (docs/web.md, "Speed"): a full collection
    over it was what made the slowest pages."""
    receiving, sending = multiprocessing.Pipe(duplex=False)
    listening_when_settled: list[bool] = []
    monkeypatch.setattr(
        beside, "settle_heap", lambda: listening_when_settled.append(receiving.poll())
    )
    settings = settings_for(store.path)
    stopping = multiprocessing.Event()
    serving = asyncio.create_task(
        beside._pages(settings, "127.0.0.1", settings.web_port, sending, stopping)
    )
    try:
        told = await asyncio.to_thread(receiving.recv)
    finally:
        stopping.set()
        await serving
    assert isinstance(told, tuple) and listening_when_settled == [False]
    assert set(pages._ENVIRONMENT.cache or {}) and all(
        any(key[1] == name for key in (pages._ENVIRONMENT.cache or {}))
        for name in pages._ENVIRONMENT.list_templates(extensions=["html"])
    )


async def test_the_pages_leave_the_wal_checkpoints_to_the_bot(
    store, table, settings_for, monkeypatch
) -> None:
    """The pages only read: their connection copies nothing back from the bot's WAL into
    the database file (docs/web.md, "Speed")."""
    opened: list[object] = []

    async def open_and_keep(*args: object, **options: bool) -> object:
        opened.append(await open_store(*args, **options))
        return opened[-1]

    monkeypatch.setattr(beside, "open_store", open_and_keep)
    receiving, sending = multiprocessing.Pipe(duplex=False)
    settings = settings_for(store.path)
    stopping = multiprocessing.Event()
    serving = asyncio.create_task(
        beside._pages(settings, "127.0.0.1", settings.web_port, sending, stopping)
    )
    try:
        assert isinstance(await asyncio.to_thread(receiving.recv), tuple)
        assert len(opened) == 1 and opened[0]._checkpointer is None
    finally:
        stopping.set()
        await serving


async def test_pages_that_cannot_listen_stop_the_start(store, table, settings_for) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match="could not start"):
            await start_pages_process(settings_for(store.path), "127.0.0.1", port)


async def test_a_database_in_memory_is_served_from_the_bots_process(
    store, table, settings_for
) -> None:
    pages = await web_beside(settings_for(":memory:"), store)
    try:
        assert isinstance(pages, WebServer)
    finally:
        await pages.stop()


BOT = """
import asyncio, sys
from bot.app.settings import load_settings
from bot.web.beside import start_pages_process

async def main():
    pages = await start_pages_process(load_settings(), "127.0.0.1", int(sys.argv[1]))
    print(pages.process.pid, flush=True)
    await asyncio.sleep(600)

if __name__ == "__main__":  # the pages' process, spawned, imports this file again
    asyncio.run(main())
"""


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting for its reaper has)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


async def test_the_pages_never_outlive_a_killed_bot(store, table, settings_for, tmp_path) -> None:
    settings_for(store.path)  # the environment the bot reads
    script = tmp_path / "serve_a_bot.py"
    script.write_text(BOT, encoding="utf-8")
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        str(free_port()),
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert bot.stdout is not None
    pages = int(await asyncio.wait_for(bot.stdout.readline(), 120))
    assert not gone(pages)
    bot.kill()  # no goodbye: SIGKILL
    await bot.wait()
    for _ in range(100):
        if gone(pages):
            break
        await asyncio.sleep(0.1)
    assert gone(pages)
