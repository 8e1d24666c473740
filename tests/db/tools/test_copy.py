"""``arbitro db copy``: every game moves between backends byte for byte and verifies."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.service.stored import deadlines, dice, roles, seats
from bot.service.stored.table import open_table
from db.errors import GameExists
from db.models import NewEvent, Scope
from db.open import open_store
from db.tools import cli
from tests.db.helpers import GUILD, new_game

RELEASE_DB = Path(__file__).resolve().parents[2] / "fixtures" / "release-0.1.0.db"

# Values whose text JSONB would rewrite: the copy must still hash the same.
AWKWARD = {
    "zeta": 1e20,
    "a": [1.0, -0.0, 2.5e-08, 12345678901234567890],
    "bb": {"é": "Plotone Å", "": None, "10": 1, "9": 2},
    "nul": "a\x00b",
}


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="arbitro")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return int(args.handler(args))


async def snapshot(url: str) -> dict[int, dict[str, Any]]:
    """Every game's full export (minus the export time) and deadlines, by channel."""
    async with await open_store(url, create=False, migrate=False) as store:
        assert await store.check() == []
        games: dict[int, dict[str, Any]] = {}
        for game in await store.all_games():
            data = (await store.export(game.channel_id)).to_json_dict()
            del data["exported_at"]
            data["deadlines"] = [
                (d.side, d.due_at, d.reminded, d.set_at)
                for d in await deadlines.deadlines(store, game.channel_id)
            ]
            context = await open_table(store, game.channel_id)
            data["pace"] = context.pace_hours
            data["side_roles"] = list(context.side_roles)
            data["records"] = [
                (r.id, r.feature, r.key, r.value, r.revision, r.created_at, r.due_at, r.sealed)
                for r in await store.all_records()
                if r.scope == Scope.of_game(game.channel_id)
            ]
            games[game.channel_id] = data
        # Beside the games: the archive (same ids, same bundles) and who may create games.
        games[0] = {
            "archives": [
                (entry, await store.archived_export(entry.id))
                for entry in await store.all_archives()
            ],
            "creators": await roles.creator_role(store, GUILD),
        }
        return games


async def populate(url: str) -> None:
    async with await open_store(url) as store:
        await new_game(store, 1, document=AWKWARD)
        await store.add_member(1, 10, role="referee")
        await store.add_member(1, 11, side="rossi")
        await deadlines.set_deadline(store, 1, "rossi", datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
        await store.commit(
            1,
            1,
            {**AWKWARD, "turn": 2},
            NewEvent(
                verb="fire",
                args={"w": "Bren", "x": 0.1},
                dice=[3, 9],
                resolution={"hits": 1.0},
                actor_id=11,
                interaction_id="i-1",
            ),
            status="active",
        )
        await store.undo(1, interaction_id="u-1")
        await new_game(store, 2, guild_id=None, document={"turn": 1})
        await store.end_game(2, reason="draw")
        await deadlines.set_pace(store, 1, 12)
        await seats.bind_side(store, 1, "rossi", 4242)
        await roles.set_creator_role(store, GUILD, 777)
        await deadlines.claim_warning(store, 1, "rossi", datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
        await dice.save_pending_roll(
            store, dice.PendingRoll(1, 11, 3, "fire", {"w": "Bren"}, [4], [2], 6, "hit", "rossi")
        )
        await new_game(store, 3, document={"turn": 1})
        await store.end_game(3)
        await store.archive_game(3, await store.export(3), title="Archived")


@pytest.mark.parametrize("direction", ["sqlite-postgres-sqlite", "postgres-sqlite-postgres"])
async def test_copy_round_trip_keeps_every_byte(
    tmp_path: Path, pg_url: str, pg_server: Any, direction: str
) -> None:
    first_pg = pg_url
    second_pg = pg_server.new_schema_url()
    if direction == "sqlite-postgres-sqlite":
        hops = [str(tmp_path / "a.db"), first_pg, str(tmp_path / "b.db")]
    else:
        hops = [first_pg, f"sqlite:///{tmp_path / 'middle.db'}", second_pg]
    await populate(hops[0])
    original = await snapshot(hops[0])
    for source, dest in itertools.pairwise(hops):
        assert await asyncio.to_thread(run, "db", "copy", source, dest) == 0
        assert await snapshot(dest) == original
    assert original[1]["states"][0]["document"]["zeta"] == 1e20


async def test_release_games_round_trip_sqlite_postgres_sqlite(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "release.db"
    shutil.copyfile(RELEASE_DB, source)
    # The fixture was saved by 0.1.0; bring its schema up to date as an upgrade would.
    assert await asyncio.to_thread(run, "db", "migrate", "--db", str(source)) == 0
    original = await snapshot(str(source))
    assert len(original) >= 4
    back = tmp_path / "back.db"
    assert await asyncio.to_thread(run, "db", "copy", str(source), pg_url) == 0
    assert await asyncio.to_thread(run, "db", "copy", pg_url, str(back)) == 0
    output = capsys.readouterr().out
    games = len(original) - 1  # key 0 holds the archive and the guild settings
    assert f"{games} game(s)" in output and "copied and verified" in output
    assert await snapshot(pg_url) == original
    assert await snapshot(str(back)) == original


async def test_copy_refuses_a_taken_channel_and_writes_nothing(tmp_path: Path, pg_url: str) -> None:
    source = str(tmp_path / "a.db")
    await populate(source)
    async with await open_store(pg_url) as dest:
        await new_game(dest, 2, document={"mine": True})
    async with (
        await open_store(source) as src,
        await open_store(pg_url) as dest,
    ):
        from db.tools.copy import copy_games

        with pytest.raises(GameExists) as caught:
            await copy_games(src, dest)
        assert caught.value.channel_id == 2
        assert [g.channel_id for g in await dest.all_games()] == [2]
    status = await asyncio.to_thread(run, "db", "copy", source, pg_url)
    assert status == cli.EXIT_ERROR


def test_copy_from_a_missing_source_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("db", "copy", str(tmp_path / "nope.db"), str(tmp_path / "b.db")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no database file here" in err[0]
    assert not (tmp_path / "b.db").exists()


def test_backup_of_postgres_points_to_pg_dump(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("db", "backup", "x.db", "--db", "postgresql://u:secret@db/arbitro") == 2
    err = capsys.readouterr().err
    assert "pg_dump" in err and "secret" not in err and "arbitro db copy" in err
