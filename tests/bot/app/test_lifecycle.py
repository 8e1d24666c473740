"""``arbitro run`` as a process: ready, SIGTERM, clean exit within 2 s; start-up failures.

The bot runs with the hidden ``--offline`` gateway double (bot.discord.offline): the real
settings, store, bot, signal handlers, heartbeat and shutdown, with commands read from
standard input instead of Discord. Nothing here opens a connection outside 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.app.heartbeat import read_beat
from bot.app.lifecycle import DRAIN_SECONDS, serve
from bot.app.settings import Settings
from bot.discord.client import build_bot, dummy_service
from db.drivers.sqlite import find_problems
from rules.core.errors import InvalidInput
from tests.processes import children_of, gone_within

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = "esempio_normandia"
STOP_LIMIT_S = 2.0
READY_LIMIT_S = 30.0


def arbitro_command() -> list[str]:
    """The installed ``arbitro`` script beside this Python, else the module it runs."""
    script = Path(sys.executable).with_name("arbitro")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.app.main"]


def clean_environment(**extra: str) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ARBITRO_") and key != "DISCORD_TOKEN"
    }
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    environment.update(extra)
    return environment


def start_offline_bot(db: Path, **environment: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*arbitro_command(), "run", "--offline", "--db", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=db.parent,
        env=clean_environment(ARBITRO_LOG_LEVEL="info", **environment),
    )


def wait_for(predicate, limit: float, what: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if process.poll() is not None:
            raise AssertionError(f"the bot exited before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"no {what} after {limit} s: {process.communicate()}")
        time.sleep(0.02)


def read_line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    return process.stdout.readline().strip()


def test_sigterm_stops_the_bot_cleanly_within_two_seconds(tmp_path: Path) -> None:
    db = tmp_path / "arbitro.db"
    heartbeat = tmp_path / "arbitro.db.heartbeat"
    process = start_offline_bot(db)
    assert process.stdin is not None
    wait_for(heartbeat.exists, READY_LIMIT_S, "heartbeat", process)
    beat = read_beat(heartbeat)
    assert beat.pid == process.pid and beat.offline

    # One command to the end first (it loads the ruleset), then a burst, then SIGTERM
    # while the burst is being carried out.
    process.stdin.write(f"1 /game new scenario:{SCENARIO}\n")
    process.stdin.flush()
    assert read_line(process).startswith("done 1 ")
    burst = range(2, 32)
    process.stdin.write("".join(f"{channel} /game new scenario:{SCENARIO}\n" for channel in burst))
    process.stdin.flush()
    helpers = children_of(process.pid)  # the pictures' worker, started with the bot
    assert helpers
    sent_at = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=10)
    finally:
        process.kill()
    elapsed = time.monotonic() - sent_at

    assert process.returncode == 0, err
    assert elapsed < STOP_LIMIT_S, f"stopped in {elapsed:.2f} s"
    assert "SIGTERM received" in err and "Traceback" not in err
    assert gone_within(helpers, STOP_LIMIT_S), "a process outlived the bot"

    # Every line the bot read was either carried out or refused, never half-done:
    # input line n is a command in channel n (line 1, the warm-up, was read above).
    done = {1}
    refused = set()
    for line in out.splitlines():
        word, number = line.split()[0], int(line.split()[1].rstrip(":"))
        assert word in ("done", "refused"), line
        (done if word == "done" else refused).add(number)
    assert not done & refused

    # The database was closed cleanly: WAL checkpointed and removed, file intact, and it
    # holds exactly the games whose creation was acknowledged.
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    assert not heartbeat.exists()
    connection = sqlite3.connect(db)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert find_problems(connection) == []
        games = {row[0] for row in connection.execute("SELECT channel_id FROM games")}
    finally:
        connection.close()
    assert games == done


def test_sigint_stops_it_the_same_way(tmp_path: Path) -> None:
    db = tmp_path / "arbitro.db"
    process = start_offline_bot(db)
    wait_for((tmp_path / "arbitro.db.heartbeat").exists, READY_LIMIT_S, "heartbeat", process)
    sent_at = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert time.monotonic() - sent_at < STOP_LIMIT_S
    assert "Traceback" not in err and not Path(f"{db}-wal").exists()
    # The bot runs on uvloop (bot/app/loop.py), its signal handlers included.
    assert "event loop: uvloop.Loop" in err


def test_arbitro_event_loop_asyncio_runs_the_bot_on_asyncios_loop(tmp_path: Path) -> None:
    db = tmp_path / "arbitro.db"
    process = start_offline_bot(db, ARBITRO_EVENT_LOOP="asyncio")
    wait_for((tmp_path / "arbitro.db.heartbeat").exists, READY_LIMIT_S, "heartbeat", process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert "event loop: asyncio.unix_events._UnixSelectorEventLoop" in err
    assert "SIGTERM received" in err and "Traceback" not in err


async def test_shutdown_waits_for_a_running_command_and_refuses_new_ones(tmp_path: Path) -> None:
    """In process: a command running when the stop arrives finishes; one after is refused."""
    bot = build_bot(dummy_service())
    release = asyncio.Event()
    finished: list[str] = []

    async def slow_command() -> None:
        bot.check_accepting()
        with bot.command_in_flight():
            await release.wait()
            finished.append("slow")

    running = asyncio.create_task(slow_command())
    await asyncio.sleep(0)
    assert bot.running_commands == 1
    draining = asyncio.create_task(bot.drain(DRAIN_SECONDS))
    await asyncio.sleep(0)
    with pytest.raises(InvalidInput) as refusal:
        await slow_command()
    assert refusal.value.key == "discord.error.shutting_down"
    release.set()
    assert await draining == 0
    await running
    assert finished == ["slow"]
    await bot.close()


async def test_drain_gives_up_after_its_grace(tmp_path: Path) -> None:
    bot = build_bot(dummy_service())
    never = asyncio.Event()

    async def stuck() -> None:
        with bot.command_in_flight():
            await never.wait()

    task = asyncio.create_task(stuck())
    await asyncio.sleep(0)
    started = time.monotonic()
    assert await bot.drain(0.1) == 1
    assert time.monotonic() - started < 1.0
    task.cancel()
    await bot.close()


async def test_serve_closes_everything_when_the_gateway_fails(tmp_path: Path) -> None:
    """A connector that fails: one StartError, store closed, no heartbeat left behind."""
    from bot.app.lifecycle import StartError

    settings = Settings(db=tmp_path / "arbitro.db")

    async def refused(bot) -> None:
        raise OSError("Connect call failed ('127.0.0.1', 9)")

    with pytest.raises(StartError) as failure:
        await serve(settings, refused)
    assert str(failure.value).startswith("cannot reach Discord:")
    assert failure.value.exit_status == 1
    assert not await asyncio.to_thread(Path(f"{settings.db}-wal").exists)
    assert not await asyncio.to_thread(settings.heartbeat_path.exists)


UNREACHABLE = "http://127.0.0.1:9/api/v10"  # the discard port: refused at once
PATCH_DISCORD = (
    "import sys, discord.http\n"
    f"discord.http.Route.BASE = {UNREACHABLE!r}\n"
    "from bot.app.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.mark.parametrize("command", [["run"], ["sync"], []])
def test_an_unreachable_discord_is_one_line_and_a_failure(tmp_path: Path, command) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PATCH_DISCORD, *command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_environment(
            DISCORD_TOKEN="MTIz.abc.def",
            ARBITRO_DB=str(tmp_path / "a.db"),
            ARBITRO_LOG_LEVEL="error",
        ),
        timeout=60,
    )
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    verb = command[0] if command else "run"  # `arbitro` alone runs the bot with a token
    assert lines[0].startswith(f"arbitro {verb}: cannot reach Discord"), lines[0]
    assert "127.0.0.1:9" in lines[0]
