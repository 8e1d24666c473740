"""The processes the pictures are drawn in, so one channel's map never holds another's commands.

Drawing a map is Python holding the interpreter lock: tens of milliseconds for a table,
up to 1.6 s for pzgren's largest map. On a thread of the bot's process every other channel's
command waits for the lock meanwhile (docs/benchmarks.md, the availability table); in a
process of its own it does not. :class:`PicturePool` is a small
:class:`~concurrent.futures.ProcessPoolExecutor` (spawned, not forked: the bot has threads
and a running loop), started on first use, whose workers

- run at a lower scheduling priority (:data:`PICTURE_NICE`), so the bot's commands win a
  core both want;
- ignore Ctrl-C (the console's terminal sends it to the whole group; the bot stops them);
- end as soon as their parent is gone, even killed without a word: a thread waits on the
  parent's sentinel and exits the worker (the executor's queues never report it).

A pool that cannot draw (broken by a worker's death, a view that does not pickle) never
costs the reply its picture: :meth:`PicturePool.run` logs it and draws on a thread once, as
before the pool; a broken pool is replaced at the next picture. ``workers=0`` draws on a
thread only (``ARBITRO_PICTURE_WORKERS=0``).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)

#: How much lower than the bot's the workers' scheduling priority is (as the pages').
PICTURE_NICE = 10
#: The workers of the pool used when nothing configured it (the settings' default).
DEFAULT_WORKERS = 1
#: How long stopping waits for a worker to finish its picture (or its start: importing the
#: drawing code takes most of a second on a loaded machine) before ending it: the bot's
#: whole stop has 2 s (bot/app/lifecycle.py).
STOP_WAIT_S = 0.5

P = ParamSpec("P")
T = TypeVar("T")


def _start_worker(nice: int) -> None:
    """In each worker, before any picture: lower its priority, ignore Ctrl-C, and end it
    when the bot's process is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice > 0:
        try:
            os.nice(nice)  # before the watch thread: Linux keeps a niceness per thread
        except (OSError, AttributeError) as error:
            log.warning("pictures: the workers' priority could not be lowered: %s", error)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_exit_with, args=(parent,), name="arbitro-picture-parent", daemon=True
        ).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    """Wait for the parent's end (its sentinel closes, however it died), then end at once:
    a picture nobody will receive is not finished."""
    parent.join()
    os._exit(0)


class PicturePool:
    """Draws pictures in ``workers`` processes of their own (a thread when 0)."""

    def __init__(self, workers: int = DEFAULT_WORKERS, nice: int = PICTURE_NICE) -> None:
        self.workers = workers
        self.nice = nice
        self._executor: ProcessPoolExecutor | None = None
        # Executors this pool ended: their pictures cut short are not drawn again.
        self._stopped: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()
        self._lock = threading.Lock()

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(self.nice,),
                )
            return self._executor

    def _drop(self, broken: ProcessPoolExecutor) -> None:
        """Forget a broken executor, so the next picture starts a new one."""
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in a worker (its arguments and result pickled);
        on a thread when the pool has no workers, or once when the pool fails."""
        if self.workers <= 0:
            return await asyncio.to_thread(function, *args, **kwargs)
        executor = self._started()
        try:
            future = executor.submit(function, *args, **kwargs)
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if executor in self._stopped and caller is not None and not caller.cancelling():
                # Its picture was cancelled by the stop, not its caller: a failure to draw.
                raise BrokenProcessPool("the pictures' pool was stopped") from None
            raise
        except BrokenProcessPool:
            if executor in self._stopped:
                raise  # the front end is stopping: nobody waits for this picture any more
            log.exception("pictures: the pool is broken; drawing on a thread, a new pool next")
            self._drop(executor)
        except Exception:
            log.exception("pictures: %s failed in the pool; once more on a thread", function)
        return await asyncio.to_thread(function, *args, **kwargs)

    def warm(self, function: Callable[[], object]) -> None:
        """Start the workers now, running ``function`` (what it imports is then loaded),
        so the first picture does not wait for them; nothing when drawing on a thread."""
        if self.workers > 0:
            self._started().submit(function)

    def shutdown(self) -> None:
        """End the workers: the pending pictures cancelled, the one each is drawing given
        :data:`STOP_WAIT_S` to finish, then ended (its caller gets BrokenProcessPool, not a
        drawing on a thread); the pool starts again if asked for another picture."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is None:
            return
        self._stopped.add(executor)
        # The executor's own processes: Python 3.11 has no public way to end them
        # (3.14's terminate_workers), and waiting could outlast the bot's stop.
        workers = list((executor._processes or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + STOP_WAIT_S
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                log.info("pictures: a worker not ended within %.1f s is ended", STOP_WAIT_S)
                worker.terminate()
                worker.join()

    async def stop(self) -> None:
        """:meth:`shutdown` off the event loop."""
        await asyncio.to_thread(self.shutdown)


__all__ = ["DEFAULT_WORKERS", "PICTURE_NICE", "STOP_WAIT_S", "PicturePool"]
