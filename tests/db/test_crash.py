"""Crash safety: SIGKILL a committing process at random moments, many times.

On SQLite the killed process is the only writer of the file, so this tests SQLite's journal
and our transaction boundaries. On PostgreSQL the killed process is the client: the server
sees its connection drop and rolls back whatever transaction was open, so the test checks
our transaction boundaries (no half-written command: a state without its event, a version
ahead of its log) and that every acknowledged commit is there. (Killing the server itself
is PostgreSQL's own crash recovery, which we do not re-test.)

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

from db.drivers.sqlite import SqliteStore, find_problems
from db.migrations import latest_version, read_user_version
from db.open import open_store

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("crash_writer.py")
ROUNDS = 30
TIME_BUDGET_S = 50.0

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def spawn_writer(
    path: Path | str, run_number: int, seed: int, stderr_path: Path
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
        if read_user_version(connection) < latest_version():
            # Killed between two migrations of the first open (each commits on its own):
            # nothing was acknowledged yet, and the next open goes on from this version.
            assert acks == {}, context
            return
        # Every event has its state: a whole document (version 1, snapshots, the head) or
        # a patch from the previous version (docs/storage.md, "History").
        orphan_events = connection.execute(
            "SELECT count(*) FROM events AS e LEFT JOIN states AS s "
            "ON s.channel_id = e.channel_id AND s.version = e.state_version "
            "LEFT JOIN patches AS p ON p.channel_id = e.channel_id AND p.version = e.seq "
            "WHERE s.version IS NULL AND p.version IS NULL"
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


async def check_postgres(url: str, acks: dict[str, tuple[int, int]], context: str) -> None:
    """The audit is clean and every acknowledged interaction is stored where reported."""
    import asyncpg

    async with await open_store(url) as store:
        assert await store.check() == [], context
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT interaction_id, channel_id, seq FROM events WHERE interaction_id = ANY($1)",
            list(acks),
        )
        orphan_states = await connection.fetchval(
            "SELECT count(*) FROM states AS s LEFT JOIN events AS e "
            "ON e.channel_id = s.channel_id AND e.seq = s.version WHERE e.seq IS NULL"
        )
    finally:
        await connection.close()
    stored = {row[0]: (row[1], row[2]) for row in rows}
    assert orphan_states == 0, context
    for interaction_id, place in acks.items():
        assert stored.get(interaction_id) == place, f"{context}: lost {interaction_id}"


async def verify_postgres_through_the_store(url: str) -> int:
    async with await open_store(url) as store:
        total = 0
        for game in await store.list_games(1):
            total += len((await store.export(game.channel_id)).events)
        return total


@pytest.mark.slow
@pytest.mark.parametrize("backend_name", ["sqlite", "postgres"])
def test_sigkill_at_random_moments(
    tmp_path: Path, backend_name: str, request: pytest.FixtureRequest
) -> None:
    seed = secrets.randbits(32)
    rng = random.Random(seed)  # A private generator, seeded so a failure can be replayed.
    postgres = backend_name == "postgres"
    # One server for the session: fewer, shorter rounds keep the suite's time reasonable.
    rounds_wanted, budget, minimum = (12, 20.0, 8) if postgres else (ROUNDS, TIME_BUDGET_S, 15)
    path: Path | str = request.getfixturevalue("pg_url") if postgres else tmp_path / "crash.db"
    stderr_path = tmp_path / "writer.stderr"
    acks: dict[str, tuple[int, int]] = {}
    started = time.monotonic()
    rounds = 0
    while rounds < rounds_wanted and time.monotonic() - started < budget:
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
        if isinstance(path, str):
            asyncio.run(check_postgres(path, acks, context))
        else:
            check_file(path, acks, context)
        rounds += 1
    assert rounds >= minimum, f"only {rounds} rounds in the time budget"
    assert len(acks) > rounds  # The writer did commit between kills.
    if isinstance(path, str):
        assert asyncio.run(verify_postgres_through_the_store(path)) >= 3
    else:
        assert asyncio.run(verify_through_the_store(path)) >= 3
