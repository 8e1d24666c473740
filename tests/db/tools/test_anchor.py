"""``arbitro db check --against EXPORT``: a saved export anchors the chain outside the file.

A removed last event or a history rebuilt with a fresh, self-consistent chain passes the
plain check (the chain still verifies) but not the comparison with an earlier export.
Both export shapes are accepted: the bundle with every state, and one with events only.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from db.drivers.sqlite import SqliteStore
from db.models import NewEvent
from db.tools import cli
from db.tools.anchor import ExportUnreadable, read_exported_chain
from tests.db.helpers import drop_append_only_guards, new_game, raw_connection
from tests.db.tools.test_cli import one_error_line, run

CHANNEL = 5


async def _play(path: Path, dice: list[int], *, start: int = 1) -> None:
    async with await SqliteStore.open(path) as store:
        if start == 1:
            await new_game(store, CHANNEL, document={"turn": 1}, referee_id=10)
        for version, face in enumerate(dice, start=start):
            await store.commit(
                CHANNEL, version, {"turn": version + 1}, NewEvent(verb="advance", dice=[face])
            )


async def _export(path: Path) -> dict:
    async with await SqliteStore.open(path) as store:
        return (await store.export(CHANNEL)).to_json_dict()


def _save(tmp_path: Path, bundle: dict, *, with_states: bool) -> Path:
    if not with_states:
        bundle = {key: value for key, value in bundle.items() if key != "states"}
    target = tmp_path / f"export-{with_states}.json"
    target.write_text(json.dumps(bundle), encoding="utf-8")
    return target


def _edit(path: Path, *statements: str) -> None:
    connection = raw_connection(path)
    try:
        drop_append_only_guards(connection)
        connection.execute("PRAGMA foreign_keys = OFF")
        for statement in statements:
            connection.execute(statement)
    finally:
        connection.close()


@pytest.fixture(params=[True, False], ids=["with-states", "events-only"])
def with_states(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def test_an_export_of_the_same_game_agrees_even_after_more_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_states: bool
) -> None:
    path = tmp_path / "games.db"
    asyncio.run(_play(path, [3, 4, 5]))
    export = _save(tmp_path, asyncio.run(_export(path)), with_states=with_states)
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_OK
    asyncio.run(_play(path, [6], start=4))  # the game moved on since the export
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_OK
    assert "ok (1 game(s) checked)" in capsys.readouterr().out


def test_a_removed_last_event_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_states: bool
) -> None:
    path = tmp_path / "games.db"
    asyncio.run(_play(path, [3, 4, 5]))
    export = _save(tmp_path, asyncio.run(_export(path)), with_states=with_states)
    # The last command vanishes as a lost WAL frame would leave it: a shorter, valid chain.
    _edit(
        path,
        f"DELETE FROM patches WHERE channel_id = {CHANNEL} AND version = 4",
        f"DELETE FROM events WHERE channel_id = {CHANNEL} AND seq = 4",
        f"DELETE FROM states WHERE channel_id = {CHANNEL} AND version = 4",
        # Committing version 4 dropped version 3's full document unless version 3 is a
        # snapshot (its patch rebuilds it); the file before that commit still held it.
        f"INSERT OR IGNORE INTO states VALUES ({CHANNEL}, 3, 'setup', '{{\"turn\":3}}')",
        f"UPDATE games SET version = 3 WHERE channel_id = {CHANNEL}",
    )
    assert run("db", "check", "--db", str(path)) == cli.EXIT_OK  # invisible without anchor
    capsys.readouterr()
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_PROBLEMS
    out = capsys.readouterr().out
    assert f"channel {CHANNEL}: exported event 4 is missing from the database" in out
    assert "ends at event 3" in out


def test_rewritten_history_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_states: bool
) -> None:
    path = tmp_path / "games.db"
    asyncio.run(_play(path, [3, 4, 5]))
    export = _save(tmp_path, asyncio.run(_export(path)), with_states=with_states)
    # The whole game rebuilt through the store with other dice: every hash is consistent.
    _edit(path, *(f"DELETE FROM {t}" for t in ("patches", "events", "states", "members", "games")))
    asyncio.run(_play(path, [3, 6, 5]))
    assert run("db", "check", "--db", str(path)) == cli.EXIT_OK
    capsys.readouterr()
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_PROBLEMS
    out = capsys.readouterr().out
    assert f"channel {CHANNEL}: event 1 differs from the export (history rewritten" in out


def test_a_removed_game_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.db"
    asyncio.run(_play(path, [3]))
    export = _save(tmp_path, asyncio.run(_export(path)), with_states=True)
    _edit(path, *(f"DELETE FROM {t}" for t in ("patches", "events", "states", "members", "games")))
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_PROBLEMS
    assert "the exported game is not in the database" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"events": 3}',
        b'{"events": [{"seq": "1"}]}',
        b'{"game": {"channel_id": 5}, "events": [{"seq": 1, "hash": "ab"}, '
        b'{"seq": 1, "hash": "ab"}]}',
        b"[" * 100_000,
    ],
)
def test_an_unreadable_export_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    path = tmp_path / "games.db"
    asyncio.run(_play(path, [3]))
    export = tmp_path / "bad.json"
    export.write_bytes(content)
    assert run("db", "check", "--db", str(path), "--against", str(export)) == cli.EXIT_ERROR
    assert "not an Arbitro export" in one_error_line(capsys.readouterr().err)


def test_a_head_hash_that_is_not_the_last_event_is_refused() -> None:
    bundle = {"game": {"channel_id": 5}, "head_hash": "cd", "events": [{"seq": 1, "hash": "ab"}]}
    with pytest.raises(ExportUnreadable, match="head hash"):
        read_exported_chain(bundle)
