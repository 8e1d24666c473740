"""One lock per channel, kept only while a command holds or awaits it.

The service serializes a channel's commands with an asyncio lock. A dictionary of locks
that only grows holds one per channel ever seen; these are dropped as soon as nobody holds
or waits for them, so a bot serving thousands of channels keeps locks only for the
commands in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ChannelLocks:
    """Per-channel asyncio locks for the event loop's coroutines (not thread-safe)."""

    def __init__(self) -> None:
        # channel -> (its lock, how many hold or wait for it)
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, channel_id: int) -> AsyncIterator[None]:
        """Hold the channel's lock for the block (waiting for it first, in order)."""
        lock, users = self._locks.get(channel_id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[channel_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[channel_id]
            if users <= 1:
                del self._locks[channel_id]
            else:
                self._locks[channel_id] = (lock, users - 1)


__all__ = ["ChannelLocks"]
