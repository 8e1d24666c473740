"""Benchmark of the pzgren ruleset: its procedures with exact odds, warm and cold.

Run: ``.venv/bin/python bench/bench_pzgren.py`` (``--quick`` for fewer repetitions).

Measures, with ``time.perf_counter_ns`` over many repetitions (median and p90, in µs):

(a) direct fire at a hex of five units on two columns (artillery apart), with its exact
    odds, warm (odds cache hit) and cold (``clear_odds_cache()`` before each run, untimed);
(b) anti-tank fire with four modifiers, warm and cold;
(c) a morale check (not in the seed), warm and cold;
(d) each resolve only (no odds);
(e) a whole game command: ``game.apply`` of a direct fire on the bundled scenario (deep copy
    of the state, checks, state modifiers, resolution with odds warm, effects).

Inputs are parsed once, outside the timed region.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import measure, p90

from rules.core.dice import ScriptedDice, SystemDice
from rules.core.procedures import clear_odds_cache
from rules.pzgren import PROCEDURES
from rules.pzgren import turn as g
from rules.pzgren.scenario import load_bundled

DIRECT = {
    "fire_value": 12,
    "modifiers": ["night", "opportunity", "three_stacked"],
    "units": [
        {"id": "inf"},
        {"id": "inf2"},
        {"id": "guns", "modifiers": ["artillery"]},
        {"id": "truck", "category": "transport"},
        {"id": "sdkfz", "armour": "open"},
    ],
    "hex": "4,4",
}
ANTI_TANK = {
    "at_value": 9,
    "armour": 5,
    "modifiers": ["moved", "opportunity", "adjacent", "flank"],
    "steps": 2,
    "target": "tank",
}
MORALE = {"morale": 7, "n": 2, "status": "disrupted", "target": "inf"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1

    dice = SystemDice()
    direct, anti_tank, morale = (PROCEDURES[n] for n in ("direct_fire", "anti_tank", "morale"))
    direct_in = direct.parse_input(DIRECT)
    at_in = anti_tank.parse_input(ANTI_TANK)
    morale_in = morale.parse_input(MORALE)
    inputs = {"direct_fire": direct_in, "anti_tank": at_in, "morale": morale_in}
    paths = {name: PROCEDURES[name].odds(data).paths for name, data in inputs.items()}

    state = g.new_game(load_bundled("exemple_ardennes"))
    state.units["us_rifle_2"].hex = "5,3"
    command = g.Fire(units=("us_rifle_2", "us_mortar"), hex="6,3")

    def game_fire() -> object:
        return g.apply(state, command, ScriptedDice([3, 4]), actor_side="us")

    def with_odds(procedure: Any, data: Any) -> Callable[[], object]:
        return lambda: procedure.resolve(data, dice)

    def only(procedure: Any, data: Any) -> Callable[[], object]:
        return lambda: procedure.resolve(data, dice, with_odds=False)

    cold = clear_odds_cache
    cases: list[tuple[str, Callable[[], object], int, Callable[[], None] | None]] = [
        ("(a) direct fire + odds, warm", with_odds(direct, direct_in), 20_000, None),
        ("(a) direct fire + odds, cold", with_odds(direct, direct_in), 2_000, cold),
        ("(b) anti-tank + odds, warm", with_odds(anti_tank, at_in), 20_000, None),
        ("(b) anti-tank + odds, cold", with_odds(anti_tank, at_in), 2_000, cold),
        ("(c) morale + odds, warm", with_odds(morale, morale_in), 20_000, None),
        ("(c) morale + odds, cold", with_odds(morale, morale_in), 2_000, cold),
        ("(d) direct fire, resolve only", only(direct, direct_in), 20_000, None),
        ("(d) anti-tank, resolve only", only(anti_tank, at_in), 20_000, None),
        ("(d) morale, resolve only", only(morale, morale_in), 20_000, None),
        ("(e) game.apply direct fire (odds warm)", game_fire, 5_000, None),
    ]

    print(f"python {sys.version.split()[0]} — pzgren benchmark (µs per call)")
    print("dice paths: " + ", ".join(f"{name} {count}" for name, count in paths.items()))
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
