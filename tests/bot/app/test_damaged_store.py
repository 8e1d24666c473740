"""A damaged database answers in one line, never a traceback (issue 23, item 3).

* A file SQLite cannot read (its header, its schema text, a page): ``arbitro db check``,
  ``arbitro console`` and ``arbitro run`` print one line saying the database file is damaged
  and exit with status 2 (run as subprocesses, as a user runs them).
* A game whose head cannot be read (its version or its current state damaged): the console
  and the bot start anyway (the start-up check names it in the log), its channel answers a
  localized refusal, the other channels play, ``db check`` names it.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.upgrade import ensure_readable
from bot.service import GameService, Request
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError
from tests.bot.service.test_integrity import ANNA, REFEREE, _seated
from tests.db.helpers import drop_append_only_guards

ROOT = Path(__file__).resolve().parents[3]
DAMAGED, CLEAN = 1, 2


def arbitro(*args: str, script: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.app.main", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "ARBITRO_LANGUAGE": "en"},
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file with two games in progress, played through the console."""
    directory = tmp_path_factory.mktemp("played")
    path = directory / "arbitro.db"
    for channel in (DAMAGED, CLEAN):
        result = arbitro(
            "console",
            "--db",
            str(path),
            "--channel",
            str(channel),
            script="/game new ruleset:manovra\n/turn next\n/turn next\n",
            cwd=directory,
        )
        assert result.returncode == 0, result.stderr
    return path


def _copy(source: Path, target: Path) -> bytearray:
    target.write_bytes(source.read_bytes())
    return bytearray(target.read_bytes())


def _flip_header(data: bytearray) -> None:
    for offset in range(16):  # "SQLite format 3\0" scrambled
        data[offset] ^= 0xFF


def _flip_schema(data: bytearray) -> None:
    # A byte of the schema text of the games table that is not UTF-8 any more.
    at = data.index(b"CREATE TABLE games")
    data[at + 7] = 0xC3
    data[at + 8] = 0x28


def _page_of_games(path: Path) -> tuple[int, int]:
    connection = sqlite3.connect(path)
    try:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        root = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'games'"
        ).fetchone()[0]
    finally:
        connection.close()
    return page_size, root


DAMAGES = ("header", "schema text", "a page")


def _damaged_copy(played: Path, directory: Path, damage: str) -> Path:
    path = directory / "damaged.db"
    data = _copy(played, path)
    if damage == "header":
        _flip_header(data)
    elif damage == "schema text":
        _flip_schema(data)
    else:  # the page holding the games table's rows, scribbled over
        page_size, root = _page_of_games(played)
        start = (root - 1) * page_size
        data[start : start + page_size] = b"\x5a" * page_size
    path.write_bytes(bytes(data))
    return path


def _one_damage_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "the database file is damaged" in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_file_is_one_line_and_exit_2(played: Path, tmp_path: Path, damage: str):
    path = _damaged_copy(played, tmp_path, damage)
    line = _one_damage_line(arbitro("db", "check", "--db", str(path), cwd=tmp_path))
    assert line.startswith(f"arbitro db: error: {path}: ")
    _one_damage_line(arbitro("console", "--db", str(path), script="/game status\n", cwd=tmp_path))
    if damage != "a page":  # the bot reads no game before serving (each on first use)
        _one_damage_line(arbitro("run", "--offline", "--db", str(path), cwd=tmp_path))


def test_a_game_with_a_damaged_head_does_not_stop_the_console(played: Path, tmp_path: Path):
    path = tmp_path / "head.db"
    _copy(played, path)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(f"UPDATE games SET version = 99 WHERE channel_id = {DAMAGED}")
    finally:
        connection.close()
    other = arbitro(
        "console", "--db", str(path), "--channel", str(CLEAN), script="/turn next\n", cwd=tmp_path
    )
    assert other.returncode == 0 and "Traceback" not in other.stdout + other.stderr
    assert "! " not in other.stdout, other.stdout  # the clean game played its command
    assert f"channel {DAMAGED}" in other.stderr  # named in the log by the start-up check
    same = arbitro(
        "console", "--db", str(path), "--channel", str(DAMAGED), script="/turn next\n", cwd=tmp_path
    )
    assert same.returncode == 0 and "Traceback" not in same.stdout + same.stderr
    # A head past its log: the chain, verified before the game is played, misses event 99.
    refused = [line for line in same.stdout.splitlines() if line.startswith("! ")]
    assert len(refused) == 1 and "99" in refused[0] and "arbitro db check" in refused[0]
    check = arbitro("db", "check", "--db", str(path), cwd=tmp_path)
    assert check.returncode == 1
    assert check.stdout and all(
        line.startswith(f"channel {DAMAGED}:") for line in check.stdout.splitlines()
    )


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE games SET version = 99 WHERE channel_id = {channel}",
        "UPDATE games SET version = 'x' WHERE channel_id = {channel}",
        "UPDATE states SET document = '{{\"turn\": ' WHERE channel_id = {channel} "
        "AND version = (SELECT max(version) FROM states WHERE channel_id = {channel})",
    ],
)
async def test_the_service_sets_a_damaged_game_apart(service, store, dice, damage, caplog):
    damaged = await _seated(service, dice, 5252)
    clean = await _seated(service, dice, 5353)
    connection = sqlite3.connect(store.path, isolation_level=None)
    try:
        drop_append_only_guards(connection)
        connection.execute(damage.format(channel=5252))
    finally:
        connection.close()
    fresh = await SqliteStore.open(store.path)  # a restart: the start-up check, then play
    try:
        caplog.set_level(logging.ERROR)
        await ensure_readable(fresh, fresh.path)  # does not stop the start
        assert any("5252" in r.getMessage() for r in caplog.records)
        again = GameService(fresh, dice=dice)
        for verb in ("game.status", "turn.next", "game.log", "game.export"):
            with pytest.raises(RulesError) as caught:
                await again.handle(Request(5252, REFEREE, verb, {}, guild_id=7))
            # A head past its log reads as a chain missing its last events (altered); a
            # version or a state that cannot be read, as damaged data.
            expected = (
                "error.store.tampered_game" if "= 99" in damage else "error.store.damaged_game"
            )
            assert caught.value.key == expected, caught.value.key
            for language in ("it", "en", "fr"):
                text = caught.value.localized(language)
                assert "arbitro db check" in text and "{" not in text
        listing = await again.handle(Request(5353, REFEREE, "game.list", {}, guild_id=7))
        assert any("<#5353>" in line for line in listing.lines)
        await again.handle(Request(5353, ANNA, "turn.next", {}, guild_id=7))
        problems = await fresh.check()
        assert problems and all(p.startswith("channel 5252:") for p in problems), problems
    finally:
        await fresh.close()
    del damaged, clean
