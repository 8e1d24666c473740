"""The long whole-game fuzz run: thousands of games of every bundled scenario.

    .venv/bin/python bench/fuzz.py --games 1000          # games per bundled scenario
    .venv/bin/python bench/fuzz.py --games 50 --ruleset manovra --seed 7

Each game is played by random legal actions through the service on a fresh SQLite file
(tests/fuzz/harness.py). Prints games × turns × commands per scenario, the failures (with the
seed that reproduces each: `pytest tests/fuzz` style, `--seed N --games 1`), and exits 1 if any.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz.harness import bundled_games, fuzz


def _discard(path: Path) -> None:
    """Remove a finished game's database (thousands of games would fill the disk)."""
    path.unlink(missing_ok=True)


async def main() -> int:
    """Run the fuzz campaign and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per bundled scenario")
    parser.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    parser.add_argument("--ruleset", help="only this ruleset")
    parser.add_argument("--max-turns", type=int, default=50)
    parser.add_argument("--show", type=int, default=5, help="failures printed per scenario")
    args = parser.parse_args()
    failed = 0
    print(f"{'scenario':32} {'games':>6} {'ended':>6} {'turns':>7} {'commands':>9} "
          f"{'probes':>7} {'fail':>5} {'s':>7}")
    with tempfile.TemporaryDirectory() as directory:
        for ruleset, scenario in bundled_games():
            if args.ruleset and ruleset != args.ruleset:
                continue
            started = time.perf_counter()
            games = ended = turns = commands = probes = failures = 0
            shown = 0
            for seed in range(args.seed, args.seed + args.games):
                run = await fuzz(ruleset, scenario, seed, Path(directory),
                                 max_turns=args.max_turns)
                _discard(Path(directory, f"fuzz-{ruleset}-{scenario}-{seed}.db"))
                games += 1
                ended += run.ended
                turns += run.turns
                commands += run.commands
                probes += run.probes
                if run.failures:
                    failures += 1
                    if shown < args.show:
                        shown += 1
                        print(run.failures[0], file=sys.stderr)
            failed += failures
            elapsed = time.perf_counter() - started
            print(f"{ruleset + '/' + scenario:32} {games:6} {ended:6} {turns:7} {commands:9} "
                  f"{probes:7} {failures:5} {elapsed:7.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
