"""Crash safety: SIGKILL a committing process at random moments, many times.

After every kill the file must be intact (``PRAGMA integrity_check``), every event must
have its state and every state its event, versions must equal event counts, hash chains
must verify, and every commit the child acknowledged must be there.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db.migrations import latest_version, read_user_version
from db.sqlite import SqliteStore, find_problems

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("crash_writer.py")
ROUNDS = 30
TIME_BUDGET_S = 50.0

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def spawn_writer(
    path: Path, run_number: int, seed: int, stderr_path: Path
) -> subprocess.Popen[str]:
    import_path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    environment = dict(os.environ, PYTHONPATH=import_path)
    with stderr_path.open("a") as stderr:
        return subprocess.Popen(
            [sys.executable, str(WRITER), str(path), str(run_number), str(seed)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=ROOT,
            env=environment,
        )


def acknowledged(output: str) -> list[tuple[int, int, str]]:
    """The (channel, version, interaction id) lines the child printed before dying."""
    acks = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "ack":
            acks.append((int(parts[1]), int(parts[2]), parts[3]))
    return acks


def check_file(path: Path, acks: dict[str, tuple[int, int]], context: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)], context
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if read_user_version(connection) == 0:
            # Killed before the first migration committed: it must have left nothing.
            assert (tables, acks) == (0, {}), context
            return
        assert read_user_version(connection) == latest_version(), context
        orphan_events = connection.execute(
            "SELECT count(*) FROM events AS e LEFT JOIN states AS s "
            "ON s.channel_id = e.channel_id AND s.version = e.state_version "
            "WHERE s.version IS NULL"
        ).fetchone()[0]
        orphan_states = connection.execute(
            "SELECT count(*) FROM states AS s LEFT JOIN events AS e "
            "ON e.channel_id = s.channel_id AND e.seq = s.version "
            "WHERE s.version >= 1 AND e.seq IS NULL"
        ).fetchone()[0]
        assert (orphan_events, orphan_states) == (0, 0), context
        miscounted = connection.execute(
            "SELECT g.channel_id FROM games AS g WHERE g.version <> "
            "(SELECT count(*) FROM events AS e WHERE e.channel_id = g.channel_id)"
        ).fetchall()
        assert miscounted == [], context
        # Chains and state hashes, with the store's own auditor.
        assert find_problems(connection) == [], context
        # Nothing acknowledged was lost: the event is there at the version reported.
        for interaction_id, (channel_id, version) in acks.items():
            row = connection.execute(
                "SELECT channel_id, seq FROM events WHERE interaction_id = ?", (interaction_id,)
            ).fetchone()
            assert row == (channel_id, version), f"{context}: lost {interaction_id}"
    finally:
        connection.close()


async def verify_through_the_store(path: Path) -> int:
    """The store reopens the file after the crash and exports verified chains."""
    async with await SqliteStore.open(path) as store:
        total = 0
        for game in await store.list_games(1):
            bundle = await store.export(game.channel_id)
            total += len(bundle.events)
        return total


@pytest.mark.slow
def test_sigkill_at_random_moments(tmp_path: Path) -> None:
    seed = secrets.randbits(32)
    rng = random.Random(seed)  # A private generator, seeded so a failure can be replayed.
    path = tmp_path / "crash.db"
    stderr_path = tmp_path / "writer.stderr"
    acks: dict[str, tuple[int, int]] = {}
    started = time.monotonic()
    rounds = 0
    while rounds < ROUNDS and time.monotonic() - started < TIME_BUDGET_S:
        context = f"seed {seed}, round {rounds}"
        child = spawn_writer(path, rounds, rng.randrange(2**32), stderr_path)
        # Mostly kill while it commits; one round in four, at any moment of its life
        # (startup, opening and recovering the file, creating the games).
        if rng.random() < 0.75:
            ready = child.stdout.readline() if child.stdout else ""
            assert ready.strip() == "ready", f"{context}: {stderr_path.read_text()[-2000:]}"
        time.sleep(rng.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        remaining, _ = child.communicate(timeout=30)
        assert child.returncode == -signal.SIGKILL, f"{context}: writer exited by itself"
        for channel_id, version, interaction_id in acknowledged(remaining):
            acks[interaction_id] = (channel_id, version)
        check_file(path, acks, context)
        rounds += 1
    assert rounds >= 15, f"only {rounds} rounds in the time budget"
    assert len(acks) > rounds  # The writer did commit between kills.
    assert asyncio.run(verify_through_the_store(path)) >= 3
