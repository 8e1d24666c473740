"""Child process for the crash test: commit in a loop until killed.

Usage: ``python tests/db/crash_writer.py DB RUN_NUMBER SEED`` (DB: a SQLite path or a
postgresql:// URL). After each commit
returns (the moment the bot would answer the player) it prints
``ack CHANNEL VERSION INTERACTION_ID`` and flushes, so the parent knows exactly which
actions were acknowledged before its SIGKILL.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import UTC, datetime, timedelta

from db.errors import NothingToUndo
from db.models import NewEvent, Scope
from db.open import open_store
from db.protocol import GameStore

CHANNELS = (1, 2, 3)


def document(rng: random.Random, turn: int) -> dict[str, object]:
    """A document of varying size (1-40 KB) so commits span several pages."""
    return {
        "turn": turn,
        "units": [
            {"id": f"u{n}", "wounds": rng.randint(0, 3), "notes": "è" * rng.randint(0, 400)}
            for n in range(rng.randint(5, 60))
        ],
    }


async def run(path: str, run_number: int, rng: random.Random) -> None:
    async with await open_store(path) as store:
        for channel_id in CHANNELS:
            # Idempotent on a restart: the same interaction returns the existing game.
            await store.create_game(
                channel_id,
                guild_id=1,
                ruleset="manovra",
                language="it",
                document=document(rng, 0),
                interaction_id=f"create-{channel_id}",
            )
        print("ready", flush=True)
        # One writer per channel, all at once: commits of different channels arrive together
        # and share transactions (group commit), which the kills must not break either.
        await asyncio.gather(
            *(
                write_forever(store, channel_id, run_number, random.Random(rng.random()))
                for channel_id in CHANNELS
            )
        )


async def write_forever(
    store: GameStore, channel_id: int, run_number: int, rng: random.Random
) -> None:
    """Commit (or now and then undo) in ``channel_id`` until killed; print each ack."""
    for step in range(10**9):
        interaction_id = f"run{run_number}-ch{channel_id}-step{step}"
        if rng.random() < 0.1:
            try:
                result = await store.undo(channel_id, interaction_id=interaction_id)
            except NothingToUndo:
                continue
        else:
            game = await store.load(channel_id)
            result = await store.commit(
                channel_id,
                game.version,
                document(rng, game.version),
                NewEvent(
                    verb="advance",
                    args={"step": step},
                    dice=[rng.randint(1, 10)],
                    interaction_id=interaction_id,
                ),
            )
        print(f"ack {channel_id} {result.version} {interaction_id}", flush=True)
        # A feature's records beside the log: a sealed one (its put and the game's checksum
        # in one transaction: a kill leaves both or neither, which `check` sees) and a claim.
        scope = Scope.of_game(channel_id)
        due = datetime(2031, 1, 1, tzinfo=UTC) + timedelta(minutes=step)
        await store.feature_put(
            "crash", scope, f"k{step % 7}", {"step": step}, due_at=due, sealed=True
        )
        await store.feature_put("claim", scope, f"c{step}", {}, if_absent=True)


def main() -> None:
    path, run_number, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    asyncio.run(run(path, run_number, random.Random(seed)))


if __name__ == "__main__":
    main()
