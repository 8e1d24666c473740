"""The server store: `GameStore` on PostgreSQL through asyncpg.

Chosen by ``ARBITRO_DB=postgresql://…`` (see `db.open.open_store`) when several bot
processes, or several hosts, share the games. The invariants are SQLite's (docs/storage.md):

* one transaction per write: the game row is locked (``SELECT … FOR UPDATE``) and its
  version compared with the one the caller read, so two processes writing one channel
  serialize on that row and the loser gets `VersionConflict`, never a lost update;
* ``events.interaction_id`` is unique and looked up under the same row lock, so a retried
  interaction takes effect once even when the retry runs in another process;
* the hash chain is the same recipe over the same canonical JSON texts, so a game copied
  between backends (``arbitro db copy``) verifies on both;
* documents are stored as JSONB for queries, next to the canonical text that was hashed
  (JSONB normalises key order and number formats, so it cannot reproduce the hashed text;
  every read and every hash uses the text).

Everything runs in READ COMMITTED; reads that span several statements (export, audit) use a
REPEATABLE READ read-only transaction, i.e. one snapshot.
"""

from __future__ import annotations

import asyncio
import json
import operator
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from types import TracebackType
from typing import Any, Self, TypeAlias, TypeVar

import asyncpg

# The row encoding shared with the SQLite store: the same canonical texts go into the chain.
from db import migrations_pg, rows
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
from db.errors import (
    ArchiveNotFound,
    ChainBroken,
    CorruptRecord,
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
from db.hashing import GENESIS_HASH, canonical_json, state_hash, verify_chain
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
from db.outage import watch_pool
from db.patch import compact_history, history_states, is_snapshot
from db.prepare import CommitPreparer, PreparedEvent, prepare_event, stable_json, system_event
from db.protocol import Document
from db.sqlite import (
    MAX_EVENTS_PAGE,
    _check_status,
    _decode_document,
    _patch_between,
    encode_document,
)

_T = TypeVar("_T")

DEFAULT_POOL_SIZE = 10

_EVENT_COLUMNS = (
    "channel_id, seq, interaction_id, actor_id, verb, args, dice, resolution, "
    "state_version, state_hash, undoes_seq, created_at, prev_hash, hash"
)
_GAME_COLUMNS = "channel_id, guild_id, ruleset, language, status, version, created_at, updated_at"
_HISTORY_PAGE = (
    f"SELECT {VERSION_COLUMNS.format(document='document_text')} FROM events AS e "
    "LEFT JOIN patches AS p ON p.channel_id = e.channel_id AND p.version = e.seq "
    "LEFT JOIN states AS s ON s.channel_id = e.channel_id AND s.version = e.seq "
    "WHERE e.channel_id = $1 AND e.seq > $2 AND e.seq <= $3 ORDER BY e.seq LIMIT $4"
)
_INSERT_STATE = (
    "INSERT INTO states (channel_id, version, status, document_text, document) "
    "VALUES ($1, $2, $3, $4, $5::text::jsonb)"
)
_INSERT_EVENT = (
    f"INSERT INTO events ({_EVENT_COLUMNS}) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
)
_INSERT_GAME = (
    f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
    "ON CONFLICT (channel_id) DO NOTHING"
)
# The write of a command in one statement (one round trip instead of three): the guarded
# version bump, the new state and its event. The inserts select from the UPDATE's result, so
# a version that moved writes nothing (0 rows: the caller reports the conflict).
_ADVANCE = (
    "WITH advanced AS ("
    " UPDATE games SET version = $2, status = $3, updated_at = $12"
    " WHERE channel_id = $1 AND version = $2 - 1 RETURNING channel_id"
    "), new_state AS ("
    " INSERT INTO states (channel_id, version, status, document_text, document)"
    " SELECT channel_id, $2, $3, $4::text, $5::text::jsonb FROM advanced"
    f") INSERT INTO events ({_EVENT_COLUMNS}) "
    "SELECT channel_id, $2, $6, $7, $8, $9, $10, $11, $2, $13, $14, $12, $15, $16 FROM advanced"
)
# After `_ADVANCE`, in a statement of its own so the trigger sees the new version: the
# patch of the new version, and the previous version's full document dropped unless it is
# a snapshot ($6; db/patch.py).
_PATCH_AND_DROP = (
    "WITH new_patch AS ("
    " INSERT INTO patches (channel_id, version, status, patch) VALUES ($1, $2, $3, $4)"
    ") DELETE FROM states WHERE channel_id = $1 AND version = $5 AND $6::boolean"
)
_INSERT_PATCH = (
    "INSERT INTO patches (channel_id, version, status, patch) VALUES ($1, $2, $3, $4)"
)
_INTERACTION_CONSTRAINT = "events_interaction_id_key"
# What a server that is down (or going down) raises: the connection, not the statement.
_UNREACHABLE = (
    OSError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
)

Connection: TypeAlias = asyncpg.Connection


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{host}"


def _jsonb_value(document_json: str) -> str | None:
    """The text to cast to JSONB, or None for what JSONB cannot hold (NUL characters)."""
    return None if "\\u0000" in document_json else document_json


def _rows_changed(status: str) -> int:
    """The row count at the end of a command tag such as ``UPDATE 1``."""
    return int(status.rsplit(" ", 1)[-1])


async def _keep_session(connection: Connection) -> None:
    """Pool release hook: nothing to reset (the store sets no session state), which saves
    asyncpg's default RESET ALL round trip on every operation. asyncpg still rolls back a
    transaction left open (a cancelled caller) before calling this."""


# --------------------------------------------------------------------------------------
# Decoding rows
# --------------------------------------------------------------------------------------


def _aware(moment: datetime) -> datetime:
    # asyncpg returns TIMESTAMPTZ in UTC; going through the stored text format keeps the
    # values identical to the SQLite store's (and to what was hashed).
    return parse_timestamp(format_timestamp(moment))


def _timestamp_text(moment: object) -> str:
    """A TIMESTAMPTZ value in the fixed text the chain hashed (`format_timestamp`); empty
    for anything else (which then hashes differently)."""
    return format_timestamp(moment) if isinstance(moment, datetime) else ""


# The shared decoders (db/rows.py), reading asyncpg's TIMESTAMPTZ values.
_summary_from_row = partial(rows.summary_from_row, when=_aware)
_event_from_row = partial(rows.event_from_row, when=_aware)
_member_from_row = partial(rows.member_from_row, when=_aware)
_deadline_from_row = partial(rows.deadline_from_row, when=_aware)
_archive_from_row = partial(rows.archive_from_row, when=_aware)


# --------------------------------------------------------------------------------------
# Transactions
# --------------------------------------------------------------------------------------


async def _load(connection: Connection, channel_id: int, chains: VerifiedChains) -> GameRecord:
    row = await connection.fetchrow(
        "SELECT g.channel_id, g.guild_id, g.ruleset, g.language, g.status, g.version, "
        "g.created_at, g.updated_at, s.document_text, e.hash, s.status "
        "FROM games AS g LEFT JOIN states AS s "
        "ON s.channel_id = g.channel_id AND s.version = g.version "
        "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
        "WHERE g.channel_id = $1",
        channel_id,
    )
    if row is None:
        raise GameNotFound(channel_id)
    summary = _summary_from_row(row)
    if row[8] is None:
        raise CorruptRecord(channel_id, f"state of version {summary.version} is missing")
    document = _decode_document(row[8], channel_id, summary.version)
    await _verify_covered_rows(connection, channel_id)
    head_row = await connection.fetchrow(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = $1 AND seq = $2",
        channel_id,
        summary.version,
    )
    if head_row is None or not head_row_agrees(
        str(row[8]), str(row[10]), head_row, _timestamp_text(head_row[11])
    ):
        try:
            head = None if head_row is None else _event_from_row(head_row)
        except CorruptRecord as error:
            raise TamperedGame(channel_id, error.detail) from error
        problem = head_problem(str(row[8]), str(row[10]), head)
        if problem is not None:
            raise TamperedGame(channel_id, problem)
    if not chains.matches(channel_id, stamp_text(row[6]), summary.version, row[9]):
        if connection.is_in_transaction():
            await _verified_up_to(
                connection,
                channel_id,
                chains,
                VerifiedHead(stamp_text(row[6]), summary.version, str(row[9])),
            )
        else:  # the rows of a verification are read in one snapshot
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                await _verified_head(connection, channel_id, chains)
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


async def _event_by_interaction(connection: Connection, interaction_id: str) -> EventRecord | None:
    row = await connection.fetchrow(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE interaction_id = $1", interaction_id
    )
    if row is None:
        return None
    check_event_row(int(row[0]), row, None, stamp_text)  # shown again: not edited since
    return _event_from_row(row)


async def _duplicate_of(
    connection: Connection, channel_id: int, interaction_id: str | None
) -> CommitResult | None:
    """The earlier result of this interaction, if it was already committed."""
    if interaction_id is None:
        return None
    existing = await _event_by_interaction(connection, interaction_id)
    if existing is None:
        return None
    if existing.channel_id != channel_id:
        raise InteractionReused(channel_id, interaction_id, existing.channel_id)
    return CommitResult(existing, duplicate=True)


async def _insert_event(
    connection: Connection,
    *,
    channel_id: int,
    version: int,
    prev_hash: str,
    pending: PreparedEvent,
    args_json: str,
    document_json: str,
    status: GameStatus,
    undoes_seq: int | None,
    advance: bool = False,
) -> EventRecord:
    """Insert state ``version`` and the event that produced it; return the stored event.

    With ``advance`` the game row moves from ``version - 1`` to ``version`` in the same
    statement (`_ADVANCE`); `VersionConflict` if it was not at ``version - 1``.
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
    created_at = parse_timestamp(pending.created_at)
    if advance:
        written = await connection.execute(
            _ADVANCE,
            channel_id,
            version,
            status,
            document_json,
            _jsonb_value(document_json),
            pending.interaction_id,
            pending.actor_id,
            pending.verb,
            args_json,
            pending.dice_json,
            pending.resolution_json,
            created_at,
            resulting_state_hash,
            undoes_seq,
            prev_hash,
            chained_hash,
        )
        if _rows_changed(written) != 1:
            actual = await connection.fetchval(
                "SELECT version FROM games WHERE channel_id = $1", channel_id
            )
            raise VersionConflict(channel_id, version - 1, -1 if actual is None else int(actual))
    else:
        await _insert_state_and_event(
            connection,
            channel_id,
            version,
            status,
            document_json,
            pending,
            args_json,
            resulting_state_hash,
            undoes_seq,
            created_at,
            prev_hash,
            chained_hash,
        )
    return pending.record(
        channel_id=channel_id,
        version=version,
        args_json=args_json,
        resulting_state_hash=resulting_state_hash,
        undoes_seq=undoes_seq,
        created_at=created_at,
        prev_hash=prev_hash,
        chained_hash=chained_hash,
    )


async def _insert_state_and_event(
    connection: Connection,
    channel_id: int,
    version: int,
    status: GameStatus,
    document_json: str,
    pending: PreparedEvent,
    args_json: str,
    resulting_state_hash: str,
    undoes_seq: int | None,
    created_at: datetime,
    prev_hash: str,
    chained_hash: str,
) -> None:
    await connection.execute(
        _INSERT_STATE, channel_id, version, status, document_json, _jsonb_value(document_json)
    )
    await connection.execute(
        _INSERT_EVENT,
        channel_id,
        version,
        pending.interaction_id,
        pending.actor_id,
        pending.verb,
        args_json,
        pending.dice_json,
        pending.resolution_json,
        version,
        resulting_state_hash,
        undoes_seq,
        created_at,
        prev_hash,
        chained_hash,
    )


class _NextState:
    """What a write turns the game into, decided inside the transaction."""

    __slots__ = ("args_json", "document_json", "status", "undoes_seq")

    def __init__(
        self,
        document_json: str,
        status: GameStatus,
        undoes_seq: int | None = None,
        args_json: str | None = None,
    ) -> None:
        self.document_json = document_json
        self.status = status
        self.undoes_seq = undoes_seq
        self.args_json = args_json


_Decide = Callable[[Connection, int, GameStatus], Awaitable[_NextState]]


async def _append_tx(
    connection: Connection,
    *,
    channel_id: int,
    expected_version: int | None,
    pending: PreparedEvent,
    decide: _Decide,
    chains: VerifiedChains,
    prepared: PreparedState | None = None,
) -> CommitResult:
    """The one write path after creation: row lock, duplicate check, version guard, the
    chain it extends verified, write."""
    async with connection.transaction():
        # The row lock first: a concurrent write of this channel (any process) waits here
        # until it commits, so the duplicate check below sees its interaction id.
        head = await connection.fetchrow(
            "SELECT g.version, g.status, e.hash, s.document_text, g.created_at, e.state_hash, "
            "s.status FROM games AS g "
            "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
            "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
            "WHERE g.channel_id = $1 FOR UPDATE OF g",
            channel_id,
        )
        duplicate = await _duplicate_of(connection, channel_id, pending.interaction_id)
        if duplicate is not None:
            return duplicate
        if head is None:
            raise GameNotFound(channel_id)
        version = int(head[0])
        if expected_version is not None and version != expected_version:
            raise VersionConflict(channel_id, expected_version, version)
        if head[2] is None:
            raise CorruptRecord(channel_id, f"event {version} of the current version is missing")
        if head[3] is None:
            raise CorruptRecord(channel_id, f"state of version {version} is missing")
        # Nothing is written on top of a chain this process has not verified (the row
        # lock keeps every other writer of this game out while it is read).
        game = stamp_text(head[4])
        if not chains.matches(channel_id, game, version, head[2]):
            stored = VerifiedHead(game, version, str(head[2]))
            await _verified_up_to(connection, channel_id, chains, stored)
        upcoming = await decide(connection, version, _check_status(head[1], channel_id))
        patch_json = None if prepared is None else prepared.patch_from(str(head[3]))
        if patch_json is None or prepared is None or prepared.text != upcoming.document_json:
            # The base of the patch is the stored head: it must be the state the chain says.
            if state_hash(str(head[3]), str(head[6])) != head[5]:
                raise TamperedGame(channel_id, STATE_EDITED)
            # Off the loop: a diff of two whole documents is milliseconds of CPU.
            patch_json = await asyncio.to_thread(
                _patch_between, channel_id, version, str(head[3]), upcoming.document_json
            )
        new_version = version + 1
        event = await _insert_event(
            connection,
            channel_id=channel_id,
            version=new_version,
            prev_hash=str(head[2]),
            pending=pending,
            args_json=upcoming.args_json or pending.args_json,
            document_json=upcoming.document_json,
            status=upcoming.status,
            undoes_seq=upcoming.undoes_seq,
            advance=True,
        )
        await connection.execute(
            _PATCH_AND_DROP,
            channel_id,
            new_version,
            upcoming.status,
            patch_json,
            version,
            not is_snapshot(version),
        )
    return CommitResult(event)


async def _state_text(
    connection: Connection, channel_id: int, version: int, chains: VerifiedChains
) -> tuple[str, str]:
    """``(status, canonical document JSON)`` of any stored version, checked against the
    chain up to the head this process verified (see the SQLite store's `_state_text_tx`)."""
    head = await _verified_head(connection, channel_id, chains)
    base = await connection.fetchrow(
        "SELECT version, status, document_text FROM states "
        "WHERE channel_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1",
        channel_id,
        version,
    )
    if base is None or not 1 <= version <= head.seq:
        raise CorruptRecord(channel_id, f"no state of version {version}")
    anchor = chains.anchor_for(channel_id, head, version)
    events, _, patches = await _span_rows(
        connection, channel_id, int(base[0]), anchor.seq, version, every=False, documents=False
    )
    _, status, text = await asyncio.to_thread(
        partial(
            verify_span,
            channel_id,
            first=int(base[0]),
            last=anchor.seq,
            events=events,
            full=[(int(base[0]), str(base[1]), str(base[2]))],
            patches=patches,
            timestamp=stamp_text,
            anchor=anchor,
            states_upto=version,
        )
    )
    return status, text


# ---- the chain of each game, verified once per process then incrementally (db/chain.py) ---


def _text_rows(found: list[asyncpg.Record]) -> list[tuple[int, str, str]]:
    return [(int(row[0]), str(row[1]), str(row[2])) for row in found]


async def _span_rows(
    connection: Connection,
    channel_id: int,
    first: int,
    last: int,
    upto: int,
    *,
    every: bool,
    documents: bool = True,
) -> tuple[list[asyncpg.Record], list[tuple[int, str, str]], list[tuple[int, str, str]]]:
    """The event rows ``first``..``last``, the whole documents (unless ``documents`` is
    false) and the patches of versions ``first``..``upto`` (``every``: all the game's)."""
    events = await connection.fetch(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = $1 AND seq BETWEEN $2 AND $3 "
        "ORDER BY seq",
        channel_id,
        first,
        last,
    )
    if every:
        full, patches = await _history_rows(connection, channel_id)
        return list(events), full, patches
    full = []
    if documents:
        full = _text_rows(
            await connection.fetch(
                "SELECT version, status, document_text FROM states "
                "WHERE channel_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version",
                channel_id,
                first,
                upto,
            )
        )
    patches = _text_rows(
        await connection.fetch(
            "SELECT version, status, patch FROM patches "
            "WHERE channel_id = $1 AND version > $2 AND version <= $3 ORDER BY version",
            channel_id,
            first,
            upto,
        )
    )
    return list(events), full, patches


async def _verified_up_to(
    connection: Connection, channel_id: int, chains: VerifiedChains, stored: VerifiedHead
) -> None:
    """Make ``stored`` a head this process verified (see the SQLite store's
    `_verified_up_to`); the hashing runs on a worker thread, off the event loop."""
    known = chains.head(channel_id)
    first = first_to_verify(channel_id, known, stored)
    if first is None:
        return
    refused = chains.refusal(channel_id, stored)
    if refused is not None:
        raise refused
    anchor = known if known is not None and known.game == stored.game else None
    events, full, patches = await _span_rows(
        connection, channel_id, first, stored.seq, stored.seq, every=anchor is None
    )
    snapshots: dict[int, str] = {}
    try:
        await asyncio.to_thread(
            partial(
                verify_span,
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
        )
    except ChainBroken as error:
        chains.refuse(channel_id, stored, error)
        raise
    chains.remember(channel_id, stored, snapshots)


async def _verified_head(
    connection: Connection, channel_id: int, chains: VerifiedChains
) -> VerifiedHead:
    """The game's head, verified (inside the caller's transaction)."""
    row = await connection.fetchrow(
        "SELECT g.created_at, g.version, e.hash FROM games AS g "
        "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
        "WHERE g.channel_id = $1",
        channel_id,
    )
    if row is None:
        raise GameNotFound(channel_id)
    if row[2] is None:
        raise ChainBroken(channel_id, int(row[1]), EVENT_MISSING)
    stored = VerifiedHead(stamp_text(row[0]), int(row[1]), str(row[2]))
    if not chains.matches(channel_id, stored.game, stored.seq, stored.hash):
        await _verified_up_to(connection, channel_id, chains, stored)
    return stored


async def _history_rows(
    connection: Connection, channel_id: int
) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]]:
    """A game's stored full documents and patches, as ``(version, status, text)``."""
    full = [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in await connection.fetch(
            "SELECT version, status, document_text FROM states "
            "WHERE channel_id = $1 ORDER BY version",
            channel_id,
        )
    ]
    patches = [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in await connection.fetch(
            "SELECT version, status, patch FROM patches WHERE channel_id = $1 ORDER BY version",
            channel_id,
        )
    ]
    return full, patches


async def compact_all_games(connection: Connection) -> None:
    """Migration 8, in its transaction: every game's history as patches and snapshots
    (as the SQLite store's `compact_all_games`; a damaged game is left as it was)."""
    games = await connection.fetch("SELECT channel_id, version FROM games ORDER BY channel_id")
    for channel_id, version in games:
        rows = [
            (int(row[0]), str(row[1]), str(row[2]))
            for row in await connection.fetch(
                "SELECT version, status, document_text FROM states "
                "WHERE channel_id = $1 ORDER BY version",
                channel_id,
            )
        ]
        seqs = {
            int(row[0])
            for row in await connection.fetch(
                "SELECT seq FROM events WHERE channel_id = $1", channel_id
            )
        }
        complete = [row[0] for row in rows] == list(range(1, int(version) + 1))
        try:
            full, patches = compact_history(rows if complete else [])
        except ValueError:
            complete, full, patches = False, [], []
        if not complete or {row[0] for row in patches} - seqs:
            continue
        await connection.executemany(_INSERT_PATCH, [(channel_id, *row) for row in patches])
        kept = {row[0] for row in full}
        await connection.executemany(
            "DELETE FROM states WHERE channel_id = $1 AND version = $2",
            [(channel_id, row[0]) for row in rows if row[0] not in kept],
        )


async def _current_document_json(connection: Connection, channel_id: int, version: int) -> str:
    """The head's document, which must be the state its event's hash says."""
    row = await connection.fetchrow(
        "SELECT s.document_text, s.status, e.state_hash FROM states AS s "
        "JOIN events AS e ON e.channel_id = s.channel_id AND e.seq = s.version "
        "WHERE s.channel_id = $1 AND s.version = $2",
        channel_id,
        version,
    )
    if row is None:
        raise CorruptRecord(channel_id, f"state of version {version} is missing")
    if state_hash(str(row[0]), str(row[1])) != row[2]:
        raise TamperedGame(channel_id, STATE_EDITED)
    return str(row[0])


def _decide_commit(channel_id: int, document_json: str, new_status: GameStatus | None) -> _Decide:
    async def decide(connection: Connection, version: int, status: GameStatus) -> _NextState:
        if status == "ended":
            raise GameEnded(channel_id)
        return _NextState(document_json, new_status or status)

    return decide


def _decide_end(channel_id: int) -> _Decide:
    async def decide(connection: Connection, version: int, status: GameStatus) -> _NextState:
        if status == "ended":
            raise GameEnded(channel_id)
        return _NextState(await _current_document_json(connection, channel_id, version), "ended")

    return decide


def _decide_undo(channel_id: int, chains: VerifiedChains) -> _Decide:
    async def decide(connection: Connection, version: int, status: GameStatus) -> _NextState:
        # As in the SQLite store: the latest event that is neither an undo, nor the
        # creation, nor already undone; its previous state becomes the new version.
        target = await connection.fetchrow(
            "SELECT e.seq, e.verb FROM events AS e "
            "WHERE e.channel_id = $1 AND e.verb NOT IN ($2, $3) AND e.verb NOT LIKE 'seat.%' "
            "AND NOT EXISTS (SELECT 1 FROM events AS u "
            "                WHERE u.channel_id = e.channel_id AND u.undoes_seq = e.seq) "
            "ORDER BY e.seq DESC LIMIT 1",
            channel_id,
            VERB_UNDO,
            VERB_CREATED,
        )
        if target is None:
            raise NothingToUndo(channel_id)
        undone_seq, undone_verb = int(target[0]), str(target[1])
        before = await _state_text(connection, channel_id, undone_seq - 1, chains)
        return _NextState(
            document_json=before[1],
            status=_check_status(before[0], channel_id),
            undoes_seq=undone_seq,
            args_json=canonical_json({"undone_seq": undone_seq, "undone_verb": undone_verb}),
        )

    return decide


def _translate(error: Exception, channel_id: int | None) -> StoreError:
    """Turn a driver exception into a storage error that names the channel."""
    if isinstance(error, asyncpg.IntegrityConstraintViolationError | asyncpg.DataError):
        return CorruptRecord(channel_id, str(error))
    if isinstance(error, asyncpg.RaiseError):
        return CorruptRecord(channel_id, str(error))
    return StoreUnavailable(str(error) or type(error).__name__, channel_id)


# --------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------


class PostgresStore:
    """`GameStore` on a PostgreSQL database, through a pool of asyncpg connections."""

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        """Wrap an open pool on a migrated database; use `PostgresStore.open` instead."""
        self._pool = pool
        self._closed = False
        self.url = url
        self.path = redact(url)
        # A commit's canonical JSON and patch (`db.prepare`), made off the event loop: by
        # the caller when it passes a `PreparedState`, else on a worker thread.
        self.preparer = CommitPreparer()
        # The chain head this process verified per channel (db/chain.py): a game's history
        # is verified once, then every commit extends the verified head.
        self.verified_chains = VerifiedChains()
        # While the server is down: one log line per outage, not asyncpg's traceback per
        # reconnection attempt (db/outage.py).
        self._outages = watch_pool(self.path)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        create: bool = True,
        migrate: bool = True,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> Self:
        """Connect to the database at ``url`` (creating the schema and migrating by default).

        The database itself must exist (``createdb``). ``create=False`` refuses one without
        an Arbitro schema; ``migrate=False`` refuses an out-of-date schema. Raises
        `SchemaError` for a database of another program or newer than this code, and
        `StoreUnavailable` when the server cannot be reached.
        """
        where = redact(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=max(1, pool_size),
                command_timeout=60,
                reset=_keep_session,
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreUnavailable(f"{where}: {error}") from error
        try:
            async with pool.acquire() as connection:
                version = await migrations_pg.inspect_schema(connection, where)
                latest = migrations_pg.latest_version()
                if version == 0 and not create:
                    raise SchemaError(where, "no Arbitro database here")
                if version < latest and not migrate:
                    raise SchemaError(
                        where,
                        "no Arbitro database here"
                        if version == 0
                        else f"schema version {version} is older than {latest}; "
                        "run `arbitro db migrate`",
                    )
                if version < latest:
                    await migrations_pg.apply_migrations(connection, where)
                await migrations_pg.check_tables(connection, where)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    async def close(self) -> None:
        """Close every pooled connection; idempotent."""
        if not self._closed:
            self._closed = True
            await self._pool.close()

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
        self, work: Callable[[Connection], Awaitable[_T]], channel_id: int | None = None
    ) -> _T:
        """Run ``work`` on a pooled connection, translating driver errors.

        A write whose interaction id collides with one committed concurrently in another
        channel (the unique index, not the row lock, caught it) is run once more: the
        second run finds the stored event and reports `InteractionReused` or a duplicate.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed", channel_id)
        for attempt in range(2):
            try:
                async with self._pool.acquire() as connection:
                    result = await work(connection)
                self._outages.answered()
                return result
            except asyncpg.UniqueViolationError as error:
                if error.constraint_name == _INTERACTION_CONSTRAINT and attempt == 0:
                    continue
                raise _translate(error, channel_id) from error
            except _UNREACHABLE as error:
                self._outages.failed(error)
                raise _translate(error, channel_id) from error
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                raise _translate(error, channel_id) from error
        raise AssertionError("unreachable")

    # ---- schema ------------------------------------------------------------------------

    async def schema_version(self) -> int:
        """The schema version of the database."""
        return await self._run(migrations_pg.read_version)

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

        ``referee_id`` joins the game as its referee in the same transaction.
        """
        if status not in GAME_STATUSES:
            raise ValueError(f"unknown game status {status!r}")
        channel_id = operator.index(channel_id)
        guild_id = None if guild_id is None else operator.index(guild_id)
        document_json = encode_document(document)
        pending = system_event(
            VERB_CREATED,
            args={"ruleset": ruleset, "language": language, "guild_id": guild_id},
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        created = parse_timestamp(pending.created_at)
        referee = None if referee_id is None else operator.index(referee_id)

        async def work(connection: Connection) -> CommitResult:
            async with connection.transaction():
                duplicate = await _duplicate_of(connection, channel_id, pending.interaction_id)
                if duplicate is not None:
                    return duplicate
                inserted = await connection.execute(
                    _INSERT_GAME,
                    channel_id,
                    guild_id,
                    ruleset,
                    language,
                    status,
                    1,
                    created,
                    created,
                )
                if _rows_changed(inserted) != 1:
                    # A concurrent create of this channel won (we waited for it to commit);
                    # if it was this very interaction, this is its retry.
                    duplicate = await _duplicate_of(connection, channel_id, pending.interaction_id)
                    if duplicate is not None:
                        return duplicate
                    raise GameExists(channel_id)
                event = await _insert_event(
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
                if referee is not None:
                    # In the same transaction: a game never exists without its referee.
                    await connection.execute(
                        "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                        "VALUES ($1, $2, 'referee', NULL, $3)",
                        channel_id,
                        referee,
                        created,
                    )
                await _reseal(connection, channel_id)
            return CommitResult(event)

        result = await self._run(work, channel_id)
        if result.duplicate:
            return await self.load(channel_id)
        self.preparer.remember(channel_id, document_json)
        # Written here, in one transaction: its one-event chain is verified by construction.
        self.verified_chains.remember(
            channel_id, VerifiedHead(pending.created_at, 1, result.event.hash)
        )
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
        """The channel's game: metadata, current version and document."""

        chains = self.verified_chains
        return await self._run(
            lambda connection: _load(connection, channel_id, chains), channel_id
        )

    async def open_command(
        self, channel_id: int, interaction_id: str | None = None
    ) -> CommandContext:
        """The game, the event ``interaction_id`` already committed (if any) and the
        members: one pooled connection, one read-only transaction (one snapshot)."""

        async def work(connection: Connection) -> CommandContext:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                earlier = (
                    None
                    if interaction_id is None
                    else await _event_by_interaction(connection, str(interaction_id))
                )
                record = await _load(connection, channel_id, self.verified_chains)
                pace = await connection.fetchval(
                    "SELECT pace_hours FROM games WHERE channel_id = $1", channel_id
                )
                deadlines = await connection.fetch(
                    "SELECT channel_id, side, due_at, reminded, set_at FROM deadlines "
                    "WHERE channel_id = $1 ORDER BY due_at, side",
                    channel_id,
                )
                return CommandContext(
                    record=record,
                    earlier=earlier,
                    members=tuple(await _members(connection, channel_id)),
                    deadlines=tuple(_deadline_from_row(row) for row in deadlines),
                    pace_hours=None if pace is None else int(pace),
                    side_roles=tuple(
                        (str(row[0]), int(row[1]))
                        for row in await connection.fetch(
                            "SELECT side, role_id FROM side_roles WHERE channel_id = $1 "
                            "ORDER BY side",
                            channel_id,
                        )
                    ),
                )

        return await self._run(work, channel_id)

    async def list_games(
        self, guild_id: int | None, status: GameStatus | None = None
    ) -> list[GameSummary]:
        """The games of a guild (``None``: outside any guild), optionally by status."""
        clauses = ["guild_id IS NULL" if guild_id is None else "guild_id = $1"]
        params: list[Any] = [] if guild_id is None else [guild_id]
        if status is not None:
            params.append(status)
            clauses.append(f"status = ${len(params)}")
        sql = (
            f"SELECT {_GAME_COLUMNS} FROM games WHERE {' AND '.join(clauses)} "
            "ORDER BY created_at, channel_id"
        )

        async def work(connection: Connection) -> list[GameSummary]:
            return rows.summaries_from_rows(await connection.fetch(sql, *params), when=_aware)

        return await self._run(work)

    async def all_games(self, status: GameStatus | None = None) -> list[GameSummary]:
        """Every game of every guild, optionally only those with ``status``, by channel."""

        async def work(connection: Connection) -> list[GameSummary]:
            if status is None:
                found = await connection.fetch(
                    f"SELECT {_GAME_COLUMNS} FROM games ORDER BY channel_id"
                )
            else:
                found = await connection.fetch(
                    f"SELECT {_GAME_COLUMNS} FROM games WHERE status = $1 ORDER BY channel_id",
                    status,
                )
            return rows.summaries_from_rows(found, when=_aware)

        return await self._run(work)

    async def commit(
        self,
        channel_id: int,
        expected_version: int,
        new_state: Document,
        event: NewEvent | PreparedEvent,
        *,
        status: GameStatus | None = None,
    ) -> CommitResult:
        """Store ``new_state`` as version ``expected_version + 1`` and log ``event``."""
        if event.verb in RESERVED_VERBS:
            raise ValueError(f"verb {event.verb!r} is reserved for the store")
        if status is not None and status not in ("setup", "active"):
            raise ValueError(f"commit cannot set status {status!r}")
        channel_id = operator.index(channel_id)
        if isinstance(new_state, PreparedState):
            prepared = new_state
        else:
            prepared = await asyncio.to_thread(self.preparer.prepare, channel_id, new_state)
        pending = event if isinstance(event, PreparedEvent) else prepare_event(event)
        return await self._append(
            channel_id,
            expected_version,
            pending,
            _decide_commit(channel_id, prepared.text, status),
            prepared,
        )

    async def _append(
        self,
        channel_id: int,
        expected_version: int | None,
        pending: PreparedEvent,
        decide: _Decide,
        prepared: PreparedState | None = None,
    ) -> CommitResult:
        chains = self.verified_chains

        async def work(connection: Connection) -> CommitResult:
            return await _append_tx(
                connection,
                channel_id=channel_id,
                expected_version=expected_version,
                pending=pending,
                decide=decide,
                chains=chains,
                prepared=prepared,
            )

        result = await self._run(work, channel_id)
        if not result.duplicate:  # committed: its event extends the head verified
            chains.advance(channel_id, result.event)
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
        """End the game: a ``game.ended`` event whose state is the same document, ended."""
        channel_id = operator.index(channel_id)
        pending = system_event(
            VERB_ENDED,
            args={} if reason is None else {"reason": reason},
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        return await self._append(channel_id, expected_version, pending, _decide_end(channel_id))

    async def undo(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
    ) -> CommitResult:
        """Undo the latest event that is not an undo and not already undone."""
        channel_id = operator.index(channel_id)
        pending = system_event(VERB_UNDO, actor_id=actor_id, interaction_id=interaction_id)
        return await self._append(
            channel_id, expected_version, pending, _decide_undo(channel_id, self.verified_chains)
        )

    async def archive_game(
        self, channel_id: int, bundle: ExportBundle | None = None, *, title: str = ""
    ) -> ArchivedGame:
        """Move an ended game out of its channel into the archive, in one transaction (its
        history read page by page and stored compact: `db.archive`)."""
        version, fields, blob = await archive_row(self, channel_id, bundle, title)
        # The SQLite text timestamps, back to datetimes for TIMESTAMPTZ.
        values = [*fields]
        for index in (6, 7, 8):
            values[index] = parse_timestamp(values[index])

        async def work(connection: Connection) -> ArchivedGame:
            async with connection.transaction():
                row = await connection.fetchrow(
                    "SELECT status, version FROM games WHERE channel_id = $1 FOR UPDATE",
                    channel_id,
                )
                if row is None:
                    raise GameNotFound(channel_id)
                if row[0] != "ended":
                    raise GameNotEnded(channel_id)
                if int(row[1]) != version:
                    raise VersionConflict(channel_id, version, int(row[1]))
                archived = await connection.fetchrow(
                    "INSERT INTO archived_games (channel_id, guild_id, ruleset, language, "
                    "title, version, created_at, ended_at, archived_at, head_hash, bundle) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
                    f"RETURNING {rows.ARCHIVE_COLUMNS}",
                    *values,
                    blob,
                )
                for table in rows.CHILD_TABLES:
                    await connection.execute(
                        f"DELETE FROM {table} WHERE channel_id = $1", channel_id
                    )
            return _archive_from_row(archived)

        entry = await self._run(work, channel_id)
        self.verified_chains.forget(channel_id)
        return entry

    async def archived_games(self, guild_id: int | None) -> list[ArchivedGame]:
        """The archived games of a guild, newest first."""

        async def work(connection: Connection) -> list[ArchivedGame]:
            found = await connection.fetch(
                f"SELECT {rows.ARCHIVE_COLUMNS} FROM archived_games "
                "WHERE guild_id IS NOT DISTINCT FROM $1 ORDER BY id DESC",
                guild_id,
            )
            return [_archive_from_row(row) for row in found]

        return await self._run(work)

    async def all_archives(self) -> list[ArchivedGame]:
        """Every archived game of every guild, by id (for ``arbitro db copy``)."""

        async def work(connection: Connection) -> list[ArchivedGame]:
            found = await connection.fetch(
                f"SELECT {rows.ARCHIVE_COLUMNS} FROM archived_games ORDER BY id"
            )
            return [_archive_from_row(row) for row in found]

        return await self._run(work)

    async def restore_archive(self, entry: ArchivedGame, bundle: dict[str, Any]) -> None:
        """Insert an archived game exactly as another store holds it (same id)."""
        blob = await asyncio.to_thread(encode_bundle, bundle)

        async def work(connection: Connection) -> None:
            async with connection.transaction():
                await connection.execute(
                    "INSERT INTO archived_games (id, channel_id, guild_id, ruleset, language, "
                    "title, version, created_at, ended_at, archived_at, head_hash, bundle) "
                    "OVERRIDING SYSTEM VALUE "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    entry.id,
                    entry.channel_id,
                    entry.guild_id,
                    entry.ruleset,
                    entry.language,
                    entry.title,
                    entry.version,
                    entry.created_at,
                    entry.ended_at,
                    entry.archived_at,
                    entry.head_hash,
                    blob,
                )
                # Later archives get ids after the copied ones.
                await connection.execute(
                    "SELECT setval(pg_get_serial_sequence('archived_games', 'id'), "
                    "(SELECT max(id) FROM archived_games))"
                )

        await self._run(work)

    async def archived_export(self, archive_id: int) -> dict[str, Any]:
        """An archived game's export bundle as JSON."""

        async def work(connection: Connection) -> bytes:
            blob = await connection.fetchval(
                "SELECT bundle FROM archived_games WHERE id = $1", archive_id
            )
            if blob is None:
                raise ArchiveNotFound(archive_id)
            return bytes(blob)

        return await asyncio.to_thread(bundle_of, await self._run(work))

    async def delete_game(self, channel_id: int) -> None:
        """Delete an ended game with its events, states, members and deadlines."""

        async def work(connection: Connection) -> None:
            async with connection.transaction():
                status = await connection.fetchval(
                    "SELECT status FROM games WHERE channel_id = $1 FOR UPDATE", channel_id
                )
                if status is None:
                    raise GameNotFound(channel_id)
                if status != "ended":
                    raise GameNotEnded(channel_id)
                for table in rows.CHILD_TABLES:
                    await connection.execute(
                        f"DELETE FROM {table} WHERE channel_id = $1", channel_id
                    )

        await self._run(work, channel_id)
        self.verified_chains.forget(channel_id)

    # ---- history -----------------------------------------------------------------------

    async def events(
        self, channel_id: int, after_seq: int = 0, limit: int = 50
    ) -> list[EventRecord]:
        """Up to ``limit`` (at most 1000) events after ``after_seq``, oldest first."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))

        async def work(connection: Connection) -> list[EventRecord]:
            rows = await connection.fetch(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = $1 AND seq > $2 "
                "ORDER BY seq LIMIT $3",
                channel_id,
                after_seq,
                page,
            )
            if not rows:
                await _require_game(connection, channel_id)
            # Each hashes, each links to the last: a long page is hashed off the event loop.
            if len(rows) > 32:
                await asyncio.to_thread(check_event_page, channel_id, rows, stamp_text)
            else:
                check_event_page(channel_id, rows, stamp_text)
            return [_event_from_row(row) for row in rows]

        return await self._run(work, channel_id)

    async def state_at(self, channel_id: int, version: int) -> StateRecord:
        """The stored state of one version of the game."""

        async def work(connection: Connection) -> StateRecord:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                row = await _state_text(connection, channel_id, version, self.verified_chains)
            return StateRecord(
                version=version,
                status=_check_status(row[0], channel_id),
                document=_decode_document(row[1], channel_id, version),
            )

        return await self._run(work, channel_id)

    async def export(self, channel_id: int, *, verify: bool = True) -> ExportBundle:
        """Game, members, every event and every state, read in one snapshot."""

        async def work(connection: Connection) -> ExportBundle:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                game_row = await connection.fetchrow(
                    f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = $1", channel_id
                )
                if game_row is None:
                    raise GameNotFound(channel_id)
                if verify:  # against the head this process verified, first bad event named
                    await _verified_head(connection, channel_id, self.verified_chains)
                members = await _members(connection, channel_id)
                event_rows = await connection.fetch(
                    f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = $1 ORDER BY seq",
                    channel_id,
                )
                full, patches = await _history_rows(connection, channel_id)
            game = _summary_from_row(game_row)
            events = [_event_from_row(row) for row in event_rows]
            head = events[-1].hash if events else GENESIS_HASH
            if verify:
                head = verify_chain(events)
            state_rows = history_states(
                channel_id, [event.state_hash for event in events], full, patches, verify=verify
            )
            if verify and game.version != len(events):
                raise ChainBroken(channel_id, len(events), f"game is at version {game.version}")
            states = [
                StateRecord(
                    version=state_version,
                    status=_check_status(state_status, channel_id),
                    document=_decode_document(text, channel_id, state_version),
                )
                for state_version, state_status, text in state_rows
            ]
            return ExportBundle(
                game=game,
                members=members,
                events=events,
                states=states,
                head_hash=head,
                exported_at=utc_now(),
            )

        return await self._run(work, channel_id)

    async def export_head(self, channel_id: int) -> ExportHead:
        """What an export writes before the events (`db.history.ExportHead`)."""

        async def work(connection: Connection) -> ExportHead:
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                game_row = await connection.fetchrow(
                    f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = $1", channel_id
                )
                if game_row is None:
                    raise GameNotFound(channel_id)
                members = await _members(connection, channel_id)
                head = await connection.fetchrow(
                    "SELECT e.hash, s.status, s.document_text FROM games AS g "
                    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
                    "LEFT JOIN states AS s "
                    "ON s.channel_id = g.channel_id AND s.version = g.version "
                    "WHERE g.channel_id = $1",
                    channel_id,
                )
                beyond = await connection.fetchval(
                    "SELECT max(version) FROM (SELECT version FROM states WHERE channel_id = $1 "
                    "UNION ALL SELECT version FROM patches WHERE channel_id = $1) AS kept",
                    channel_id,
                )
            game = _summary_from_row(game_row)
            if head[2] is None:
                raise CorruptRecord(channel_id, f"state of version {game.version} is missing")
            if beyond is not None and int(beyond) > game.version:
                raise ChainBroken(channel_id, game.version, "states without an event")
            return ExportHead(
                game=game.to_json_dict(),
                members=[member.to_json_dict() for member in members],
                head_hash=GENESIS_HASH if head[0] is None else str(head[0]),
                exported_at=format_timestamp(utc_now()),
                current=(str(head[1]), str(head[2])),
            )

        return await self._run(work, channel_id)

    async def history_page(
        self, channel_id: int, after_seq: int, upto_seq: int, limit: int = PAGE_VERSIONS
    ) -> list[StoredVersion]:
        """Versions ``after_seq + 1`` to at most ``upto_seq`` (``limit``, at most 1000):
        each event's stored texts with its state's patch and full document, if any."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))

        async def work(connection: Connection) -> list[StoredVersion]:
            found = await connection.fetch(_HISTORY_PAGE, channel_id, after_seq, upto_seq, page)
            if not found:
                await _require_game(connection, channel_id)
            return [stored_version_from_row(row, when=_aware) for row in found]

        return await self._run(work, channel_id)

    async def archive_chunk(self, archive_id: int, offset: int, size: int) -> bytes:
        """Part of an archive's stored bundle (empty past its end)."""

        async def work(connection: Connection) -> bytes:
            row = await connection.fetchrow(
                "SELECT substring(bundle FROM $2 FOR $3) FROM archived_games WHERE id = $1",
                archive_id,
                max(0, offset) + 1,
                max(1, size),
            )
            if row is None:
                raise ArchiveNotFound(archive_id)
            return bytes(row[0])

        return await self._run(work)

    async def event_by_interaction(self, interaction_id: str) -> EventRecord | None:
        """The event an interaction committed, if any."""
        return await self._run(
            lambda connection: _event_by_interaction(connection, str(interaction_id))
        )

    # ---- members -----------------------------------------------------------------------

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
        joined_at = parse_timestamp(format_timestamp(utc_now()))

        async def work(connection: Connection) -> Member:
            async with connection.transaction():
                await _require_game(connection, channel_id)
                row = await connection.fetchrow(
                    "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                    "VALUES ($1, $2, $3, $4, $5) "
                    "ON CONFLICT (channel_id, user_id) DO UPDATE SET role = excluded.role, "
                    "side = excluded.side "
                    "RETURNING channel_id, user_id, role, side, joined_at",
                    channel_id,
                    user_id,
                    role,
                    side,
                    joined_at,
                )
                await _reseal(connection, channel_id)
            return _member_from_row(row)

        return await self._run(work, channel_id)

    async def members(self, channel_id: int) -> list[Member]:
        """The game's members in joining order (empty if none)."""
        return await self._run(lambda connection: _members(connection, channel_id), channel_id)

    async def remove_member(self, channel_id: int, user_id: int) -> bool:
        """Remove a member; false if they were not one."""
        return await self._changed(
            "DELETE FROM members WHERE channel_id = $1 AND user_id = $2",
            channel_id,
            user_id,
            reseal=True,
        )

    async def _changed(
        self, sql: str, channel_id: int, *params: Any, reseal: bool = False
    ) -> bool:
        """One statement; with ``reseal`` (members, deadlines) it refreshes the game's
        checksum in the same transaction."""

        async def work(connection: Connection) -> bool:
            if not reseal:
                return _rows_changed(await connection.execute(sql, channel_id, *params)) > 0
            async with connection.transaction():
                changed = _rows_changed(await connection.execute(sql, channel_id, *params))
                await _reseal(connection, channel_id)
            return changed > 0

        return await self._run(work, channel_id)

    # ---- deadlines ---------------------------------------------------------------------

    async def set_deadline(self, channel_id: int, side: str, due_at: datetime) -> Deadline:
        """Set or move ``side``'s deadline (timezone-aware); resets its reminder."""
        due = parse_timestamp(format_timestamp(due_at))
        set_at = parse_timestamp(format_timestamp(utc_now()))

        async def work(connection: Connection) -> Deadline:
            async with connection.transaction():
                await _require_game(connection, channel_id)
                await connection.execute(
                    "INSERT INTO deadlines (channel_id, side, due_at, reminded, set_at) "
                    "VALUES ($1, $2, $3, FALSE, $4) "
                    "ON CONFLICT (channel_id, side) DO UPDATE SET due_at = excluded.due_at, "
                    "reminded = FALSE, set_at = excluded.set_at",
                    channel_id,
                    side,
                    due,
                    set_at,
                )
                await _reseal(connection, channel_id)
            return Deadline(
                channel_id=channel_id, side=side, due_at=due, reminded=False, set_at=set_at
            )

        return await self._run(work, channel_id)

    async def clear_deadline(self, channel_id: int, side: str) -> bool:
        """Drop ``side``'s deadline (it acted); false if there was none."""
        return await self._changed(
            "DELETE FROM deadlines WHERE channel_id = $1 AND side = $2",
            channel_id,
            side,
            reseal=True,
        )

    async def deadlines(self, channel_id: int) -> list[Deadline]:
        """The channel's deadlines, earliest first."""

        async def work(connection: Connection) -> list[Deadline]:
            rows = await connection.fetch(
                "SELECT channel_id, side, due_at, reminded, set_at FROM deadlines "
                "WHERE channel_id = $1 ORDER BY due_at, side",
                channel_id,
            )
            return [_deadline_from_row(row) for row in rows]

        return await self._run(work, channel_id)

    async def due_deadlines(self, now: datetime) -> list[Deadline]:
        """Deadlines due at ``now`` or earlier, not yet reminded, in games still running."""
        moment = parse_timestamp(format_timestamp(now))

        async def work(connection: Connection) -> list[Deadline]:
            rows = await connection.fetch(
                "SELECT d.channel_id, d.side, d.due_at, d.reminded, d.set_at "
                "FROM deadlines AS d JOIN games AS g ON g.channel_id = d.channel_id "
                "WHERE NOT d.reminded AND d.due_at <= $1 AND g.status <> 'ended' "
                "ORDER BY d.due_at, d.channel_id, d.side",
                moment,
            )
            return [_deadline_from_row(row) for row in rows]

        return await self._run(work)

    async def bind_side(self, channel_id: int, side: str, role_id: int | None) -> None:
        """Bind ``side`` to a Discord role (None: unbind it)."""

        async def work(connection: Connection) -> None:
            async with connection.transaction():
                await _require_game(connection, channel_id)
                await connection.execute(
                    "DELETE FROM side_roles WHERE channel_id = $1 AND side = $2", channel_id, side
                )
                if role_id is not None:
                    await connection.execute(
                        "INSERT INTO side_roles (channel_id, side, role_id) VALUES ($1, $2, $3)",
                        channel_id,
                        side,
                        role_id,
                    )

        await self._run(work, channel_id)

    async def creator_role(self, guild_id: int) -> int | None:
        """The role a member needs to create a game in this guild (None: anyone)."""
        value = await self._run(
            lambda connection: connection.fetchval(
                "SELECT creator_role_id FROM guild_settings WHERE guild_id = $1", guild_id
            )
        )
        return None if value is None else int(value)

    async def set_creator_role(self, guild_id: int, role_id: int | None) -> None:
        """Set (None: clear) the role a member needs to create a game in this guild."""
        await self._run(
            lambda connection: connection.execute(
                "INSERT INTO guild_settings (guild_id, creator_role_id) VALUES ($1, $2) "
                "ON CONFLICT (guild_id) DO UPDATE SET creator_role_id = excluded.creator_role_id",
                guild_id,
                role_id,
            )
        )

    async def set_pace(self, channel_id: int, hours: int | None) -> None:
        """Set the game's pace (hours per owed action; None: no pace)."""
        if not await self._changed(
            "UPDATE games SET pace_hours = $2 WHERE channel_id = $1", channel_id, hours
        ):
            raise GameNotFound(channel_id)

    async def claim_warning(self, channel_id: int, side: str, due_at: datetime) -> bool:
        """Claim the reminder before this exact deadline (once across processes)."""
        return await self._changed(
            "INSERT INTO deadline_warnings (channel_id, side, due_at, sent_at) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (channel_id, side, due_at) DO NOTHING",
            channel_id,
            side,
            due_at,
            parse_timestamp(format_timestamp(utc_now())),
        )

    async def mark_reminded(self, channel_id: int, side: str, due_at: datetime) -> bool:
        """Flag the reminder of this exact deadline as sent; true for the one caller that did.

        A compare-and-set: of several processes marking the same deadline, one gets true.
        """
        return await self._changed(
            "UPDATE deadlines SET reminded = TRUE "
            "WHERE channel_id = $1 AND side = $2 AND due_at = $3 AND NOT reminded",
            channel_id,
            side,
            parse_timestamp(format_timestamp(due_at)),
        )

    # ---- rolls a player still owes ------------------------------------------------------

    async def save_pending_roll(self, roll: PendingRoll) -> PendingRoll:
        """Keep a command that waits for its roller's next die; returns it with its id.

        It replaces any earlier prompt of the same player in the same channel.
        """
        created_at = parse_timestamp(format_timestamp(utc_now()))

        async def work(connection: Connection) -> PendingRoll:
            async with connection.transaction():
                await _require_game(connection, roll.channel_id)
                await connection.execute(
                    "DELETE FROM pending_rolls WHERE channel_id = $1 AND user_id = $2",
                    roll.channel_id,
                    roll.user_id,
                )
                roll_id = await connection.fetchval(
                    "INSERT INTO pending_rolls (channel_id, user_id, version, verb, options, "
                    "faces, bot_faces, die_sides, label, side, created_at) VALUES "
                    "($1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7::text::jsonb, "
                    "$8, $9, $10, $11) RETURNING id",
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
                )
            return replace(roll, id=int(roll_id), created_at=created_at)

        return await self._run(work, roll.channel_id)

    async def pending_roll(self, channel_id: int, roll_id: int) -> PendingRoll | None:
        """The prompt ``roll_id`` of the channel, or None if it was answered or replaced."""

        async def work(connection: Connection) -> PendingRoll | None:
            row = await connection.fetchrow(
                "SELECT id, channel_id, user_id, version, verb, options::text, faces::text, "
                "bot_faces::text, die_sides, label, side, created_at FROM pending_rolls "
                "WHERE channel_id = $1 AND id = $2",
                channel_id,
                roll_id,
            )
            if row is None:
                return None
            try:
                options = json.loads(row[5])
                if not isinstance(options, dict):
                    raise ValueError("options are not an object")
                return PendingRoll(
                    id=int(row[0]),
                    channel_id=int(row[1]),
                    user_id=int(row[2]),
                    version=int(row[3]),
                    verb=str(row[4]),
                    options=options,
                    faces=[int(face) for face in json.loads(row[6])],
                    bot_faces=[int(face) for face in json.loads(row[7])],
                    die_sides=int(row[8]),
                    label=str(row[9]),
                    side=row[10],
                    created_at=_aware(row[11]),
                )
            except (TypeError, ValueError) as error:
                raise CorruptRecord(
                    channel_id, f"pending roll {roll_id} is unreadable ({error})"
                ) from error

        return await self._run(work, channel_id)

    async def drop_pending_roll(self, channel_id: int, roll_id: int) -> bool:
        """Forget a prompt (answered or void); false if it was already gone."""
        return await self._changed(
            "DELETE FROM pending_rolls WHERE channel_id = $1 AND id = $2", channel_id, roll_id
        )

    # ---- maintenance -------------------------------------------------------------------

    async def count_games(self, status: GameStatus | None = None) -> int:
        """How many games the database holds, optionally only those with ``status``."""

        async def work(connection: Connection) -> int:
            if status is None:
                return int(await connection.fetchval("SELECT count(*) FROM games"))
            return int(
                await connection.fetchval("SELECT count(*) FROM games WHERE status = $1", status)
            )

        return await self._run(work)

    async def check(self) -> list[str]:
        """Audit the database; an empty list means all is well.

        Per game: version == event count, every event and every stored version against the
        chain (`db.chain.verify_span`, as a first load), the game's status is its current
        state's, and the JSONB copy of each document holds the same value as the hashed
        text; then every archived game's bundle, verified like an export. (Referential
        integrity is the server's: foreign keys cannot be switched off per connection as in
        SQLite.)
        """

        async def work(connection: Connection) -> list[str]:
            problems: list[str] = []
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                games = await connection.fetch(
                    "SELECT channel_id, version, status FROM games ORDER BY channel_id"
                )
                for channel_id, version, status in games:
                    problems += await _channel_problems(
                        connection, int(channel_id), int(version), status
                    )
                # Every archived game, verified like an export, one bundle at a time.
                for archive_id in await connection.fetch(
                    "SELECT id FROM archived_games ORDER BY id"
                ):
                    row = await connection.fetchrow(
                        "SELECT channel_id, head_hash, bundle FROM archived_games WHERE id = $1",
                        archive_id[0],
                    )
                    problem = await asyncio.to_thread(archive_problem, archive_id[0], *row)
                    if problem is not None:
                        problems.append(problem)
            return problems

        return await self._run(work)

    # ---- copying between backends ------------------------------------------------------

    async def restore_game(self, bundle: ExportBundle, deadlines: list[Deadline]) -> None:
        """Insert a game exactly as exported elsewhere (same events, hashes and times).

        For ``arbitro db copy``. Refuses (`GameExists`) a channel that already has a game.
        The bundle should have been verified; the caller verifies the copy afterwards.
        """
        game = bundle.game

        async def work(connection: Connection) -> None:
            async with connection.transaction():
                inserted = await connection.execute(
                    _INSERT_GAME,
                    game.channel_id,
                    game.guild_id,
                    game.ruleset,
                    game.language,
                    game.status,
                    game.version,
                    game.created_at,
                    game.updated_at,
                )
                if _rows_changed(inserted) != 1:
                    raise GameExists(game.channel_id)
                full, patches = compact_history(
                    [
                        (state.version, state.status, canonical_json(state.document))
                        for state in bundle.states
                    ]
                )
                await connection.executemany(
                    _INSERT_STATE,
                    [
                        (game.channel_id, version, status, text, _jsonb_value(text))
                        for version, status, text in full
                    ],
                )
                await connection.executemany(
                    _INSERT_EVENT,
                    [
                        (
                            event.channel_id,
                            event.seq,
                            event.interaction_id,
                            event.actor_id,
                            event.verb,
                            canonical_json(event.args),
                            canonical_json(event.dice),
                            canonical_json(event.resolution),
                            event.state_version,
                            event.state_hash,
                            event.undoes_seq,
                            event.created_at,
                            event.prev_hash,
                            event.hash,
                        )
                        for event in bundle.events
                    ],
                )
                # After the events, which the patches refer to.
                await connection.executemany(
                    _INSERT_PATCH, [(game.channel_id, *row) for row in patches]
                )
                await connection.executemany(
                    "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                    "VALUES ($1, $2, $3, $4, $5)",
                    [
                        (m.channel_id, m.user_id, m.role, m.side, m.joined_at)
                        for m in bundle.members
                    ],
                )
                await connection.executemany(
                    "INSERT INTO deadlines (channel_id, side, due_at, reminded, set_at) "
                    "VALUES ($1, $2, $3, $4, $5)",
                    [(d.channel_id, d.side, d.due_at, d.reminded, d.set_at) for d in deadlines],
                )
                await _reseal(connection, game.channel_id)

        await self._run(work, game.channel_id)
        self.verified_chains.forget(game.channel_id)


# ---- the checksum of members, deadlines and the game's settings (db/integrity.py) --------

# One statement, so one consistent snapshot, through the three tables' primary keys.
_COVERED_ROWS = (
    "SELECT 2, channel_id, ruleset, language, created_at, NULL::timestamptz, guild_id, "
    "rows_digest FROM games WHERE channel_id = $1 "
    "UNION ALL SELECT 0, user_id, role, side, joined_at, NULL, NULL, NULL "
    "FROM members WHERE channel_id = $1 "
    "UNION ALL SELECT 1, NULL, NULL, side, due_at, set_at, NULL, NULL "
    "FROM deadlines WHERE channel_id = $1"
)


async def _covered(connection: Connection, channel_id: int) -> tuple[object, str] | None:
    return covered_digests(await connection.fetch(_COVERED_ROWS, channel_id))


async def _reseal(connection: Connection, channel_id: int) -> None:
    """Refresh the game's checksum of members, deadlines and settings, inside the caller's
    transaction.

    EVERY write of ``members``, ``deadlines`` or a covered ``games`` column (guild,
    ruleset, language, created_at) must call it before committing, or the next load sees
    the game as tampered. The writers: ``create_game``, ``add_member``,
    ``remove_member``, ``set_deadline``, ``clear_deadline``, ``restore_game``.
    """
    digests = await _covered(connection, channel_id)
    if digests is not None:
        await connection.execute(
            "UPDATE games SET rows_digest = $2 WHERE channel_id = $1", channel_id, digests[1]
        )


async def _covered_rows_problem(connection: Connection, channel_id: int) -> str | None:
    """Why the game's covered rows do not match their checksum (None: they do)."""
    digests = await _covered(connection, channel_id)
    return None if digests is None else rows_problem(*digests)


async def _verify_covered_rows(connection: Connection, channel_id: int) -> None:
    """Raise `TamperedGame` if members, deadlines or settings were edited outside the store.

    Called by ``load``; one indexed query.
    """
    problem = await _covered_rows_problem(connection, channel_id)
    if problem is not None:
        raise TamperedGame(channel_id, problem)


async def seal_all_games(connection: Connection) -> None:
    """Give every game its checksum; migration 6 runs it in its own transaction."""
    for row in await connection.fetch("SELECT channel_id FROM games"):
        await _reseal(connection, int(row[0]))


async def _require_game(connection: Connection, channel_id: int) -> None:
    if await connection.fetchval("SELECT 1 FROM games WHERE channel_id = $1", channel_id):
        return
    raise GameNotFound(channel_id)


async def _members(connection: Connection, channel_id: int) -> list[Member]:
    rows = await connection.fetch(
        "SELECT channel_id, user_id, role, side, joined_at FROM members "
        "WHERE channel_id = $1 ORDER BY joined_at, user_id",
        channel_id,
    )
    return [_member_from_row(row) for row in rows]


async def _channel_problems(
    connection: Connection, channel_id: int, version: int, status: object
) -> list[str]:
    prefix = f"channel {channel_id}:"
    problems: list[str] = []
    try:
        events = await connection.fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE channel_id = $1 ORDER BY seq", channel_id
        )
        state_rows = await connection.fetch(
            "SELECT version, status, document_text, document::text FROM states "
            "WHERE channel_id = $1 ORDER BY version",
            channel_id,
        )
        _, patches = await _history_rows(connection, channel_id)
        if len(events) != version:
            problems.append(f"{prefix} version {version} but {len(events)} events")
        # The very check a first load runs (db/chain.py): both name the same first bad event.
        try:
            await asyncio.to_thread(
                partial(
                    verify_span,
                    channel_id,
                    first=1,
                    last=len(events),
                    events=events,
                    full=_text_rows(state_rows),
                    patches=patches,
                    timestamp=stamp_text,
                    whole=True,
                )
            )
        except ChainBroken as error:  # reported; the rows beside the chain are checked still
            problems.append(str(error))
        for row in state_rows:
            if row[3] is not None and json.loads(row[3]) != json.loads(row[2]):
                problems.append(f"{prefix} the JSONB copy of state {row[0]} differs from its text")
        current = [row for row in state_rows if int(row[0]) == version]
        if not current:
            problems.append(f"{prefix} state of the current version {version} is missing")
        elif current[0][1] != status:
            problems.append(f"{prefix} status {status!r} differs from its state's")
        else:
            _decode_document(current[0][2], channel_id, version)
        # The same check, on the same rows, as ``load``: db check refuses what the bot does.
        tampered = await _covered_rows_problem(connection, channel_id)
        if tampered is not None:
            problems.append(str(TamperedGame(channel_id, tampered)))
        return problems
    except (StoreError, ValueError) as error:
        detail = f"{prefix} {error}" if f"channel {channel_id}" not in str(error) else str(error)
        return [*problems, detail]
