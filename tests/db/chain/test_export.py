"""Exports written as the history is read, and archives kept compact, on both backends.

The streamed bundle must be the very bundle `GameStore.export` describes (same content,
verifiable), checked on the way (a tampered event or state leaves no file), in memory that
does not grow with the game, and an archived game must come back as the same bundle.
"""

from __future__ import annotations

import json
import random
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

from bot.service.export import slim
from db.chain.archive import ARCHIVE_FORMAT, read_archive
from db.chain.export import export_game, history_pages, write_bundle
from db.chain.hashing import canonical_json, verify_export
from db.chain.patch import SNAPSHOT_EVERY, compact_history
from db.errors import ChainBroken
from db.models import NewEvent
from tests.db.helpers import new_game, sample_document

CHANNEL = 31


async def play(
    store: Any, channel: int, commands: int, *, end: bool = False, bulk: int = 0
) -> None:
    """A game with ``commands`` events after its creation: documents that change, rolls
    that do not, an undo; past a snapshot version. ``bulk``: KB of varied text the
    documents carry besides (a large battlefield, as zlib cannot fold it into the last)."""
    filler = random.Random(channel).randbytes(bulk * 512).hex()
    version = await new_game(store, channel, document=sample_document(filler=filler))
    for n in range(commands):
        document = sample_document(
            turn=1 + n // 3, log=[f"shot {k}" for k in range(n % 7)], filler=filler
        )
        event = NewEvent(
            verb="fire" if n % 4 else "roll",
            args={"unit": "squadra_1", "n": n, "note": "à la guerre"},
            dice=[{"die": "D10", "face": 1 + n % 10, "label": "hit"}],
            resolution=[{"outcome": "hit", "odds": [n, 0.25, 1e-05]}],
            actor_id=7,
        )
        version = (await store.commit(channel, version, document, event)).version
        if n == commands // 2:
            version = (await store.undo(channel, expected_version=version)).version
    if end:
        await store.end_game(channel, expected_version=version)


def without_time(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "exported_at"}


async def test_the_streamed_export_is_the_bundle_the_store_describes(store, tmp_path):
    await play(store, CHANNEL, 2 * SNAPSHOT_EVERY + 5)
    whole = (await store.export(CHANNEL)).to_json_dict()
    summary = await export_game(store, CHANNEL, tmp_path / "all.json", keep="all")
    everything = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))
    assert without_time(everything) == without_time(whole)
    assert verify_export(everything) == summary.head_hash == whole["head_hash"]
    assert summary.events == len(whole["events"])
    await export_game(store, CHANNEL, tmp_path / "slim.json", keep="first_and_current")
    first_and_current = json.loads((tmp_path / "slim.json").read_text(encoding="utf-8"))
    assert without_time(first_and_current) == without_time(slim(whole))
    assert verify_export(first_and_current) == whole["head_hash"]
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(
    ("table", "change"),
    [
        (
            "events",
            'UPDATE events SET args = \'{"unit":"other"}\' WHERE channel_id = 31 AND seq = 20',
        ),
        (
            "patches",
            "UPDATE patches SET patch = '[[[\"turn\"],99]]' WHERE channel_id = 31 AND version = 21",
        ),
    ],
)
async def test_a_tampered_history_fails_the_export_and_leaves_no_file(
    backend, store, tmp_path, table, change
):
    await play(store, CHANNEL, 30)
    await backend.tamper(change)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ChainBroken):
        await export_game(store, CHANNEL, out / "game.json", keep="all")
    assert list(out.iterdir()) == []


async def test_the_export_reads_the_history_as_it_was_when_it_began(store, tmp_path):
    """Another process may commit between two pages: the export still shows the game as
    its head said, though that commit dropped the head's whole document."""
    await play(store, CHANNEL, 20)
    head = await store.export_head(CHANNEL)
    record = await store.load(CHANNEL)
    await store.commit(CHANNEL, record.version, sample_document(turn=99), NewEvent(verb="advance"))
    target = tmp_path / "then.json"
    await write_bundle(
        head, history_pages(store, CHANNEL, head.version), target, keep="first_and_current"
    )
    data = json.loads(target.read_text(encoding="utf-8"))
    assert verify_export(data) == head.head_hash and len(data["events"]) == head.version


async def test_archives_are_stored_compact_and_come_back_as_the_same_bundle(
    backend, store, tmp_path
):
    await play(store, CHANNEL, 3 * SNAPSHOT_EVERY, end=True, bulk=40)
    whole = (await store.export(CHANNEL)).to_json_dict()
    entry = await store.archive_game(CHANNEL, title="Normandia")
    assert entry.head_hash == whole["head_hash"] and entry.version == len(whole["events"])
    stored = await backend_blob(backend, entry.id)
    text = zlib.decompress(stored)
    assert text.startswith(ARCHIVE_FORMAT.encode() + b"\n")
    # Every version's whole document is not there: version 1 and the snapshots only (and
    # the head's), as a live game keeps them.
    lines = [json.loads(line) for line in text.split(b"\n")[1:] if line]
    kept = [item["e"]["seq"] for item in lines[1:] if item["s"] is not None]
    texts = [(s["version"], s["status"], canonical_json(s["document"])) for s in whole["states"]]
    layout = [row[0] for row in compact_history(texts)[0]]
    assert kept == layout[:-1] and layout[-1] == len(whole["events"])
    assert len(kept) < len(whole["events"]) / 8  # small changes to large documents
    # What an archive took before: every state whole. zlib folds a state into the one
    # before it only within its 32 KB window; these documents are larger, as a big
    # battlefield's are.
    everything = canonical_json(whole).encode()
    before = zlib.compress(everything, 6)
    assert len(text) < len(everything) / 5, (len(text), len(everything))
    assert len(stored) < len(before) / 5, (len(stored), len(before))
    # Read back whole (a copy between stores) and page by page (an export): the same game.
    assert without_time(await store.archived_export(entry.id)) == without_time(whole)
    head, pages = await read_archive(store, entry.id)
    await write_bundle(head, pages, tmp_path / "archived.json", keep="first_and_current")
    exported = json.loads((tmp_path / "archived.json").read_text(encoding="utf-8"))
    assert without_time(exported) == without_time(slim(whole))
    assert verify_export(exported) == entry.head_hash


async def test_an_archive_of_an_older_release_is_still_read(backend, store, tmp_path):
    """Before arbitro.archive/2 an archive kept the whole export bundle, every state."""
    await play(store, CHANNEL, 10, end=True)
    whole = (await store.export(CHANNEL)).to_json_dict()
    entry = await store.archive_game(CHANNEL, title="old")
    old = zlib.compress(canonical_json(whole).encode("utf-8"), 6)
    await store.close()
    # backend.tamper sets the append-only guards aside, as a tamperer (or an old release's
    # row) would have it.
    if backend.name == "postgres":
        await backend.tamper(
            f"UPDATE archived_games SET bundle = decode('{old.hex()}', 'hex') "
            f"WHERE id = {entry.id}",
        )
    else:
        await backend.tamper(
            f"UPDATE archived_games SET bundle = x'{old.hex()}' WHERE id = {entry.id}",
        )
    reopened = await backend.open()
    try:
        assert await reopened.archived_export(entry.id) == whole
        head, pages = await read_archive(reopened, entry.id)
        await write_bundle(head, pages, tmp_path / "old.json", keep="all")
        exported = json.loads((tmp_path / "old.json").read_text(encoding="utf-8"))
        assert without_time(exported) == without_time(whole)
    finally:
        await reopened.close()


async def backend_blob(backend: Any, archive_id: int) -> bytes:
    if backend.name == "postgres":
        import asyncpg

        connection = await asyncpg.connect(backend.url)
        try:
            return bytes(
                await connection.fetchval(
                    "SELECT bundle FROM archived_games WHERE id = $1", archive_id
                )
            )
        finally:
            await connection.close()
    from tests.db.helpers import raw_connection

    connection = raw_connection(Path(backend.url))
    try:
        row = connection.execute(
            "SELECT bundle FROM archived_games WHERE id = ?", (archive_id,)
        ).fetchone()
        return bytes(row[0])
    finally:
        connection.close()


async def peak_of_export(store: Any, channel: int, path: Path) -> int:
    tracemalloc.start()
    try:
        await export_game(store, channel, path, keep="all")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def test_an_exports_memory_does_not_grow_with_the_game(sqlite_store, tmp_path):
    """A proportional check (bench/bench_export.py runs 10,000 events): an export of a
    game four times as long needs no more memory."""
    store = sqlite_store
    await play(store, 1, 300)
    await play(store, 2, 1200)
    short = await peak_of_export(store, 1, tmp_path / "short.json")
    long = await peak_of_export(store, 2, tmp_path / "long.json")
    assert (tmp_path / "long.json").stat().st_size > 3.5 * (tmp_path / "short.json").stat().st_size
    assert long < short * 1.5 + 256 * 1024, (short, long)
    assert long < 8 * 1024 * 1024
