"""Benchmark of the pure rules core: resolving with exact odds, warm and cold.

Run: ``.venv/bin/python bench/bench_rules.py`` (``--quick`` for fewer repetitions).

Measures, with ``time.perf_counter_ns`` over many repetitions (median and p90, in µs):

(a) a small-arms fire resolved WITH its exact odds, warm (odds cache hit);
(b) the same, cold (``clear_odds_cache()`` before each run, outside the timed region);
(c) a heavy-weapon shot (AP at a tank, armour on hull and turret) with odds, warm;
(d) the same, cold;
(e) resolve only (no odds) for both.

Inputs are parsed once, outside the timed region; each timed call is
``procedure.resolve(parsed, SystemDice(), with_odds=...)``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import measure, p90

from rules.core.dice import SystemDice
from rules.core.procedures import clear_odds_cache
from rules.manovra import PROCEDURES

SMALL_ARMS = {
    "target_kind": "fanteria",
    "band": "efficace",
    "ad": 1,
    "shots": 12,
    "cover": "leggero",
    "models_present": 8,
    "initial_models": 10,
}
HEAVY = {
    "band": "efficace",
    "ad": 1,
    "target": "carro",
    "calibre_mm": 75,
    "armour": {"scafo": 5, "torretta": 8},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1

    dice = SystemDice()
    small = PROCEDURES["small_arms"]
    heavy = PROCEDURES["heavy_fire"]
    small_in = small.parse_input(SMALL_ARMS)
    heavy_in = heavy.parse_input(HEAVY)
    small_odds = small.odds(small_in)
    heavy_odds = heavy.odds(heavy_in)

    cases: list[tuple[str, Callable[[], object], int, Callable[[], None] | None]] = [
        ("(a) small arms + odds, warm", lambda: small.resolve(small_in, dice), 20_000, None),
        (
            "(b) small arms + odds, cold",
            lambda: small.resolve(small_in, dice),
            2_000,
            clear_odds_cache,
        ),
        ("(c) heavy AP vs tank + odds, warm", lambda: heavy.resolve(heavy_in, dice), 20_000, None),
        (
            "(d) heavy AP vs tank + odds, cold",
            lambda: heavy.resolve(heavy_in, dice),
            300,
            clear_odds_cache,
        ),
        (
            "(e) small arms, resolve only",
            lambda: small.resolve(small_in, dice, with_odds=False),
            20_000,
            None,
        ),
        (
            "(e) heavy AP vs tank, resolve only",
            lambda: heavy.resolve(heavy_in, dice, with_odds=False),
            20_000,
            None,
        ),
    ]

    print(f"python {sys.version.split()[0]} — rules core benchmark (µs per call)")
    print(
        f"small arms: {small_odds.paths} dice paths, {len(small_odds.entries)} outcomes; "
        f"heavy AP vs tank: {heavy_odds.paths} dice paths, {len(heavy_odds.entries)} outcomes"
    )
    width = max(len(name) for name, *_ in cases)
    print(f"{'case':<{width}}  {'reps':>6}  {'median':>9}  {'p90':>9}")
    for name, run, repetitions, before in cases:
        reps = max(50, repetitions // scale)
        samples = measure(run, reps, before)
        print(
            f"{name:<{width}}  {reps:>6}  {statistics.median(samples):>9.1f}  {p90(samples):>9.1f}"
        )
    clear_odds_cache()
    print("target: ≤ 1 ms each (warm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
