"""Benchmark of the w40k4 rules: resolving its main procedures with their exact odds.

Run: ``.venv/bin/python bench/bench_w40k4.py`` (``--quick`` for fewer repetitions).

For each procedure, median and p90 in µs of ``procedure.resolve(parsed, SystemDice())``:
warm (odds cached), cold (every odds cache cleared before each run, outside the timed
region), and resolve only (no odds). The attack chains' odds are composed from one attack
enumerated through the resolver (see rules/w40k4/procedures/chain.py), so ten shots cost about as
much as one; the last line times a whole /fire command through the game logic.
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
from rules.w40k4 import PROCEDURES
from rules.w40k4 import turn as g
from rules.w40k4.procedures import chain
from rules.w40k4.scenario import load_bundled

CASES: list[tuple[str, str, dict[str, object]]] = [
    (
        "shooting, 10 shots",
        "shooting",
        {
            "attacks": 10,
            "bs": 4,
            "strength": 4,
            "ap": 5,
            "toughness": 4,
            "save": 4,
            "cover": "rovine",
            "models": 10,
        },
    ),
    (
        "shooting, flamer 6 hits",
        "shooting",
        {
            "auto_hits": 6,
            "strength": 4,
            "ap": 5,
            "toughness": 3,
            "save": 5,
            "cover": "muri",
            "ignores_cover": True,
            "models": 20,
        },
    ),
    (
        "close combat, 21 attacks",
        "close_combat",
        {
            "attacks": 21,
            "ws": 4,
            "target_ws": 4,
            "strength": 4,
            "toughness": 5,
            "save": 4,
            "models": 3,
        },
    ),
    (
        "vehicle hits, 4 shots",
        "vehicle_hits",
        {"attacks": 4, "bs": 4, "strength": 8, "ap": 1, "armour": 11, "open_topped": True},
    ),
    ("leadership (2D6)", "leadership", {"leadership": 8, "modifier": -2, "reason": "combat"}),
    ("blast scatter", "blast_scatter", {"template": "area", "bs": 3}),
    ("dangerous terrain, 10 dice", "dangerous_terrain", {"dice": 10}),
]


def clear_all() -> None:
    clear_odds_cache()
    chain.clear_composed_cache()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    dice = SystemDice()

    print(f"python {sys.version.split()[0]} — w40k4 benchmark (µs per call)")
    header = f"{'procedure':<28} {'paths':>5} {'outcomes':>8}  {'warm':>8} {'p90':>8}"
    header += f"  {'cold':>9} {'p90':>9}  {'no odds':>8}"
    print(header)
    for label, name, data in CASES:
        procedure = PROCEDURES[name]
        parsed = procedure.parse_input(data)
        clear_all()
        odds = procedure.odds(parsed)
        warm = measure(lambda p=procedure, d=parsed: p.resolve(d, dice), 5_000 // scale)
        cold = measure(
            lambda p=procedure, d=parsed: p.resolve(d, dice), max(30, 300 // scale), clear_all
        )
        bare = measure(
            lambda p=procedure, d=parsed: p.resolve(d, dice, with_odds=False), 5_000 // scale
        )
        print(
            f"{label:<28} {odds.paths:>5} {len(odds.entries):>8}  "
            f"{statistics.median(warm):>8.1f} {p90(warm):>8.1f}  "
            f"{statistics.median(cold):>9.1f} {p90(cold):>9.1f}  "
            f"{statistics.median(bare):>8.1f}"
        )

    state = g.new_game(load_bundled("avamposto"))
    state = g.apply(state, g.Next(), dice, actor_side="legione").state
    fire = g.Fire(unit="squadra_tattica", target="banda", distance=10)
    warm = measure(lambda: g.apply(state, fire, dice, actor_side="legione"), 2_000 // scale)
    cold = measure(
        lambda: g.apply(state, fire, dice, actor_side="legione"), max(30, 200 // scale), clear_all
    )
    print(
        f"/fire squad (3 weapon groups: 18 rapid-fire shots, a missile, a pistol): "
        f"warm {statistics.median(warm):.1f} µs (p90 {p90(warm):.1f}), "
        f"cold {statistics.median(cold):.1f} µs (p90 {p90(cold):.1f})"
    )
    clear_all()
    print("target: ≤ 1 ms each (warm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
