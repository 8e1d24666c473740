"""The heartbeat file: the running bot stamps it while connected; ``arbitro health`` reads it.

A container healthcheck runs in a separate process, so it cannot ask the bot whether its
gateway connection is alive; the bot writes a tiny JSON file instead (the time, the
gateway latency, its pid) every :data:`INTERVAL_SECONDS` while discord.py reports it
connected and ready. Disconnected, stuck or dead, it stops stamping, and the file goes
stale: the check only compares one timestamp with the clock, whatever the database holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("bot.app.heartbeat")

#: Seconds between two stamps while connected.
INTERVAL_SECONDS = 15.0
#: ``arbitro health`` calls a stamp older than this stale (several missed stamps).
DEFAULT_MAX_AGE_SECONDS = 90.0


class HeartbeatError(ValueError):
    """No usable heartbeat: missing, unreadable or stale; ``str()`` is one line."""


@dataclass(frozen=True, slots=True)
class Beat:
    """One stamp: when (Unix time), the gateway latency, which process, offline or not."""

    at: float
    latency_ms: float | None
    pid: int
    offline: bool = False

    def age(self, now: float | None = None) -> float:
        """Seconds since the stamp."""
        return (time.time() if now is None else now) - self.at


def write_beat(path: Path, beat: Beat) -> None:
    """Write ``beat`` atomically (a reader never sees half a file)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(asdict(beat)) + "\n", encoding="utf-8")
    os.replace(partial, path)


def read_beat(path: Path) -> Beat:
    """The stamp in ``path``; :class:`HeartbeatError` if missing or unreadable."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HeartbeatError(
            f"no heartbeat file {path}: the bot is not running or never connected"
        ) from None
    except (OSError, ValueError) as error:
        raise HeartbeatError(f"unreadable heartbeat file {path}: {error}") from None
    try:
        latency = data.get("latency_ms")
        return Beat(
            at=float(data["at"]),
            latency_ms=None if latency is None else float(latency),
            pid=int(data["pid"]),
            offline=bool(data.get("offline", False)),
        )
    except (AttributeError, KeyError, TypeError, ValueError):
        raise HeartbeatError(f"unreadable heartbeat file {path}: not a heartbeat") from None


def remove_beat(path: Path) -> None:
    """Delete the file on a clean stop, so no stale stamp claims a live bot."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


async def stamp_while_connected(
    path: Path,
    status: Callable[[], Any],
    *,
    interval: float = INTERVAL_SECONDS,
) -> None:
    """Every ``interval`` s (and at once when the connection comes up), write a stamp if
    ``status()`` returns a gateway status (an object with ``latency_ms`` and ``offline``);
    skip while it returns None. Runs until cancelled; a failed write is logged, not fatal."""
    poll = min(1.0, interval)
    last_written = float("-inf")
    was_connected = False
    while True:
        current = status()
        now = time.monotonic()
        connected = current is not None
        if connected and (not was_connected or now - last_written >= interval):
            beat = Beat(
                at=time.time(),
                latency_ms=current.latency_ms,
                pid=os.getpid(),
                offline=current.offline,
            )
            try:
                write_beat(path, beat)  # a few bytes: cheaper than a thread hop
                last_written = now
            except OSError as error:
                log.warning("could not write the heartbeat file %s: %s", path, error)
        was_connected = connected
        await asyncio.sleep(poll)


__all__ = [
    "DEFAULT_MAX_AGE_SECONDS",
    "INTERVAL_SECONDS",
    "Beat",
    "HeartbeatError",
    "read_beat",
    "remove_beat",
    "stamp_while_connected",
    "write_beat",
]
