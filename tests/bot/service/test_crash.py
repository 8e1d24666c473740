"""Crash safety through the application core: SIGKILL a process playing commands through
`GameService` (tests/bot/service/crash_writer.py) at random moments, many times.

After every kill: the file is intact, every acknowledged command is in the log where it was
reported, the hash chains and the checksum of members/deadlines/settings verify
(`find_problems`, what ``arbitro db check`` runs). At the end the service loads every game
(none is refused as tampered) and plays on, and ``arbitro db check`` says ok.
"""

from __future__ import annotations

import argparse
import random
import secrets
import signal
import time
from pathlib import Path

import pytest

from bot.app import loop as app_loop
from bot.service import GameService, Request
from db.drivers.sqlite import SqliteStore
from db.tools import cli
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from tests.db.test_crash import acknowledged, check_file
from tests.fuzz.harness import SeededDice, fill_options

WRITER = Path(__file__).with_name("crash_writer.py")
ROUNDS = 16
TIME_BUDGET_S = 60.0

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _spawn(path: Path, run_number: int, seed: int, stderr_path: Path):
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    )
    with stderr_path.open("a") as stderr:
        return subprocess.Popen(
            [sys.executable, str(WRITER), str(path), str(run_number), str(seed)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=root,
            env=environment,
        )


async def play_on(path: Path, rng: random.Random) -> int:
    """Reopen the file with a fresh service: every game loads, and play goes on."""
    from tests.bot.service.crash_writer import GAMES, REFEREE, seats

    accepted = 0
    async with await SqliteStore.open(path) as store:
        service = GameService(store, dice=SeededDice(rng))
        for channel, ruleset, _ in GAMES:
            play = get_ruleset(ruleset).rules
            assert play is not None
            reply = await service.handle(Request(channel, REFEREE, "game.status", {}))
            head = (await store.load(channel)).head_hash
            assert reply.head_hash == head
            for step in range(30):
                record = await store.load(channel)
                document = play.document_format.upgrade(record.document)
                if record.status == "ended":
                    break
                actions = play.view(document, REFEREE).every_legal
                if not actions:
                    break
                action = rng.choice(actions)
                players = seats(channel, list(play.sides(document)))
                user = REFEREE if action.side is None else players[action.side]
                request = Request(
                    channel,
                    user,
                    action.verb,
                    fill_options(action, rng),
                    interaction_id=f"after-{channel}-{step}",
                )
                try:
                    await service.handle(request)
                    accepted += 1
                except RulesError:
                    pass
        assert await store.check() == []
    return accepted


@pytest.mark.slow
def test_sigkill_while_the_service_plays(tmp_path: Path) -> None:
    seed = secrets.randbits(32)
    rng = random.Random(seed)  # A private generator, seeded so a failure can be replayed.
    path = tmp_path / "service-crash.db"
    stderr_path = tmp_path / "writer.stderr"
    acks: dict[str, tuple[int, int]] = {}
    started = time.monotonic()
    rounds = 0
    while rounds < ROUNDS and time.monotonic() - started < TIME_BUDGET_S:
        context = f"seed {seed}, round {rounds}"
        child = _spawn(path, rounds, rng.randrange(2**32), stderr_path)
        # Mostly kill while it plays; one round in five at any moment of its life.
        if rng.random() < 0.8:
            ready = child.stdout.readline() if child.stdout else ""
            assert ready.strip() == "ready", f"{context}: {stderr_path.read_text()[-3000:]}"
        time.sleep(rng.uniform(0.0, 0.6))
        child.send_signal(signal.SIGKILL)
        remaining, _ = child.communicate(timeout=30)
        assert child.returncode == -signal.SIGKILL, (
            f"{context}: writer exited by itself: {stderr_path.read_text()[-3000:]}"
        )
        for channel_id, seq, interaction_id in acknowledged(remaining):
            acks[interaction_id] = (channel_id, seq)
        check_file(path, acks, context)
        rounds += 1
    assert rounds >= 8, f"only {rounds} rounds in the time budget"
    assert len(acks) > rounds, "the service committed between kills"
    assert app_loop.run(play_on(path, rng)) > 0
    parser = argparse.ArgumentParser(prog="arbitro")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["db", "check", "--db", str(path)])
    assert args.handler(args) == cli.EXIT_OK
