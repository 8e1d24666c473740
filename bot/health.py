"""``arbitro health``: a constant-cost liveness check for a container healthcheck.

Two questions, neither of which grows with the number of games: is the bot's gateway
heartbeat recent (the running bot stamps a small file while discord.py reports it
connected, see ``bot.heartbeat``), and does the database open and answer (the file is
Arbitro's, its schema current and its tables present)? One line on stdout, exit 0 when
healthy, 1 when not. The full audit of every game's hash chain stays a separate command,
``arbitro db check``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from bot.heartbeat import HeartbeatError, read_beat
from db.errors import StoreError
from db.sqlite import SqliteStore

EXIT_HEALTHY = 0
EXIT_UNHEALTHY = 1


@dataclass(frozen=True, slots=True)
class Health:
    """The verdict and the one line that explains it."""

    healthy: bool
    line: str

    @property
    def exit_status(self) -> int:
        """0 when healthy, 1 when not."""
        return EXIT_HEALTHY if self.healthy else EXIT_UNHEALTHY


async def _database_answers(path: Path) -> int:
    """Open the existing file (no create, no migration: opening checks the schema and its
    tables) and read its schema version."""
    async with await SqliteStore.open(path, create=False, migrate=False) as store:
        return await store.schema_version()


def check_health(db: Path, heartbeat: Path, *, max_age: float, now: float | None = None) -> Health:
    """Heartbeat no older than ``max_age`` seconds and a database that answers."""
    try:
        beat = read_beat(heartbeat)
    except HeartbeatError as error:
        return Health(False, f"unhealthy: {error}")
    age = beat.age(time.time() if now is None else now)
    if age > max_age:
        return Health(
            False,
            f"unhealthy: the gateway heartbeat is {age:.0f} s old (limit {max_age:.0f} s): "
            "the bot is disconnected, stuck or stopped",
        )
    try:
        version = asyncio.run(_database_answers(db))
    except StoreError as error:
        return Health(False, f"unhealthy: database {db}: {error}")
    latency = "offline" if beat.offline else (
        "latency unknown" if beat.latency_ms is None else f"latency {beat.latency_ms:.0f} ms"
    )
    return Health(
        True,
        f"ok: gateway heartbeat {max(age, 0):.0f} s ago ({latency}); "
        f"database {db} answers (schema {version})",
    )


__all__ = ["Health", "check_health"]
