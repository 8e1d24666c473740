"""Benchmark of the game store (not a test): ``.venv/bin/python bench/bench_store.py``.

Measured in one run (schema 8: states, events, patches, rows digest):

1. Commit latency at synchronous=FULL and at NORMAL: `SqliteStore.commit` of a realistic
   game document (~12 KB of canonical JSON: two sides, a dozen units with weapons and
   state; each commit changes a few fields of it, as a command does, so the patch stored
   is a command's) plus its event, against a raw ``sqlite3`` transaction writing exactly the rows
   the store writes for a commit (`db.core.games.append`): UPDATE games (version, status,
   updated_at), INSERT the new state, INSERT the event, INSERT the new version's patch,
   DELETE the previous version's full document unless it is a snapshot (`db.chain.patch.
   snapshot_due`). The raw rows are valid: their canonical JSON, patch, state hash, event
   hash come from the store's own helpers (`db.chain.hashing`, `db.chain.patch.make_patch`,
   `db.chain.prepare`), made before its clock starts, so "raw" is SQLite alone while the store's
   figure includes everything a commit costs (encoding, patch, hashes, guard SELECTs,
   hops to aiosqlite's thread). A second store kind, "prepared", is handed the commit as
   the service hands it (`db.chain.prepare`: document, patch and event texts made on the
   caller's thread, off the clock as for raw): the store's own cost of a command's commit
   (hops, hashes, the head SELECT, statements), which the target is about. A third kind,
   the naive design, runs the raw statements plus three guard SELECTs on aiosqlite with
   one await (one thread hop) per statement: it shows what the store's head read in one
   SELECT and its writes queued as one batch save. All four write to the same file (same
   WAL, same settings as the store: WAL, foreign keys, synchronous=FULL or NORMAL),
   taking turns in a shuffled order, each commit preceded by a short pause
   (``--pause-ms``, as between players' commands): back to back, an fsync's cost depends
   on how soon it follows the previous writer's, which would measure the file system's
   journal
   rather than the code.
   NORMAL (no fsync per commit) shows the pure software overhead. At the end the raw and
   naive games are loaded and exported (verified) by the store: the baseline wrote valid
   rows, or the run fails.
   Target: prepared store commit p50 <= 3x raw p50 at synchronous=FULL.
2. Load + commit latency of one command (`SqliteStore.load` then `commit`) on random games
   among 1,000 and 100,000 stored (``--games``). The filler games are valid games of the
   current schema (state, ``game.created`` event with its hash, rows digest from
   `db.chain.integrity.rows_digest`) inserted with executemany in a raw connection.
   Target: flat, both are primary-key lookups (p50 with the most games <= 1.5x p50 with
   the fewest, a margin for the noise of a shared disk).
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

import aiosqlite

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # Runnable as a plain script from anywhere.
    sys.path.insert(0, str(ROOT))

from bot.app import loop as app_loop  # noqa: E402
from db.chain.hashing import GENESIS_HASH, canonical_json, encode_document, state_hash  # noqa: E402
from db.chain.integrity import rows_digest  # noqa: E402
from db.chain.patch import make_patch, snapshot_due  # noqa: E402
from db.chain.prepare import PreparedEvent, prepare_event, system_event  # noqa: E402
from db.chain.rows import pack_text  # noqa: E402
from db.core.steps import Query, read  # noqa: E402
from db.drivers.aiosqlite_driver import connect  # noqa: E402
from db.drivers.sqlite import SqliteStore, configure_connection  # noqa: E402
from db.models import VERB_CREATED, NewEvent  # noqa: E402

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


def next_document(rng: random.Random, previous: dict[str, Any]) -> dict[str, Any]:
    """The document after one command: a copy of ``previous`` with what a /fire changes
    (the firing unit's state, the target's models and casualties, the log's tail).

    Commits store a patch from the previous version (db/chain/patch.py), whose cost depends on
    how much changed: unrelated random documents would make every patch a rewrite of the
    whole document, which no command does.
    """
    document: dict[str, Any] = json.loads(json.dumps(previous))  # never the committed one
    side = rng.choice(["rossi", "blu"])
    other = "blu" if side == "rossi" else "rossi"
    unit = rng.choice(document["sides"][side]["units"])
    unit["state"]["activated"] = True
    unit["state"]["fired"] = True
    unit["state"]["tokens"] = rng.randint(0, 3)
    target = rng.choice(document["sides"][other]["units"])
    for model in rng.sample(target["models"], 2):
        model["pinned"] = rng.random() < 0.5
        model["wounds"] = rng.randint(0, 1)
    target["state"]["casualties"] += rng.randint(0, 1)
    document["phase"] = rng.choice(["tokens", "declarations", "manoeuvres", "indirect_fire"])
    tail = document["log_tail"]
    document["log_tail"] = [*tail[1:], f"turn {document['turn']}: {unit['id']} fires"]
    return document


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

Statement = tuple[str, tuple[Any, ...]]

# Explicit column lists, as the store's own statements (db/drivers/sqlite.py) have.
INSERT_STATE = "INSERT INTO states (channel_id, version, status, document) VALUES (?, ?, ?, ?)"
INSERT_EVENT = (
    "INSERT INTO events (channel_id, seq, interaction_id, actor_id, verb, args, dice, "
    "resolution, state_version, state_hash, undoes_seq, created_at, prev_hash, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_PATCH = (
    "INSERT INTO patches (channel_id, version, status, patch, snapshot, run_bytes) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
INSERT_GAME = (
    "INSERT INTO games (channel_id, guild_id, ruleset, language, status, version, "
    "created_at, updated_at, rows_digest) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)"
)


def raw_connection(path: Path, synchronous: str = "FULL") -> sqlite3.Connection:
    """A plain sqlite3 connection set up by the store's own `configure_connection` (WAL,
    synchronous=FULL, foreign keys, schema migrated), then at ``synchronous``."""
    connection = sqlite3.connect(path, isolation_level=None)
    configure_connection(connection, str(path), migrate=True)
    connection.execute(f"PRAGMA synchronous = {synchronous}")
    return connection


class RawGame:
    """A game the baseline writes to directly: its head as the store would read it."""

    def __init__(self, connection: sqlite3.Connection, channel_id: int) -> None:
        self.channel_id = channel_id
        self.version, self.head_hash, self.document_json, self.salt = connection.execute(
            "SELECT g.version, e.hash, s.document, g.state_salt FROM games AS g "
            "JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
            "JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
            "WHERE g.channel_id = ?",
            (channel_id,),
        ).fetchone()
        # Where the head stands in its run of patches, as the store reads it with the head.
        found = connection.execute(
            "SELECT snapshot, run_bytes FROM patches WHERE channel_id = ? AND version = ?",
            (channel_id, self.version),
        ).fetchone()
        self.kept, self.run_bytes = (True, 0) if found is None else (bool(found[0]), found[1])

    def commit_statements(self, document: Any, pending: PreparedEvent) -> list[Statement]:
        """The rows the store writes for this commit (`db.core.games.append` and
        `_insert_event`), their values made by the store's helpers; advances the head."""
        document_json = encode_document(document)
        if document_json == self.document_json:
            patch_json = "[]"
        else:
            patch_json = make_patch(json.loads(self.document_json), document, document_json)
        version, new_version, status = self.version, self.version + 1, "active"
        resulting = state_hash(document_json, status, self.salt)
        chained = pending.chained_hash(
            self.head_hash,
            channel_id=self.channel_id,
            version=new_version,
            args_json=pending.args_json,
            resulting_state_hash=resulting,
            undoes_seq=None,
            salt=self.salt,
        )
        event_row = (
            self.channel_id, new_version, pending.interaction_id, pending.actor_id,
            pending.verb, pack_text(pending.args_json), pack_text(pending.dice_json),
            pack_text(pending.resolution_json), new_version, resulting, None,
            pending.created_at, self.head_hash, chained,
        )  # fmt: skip
        statements: list[Statement] = [
            (
                "UPDATE games SET version = ?, status = ?, updated_at = ? "
                "WHERE channel_id = ? AND version = ?",
                (new_version, status, pending.created_at, self.channel_id, version),
            ),
            (INSERT_STATE, (self.channel_id, new_version, status, document_json)),
            (INSERT_EVENT, event_row),
        ]
        run_bytes = (0 if self.kept else self.run_bytes) + len(patch_json)
        snapshot = snapshot_due(run_bytes, len(document_json))
        statements.append(
            (
                INSERT_PATCH,
                (self.channel_id, new_version, status, patch_json, snapshot, run_bytes),
            )
        )
        if not self.kept:
            statements.append(
                (
                    "DELETE FROM states WHERE channel_id = ? AND version = ?",
                    (self.channel_id, version),
                )
            )
        self.version, self.head_hash, self.document_json = new_version, chained, document_json
        self.kept, self.run_bytes = snapshot, run_bytes
        return statements


def raw_commit(connection: sqlite3.Connection, statements: list[Statement]) -> None:
    """One transaction of the prepared statements: no checks, hashing or thread hop."""
    connection.execute("BEGIN IMMEDIATE")
    for sql, params in statements:
        connection.execute(sql, params)
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
    connection: aiosqlite.Connection, sql: str, params: tuple[Any, ...] = ()
) -> list[Any]:
    """One statement, one thread hop: aiosqlite used the plain way."""
    return list(await connection.execute_fetchall(sql, params))


async def naive_commit(
    connection: aiosqlite.Connection,
    game: RawGame,
    statements: list[Statement],
    interaction_id: str,
) -> None:
    """What the store would cost with one await (one thread hop) per statement: its guard
    SELECTs (duplicate, version, previous head) and the raw commit's statements."""
    await naive_statement(connection, "BEGIN IMMEDIATE")
    await naive_statement(
        connection, "SELECT 1 FROM events WHERE interaction_id = ?", (interaction_id,)
    )
    await naive_statement(
        connection, "SELECT version, status FROM games WHERE channel_id = ?", (game.channel_id,)
    )
    await naive_statement(
        connection,
        "SELECT e.hash, s.document FROM events AS e LEFT JOIN states AS s "
        "ON s.channel_id = e.channel_id AND s.version = e.seq "
        "WHERE e.channel_id = ? AND e.seq = ?",
        (game.channel_id, game.version - 1),  # the head before this commit
    )
    for sql, params in statements:
        await naive_statement(connection, sql, params)
    await naive_statement(connection, "COMMIT")


async def check_valid(store: SqliteStore, channel_id: int, version: int) -> None:
    """The store loads the game at ``version`` and verifies its whole export (chain, every
    version rebuilt from snapshots and patches): raises if a baseline wrote a bad row."""
    game = await store.load(channel_id)
    if game.version != version:
        raise AssertionError(f"game {channel_id} at version {game.version}, not {version}")
    await store.export(channel_id, verify=True)


async def bench_commit(
    directory: Path,
    commits: int,
    synchronous: str,
    pause_s: float,
    rng: random.Random,
    warmup: int = 30,
) -> dict[str, float]:
    """Store, naive per-statement and raw commits, interleaved one by one.

    All three write to the same file (channels 1, 2 and 3), one after the other, so they
    share one WAL and its fsyncs.
    """
    document = realistic_document(rng, 1)
    first_bytes = len(canonical_json(document).encode())
    samples: dict[str, list[float]] = {"store": [], "prepared": [], "naive": [], "raw": []}
    path = directory / f"commit-{synchronous}.db"
    async with await SqliteStore.open(path) as store:
        if synchronous != "FULL":
            # Bench only: the store always runs FULL; NORMAL exposes its software overhead.
            await store._execute(read(Query("PRAGMA synchronous = NORMAL")))
        for channel_id in (1, 2, 3, 4):  # valid games, made by the store itself
            await store.create_game(
                channel_id,
                guild_id=1,
                ruleset="manovra",
                language="it",
                document=document,
                status="active",
            )
        raw = raw_connection(path, synchronous)
        naive = await connect(str(path), isolation_level=None)
        for pragma in (f"synchronous = {synchronous}", "foreign_keys = ON"):
            await naive_statement(naive, f"PRAGMA {pragma}")
        games = {"naive": RawGame(raw, 2), "raw": RawGame(raw, 3)}
        kinds = list(samples)
        for step in range(warmup + commits):
            document = next_document(rng, document)  # the same for the three kinds
            event = realistic_event(rng, step)
            timed = step >= warmup
            # A fresh order every round: the disk's hiccups (checkpoints, journal commits)
            # fall on each kind alike instead of always on the one that comes first.
            rng.shuffle(kinds)
            for kind in kinds:
                statements: list[Statement] = []
                own = twin(event, kind)
                if kind in games:  # values made off the clock: "raw" is SQLite alone
                    statements = games[kind].commit_statements(document, prepare_event(own))
                elif kind == "prepared":  # as the service does, on its rules thread
                    ready = (store.preparer.prepare(4, document), prepare_event(own))
                await asyncio.sleep(pause_s)
                with stopwatch(samples[kind] if timed else []):
                    if kind == "store":
                        await store.commit(1, step + 1, document, event)
                    elif kind == "prepared":
                        await store.commit(4, step + 1, *ready)
                    elif kind == "naive":
                        await naive_commit(naive, games[kind], statements, str(own.interaction_id))
                    else:
                        raw_commit(raw, statements)
        await naive.close()
        raw.close()
        for channel_id in (1, 2, 3, 4):
            await check_valid(store, channel_id, warmup + commits + 1)
    result = {"document_bytes": float(first_bytes)}
    for kind, values in samples.items():
        result[f"{kind}_p50"] = percentile(values, 0.50)
        result[f"{kind}_p99"] = percentile(values, 0.99)
    return result


def populate(path: Path, games: int, rng: random.Random) -> float:
    """Insert ``games`` small, valid games with executemany: state 1, its ``game.created``
    event chained to the genesis hash, the rows digest `SqliteStore.load` checks."""
    started = time.perf_counter()
    connection = raw_connection(path)
    document_json = canonical_json({"turn": 1, "sides": {"rossi": [], "blu": []}, "pad": "x" * 200})
    resulting = state_hash(document_json, "active", None)  # written unsalted, as before 12

    def rows() -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]]:
        for offset in range(games):
            channel_id = 10**15 + offset
            guild_id = rng.randrange(100)
            # The event create_game writes (db.drivers.sqlite.SqliteStore.create_game).
            pending = system_event(
                VERB_CREATED,
                args={"ruleset": "manovra", "language": "it", "guild_id": guild_id},
                actor_id=None,
                interaction_id=None,
            )
            now = pending.created_at
            digest = rows_digest((channel_id, guild_id, "manovra", "it", now, None, None), [])
            chained = pending.chained_hash(
                GENESIS_HASH,
                channel_id=channel_id,
                version=1,
                args_json=pending.args_json,
                resulting_state_hash=resulting,
                undoes_seq=None,
                salt=None,
            )
            yield (
                (channel_id, guild_id, "manovra", "it", "active", now, now, digest),
                (channel_id, 1, "active", document_json),
                (
                    channel_id, 1, None, None, pending.verb, pack_text(pending.args_json),
                    pack_text(pending.dice_json), pack_text(pending.resolution_json), 1,
                    resulting, None, now, GENESIS_HASH, chained,
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
    connection.executemany(INSERT_GAME, [b[0] for b in batch])
    connection.executemany(INSERT_STATE, [b[1] for b in batch])
    connection.executemany(INSERT_EVENT, [b[2] for b in batch])


async def bench_load_commit(
    directory: Path,
    games: int,
    commands: int,
    pause_s: float,
    rng: random.Random,
    warmup: int = 20,
) -> dict[str, float]:
    """One command's storage work (load, then commit) on random games among ``games``."""
    path = directory / f"games-{games}.db"
    populate_s = populate(path, games, rng)
    document = realistic_document(rng, 1)
    samples: list[float] = []
    async with await SqliteStore.open(path) as store:
        channels = rng.sample(range(10**15, 10**15 + games), min(games, commands + warmup))
        for step, channel_id in enumerate(channels):
            event = realistic_event(rng, step)
            document = next_document(rng, document)
            if step >= warmup:
                await asyncio.sleep(pause_s)
            with stopwatch(samples if step >= warmup else []):
                game = await store.load(channel_id)
                await store.commit(channel_id, game.version, document, event)
        await check_valid(store, channels[-1], 2)  # a filler game, committed to once
    size_mb = path.stat().st_size / 1e6
    return {
        "games": games,
        "populate_s": populate_s,
        "file_mb": size_mb,
        "p50": percentile(samples, 0.50),
        "p99": percentile(samples, 0.99),
    }


#: The targets the run checks (module docstring).
COMMIT_TARGET = 3.0  # store commit p50 / raw p50 at synchronous=FULL
FLAT_TARGET = 1.5  # load+commit p50 with the most games / with the fewest


def verdict(value: float, target: float) -> str:
    return "met" if value <= target else "MISSED"


def report(
    commits: dict[str, dict[str, float]], scaling: list[dict[str, float]], count: int
) -> None:
    """Print the results as compact tables, each checked figure next to its target."""
    size = next(iter(commits.values()))["document_bytes"] / 1e3
    print(f"commit of one command: {count} interleaved commits each, document {size:.1f} KB")
    print(f"{'synchronous':<13}{'kind':<32}{'p50 (µs)':>9}{'p99 (µs)':>9}{'p50 / raw':>10}")
    labels = {
        "store": "SqliteStore.commit (plain doc)",
        "prepared": "SqliteStore.commit (prepared)",
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
        ratio = full["prepared_p50"] / full["raw_p50"]
        print(
            f"store commit p50 / raw p50 at synchronous=FULL, the commit prepared as the "
            f"service prepares it: {ratio:.2f}x "
            f"(target <= {COMMIT_TARGET:g}x: {verdict(ratio, COMMIT_TARGET)})"
        )
        extra = (full["store_p50"] - full["prepared_p50"]) / 1e3
        print(
            f"a plain document costs {extra:.2f} ms more: its canonical JSON, patch and "
            "event texts, made by the store on a worker thread instead"
        )
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
        print(
            f"load+commit p50 with {largest:,} games / with {smallest:,}: {growth:.2f}x "
            f"(target flat, <= {FLAT_TARGET:g}x: {verdict(growth, FLAT_TARGET)})"
        )


async def run(directory: Path, arguments: argparse.Namespace) -> None:
    """Both benchmarks, then the table."""
    rng = random.Random(arguments.seed)  # A private generator: the run is reproducible.
    pause_s = arguments.pause_ms / 1000
    commits = {
        synchronous: await bench_commit(
            directory, arguments.commits, synchronous, pause_s, rng, arguments.warmup
        )
        for synchronous in ("FULL", "NORMAL")
    }
    scaling = [
        await bench_load_commit(
            directory, games, arguments.commands, pause_s, rng, min(20, arguments.warmup)
        )
        for games in sorted(arguments.games)
    ]
    report(commits, scaling, arguments.commits)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commits", type=int, default=500, help="timed commits of each kind")
    parser.add_argument("--commands", type=int, default=300, help="timed load+commit per size")
    parser.add_argument(
        "--games",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[1_000, 100_000],
        help="comma-separated numbers of stored games (default 1000,100000)",
    )
    parser.add_argument(
        "--warmup", type=int, default=30, help="untimed commits first (load+commit: at most 20)"
    )
    parser.add_argument("--dir", help="directory for the files (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the document generator")
    parser.add_argument(
        "--pause-ms",
        type=float,
        default=5.0,
        help="idle time before each timed commit, as between players' commands (default 5)",
    )
    arguments = parser.parse_args(argv)
    if arguments.dir:
        directory = Path(arguments.dir)
        directory.mkdir(parents=True, exist_ok=True)
        app_loop.run(run(directory, arguments))
    else:
        with tempfile.TemporaryDirectory(prefix="arbitro-bench-") as temporary:
            app_loop.run(run(Path(temporary), arguments))


if __name__ == "__main__":
    main()
