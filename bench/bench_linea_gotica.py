"""Benchmark of the linea_gotica procedures: resolving with exact odds, warm and cold.

Run: ``.venv/bin/python bench/bench_linea_gotica.py`` (``--quick`` for fewer repetitions).

For each main procedure, with ``time.perf_counter_ns`` over many repetitions (median and p90,
in µs): resolve WITH exact odds warm (odds cache hit), cold (``clear_odds_cache()`` before
each run, outside the timed region), and resolve only. Inputs are parsed once, outside the
timed region; each timed call is ``procedure.resolve(parsed, SystemDice(), with_odds=...)``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import measure, p90

from rules.core.dice import SystemDice
from rules.core.procedures import clear_odds_cache
from rules.linea_gotica import PROCEDURES

CASES: list[tuple[str, str, dict[str, object], int]] = [
    (
        "rifle at a soldier (hit + damage + d6)",
        "direct_fire",
        {"quality": "regolari", "weapon": "fucile", "distance_cm": 30, "cover": "leggera"},
        2_000,
    ),
    (
        "75 mm at a tank (hit, pen, damage, weapon)",
        "direct_fire",
        {
            "quality": "veterani",
            "weapon": "cannone_77",
            "calibre_mm": 75,
            "distance_cm": 60,
            "flank": True,
            "target": {"kind": "carro_armato", "weapons": 3},
        },
        300,
    ),
    (
        "HE blast on a tank (indirect 155 mm)",
        "he_effect",
        {
            "zone": "breve",
            "heavy_calibre": True,
            "spec": {"soft_class": "cannon", "indirect": True, "penetration": "mortaio_oltre_106"},
            "target": {"kind": "carro_armato", "weapons": 2},
        },
        500,
    ),
    ("morale test and effects", "morale", {"quality": "reclute", "under_fire": True}, 2_000),
    ("observation", "observation", {"quality": "veterani", "target": "infantry"}, 2_000),
    ("ranging shot", "ranging", {"quality": "regolari"}, 2_000),
    ("deviation 4d10 cm", "scatter_distance", {"dice": 4}, 20),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    dice = SystemDice()
    rows: list[tuple[str, int, int, float, float, float, float]] = []
    for name, procedure_name, data, cold_reps in CASES:
        procedure = PROCEDURES[procedure_name]
        parsed = procedure.parse_input(data)
        odds = procedure.odds(parsed)

        def warm(procedure=procedure, parsed=parsed) -> object:  # type: ignore[no-untyped-def]
            return procedure.resolve(parsed, dice)

        def bare(procedure=procedure, parsed=parsed) -> object:  # type: ignore[no-untyped-def]
            return procedure.resolve(parsed, dice, with_odds=False)

        warm_samples = measure(warm, max(50, 10_000 // scale))
        cold_samples = measure(warm, max(5, cold_reps // scale), clear_odds_cache)
        bare_samples = measure(bare, max(50, 10_000 // scale))
        rows.append(
            (
                name,
                odds.paths,
                len(odds.entries),
                statistics.median(warm_samples),
                statistics.median(cold_samples),
                p90(cold_samples),
                statistics.median(bare_samples),
            )
        )
    clear_odds_cache()
    print(f"python {sys.version.split()[0]} — linea_gotica procedures (µs per call)")
    width = max(len(row[0]) for row in rows)
    header = (
        f"{'case':<{width}}  {'paths':>6}  {'outcomes':>8}  {'warm med':>9}  "
        f"{'cold med':>10}  {'cold p90':>10}  {'no odds':>8}"
    )
    print(header)
    for name, paths, outcomes, warm_med, cold_med, cold_p90, bare_med in rows:
        print(
            f"{name:<{width}}  {paths:>6}  {outcomes:>8}  {warm_med:>9.1f}  "
            f"{cold_med:>10.1f}  {cold_p90:>10.1f}  {bare_med:>8.1f}"
        )
    print("target: ≤ 1 ms warm; cold: the paths above, far under the 5,000-path cap")
    return 0


if __name__ == "__main__":
    sys.exit(main())
