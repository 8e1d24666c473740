"""A test module that holds SimCord runs on asyncio's loop, whatever fixture or mark its
tests use: SimCord settles the loop by reading asyncio's timer heap, which uvloop has not
(tests/conftest.py, ``pytest_asyncio_loop_factories``)."""

from __future__ import annotations

import asyncio

import simcord  # noqa: F401  (held by the module: what the loop factory looks for)


async def test_a_module_holding_simcord_runs_on_asyncios_loop() -> None:
    running = asyncio.get_running_loop()
    assert type(running).__module__.startswith("asyncio"), type(running)
