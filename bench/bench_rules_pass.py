"""Benchmark: the rules pass of one command, per ruleset and verb, without the service.

Every bundled scenario is played by random legal actions (seeded); for each command the
pieces of the service's rules pass (``bot.service.play`` ``play_verb``) are timed separately, in
the order the service runs them: ``awaiting`` (before), ``apply``, ``map_view`` (for the
drawn verbs), ``follow_ups``, ``awaiting`` (after), plus a ``legal_actions`` listing of the
state the command left (what the fuzzer and the autocomplete ask). Printed: p50/p99 in ms
per ruleset × piece, and the whole pass per ruleset × verb.

Run: ``.venv/bin/python bench/bench_rules_pass.py [--games N] [--commands N] [--seed N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))

from bench.bench_command_path import fill, pick  # noqa: E402
from rules.core.errors import RulesError  # noqa: E402
from rules.core.ruleset import get_ruleset  # noqa: E402
from rules.core.seatview import REFEREE, SPECTATOR  # noqa: E402
from tests.fuzz.harness import SeededDice  # noqa: E402

DRAWN = {"move", "fire", "callarty", "execute", "template"}
RULESETS = ("manovra", "linea_gotica", "pzgren", "w40k4")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(ruleset: str, games: int, commands: int, seed: int) -> dict[str, list[float]]:
    """Times (ms) keyed ``piece`` and ``pass:verb``."""
    play = get_ruleset(ruleset).rules
    assert play is not None
    times: dict[str, list[float]] = defaultdict(list)
    rng = random.Random(seed)
    dice = SeededDice(random.Random(seed + 1))
    for scenario in play.scenarios():
        for _ in range(games):
            document: Any = play.setup(scenario)
            for _ in range(commands):
                actions = [a for a in play.view(document, REFEREE).every_legal if a.verb != "odds"]
                action = pick(actions, rng)
                if action is None:
                    break
                options = fill(action, rng)
                t0 = time.perf_counter()
                _ = play.view(document, REFEREE).awaiting
                t1 = time.perf_counter()
                try:
                    result = play.act(document, REFEREE, action.verb, options, dice)
                except RulesError:
                    continue
                t2 = time.perf_counter()
                if action.verb in DRAWN:
                    play.view(result.document, SPECTATOR).map("it")
                t3 = time.perf_counter()
                _ = play.view(result.document, REFEREE).follow_ups
                t4 = time.perf_counter()
                _ = play.view(result.document, REFEREE).awaiting
                t5 = time.perf_counter()
                _ = play.view(result.document, REFEREE).every_legal
                t6 = time.perf_counter()
                document = result.document
                times["awaiting"].append((t1 - t0 + t5 - t4) * 1e3)
                times["apply"].append((t2 - t1) * 1e3)
                if action.verb in DRAWN:
                    times["map_view"].append((t3 - t2) * 1e3)
                times["follow_ups"].append((t4 - t3) * 1e3)
                times["legal_actions"].append((t6 - t5) * 1e3)
                times[f"pass:{action.verb}"].append((t5 - t0) * 1e3)
                times["pass:ALL"].append((t5 - t0) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per bundled scenario")
    parser.add_argument("--commands", type=int, default=150, help="commands per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", help="only this ruleset")
    args = parser.parse_args()
    print(f"{'ruleset':14} {'piece':22} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for ruleset in RULESETS:
        if args.ruleset and ruleset != args.ruleset:
            continue
        times = run(ruleset, args.games, args.commands, args.seed)
        for key in sorted(times, key=lambda k: (k.startswith("pass:"), k)):
            values = times[key]
            print(
                f"{ruleset:14} {key:22} {len(values):6} {statistics.median(values):8.2f} "
                f"{pct(values, 0.99):8.2f} {max(values):8.2f}"
            )


if __name__ == "__main__":
    main()
