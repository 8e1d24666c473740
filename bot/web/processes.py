"""Pages built in processes of their own, so readers never hold the bot's commands.

A page is Python work (the seat's view, its log page put in words, the template, the
picture) and the bot's commands are too: on threads of one process they take turns at one
interpreter lock, and the store's reads queue on the bot's one connection with the
commands' commits. So, when the store can be opened again (a SQLite file, PostgreSQL), each
page process opens its own connection to it (read only in effect: it never writes), runs a
`PageBuilder` on an event loop of its own, and answers one request at a time; the server
sends it the checked link and gets back the answer (the ETag and the rendered body).

Each channel's pages go to one process (its channel modulo the count), so its remembered
pages and verified chain head are found again by its next reader. A process that dies is
replaced at the next request, which is answered 503 meanwhile (`PagesBusy`).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from bot.web.answers import Answer, PageBuilder
from bot.web.links import Link, LinkSigner
from db.open import open_store

log = logging.getLogger(__name__)

#: How long closing waits for a page process to close its store.
CLOSE_WAIT_S = 5.0


class PagesBusy(RuntimeError):
    """The page process could not answer now (it died and is being replaced)."""


@dataclass
class _Child:
    """A page process's own loop and builder."""

    loop: asyncio.AbstractEventLoop
    builder: PageBuilder


class _Here:
    """The page process's state (set by `_start`, in the child only)."""

    child: _Child | None = None


def _start(database: str, signer: LinkSigner, language: str) -> None:
    """In the child: open the store and make the builder (its pool's initializer)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    store = loop.run_until_complete(open_store(database, create=False, migrate=False))
    _Here.child = _Child(loop, PageBuilder(store, signer, language))


def _child() -> _Child:
    if _Here.child is None:
        raise RuntimeError("not a page process")
    return _Here.child


def _answer(link: Link, picture: bool, page: int | None, held: frozenset[str]) -> Answer:
    child = _child()
    return child.loop.run_until_complete(child.builder.answer(link, picture, page, held))


def _forget() -> None:
    _child().builder.forget()


def _close() -> None:
    child = _child()
    child.builder.close()
    child.loop.run_until_complete(child.builder.services.store.close())


class PageProcesses:
    """``count`` page processes reading ``database`` (a URL `db.open.open_store` opens)."""

    def __init__(self, database: str, signer: LinkSigner, language: str, count: int) -> None:
        self._arguments = (database, signer, language)
        self._pools = [self._pool() for _ in range(count)]
        # The processes a request started (a pool starts its process at its first job):
        # only those are asked to close.
        self._started: set[int] = set()

    def _pool(self) -> ProcessPoolExecutor:
        # Spawned, not forked: the server has threads (the store's, the workers') and a
        # running loop that a forked child would inherit half-way.
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=self._arguments,
        )

    async def answer(
        self, link: Link, picture: bool, page: int | None, held: frozenset[str]
    ) -> Answer:
        """What `PageBuilder.answer` gives, from the process of ``link``'s channel."""
        index = link.channel % len(self._pools)
        pool = self._pools[index]
        self._started.add(index)
        try:
            return await asyncio.get_running_loop().run_in_executor(
                pool, _answer, link, picture, page, held
            )
        except BrokenProcessPool:
            log.exception("web: the page process of channel %s stopped; starting another", link)
            if self._pools[index] is pool:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pools[index] = self._pool()
            raise PagesBusy(link.channel) from None

    async def forget(self) -> None:
        """Drop every page the processes remember."""
        loop = asyncio.get_running_loop()
        pools = [self._pools[index] for index in sorted(self._started)]
        await asyncio.gather(*(loop.run_in_executor(pool, _forget) for pool in pools))

    async def close(self) -> None:
        """Close each process's store, then the processes."""
        loop = asyncio.get_running_loop()
        closing = [loop.run_in_executor(self._pools[index], _close) for index in self._started]
        try:
            await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), CLOSE_WAIT_S)
        except TimeoutError:
            log.warning("web: a page process did not close its store in time")
        for pool in self._pools:
            pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["PageProcesses", "PagesBusy"]
