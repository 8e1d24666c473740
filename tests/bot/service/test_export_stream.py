"""``/game export`` and ``arbitro db export`` of a long log: written as they are read, in
memory that does not grow with the game, off the event loop, without holding the other
channels' commands; the console saves the files, Discord attaches them from disk.

The games are built by bench/long_log.py (the issue's flood: ``/roll 100d100`` by someone
without a seat); bench/bench_export.py runs the same measures on 10,000 events.
"""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from types import ModuleType

import pytest

import bot.service.export
from bot.console.table import Console
from bot.service import GameService, Request
from bot.service.export import discard, read_file
from db.chain.hashing import verify_export, verify_links
from db.drivers.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[3]
LONG, OTHER = 5, 6
REFEREE = 1


def _long_log() -> ModuleType:
    spec = importlib.util.spec_from_file_location("long_log", ROOT / "bench" / "long_log.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def long_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with a 500-event game in channel 7 and a 2,000-event one in channel 5."""
    path = tmp_path_factory.mktemp("long") / "long.db"
    builder = _long_log()

    async def build() -> None:
        await builder.build(path, 7, 500)
        await builder.build(path, LONG, 2000)

    asyncio.run(build())
    return path


@pytest.fixture()
async def long_store(long_games: Path, tmp_path: Path):
    copy = tmp_path / "arbitro.db"
    shutil.copy(long_games, copy)
    opened = await SqliteStore.open(str(copy))
    yield opened
    await opened.close()


def exported_json(files: dict[str, object]) -> dict[str, object]:
    if "arbitro-log.json" in files:
        return json.loads(read_file(files["arbitro-log.json"]))  # type: ignore[arg-type]
    return json.loads(gzip.decompress(read_file(files["arbitro-log.json.gz"])))  # type: ignore[arg-type]


async def test_a_long_export_is_verifiable_and_its_files_fit(long_store, monkeypatch):
    monkeypatch.setattr(bot.service.export, "IN_MEMORY_BYTES", 64 * 1024)
    service = GameService(long_store)
    reply = await service.handle(Request(LONG, REFEREE, "game.export", {}, guild_id=1))
    try:
        data = exported_json(reply.files)
        assert verify_export(data) == data["head_hash"] == reply.head_hash
        assert len(data["events"]) == 2001 and len(data["states"]) == 2  # type: ignore[arg-type]
        report = read_file(reply.files["arbitro-report.md"]).decode()
        assert report.count("\n## #") == 2001 and "free dice 100d100 → " in report
        assert reply.notices[-1].key == "bot.game.exported"
        # Past Discord's limit, compressed; large files stay on disk until they are sent.
        assert "arbitro-log.json.gz" in reply.files
        assert reply.spool is not None and any(isinstance(f, Path) for f in reply.files.values())
    finally:
        discard(reply.spool)
    assert not reply.spool.exists()


async def peak_export(service: GameService, channel: int) -> int:
    tracemalloc.start()
    try:
        reply = await service.handle(Request(channel, REFEREE, "game.export", {}, guild_id=1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    discard(reply.spool)
    return peak


async def test_an_exports_memory_does_not_grow_with_the_log(long_store):
    """Four times the events, no more memory (the code this replaced held ~190 KB per
    event of such a log: every state rebuilt whole)."""
    service = GameService(long_store)
    await service.handle(Request(LONG, REFEREE, "game.status", {}, guild_id=1))  # rules loaded
    await service.handle(Request(7, REFEREE, "game.status", {}, guild_id=1))
    # The first touch of a long history checks its states in the background
    # (db/chain/long_history.py): tracemalloc counts every thread, so the export is measured
    # once that check is done, or its peak would be the check's (under load, it was).
    await long_store.history_checks()
    short = await peak_export(service, 7)
    long = await peak_export(service, LONG)
    assert long < short * 1.3 + 512 * 1024, (short, long)
    assert long < 16 * 1024 * 1024, long


async def test_an_export_never_holds_another_channels_commands(long_store, no_cycle_collector):
    # The cycle collector off: a full pass over the whole test session's heap (100+ ms on
    # a loaded machine) is no part of the export, and the bot settles its heap at start-up.
    service = GameService(long_store)
    await service.handle(
        Request(OTHER, REFEREE, "game.new", {"scenario": "esempio_normandia"}, guild_id=1)
    )
    await service.handle(Request(OTHER, REFEREE, "game.status", {}, guild_id=1))
    gaps: list[float] = []
    waits: list[float] = []

    async def tick() -> None:
        last = time.perf_counter()
        while not exporting.done():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    exporting = asyncio.create_task(
        service.handle(Request(LONG, REFEREE, "game.export", {}, guild_id=1))
    )
    ticking = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    while not exporting.done():
        started = time.perf_counter()
        status = await service.handle(Request(OTHER, REFEREE, "game.status", {}, guild_id=1))
        waits.append(time.perf_counter() - started)
        assert status.status is not None
        await asyncio.sleep(0.01)
    reply = await exporting
    await ticking
    discard(reply.spool)
    assert len(waits) >= 3, waits  # the export took a while: statuses were answered meanwhile
    assert max(waits) < 0.3, waits
    assert max(gaps) < 0.1, max(gaps)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's VmHWM")
def test_db_export_of_a_long_log_stays_small(long_games: Path, tmp_path: Path) -> None:
    """``arbitro db export`` (every state) in a fresh process: its peak resident memory,
    imports included, stays far under 100 MB (bench/bench_export.py: 10,000 events)."""
    out = tmp_path / "all.json"
    # VmHWM, the peak of this very process: ru_maxrss would count the forked test process.
    probe = (
        "import sys\n"
        "from db.tools.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "peak = [line for line in open('/proc/self/status') if line.startswith('VmHWM')]\n"
        "print(peak[0].split()[1], file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "export", str(LONG), "--db", str(long_games),
         "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    peak_mb = int(result.stderr.strip().splitlines()[-1]) / 1024
    data = json.loads(out.read_text(encoding="utf-8"))
    assert verify_export(data) == data["head_hash"] and len(data["states"]) == 2001
    assert out.stat().st_size > 10 * 1024 * 1024
    assert peak_mb < 100, peak_mb


async def test_the_console_saves_the_export_beside_the_database(long_store, tmp_path, monkeypatch):
    monkeypatch.setattr(bot.service.export, "IN_MEMORY_BYTES", 0)  # every file spooled, then moved
    service = GameService(long_store)
    out = io.StringIO()
    files = tmp_path / "arbitro.files"
    console = Console(service, out, channel_id=7, language="en", files_dir=files)
    await console.run(["/game export"], interactive=False)
    text = out.getvalue()
    saved = sorted(path.name for path in files.iterdir())
    head = (await long_store.load(7)).head_hash or ""
    assert saved == [f"7-{head[:8]}-arbitro-log.json", f"7-{head[:8]}-arbitro-report.md"]
    assert f"File: {files / saved[0]}" in text and "Exported 501 events." in text
    data = json.loads((files / saved[0]).read_text(encoding="utf-8"))
    # Not the game's referee: a seat's export of a ruleset that can hide units (its links).
    assert verify_links(data) == head
