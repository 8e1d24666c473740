"""``arbitro db …`` through its own argparse parser (bot.app.main wires the same `register`)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import pytest

from db.chain.hashing import verify_export
from db.drivers.sqlite import SqliteStore
from db.migrations import latest_version
from db.models import NewEvent
from db.tools import cli
from tests.db.helpers import drop_append_only_guards, new_game, raw_connection


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="arbitro")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return int(args.handler(args))


def populate(path: Path) -> None:
    async def work() -> None:
        async with await SqliteStore.open(path) as store:
            await new_game(store, 5, document={"turn": 1})
            await store.commit(5, 1, {"turn": 2}, NewEvent(verb="advance", dice=[4]))

    asyncio.run(work())


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    assert lines[0].startswith("arbitro db: error: ")
    return lines[0]


def test_migrate_creates_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.db"
    assert run("db", "migrate", "--db", str(path)) == 0
    assert f"schema version {latest_version()}" in capsys.readouterr().out
    assert run("db", "migrate", "--db", str(path)) == 0


def test_database_path_from_environment_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(cli.DB_PATH_ENV, str(tmp_path / "from-env.db"))
    assert run("db", "migrate") == 0
    assert (tmp_path / "from-env.db").exists()
    monkeypatch.delenv(cli.DB_PATH_ENV)
    assert run("db", "migrate") == 0
    assert (tmp_path / "arbitro.db").exists()


def test_check_ok_then_tampered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.db"
    populate(path)
    assert run("db", "check", "--db", str(path)) == 0
    assert "ok (1 game(s) checked)" in capsys.readouterr().out

    connection = raw_connection(path)
    drop_append_only_guards(connection)
    connection.execute("UPDATE events SET dice = '[6]' WHERE seq = 2")
    connection.close()
    assert run("db", "check", "--db", str(path)) == cli.EXIT_PROBLEMS
    captured = capsys.readouterr()
    assert "channel 5: event log fails verification at event 2" in captured.out


def test_export_to_stdout_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.db"
    populate(path)
    assert run("db", "export", "5", "--db", str(path)) == 0
    exported = json.loads(capsys.readouterr().out)
    assert [event["verb"] for event in exported["events"]] == ["game.created", "advance"]
    assert verify_export(exported) == exported["head_hash"]

    out = tmp_path / "game-5.json"
    assert run("db", "export", "5", "--db", str(path), "--out", str(out)) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["head_hash"] == exported["head_hash"]


def test_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.db"
    populate(path)
    target = tmp_path / "backup.db"
    assert run("db", "backup", str(target), "--db", str(path)) == 0
    assert run("db", "check", "--db", str(target)) == 0
    assert run("db", "export", "5", "--db", str(target)) == 0
    capsys.readouterr()
    assert run("db", "backup", str(target), "--db", str(path)) == cli.EXIT_ERROR
    assert "already exists" in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("db", "export", "77"), "channel 77: no game here"),
        (("db", "check", "--db", "{tmp}/missing.db"), "no database file here"),
        (("db", "export", "5", "--db", "{tmp}/missing.db"), "no database file here"),
        (("db", "backup", "{tmp}/b.db", "--db", "{tmp}/missing.db"), "no database file here"),
        (("db", "check", "--db", "{tmp}/notes.txt"), "not an SQLite database"),
        (("db", "migrate", "--db", "{tmp}/notes.txt"), "not an SQLite database"),
        (("db", "backup", "{tmp}/b.db", "--db", "{tmp}/notes.txt"), "not an SQLite database"),
        (("db", "migrate", "--db", "{tmp}/future.db"), "newer than this Arbitro knows"),
    ],
)
def test_errors_are_one_line_and_status_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    message: str,
) -> None:
    populate(tmp_path / "arbitro.db")
    (tmp_path / "notes.txt").write_text("not a database " * 500)
    future = raw_connection(tmp_path / "future.db")
    future.execute("PRAGMA application_id = 1095909961")
    future.execute("PRAGMA user_version = 9999")
    future.close()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cli.DB_PATH_ENV, raising=False)
    capsys.readouterr()

    status = run(*(part.format(tmp=tmp_path) for part in argv))
    assert status == cli.EXIT_ERROR
    assert message in one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "missing.db").exists()


def test_db_without_action_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("db") == cli.EXIT_ERROR
    assert "migrate" in capsys.readouterr().err
