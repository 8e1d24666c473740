"""The threads the rules run on: a small pool, at most one job per channel at a time.

Rules work (resolving a command, listing legal actions, a status, the picture of the
table) never runs on the event loop, so heartbeats and every other channel's I/O go on
while it runs. It runs on a pool of a few threads so that one channel's slow job does not
queue another channel's work behind it, and a channel's jobs run one after the other, in
the order they were asked, so a channel flooding the bot (autocomplete as a player types)
holds at most one thread.

A job keeps its channel's turn until its thread is done with it, even when the coroutine
that asked for it is cancelled (a timed-out interaction): the next job of that channel
never runs beside it. Each job runs inside :func:`rules.core.budget.work_budget` and
:func:`rules.core.odds.odds_budget` as the caller sets them, so no job holds a thread for
long either.

What the rules' caches need (see the report in ``docs/availability.md``): no validated
state is used by two jobs at once (a command's handle on its game is its own; kept for the
channel's next command, it is taken out while in use: ``bot/service/kept_games.py``); the
odds caches (:class:`rules.core.caches.BoundedCache`) lock around each access; the other caches are
``functools.cache`` or dicts read and written one operation at a time.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

_T = TypeVar("_T")

#: Threads for rules work: enough that a few slow channels (each bounded by the work
#: budget) leave threads for the others; the rules are Python, so more would only add
#: contention for the interpreter.
DEFAULT_WORKERS = 4
#: How long a thread holds the interpreter before another may take it (Python's default
#: is 5 ms). A slow job on a worker would otherwise make the event loop and every other
#: job wait up to that long at each hand-over (a command makes a dozen: loop, store thread,
#: worker, loop…); at 1 ms a healthy channel's command stays fast beside a slow one.
SWITCH_INTERVAL_S = 0.001


@dataclass
class _Turn:
    """A channel's place in line: its lock, and how many jobs hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class ChannelWorkers:
    """Runs blocking jobs on a thread pool, one job per key (a channel) at a time."""

    def __init__(self, workers: int = DEFAULT_WORKERS, name: str = "arbitro-rules") -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)  # the process's: see SWITCH_INTERVAL_S
        self._turns: dict[Hashable, _Turn] = {}
        self.workers = workers

    async def run(self, key: Hashable, job: Callable[[], _T]) -> _T:
        """Run ``job`` on a worker thread once ``key``'s earlier jobs are done."""
        turn = self._turns.get(key)
        if turn is None:
            turn = self._turns[key] = _Turn()
        turn.users += 1
        try:
            await turn.lock.acquire()
        except BaseException:
            self._leave(key, turn)
            raise
        try:
            future: Future[_T] = self._pool.submit(job)
        except BaseException:
            turn.lock.release()
            self._leave(key, turn)
            raise
        loop = asyncio.get_running_loop()

        def done(_: Future[_T]) -> None:
            # The thread is finished with the job (or never started it): the next job of
            # this key may run. Called on the worker thread: hand over to the loop.
            loop.call_soon_threadsafe(self._release, key, turn)

        future.add_done_callback(done)
        # Cancelling the caller cancels the job only if it has not started (then `done`
        # runs at once); a running job keeps the key's turn until it returns.
        try:
            return await asyncio.wrap_future(future)
        finally:
            # A refusal's traceback holds this frame: kept, the future holding the refusal
            # would close a cycle over the job's frames and the state they read.
            del future

    def _release(self, key: Hashable, turn: _Turn) -> None:
        turn.lock.release()
        self._leave(key, turn)

    def _leave(self, key: Hashable, turn: _Turn) -> None:
        turn.users -= 1
        if turn.users == 0 and self._turns.get(key) is turn:
            del self._turns[key]  # no job holds or waits: forget the channel

    @property
    def channels(self) -> int:
        """How many keys have a job running or waiting (for tests and health)."""
        return len(self._turns)

    def shutdown(self) -> None:
        """Stop the threads once their jobs are done (no new job is accepted)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
