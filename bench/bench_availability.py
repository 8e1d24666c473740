"""Benchmark: no uploaded scenario or command holds the bot (issue 23, item 4).

For each ruleset, uploads a hostile scenario through the service as ``/game new`` with an
attachment does, and times every command a player can send at it (``/game status``, a
refused ``/fire``, a ``/move`` past the unit's reach, autocomplete, ``/game map`` with its
picture) while another channel plays a bundled game in the same process. Two scenarios
each: issue 23's (480 one-model enemy units, six 200-corner areas; pzgren: 480 units on a
60 × 60 map, which the limits refuse at upload) and the largest the limits accept (60 enemy
units and 40 of one's own in manovra, 40 a side elsewhere; 60 areas of 16 corners, 60 named
points; pzgren: 40 units a side of the longest move and range on a 60 × 60 map of woods).
Prints p50/max per command
for the hostile channel (target: every answer within 1 s) and p50/p99 of the healthy
channel's commands over the same run (target: under 50 ms), but for the spell in which this
benchmark moves the hostile game on to where it has units to act with (its listings of legal
actions, unbudgeted, are its own work, not a player's).

The process is set up as the bot's: its start-up heap settled (``bot/app/warmup.py``), the
pictures drawn in its pool of processes, started first (``--picture-workers 0``: on a
thread of this process, as before the pool).

Run: .venv/bin/python bench/bench_availability.py [--rounds N] [--rulesets a,b]
[--picture-workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_service import choose

from bot.app import loop as app_loop
from bot.app.warmup import settle_heap
from bot.render.pictures import reply_picture, start_pictures, stop_pictures
from bot.render.pool import DEFAULT_WORKERS
from bot.service import GameService, Request
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.scenario import (
    MAX_AREAS,
    MAX_CORNERS,
    MAX_POINTS,
    MAX_UNITS,
    MAX_UNITS_PER_SIDE,
)
from rules.core.seatview import REFEREE as REFEREE_SEAT

REFEREE = 1
HOSTILE, HEALTHY = 100, 200
RULESETS = ("manovra", "linea_gotica", "w40k4", "pzgren")

# -- the scenarios ---------------------------------------------------------------------------


def _star(cx: float, cy: float, radius: float, corners: int) -> str:
    """A star-shaped polygon (every other corner pulled in): many crossings per line."""
    points = []
    for index in range(corners):
        angle = 2 * math.pi * index / corners
        reach = radius * (1.0 if index % 2 else 0.7)
        points.append(
            f"{{x: {cx + reach * math.cos(angle):.2f}, y: {cy + reach * math.sin(angle):.2f}}}"
        )
    return "[" + ", ".join(points) + "]"


def _areas(
    width: float, height: float, count: int, corners: int, terrain: str, sight: bool
) -> list[str]:
    """``count`` star areas over the middle band of the table, between the two sides."""
    columns = max(1, math.ceil(math.sqrt(count * 3)))
    rows = math.ceil(count / columns)
    cell_w, cell_h = width / columns, height * 0.4 / rows
    radius = min(cell_w, cell_h) * 0.45
    lines = []
    for index in range(count):
        cx = cell_w * (index % columns + 0.5)
        cy = height * 0.3 + cell_h * (index // columns + 0.5)
        lines.append(
            f"    - {{id: area{index}, name: Area {index}, terrain: {terrain}, "
            f"blocks_sight: {str(sight).lower()}, shape: {{kind: polygon, points: "
            f"{_star(cx, cy, radius, corners)}}}}}"
        )
    return lines


def _spots(count: int, width: float, low: float, high: float) -> list[tuple[float, float]]:
    """``count`` points in rows across the band [low, high] of the table's height."""
    per_row = max(1, min(count, int(width // 3)))
    rows = math.ceil(count / per_row)
    step_y = (high - low) / max(1, rows)
    return [
        (
            round(2 + (index % per_row) * (width - 4) / max(1, per_row - 1), 2),
            round(low + step_y * (index // per_row + 0.5), 2),
        )
        for index in range(count)
    ]


def _battlefield(
    width: float,
    height: float,
    areas: list[str],
    points: int,
    deployment: dict[str, tuple[float, float]],
    open_terrain: str,
    unit: str = "cm",
) -> list[str]:
    lines = [
        "battlefield:",
        f"  unit: {unit}",
        f"  width_cm: {width}",
        f"  height_cm: {height}",
        f"  open_terrain: {open_terrain}",
        "  areas:",
        *areas,
    ]
    if points:
        lines.append("  points:")
        for index, (x, y) in enumerate(_spots(points, width, height * 0.22, height * 0.28)):
            lines.append(f"    point{index}: {{x: {x}, y: {y}}}")
    lines.append("  deployment:")
    lines += [f"    {name}: {{x: {x}, y: {y}}}" for name, (x, y) in deployment.items()]
    return lines


def _deploy(own: list[str], enemies: list[str], width: float, height: float) -> dict[str, Any]:
    placed = dict(zip(own, _spots(len(own), width, 0, height * 0.2), strict=True))
    placed |= dict(zip(enemies, _spots(len(enemies), width, height * 0.8, height), strict=True))
    return placed


def manovra(own: int, enemies: int, areas: int, corners: int, points: int) -> str:
    """Own units of ten riflemen against one-model enemy units, in platoons of 30."""
    rifle = "{name: F, kind: light, ranges_cm: {breve: 20, efficace: 45, utile: 90}, "
    lines = [
        "id: ostile", "ruleset: manovra", "title: Ostile", "first_side: alleati", "weapons:",
        f"  fucile: {rifle}rof_stationary: 1, rof_moving: 1}}", "sides:",
    ]  # fmt: skip
    names: dict[str, list[str]] = {"alleati": [], "asse": []}
    for side, count, models in (("alleati", own, 10), ("asse", enemies, 1)):
        lines += [f"  - id: {side}", f"    name: {side}", "    platoons:"]
        for platoon in range(math.ceil(count / 30)):
            lines += [f"      - id: {side}_p{platoon}", f"        name: P{platoon}"]
            lines.append("        units:")
            for index in range(platoon * 30, min(count, platoon * 30 + 30)):
                unit_id = f"{side[:3]}{index}"
                names[side].append(unit_id)
                lines.append(
                    f"          - {{id: {unit_id}, name: {unit_id}, type: fanteria, ad: 1, "
                    f"models: {models}, weapons: {{fucile: {models}}}}}"
                )
    lines += _battlefield(
        180, 120, _areas(180, 120, areas, corners, "piano_boscoso", True), points,
        _deploy(names["alleati"], names["asse"], 180, 120), "piano_scoperto",
    )  # fmt: skip
    return "\n".join(lines) + "\n"


def w40k4(own: int, enemies: int, areas: int, corners: int, points: int) -> str:
    """Own tactical squads against one-model enemy units, on a 72" × 48" table."""
    profile = "{ws: 4, bs: 4, s: 4, t: 4, w: 1, i: 4, a: 1, ld: 8, sv: 3}"
    lines = [
        "id: ostile", "ruleset: w40k4", "title: Ostile", "first_side: legione", "weapons:",
        '  fucile: {name: "Fucile", type: raffica, range: 24, strength: 4, ap: 5}',
        '  pistola: {name: "Pistola", type: pistola, range: 12, strength: 4}', "sides:",
    ]  # fmt: skip
    names: dict[str, list[str]] = {"legione": [], "predoni": []}
    for side, count, models in (("legione", own, 5), ("predoni", enemies, 1)):
        lines += [f"  - id: {side}", f"    name: {side}", "    units:"]
        for index in range(count):
            unit_id = f"{side[:3]}{index}"
            names[side].append(unit_id)
            lines.append(
                f"      - {{id: {unit_id}, name: {unit_id}, type: fanteria, models: {models}, "
                f"profile: {profile}, weapons: {{fucile: {models}, pistola: 1}}}}"
            )
    lines += _battlefield(
        72, 48, _areas(72, 48, areas, corners, "rovine", True), points,
        _deploy(names["legione"], names["predoni"], 72, 48), "aperto", unit="in",
    )  # fmt: skip
    return "\n".join(lines) + "\n"


def linea_gotica(own: int, enemies: int, areas: int, corners: int, points: int) -> str:
    """Own rifle squads against one-man enemy units."""
    lines = [
        "id: ostile", "ruleset: linea_gotica", "title: Ostile", "weapons:",
        '  garand: {name: "M1 Garand", row: fucile}', "sides:",
    ]  # fmt: skip
    names: dict[str, list[str]] = {"alleati": [], "tedeschi": []}
    for side, count, figures in (("alleati", own, 5), ("tedeschi", enemies, 1)):
        lines += [f"  - id: {side}", f"    name: {side}", "    units:"]
        for index in range(count):
            unit_id = f"{side[:3]}{index}"
            names[side].append(unit_id)
            lines.append(
                f"      - {{id: {unit_id}, name: {unit_id}, quality: regolari, "
                f"figures: [{{role: soldato, weapon: garand, count: {figures}}}]}}"
            )
    lines += _battlefield(
        180, 120, _areas(180, 120, areas, corners, "bosco", True), points,
        _deploy(names["alleati"], names["tedeschi"], 180, 120), "aperto",
    )  # fmt: skip
    return "\n".join(lines) + "\n"


def pzgren(own: int, enemies: int, areas: int, corners: int, points: int) -> str:
    """pzgren has a hex map, not a measured table: the hostile equivalent is the largest
    map (60 × 60), every hex woods, and units of the longest move and range."""
    del areas, corners, points
    columns = rows = 60
    lines = [
        "id: ostile", "ruleset: pzgren", "title: Ostile", "first_side: us", "map:",
        f"  columns: {columns}", f"  rows: {rows}", "  hexes:",
    ]  # fmt: skip
    lines += [
        f'    "{q},{r}": {{terrain: woods}}' for q in range(columns) for r in range(rows)
    ]
    lines.append("sides:")
    for side, count, row in (("us", own, 5), ("de", enemies, 54)):
        lines += [f"  - id: {side}", f"    name: {side}", "    units:"]
        for index in range(count):
            hex_ = f"{(index * 3) % columns},{row + (index * 3) // columns * 2}"
            lines.append(
                f"      - {{id: {side}{index}, name: {side}{index}, type: infantry, "
                f'hex: "{hex_}", fire: 4, range: 40, movement: 20}}'
            )
    return "\n".join(lines) + "\n"


BUILDERS = {"manovra": manovra, "linea_gotica": linea_gotica, "w40k4": w40k4, "pzgren": pzgren}


def scenarios(ruleset: str) -> dict[str, str]:
    """Issue 23's scenario and the largest the limits accept, as upload texts."""
    build = BUILDERS[ruleset]
    own, enemies = MAX_UNITS - MAX_UNITS_PER_SIDE, MAX_UNITS_PER_SIDE
    if ruleset != "manovra":
        own = enemies = 40  # these rulesets' scenarios take at most 40 units a side
    return {
        "issue 23 (480 units)": build(1, 480, 6, 200, 0),
        "largest accepted": build(
            own, enemies, MAX_AREAS, MAX_CORNERS // MAX_AREAS, MAX_POINTS
        ),
    }


# -- driving the channels --------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _timed(timings: dict[str, list[float]], name: str, work: Any) -> Any:
    started = time.perf_counter()
    try:
        return await work
    except RulesError as error:
        return error
    finally:
        timings[name].append(time.perf_counter() - started)


async def _advance(service: GameService, store: SqliteStore, ruleset: str, steps: int) -> None:
    """Move the hostile game on (off the clock) to where one side has units to act with:
    manovra's activations, the shooting phase elsewhere."""
    play = get_ruleset(ruleset).rules
    assert play is not None
    for _ in range(steps):
        document = (await store.load(HOSTILE)).document
        actions = await asyncio.to_thread(
            lambda seen=document: play.view(seen, REFEREE_SEAT).every_legal
        )
        if ruleset == "manovra":
            holds = [a for a in actions if a.verb == "move" and a.options.get("kind") == "hold"]
            if holds and holds[0].side == "alleati":
                return
            pick = holds or [a for a in actions if a.verb == "manoeuvre.declare"]
            pick = pick or [a for a in actions if a.verb == "turn.next"]
        else:
            owed = [a for a in actions if a.owed]
            if any(a.verb == "fire" for a in actions) and not owed:
                return
            pick = owed or [a for a in actions if a.verb == "turn.next"]
        if not pick:
            return
        action = pick[0]
        options: dict[str, Any] = dict(action.options)
        for spec in action.free:
            if spec.required:
                options[spec.name] = spec.choices[0] if spec.choices else spec.low
        try:
            await service.handle(Request(HOSTILE, REFEREE, action.verb, options))
        except RulesError:
            return


def _hostile_requests(ruleset: str, document: dict[str, Any]) -> dict[str, Request]:
    """The commands a player sends at the hostile channel, read from its document."""
    units = document.get("units", {})
    ids = list(units)
    first, last = ids[0], ids[-1]
    far = {"manovra": "179,119", "linea_gotica": "179,119", "w40k4": "71,47", "pzgren": "59,59"}
    move: dict[str, Any] = {"unit": first, "to": far[ruleset]}
    if ruleset == "pzgren":
        move = {"unit": first, "hex": far[ruleset]}
    elif ruleset == "manovra":
        move["kind"] = "tattico"
    return {
        "/game status": Request(HOSTILE, REFEREE, "game.status", {}),
        "/fire (refused)": Request(HOSTILE, REFEREE, "fire", {"unit": last, "target": last}),
        "/move (out of reach)": Request(HOSTILE, REFEREE, "move", move),
        "/game map": Request(HOSTILE, REFEREE, "game.map", {}),
    }


class Clock:
    """Whether the healthy channel's commands are timed: not while the hostile game is moved
    on, whose every listing of legal actions (unbudgeted, up to seconds on a large game) is
    this benchmark's work, not a player's command. ``spells`` counts each stop and restart,
    so a command that overlapped one is not timed either. (A plain class: the tests load
    this script without registering it as a module, which a dataclass needs.)"""

    def __init__(self) -> None:
        self.running = True
        self.spells = 0

    def stop(self) -> None:
        self.running, self.spells = False, self.spells + 1

    def start(self) -> None:
        self.running, self.spells = True, self.spells + 1


async def _hostile(
    service: GameService,
    store: SqliteStore,
    ruleset: str,
    text: str,
    rounds: int,
    clock: Clock,
) -> tuple[dict[str, list[float]], str]:
    timings: dict[str, list[float]] = defaultdict(list)
    new = Request(HOSTILE, REFEREE, "game.new", {"ruleset": ruleset}, attachment=text)
    created = await _timed(timings, "/game new (upload)", service.handle(new))
    if isinstance(created, RulesError):
        return timings, created.localized("en")
    clock.stop()
    await _advance(service, store, ruleset, 80)
    clock.start()
    document = (await store.load(HOSTILE)).document
    for _ in range(rounds):
        for name, request in _hostile_requests(ruleset, document).items():
            reply = await _timed(timings, name, service.handle(request))
            if name == "/game map" and not isinstance(reply, RulesError):
                await _timed(timings, "/game map picture", reply_picture(reply))
        for kind in ("unit", "target"):
            await _timed(
                timings, f"autocomplete {kind}", service.choices(HOSTILE, REFEREE, kind, "")
            )
    return timings, "played"


async def _healthy(
    service: GameService, store: SqliteStore, stop: asyncio.Event, clock: Clock
) -> list[float]:
    """A bundled manovra game played as bench_service plays it, with status reads; the
    latencies of the commands made while the clock ran."""
    import random

    rng = random.Random(23)  # a private generator: the global random is never seeded
    latencies: list[float] = []
    turn = 0
    while not stop.is_set():
        turn += 1
        if turn % 3 == 0:
            request = Request(HEALTHY, REFEREE, "game.status", {})
        else:
            document = (await store.load(HEALTHY)).document
            verb, options = choose(document, rng)
            request = Request(HEALTHY, REFEREE, verb, options)
        started, spell = time.perf_counter(), clock.spells
        with contextlib.suppress(RulesError):
            await service.handle(request)
        if clock.running and clock.spells == spell:
            latencies.append(time.perf_counter() - started)
        await asyncio.sleep(0.005)  # a busy channel, not a flood
    return latencies


async def run(rulesets: list[str], rounds: int, folder: Path, picture_workers: int) -> bool:
    """Every case of every ruleset; True when every target was met."""
    settle_heap()  # as the bot does at start (bot/app/lifecycle.py)
    start_pictures(picture_workers)
    try:
        return await _run_cases(rulesets, rounds, folder)
    finally:
        await stop_pictures()


async def _run_cases(rulesets: list[str], rounds: int, folder: Path) -> bool:
    met = True
    for ruleset in rulesets:
        for case, text in scenarios(ruleset).items():
            store = await SqliteStore.open(str(folder / f"{ruleset}-{len(case)}.db"))
            service = GameService(store)
            await service.handle(
                Request(HEALTHY, REFEREE, "game.new", {"scenario": "esempio_normandia"})
            )
            stop, clock = asyncio.Event(), Clock()
            healthy = asyncio.create_task(_healthy(service, store, stop, clock))
            started = time.perf_counter()
            timings, outcome = await _hostile(service, store, ruleset, text, rounds, clock)
            elapsed = time.perf_counter() - started
            stop.set()
            latencies = await healthy
            await store.close()
            kb = len(text.encode()) / 1024
            print(f"\n{ruleset} — {case}, {kb:.0f} KB: {outcome[:110]} ({elapsed:.1f} s)")
            print(f"  {'hostile command':<24}{'count':>6}{'p50 ms':>9}{'max ms':>9}")
            for name, values in timings.items():
                worst = max(values) * 1000
                met &= worst <= 1000
                print(
                    f"  {name:<24}{len(values):>6}{statistics.median(values) * 1000:>9.1f}"
                    f"{worst:>9.1f}"
                )
            p50, p99 = statistics.median(latencies) * 1000, _pct(latencies, 0.99) * 1000
            met &= p99 < 50
            print(
                f"  healthy channel: {len(latencies)} commands, "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            )
    print("\ntargets: every hostile answer within 1,000 ms; healthy p99 under 50 ms")
    print("all targets met" if met else "SOME TARGET MISSED")
    return met


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    parser.add_argument("--picture-workers", type=int, default=DEFAULT_WORKERS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        app_loop.run(
            run(args.rulesets.split(","), args.rounds, Path(folder), args.picture_workers)
        )


if __name__ == "__main__":
    main()
