"""Benchmark: the bot's resident memory with 1,000 active games, and after a long export.

A fresh process runs the service over one SQLite file: 1,000 channels, each a bundled game
of the four rulesets in turn (their scenarios with and without a battlefield), played a
few commands by legal actions (seeded dice), then touched again — a status and a command
each, as players coming back — and then ``/game export`` of a channel whose log holds
10,000 ``/roll 100d100`` (bench/long_log.py). It prints the resident memory (VmRSS) after
the start, after loading all the games, after touching them again and after the export,
and the peak (VmHWM). With ``--compare ROOT`` the same process runs the code of another
checkout (e.g. the commit this work started from), in the same sitting.

    .venv/bin/python bench/bench_memory.py --compare /tmp/base
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONG_CHANNEL = 10**9

PROBE = r"""
import asyncio, json, random, shutil, sys, time

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return round(int(line.split()[1]) / 1024, 1)

class SeededDice:
    def __init__(self, seed):
        self.rng = random.Random(seed)
    @property
    def by_hand(self):
        return False
    def face(self, die, label):
        return self.rng.randint(1, die.sides)

def fill(action, rng):
    options = dict(action.options)
    for spec in action.free:
        if not spec.required and rng.random() < 0.3:
            continue
        if spec.choices:
            options[spec.name] = rng.choice(list(spec.choices))
        elif spec.low is not None and spec.high is not None:
            if isinstance(spec.low, int) and isinstance(spec.high, int):
                options[spec.name] = rng.randint(spec.low, spec.high)
            else:
                options[spec.name] = round(rng.uniform(float(spec.low), float(spec.high)), 1)
    return options

async def main(path, channels, commands, long_channel):
    from bot.service import GameService, Request
    from db.drivers.sqlite import SqliteStore
    from rules.core.errors import RulesError
    from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
    from rules.core.seatview import REFEREE
    figures = {}
    store = await SqliteStore.open(path)
    service = GameService(store, dice=SeededDice(7))
    figures["after start"] = status("VmRSS")
    games = [(r, s) for r in KNOWN_RULESETS for s in get_ruleset(r).rules.scenarios()]
    rng = random.Random(11)
    serial = 0

    async def command(channel, ruleset):
        nonlocal serial
        serial += 1
        record = await store.load(channel)
        play = get_ruleset(ruleset).rules
        try:
            legal = play.view(play.document_format.upgrade(record.document), REFEREE).every_legal
            actions = [a for a in legal if a.verb not in ("odds", "game.end")]
        except RulesError:
            return
        owed = [a for a in actions if a.owed]
        if not actions:
            return
        action = rng.choice(owed or actions)
        try:
            await service.handle(Request(channel, 1, action.verb, fill(action, rng), guild_id=1,
                                         interaction_id=f"c{serial}"))
        except RulesError:
            pass

    started = time.perf_counter()
    for channel in range(1, channels + 1):
        ruleset, scenario = games[(channel - 1) % len(games)]
        await service.handle(Request(channel, 1, "game.new",
                                     {"ruleset": ruleset, "scenario": scenario}, guild_id=1))
        for _ in range(commands):
            await command(channel, ruleset)
        await service.handle(Request(channel, 1, "game.status", {}, guild_id=1))
    figures["after loading all"] = status("VmRSS")
    for channel in range(1, channels + 1):
        ruleset, _ = games[(channel - 1) % len(games)]
        await service.handle(Request(channel, 1, "game.status", {}, guild_id=1))
        await command(channel, ruleset)
    figures["after touching all again"] = status("VmRSS")
    figures["seconds to play"] = round(time.perf_counter() - started, 1)
    reply = await service.handle(Request(long_channel, 1, "game.export", {}, guild_id=1))
    spool = getattr(reply, "spool", None)
    if spool is not None:
        shutil.rmtree(spool, ignore_errors=True)
    figures["after a long export"] = status("VmRSS")
    figures["peak"] = status("VmHWM")
    try:
        from rules.core.caches import bounded_caches
        figures["caches"] = {c.name: [len(c), c.weight] for c in bounded_caches() if len(c)}
    except ImportError:
        pass
    await store.close()
    print(json.dumps(figures))

try:  # the loop the checkout's processes run (bot/app/loop.py)
    from bot.app.loop import run
except ImportError:  # a checkout from before it: asyncio's
    from asyncio import run
run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
"""


def measure(root: Path, database: Path, channels: int, commands: int) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(database), str(channels), str(commands),
         str(LONG_CHANNEL)],
        capture_output=True, text=True, cwd=root, timeout=7200,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"probe failed under {root}:\n{result.stderr[-3000:]}")
    return dict(json.loads(lines[-1]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=3, help="commands per game at first")
    parser.add_argument("--export-events", type=int, default=10_000)
    parser.add_argument("--compare", type=Path, help="another checkout to measure alike")
    arguments = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench.long_log import build
    from bot.app.loop import run

    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    template = work / "long.db"
    run(build(template, LONG_CHANNEL, arguments.export_events))
    roots = [("this", ROOT)] + ([("compared", arguments.compare)] if arguments.compare else [])
    print(
        f"{arguments.channels} channels x ({arguments.commands} commands, then a status and a "
        f"command), then /game export of {arguments.export_events} events; resident MB"
    )
    for label, root in roots:
        database = work / f"{label}.db"
        shutil.copy(template, database)
        figures = measure(root, database, arguments.channels, arguments.commands)
        caches = figures.pop("caches", None)
        print(f"{label:9s} " + ", ".join(f"{key} {value}" for key, value in figures.items()))
        if caches:
            print(f"{'':9s} caches (entries, weight): {caches}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
