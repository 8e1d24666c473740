"""A game with a long log, as the issue's tester made it: a bundled scenario, then thousands
of ``/roll 100d100`` by someone without a seat (every tenth event a new turn, so the
documents change too). Written straight through the store (``synchronous=OFF`` while it
is built) in a few seconds, for the export benchmarks and the tests that measure them.

Only the store's oldest API is used (``SqliteStore.open``, ``create_game``, ``commit``), so
the same file serves the code of an earlier checkout in a comparison.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

REFEREE = 1
STRANGER = 666


async def build(
    path: Path,
    channel: int,
    events: int,
    *,
    guild: int = 1,
    scenario: str = "esempio_normandia",
    ruleset: str = "manovra",
    seed: int = 23,
) -> None:
    """Create ``channel``'s game in the SQLite file ``path`` and log ``events`` rolls."""
    from db.core.steps import Query, read
    from db.drivers.sqlite import SqliteStore
    from db.models import NewEvent
    from rules.core.ruleset import get_ruleset

    play = get_ruleset(ruleset).play
    assert play is not None
    document = play.new_game(scenario, None)
    rng = random.Random(seed)  # a private generator: the global random is never seeded
    store = await SqliteStore.open(str(path))
    try:
        await store._execute(read(Query("PRAGMA synchronous = OFF")))
        record = await store.create_game(
            channel,
            guild_id=guild,
            ruleset=ruleset,
            language="en",
            document=document,
            status="active",
            actor_id=REFEREE,
            referee_id=REFEREE,
        )
        version = record.version
        for n in range(events):
            if n % 10 == 9:
                document = {**document, "turn": int(document["turn"]) % 8 + 1}
            faces = [rng.randint(1, 100) for _ in range(100)]
            event = NewEvent(
                verb="roll",
                args={"expression": "100d100", "total": sum(faces), "by_hand": False},
                dice=[
                    {"die": "D100", "face": face, "label": "100d100", "by_hand": False}
                    for face in faces
                ],
                actor_id=STRANGER,
                interaction_id=f"flood-{channel}-{n}",
            )
            version = (await store.commit(channel, version, document, event)).version
        await store._execute(read(Query("PRAGMA synchronous = FULL")))
    finally:
        await store.close()


if __name__ == "__main__":
    import sys

    asyncio.run(build(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
