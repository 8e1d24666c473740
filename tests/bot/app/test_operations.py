"""Operating the bot: ``arbitro health``, sync only on change, settings as one-line errors."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.app.heartbeat import Beat, read_beat, stamp_while_connected, write_beat
from bot.app.main import main
from bot.discord.client import build_bot, dry_run_payload, dummy_service, payload_hash
from db.drivers.aiosqlite_driver import SqliteDriver
from db.drivers.sqlite import SqliteStore
from db.migrations import latest_version

HASH_FILE = Path(__file__).resolve().parents[1] / "command_payload.sha256"


@pytest.fixture(autouse=True)
def no_arbitro_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("ARBITRO_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)


# -- arbitro health ---------------------------------------------------------------------------


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "arbitro.db"

    async def create() -> None:
        store = await SqliteStore.open(path)
        await store.close()

    asyncio.run(create())
    return path


def health(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    status = main(["health", *args])
    out = capsys.readouterr().out
    return status, out.splitlines()


def stamp(path: Path, age: float, latency_ms: float | None = 42.0) -> None:
    write_beat(path, Beat(at=time.time() - age, latency_ms=latency_ms, pid=os.getpid()))


def test_health_is_ok_with_a_fresh_heartbeat_and_a_database_that_answers(database, capsys):
    stamp(Path(f"{database}.heartbeat"), age=3)
    status, lines = health(capsys, "--db", str(database))
    assert status == 0
    assert len(lines) == 1 and lines[0].startswith("ok: gateway heartbeat 3 s ago (latency 42 ms)")
    assert f"schema {latest_version()}" in lines[0]


def test_health_fails_on_a_stale_heartbeat(database, capsys):
    stamp(Path(f"{database}.heartbeat"), age=600)
    status, lines = health(capsys, "--db", str(database))
    assert status == 1 and len(lines) == 1
    assert "heartbeat is 600 s old (limit 90 s)" in lines[0]
    status, _ = health(capsys, "--db", str(database), "--max-age", "900")
    assert status == 0


def test_health_fails_without_a_heartbeat(database, capsys):
    status, lines = health(capsys, "--db", str(database))
    assert status == 1 and len(lines) == 1 and "no heartbeat file" in lines[0]


def test_health_fails_on_a_garbled_heartbeat(database, capsys):
    Path(f"{database}.heartbeat").write_text("{not json", encoding="utf-8")
    status, lines = health(capsys, "--db", str(database))
    assert status == 1 and "unreadable heartbeat" in lines[0]


def test_health_fails_when_the_database_is_missing_or_not_arbitros(tmp_path, capsys):
    beat = tmp_path / "beat"
    stamp(beat, age=1)
    status, lines = health(capsys, "--db", str(tmp_path / "gone.db"), "--heartbeat", str(beat))
    assert status == 1 and len(lines) == 1 and "no database file here" in lines[0]
    assert not (tmp_path / "gone.db").exists()  # the check never creates a file
    (tmp_path / "junk.db").write_bytes(b"this is not sqlite at all" * 100)
    status, lines = health(capsys, "--db", str(tmp_path / "junk.db"), "--heartbeat", str(beat))
    assert status == 1 and len(lines) == 1 and lines[0].startswith("unhealthy: database")


def test_health_reads_its_paths_from_the_environment(database, tmp_path, capsys, monkeypatch):
    beat = tmp_path / "elsewhere.beat"
    stamp(beat, age=1, latency_ms=None)
    monkeypatch.setenv("ARBITRO_DB", str(database))
    monkeypatch.setenv("ARBITRO_HEARTBEAT", str(beat))
    status, lines = health(capsys)
    assert status == 0 and "latency unknown" in lines[0]


def test_health_does_not_read_the_games(database, capsys):
    """Constant cost: a check that never touches the games table cannot grow with it."""
    stamp(Path(f"{database}.heartbeat"), age=1)
    statements: list[str] = []
    original = SqliteDriver._query

    async def spy(self: SqliteDriver, query: Any) -> Any:
        statements.append(query.sql)
        return await original(self, query)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SqliteDriver, "_query", spy)
        status, _ = health(capsys, "--db", str(database))
    assert status == 0 and statements
    tables = ("FROM games", "FROM events", "FROM states", "FROM members")
    assert [s for s in statements if any(table in s for table in tables)] == []


async def test_the_heartbeat_is_stamped_only_while_connected(tmp_path: Path) -> None:
    path = tmp_path / "beat"
    connected: list[Any] = [None]

    class Status:
        latency_ms = 12.5
        offline = False

    task = asyncio.create_task(stamp_while_connected(path, lambda: connected[0], interval=0.05))
    await asyncio.sleep(0.2)
    assert not await asyncio.to_thread(path.exists)  # not connected yet: nothing written
    connected[0] = Status()
    for _ in range(500):
        if await asyncio.to_thread(path.exists):
            break
        await asyncio.sleep(0.01)
    connected[0] = None  # disconnected: the stamp is left to age
    await asyncio.sleep(0.1)  # a write already under way lands
    first = await asyncio.to_thread(read_beat, path)
    assert first.latency_ms == 12.5 and first.pid == os.getpid()
    await asyncio.sleep(0.3)
    assert (await asyncio.to_thread(read_beat, path)).at == first.at
    task.cancel()


# -- commands synced only when they changed ------------------------------------------------


def counting_sync(bot: Any, calls: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    async def fake_sync(*, guild: Any = None) -> list[Any]:
        calls.append(getattr(guild, "id", None))
        return []

    monkeypatch.setattr(bot.tree, "sync", fake_sync)
    monkeypatch.setattr(bot.reminder_loop, "start", lambda *a, **k: None)


async def start(
    state: Path, calls: list[Any], monkeypatch, *, guild: int | None = None, extra: bool = False
) -> None:
    """One start of the bot: build it, run its setup hook (which syncs if needed), close."""
    bot = build_bot(dummy_service(), guild_id=guild, sync_state=state)
    counting_sync(bot, calls, monkeypatch)
    if extra:

        @app_commands.command(name="ping", description="a command added by a later release")
        async def ping(interaction: discord.Interaction[Any]) -> None:  # pragma: no cover
            pass

        await bot.install()
        bot.tree.add_command(ping)
    await bot.setup_hook()
    await bot.close()


async def test_commands_are_synced_once_for_the_same_payload(tmp_path, monkeypatch):
    state = tmp_path / "arbitro.db.commands.json"
    calls: list[Any] = []
    await start(state, calls, monkeypatch)
    await start(state, calls, monkeypatch)
    assert calls == [None]
    recorded = json.loads(await asyncio.to_thread(state.read_text))
    # The recorded hash is the payload's hash, the one the tests pin.
    pinned = (await asyncio.to_thread(HASH_FILE.read_text)).strip()
    assert list(recorded.values()) == [payload_hash(await dry_run_payload())] == [pinned]


async def test_a_changed_payload_is_synced_again(tmp_path, monkeypatch):
    state = tmp_path / "arbitro.db.commands.json"
    calls: list[Any] = []
    await start(state, calls, monkeypatch)
    await start(state, calls, monkeypatch, extra=True)
    await start(state, calls, monkeypatch, extra=True)
    assert calls == [None, None]


async def test_each_target_keeps_its_own_record(tmp_path, monkeypatch):
    state = tmp_path / "arbitro.db.commands.json"
    calls: list[Any] = []
    await start(state, calls, monkeypatch)
    await start(state, calls, monkeypatch, guild=1234)
    await start(state, calls, monkeypatch, guild=1234)
    await start(state, calls, monkeypatch)
    assert calls == [None, 1234]


async def test_force_syncs_anyway_and_a_failed_sync_is_not_recorded(tmp_path, monkeypatch):
    state = tmp_path / "arbitro.db.commands.json"
    calls: list[Any] = []
    bot = build_bot(dummy_service(), sync_state=state, serving=False)
    counting_sync(bot, calls, monkeypatch)
    await bot.install()
    assert (await bot.sync_commands_if_changed()).synced
    assert not (await bot.sync_commands_if_changed()).synced
    assert (await bot.sync_commands_if_changed(force=True)).synced
    assert calls == [None, None]

    class Down(discord.HTTPException):
        def __init__(self) -> None:
            Exception.__init__(self, "503")

    async def failing_sync(*, guild: Any = None) -> list[Any]:
        raise Down()

    await asyncio.to_thread(state.unlink)
    monkeypatch.setattr(bot.tree, "sync", failing_sync)
    await bot.setup_hook()  # serving=False: no sync at all on login
    bot.serving = True
    await bot.setup_hook()  # logs the failure, records nothing
    assert not await asyncio.to_thread(state.exists)
    await bot.close()


def test_sync_without_a_token_is_one_line(capsys):
    assert main(["sync"]) == 2
    assert capsys.readouterr().err == "arbitro sync: set DISCORD_TOKEN (or use --dry-run)\n"


def test_sync_dry_run_still_prints_the_payload(capsys):
    assert main(["sync", "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["name"] == "game"


# -- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("ARBITRO_LOG_LEVEL", "verbose", "ARBITRO_LOG_LEVEL: 'verbose' is not one of debug"),
        ("ARBITRO_GUILD", "my-server", "ARBITRO_GUILD: 'my-server' is not a Discord server id"),
        ("ARBITRO_GUILD", "0", "ARBITRO_GUILD: '0' is not a Discord server id"),
        ("ARBITRO_DB", " ", "ARBITRO_DB: is empty"),
        ("DISCORD_TOKEN", "two words", "DISCORD_TOKEN: a bot token has no spaces"),
        ("ARBITRO_LANGUAGE", "de", "ARBITRO_LANGUAGE: 'de' is not one of it, en, fr"),
    ],
)
@pytest.mark.parametrize("command", [["run"], ["console"], ["health"], ["sync"], []])
def test_a_bad_setting_is_one_line_and_status_2(
    monkeypatch, capsys, variable, value, message, command
):
    monkeypatch.setenv(variable, value)
    assert main(command) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("arbitro: " + message), lines[0]
    assert captured.out == ""


def test_good_settings_are_read_in_any_case(monkeypatch):
    from bot.app.settings import load_settings

    monkeypatch.setenv("ARBITRO_LOG_LEVEL", "debug")
    monkeypatch.setenv("ARBITRO_GUILD", " 1234 ")
    monkeypatch.setenv("DISCORD_TOKEN", "")
    monkeypatch.setenv("ARBITRO_LANGUAGE", " EN ")
    settings = load_settings()
    assert settings.language == "en"
    assert settings.log_level == "DEBUG" and settings.log_level_number == 10
    assert settings.guild == 1234 and settings.discord_token is None
    assert settings.heartbeat_path == Path("arbitro.db.heartbeat")
    assert settings.sync_state_path == Path("arbitro.db.commands.json")


# -- the invite URL docs/self-hosting.md gives ---------------------------------------------


def test_the_documented_invite_url_is_the_one_the_code_needs():
    from bot.discord.client import REQUIRED_PERMISSIONS, invite_url

    page = Path(__file__).resolve().parents[3] / "docs" / "self-hosting.md"
    documented = page.read_text(encoding="utf-8")
    expected = invite_url(123).replace("client_id=123", "client_id=APPLICATION_ID")
    assert expected in documented
    assert f"**{REQUIRED_PERMISSIONS.value:,}**" in documented  # the table's total
    # The bot reads no history and mentions no one wholesale.
    assert not REQUIRED_PERMISSIONS.read_message_history
    assert not REQUIRED_PERMISSIONS.mention_everyone
    assert not REQUIRED_PERMISSIONS.administrator


def test_the_healthcheck_has_a_small_entry_point_of_its_own(tmp_path: Path) -> None:
    """The container runs `arbitro-health` every 30 s: it answers like `arbitro health` and
    imports neither discord.py nor the service."""
    probe = (
        "import sys; from bot.app.health import main; status = main(sys.argv[1:]); "
        "assert 'discord' not in sys.modules and 'bot.service' not in sys.modules, "
        "sorted(m for m in sys.modules if m.startswith(('discord', 'bot.service'))); "
        "sys.exit(status)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "--db", str(tmp_path / "none.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("unhealthy: no heartbeat file")
