"""``arbitro db check`` and the data migrations, written once.

The audit reads every game in one snapshot and checks what a first load checks, on every
version (`db.chain.verify.verify_span`, so both name the same first bad event), plus what a load
does not: the version against the event count, the status against the current state's, the
JSONB copy of each document (PostgreSQL) and every archived game's bundle. The data
migrations (8: histories as snapshots and patches; 9: the checksum of every game's covered
rows; 11: the campaigns' checksums, covering their kind) run inside their migration's
transaction (`db.core.migrate`).
"""

from __future__ import annotations

import json
from functools import partial

from db.chain.patch import compact_history
from db.chain.verify import archive_problem, stamp_text, verify_span
from db.core.common import covered_rows_problem, decode_document, reseal
from db.core.steps import Compute, Query, Step
from db.core.verify import span_rows
from db.errors import ChainBroken, StoreError, TamperedGame

_ALL = 2**31 - 1


def channel_problems(
    channel_id: int, version: int, status: object, *, jsonb: bool
) -> Step[list[str]]:
    """Every problem of one game, one line each naming the channel."""
    prefix = f"channel {channel_id}:"
    problems: list[str] = []
    try:
        events, state_rows, patches, salt = yield from span_rows(
            channel_id, 1, _ALL, _ALL, every=True
        )
        if len(events) != version:
            problems.append(f"{prefix} version {version} but {len(events)} events")
        try:
            yield Compute(
                partial(
                    verify_span,
                    channel_id,
                    first=1,
                    last=len(events),
                    events=events,
                    full=state_rows,
                    patches=patches,
                    timestamp=stamp_text,
                    whole=True,
                    salt=salt,
                )
            )
        except ChainBroken as error:  # reported; the rows beside the chain are checked still
            problems.append(str(error))
        if jsonb:
            copies = yield Query(
                "SELECT version, document_text, document::text FROM states WHERE channel_id = ? "
                "ORDER BY version",
                (channel_id,),
                "rows",
            )
            problems += [
                f"{prefix} the JSONB copy of state {row[0]} differs from its text"
                for row in copies
                if row[2] is not None and json.loads(row[2]) != json.loads(row[1])
            ]
        current = [row for row in state_rows if int(row[0]) == version]
        if not current:
            problems.append(f"{prefix} state of the current version {version} is missing")
        elif current[0][1] != status:
            problems.append(f"{prefix} status {status!r} differs from its state's")
        else:
            decode_document(current[0][2], channel_id, version)
        # The same check, on the same rows, as a load: db check refuses what the bot does.
        tampered = yield from covered_rows_problem(channel_id)
        if tampered is not None:
            problems.append(str(TamperedGame(channel_id, tampered)))
        return problems
    except (StoreError, ValueError) as error:
        detail = f"{prefix} {error}" if f"channel {channel_id}" not in str(error) else str(error)
        return [*problems, detail]


def audit(*, jsonb: bool) -> Step[list[str]]:
    """Every game and every archived game (in the caller's read snapshot)."""
    problems: list[str] = []
    games = yield Query(
        "SELECT channel_id, version, status FROM games ORDER BY channel_id", (), "rows"
    )
    for channel_id, version, status in games:
        if type(version) is not int:
            problems.append(f"channel {channel_id}: game row is unreadable ({version=!r})")
            continue
        problems += yield from channel_problems(int(channel_id), version, status, jsonb=jsonb)
    archives = yield Query("SELECT id FROM archived_games ORDER BY id", (), "rows")
    for (archive_id,) in archives:
        row = yield Query(
            "SELECT channel_id, head_hash, bundle FROM archived_games WHERE id = ?",
            (archive_id,),
            "row",
        )
        problem = yield Compute(partial(archive_problem, archive_id, *row))
        if problem is not None:
            problems.append(problem)
    return problems


# ---- data migrations ----------------------------------------------------------------------


def seal_all_games() -> Step[None]:
    """Migration 9: give every game its checksum of members, records and settings (on its
    schema: before 11, games have no kind)."""
    rows = yield Query("SELECT channel_id FROM games", (), "rows")
    for (channel_id,) in rows:
        yield from reseal(int(channel_id), kinds=False)


def seal_campaigns() -> Step[None]:
    """Migration 11: the records it made campaigns sealed anew, their checksum now covering
    their kind (a game's checksum is unchanged: `db.chain.integrity.rows_digest`)."""
    rows = yield Query("SELECT channel_id FROM games WHERE kind = 'campaign'", (), "rows")
    for (channel_id,) in rows:
        yield from reseal(int(channel_id), salts=False)  # on schema 11: no salt yet


def compact_all_games() -> Step[None]:
    """Migration 8: every game's history as patches and snapshots.

    Each version after the first gets its patch from the previous one; the full documents
    that are neither version 1, a multiple of 16 (the snapshots of schemas 8 and 9, which
    migration 10 records) nor the head are dropped. A game whose stored
    states are incomplete or unreadable (a damaged file) keeps its full documents, so
    nothing is lost and `db check` still reports it.
    """
    games = yield Query("SELECT channel_id, version FROM games ORDER BY channel_id", (), "rows")
    for channel_id, version in games:
        stored = yield Query(
            "SELECT version, status, {document} FROM states WHERE channel_id = ? ORDER BY version",
            (channel_id,),
            "rows",
        )
        rows = [(int(row[0]), str(row[1]), str(row[2])) for row in stored]
        seqs = {
            int(row[0])
            for row in (
                yield Query("SELECT seq FROM events WHERE channel_id = ?", (channel_id,), "rows")
            )
        }
        complete = [row[0] for row in rows] == list(range(1, int(version) + 1))
        try:
            full, patches = yield Compute(
                partial(compact_history, rows if complete else [], by_size=False)
            )
        except ValueError:
            complete, full, patches = False, [], []
        if not complete or {row[0] for row in patches} - seqs:
            continue  # damaged: left as it was, for `db check` to report
        yield Query(
            "INSERT INTO patches (channel_id, version, status, patch) VALUES (?, ?, ?, ?)",
            [(channel_id, *row[:3]) for row in patches],
            many=True,
        )
        kept = {row[0] for row in full}
        yield Query(
            "DELETE FROM states WHERE channel_id = ? AND version = ?",
            [(channel_id, row[0]) for row in rows if row[0] not in kept],
            many=True,
        )


__all__ = ["audit", "channel_problems", "compact_all_games", "seal_all_games", "seal_campaigns"]
