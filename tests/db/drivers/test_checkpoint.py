"""WAL checkpoints run on the store's checkpoint thread, not inside a command's COMMIT.

The writer keeps its own automatic checkpoint only as a far backstop, so the database file
grows (pages copied from the WAL) only if the background thread does its work; nothing is
lost and closing still leaves no WAL behind.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from db.drivers.checkpoint import BACKSTOP_PAGES
from db.drivers.sqlite import SqliteStore
from db.models import NewEvent
from tests.db.helpers import new_game, on_store, raw_connection, sample_document


def _size(path: Path) -> int:
    return path.stat().st_size


async def test_the_wal_is_copied_in_the_background(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    try:
        pages = await on_store(store, "PRAGMA wal_autocheckpoint")
        assert pages == BACKSTOP_PAGES
        await new_game(store, 1)
        await asyncio.sleep(0.3)  # the creation's own checkpoint
        before = await asyncio.to_thread(_size, db_path)
        # About 1,200 pages of WAL: well under the writer's backstop.
        for version in range(1, 41):
            filler = [f"riga {n} {version}" for n in range(3000)]
            document = sample_document(version + 1, filler=filler)
            await store.commit(
                1, version, document, NewEvent(verb="step", interaction_id=f"c{version}")
            )
        for _ in range(50):
            if await asyncio.to_thread(_size, db_path) > before:
                break
            await asyncio.sleep(0.1)
        assert await asyncio.to_thread(_size, db_path) > before
    finally:
        await store.close()
    assert not await asyncio.to_thread(Path(f"{db_path}-wal").exists)
    reopened = await SqliteStore.open(db_path)
    try:
        assert (await reopened.load(1)).version == 41
        assert await reopened.check() == []
    finally:
        await reopened.close()


async def test_a_database_in_memory_has_no_checkpoint_thread() -> None:
    store = await SqliteStore.open(":memory:")
    try:
        assert store._checkpointer is None
        await new_game(store, 1)
    finally:
        await store.close()


def test_other_connections_still_read_what_was_committed(db_path: Path) -> None:
    async def write() -> None:
        store = await SqliteStore.open(db_path)
        try:
            await new_game(store, 2)
            await store.commit(2, 1, sample_document(2), NewEvent(verb="step"))
            reader = raw_connection(db_path)
            try:
                version = reader.execute("SELECT version FROM games WHERE channel_id = 2")
                assert version.fetchone()[0] == 2
            finally:
                reader.close()
        finally:
            await store.close()

    asyncio.run(write())


async def test_a_reader_beside_the_writer_leaves_the_checkpoints_to_it(db_path: Path) -> None:
    """The web pages' connection (`checkpoints=False`) starts no checkpoint thread: the WAL
    is the writer's to copy back (docs/web.md, "Speed")."""
    writer = await SqliteStore.open(db_path)
    try:
        await new_game(writer, 1)
        before = set(threading.enumerate())
        reader = await SqliteStore.open(db_path, create=False, migrate=False, checkpoints=False)
        try:
            assert reader._checkpointer is None
            assert (await reader.load(1)).version == (await writer.load(1)).version
            started = set(threading.enumerate()) - before
            assert not [thread for thread in started if "checkpoint" in thread.name]
        finally:
            await reader.close()
        assert writer._checkpointer is not None  # the writer still copies its WAL back
    finally:
        await writer.close()
