"""Benchmark of the game store (not a test): ``.venv/bin/python bench/bench_store.py``.

1. Commit latency: `SqliteStore.commit` of a realistic game document (~12 KB of canonical
   JSON: two sides, a dozen units with weapons and state) plus its event, against a raw
   ``sqlite3`` transaction writing the same rows (UPDATE games, INSERT states, INSERT
   events) into the same file, same schema and settings (WAL, synchronous=FULL, foreign
   keys), and against the naive design (one await, one thread hop, per statement). The kinds take
   turns in a shuffled order, each commit preceded by a short pause (``--pause-ms``, as
   between players' commands): back to back, an fsync's cost depends on how soon it follows
   the previous writer's, which would measure the file system's journal rather than the
   code. The same comparison with synchronous=NORMAL (no fsync per commit) shows the pure
   software overhead. Target: store p50 <= 3x raw p50 at synchronous=FULL.
2. Load + commit latency of one command on random games among 1,000 and 100,000 stored
   (filler games inserted with executemany in a raw connection): it should not grow.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))

from db.hashing import GENESIS_HASH, canonical_json, event_hash, state_hash  # noqa: E402
from db.migrations import apply_migrations  # noqa: E402
from db.models import NewEvent, format_timestamp, utc_now  # noqa: E402
from db.sqlite import SqliteStore  # noqa: E402
from db.worker import DatabaseThread  # noqa: E402

WEAPONS = [
    {"name": "Fucile Carcano M91", "range_cm": [30, 60, 90], "dice": ["D12", "D10", "D8"]},
    {"name": "Breda 30", "range_cm": [40, 80, 120], "dice": ["D12", "D10", "D8"], "rof": 3},
    {"name": "Mortaio Brixia 45", "range_cm": [20, 60, 100], "he": True, "scatter": "D6"},
    {"name": "Bren Mk I", "range_cm": [40, 80, 120], "dice": ["D12", "D10", "D8"], "rof": 3},
]


def realistic_document(rng: random.Random, turn: int) -> dict[str, Any]:
    """A game document of the size `rules.GameState` produces mid-game (~15 KB)."""
    sides = {}
    for side, nation in (("rossi", "Regio Esercito"), ("blu", "British 8th Army")):
        units = []
        for number in range(6):
            units.append(
                {
                    "id": f"{side}-{number}",
                    "name": f"Squadra {number + 1} — {nation}",
                    "kind": "infantry" if number < 4 else "support",
                    "training": rng.randint(0, 3),
                    "leader": {"name": f"Sergente {number}", "command_value": rng.randint(0, 3)},
                    "position": {"x": rng.uniform(0, 180), "y": rng.uniform(0, 120)},
                    "terrain": rng.choice(["open", "woods", "building", "ruins"]),
                    "cover": rng.choice(["none", "light", "medium", "heavy"]),
                    "models": [
                        {
                            "id": f"{side}-{number}-{m}",
                            "role": rng.choice(["rifleman", "gunner", "loader", "nco"]),
                            "wounds": rng.randint(0, 1),
                            "pinned": rng.random() < 0.2,
                        }
                        for m in range(8)
                    ],
                    "weapons": [rng.choice(WEAPONS) for _ in range(2)],
                    "state": {
                        "activated": rng.random() < 0.5,
                        "moved": rng.choice(["none", "tactical", "half", "quarter"]),
                        "fired": rng.random() < 0.3,
                        "panicked": rng.random() < 0.1,
                        "tokens": rng.randint(0, 3),
                        "casualties": rng.randint(0, 4),
                        "markers": ["IF"] if rng.random() < 0.2 else [],
                    },
                }
            )
        sides[side] = {
            "nation": nation,
            "player_ids": [rng.randrange(10**17, 10**18)],
            "units": units,
        }
    return {
        "ruleset": "manovra",
        "scenario": "Ponte di Primosole (example values)",
        "turn": turn,
        "phase": rng.choice(["tokens", "declarations", "manoeuvres", "indirect_fire"]),
        "initiative": "rossi",
        "sides": sides,
        "pending_indirect_fire": [{"by": "rossi-4", "target": {"x": 90.0, "y": 44.5}}],
        "log_tail": [f"turn {turn}: action {n}" for n in range(10)],
    }


def realistic_event(rng: random.Random, step: int) -> NewEvent:
    """The event of a typical /fire command: arguments, dice and the resolution steps."""
    return NewEvent(
        verb="fire",
        args={"unit": "rossi-1", "weapon": "Breda 30", "target": "blu-2", "distance_cm": 54},
        dice=[{"die": "D10", "value": rng.randint(1, 10), "label": f"hit {n}"} for n in range(3)],
        resolution={
            "steps": [
                {"name": "to hit", "modifiers": [{"label": "cover", "value": -1}], "total": 6},
                {"name": "effect", "table": "small arms", "cell": "B4", "outcome": "pinned"},
            ],
            "odds": {"pinned": 0.42, "no effect": 0.58},
        },
        actor_id=rng.randrange(10**17, 10**18),
        interaction_id=f"bench-{step}-{rng.getrandbits(64):x}",
    )


# ---- raw baseline -------------------------------------------------------------------------


def raw_connection(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection with the store's schema and settings."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA busy_timeout = 5000")
    apply_migrations(connection, str(path))
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = FULL")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def seed_raw_game(connection: sqlite3.Connection, channel_id: int, document_json: str) -> None:
    now = format_timestamp(utc_now())
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(
        "INSERT INTO games VALUES (?, 1, 'manovra', 'it', 'active', 1, ?, ?)",
        (channel_id, now, now),
    )
    connection.execute("INSERT INTO states VALUES (?, 1, 'active', ?)", (channel_id, document_json))
    connection.execute(
        "INSERT INTO events VALUES (?, 1, NULL, NULL, 'game.created', '{}', '[]', 'null', 1, "
        "?, NULL, ?, ?, ?)",
        (channel_id, "0" * 64, now, GENESIS_HASH, "1" * 64),
    )
    connection.execute("COMMIT")


def raw_commit(
    connection: sqlite3.Connection, channel_id: int, version: int, document: Any, event: NewEvent
) -> None:
    """The same three rows the store writes, with no checks, hashing or thread hop."""
    now = format_timestamp(utc_now())
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(
        "UPDATE games SET version = ?, status = 'active', updated_at = ? "
        "WHERE channel_id = ? AND version = ?",
        (version + 1, now, channel_id, version),
    )
    connection.execute(
        "INSERT INTO states VALUES (?, ?, 'active', ?)",
        (channel_id, version + 1, json.dumps(document)),
    )
    connection.execute(
        "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
        (
            channel_id,
            version + 1,
            event.interaction_id,
            event.actor_id,
            event.verb,
            json.dumps(event.args),
            json.dumps(event.dice),
            json.dumps(event.resolution),
            version + 1,
            "0" * 64,
            now,
            "0" * 64,
            "0" * 64,
        ),
    )
    connection.execute("COMMIT")


# ---- measuring ----------------------------------------------------------------------------


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile, in microseconds."""
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index] * 1e6


@contextmanager
def stopwatch(samples: list[float]) -> Iterator[None]:
    started = time.perf_counter()
    yield
    samples.append(time.perf_counter() - started)


def twin(event: NewEvent, kind: str) -> NewEvent:
    """The same event under its own interaction id (ids are unique across the file)."""
    return replace(event, interaction_id=f"{event.interaction_id}-{kind}")


async def naive_statement(
    connection: DatabaseThread, sql: str, params: tuple[Any, ...] = ()
) -> list[Any]:
    """One statement, one thread hop: how a per-statement async driver works."""
    return await connection.run(lambda raw: raw.execute(sql, params).fetchall())


async def naive_commit(
    connection: DatabaseThread,
    channel_id: int,
    version: int,
    document: Any,
    event: NewEvent,
) -> None:
    """What the store would cost with one await (one thread hop) per statement."""
    now = format_timestamp(utc_now())
    await naive_statement(connection, "BEGIN IMMEDIATE")
    await naive_statement(
        connection, "SELECT 1 FROM events WHERE interaction_id = ?", (event.interaction_id,)
    )
    await naive_statement(
        connection, "SELECT version FROM games WHERE channel_id = ?", (channel_id,)
    )
    await naive_statement(
        connection,
        "SELECT hash FROM events WHERE channel_id = ? AND seq = ?",
        (channel_id, version),
    )
    await naive_statement(
        connection,
        "UPDATE games SET version = ?, status = 'active', updated_at = ? "
        "WHERE channel_id = ? AND version = ?",
        (version + 1, now, channel_id, version),
    )
    await naive_statement(
        connection,
        "INSERT INTO states VALUES (?, ?, 'active', ?)",
        (channel_id, version + 1, json.dumps(document)),
    )
    await naive_statement(
        connection,
        "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
        (
            channel_id, version + 1, event.interaction_id, event.actor_id, event.verb,
            json.dumps(event.args), json.dumps(event.dice), json.dumps(event.resolution),
            version + 1, "0" * 64, now, "0" * 64, "0" * 64,
        ),
    )  # fmt: skip
    await naive_statement(connection, "COMMIT")


async def bench_commit(
    directory: Path, commits: int, synchronous: str, pause_s: float, rng: random.Random
) -> dict[str, float]:
    """Store, naive per-statement and raw commits, interleaved one by one.

    All three write to the same file (channels 1, 2 and 3), one after the other, so they
    share one WAL and its fsyncs.
    """
    documents = [realistic_document(rng, turn) for turn in range(8)]
    samples: dict[str, list[float]] = {"store": [], "naive": [], "raw": []}
    path = directory / f"commit-{synchronous}.db"
    async with await SqliteStore.open(path) as store:
        if synchronous != "FULL":
            # Bench only: the store always runs FULL; NORMAL exposes its software overhead.
            await store._run(lambda connection: connection.execute("PRAGMA synchronous = NORMAL"))
        await store.create_game(
            1, guild_id=1, ruleset="manovra", language="it", document=documents[0], status="active"
        )
        raw = raw_connection(path)
        raw.execute(f"PRAGMA synchronous = {synchronous}")
        seed_raw_game(raw, 3, json.dumps(documents[0]))
        seed_raw_game(raw, 2, json.dumps(documents[0]))
        naive = await DatabaseThread.connect(str(path), isolation_level=None)
        for pragma in (f"synchronous = {synchronous}", "foreign_keys = ON"):
            await naive_statement(naive, f"PRAGMA {pragma}")
        warmup = 30
        kinds = list(samples)
        for step in range(warmup + commits):
            document = documents[step % len(documents)]
            event = realistic_event(rng, step)
            timed = step >= warmup
            # A fresh order every round: the disk's hiccups (checkpoints, journal commits)
            # fall on each kind alike instead of always on the one that comes first.
            rng.shuffle(kinds)
            for kind in kinds:
                await asyncio.sleep(pause_s)
                with stopwatch(samples[kind] if timed else []):
                    if kind == "store":
                        await store.commit(1, step + 1, document, event)
                    elif kind == "naive":
                        await naive_commit(naive, 2, step + 1, document, twin(event, kind))
                    else:
                        raw_commit(raw, 3, step + 1, document, twin(event, kind))
        await naive.close()
        raw.close()
    result = {"document_bytes": float(len(canonical_json(documents[0]).encode()))}
    for kind, values in samples.items():
        result[f"{kind}_p50"] = percentile(values, 0.50)
        result[f"{kind}_p99"] = percentile(values, 0.99)
    return result


def populate(path: Path, games: int, rng: random.Random) -> float:
    """Insert ``games`` small, valid games (hash chains included) with executemany."""
    started = time.perf_counter()
    connection = raw_connection(path)
    now = format_timestamp(utc_now())
    document_json = canonical_json({"turn": 1, "sides": {"rossi": [], "blu": []}, "pad": "x" * 200})
    resulting = state_hash(document_json, "active")

    def rows() -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]]:
        for offset in range(games):
            channel_id = 10**15 + offset
            encoded = {
                "actor_id": "null",
                "args": "{}",
                "channel_id": canonical_json(channel_id),
                "created_at": canonical_json(now),
                "dice": "[]",
                "interaction_id": "null",
                "resolution": "null",
                "seq": "1",
                "state_hash": canonical_json(resulting),
                "state_version": "1",
                "undoes_seq": "null",
                "verb": '"game.created"',
            }
            yield (
                (channel_id, rng.randrange(100), "manovra", "it", "active", 1, now, now),
                (channel_id, 1, "active", document_json),
                (
                    channel_id, 1, None, None, "game.created", "{}", "[]", "null", 1, resulting,
                    None, now, GENESIS_HASH, event_hash(GENESIS_HASH, encoded),
                ),
            )  # fmt: skip

    connection.execute("BEGIN IMMEDIATE")
    batch: list[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]] = []
    for row in rows():
        batch.append(row)
        if len(batch) == 10_000:
            _insert_batch(connection, batch)
            batch.clear()
    _insert_batch(connection, batch)
    connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return time.perf_counter() - started


def _insert_batch(
    connection: sqlite3.Connection,
    batch: list[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]],
) -> None:
    connection.executemany(
        "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [b[0] for b in batch]
    )
    connection.executemany("INSERT INTO states VALUES (?, ?, ?, ?)", [b[1] for b in batch])
    connection.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [b[2] for b in batch],
    )


async def bench_load_commit(
    directory: Path, games: int, commands: int, pause_s: float, rng: random.Random
) -> dict[str, float]:
    """One command's storage work (load, then commit) on random games among ``games``."""
    path = directory / f"games-{games}.db"
    populate_s = populate(path, games, rng)
    documents = [realistic_document(rng, turn) for turn in range(8)]
    samples: list[float] = []
    async with await SqliteStore.open(path) as store:
        channels = rng.sample(range(10**15, 10**15 + games), min(games, commands + 20))
        for step, channel_id in enumerate(channels):
            event = realistic_event(rng, step)
            if step < 20:  # Warm-up.
                game = await store.load(channel_id)
                await store.commit(channel_id, game.version, documents[step % 8], event)
                continue
            await asyncio.sleep(pause_s)
            with stopwatch(samples):
                game = await store.load(channel_id)
                await store.commit(channel_id, game.version, documents[step % 8], event)
    size_mb = path.stat().st_size / 1e6
    return {
        "games": games,
        "populate_s": populate_s,
        "file_mb": size_mb,
        "p50": percentile(samples, 0.50),
        "p99": percentile(samples, 0.99),
    }


def report(
    commits: dict[str, dict[str, float]], scaling: list[dict[str, float]], count: int
) -> None:
    """Print the results as compact tables."""
    size = next(iter(commits.values()))["document_bytes"] / 1e3
    print(f"commit of one command: {count} interleaved commits each, document {size:.1f} KB")
    print(f"{'synchronous':<13}{'kind':<32}{'p50 (µs)':>9}{'p99 (µs)':>9}{'p50 / raw':>10}")
    labels = {
        "store": "SqliteStore.commit",
        "naive": "one await/statement",
        "raw": "raw sqlite3 transaction",
    }
    for synchronous, result in commits.items():
        for kind, label in labels.items():
            ratio = result[f"{kind}_p50"] / result["raw_p50"]
            print(
                f"{synchronous:<13}{label:<32}{result[f'{kind}_p50']:>9.0f}"
                f"{result[f'{kind}_p99']:>9.0f}{ratio:>9.2f}x"
            )
    full = commits.get("FULL")
    if full is not None:
        ratio = full["store_p50"] / full["raw_p50"]
        verdict = "met" if ratio <= 3 else "MISSED"
        print(f"target (synchronous=FULL) store p50 <= 3x raw p50: {ratio:.2f}x, {verdict}")
    print()
    print("load + commit of one command on random games (synchronous=FULL)")
    print(
        f"{'games stored':>13}{'file (MB)':>11}{'populate (s)':>14}{'p50 (µs)':>10}{'p99 (µs)':>10}"
    )
    for row in scaling:
        print(
            f"{int(row['games']):>13,}{row['file_mb']:>11.1f}{row['populate_s']:>14.1f}"
            f"{row['p50']:>10.0f}{row['p99']:>10.0f}"
        )
    if len(scaling) >= 2:
        growth = scaling[-1]["p50"] / scaling[0]["p50"]
        largest, smallest = int(scaling[-1]["games"]), int(scaling[0]["games"])
        print(f"p50 with {largest:,} games / with {smallest:,}: {growth:.2f}x")


async def run(directory: Path, arguments: argparse.Namespace) -> None:
    """Both benchmarks, then the table."""
    rng = random.Random(arguments.seed)  # A private generator: the run is reproducible.
    pause_s = arguments.pause_ms / 1000
    commits = {
        synchronous: await bench_commit(directory, arguments.commits, synchronous, pause_s, rng)
        for synchronous in ("FULL", "NORMAL")
    }
    scaling = [
        await bench_load_commit(directory, games, arguments.commands, pause_s, rng)
        for games in arguments.games
    ]
    report(commits, scaling, arguments.commits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commits", type=int, default=500, help="timed commits of each kind")
    parser.add_argument("--commands", type=int, default=300, help="timed load+commit per size")
    parser.add_argument(
        "--games",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[1_000, 100_000],
        help="comma-separated numbers of stored games (default 1000,100000)",
    )
    parser.add_argument("--dir", help="directory for the files (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the document generator")
    parser.add_argument(
        "--pause-ms",
        type=float,
        default=5.0,
        help="idle time before each timed commit, as between players' commands (default 5)",
    )
    arguments = parser.parse_args()
    if arguments.dir:
        directory = Path(arguments.dir)
        directory.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(directory, arguments))
    else:
        with tempfile.TemporaryDirectory(prefix="arbitro-bench-") as temporary:
            asyncio.run(run(Path(temporary), arguments))


if __name__ == "__main__":
    main()
