"""The event loop every Arbitro process runs: uvloop's where it is installed, else asyncio's.

A command's own work is short, and about half its wall time is the event loop's machinery:
the hops to the store's thread (aiosqlite) and to the rules' workers, each a future resolved
from another thread, a callback queued, a selector woken (docs/benchmarks.md, "Where a
command's time goes"). uvloop runs the same asyncio API on libuv, that machinery in C.

Every coroutine a process runs from synchronous code goes through :func:`run` (the bot, the
console, the pages' process, the database tools, the benches), and the tests' loops come from
:func:`new_event_loop` (tests/conftest.py), so what is measured and tested is what runs.
``ARBITRO_EVENT_LOOP=asyncio`` turns uvloop off (to compare, or to profile asyncio's own
Python code); uvloop has no Windows build, and without it asyncio's loop runs.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar

try:
    import uvloop
except ImportError:  # Windows, or an install without it: asyncio's own loop runs
    uvloop = None  # type: ignore[assignment]

#: The environment variable choosing the loop: ``uvloop`` (the default) or ``asyncio``.
EVENT_LOOP_ENV: Final = "ARBITRO_EVENT_LOOP"
UVLOOP: Final = "uvloop"
ASYNCIO: Final = "asyncio"
CHOICES: Final = (UVLOOP, ASYNCIO)

T = TypeVar("T")


class EventLoopChoiceError(ValueError):
    """``ARBITRO_EVENT_LOOP`` names no loop; ``str()`` is one line naming the variable."""


def requested_loop() -> str:
    """The loop the environment asks for (``uvloop`` unless ``ARBITRO_EVENT_LOOP`` says)."""
    value = os.environ.get(EVENT_LOOP_ENV, "").strip().lower() or UVLOOP
    if value not in CHOICES:
        raise EventLoopChoiceError(
            f"{EVENT_LOOP_ENV}={value[:30]!r} is not one of {', '.join(CHOICES)}"
        )
    return value


def loop_name() -> str:
    """The loop this process runs: the one requested, if this install has it."""
    return UVLOOP if requested_loop() == UVLOOP and uvloop is not None else ASYNCIO


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes a new loop of the kind :func:`loop_name` says."""
    if loop_name() == UVLOOP:
        return uvloop.new_event_loop
    return asyncio.new_event_loop


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop of the kind this process runs."""
    return loop_factory()()


def running_loop_name() -> str:
    """The class of the running loop, dotted (``uvloop.Loop``), for the start-up log."""
    kind = type(asyncio.get_running_loop())
    return f"{kind.__module__}.{kind.__qualname__}"


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a new loop of the kind this process runs, as
    :func:`asyncio.run` does (the loop closed, its async generators and default executor
    shut down)."""
    try:
        factory = loop_factory()
    except EventLoopChoiceError:
        main.close()  # never started: no "coroutine was never awaited" warning
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
