"""The web server beside a bot, in a process of its own, so readers never hold its commands.

A page is Python work (the seat's view, its log page put in words, the template, the
picture), and so are the bot's commands: served from the bot's process, readers would take
turns with the commands at one interpreter lock, their requests parsed and answered on the
commands' event loop, their reads queued on the bot's one SQLite connection with the
commands' commits. So ``arbitro run`` and ``arbitro console`` start the pages in a process
of their own (spawned, not forked: the bot has threads and a running loop), which opens the
same database on its own connection (it never writes) and serves it as ``arbitro web``
does; the bot's process does nothing for a reader. It is stopped with the bot.

The two processes still share the machine's cores: the pages' process runs at a lower
scheduling priority (``ARBITRO_WEB_NICE``, 10 by default: `lower_priority`), so when both
want a core the bot's commands get the larger share. ``ARBITRO_WEB_IDLE`` puts it in Linux's
idle scheduling class instead (a core only when no other task of the machine wants one):
measured against the niceness turn about on a shared 2-core machine, it left the commands'
latency as it was and made the pages' several times slower (docs/benchmarks.md), so it is
off by default.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event

from bot.app import loop
from bot.app.settings import Settings
from bot.app.warmup import settle_heap
from bot.service.links import use_links
from bot.web.app import WebServer, signer_of, start_web
from bot.web.pages import load_templates
from db.drivers.sqlite import MEMORY
from db.open import describe, open_store
from db.protocol import GameStore

log = logging.getLogger(__name__)

#: How long the bot waits for the pages to listen (the process imports the whole bot first:
#: seconds on a loaded machine).
READY_WAIT_S = 60.0
#: How often the pages look whether their bot is still there.
PARENT_CHECK_S = 1.0
#: How long stopping waits for the pages to close their store before ending the process.
STOP_WAIT_S = 5.0


@dataclass
class PagesProcess:
    """The web pages served from a process of their own; :meth:`stop` ends it."""

    process: BaseProcess
    stopping: Event
    url: str
    #: Where the pages listen (the port the system chose when asked for port 0).
    address: tuple[str, int]

    async def stop(self) -> None:
        """Ask the pages to stop, wait for them (ended the hard way past STOP_WAIT_S)."""
        self.stopping.set()
        await asyncio.to_thread(self.process.join, STOP_WAIT_S)
        if self.process.is_alive():
            log.warning("web: the pages' process did not stop in time; ending it")
            self.process.terminate()
            await asyncio.to_thread(self.process.join, STOP_WAIT_S)


def _serve(settings: Settings, host: str, port: int, ready: Connection, stopping: Event) -> None:
    """In the pages' process: serve until ``stopping`` is set; ``ready`` is told where (or
    why not)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the bot, which stops us
    logging.basicConfig(
        level=settings.log_level_number,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    lower_priority(settings.web_nice, idle=settings.web_idle)
    loop.run(_pages(settings, host, port, ready, stopping))


def lower_priority(steps: int, *, idle: bool = True) -> str:
    """Lower this process's scheduling priority: by ``steps`` of niceness (at most 19), then,
    with ``idle``, into the idle scheduling class (``SCHED_IDLE``). What it runs at is
    returned: ``"idle"``, ``"nice"`` or ``"same"``.

    Called first in the pages' process, on its main thread before any other exists: Linux
    keeps a niceness and a scheduling class per thread and a new thread takes its creator's,
    so the event loop, the worker threads and the store's threads all run at them. A thread
    of the idle class yields its core at once to any other of the machine's (not only the
    bot's: on a busy machine the pages then wait behind everything; docs/web.md, "Speed").
    Neither needs a privilege; a system without the idle class, or refusing it (a sandbox
    filtering the call), leaves the niceness, and one refusing that too leaves the bot's
    priority."""
    lowered = "same"
    if steps > 0:
        try:
            os.nice(steps)
            lowered = "nice"
        except (OSError, AttributeError) as error:
            log.warning("web: the pages' priority could not be lowered: %s", error)
    if idle:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            lowered = "idle"
        except (OSError, AttributeError) as error:
            log.info("web: the pages stay at their niceness (no idle scheduling: %s)", error)
    return lowered


async def _pages(
    settings: Settings, host: str, port: int, ready: Connection, stopping: Event
) -> None:
    signer = signer_of(settings)
    assert signer is not None  # the bot starts the pages only when they are on
    try:
        # The bot's process checkpoints the WAL it writes; the pages only read, and leave
        # the database file alone (docs/web.md, "Speed").
        store = await open_store(str(settings.db), create=False, migrate=False, checkpoints=False)
    except Exception as error:  # told to the bot, which refuses to start without its pages
        ready.send(f"{describe(str(settings.db))}: {error}")
        return
    try:
        settle_pages()
        try:
            server = await start_web(store, signer, host, port, settings.language)
        except OSError as error:
            ready.send(f"{host}:{port}: {error}")
            return
        try:
            ready.send(server.runner.addresses[0][:2])
            await asyncio.to_thread(_until_stopped, stopping)
        finally:
            await server.stop()
    finally:
        await store.close()


def settle_pages() -> None:
    """What the pages keep for the process's life loaded now (every template, ruleset and
    catalogue), then frozen out of the garbage collector's sight, as a bot's process does
    (`bot.app.warmup`): a full collection over it lands in a page now and then otherwise
    (35–90 ms on a 2-core machine, the page's p99; docs/web.md, "Speed")."""
    load_templates()
    settle_heap()


def _until_stopped(stopping: Event) -> None:
    """Wait until the bot asks the pages to stop, or is gone without asking (killed): the
    pages never outlive their bot, holding its port."""
    bot = multiprocessing.parent_process()
    while not stopping.wait(PARENT_CHECK_S):
        if bot is not None and not bot.is_alive():
            log.warning("web: the bot's process is gone; the pages stop")
            return


async def start_pages_process(settings: Settings, host: str, port: int) -> PagesProcess:
    """Serve the pages of ``settings.db`` on ``host``:``port`` from a process of their own,
    once it listens; OSError if it cannot (the port taken, the database unreadable)."""
    spawning = multiprocessing.get_context("spawn")
    receiving, sending = spawning.Pipe(duplex=False)
    stopping = spawning.Event()
    process = spawning.Process(
        target=_serve,
        args=(settings, host, port, sending, stopping),
        name="arbitro-web",
        daemon=True,
    )
    process.start()
    sending.close()
    try:
        if not await asyncio.to_thread(receiving.poll, READY_WAIT_S):
            raise OSError(f"the web pages did not start within {READY_WAIT_S:.0f} s")
        told = receiving.recv()
    except (OSError, EOFError) as error:
        stopping.set()
        with contextlib.suppress(Exception):
            process.terminate()
        raise OSError(f"the web pages could not start: {error}") from None
    finally:
        receiving.close()
    if isinstance(told, str):
        await asyncio.to_thread(process.join, STOP_WAIT_S)
        raise OSError(f"the web pages could not start: {told}")
    listening = (str(told[0]), int(told[1]))
    log.info("web pages on http://%s:%s (links give %s)", *listening, settings.web_url)
    return PagesProcess(process, stopping, str(settings.web_url), listening)


async def web_beside(settings: Settings, store: GameStore) -> PagesProcess | WebServer | None:
    """The web pages beside a bot or a console table, when ``ARBITRO_WEB_URL`` is set:
    the commands' links signed, the pages served from their own process, which opens its
    own connection to the database (None, and ``/game web`` says the pages are off,
    otherwise). A database in memory cannot be opened twice: its pages are served from the
    bot's process, on ``store``."""
    signer = signer_of(settings)
    use_links(signer)
    if signer is None:
        return None
    if str(settings.db) == MEMORY:
        return await start_web(
            store, signer, settings.web_host, settings.web_port, settings.language
        )
    return await start_pages_process(settings, settings.web_host, settings.web_port)


__all__ = ["PagesProcess", "lower_priority", "settle_pages", "start_pages_process", "web_beside"]
