"""Many coroutines committing at once: no lost update, every conflict reported."""

from __future__ import annotations

import asyncio
from collections import Counter

from db.drivers.sqlite import SqliteStore
from db.errors import VersionConflict
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.helpers import new_game

CHANNELS = range(1000, 1010)
COMMITS_PER_CHANNEL = 20  # 10 channels x 20 = 200
HOT_CHANNEL = 2000
HOT_COMMITS = 50


class Tally:
    """What the workers saw, for the assertions."""

    def __init__(self) -> None:
        self.attempts: Counter[int] = Counter()
        self.conflicts: Counter[int] = Counter()
        self.successes: Counter[int] = Counter()


async def worker(store: SqliteStore, channel_id: int, worker_id: int, tally: Tally) -> None:
    """Read-modify-write one increment, retrying on conflict as the service would."""
    for attempt in range(500):
        game = await store.load(channel_id)
        document = game.document
        document["counter"] += 1
        document["applied"].append(worker_id)
        # Yield between read and write so other workers interleave and really conflict.
        await asyncio.sleep(0)
        tally.attempts[channel_id] += 1
        try:
            await store.commit(
                channel_id,
                game.version,
                document,
                NewEvent(
                    verb="tick",
                    args={"worker": worker_id},
                    interaction_id=f"{channel_id}:{worker_id}:{attempt}",
                ),
            )
        except VersionConflict as conflict:
            assert conflict.channel_id == channel_id
            assert conflict.expected == game.version
            assert conflict.actual > game.version
            tally.conflicts[channel_id] += 1
            continue
        tally.successes[channel_id] += 1
        return
    raise AssertionError(f"worker {worker_id} starved on channel {channel_id}")


async def assert_channel_consistent(
    store: SqliteStore, channel_id: int, workers: int, tally: Tally
) -> None:
    game = await store.load(channel_id)
    events = await store.events(channel_id, limit=1000)
    assert game.version == len(events) == workers + 1  # + the creation event
    assert tally.successes[channel_id] == workers
    assert tally.attempts[channel_id] == workers + tally.conflicts[channel_id]
    # No lost update: every increment that was acknowledged is in the document.
    assert game.document["counter"] == workers
    assert sorted(game.document["applied"]) == list(range(workers))
    assert sorted(event.args["worker"] for event in events[1:]) == list(range(workers))


async def test_concurrent_commits_over_many_channels_and_one_hot_channel(
    store: SqliteStore,
) -> None:
    for channel_id in [*CHANNELS, HOT_CHANNEL]:
        await new_game(store, channel_id, document={"counter": 0, "applied": []})
    tally = Tally()
    jobs = [
        worker(store, channel_id, worker_id, tally)
        for channel_id in CHANNELS
        for worker_id in range(COMMITS_PER_CHANNEL)
    ]
    jobs += [worker(store, HOT_CHANNEL, worker_id, tally) for worker_id in range(HOT_COMMITS)]
    outcomes = await asyncio.gather(*jobs, return_exceptions=True)

    leaked = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert leaked == []
    for channel_id in CHANNELS:
        await assert_channel_consistent(store, channel_id, COMMITS_PER_CHANNEL, tally)
    await assert_channel_consistent(store, HOT_CHANNEL, HOT_COMMITS, tally)
    assert tally.conflicts[HOT_CHANNEL] > 0  # The guard was exercised, not bypassed.
    assert await store.check() == []


async def test_two_connections_writing_one_channel(backend: Backend) -> None:
    """Two stores on one database (like two processes): the lock + the version guard."""
    async with (
        await backend.open() as first,
        await backend.open() as second,
    ):
        await new_game(first, HOT_CHANNEL, document={"counter": 0, "applied": []})
        tally = Tally()
        stores = (first, second)
        outcomes = await asyncio.gather(
            *(worker(stores[n % 2], HOT_CHANNEL, n, tally) for n in range(HOT_COMMITS)),
            return_exceptions=True,
        )
        assert [o for o in outcomes if isinstance(o, BaseException)] == []
        await assert_channel_consistent(second, HOT_CHANNEL, HOT_COMMITS, tally)
        assert await first.check() == []


async def test_conflicts_without_retry_are_all_reported(store: SqliteStore) -> None:
    """Everyone commits against the same version once: exactly one wins, the rest conflict."""
    await new_game(store, 3000, document={"counter": 0, "applied": []})
    results = await asyncio.gather(
        *(
            store.commit(3000, 1, {"counter": 1, "applied": [n]}, NewEvent(verb="tick"))
            for n in range(30)
        ),
        return_exceptions=True,
    )
    winners = [r for r in results if not isinstance(r, BaseException)]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert len(winners) == 1
    assert len(conflicts) == 29
    assert all((c.expected, c.actual) == (1, 2) for c in conflicts)
    assert (await store.load(3000)).version == 2
