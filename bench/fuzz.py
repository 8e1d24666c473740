"""The long whole-game fuzz run: thousands of games of every bundled scenario.

    .venv/bin/python bench/fuzz.py --games 1000          # games per bundled scenario
    .venv/bin/python bench/fuzz.py --games 50 --ruleset manovra --seed 7
    .venv/bin/python bench/fuzz.py --sequence --runs 20 --channels 3 --games 10
    .venv/bin/python bench/fuzz.py --sequence --runs 5 --backend postgres
    .venv/bin/python bench/fuzz.py --campaign --seeds 20            # every ruleset
    .venv/bin/python bench/fuzz.py --campaign --seeds 5 --ruleset pzgren --games 6 --channels 3

Each game is played by random legal actions through the service on a fresh SQLite file
(tests/fuzz/harness.py). Prints games × turns × commands per scenario, the failures (with the
seed that reproduces each: `pytest tests/fuzz` style, `--seed N --games 1`), and exits 1 if any.

``--sequence``: each run is one process-long store and service where ``--channels`` channels
play ``--games`` games each, one after another, interleaved, with take-backs, undos, rewinds,
re-rolls and free rolls mixed in and a full audit after each game (tests/fuzz/sequence.py).
Runs take the seeds from ``--seed`` on; a failure names its seed and sizes, and
``--sequence --runs 1 --seed N`` with the same sizes reproduces it. ``--backend postgres``
starts a throwaway PostgreSQL server (tests/pgserver.py), one fresh schema per run.

``--campaign``: whole campaigns (tests/fuzz/campaign.py), ``--seeds`` per ruleset (from
``--seed`` on): created, joined, ``--games`` linked games in ``--channels`` channels played
by the game fuzzer, ends undone, bad commands mixed in, ended; every invariant checked after
every step. One line per campaign, then totals; ``--campaign --seeds 1 --seed N --ruleset R``
with the same sizes reproduces a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.app import loop as app_loop
from tests.fuzz.campaign import CampaignRun, CampaignSizes, play_campaign
from tests.fuzz.harness import bundled_games, fuzz
from tests.fuzz.sequence import SequenceRun, Sizes, play_sequence, sqlite_url
from tests.pgserver import start_server


def _discard(path: Path) -> None:
    """Remove a finished game's database (thousands of games would fill the disk)."""
    path.unlink(missing_ok=True)


async def main() -> int:
    """Run the fuzz campaign and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int,
        help="games per bundled scenario (100); with --sequence, per channel (5)",
    )
    parser.add_argument("--seed", type=int, default=1000, help="the first game's (run's) seed")
    parser.add_argument("--ruleset", help="only this ruleset")
    parser.add_argument("--max-turns", type=int, default=50)
    parser.add_argument("--show", type=int, default=5, help="failures printed per scenario")
    parser.add_argument("--sequence", action="store_true", help="games one after another")
    parser.add_argument("--runs", type=int, default=10, help="--sequence: runs (seeds)")
    parser.add_argument("--channels", type=int, default=2, help="--sequence: channels per run")
    parser.add_argument(
        "--full", type=float, default=0.4, help="--sequence: share of games played to their end"
    )
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--campaign", action="store_true", help="whole campaigns")
    parser.add_argument("--seeds", type=int, default=10, help="--campaign: seeds per ruleset")
    args = parser.parse_args()
    if args.sequence:
        return await sequences(args)
    if args.campaign:
        return await campaigns(args)
    games_per_scenario = args.games or 100
    failed = 0
    print(
        f"{'scenario':32} {'games':>6} {'ended':>6} {'turns':>7} {'commands':>9} "
        f"{'probes':>7} {'fail':>5} {'s':>7}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for ruleset, scenario in bundled_games():
            if args.ruleset and ruleset != args.ruleset:
                continue
            started = time.perf_counter()
            games = ended = turns = commands = probes = failures = 0
            shown = 0
            for seed in range(args.seed, args.seed + games_per_scenario):
                run = await fuzz(ruleset, scenario, seed, Path(directory), max_turns=args.max_turns)
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
            print(
                f"{ruleset + '/' + scenario:32} {games:6} {ended:6} {turns:7} {commands:9} "
                f"{probes:7} {failures:5} {elapsed:7.1f}"
            )
    return 1 if failed else 0


@contextlib.contextmanager
def _databases(backend: str) -> Iterator[Iterator[str]]:
    """Fresh, empty databases for the runs, one after another, on ``backend``."""
    if backend == "postgres":
        server = start_server()
        try:
            yield (server.new_schema_url() for _ in itertools.count())
        finally:
            server.stop()
        return
    with tempfile.TemporaryDirectory() as directory:
        yield (sqlite_url(Path(directory), number) for number in itertools.count())


async def sequences(args: argparse.Namespace) -> int:
    """``--sequence``: runs of game after game per channel; one line per run, then totals."""
    sizes = Sizes(channels=args.channels, games=args.games or 5, full_games=args.full)
    print(f"{args.runs} runs × {sizes.describe()} on {args.backend}, seeds {args.seed}…")
    print(
        f"{'seed':>6} {'games':>6} {'to end':>7} {'early':>6} {'commands':>9} {'history':>8} "
        f"{'probes':>7} {'fail':>5} {'s':>7}"
    )
    totals: Counter[str] = Counter()
    runs: list[SequenceRun] = []
    started = time.perf_counter()
    with _databases(args.backend) as databases:
        for seed, url in zip(range(args.seed, args.seed + args.runs), databases, strict=False):
            run = await play_sequence(url, seed, sizes, backend=args.backend)
            if args.backend == "sqlite":
                _discard(Path(url))
            runs.append(run)
            history = sum(
                n
                for kind, n in run.history.items()
                if kind not in ("reopened",) and not kind.endswith("refused")
            )
            totals.update(run.history)
            print(
                f"{seed:6} {run.games:6} {run.ended_by_rules:7} {run.ended_early:6} "
                f"{run.commands:9} {history:8} {run.probes:7} {len(run.failures):5} "
                f"{run.seconds:7.1f}",
                flush=True,
            )
            for failure in run.failures[:1]:
                print(failure, file=sys.stderr)
    failed = [run.seed for run in runs if run.failures]
    print(
        f"{len(runs)} runs, {sum(r.games for r in runs)} games "
        f"({sum(r.ended_by_rules for r in runs)} to their end, "
        f"{sum(r.ended_early for r in runs)} ended early), "
        f"{sum(r.commands for r in runs)} commands, {sum(r.probes for r in runs)} probes, "
        f"{sum(r.audits for r in runs)} audits, "
        f"{sum(r.archives_verified for r in runs)} archives verified, "
        f"{len(failed)} failed runs{f' (seeds {failed})' if failed else ''}, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print("history: " + ", ".join(f"{kind} {n}" for kind, n in sorted(totals.items())))
    return 1 if failed else 0


async def campaigns(args: argparse.Namespace) -> int:
    """``--campaign``: whole campaigns in every ruleset (or ``--ruleset``); one line each."""
    sizes = CampaignSizes(
        games=args.games or 3, channels=args.channels, full_games=min(args.full, 0.25)
    )
    rulesets = [args.ruleset] if args.ruleset else sorted({r for r, _ in bundled_games()})
    print(
        f"{args.seeds} campaigns × {len(rulesets)} rulesets × {sizes.describe()} on "
        f"{args.backend}, seeds {args.seed}…"
    )
    print(
        f"{'ruleset':14} {'seed':>6} {'steps':>6} {'commands':>9} {'results':>8} "
        f"{'reversed':>9} {'refused':>8} {'fail':>5} {'s':>6}"
    )
    runs: list[CampaignRun] = []
    totals: Counter[str] = Counter()
    started = time.perf_counter()
    with _databases(args.backend) as databases:
        for ruleset in rulesets:
            for seed in range(args.seed, args.seed + args.seeds):
                url = next(databases)
                run = await play_campaign(url, ruleset, seed, sizes, backend=args.backend)
                if args.backend == "sqlite":
                    _discard(Path(url))
                runs.append(run)
                totals.update(run.actions)
                refused = sum(n for a, n in run.actions.items() if a.startswith("refused: "))
                print(
                    f"{ruleset:14} {seed:6} {run.steps:6} {run.game_commands:9} "
                    f"{run.results:8} {run.reversals:9} {refused:8} {len(run.failures):5} "
                    f"{run.seconds:6.1f}",
                    flush=True,
                )
                for failure in run.failures[:1]:
                    print(failure, file=sys.stderr)
    failed = [(run.ruleset, run.seed) for run in runs if run.failures]
    print(
        f"{len(runs)} campaigns ({sum(r.ended for r in runs)} ended), "
        f"{sum(r.steps for r in runs)} steps, {sum(r.game_commands for r in runs)} game "
        f"commands, {sum(r.results for r in runs)} results, "
        f"{sum(r.reversals for r in runs)} reversals, {sum(r.checks for r in runs)} checks, "
        f"{len(failed)} failed{f' {failed}' if failed else ''}, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print("actions: " + ", ".join(f"{name} {n}" for name, n in sorted(totals.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(app_loop.run(main()))
