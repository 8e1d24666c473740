"""Benchmark of the map pictures: ``render_map`` (MapView → PNG bytes) against 50 ms.

Run: ``.venv/bin/python bench/bench_map.py`` (``--quick`` for fewer repetitions).

Cases, each rendered many times after a warm-up (median and worst wall time, median CPU
time, in ms; then the CPU time cold, every word rendered anew, as in a game's first
picture):

(a) pzgren's bundled scenario (``exemple_ardennes``: 80 hexes, 13 counters) with the lines
    of fire of a two-unit fire, as the reply to ``/fire`` shows it;
(b) a synthetic measured table the size of the other bundled scenarios (180 × 120 cm,
    15 terrain areas — circles and polygons of every terrain kind —, 30 counters of two
    sides with losses and statuses, 5 overlays: two lines of fire, one blocked, a
    deviation arrow, a blast circle, a point), public;
(c) the same table as its owner's view, three counters hidden (drawn dashed);
(d) each measured ruleset's bundled battlefield (``*_campo``) as a new game shows it.

The target (issue 16): ≤ 50 ms per picture for the bundled scenarios.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.render.lettering import LETTERING
from bot.render.map import render_map
from rules.core.battlefield import (
    CircleShape,
    Counter,
    MapArea,
    MapView,
    Overlay,
    Point,
    PolygonShape,
)
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR
from rules.pzgren.surface import PLAY

TARGET_MS = 50.0
TERRAINS = ("bosco", "edificio", "strada", "collina", "palude", "campo", "rovine", "fiume")


def pzgren_view() -> MapView:
    """The bundled pzgren scenario with a fire's lines, as a /fire reply draws it."""
    document = PLAY.setup("exemple_ardennes")
    view = PLAY.view(document, SPECTATOR).map()
    assert view is not None
    fire = {"unit": "us_rifle_2,us_m10", "target": "de_pzgren_1"}
    lines = PLAY.view(document, REFEREE).marks("fire", fire)
    return view.model_copy(update={"overlays": view.overlays + lines})


BATTLEFIELDS = (
    ("manovra", "esempio_normandia_campo"),
    ("linea_gotica", "esempio_gotica_campo"),
    ("w40k4", "avamposto_campo"),
)


def bundled_view(ruleset: str, scenario: str) -> MapView:
    """A bundled battlefield as the channel sees it when the game starts."""
    play = get_ruleset(ruleset).rules
    view = play.view(play.setup(scenario), SPECTATOR).map()
    assert view is not None, scenario
    return view


def synthetic_view(hidden: int = 0) -> MapView:
    """A 180 × 120 cm table: 15 areas, 30 counters (``hidden`` of them hidden), 5 overlays."""
    areas = []
    for k in range(15):
        x, y = 15 + (k * 37) % 150, 12 + (k * 23) % 96
        terrain = TERRAINS[k % len(TERRAINS)]
        if k % 2:
            shape: CircleShape | PolygonShape = CircleShape(
                center=Point(x=x, y=y), radius=6 + k % 5 * 2
            )
        else:
            shape = PolygonShape(
                points=(
                    Point(x=x - 8, y=y - 6),
                    Point(x=x + 10, y=y - 5),
                    Point(x=x + 9, y=y + 7),
                    Point(x=x - 7, y=y + 8),
                )
            )
        areas.append(MapArea(shape=shape, terrain=terrain, label=f"{terrain} {k}"))
    counters = [
        Counter(
            unit_id=f"u{k}",
            label=f"{'sq' if k % 3 else 'mg'}_{k}",
            side="a" if k < 15 else "b",
            x=8 + (k * 41) % 165,
            y=6 + (k * 29) % 108,
            models=10 - k % 4,
            initial_models=10,
            statuses=("inchiodata",) if k % 5 == 0 else (),
            destroyed=k % 11 == 10,
            hidden=k >= 30 - hidden,
        )
        for k in range(30)
    ]
    overlays = (
        Overlay(kind="line_of_fire", points=(Point(x=20, y=20), Point(x=120, y=80)), label="75 mm"),
        Overlay(kind="line_of_fire", points=(Point(x=30, y=90), Point(x=150, y=30)), blocked=True),
        Overlay(kind="arrow", points=(Point(x=100, y=60), Point(x=108, y=52)), label="8 cm"),
        Overlay(kind="circle", points=(Point(x=108, y=52),), radius=7.5, label="HE"),
        Overlay(kind="point", points=(Point(x=60, y=100),), label="A"),
    )
    return MapView(
        title="Synthetic — 30 counters, 15 areas, 5 overlays",
        sides={"a": "Alleati", "b": "Asse"},
        width_cm=180,
        height_cm=120,
        open_terrain="aperto",
        areas=tuple(areas),
        counters=tuple(counters),
        overlays=overlays,
        caption="#12 anna — /fire sq_1 → mg_16: 2 perdite",
    )


def timed(
    run: Callable[[], object], repetitions: int, before: Callable[[], object] | None = None
) -> tuple[list[float], list[float]]:
    """Wall and CPU time (ms) of each of ``repetitions`` runs, after a warm-up, with the
    garbage collector paused; ``before`` runs untimed before each. On a machine shared with
    other jobs the wall time includes waiting for a core; the CPU time (this thread's) is
    what a render costs."""
    for _ in range(min(10, repetitions)):
        run()
    wall: list[float] = []
    cpu: list[float] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repetitions):
            if before is not None:
                before()
            start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
            run()
            cpu.append((time.thread_time_ns() - start_cpu) / 1e6)
            wall.append((time.perf_counter_ns() - start) / 1e6)
    finally:
        if enabled:
            gc.enable()
    return wall, cpu


def main() -> None:
    """Print each case's median and worst render time next to the target."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    repetitions = 20 if parser.parse_args().quick else 100
    cases = (
        ("pzgren exemple_ardennes (hex map, /fire reply)", pzgren_view(), True),
        ("synthetic 180x120 cm, 30 counters, 15 areas, 5 overlays", synthetic_view(), True),
        ("same, owner's view with 3 hidden counters", synthetic_view(hidden=3), False),
        *((f"{r} {s} (bundled battlefield)", bundled_view(r, s), True) for r, s in BATTLEFIELDS),
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"render_map, {repetitions} renders each (ms); target <= {TARGET_MS:g} ms")
    print(f"load average {load:.1f} on {os.cpu_count()} cores (wall time includes waiting)")
    head = f"{'case':<58} {'median':>7} {'worst':>7} {'cpu med':>7} {'cold cpu':>8} {'KB':>4}"
    print(head + "  target")
    for name, view, public in cases:
        def render(v: MapView = view, p: bool = public) -> bytes:
            return render_map(v, "it", public=p)

        wall, cpu = timed(render, repetitions)
        # Cold: no lettering rendered yet (a game's first picture; later ones reuse its words).
        _, cold = timed(render, repetitions, before=LETTERING.clear)
        size = len(render()) / 1024
        median = statistics.median(wall)
        met = "met" if median <= TARGET_MS else "NOT met"
        print(
            f"{name:<58} {median:>7.1f} {max(wall):>7.1f} {statistics.median(cpu):>7.1f}"
            f" {statistics.median(cold):>8.1f} {size:>4.0f}  {met}"
        )


if __name__ == "__main__":
    main()
