"""Every version of a game played through the service is kept, in a few bytes per event.

A whole game of each bundled scenario of the four rulesets is played by the fuzzer
(tests/fuzz/harness.py) on a real SQLite file, through a store that notes the document it
holds after every write. Afterwards every version read back — `state_at` (nearest snapshot
plus patches, checked against the chain) and the export — must be that document, byte for
byte; `states` must hold full documents only at version 1, the versions recorded as
snapshots (where the patches since the last one outgrew half a document) and the head;
and the bytes stored per event (events + states + patches, SQLite's own payload count)
must stay within the issue 12 budget of 3 KB.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import tests.fuzz.harness as harness
from db.chain.hashing import canonical_json
from db.chain.patch import SNAPSHOT_EVERY, compact_history
from db.drivers.sqlite import SqliteStore
from tests.fuzz.harness import CHANNEL, bundled_games, fuzz

#: Issue 12 item 3: at most this many bytes stored per event on the bundled scenarios.
BUDGET_PER_EVENT = 3 * 1024
HISTORY_TABLES = ("events", "states", "patches")


class RecordingStore(SqliteStore):
    """A store that notes the current document after each write, as it was stored."""

    documents: dict[int, str]

    async def _note(self, channel_id: int) -> None:
        record = await self.load(channel_id)
        self.documents[record.version] = canonical_json(record.document)

    async def create_game(self, channel_id: int, **options: Any) -> Any:
        result = await super().create_game(channel_id, **options)
        await self._note(channel_id)
        return result

    async def commit(self, channel_id: int, *args: Any, **options: Any) -> Any:
        result = await super().commit(channel_id, *args, **options)
        await self._note(channel_id)
        return result

    async def end_game(self, channel_id: int, **options: Any) -> Any:
        result = await super().end_game(channel_id, **options)
        await self._note(channel_id)
        return result

    async def undo(self, channel_id: int, **options: Any) -> Any:
        result = await super().undo(channel_id, **options)
        await self._note(channel_id)
        return result


def stored_bytes(path: Path) -> dict[str, int]:
    """Payload bytes of each history table and its indexes (SQLite's dbstat)."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT coalesce(m.tbl_name, d.name), sum(d.payload) FROM dbstat AS d "
            "LEFT JOIN sqlite_master AS m ON m.name = d.name GROUP BY 1"
        ).fetchall()
    finally:
        connection.close()
    return {str(name): int(size) for name, size in rows if name in HISTORY_TABLES}


@pytest.mark.parametrize(("ruleset", "scenario"), bundled_games())
async def test_every_version_rebuilds_and_an_event_stays_small(
    ruleset: str, scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents: dict[int, str] = {}
    monkeypatch.setattr(RecordingStore, "documents", documents, raising=False)
    monkeypatch.setattr(harness, "SqliteStore", RecordingStore)
    run = await fuzz(ruleset, scenario, 1, tmp_path, max_turns=50, max_commands=400)
    assert not run.failures, "\n".join(run.failures)
    path = tmp_path / f"fuzz-{ruleset}-{scenario}-1.db"

    async with await SqliteStore.open(path) as store:
        head = (await store.load(CHANNEL)).version
        assert head > SNAPSHOT_EVERY, f"{ruleset}/{scenario}: only {head} versions played"
        assert sorted(documents) == list(range(1, head + 1))
        for version in range(1, head + 1):
            state = await store.state_at(CHANNEL, version)
            assert canonical_json(state.document) == documents[version], version
        bundle = await store.export(CHANNEL)
        assert [canonical_json(s.document) for s in bundle.states] == [
            documents[version] for version in range(1, head + 1)
        ]

    connection = sqlite3.connect(path)
    try:
        kept = [row[0] for row in connection.execute("SELECT version FROM states ORDER BY 1")]
        patches = connection.execute("SELECT count(*) FROM patches").fetchone()[0]
    finally:
        connection.close()
    # No full document per event: version 1, the snapshots chosen by size (as a copy of
    # the game would choose them) and the head only.
    history = [(v, "", documents[v]) for v in range(1, head + 1)]  # no status changes it
    assert kept == [row[0] for row in compact_history(history)[0]]
    assert len(kept) < head / 4
    assert patches == head - 1

    sizes = stored_bytes(path)
    per_event = sum(sizes.values()) / head
    whole_documents = sum(len(text.encode()) for text in documents.values()) / head
    print(
        f"\n{ruleset}/{scenario}: {head} events, {per_event:.0f} B stored per event "
        f"({sizes}); a whole document per event would add {whole_documents:.0f} B"
    )
    assert per_event <= BUDGET_PER_EVENT, f"{ruleset}/{scenario}: {per_event:.0f} B per event"
