"""``arbitro health``: a constant-cost liveness check for a container healthcheck.

Its own entry point, ``arbitro-health`` (what the container runs every 30 s), imports only this
module, the heartbeat, the settings and the store's opener: ``arbitro health`` does the same
through the whole command line, which imports every front end (0.47 s and 68 MB against
about 0.3 s and 36 MB here).

Two questions, neither of which grows with the number of games: is the bot's gateway
heartbeat recent (the running bot stamps a small file while discord.py reports it
connected, see ``bot.app.heartbeat``), and does the database open and answer (the file is
Arbitro's, its schema current and its tables present)? One line on stdout, exit 0 when
healthy, 1 when not. The full audit of every game's hash chain stays a separate command,
``arbitro db check``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.app import loop
from bot.app.heartbeat import DEFAULT_MAX_AGE_SECONDS, HeartbeatError, read_beat
from bot.app.settings import SettingsError, load_settings
from db.errors import StoreError
from db.open import describe, open_store

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


async def _database_answers(path: str | Path) -> int:
    """Open the existing database (no create, no migration: opening checks the schema and
    its tables) and read its schema version."""
    async with await open_store(str(path), create=False, migrate=False) as store:
        return await store.schema_version()


def check_health(
    db: str | Path, heartbeat: Path, *, max_age: float, now: float | None = None
) -> Health:
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
        version = loop.run(_database_answers(db))
    except StoreError as error:
        return Health(False, f"unhealthy: database {describe(str(db))}: {error}")
    latency = (
        "offline"
        if beat.offline
        else ("latency unknown" if beat.latency_ms is None else f"latency {beat.latency_ms:.0f} ms")
    )
    return Health(
        True,
        f"ok: gateway heartbeat {max(age, 0):.0f} s ago ({latency}); "
        f"database {describe(str(db))} answers (schema {version})",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``arbitro health`` and ``arbitro-health``."""
    parser.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    parser.add_argument(
        "--heartbeat", help="heartbeat file (default: ARBITRO_HEARTBEAT or DB.heartbeat)"
    )
    parser.add_argument(
        "--max-age",
        type=float,
        default=None,
        help=f"seconds after which the heartbeat is stale (default: {DEFAULT_MAX_AGE_SECONDS:g})",
    )


def run(args: argparse.Namespace) -> int:
    """Check, print the verdict's line, return its exit status (:class:`SettingsError` for a
    bad setting)."""
    overrides: dict[str, object] = {}
    if args.db:
        overrides["db"] = Path(args.db)
    if args.heartbeat:
        overrides["heartbeat"] = Path(args.heartbeat)
    settings = load_settings(**overrides)
    max_age = DEFAULT_MAX_AGE_SECONDS if args.max_age is None else args.max_age
    verdict = check_health(settings.db, settings.heartbeat_path, max_age=max_age)
    print(verdict.line)
    return verdict.exit_status


def main(argv: Sequence[str] | None = None) -> int:
    """``arbitro-health``: the healthcheck alone, without the rest of the command line."""
    parser = argparse.ArgumentParser(
        prog="arbitro-health",
        description="is the running bot connected and its database answering? (exit 0/1)",
    )
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except (SettingsError, loop.EventLoopChoiceError) as error:
        sys.stderr.write(f"arbitro-health: {error}\n")
        return 2


__all__ = ["Health", "add_arguments", "check_health", "main", "run"]
