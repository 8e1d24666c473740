"""The embedded store: one SQLite file driven through one dedicated connection thread.

Every public operation is one function run on the connection's thread (one thread
hop), and every write is one ``BEGIN IMMEDIATE … COMMIT`` inside it. Per-statement awaits
would cost more than the write itself, and doing the whole transaction on the database
thread means a cancelled caller can never leave a transaction half-done: the function runs
to COMMIT or ROLLBACK regardless, and a retry with the same interaction id finds the result.

The store does not lock channels: the application core serializes a channel's commands
with its own lock, and the store guards every write with the version the caller read
(``VersionConflict`` if it moved), which also covers other processes writing the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import operator
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from db import migrations
from db.archive import archive_row, bundle_of, encode_bundle
from db.chain import (
    EVENT_MISSING,
    VerifiedChains,
    VerifiedHead,
    archive_problem,
    check_event_page,
    check_event_row,
    first_to_verify,
    stamp_text,
    verify_span,
)
from db.checkpoint import BACKSTOP_PAGES, Checkpointer
from db.errors import (
    ArchiveNotFound,
    ChainBroken,
    CorruptRecord,
    DamagedFile,
    GameEnded,
    GameExists,
    GameNotEnded,
    GameNotFound,
    InteractionReused,
    NothingToUndo,
    SchemaError,
    StoreError,
    StoreUnavailable,
    TamperedGame,
    VersionConflict,
)
from db.hashing import (
    GENESIS_HASH,
    canonical_json,
    encode_document,
    parse_canonical,
    state_hash,
    verify_chain,
)
from db.history import (
    PAGE_VERSIONS,
    VERSION_COLUMNS,
    ExportHead,
    StoredVersion,
    stored_version_from_row,
)
from db.integrity import (
    STATE_EDITED,
    covered_digests,
    head_problem,
    head_row_agrees,
    rows_problem,
)
from db.models import (
    GAME_STATUSES,
    MEMBER_ROLES,
    RESERVED_VERBS,
    VERB_CREATED,
    VERB_ENDED,
    VERB_UNDO,
    ArchivedGame,
    CommandContext,
    CommitResult,
    Deadline,
    EventRecord,
    ExportBundle,
    GameRecord,
    GameStatus,
    GameSummary,
    JsonObject,
    Member,
    MemberRole,
    NewEvent,
    PendingRoll,
    PreparedState,
    StateRecord,
    format_timestamp,
    parse_timestamp,
    utc_now,
)
from db.patch import (
    compact_history,
    history_states,
    is_snapshot,
    make_patch,
)
from db.prepare import CommitPreparer, PreparedEvent, prepare_event, stable_json, system_event
from db.protocol import Document
from db.rows import ARCHIVE_COLUMNS as _ARCHIVE_COLUMNS
from db.rows import CHILD_TABLES as _CHILD_TABLES
from db.rows import archive_from_row as _archive_from_row
from db.rows import check_status as _check_status
from db.rows import deadline_from_row as _deadline_from_row
from db.rows import event_from_row as _event_from_row
from db.rows import member_from_row as _member_from_row
from db.rows import pack_text, summaries_from_rows
from db.rows import summary_from_row as _summary_from_row
from db.worker import DatabaseThread, WorkerClosed, grouped

DEFAULT_DB_PATH = "arbitro.db"

DEFAULT_BUSY_TIMEOUT_MS = 5_000
#: KB of SQLite's page cache for the store's connection (`configure_connection`).
PAGE_CACHE_KB = 1024
MAX_EVENTS_PAGE = 1_000

_T = TypeVar("_T")

_EVENT_COLUMNS = (
    "channel_id, seq, interaction_id, actor_id, verb, args, dice, resolution, "
    "state_version, state_hash, undoes_seq, created_at, prev_hash, hash"
)
_GAME_COLUMNS = "channel_id, guild_id, ruleset, language, status, version, created_at, updated_at"
_INSERT_STATE = "INSERT INTO states (channel_id, version, status, document) VALUES (?, ?, ?, ?)"
_INSERT_EVENT = f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES ({', '.join('?' * 14)})"
_INSERT_PATCH = "INSERT INTO patches (channel_id, version, status, patch) VALUES (?, ?, ?, ?)"


# --------------------------------------------------------------------------------------
# Encoding and decoding rows
# --------------------------------------------------------------------------------------


def _decode_document(text: object, channel_id: int, version: int) -> JsonObject:
    if not isinstance(text, str):
        raise CorruptRecord(channel_id, f"document of version {version} is not text")
    try:
        value = parse_canonical(text)
    except ValueError as error:
        raise CorruptRecord(
            channel_id, f"document of version {version} is not valid JSON ({error})"
        ) from error
    if not isinstance(value, dict):
        raise CorruptRecord(channel_id, f"document of version {version} is not a JSON object")
    return value


# --------------------------------------------------------------------------------------
# Transactions (each runs whole on the database thread)
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def _write_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception.

    IMMEDIATE takes the write lock up front, so the version read inside cannot be changed
    by another connection before our UPDATE: the check and the write are one step.

    Inside a transaction already open (the worker's group commit: it opened BEGIN
    IMMEDIATE for several jobs) it only runs the body; the worker commits, or, if the body
    raised after writing, rolls the group back and runs each of its jobs again alone.
    """
    if grouped():
        yield
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            # The original error matters more than a failed rollback (e.g. on a dead disk).
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
        raise


@contextlib.contextmanager
def _read_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """A consistent snapshot across several SELECTs, even while other processes write."""
    connection.execute("BEGIN")
    try:
        yield
    finally:
        if connection.in_transaction:
            connection.execute("COMMIT")


def _event_by_interaction(
    connection: sqlite3.Connection, interaction_id: str
) -> EventRecord | None:
    row = connection.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE interaction_id = ?", (interaction_id,)
    ).fetchone()
    if row is None:
        return None
    check_event_row(int(row[0]), row, None, stamp_text)  # shown again: not edited since
    return _event_from_row(row)


def _duplicate_of(
    connection: sqlite3.Connection, channel_id: int, interaction_id: str | None
) -> CommitResult | None:
    """The earlier result of this interaction, if it was already committed."""
    if interaction_id is None:
        return None
    existing = _event_by_interaction(connection, interaction_id)
    if existing is None:
        return None
    if existing.channel_id != channel_id:
        raise InteractionReused(channel_id, interaction_id, existing.channel_id)
    return CommitResult(existing, duplicate=True)


def _insert_event(
    connection: sqlite3.Connection,
    *,
    channel_id: int,
    version: int,
    prev_hash: str,
    pending: PreparedEvent,
    args_json: str,
    document_json: str,
    status: GameStatus,
    undoes_seq: int | None,
    patch_json: str | None = None,
) -> EventRecord:
    """Insert state ``version``, the event that produced it and its patch from the
    previous version (None for version 1); return the stored event.

    The previous version's full document is the caller's to drop (`_append_tx`).
    """
    resulting_state_hash, chained_hash = pending.hashes(
        prev_hash,
        channel_id=channel_id,
        version=version,
        args_json=args_json,
        document_json=document_json,
        status=status,
        undoes_seq=undoes_seq,
    )
    connection.execute(_INSERT_STATE, (channel_id, version, status, document_json))
    connection.execute(
        _INSERT_EVENT,
        (
            channel_id,
            version,
            pending.interaction_id,
            pending.actor_id,
            pending.verb,
            pack_text(args_json),
            pack_text(pending.dice_json),
            pack_text(pending.resolution_json),
            version,
            resulting_state_hash,
            undoes_seq,
            pending.created_at,
            prev_hash,
            chained_hash,
        ),
    )
    if patch_json is not None:
        # After the event: the patch row refers to it.
        connection.execute(_INSERT_PATCH, (channel_id, version, status, patch_json))
    return pending.record(
        channel_id=channel_id,
        version=version,
        args_json=args_json,
        resulting_state_hash=resulting_state_hash,
        undoes_seq=undoes_seq,
        created_at=parse_timestamp(pending.created_at),
        prev_hash=prev_hash,
        chained_hash=chained_hash,
    )


# ---- the checksum of members, deadlines and the game's settings (db/integrity.py) --------

# One statement, so one consistent snapshot, reading every covered row of a game through
# the primary keys (all three tables are keyed by channel first).
_COVERED_ROWS = (
    "SELECT 2, channel_id, ruleset, language, created_at, NULL, guild_id, rows_digest "
    "FROM games WHERE channel_id = ? "
    "UNION ALL SELECT 0, user_id, role, side, joined_at, NULL, NULL, NULL "
    "FROM members WHERE channel_id = ? "
    "UNION ALL SELECT 1, NULL, NULL, side, due_at, set_at, NULL, NULL "
    "FROM deadlines WHERE channel_id = ?"
)


def _covered(connection: sqlite3.Connection, channel_id: int) -> tuple[object, str] | None:
    rows = connection.execute(_COVERED_ROWS, (channel_id, channel_id, channel_id)).fetchall()
    return covered_digests(rows)


def _reseal(connection: sqlite3.Connection, channel_id: int) -> None:
    """Refresh the game's checksum of members, deadlines and settings, inside the caller's
    write transaction.

    EVERY write of ``members``, ``deadlines`` or a covered ``games`` column (guild,
    ruleset, language, created_at) must call it before committing, or the next load sees
    the game as tampered. The writers: `_create_tx`, `_add_member_tx`,
    `_remove_member_tx`, `_set_deadline_tx`, `_clear_deadline_tx`, `_restore_tx`.
    """
    digests = _covered(connection, channel_id)
    if digests is not None:
        connection.execute(
            "UPDATE games SET rows_digest = ? WHERE channel_id = ?", (digests[1], channel_id)
        )


def _covered_rows_problem(connection: sqlite3.Connection, channel_id: int) -> str | None:
    """Why the game's covered rows do not match their checksum (None: they do)."""
    digests = _covered(connection, channel_id)
    return None if digests is None else rows_problem(*digests)


def _verify_head(
    connection: sqlite3.Connection, channel_id: int, version: int, document: str, status: str
) -> None:
    """Raise `TamperedGame` if the current state or the latest event was edited outside
    the store: the head of the chain checked against them (``db.integrity.head_problem``)."""
    row = connection.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = ? AND seq = ?",
        (channel_id, version),
    ).fetchone()
    if row is not None and head_row_agrees(document, status, row, str(row[11])):
        return
    try:
        head = None if row is None else _event_from_row(row)
    except CorruptRecord as error:
        raise TamperedGame(channel_id, error.detail) from error
    problem = head_problem(document, status, head)
    if problem is not None:
        raise TamperedGame(channel_id, problem)


def _verify_covered_rows(connection: sqlite3.Connection, channel_id: int) -> None:
    """Raise `TamperedGame` if members, deadlines or settings were edited outside the store.

    Called by `_load_tx`; one indexed query.
    """
    problem = _covered_rows_problem(connection, channel_id)
    if problem is not None:
        raise TamperedGame(channel_id, problem)


# ---- the chain of each game, verified once per process then incrementally (db/chain.py) ---

_CHAIN_HEAD = (
    "SELECT g.created_at, g.version, e.hash FROM games AS g "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "WHERE g.channel_id = ?"
)


def _text_rows(cursor: sqlite3.Cursor) -> list[tuple[int, str, str]]:
    """``(version, status, text)`` rows; one whose version is not a number is left out
    (its version then counts as missing)."""
    return [(row[0], str(row[1]), str(row[2])) for row in cursor if type(row[0]) is int]


def _span_rows(
    connection: sqlite3.Connection,
    channel_id: int,
    first: int,
    last: int,
    upto: int,
    *,
    every: bool,
    documents: bool = True,
) -> tuple[list[Any], list[tuple[int, str, str]], list[tuple[int, str, str]]]:
    """The event rows ``first``..``last``, the whole documents (unless ``documents`` is
    false) and the patches of versions ``first``..``upto`` (``every``: all the game's)."""
    events = connection.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = ? AND seq BETWEEN ? AND ? "
        "ORDER BY seq",
        (channel_id, first, last),
    ).fetchall()
    low, high = (-(2**62), 2**62) if every else (first, upto)
    full: list[tuple[int, str, str]] = []
    if documents:
        full = _text_rows(
            connection.execute(
                "SELECT version, status, document FROM states "
                "WHERE channel_id = ? AND version BETWEEN ? AND ? ORDER BY version",
                (channel_id, low, high),
            )
        )
    patches = _text_rows(
        connection.execute(
            "SELECT version, status, patch FROM patches "
            "WHERE channel_id = ? AND version BETWEEN ? AND ? ORDER BY version",
            (channel_id, low if every else first + 1, high),
        )
    )
    return events, full, patches


def _verified_up_to(
    connection: sqlite3.Connection, channel_id: int, chains: VerifiedChains, stored: VerifiedHead
) -> None:
    """Make ``stored`` (the game's head as read in this transaction) a head this process
    verified: the whole history the first time, else from the snapshot below the head
    verified before (`db.chain.first_to_verify`); `ChainBroken` at the first bad event."""
    known = chains.head(channel_id)
    first = first_to_verify(channel_id, known, stored)
    if first is None:
        return
    refused = chains.refusal(channel_id, stored)
    if refused is not None:
        raise refused
    anchor = known if known is not None and known.game == stored.game else None
    events, full, patches = _span_rows(
        connection, channel_id, first, stored.seq, stored.seq, every=anchor is None
    )
    snapshots: dict[int, str] = {}
    try:
        verify_span(
            channel_id,
            first=first,
            last=stored.seq,
            events=events,
            full=full,
            patches=patches,
            timestamp=stamp_text,
            anchor=anchor,
            whole=anchor is None,
            snapshots=snapshots,
        )
    except ChainBroken as error:
        chains.refuse(channel_id, stored, error)
        raise
    chains.remember(channel_id, stored, snapshots)


def _verified_head(
    connection: sqlite3.Connection, channel_id: int, chains: VerifiedChains
) -> VerifiedHead:
    """The game's head, verified (inside the caller's transaction)."""
    row = connection.execute(_CHAIN_HEAD, (channel_id,)).fetchone()
    if row is None:
        raise GameNotFound(channel_id)
    if type(row[1]) is not int:
        raise CorruptRecord(channel_id, f"game row is unreadable (version {row[1]!r})")
    if row[2] is None:
        raise ChainBroken(channel_id, row[1], EVENT_MISSING)
    stored = VerifiedHead(stamp_text(row[0]), row[1], str(row[2]))
    if not chains.matches(channel_id, stored.game, stored.seq, stored.hash):
        _verified_up_to(connection, channel_id, chains, stored)
    return stored


def compact_all_games(connection: sqlite3.Connection) -> None:
    """Migration 8, in its transaction: every game's history as patches and snapshots.

    Each version after the first gets its patch from the previous one; the full documents
    that are neither version 1, a snapshot nor the head are dropped. A game whose stored
    states are incomplete or unreadable (a damaged file) keeps its full documents and gets
    the patches that can be computed, so nothing is lost and `db check` still reports it.
    """
    games = connection.execute(
        "SELECT channel_id, version FROM games ORDER BY channel_id"
    ).fetchall()
    for channel_id, version in games:
        rows = [
            (int(row[0]), str(row[1]), str(row[2]))
            for row in connection.execute(
                "SELECT version, status, document FROM states WHERE channel_id = ? "
                "ORDER BY version",
                (channel_id,),
            )
        ]
        seqs = {
            int(row[0])
            for row in connection.execute(
                "SELECT seq FROM events WHERE channel_id = ?", (channel_id,)
            )
        }
        complete = [row[0] for row in rows] == list(range(1, int(version) + 1))
        try:
            full, patches = compact_history(rows if complete else [])
        except ValueError:
            complete, full, patches = False, [], []
        if not complete or {row[0] for row in patches} - seqs:
            continue  # damaged: left as it was, for `db check` to report
        connection.executemany(_INSERT_PATCH, [(channel_id, *row) for row in patches])
        kept = {row[0] for row in full}
        connection.executemany(
            "DELETE FROM states WHERE channel_id = ? AND version = ?",
            [(channel_id, row[0]) for row in rows if row[0] not in kept],
        )


def seal_all_games(connection: sqlite3.Connection) -> None:
    """Give every game its checksum; migration 6 runs it in its own transaction."""
    for (channel_id,) in connection.execute("SELECT channel_id FROM games").fetchall():
        _reseal(connection, int(channel_id))


def _create_tx(
    connection: sqlite3.Connection,
    *,
    channel_id: int,
    guild_id: int | None,
    ruleset: str,
    language: str,
    status: GameStatus,
    document_json: str,
    pending: PreparedEvent,
    referee_id: int | None = None,
) -> CommitResult:
    with _write_transaction(connection):
        duplicate = _duplicate_of(connection, channel_id, pending.interaction_id)
        if duplicate is not None:
            return duplicate
        exists = connection.execute(
            "SELECT 1 FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        if exists is not None:
            raise GameExists(channel_id)
        connection.execute(
            f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (
                channel_id,
                guild_id,
                ruleset,
                language,
                status,
                pending.created_at,
                pending.created_at,
            ),
        )
        event = _insert_event(
            connection,
            channel_id=channel_id,
            version=1,
            prev_hash=GENESIS_HASH,
            pending=pending,
            args_json=pending.args_json,
            document_json=document_json,
            status=status,
            undoes_seq=None,
        )
        if referee_id is not None:
            # In the same transaction: a game never exists without its referee.
            connection.execute(
                "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                "VALUES (?, ?, 'referee', NULL, ?)",
                (channel_id, referee_id, pending.created_at),
            )
        _reseal(connection, channel_id)
    return CommitResult(event)


@dataclass(frozen=True, slots=True)
class _NextState:
    """What a write turns the game into, decided inside the transaction."""

    document_json: str
    status: GameStatus
    undoes_seq: int | None = None
    args_json: str | None = None


_Decide = Callable[[sqlite3.Connection, int, GameStatus], _NextState]


_COMMIT_HEAD = (
    "SELECT EXISTS (SELECT 1 FROM events WHERE interaction_id = ?), g.version, g.status, "
    "e.hash, s.document, g.created_at, e.state_hash, s.status FROM games AS g "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
    "WHERE g.channel_id = ?"
)


def _append_tx(
    connection: sqlite3.Connection,
    *,
    channel_id: int,
    expected_version: int | None,
    pending: PreparedEvent,
    decide: _Decide,
    chains: VerifiedChains,
    prepared: PreparedState | None = None,
) -> CommitResult:
    """The one write path after creation: duplicate check, version guard, the chain it
    extends verified, state, event and patch, and the previous whole document dropped
    unless it is a snapshot."""
    with _write_transaction(connection):
        # One statement reads all a commit needs: whether the interaction was committed,
        # the game's head, and the current version's event hash and document.
        head = connection.execute(_COMMIT_HEAD, (pending.interaction_id, channel_id)).fetchone()
        # Before the version check: a retry of a command that did commit must get its
        # result back, not a conflict with the version it produced itself.
        if head is None or head[0]:
            duplicate = _duplicate_of(connection, channel_id, pending.interaction_id)
            if duplicate is not None:
                return duplicate
        if head is None:
            raise GameNotFound(channel_id)
        version = head[1]
        if type(version) is not int:
            raise CorruptRecord(channel_id, f"game row is unreadable (version {version!r})")
        if expected_version is not None and version != expected_version:
            raise VersionConflict(channel_id, expected_version, version)
        if head[3] is None:
            raise CorruptRecord(channel_id, f"event {version} of the current version is missing")
        if head[4] is None:
            raise CorruptRecord(channel_id, f"state of version {version} is missing")
        head_hash, stored_json = str(head[3]), str(head[4])
        # Nothing is written on top of a chain this process has not verified (a dictionary
        # lookup while the head is the one it verified or wrote itself).
        game = stamp_text(head[5])
        if not chains.matches(channel_id, game, version, head_hash):
            _verified_up_to(connection, channel_id, chains, VerifiedHead(game, version, head_hash))
        upcoming = decide(connection, version, _check_status(head[2], channel_id))
        patch_json = None
        if prepared is not None and prepared.text == upcoming.document_json:
            # Made off this thread on the text this process wrote: the stored head is it.
            patch_json = prepared.patch_from(stored_json)
        if patch_json is None:
            # The base of the patch is the stored head: it must be the state the chain says.
            if state_hash(stored_json, str(head[7])) != head[6]:
                raise TamperedGame(channel_id, STATE_EDITED)
            patch_json = _patch_between(channel_id, version, stored_json, upcoming.document_json)
        new_version = version + 1
        # The guard is redundant while BEGIN IMMEDIATE holds the lock, but it keeps the
        # write itself conditional, which is what a backend without that lock relies on.
        updated = connection.execute(
            "UPDATE games SET version = ?, status = ?, updated_at = ? "
            "WHERE channel_id = ? AND version = ?",
            (new_version, upcoming.status, pending.created_at, channel_id, version),
        )
        if updated.rowcount != 1:
            raise VersionConflict(channel_id, version, _current_version(connection, channel_id))
        event = _insert_event(
            connection,
            channel_id=channel_id,
            version=new_version,
            prev_hash=head_hash,
            pending=pending,
            args_json=upcoming.args_json or pending.args_json,
            document_json=upcoming.document_json,
            status=upcoming.status,
            undoes_seq=upcoming.undoes_seq,
            patch_json=patch_json,
        )
        if not is_snapshot(version):
            # The previous version's whole document is no longer needed: its patch, just
            # written, and the snapshot below it rebuild it (the trigger checks both).
            connection.execute(
                "DELETE FROM states WHERE channel_id = ? AND version = ?", (channel_id, version)
            )
    return CommitResult(event)


def _append_job(
    channel_id: int,
    expected_version: int,
    prepared: PreparedState,
    pending: PreparedEvent,
    status: GameStatus | None,
    chains: VerifiedChains,
) -> Callable[[sqlite3.Connection], CommitResult]:
    """A command's commit as one job for the database thread."""
    decide = partial(
        _decide_commit, channel_id=channel_id, document_json=prepared.text, new_status=status
    )
    return partial(
        _append_tx,
        channel_id=channel_id,
        expected_version=expected_version,
        pending=pending,
        decide=decide,
        chains=chains,
        prepared=prepared,
    )


def _patch_between(channel_id: int, version: int, old_json: str, new_json: str) -> str:
    """The patch from the stored document of ``version`` to the next one's, made here
    (when the commit's prepared patch does not apply: see `db.prepare`)."""
    if old_json == new_json:  # end_game, and undoing a command that changed nothing
        return "[]"
    old = _decode_document(old_json, channel_id, version)
    return make_patch(old, json.loads(new_json), new_json)


def _state_text_tx(
    connection: sqlite3.Connection, channel_id: int, version: int, chains: VerifiedChains
) -> tuple[str, str]:
    """``(status, canonical document JSON)`` of any stored version of a game, checked
    against the chain before it is returned.

    The nearest whole document at or below ``version`` (version 1, a snapshot, the head)
    plus at most ``SNAPSHOT_EVERY - 1`` patches; that document and every patch's result
    must hash to their events' state hashes, and those events must hash and link up to the
    head this process verified, or to the first snapshot event after it that this process
    verified (`db.chain.verify_span`): `ChainBroken` names the first one that does not.
    """
    head = _verified_head(connection, channel_id, chains)
    base = connection.execute(
        "SELECT version, status, document FROM states "
        "WHERE channel_id = ? AND version <= ? ORDER BY version DESC LIMIT 1",
        (channel_id, version),
    ).fetchone()
    if base is None or not 1 <= version <= head.seq or type(base[0]) is not int:
        raise CorruptRecord(channel_id, f"no state of version {version}")
    # Up to the first snapshot event after it this process verified (else the head).
    anchor = chains.anchor_for(channel_id, head, version)
    events, _, patches = _span_rows(
        connection, channel_id, base[0], anchor.seq, version, every=False, documents=False
    )
    _, status, text = verify_span(
        channel_id,
        first=base[0],
        last=anchor.seq,
        events=events,
        full=[(base[0], str(base[1]), str(base[2]))],
        patches=patches,
        timestamp=stamp_text,
        anchor=anchor,
        states_upto=version,
    )
    return status, text


def _current_version(connection: sqlite3.Connection, channel_id: int) -> int:
    row = connection.execute(
        "SELECT version FROM games WHERE channel_id = ?", (channel_id,)
    ).fetchone()
    return -1 if row is None else int(row[0])


def _decide_commit(
    connection: sqlite3.Connection,
    version: int,
    status: GameStatus,
    *,
    channel_id: int,
    document_json: str,
    new_status: GameStatus | None,
) -> _NextState:
    if status == "ended":
        raise GameEnded(channel_id)
    return _NextState(document_json, new_status or status)


def _current_document_json(connection: sqlite3.Connection, channel_id: int, version: int) -> str:
    """The head's document, which must be the state its event's hash says."""
    row = connection.execute(
        "SELECT s.document, s.status, e.state_hash FROM states AS s "
        "JOIN events AS e ON e.channel_id = s.channel_id AND e.seq = s.version "
        "WHERE s.channel_id = ? AND s.version = ?",
        (channel_id, version),
    ).fetchone()
    if row is None:
        raise CorruptRecord(channel_id, f"state of version {version} is missing")
    if state_hash(str(row[0]), str(row[1])) != row[2]:
        raise TamperedGame(channel_id, STATE_EDITED)
    return str(row[0])


def _decide_end(
    connection: sqlite3.Connection, version: int, status: GameStatus, *, channel_id: int
) -> _NextState:
    if status == "ended":
        raise GameEnded(channel_id)
    return _NextState(_current_document_json(connection, channel_id, version), "ended")


def _decide_undo(
    connection: sqlite3.Connection,
    version: int,
    status: GameStatus,
    *,
    channel_id: int,
    chains: VerifiedChains,
) -> _NextState:
    # The latest event that is neither an undo, nor the creation, nor already undone. Undo
    # events are skipped so a second undo walks further back instead of redoing; seat
    # changes (seat.*) too: undo is for play, a seat is changed back by the referee.
    target = connection.execute(
        "SELECT e.seq, e.verb FROM events AS e "
        "WHERE e.channel_id = ? AND e.verb NOT IN (?, ?) AND e.verb NOT LIKE 'seat.%' "
        "AND NOT EXISTS (SELECT 1 FROM events AS u "
        "                WHERE u.channel_id = e.channel_id AND u.undoes_seq = e.seq) "
        "ORDER BY e.seq DESC LIMIT 1",
        (channel_id, VERB_UNDO, VERB_CREATED),
    ).fetchone()
    if target is None:
        raise NothingToUndo(channel_id)
    undone_seq, undone_verb = int(target[0]), str(target[1])
    # Event n produced version n, so the state before it is version n - 1. Every event
    # after n is either undone or an undo, so that state is the right one to restore.
    before = _state_text_tx(connection, channel_id, undone_seq - 1, chains)
    return _NextState(
        document_json=before[1],
        status=_check_status(before[0], channel_id),
        undoes_seq=undone_seq,
        args_json=canonical_json({"undone_seq": undone_seq, "undone_verb": undone_verb}),
    )


def _delete_tx(connection: sqlite3.Connection, channel_id: int) -> None:
    with _write_transaction(connection):
        row = connection.execute(
            "SELECT status FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        if row is None:
            raise GameNotFound(channel_id)
        if row[0] != "ended":
            raise GameNotEnded(channel_id)
        # Children first: foreign keys are enforced and have no cascade on purpose.
        for table in _CHILD_TABLES:
            connection.execute(f"DELETE FROM {table} WHERE channel_id = ?", (channel_id,))


def _archive_tx(
    connection: sqlite3.Connection,
    channel_id: int,
    *,
    version: int,
    fields: tuple[Any, ...],
    blob: bytes,
) -> ArchivedGame:
    with _write_transaction(connection):
        row = connection.execute(
            "SELECT status, version FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        if row is None:
            raise GameNotFound(channel_id)
        if row[0] != "ended":
            raise GameNotEnded(channel_id)
        if int(row[1]) != version:
            raise VersionConflict(channel_id, version, int(row[1]))
        cursor = connection.execute(
            "INSERT INTO archived_games (channel_id, guild_id, ruleset, language, title, "
            "version, created_at, ended_at, archived_at, head_hash, bundle) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*fields, blob),
        )
        for table in _CHILD_TABLES:
            connection.execute(f"DELETE FROM {table} WHERE channel_id = ?", (channel_id,))
        archived = connection.execute(
            f"SELECT {_ARCHIVE_COLUMNS} FROM archived_games WHERE id = ?", (cursor.lastrowid,)
        ).fetchone()
    return _archive_from_row(archived)


def _archived_games_tx(
    connection: sqlite3.Connection, guild_id: int | None
) -> list[ArchivedGame]:
    rows = connection.execute(
        f"SELECT {_ARCHIVE_COLUMNS} FROM archived_games WHERE guild_id IS ? ORDER BY id DESC",
        (guild_id,),
    ).fetchall()
    return [_archive_from_row(row) for row in rows]


def _archived_bundle_tx(connection: sqlite3.Connection, archive_id: int) -> bytes:
    row = connection.execute(
        "SELECT bundle FROM archived_games WHERE id = ?", (archive_id,)
    ).fetchone()
    if row is None:
        raise ArchiveNotFound(archive_id)
    return bytes(row[0])


def _load_tx(connection: sqlite3.Connection, channel_id: int, chains: VerifiedChains) -> GameRecord:
    row = connection.execute(
        "SELECT g.channel_id, g.guild_id, g.ruleset, g.language, g.status, g.version, "
        "g.created_at, g.updated_at, s.document, e.hash, s.status "
        "FROM games AS g LEFT JOIN states AS s "
        "ON s.channel_id = g.channel_id AND s.version = g.version "
        "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
        "WHERE g.channel_id = ?",
        (channel_id,),
    ).fetchone()
    if row is None:
        raise GameNotFound(channel_id)
    summary = _summary_from_row(row)
    if row[8] is None:
        raise CorruptRecord(channel_id, f"state of version {summary.version} is missing")
    document = _decode_document(row[8], channel_id, summary.version)
    _verify_covered_rows(connection, channel_id)
    _verify_head(connection, channel_id, summary.version, str(row[8]), str(row[10]))
    game, head_hash = stamp_text(row[6]), str(row[9])
    if not chains.matches(channel_id, game, summary.version, head_hash):
        stored = VerifiedHead(game, summary.version, head_hash)
        _verified_up_to(connection, channel_id, chains, stored)
    return GameRecord(
        channel_id=summary.channel_id,
        guild_id=summary.guild_id,
        ruleset=summary.ruleset,
        language=summary.language,
        status=summary.status,
        version=summary.version,
        document=document,
        created_at=summary.created_at,
        updated_at=summary.updated_at,
        head_hash=None if row[9] is None else str(row[9]),
        document_text=str(row[8]),
    )


def _load_job(
    connection: sqlite3.Connection, channel_id: int, chains: VerifiedChains
) -> GameRecord:
    """`_load_tx` in one read snapshot (a first verification reads several tables)."""
    with _read_transaction(connection):
        return _load_tx(connection, channel_id, chains)


def _open_command_tx(
    connection: sqlite3.Connection,
    channel_id: int,
    interaction_id: str | None,
    chains: VerifiedChains,
) -> CommandContext:
    with _read_transaction(connection):
        earlier = (
            None if interaction_id is None else _event_by_interaction(connection, interaction_id)
        )
        record = _load_tx(connection, channel_id, chains)
        pace = connection.execute(
            "SELECT pace_hours FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        return CommandContext(
            record=record,
            earlier=earlier,
            members=tuple(_members_tx(connection, channel_id)),
            deadlines=tuple(_deadlines_tx(connection, channel_id)),
            pace_hours=None if pace is None or pace[0] is None else int(pace[0]),
            side_roles=tuple(
                (str(side), int(role))
                for side, role in connection.execute(
                    "SELECT side, role_id FROM side_roles WHERE channel_id = ? ORDER BY side",
                    (channel_id,),
                )
            ),
        )


def _require_game(connection: sqlite3.Connection, channel_id: int) -> None:
    if connection.execute("SELECT 1 FROM games WHERE channel_id = ?", (channel_id,)).fetchone():
        return
    raise GameNotFound(channel_id)


def _list_games_tx(
    connection: sqlite3.Connection, guild_id: int | None, status: GameStatus | None
) -> list[GameSummary]:
    clauses = ["guild_id IS NULL" if guild_id is None else "guild_id = ?"]
    params: list[Any] = [] if guild_id is None else [guild_id]
    if status is not None:
        clauses.append("status = ?")
        params.append(status)
    rows = connection.execute(
        f"SELECT {_GAME_COLUMNS} FROM games WHERE {' AND '.join(clauses)} "
        "ORDER BY created_at, channel_id",
        params,
    ).fetchall()
    return summaries_from_rows(rows)


def _all_games_tx(connection: sqlite3.Connection, status: GameStatus | None) -> list[GameSummary]:
    if status is None:
        rows = connection.execute(
            f"SELECT {_GAME_COLUMNS} FROM games ORDER BY channel_id"
        ).fetchall()
    else:
        rows = connection.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? ORDER BY channel_id", (status,)
        ).fetchall()
    return summaries_from_rows(rows)


def _events_tx(
    connection: sqlite3.Connection, channel_id: int, after_seq: int, limit: int
) -> list[EventRecord]:
    rows = connection.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = ? AND seq > ? "
        "ORDER BY seq LIMIT ?",
        (channel_id, after_seq, limit),
    ).fetchall()
    if not rows:
        _require_game(connection, channel_id)
    check_event_page(channel_id, rows, stamp_text)  # each hashes, each links to the last
    return [_event_from_row(row) for row in rows]


def _state_tx(
    connection: sqlite3.Connection, channel_id: int, version: int, chains: VerifiedChains
) -> StateRecord:
    with _read_transaction(connection):
        row = _state_text_tx(connection, channel_id, version, chains)
    return StateRecord(
        version=version,
        status=_check_status(row[0], channel_id),
        document=_decode_document(row[1], channel_id, version),
    )


def _history_rows(
    connection: sqlite3.Connection, channel_id: int
) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]]:
    """A game's stored full documents and patches, as ``(version, status, text)``."""
    full = [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in connection.execute(
            "SELECT version, status, document FROM states WHERE channel_id = ? ORDER BY version",
            (channel_id,),
        )
    ]
    patches = [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in connection.execute(
            "SELECT version, status, patch FROM patches WHERE channel_id = ? ORDER BY version",
            (channel_id,),
        )
    ]
    return full, patches


def _export_tx(
    connection: sqlite3.Connection, channel_id: int, verify: bool, chains: VerifiedChains
) -> ExportBundle:
    with _read_transaction(connection):
        game_row = connection.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        if game_row is None:
            raise GameNotFound(channel_id)
        if verify:  # against the head this process verified, first bad event named
            _verified_head(connection, channel_id, chains)
        game = _summary_from_row(game_row)
        members = _members_tx(connection, channel_id)
        events = [
            _event_from_row(row)
            for row in connection.execute(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = ? ORDER BY seq",
                (channel_id,),
            )
        ]
        full, patches = _history_rows(connection, channel_id)
    head = events[-1].hash if events else GENESIS_HASH
    if verify:
        head = verify_chain(events)
    # Rebuilt outside the read transaction: the rows are in hand, the file is free again.
    state_rows = history_states(
        channel_id, [event.state_hash for event in events], full, patches, verify=verify
    )
    if verify and game.version != len(events):
        raise ChainBroken(channel_id, len(events), f"game is at version {game.version}")
    states = [
        StateRecord(
            version=version,
            status=_check_status(state_status, channel_id),
            document=_decode_document(text, channel_id, version),
        )
        for version, state_status, text in state_rows
    ]
    return ExportBundle(
        game=game,
        members=members,
        events=events,
        states=states,
        head_hash=head,
        exported_at=utc_now(),
    )


def _export_head_tx(connection: sqlite3.Connection, channel_id: int) -> ExportHead:
    """The game, its members, its head event's hash and its head document, in one read;
    `ChainBroken` if a stored state or patch lies beyond the last event."""
    with _read_transaction(connection):
        game_row = connection.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ?", (channel_id,)
        ).fetchone()
        if game_row is None:
            raise GameNotFound(channel_id)
        game = _summary_from_row(game_row)
        members = _members_tx(connection, channel_id)
        head = connection.execute(
            "SELECT e.hash, s.status, s.document FROM games AS g "
            "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
            "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
            "WHERE g.channel_id = ?",
            (channel_id,),
        ).fetchone()
        beyond = connection.execute(
            "SELECT max(version) FROM (SELECT version FROM states WHERE channel_id = ? "
            "UNION ALL SELECT version FROM patches WHERE channel_id = ?)",
            (channel_id, channel_id),
        ).fetchone()
    if head[2] is None:
        raise CorruptRecord(channel_id, f"state of version {game.version} is missing")
    if beyond[0] is not None and int(beyond[0]) > game.version:
        raise ChainBroken(channel_id, game.version, "states without an event")
    return ExportHead(
        game=game.to_json_dict(),
        members=[member.to_json_dict() for member in members],
        head_hash=GENESIS_HASH if head[0] is None else str(head[0]),
        exported_at=format_timestamp(utc_now()),
        current=(str(head[1]), str(head[2])),
    )


_HISTORY_PAGE = (
    f"SELECT {VERSION_COLUMNS.format(document='document')} FROM events AS e "
    "LEFT JOIN patches AS p ON p.channel_id = e.channel_id AND p.version = e.seq "
    "LEFT JOIN states AS s ON s.channel_id = e.channel_id AND s.version = e.seq "
    "WHERE e.channel_id = ? AND e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?"
)


def _history_page_tx(
    connection: sqlite3.Connection, channel_id: int, after_seq: int, upto_seq: int, limit: int
) -> list[StoredVersion]:
    rows = connection.execute(
        _HISTORY_PAGE, (channel_id, after_seq, upto_seq, limit)
    ).fetchall()
    if not rows:
        _require_game(connection, channel_id)
    return [stored_version_from_row(row) for row in rows]


def _archive_chunk_tx(
    connection: sqlite3.Connection, archive_id: int, offset: int, size: int
) -> bytes:
    """Bytes ``offset`` to ``offset + size`` of an archive's bundle (incremental blob
    reading: the rest of the blob is not loaded)."""
    exists = connection.execute(
        "SELECT length(bundle) FROM archived_games WHERE id = ?", (archive_id,)
    ).fetchone()
    if exists is None:
        raise ArchiveNotFound(archive_id)
    length = int(exists[0])
    if offset >= length:
        return b""
    with connection.blobopen("archived_games", "bundle", archive_id, readonly=True) as blob:
        blob.seek(offset)
        return blob.read(min(size, length - offset))


def _add_member_tx(
    connection: sqlite3.Connection,
    channel_id: int,
    user_id: int,
    side: str | None,
    role: MemberRole,
    joined_at: str,
) -> Member:
    with _write_transaction(connection):
        _require_game(connection, channel_id)
        # A member changing side or role keeps their original joining time.
        connection.execute(
            "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (channel_id, user_id) DO UPDATE SET role = excluded.role, "
            "side = excluded.side",
            (channel_id, user_id, role, side, joined_at),
        )
        _reseal(connection, channel_id)
        row = connection.execute(
            "SELECT channel_id, user_id, role, side, joined_at FROM members "
            "WHERE channel_id = ? AND user_id = ?",
            (channel_id, user_id),
        ).fetchone()
    return _member_from_row(row)


def _members_tx(connection: sqlite3.Connection, channel_id: int) -> list[Member]:
    rows = connection.execute(
        "SELECT channel_id, user_id, role, side, joined_at FROM members "
        "WHERE channel_id = ? ORDER BY joined_at, user_id",
        (channel_id,),
    ).fetchall()
    return [_member_from_row(row) for row in rows]


def _remove_member_tx(connection: sqlite3.Connection, channel_id: int, user_id: int) -> int:
    with _write_transaction(connection):
        changed = connection.execute(
            "DELETE FROM members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id)
        ).rowcount
        _reseal(connection, channel_id)
    return int(changed)


def _clear_deadline_tx(connection: sqlite3.Connection, channel_id: int, side: str) -> int:
    with _write_transaction(connection):
        changed = connection.execute(
            "DELETE FROM deadlines WHERE channel_id = ? AND side = ?", (channel_id, side)
        ).rowcount
        _reseal(connection, channel_id)
    return int(changed)


def _simple_write(connection: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> int:
    """One data-changing statement in its own write transaction; returns rows changed."""
    with _write_transaction(connection):
        changed = connection.execute(sql, params).rowcount
    return int(changed)


def _set_deadline_tx(
    connection: sqlite3.Connection, channel_id: int, side: str, due_at: str, set_at: str
) -> Deadline:
    with _write_transaction(connection):
        _require_game(connection, channel_id)
        connection.execute(
            "INSERT INTO deadlines (channel_id, side, due_at, reminded, set_at) "
            "VALUES (?, ?, ?, 0, ?) "
            "ON CONFLICT (channel_id, side) DO UPDATE SET due_at = excluded.due_at, "
            "reminded = 0, set_at = excluded.set_at",
            (channel_id, side, due_at, set_at),
        )
        _reseal(connection, channel_id)
    return Deadline(
        channel_id=channel_id,
        side=side,
        due_at=parse_timestamp(due_at),
        reminded=False,
        set_at=parse_timestamp(set_at),
    )


def _save_pending_roll_tx(
    connection: sqlite3.Connection, roll: PendingRoll, created_at: str
) -> PendingRoll:
    with _write_transaction(connection):
        _require_game(connection, roll.channel_id)
        # One prompt per player and channel: the newer one replaces the older.
        connection.execute(
            "DELETE FROM pending_rolls WHERE channel_id = ? AND user_id = ?",
            (roll.channel_id, roll.user_id),
        )
        cursor = connection.execute(
            "INSERT INTO pending_rolls (channel_id, user_id, version, verb, options, faces, "
            "bot_faces, die_sides, label, side, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                roll.channel_id,
                roll.user_id,
                roll.version,
                roll.verb,
                stable_json(roll.options),
                stable_json(list(roll.faces)),
                stable_json(list(roll.bot_faces)),
                roll.die_sides,
                roll.label,
                roll.side,
                created_at,
            ),
        )
        roll_id = int(cursor.lastrowid or 0)
    return replace(roll, id=roll_id, created_at=parse_timestamp(created_at))


def _pending_roll_tx(
    connection: sqlite3.Connection, channel_id: int, roll_id: int
) -> PendingRoll | None:
    row = connection.execute(
        "SELECT id, channel_id, user_id, version, verb, options, faces, bot_faces, die_sides, "
        "label, side, created_at FROM pending_rolls WHERE channel_id = ? AND id = ?",
        (channel_id, roll_id),
    ).fetchone()
    if row is None:
        return None
    try:
        options = json.loads(row[5])
        faces = [int(face) for face in json.loads(row[6])]
        bot_faces = [int(face) for face in json.loads(row[7])]
        if not isinstance(options, dict):
            raise ValueError("options are not an object")
        return PendingRoll(
            id=int(row[0]),
            channel_id=int(row[1]),
            user_id=int(row[2]),
            version=int(row[3]),
            verb=str(row[4]),
            options=options,
            faces=faces,
            bot_faces=bot_faces,
            die_sides=int(row[8]),
            label=str(row[9]),
            side=row[10],
            created_at=parse_timestamp(row[11]),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(
            channel_id, f"pending roll {roll_id} is unreadable ({error})"
        ) from error


_DEADLINE_COLUMNS = "d.channel_id, d.side, d.due_at, d.reminded, d.set_at"


def _deadlines_tx(connection: sqlite3.Connection, channel_id: int) -> list[Deadline]:
    rows = connection.execute(
        f"SELECT {_DEADLINE_COLUMNS} FROM deadlines AS d WHERE d.channel_id = ? "
        "ORDER BY d.due_at, d.side",
        (channel_id,),
    ).fetchall()
    return [_deadline_from_row(row) for row in rows]


def _due_deadlines_tx(connection: sqlite3.Connection, now: str) -> list[Deadline]:
    rows = connection.execute(
        f"SELECT {_DEADLINE_COLUMNS} FROM deadlines AS d "
        "JOIN games AS g ON g.channel_id = d.channel_id "
        "WHERE d.reminded = 0 AND d.due_at <= ? AND g.status <> 'ended' "
        "ORDER BY d.due_at, d.channel_id, d.side",
        (now,),
    ).fetchall()
    return [_deadline_from_row(row) for row in rows]


#: `PRAGMA integrity_check` lines about a row's values, not the file's structure.
_ROW_CONSTRAINTS = ("CHECK constraint failed", "NULL value in")


def find_problems(connection: sqlite3.Connection, path: str = "") -> list[str]:
    """Audit a whole database; every problem is one line naming the channel. Synchronous.

    Checks SQLite's own integrity (a damaged file is `DamagedFile`, one line: nothing in
    it can be trusted) and foreign keys, then per game: version == event count, every
    event and every stored version against the chain (`db.chain.verify_span`, the very
    check a first load runs, so both name the same first bad event), that the game's
    status is the status of its current state, and the checksum of its other rows; then
    every archived game's bundle, verified like an export.
    """
    try:
        damage = [
            str(row[0]) for row in connection.execute("PRAGMA integrity_check") if row[0] != "ok"
        ]
    except sqlite3.DatabaseError as error:
        # Damage bad enough that SQLite cannot even walk the file.
        raise DamagedFile(path, str(error)) from error
    # A row that breaks a CHECK or NOT NULL constraint was written with the constraints
    # switched off (a tamperer): that row's game is named below. Anything else is the
    # file's own structure, and nothing below can be trusted on a damaged file.
    broken = [line for line in damage if not line.startswith(_ROW_CONSTRAINTS)]
    if broken:
        more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
        raise DamagedFile(path, f"{broken[0]}{more}")
    problems = [f"integrity: {line}" for line in damage]
    problems += [
        f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]}"
        for row in connection.execute("PRAGMA foreign_key_check")
    ]
    with _read_transaction(connection):
        games = connection.execute(
            "SELECT channel_id, version, status FROM games ORDER BY channel_id"
        ).fetchall()
        for channel_id, version, status in games:
            if type(version) is not int:
                problems.append(f"channel {channel_id}: game row is unreadable ({version=!r})")
                continue
            problems += _channel_problems(connection, int(channel_id), version, status)
        for (archive_id,) in connection.execute("SELECT id FROM archived_games ORDER BY id"):
            row = connection.execute(
                "SELECT channel_id, head_hash, bundle FROM archived_games WHERE id = ?",
                (archive_id,),
            ).fetchone()
            problem = archive_problem(archive_id, *row)
            if problem is not None:
                problems.append(problem)
    return problems


def _channel_problems(
    connection: sqlite3.Connection, channel_id: int, version: int, status: object
) -> list[str]:
    prefix = f"channel {channel_id}:"
    problems: list[str] = []
    try:
        events, state_rows, patches = _span_rows(
            connection, channel_id, 1, 2**62, 2**62, every=True
        )
        if len(events) != version:
            problems.append(f"{prefix} version {version} but {len(events)} events")
        try:
            verify_span(
                channel_id,
                first=1,
                last=len(events),
                events=events,
                full=state_rows,
                patches=patches,
                timestamp=stamp_text,
                whole=True,
            )
        except ChainBroken as error:  # reported; the rows beside the chain are checked still
            problems.append(str(error))
        current = [row for row in state_rows if int(row[0]) == version]
        if not current:
            problems.append(f"{prefix} state of the current version {version} is missing")
        elif current[0][1] != status:
            problems.append(f"{prefix} status {status!r} differs from its state's")
        else:
            _decode_document(current[0][2], channel_id, version)
        # The same check, on the same rows, as `_load_tx`: db check refuses what the bot does.
        tampered = _covered_rows_problem(connection, channel_id)
        if tampered is not None:
            problems.append(str(TamperedGame(channel_id, tampered)))
        return problems
    except StoreError as error:
        detail = f"{prefix} {error}" if f"channel {channel_id}" not in str(error) else str(error)
        return [*problems, detail]


def backup_database(source: sqlite3.Connection, target_path: str | os.PathLike[str]) -> None:
    """Copy a live database to ``target_path`` with SQLite's online backup API.

    The copy is written beside the target and renamed into place, so a crash mid-backup
    never leaves a truncated file under the requested name. Refuses to overwrite.
    """
    target = Path(target_path)
    if target.exists():
        raise FileExistsError(f"{target}: already exists; choose a new backup file")
    partial_path = target.with_name(target.name + ".partial")
    partial_path.unlink(missing_ok=True)
    copy = sqlite3.connect(partial_path)
    try:
        source.backup(copy)
        # The copy is a standalone file: no -wal beside it to forget when moving it around.
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        copy.close()
    os.replace(partial_path, target)
    _fsync_directory(target.parent)


def backup_file(
    source_path: str | os.PathLike[str],
    target_path: str | os.PathLike[str],
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> None:
    """Back up the Arbitro database at ``source_path`` (possibly in use) to a new file.

    Synchronous, for the command line. Raises `SchemaError` if the source is missing or is
    not an Arbitro database; any schema version is accepted.
    """
    source_text = os.fspath(source_path)
    try:
        source = sqlite3.connect(_existing_file_uri(source_text), uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise SchemaError(source_text, f"no database file here ({error})") from error
    try:
        source.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
        if migrations.inspect_schema(source, source_text) == 0:
            raise SchemaError(source_text, "no Arbitro database here")
        backup_database(source, target_path)
    finally:
        source.close()


def _fsync_directory(directory: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def configure_connection(
    connection: sqlite3.Connection,
    path: str,
    *,
    migrate: bool,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> int:
    """Check the file is ours, set the pragmas, migrate (or insist it is current).

    Returns the schema version. The file is inspected before anything is written to it,
    so pointing Arbitro at a foreign file changes nothing in it.
    """
    connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
    version = migrations.inspect_schema(connection, path)
    latest = migrations.latest_version()
    if version < latest and not migrate:
        detail = (
            "no Arbitro database here"
            if version == 0
            else f"schema version {version} is older than {latest}; run `arbitro db migrate`"
        )
        raise SchemaError(path, detail)
    _enable_wal(connection, busy_timeout_ms)
    # FULL syncs the WAL on every commit: an acknowledged action survives power loss too.
    connection.execute("PRAGMA synchronous = FULL")
    # A command reads a few pages (its game's rows): SQLite's own cache of 1 MB (not the
    # default 2 MB) keeps the hot ones; the operating system caches the file anyway.
    connection.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KB:d}")
    connection.execute("PRAGMA foreign_keys = ON")
    if version < latest:
        migrations.apply_migrations(connection, path)
    migrations.check_tables(connection, path)
    return migrations.read_user_version(connection)


def _hand_checkpoints_over(connection: sqlite3.Connection) -> None:
    """Leave WAL checkpoints to the store's checkpoint thread, keeping the writer's own
    only as a backstop (`db.checkpoint`)."""
    connection.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES:d}").fetchall()


def _enable_wal(connection: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """Switch the file to WAL, retrying while another connection holds it.

    The switch needs the file to itself and SQLite reports that as "locked" at once
    instead of waiting for the busy timeout, so two processes starting together would
    fail without this. It only happens on a file's very first use: WAL is persistent.
    """
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def _existing_file_uri(path: str) -> str:
    """An SQLite URI that opens ``path`` only if it already exists."""
    return Path(path).absolute().as_uri() + "?mode=rw"


def _translate(
    error: sqlite3.Error | UnicodeDecodeError, channel_id: int | None, path: str
) -> StoreError:
    """Turn an SQLite exception into a storage error that names the channel (or the file,
    when SQLite cannot read the file itself)."""
    message = str(error)
    lowered = message.lower()
    if isinstance(error, UnicodeDecodeError):
        # A text column that is not UTF-8: a damaged row of this game, or of the file's
        # own tables when no game was being read.
        if channel_id is None:
            return DamagedFile(path, f"unreadable text: {message}")
        return CorruptRecord(channel_id, f"unreadable text ({message})")
    if isinstance(error, sqlite3.IntegrityError):
        return CorruptRecord(channel_id, message)
    if any(word in lowered for word in ("malformed", "not a database", "corrupt")):
        return DamagedFile(path, message)
    if "decode" in lowered:
        return CorruptRecord(channel_id, message)
    if "locked" in lowered or "busy" in lowered:
        return StoreUnavailable(f"the database stayed locked ({message})", channel_id)
    return StoreUnavailable(message, channel_id)


# --------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------


class SqliteStore:
    """`GameStore` on one SQLite file, through one dedicated connection thread."""

    def __init__(self, connection: DatabaseThread, path: str) -> None:
        """Wrap an open, configured connection; use `SqliteStore.open` instead."""
        self._connection = connection
        self._closed = False
        self.path = path
        # A commit's canonical JSON, patch and event texts (`db.prepare`): made by the
        # caller when it passes a `PreparedState` (the service does, on its rules thread),
        # otherwise by the commit's job on the connection's thread; never on the event loop.
        self.preparer = CommitPreparer()
        # The chain head this process verified per channel (db/chain.py): a game's history
        # is verified once, then every commit extends the verified head.
        self.verified_chains = VerifiedChains()
        # WAL checkpoints run off the commit path (`db.checkpoint`); none for a database in
        # memory.
        self._checkpointer: Checkpointer | None = None

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_DB_PATH,
        *,
        create: bool = True,
        migrate: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> Self:
        """Open (creating and migrating by default) the database at ``path``.

        ``create=False`` refuses a missing file; ``migrate=False`` refuses an out-of-date
        schema instead of upgrading it. Raises `SchemaError` for a file that is not an
        Arbitro database or is newer than this code.
        """
        path_text = os.fspath(path)
        # mode=rw opens an existing file only: no empty database left behind by a typo.
        must_exist = not create and path_text != ":memory:"
        # Checked first so the usual mistake gets the plain message below.
        if must_exist and not await asyncio.to_thread(os.path.isfile, path_text):
            raise SchemaError(path_text, "no database file here")
        target = _existing_file_uri(path_text) if must_exist else path_text
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, sqlite3 adds none.
            connection = await DatabaseThread.connect(
                target, isolation_level=None, timeout=busy_timeout_ms / 1000, uri=must_exist
            )
        except sqlite3.Error as error:
            if must_exist:
                raise SchemaError(path_text, f"no database file here ({error})") from error
            raise StoreUnavailable(f"{path_text}: {error}") from error
        store = cls(connection, path_text)
        try:
            await store._run(
                partial(
                    configure_connection,
                    path=path_text,
                    migrate=migrate,
                    busy_timeout_ms=busy_timeout_ms,
                )
            )
        except CorruptRecord as error:
            # Nothing names a channel yet: say which file is damaged instead.
            await connection.close()
            raise DamagedFile(path_text, error.detail) from error
        except StoreUnavailable as error:
            await connection.close()
            raise StoreUnavailable(f"{path_text}: {error.params['detail']}") from error
        except BaseException:
            await connection.close()
            raise
        if path_text != ":memory:" and not path_text.startswith("file:"):
            await store._run(_hand_checkpoints_over)
            store._checkpointer = Checkpointer(path_text, busy_timeout_ms=busy_timeout_ms)
        return store

    async def close(self) -> None:
        """Let the commands already queued finish, close the connection, stop its thread.

        Idempotent. Closing the last connection to the file checkpoints the WAL and
        removes the ``-wal`` file. Any command submitted afterwards is refused with
        `StoreUnavailable`.
        """
        if not self._closed:
            self._closed = True
            if self._checkpointer is not None:
                # First: the writer, closing last, checkpoints fully and removes the WAL.
                await asyncio.to_thread(self._checkpointer.close)
            await self._connection.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _run(
        self,
        work: Callable[[sqlite3.Connection], _T],
        channel_id: int | None = None,
        *,
        groupable: bool = False,
    ) -> _T:
        """Run ``work(connection)`` on the connection's thread: one hop for a whole command.

        The function runs to its end (COMMIT or ROLLBACK) even if the caller is cancelled
        meanwhile; see `db.worker.DatabaseThread`. ``groupable`` writes (commits of
        commands) may share one COMMIT with others queued at the same moment.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed", channel_id)
        try:
            result = await self._connection.run(work, groupable=groupable)
            if self._checkpointer is not None:
                self._checkpointer.wrote()
            return result
        except WorkerClosed:
            raise StoreUnavailable("the store is closed", channel_id) from None
        except (sqlite3.Error, UnicodeDecodeError) as error:
            raise _translate(error, channel_id, self.path) from error

    # ---- schema ------------------------------------------------------------------------

    async def schema_version(self) -> int:
        """The schema version of the open file."""
        return await self._run(migrations.read_user_version)

    # ---- games -------------------------------------------------------------------------

    async def create_game(
        self,
        channel_id: int,
        *,
        guild_id: int | None,
        ruleset: str,
        language: str,
        document: Document,
        status: GameStatus = "setup",
        actor_id: int | None = None,
        interaction_id: str | None = None,
        referee_id: int | None = None,
    ) -> GameRecord:
        """Store a new game at version 1, with a ``game.created`` event holding its setup.

        ``referee_id`` joins the game as its referee in the same transaction. Raises
        `GameExists` if the channel holds a game (even an ended one: delete it first).
        Retrying the same interaction returns the game as it is now.
        """
        if status not in GAME_STATUSES:
            raise ValueError(f"unknown game status {status!r}")
        # Ids go into the hash chain: they must be the ints the columns will return.
        channel_id = operator.index(channel_id)
        guild_id = None if guild_id is None else operator.index(guild_id)
        document_json = encode_document(document)
        pending = system_event(
            VERB_CREATED,
            args={"ruleset": ruleset, "language": language, "guild_id": guild_id},
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        result = await self._run(
            partial(
                _create_tx,
                channel_id=channel_id,
                guild_id=guild_id,
                ruleset=ruleset,
                language=language,
                status=status,
                document_json=document_json,
                pending=pending,
                referee_id=None if referee_id is None else operator.index(referee_id),
            ),
            channel_id,
        )
        if result.duplicate:
            return await self.load(channel_id)
        self.preparer.remember(channel_id, document_json)
        # Written here, in one transaction: its one-event chain is verified by construction.
        self.verified_chains.remember(
            channel_id, VerifiedHead(pending.created_at, 1, result.event.hash)
        )
        created = parse_timestamp(pending.created_at)
        return GameRecord(
            channel_id=channel_id,
            guild_id=guild_id,
            ruleset=ruleset,
            language=language,
            status=status,
            version=1,
            document=json.loads(document_json),
            created_at=created,
            updated_at=created,
            head_hash=result.event.hash,
        )

    async def load(self, channel_id: int) -> GameRecord:
        """The channel's game: metadata, current version and document.

        Raises `GameNotFound`, or `CorruptRecord` naming the channel if the stored row
        cannot be read back.
        """
        return await self._run(
            partial(_load_job, channel_id=channel_id, chains=self.verified_chains), channel_id
        )

    async def open_command(
        self, channel_id: int, interaction_id: str | None = None
    ) -> CommandContext:
        """The game, the event ``interaction_id`` already committed (if any) and the
        members: one hop to the database thread, one read transaction."""
        return await self._run(
            partial(
                _open_command_tx,
                channel_id=operator.index(channel_id),
                interaction_id=None if interaction_id is None else str(interaction_id),
                chains=self.verified_chains,
            ),
            channel_id,
        )

    async def list_games(
        self, guild_id: int | None, status: GameStatus | None = None
    ) -> list[GameSummary]:
        """The games of a guild (``None``: outside any guild), optionally by status."""
        return await self._run(partial(_list_games_tx, guild_id=guild_id, status=status))

    async def all_games(self, status: GameStatus | None = None) -> list[GameSummary]:
        """Every game of every guild, optionally only those with ``status``, by channel.

        For maintenance (start-up document checks, ``arbitro db replay``), not per command.
        """
        return await self._run(partial(_all_games_tx, status=status))

    async def commit(
        self,
        channel_id: int,
        expected_version: int,
        new_state: Document,
        event: NewEvent | PreparedEvent,
        *,
        status: GameStatus | None = None,
    ) -> CommitResult:
        """Store ``new_state`` as version ``expected_version + 1`` and log ``event``.

        One transaction, one thread hop. Raises `VersionConflict` if the game is no longer
        at ``expected_version``, `GameEnded` once it has ended, `GameNotFound`. If the
        event's interaction id was already committed, nothing is written and the earlier
        result comes back with ``duplicate=True``. ``status`` changes the game's status
        (e.g. ``"active"`` when setup is over); to end a game use `end_game`.
        """
        if event.verb in RESERVED_VERBS:
            raise ValueError(f"verb {event.verb!r} is reserved for the store")
        if status is not None and status not in ("setup", "active"):
            raise ValueError(f"commit cannot set status {status!r}")
        channel_id = operator.index(channel_id)
        chains = self.verified_chains
        if isinstance(new_state, PreparedState):
            # Prepared by the caller (the service, on its rules thread): straight to the
            # database thread, one hop.
            pending = event if isinstance(event, PreparedEvent) else prepare_event(event)
            return self._advanced(
                channel_id,
                await self._run(
                    _append_job(channel_id, expected_version, new_state, pending, status, chains),
                    channel_id,
                    groupable=True,
                ),
            )
        # A plain document is prepared on the database thread, as the first step of its
        # job: with one GIL, preparing it on another thread would not spare that thread any
        # time, only make each of its statements wait for the GIL back (docs/storage.md).
        preparer = self.preparer

        def prepare_and_append(connection: sqlite3.Connection) -> CommitResult:
            prepared = preparer.prepare(channel_id, new_state)
            pending = event if isinstance(event, PreparedEvent) else prepare_event(event)
            append = _append_job(channel_id, expected_version, prepared, pending, status, chains)
            return append(connection)

        return self._advanced(
            channel_id, await self._run(prepare_and_append, channel_id, groupable=True)
        )

    def _advanced(self, channel_id: int, result: CommitResult) -> CommitResult:
        """After a write is durable: its event extends the head this process verified."""
        if not result.duplicate:
            self.verified_chains.advance(channel_id, result.event)
        return result

    async def end_game(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
        reason: str | None = None,
    ) -> CommitResult:
        """End the game: a ``game.ended`` event whose state is the same document, ended.

        Afterwards commits raise `GameEnded`; `undo` can still reopen the game.
        """
        channel_id = operator.index(channel_id)
        pending = system_event(
            VERB_ENDED,
            args={} if reason is None else {"reason": reason},
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        result = await self._run(
            partial(
                _append_tx,
                channel_id=channel_id,
                expected_version=expected_version,
                pending=pending,
                decide=partial(_decide_end, channel_id=channel_id),
                chains=self.verified_chains,
            ),
            channel_id,
        )
        return self._advanced(channel_id, result)

    async def undo(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
    ) -> CommitResult:
        """Undo the latest event that is not an undo and not already undone.

        The restored state (document and status from before that event) becomes a new
        version, logged as an ``undo`` event whose ``undoes_seq`` names the undone event;
        a second undo walks one event further back. The creation cannot be undone:
        `NothingToUndo`.
        """
        channel_id = operator.index(channel_id)
        pending = system_event(VERB_UNDO, actor_id=actor_id, interaction_id=interaction_id)
        chains = self.verified_chains
        result = await self._run(
            partial(
                _append_tx,
                channel_id=channel_id,
                expected_version=expected_version,
                pending=pending,
                decide=partial(_decide_undo, channel_id=channel_id, chains=chains),
                chains=chains,
            ),
            channel_id,
        )
        return self._advanced(channel_id, result)

    async def archive_game(
        self, channel_id: int, bundle: ExportBundle | None = None, *, title: str = ""
    ) -> ArchivedGame:
        """Move an ended game out of its channel into the archive, in one transaction.

        Its history is read page by page and stored compact (`db.archive`); the move
        itself is one short job, refused if the game changed meanwhile."""
        channel_id = operator.index(channel_id)
        version, fields, blob = await archive_row(self, channel_id, bundle, title)
        archived = await self._run(
            partial(_archive_tx, channel_id=channel_id, version=version, fields=fields, blob=blob),
            channel_id,
        )
        self.verified_chains.forget(channel_id)
        return archived

    async def archived_games(self, guild_id: int | None) -> list[ArchivedGame]:
        """The archived games of a guild, newest first."""
        return await self._run(partial(_archived_games_tx, guild_id=guild_id))

    async def all_archives(self) -> list[ArchivedGame]:
        """Every archived game of every guild, by id (for ``arbitro db copy``)."""
        rows = await self._run(
            lambda connection: connection.execute(
                f"SELECT {_ARCHIVE_COLUMNS} FROM archived_games ORDER BY id"
            ).fetchall()
        )
        return [_archive_from_row(row) for row in rows]

    async def restore_archive(self, entry: ArchivedGame, bundle: dict[str, Any]) -> None:
        """Insert an archived game exactly as another store holds it (same id)."""
        blob = await asyncio.to_thread(encode_bundle, bundle)
        values = (
            entry.id,
            entry.channel_id,
            entry.guild_id,
            entry.ruleset,
            entry.language,
            entry.title,
            entry.version,
            format_timestamp(entry.created_at),
            format_timestamp(entry.ended_at),
            format_timestamp(entry.archived_at),
            entry.head_hash,
            blob,
        )

        def work(connection: sqlite3.Connection) -> None:
            with _write_transaction(connection):
                connection.execute(
                    "INSERT INTO archived_games (id, channel_id, guild_id, ruleset, language, "
                    "title, version, created_at, ended_at, archived_at, head_hash, bundle) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    values,
                )

        await self._run(work)

    async def archived_export(self, archive_id: int) -> dict[str, Any]:
        """An archived game's whole export bundle as JSON, every state rebuilt (for copies;
        `db.archive.read_archive` reads it page by page)."""
        blob = await self._run(
            partial(_archived_bundle_tx, archive_id=operator.index(archive_id))
        )
        return await asyncio.to_thread(bundle_of, blob)

    async def delete_game(self, channel_id: int) -> None:
        """Delete an ended game with its events, states, members and deadlines.

        Export it first if it should be kept. Raises `GameNotEnded` for a game in progress.
        """
        await self._run(partial(_delete_tx, channel_id=channel_id), channel_id)
        self.verified_chains.forget(channel_id)

    # ---- history -----------------------------------------------------------------------

    async def events(
        self, channel_id: int, after_seq: int = 0, limit: int = 50
    ) -> list[EventRecord]:
        """Up to ``limit`` (at most 1000) events after ``after_seq``, oldest first."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))
        return await self._run(
            partial(_events_tx, channel_id=channel_id, after_seq=after_seq, limit=page),
            channel_id,
        )

    async def state_at(self, channel_id: int, version: int) -> StateRecord:
        """The stored state of one version of the game."""
        return await self._run(
            partial(_state_tx, channel_id=channel_id, version=version, chains=self.verified_chains),
            channel_id,
        )

    async def export(self, channel_id: int, *, verify: bool = True) -> ExportBundle:
        """Game, members, every event and every state, read in one snapshot.

        With ``verify`` (the default) the hash chain and every state's hash are checked
        first: `ChainBroken` names the first event that fails.
        """
        return await self._run(
            partial(_export_tx, channel_id=channel_id, verify=verify, chains=self.verified_chains),
            channel_id,
        )

    async def export_head(self, channel_id: int) -> ExportHead:
        """What an export writes before the events (`db.history.ExportHead`)."""
        return await self._run(partial(_export_head_tx, channel_id=channel_id), channel_id)

    async def history_page(
        self, channel_id: int, after_seq: int, upto_seq: int, limit: int = PAGE_VERSIONS
    ) -> list[StoredVersion]:
        """Versions ``after_seq + 1`` to at most ``upto_seq`` (``limit`` of them, at most
        1000): each event's stored texts with its state's patch and full document, if any.
        One short job on the connection's thread: other commands run between pages."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))
        return await self._run(
            partial(
                _history_page_tx,
                channel_id=channel_id,
                after_seq=after_seq,
                upto_seq=upto_seq,
                limit=page,
            ),
            channel_id,
        )

    async def archive_chunk(self, archive_id: int, offset: int, size: int) -> bytes:
        """Part of an archive's stored bundle (empty past its end)."""
        return await self._run(
            partial(
                _archive_chunk_tx,
                archive_id=operator.index(archive_id),
                offset=max(0, offset),
                size=max(1, size),
            )
        )

    # ---- members -----------------------------------------------------------------------

    async def event_by_interaction(self, interaction_id: str) -> EventRecord | None:
        """The event an interaction committed, if any (a retried interaction's answer)."""
        return await self._run(partial(_event_by_interaction, interaction_id=interaction_id))

    async def add_member(
        self,
        channel_id: int,
        user_id: int,
        *,
        side: str | None = None,
        role: MemberRole = "player",
    ) -> Member:
        """Add a member, or change the side/role of an existing one."""
        if role not in MEMBER_ROLES:
            raise ValueError(f"unknown member role {role!r}")
        joined_at = format_timestamp(utc_now())
        return await self._run(
            partial(
                _add_member_tx,
                channel_id=channel_id,
                user_id=user_id,
                side=side,
                role=role,
                joined_at=joined_at,
            ),
            channel_id,
        )

    async def members(self, channel_id: int) -> list[Member]:
        """The game's members in joining order (empty if none)."""
        return await self._run(partial(_members_tx, channel_id=channel_id), channel_id)

    async def remove_member(self, channel_id: int, user_id: int) -> bool:
        """Remove a member; false if they were not one."""
        changed = await self._run(
            partial(_remove_member_tx, channel_id=channel_id, user_id=user_id), channel_id
        )
        return changed > 0

    # ---- deadlines ---------------------------------------------------------------------

    async def set_deadline(self, channel_id: int, side: str, due_at: datetime) -> Deadline:
        """Set or move ``side``'s deadline (timezone-aware); resets its reminder."""
        return await self._run(
            partial(
                _set_deadline_tx,
                channel_id=channel_id,
                side=side,
                due_at=format_timestamp(due_at),
                set_at=format_timestamp(utc_now()),
            ),
            channel_id,
        )

    async def clear_deadline(self, channel_id: int, side: str) -> bool:
        """Drop ``side``'s deadline (it acted); false if there was none."""
        changed = await self._run(
            partial(_clear_deadline_tx, channel_id=channel_id, side=side), channel_id
        )
        return changed > 0

    async def deadlines(self, channel_id: int) -> list[Deadline]:
        """The channel's deadlines, earliest first."""
        return await self._run(partial(_deadlines_tx, channel_id=channel_id), channel_id)

    async def due_deadlines(self, now: datetime) -> list[Deadline]:
        """Deadlines due at ``now`` or earlier, not yet reminded, in games still running."""
        return await self._run(partial(_due_deadlines_tx, now=format_timestamp(now)))

    async def bind_side(self, channel_id: int, side: str, role_id: int | None) -> None:
        """Bind ``side`` to a Discord role (None: unbind it)."""

        def work(connection: sqlite3.Connection) -> None:
            with _write_transaction(connection):
                _require_game(connection, channel_id)
                connection.execute(
                    "DELETE FROM side_roles WHERE channel_id = ? AND side = ?", (channel_id, side)
                )
                if role_id is not None:
                    connection.execute(
                        "INSERT INTO side_roles (channel_id, side, role_id) VALUES (?, ?, ?)",
                        (channel_id, side, role_id),
                    )

        await self._run(work, channel_id)

    async def creator_role(self, guild_id: int) -> int | None:
        """The role a member needs to create a game in this guild (None: anyone)."""
        row = await self._run(
            lambda connection: connection.execute(
                "SELECT creator_role_id FROM guild_settings WHERE guild_id = ?", (guild_id,)
            ).fetchone()
        )
        return None if row is None or row[0] is None else int(row[0])

    async def set_creator_role(self, guild_id: int, role_id: int | None) -> None:
        """Set (None: clear) the role a member needs to create a game in this guild."""
        await self._run(
            partial(
                _simple_write,
                sql="INSERT INTO guild_settings (guild_id, creator_role_id) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET creator_role_id = excluded.creator_role_id",
                params=(guild_id, role_id),
            )
        )

    async def set_pace(self, channel_id: int, hours: int | None) -> None:
        """Set the game's pace (hours per owed action; None: no pace)."""
        changed = await self._run(
            partial(
                _simple_write,
                sql="UPDATE games SET pace_hours = ? WHERE channel_id = ?",
                params=(hours, operator.index(channel_id)),
            ),
            channel_id,
        )
        if changed == 0:
            raise GameNotFound(channel_id)

    async def claim_warning(self, channel_id: int, side: str, due_at: datetime) -> bool:
        """Claim the reminder before this exact deadline (once across processes)."""
        changed = await self._run(
            partial(
                _simple_write,
                sql="INSERT INTO deadline_warnings (channel_id, side, due_at, sent_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (channel_id, side, due_at) DO NOTHING",
                params=(channel_id, side, format_timestamp(due_at), format_timestamp(utc_now())),
            ),
            channel_id,
        )
        return changed > 0

    async def mark_reminded(self, channel_id: int, side: str, due_at: datetime) -> bool:
        """Flag the reminder of this exact deadline as sent.

        Matching ``due_at`` means a deadline moved meanwhile is not marked by mistake.
        """
        changed = await self._run(
            partial(
                _simple_write,
                sql="UPDATE deadlines SET reminded = 1 "
                "WHERE channel_id = ? AND side = ? AND due_at = ? AND reminded = 0",
                params=(channel_id, side, format_timestamp(due_at)),
            ),
            channel_id,
        )
        return changed > 0

    # ---- rolls a player still owes ------------------------------------------------------

    async def save_pending_roll(self, roll: PendingRoll) -> PendingRoll:
        """Keep a command that waits for its roller's next die; returns it with its id.

        It replaces any earlier prompt of the same player in the same channel.
        """
        return await self._run(
            partial(_save_pending_roll_tx, roll=roll, created_at=format_timestamp(utc_now())),
            roll.channel_id,
        )

    async def pending_roll(self, channel_id: int, roll_id: int) -> PendingRoll | None:
        """The prompt ``roll_id`` of the channel, or None if it was answered or replaced."""
        return await self._run(
            partial(_pending_roll_tx, channel_id=channel_id, roll_id=roll_id), channel_id
        )

    async def drop_pending_roll(self, channel_id: int, roll_id: int) -> bool:
        """Forget a prompt (answered or void); false if it was already gone."""
        changed = await self._run(
            partial(
                _simple_write,
                sql="DELETE FROM pending_rolls WHERE channel_id = ? AND id = ?",
                params=(channel_id, roll_id),
            ),
            channel_id,
        )
        return changed > 0

    # ---- maintenance -------------------------------------------------------------------

    async def count_games(self, status: GameStatus | None = None) -> int:
        """How many games the file holds, optionally only those with ``status``."""
        return await self._run(partial(_count_games_tx, status=status))

    async def check(self) -> list[str]:
        """Audit the file (see `find_problems`); an empty list means all is well."""
        return await self._run(partial(find_problems, path=self.path))

    async def backup(self, target_path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the live database to a new file."""
        await self._run(partial(_backup_on_thread, target_path=target_path))

    async def restore_game(self, bundle: ExportBundle, deadlines: list[Deadline]) -> None:
        """Insert a game exactly as exported elsewhere (same events, hashes and times).

        For ``arbitro db copy``. Refuses (`GameExists`) a channel that already has a game.
        The bundle should have been verified; the caller verifies the copy afterwards.
        """
        await self._run(
            partial(_restore_tx, bundle=bundle, deadlines=deadlines), bundle.game.channel_id
        )
        self.verified_chains.forget(bundle.game.channel_id)


def _restore_tx(
    connection: sqlite3.Connection, bundle: ExportBundle, deadlines: list[Deadline]
) -> None:
    game = bundle.game
    with _write_transaction(connection):
        if connection.execute(
            "SELECT 1 FROM games WHERE channel_id = ?", (game.channel_id,)
        ).fetchone():
            raise GameExists(game.channel_id)
        connection.execute(
            f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.channel_id,
                game.guild_id,
                game.ruleset,
                game.language,
                game.status,
                game.version,
                format_timestamp(game.created_at),
                format_timestamp(game.updated_at),
            ),
        )
        full, patches = compact_history(
            [
                (state.version, state.status, canonical_json(state.document))
                for state in bundle.states
            ]
        )
        connection.executemany(
            _INSERT_STATE, [(game.channel_id, *row) for row in full]
        )
        connection.executemany(
            _INSERT_EVENT,
            [
                (
                    event.channel_id,
                    event.seq,
                    event.interaction_id,
                    event.actor_id,
                    event.verb,
                    pack_text(canonical_json(event.args)),
                    pack_text(canonical_json(event.dice)),
                    pack_text(canonical_json(event.resolution)),
                    event.state_version,
                    event.state_hash,
                    event.undoes_seq,
                    format_timestamp(event.created_at),
                    event.prev_hash,
                    event.hash,
                )
                for event in bundle.events
            ],
        )
        # After the events, which the patches refer to.
        connection.executemany(_INSERT_PATCH, [(game.channel_id, *row) for row in patches])
        connection.executemany(
            "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (m.channel_id, m.user_id, m.role, m.side, format_timestamp(m.joined_at))
                for m in bundle.members
            ],
        )
        connection.executemany(
            "INSERT INTO deadlines (channel_id, side, due_at, reminded, set_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (
                    d.channel_id,
                    d.side,
                    format_timestamp(d.due_at),
                    int(d.reminded),
                    format_timestamp(d.set_at),
                )
                for d in deadlines
            ],
        )
        _reseal(connection, game.channel_id)


def _count_games_tx(connection: sqlite3.Connection, status: GameStatus | None) -> int:
    if status is None:
        row = connection.execute("SELECT count(*) FROM games").fetchone()
    else:
        row = connection.execute(
            "SELECT count(*) FROM games WHERE status = ?", (status,)
        ).fetchone()
    return int(row[0])


def _backup_on_thread(connection: sqlite3.Connection, target_path: str | os.PathLike[str]) -> None:
    backup_database(connection, target_path)
