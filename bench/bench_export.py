"""Benchmark: exporting a long log (issue 23: 10,000 ``/roll 100d100`` by a stranger).

Builds the game once (bench/long_log.py), then, each in a fresh process so the figures are
the process's own: ``/game export`` through the service (peak resident memory, time), while
another channel asks ``/game status`` over and over (how long each waits: an export must
not hold other channels), and ``arbitro db export`` (every state) to a file. With
``--compare ROOT`` the same runs use the code of another checkout (e.g. the commit this
work started from: ``git worktree add /tmp/base <commit>``), interleaved with these.

    .venv/bin/python bench/bench_export.py --events 10000 --compare /tmp/base
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHANNEL, OTHER = 5, 6

# Run in a fresh process under the checkout measured (only APIs every version has).
SERVICE_PROBE = r"""
import asyncio, json, shutil, sys, time

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

async def main(path, channel, other):
    from bot.service import GameService, Request
    from db.drivers.sqlite import SqliteStore
    store = await SqliteStore.open(path)
    service = GameService(store)
    await service.handle(Request(other, 1, "game.new", {"scenario": "esempio_normandia"},
                                 guild_id=1))
    await service.handle(Request(other, 1, "game.status", {}, guild_id=1))
    before = rss_mb()
    started = time.perf_counter()
    exporting = asyncio.ensure_future(
        service.handle(Request(channel, 1, "game.export", {}, guild_id=1)))
    waits = []
    await asyncio.sleep(0.02)
    while not exporting.done():
        asked = time.perf_counter()
        await service.handle(Request(other, 1, "game.status", {}, guild_id=1))
        waits.append(time.perf_counter() - asked)
        await asyncio.sleep(0.02)
    reply = await exporting
    seconds = time.perf_counter() - started
    spool = getattr(reply, "spool", None)
    if spool is not None:
        shutil.rmtree(spool, ignore_errors=True)
    await store.close()
    print(json.dumps({"seconds": seconds, "before_mb": before, "peak_mb": peak_mb(),
                      "waits": waits, "files": sorted(reply.files)}))

try:  # the loop the checkout's processes run (bot/app/loop.py)
    from bot.app.loop import run
except ImportError:  # a checkout from before it: asyncio's
    from asyncio import run
run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""

CLI_PROBE = r"""
import json, sys, time
from db.tools.cli import main
started = time.perf_counter()
status = main(sys.argv[1:])
seconds = time.perf_counter() - started
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM")]
print(json.dumps({"status": status, "seconds": seconds,
                  "peak_mb": int(peak[0].split()[1]) / 1024}), file=sys.stderr)
"""


def run_probe(root: Path, probe: str, *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        timeout=3600,
    )
    stream = result.stdout if probe is SERVICE_PROBE else result.stderr
    lines = [line for line in stream.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"probe failed under {root}:\n{result.stderr[-3000:]}")
    return dict(json.loads(lines[-1]))


def report(label: str, service: dict[str, Any], cli: dict[str, Any]) -> None:
    waits = [float(wait) for wait in service["waits"]]
    median = statistics.median(waits) * 1000 if waits else 0.0
    worst = max(waits) * 1000 if waits else 0.0
    print(
        f"{label:10s} /game export {service['seconds']:6.2f} s, peak {service['peak_mb']:7.0f} "
        f"MB (before it {service['before_mb']:.0f} MB); other channel's status: {len(waits)} "
        f"asked, median {median:.0f} ms, worst {worst:.0f} ms"
    )
    print(f"{'':10s} arbitro db export {cli['seconds']:6.2f} s, peak {cli['peak_mb']:7.0f} MB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--compare", type=Path, help="another checkout to measure alike")
    parser.add_argument("--dir", type=Path, help="where to build the game (default: temp)")
    arguments = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench.long_log import build
    from bot.app.loop import run

    work = Path(arguments.dir or tempfile.mkdtemp(prefix="bench-export-"))
    built = work / "long.db"
    if not built.exists():
        run(build(built, CHANNEL, arguments.events))
    roots = [("this", ROOT)] + ([("compared", arguments.compare)] if arguments.compare else [])
    print(f"{arguments.events} events of /roll 100d100 (+ the game's creation), one channel")
    for label, root in roots:
        copy = work / f"{label}.db"
        shutil.copy(built, copy)
        service = run_probe(root, SERVICE_PROBE, str(copy), str(CHANNEL), str(OTHER))
        out = work / f"{label}.json"
        out.unlink(missing_ok=True)
        cli = run_probe(
            root, CLI_PROBE, "export", str(CHANNEL), "--db", str(copy), "--out", str(out)
        )
        report(label, service, cli)
        print(f"{'':10s} files: {service['files']}; db export wrote {out.stat().st_size >> 20} MB")


if __name__ == "__main__":
    main()
