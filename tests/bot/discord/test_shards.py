"""Several bot processes: shards split the guilds, reminders go out once, commands sync
once, and two processes writing one channel lose nothing and show players no error."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.discord.client import build_bot, dummy_service, shard_of
from bot.service import GameService, Request
from bot.service.stored import deadlines as stored_deadlines
from db.models import NewEvent
from db.open import open_store

ROOT = Path(__file__).resolve().parents[3]
WORKER = Path(__file__).with_name("hammer_worker.py")
REFEREE, ANNA, BRUNO = 1, 2, 3
# Two guilds on different shards of 2: guild ids carry their shard in bits 22 and up.
GUILD_ON_0 = 10 << 22
GUILD_ON_1 = 11 << 22


def test_guilds_are_split_by_discords_formula() -> None:
    assert (shard_of(GUILD_ON_0, 2), shard_of(GUILD_ON_1, 2)) == (0, 1)
    first = build_bot(dummy_service(), shard_count=2, shard_ids=[0])
    second = build_bot(dummy_service(), shard_count=2, shard_ids=[1])
    everything = build_bot(dummy_service())
    assert (first.owns_guild(GUILD_ON_0), first.owns_guild(GUILD_ON_1)) == (True, False)
    assert (second.owns_guild(GUILD_ON_0), second.owns_guild(GUILD_ON_1)) == (False, True)
    assert first.owns_guild(None) and not second.owns_guild(None)
    assert everything.owns_guild(GUILD_ON_0) and everything.owns_guild(GUILD_ON_1)
    assert (first.sync_enabled, second.sync_enabled, everything.sync_enabled) == (
        True,
        False,
        True,
    )
    with pytest.raises(ValueError):
        build_bot(dummy_service(), shard_count=2, shard_ids=[2])
    with pytest.raises(ValueError):
        build_bot(dummy_service(), shard_ids=[0])


async def test_only_the_process_running_shard_0_syncs_and_only_on_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "arbitro.db.commands.json"
    sent: list[Any] = []

    async def start(**options: Any) -> None:
        bot = build_bot(dummy_service(), sync_state=state, **options)

        async def fake_sync(*, guild: Any = None) -> list[Any]:
            sent.append(guild)
            return []

        monkeypatch.setattr(bot.tree, "sync", fake_sync)
        monkeypatch.setattr(bot.reminder_loop, "start", lambda *a, **k: None)
        await bot.setup_hook()
        await bot.close()

    await start(shard_count=2, shard_ids=[1])  # not the syncing process: nothing sent
    assert sent == []
    await start(shard_count=2, shard_ids=[0])  # the syncing one, first start: synced
    await start(shard_count=2, shard_ids=[0])  # restarted, same commands: nothing sent
    await start(shard_count=2, shard_ids=[1], sync_commands=True)  # forced on, unchanged
    assert sent == [None]


async def _game_with_deadlines(service: GameService, store: Any) -> None:
    for channel, guild in ((501, GUILD_ON_0), (502, GUILD_ON_1)):
        await service.handle(
            Request(channel, REFEREE, "game.new", {"scenario": "esempio_normandia"}, guild_id=guild)
        )
        await service.handle(Request(channel, BRUNO, "game.join", {"side": "asse"}, guild_id=guild))
        await stored_deadlines.set_deadline(
            store, channel, "asse", datetime.now(UTC) - timedelta(minutes=1)
        )


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_each_reminder_is_sent_once_by_the_process_owning_its_guild(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("pg_url") if backend == "postgres" else str(tmp_path / "a.db")
    async with await open_store(url) as one, await open_store(url) as other:
        first, second = GameService(one), GameService(other)
        await _game_with_deadlines(first, one)
        owners = [
            build_bot(dummy_service(), shard_count=2, shard_ids=[0]).owns_guild,
            build_bot(dummy_service(), shard_count=2, shard_ids=[1]).owns_guild,
        ]
        # Both processes run their loop at the same moment, twice.
        rounds = [
            await asyncio.gather(
                first.due_reminders(owns_guild=owners[0]),
                second.due_reminders(owns_guild=owners[1]),
                first.due_reminders(),  # a process that owns every guild, racing too
            )
            for _ in range(2)
        ]
        sent = Counter(channel for batch in rounds for replies in batch for channel, _ in replies)
        assert sent == Counter({501: 1, 502: 1})
        # Whoever claimed it, the reminder pings the late side's player.
        replies = [reply for batch in rounds for replies in batch for _, reply in replies]
        assert all(reply.ping == [BRUNO] for reply in replies)


def _spawn(url: str, channel: int, name: str, count: int) -> subprocess.Popen[str]:
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, str(channel), name, str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=environment,
    )


async def test_two_processes_hammering_one_channel(pg_url: str) -> None:
    channel, count = 600, 40
    async with await open_store(pg_url) as store:
        service = GameService(store)
        await service.handle(
            Request(channel, REFEREE, "game.new", {"scenario": "esempio_normandia"}, guild_id=7)
        )
        game = await store.load(channel)
        # A by-hand roll (event 2) for the processes to confirm again and again.
        await store.commit(
            channel,
            game.version,
            game.document,
            NewEvent(verb="callarty", args={"by_hand": True}, actor_id=ANNA),
        )
    workers = [_spawn(pg_url, channel, name, count) for name in ("a", "b")]
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    outputs = [await asyncio.to_thread(worker.communicate, timeout=120) for worker in workers]
    for worker, (_, stderr) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, stderr[-3000:]
    lines = [json.loads(line) for out, _ in outputs for line in out.splitlines()]
    assert len(lines) == 2 * (count + count // 5)
    assert [line for line in lines if "error" in line] == []  # no player saw an error
    async with await open_store(pg_url) as store:
        events = await store.events(channel, limit=1000)
        assert await store.check() == []
    stored = Counter(event.interaction_id for event in events[2:])
    expected = {f"{name}-{n}" for name in ("a", "b") for n in range(count)}
    expected |= {f"shared-{n}" for n in range(0, count, 5)}
    assert set(stored) == expected  # nothing lost
    assert max(stored.values()) == 1  # nothing applied twice
    # Every reply names the event that stands for it, the same one in both processes.
    by_id = {event.interaction_id: event.seq for event in events}
    assert all(line["seq"] == by_id[line["id"]] for line in lines)
