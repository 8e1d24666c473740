"""The rules' threads (bot/service/workers.py): what a job leaves behind."""

from __future__ import annotations

import asyncio
import weakref

import pytest

from bot.service.workers import ChannelWorkers


class _State:
    """Stands for a validated game state a job read (it supports weak references)."""


async def test_a_refused_job_leaves_its_state_to_no_cycle_collector(no_cycle_collector) -> None:
    # A refusal's traceback holds the job's frames, and they the state it read: had the
    # waiting frame kept the future that holds the refusal, the state would sit in a cycle
    # until a collector's pass (tens of milliseconds on a large map, every thread waiting).
    workers = ChannelWorkers(workers=1)
    states: list[weakref.ref[_State]] = []

    def refused() -> None:
        state = _State()
        states.append(weakref.ref(state))
        raise ValueError("refused")

    try:
        with pytest.raises(ValueError, match="refused") as caught:
            await workers.run("channel", refused)
        del caught
        await asyncio.sleep(0)  # the loop's callbacks that handed the refusal over have run
        assert len(states) == 1
        assert states[0]() is None
    finally:
        workers.shutdown()
