"""The game log's operations: create, open a command, commit, end, undo, delete, archive.

Each is a step function (db/core/steps.py), written once for both backends. The invariants
are docs/storage.md's: a game's version is its number of events, a write is the new state,
its event and its patch in one transaction guarded by the version the caller read, an
interaction id takes effect once, and nothing is written on top of a chain this process
has not verified.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from db.chain.hashing import GENESIS_HASH, canonical_json, state_hash
from db.chain.integrity import (
    STATE_EDITED,
    covered_digests,
    head_problem,
    head_row_agrees,
    rows_problem,
)
from db.chain.patch import make_patch, snapshot_due
from db.chain.prepare import PreparedEvent
from db.chain.rows import (
    ARCHIVE_COLUMNS,
    CHILD_TABLES,
    archive_from_row,
    check_status,
    event_from_row,
    summary_from_row,
)
from db.chain.verify import VerifiedChains, VerifiedHead, VerifiedState, stamp_text
from db.core.common import (
    EVENT_BY_INTERACTION,
    EVENT_COLUMNS,
    GAME_COLUMNS,
    covered_rows,
    decode_document,
    duplicate_of,
    event_of_row,
    reseal,
)
from db.core.dialect import Dialect
from db.core.members import covered_seats
from db.core.steps import Batch, Compute, Query, Step
from db.core.verify import check_head, state_text
from db.errors import (
    CorruptRecord,
    GameEnded,
    GameExists,
    GameNotEnded,
    GameNotFound,
    NothingToUndo,
    TamperedGame,
    VersionConflict,
)
from db.models import (
    VERB_CREATED,
    VERB_UNDO,
    ArchivedGame,
    CommandContext,
    CommitResult,
    EventRecord,
    GameKind,
    GameRecord,
    GameStatus,
    HeldDocument,
    PreparedState,
)

_INSERT_GAME = (
    f"INSERT INTO games ({GAME_COLUMNS}, state_salt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (channel_id) DO NOTHING"
)
INSERT_EVENT = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES ({', '.join('?' * 14)})"
INSERT_PATCH = (
    "INSERT INTO patches (channel_id, version, status, patch, snapshot, run_bytes) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)

# A game's head as loading it needs it, in one statement: the game row, the current
# document and the head event (all of its columns: the head check hashes it), then the kind
# and the salt.
_LOAD_HEAD = (
    "SELECT g.channel_id, g.guild_id, g.ruleset, g.language, g.status, g.version, "
    "g.created_at, g.updated_at, s.{document}, s.status, "
    + ", ".join(f"e.{column.strip()}" for column in EVENT_COLUMNS.split(","))
    + ", g.kind, g.state_salt FROM games AS g "
    "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "WHERE g.channel_id = ?"
)
_HEAD_EVENT = 10  # where the head event's columns start in a `_LOAD_HEAD` row
_HEAD_KIND = _HEAD_EVENT + len(EVENT_COLUMNS.split(","))  # and where the game's kind is
_HEAD_SALT = _HEAD_KIND + 1

# One statement reads all a commit needs: whether the interaction was committed, the game's
# head, the current version's event hash and document (PostgreSQL locks the game row), and
# where the head stands in its run of patches: whether it is a snapshot, the bytes of the
# patches since the last one.
_COMMIT_HEAD = (
    "SELECT EXISTS (SELECT 1 FROM events WHERE interaction_id = ?), g.version, g.status, "
    "e.hash, s.{document}, g.created_at, e.state_hash, s.status, p.snapshot, p.run_bytes, "
    "g.state_salt FROM games AS g "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
    "LEFT JOIN patches AS p ON p.channel_id = g.channel_id AND p.version = g.version "
    "WHERE g.channel_id = ?{lock}"
)
_ADVANCE_GAME = (
    "UPDATE games SET version = ?, status = ?, updated_at = ? WHERE channel_id = ? AND version = ?"
)
_DROP_STATE = "DELETE FROM states WHERE channel_id = ? AND version = ?"
# `_ADVANCE_GAME`'s guard on a kept head (`append_on_expected_head`): nobody else has
# committed since it was verified, and the interaction was not answered.
_ON_EXPECTED_HEAD = (
    " AND {counter} = ? AND NOT EXISTS (SELECT 1 FROM events WHERE interaction_id = ?)"
)
# `append_on_expected_head`'s writes as one statement (SQLite, schema 13): the view's
# columns are the parameters of `_ADVANCE_GAME` with its guard, the state's row,
# `INSERT_EVENT`, `INSERT_PATCH` and `_DROP_STATE`, in that order (7 + 4 + 14 + 6 + 2).
_COMMIT_IN_ONE = f"INSERT INTO command_commits VALUES ({', '.join('?' * 33)})"


# ---- writing an event -------------------------------------------------------------------


def event_writes(
    dialect: Dialect,
    *,
    channel_id: int,
    version: int,
    prev_hash: str,
    pending: PreparedEvent,
    args_json: str,
    document_json: str,
    status: GameStatus,
    undoes_seq: int | None,
    salt: str | None,
    patch: tuple[str, bool, int] | None = None,
) -> tuple[list[Query], EventRecord]:
    """The statements storing state ``version``, the event that produced it and its patch
    from the previous version (None for version 1: ``(patch JSON, snapshot, run bytes)``,
    `db.chain.patch.PatchRow`), and the stored event; ``salt`` is the record's."""
    resulting_state_hash, chained_hash = pending.hashes(
        prev_hash,
        channel_id=channel_id,
        version=version,
        args_json=args_json,
        document_json=document_json,
        status=status,
        undoes_seq=undoes_seq,
        salt=salt,
    )
    queries = [
        dialect.insert_state(channel_id, version, status, document_json),
        Query(
            INSERT_EVENT,
            (
                channel_id,
                version,
                pending.interaction_id,
                pending.actor_id,
                pending.verb,
                dialect.pack(args_json),
                dialect.pack(pending.dice_json),
                dialect.pack(pending.resolution_json),
                version,
                resulting_state_hash,
                undoes_seq,
                dialect.stamp(pending.created_at),
                prev_hash,
                chained_hash,
            ),
        ),
    ]
    if patch is not None:
        # After the event: the patch row refers to it.
        queries.append(Query(INSERT_PATCH, (channel_id, version, status, *patch)))
    event = pending.record(
        channel_id=channel_id,
        version=version,
        args_json=args_json,
        resulting_state_hash=resulting_state_hash,
        undoes_seq=undoes_seq,
        created_at=dialect.when(dialect.stamp(pending.created_at)),
        prev_hash=prev_hash,
        chained_hash=chained_hash,
    )
    return queries, event


def create_game(
    dialect: Dialect,
    *,
    channel_id: int,
    guild_id: int | None,
    ruleset: str,
    language: str,
    status: GameStatus,
    document_json: str,
    pending: PreparedEvent,
    referee_id: int | None = None,
    kind: GameKind = "game",
) -> Step[CommitResult]:
    """Version 1 and its ``game.created`` event (and the referee), or the earlier result of
    the same interaction; `GameExists` for a channel that holds a game."""
    duplicate = yield from duplicate_of(dialect, channel_id, pending.interaction_id)
    if duplicate is not None:
        return duplicate
    created = dialect.stamp(pending.created_at)
    # The record's secret, hashed into each of its states: a seat cannot test a guess of a
    # hidden unit against a state's hash (docs/integrity.md, "A seat's export").
    salt = secrets.token_hex(32)
    inserted = yield Query(
        _INSERT_GAME,
        (channel_id, guild_id, ruleset, language, status, 1, created, created, kind, salt),
        "count",
    )
    if inserted != 1:
        # A concurrent create of this channel won (PostgreSQL waited for it to commit); if
        # it was this very interaction, this is its retry.
        duplicate = yield from duplicate_of(dialect, channel_id, pending.interaction_id)
        if duplicate is not None:
            return duplicate
        raise GameExists(channel_id)
    writes, event = event_writes(
        dialect,
        channel_id=channel_id,
        version=1,
        prev_hash=GENESIS_HASH,
        pending=pending,
        args_json=pending.args_json,
        document_json=document_json,
        status=status,
        undoes_seq=None,
        salt=salt,
    )
    if referee_id is not None:
        # In the same transaction: a game never exists without its referee.
        writes.append(
            Query(
                "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                "VALUES (?, ?, 'referee', NULL, ?)",
                (channel_id, referee_id, created),
            )
        )
    yield Batch(tuple(writes))
    yield from reseal(channel_id)
    return CommitResult(event)


# ---- reading a game ---------------------------------------------------------------------


def _record_of(
    dialect: Dialect,
    channel_id: int,
    head: Any,
    covered: Any,
    chains: VerifiedChains,
    known: VerifiedHead | None,
    base: VerifiedState | None = None,
    held: HeldDocument | None = None,
) -> Step[GameRecord]:
    """The game of a `_LOAD_HEAD` row, checked: its document readable, its covered rows
    matching their checksum, its state and head event matching the chain, its chain
    verified by this process (from ``base``, the verified head's document, if given:
    `db.core.verify.verified_up_to`). Its document is ``held``'s when the stored text is
    that document's (read before, and readable), else parsed."""
    if head is None:
        raise GameNotFound(channel_id)
    summary = summary_from_row((*head[:8], head[_HEAD_KIND]), dialect.when)
    if head[8] is None:
        raise CorruptRecord(channel_id, f"state of version {summary.version} is missing")
    if held is not None and held.text is not None and held.text == head[8]:
        document = held.document
    else:
        document = decode_document(head[8], channel_id, summary.version)
    digests = covered_digests(covered)
    problem = None if digests is None else rows_problem(*digests)
    if problem is not None:
        raise TamperedGame(channel_id, problem)
    event_row = tuple(head[_HEAD_EVENT:_HEAD_KIND])
    text, state_status = str(head[8]), str(head[9])
    salt = None if head[_HEAD_SALT] is None else str(head[_HEAD_SALT])
    if event_row[1] is None or not head_row_agrees(
        text, state_status, event_row, stamp_text(event_row[11]), salt
    ):
        try:
            event = None if event_row[1] is None else event_from_row(event_row, dialect.when)
        except CorruptRecord as error:
            raise TamperedGame(channel_id, error.detail) from error
        problem = head_problem(text, state_status, event, salt)
        if problem is not None:
            raise TamperedGame(channel_id, problem)
    head_hash = event_row[13]
    game = stamp_text(head[6])
    yield from check_head(channel_id, chains, known, game, summary.version, head_hash, base)
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
        head_hash=None if head_hash is None else str(head_hash),
        document_text=text,
        kind=summary.kind,
        state_salt=salt,
    )


def load(dialect: Dialect, channel_id: int, chains: VerifiedChains) -> Step[GameRecord]:
    """The channel's game with its current document (read in one snapshot)."""
    known = chains.head(channel_id)  # before the snapshot (`db.core.verify.verified_up_to`)
    head, covered = yield Batch((Query(_LOAD_HEAD, (channel_id,), "row"), covered_rows(channel_id)))
    return (yield from _record_of(dialect, channel_id, head, covered, chains, known))


def open_command(
    dialect: Dialect, channel_id: int, interaction_id: str | None, chains: VerifiedChains
) -> Step[CommandContext]:
    """The game, the event ``interaction_id`` already committed (if any), the members and
    the game's sealed feature records: three reads in one batch, one snapshot. The
    members and records are the very rows the game's checksum is checked on."""
    context, _ = yield from _open(dialect, channel_id, interaction_id, chains, counted=False)
    return context


def open_command_counted(
    dialect: Dialect,
    channel_id: int,
    interaction_id: str | None,
    chains: VerifiedChains,
    base: VerifiedState | None = None,
    held: HeldDocument | None = None,
) -> Step[tuple[CommandContext, int]]:
    """`open_command` with the dialect's change counter read in the same snapshot (the
    stamp of what `db.chain.head_cache` keeps); a head moved since ``base`` (the document of the
    head verified before, which `db.chain.head_cache` kept) is verified from it. A head whose
    stored text is ``held``'s is given the caller's document rather than a parse of it."""
    context, counter = yield from _open(
        dialect, channel_id, interaction_id, chains, counted=True, base=base, held=held
    )
    return context, int(counter)


def probe(dialect: Dialect, interaction_id: str | None) -> Step[tuple[int, bool]]:
    """The change counter now, and whether ``interaction_id`` is stored: one statement,
    all a kept head needs to be served again (`db.chain.head_cache`)."""
    row = yield _probe_query(dialect, interaction_id)
    return int(row[0]), bool(row[1])


def _probe_query(dialect: Dialect, interaction_id: str | None) -> Query:
    return Query(
        f"SELECT {dialect.change_counter}, EXISTS (SELECT 1 FROM events WHERE interaction_id = ?)",
        (interaction_id,),
        "row",
    )


def _open(
    dialect: Dialect,
    channel_id: int,
    interaction_id: str | None,
    chains: VerifiedChains,
    *,
    counted: bool,
    base: VerifiedState | None = None,
    held: HeldDocument | None = None,
) -> Step[tuple[CommandContext, Any]]:
    known = chains.head(channel_id)
    reads = [
        Query(_LOAD_HEAD, (channel_id,), "row"),
        covered_rows(channel_id),
        Query(EVENT_BY_INTERACTION, (interaction_id,), "row"),
    ]
    if counted:
        reads.append(Query(f"SELECT {dialect.change_counter}", (), "value"))
    head, covered, earlier, *counter = yield Batch(tuple(reads))
    earlier_event = None if interaction_id is None else event_of_row(earlier, dialect)
    record = yield from _record_of(dialect, channel_id, head, covered, chains, known, base, held)
    members, records = covered_seats(dialect, channel_id, covered)
    context = CommandContext(record=record, earlier=earlier_event, members=members, records=records)
    return context, counter[0] if counter else None


# ---- every write after the creation -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class NextState:
    """What a write turns the game into, decided inside the transaction."""

    document_json: str
    status: GameStatus
    undoes_seq: int | None = None
    args_json: str | None = None


#: Decides the next state from the version and status read (may read more), given the
#: head verified when the operation started.
Decide = Callable[[int, GameStatus, VerifiedHead | None], Step[NextState]]


def patch_between(channel_id: int, version: int, old_json: str, new_json: str) -> str:
    """The patch from the stored document of ``version`` to the next one's, made here
    (when the commit's prepared patch does not apply: see `db.chain.prepare`)."""
    if old_json == new_json:  # end_game, and undoing a command that changed nothing
        return "[]"
    old = decode_document(old_json, channel_id, version)
    return make_patch(old, json.loads(new_json), new_json)


def _checked_patch(
    channel_id: int, version: int, stored: tuple[str, str, object, str | None], new_json: str
) -> str:
    """The patch from the stored head, which must be the state the chain says."""
    stored_json, stored_status, expected_hash, salt = stored
    if state_hash(stored_json, stored_status, salt) != expected_hash:
        raise TamperedGame(channel_id, STATE_EDITED)
    return patch_between(channel_id, version, stored_json, new_json)


def append(
    dialect: Dialect,
    *,
    channel_id: int,
    expected_version: int | None,
    pending: PreparedEvent,
    decide: Decide,
    chains: VerifiedChains,
    prepared: PreparedState | None = None,
) -> Step[CommitResult]:
    """The one write path after creation: duplicate check, version guard, the chain it
    extends verified, state, event and patch (recorded as a snapshot or not),
    and the previous whole document dropped unless it is a snapshot. Everything is checked
    before anything is written (group commit relies on it: a refused commit leaves the
    shared transaction untouched)."""
    known = chains.head(channel_id)
    query = Query(_COMMIT_HEAD, (pending.interaction_id, channel_id), "row")
    head = yield query
    if head is None or head[3] is None or head[4] is None:
        # PostgreSQL (READ COMMITTED): the statement waited for another transaction's write
        # of this game row, then re-checked only the row it locks: its version is the new
        # one, but the event and state joined to it come from the statement's older
        # snapshot, so they are missing (or the row is). With the lock now held, a fresh
        # statement reads them as committed; a head truly missing is still missing.
        head = yield query
    # Before the version check: a retry of a command that did commit must get its result
    # back, not a conflict with the version it produced itself.
    if head is None or head[0]:
        duplicate = yield from duplicate_of(dialect, channel_id, pending.interaction_id)
        if duplicate is not None:
            return duplicate
    if head is None:
        raise GameNotFound(channel_id)
    version = head[1]
    if type(version) is not int:
        raise CorruptRecord(channel_id, f"game row is unreadable (version {version!r})")
    if expected_version is not None and version != expected_version:
        # A retry whose original committed while this one waited for the row (PostgreSQL,
        # another process) is a duplicate, not a conflict.
        duplicate = yield from duplicate_of(dialect, channel_id, pending.interaction_id)
        if duplicate is not None:
            return duplicate
        raise VersionConflict(channel_id, expected_version, version)
    if head[3] is None:
        raise CorruptRecord(channel_id, f"event {version} of the current version is missing")
    if head[4] is None:
        raise CorruptRecord(channel_id, f"state of version {version} is missing")
    head_hash, stored_json = str(head[3]), str(head[4])
    salt = None if head[10] is None else str(head[10])
    yield from check_head(channel_id, chains, known, stamp_text(head[5]), version, head_hash)
    upcoming = yield from decide(version, check_status(head[2], channel_id), known)
    patch_json = None
    if prepared is not None and prepared.text == upcoming.document_json:
        # Made before the transaction on the text this process wrote: the stored head is it.
        patch_json = prepared.patch_from(stored_json)
    if patch_json is None:
        # A diff of two whole documents is milliseconds of CPU: off the event loop.
        patch_json = yield Compute(
            partial(
                _checked_patch,
                channel_id,
                version,
                (stored_json, str(head[7]), head[6], salt),
                upcoming.document_json,
            )
        )
    new_version = version + 1
    head_kept = version == 1 or bool(head[8])
    run_bytes = (0 if head_kept else int(head[9] or 0)) + len(patch_json)
    snapshot = snapshot_due(run_bytes, len(upcoming.document_json))
    writes, event = event_writes(
        dialect,
        channel_id=channel_id,
        version=new_version,
        prev_hash=head_hash,
        pending=pending,
        args_json=upcoming.args_json or pending.args_json,
        document_json=upcoming.document_json,
        status=upcoming.status,
        undoes_seq=upcoming.undoes_seq,
        salt=salt,
        patch=(patch_json, snapshot, run_bytes),
    )
    # The guard is redundant while the lock is held (SQLite's BEGIN IMMEDIATE, PostgreSQL's
    # row lock), but it keeps the write itself conditional.
    guard = Query(
        _ADVANCE_GAME,
        (new_version, upcoming.status, dialect.stamp(pending.created_at), channel_id, version),
        "count",
    )
    writes.insert(0, guard)
    if not head_kept:
        # The previous version's whole document is no longer needed: its patch, written
        # before, and the snapshot below it rebuild it (the trigger checks both).
        writes.append(Query(_DROP_STATE, (channel_id, version)))
    answers = yield Batch(tuple(writes))
    if answers[0] != 1:
        actual = yield Query(
            "SELECT version FROM games WHERE channel_id = ?", (channel_id,), "value"
        )
        raise VersionConflict(channel_id, version, -1 if actual is None else int(actual))
    return CommitResult(event, run=(snapshot, run_bytes))


@dataclass(frozen=True, slots=True)
class ExpectedHead:
    """The head a commit expects to extend: this process's kept, verified head
    (`db.chain.head_cache`), valid while the change counter still reads ``counter``."""

    version: int
    head_hash: str
    status: GameStatus
    document_text: str
    counter: int
    #: The head's snapshot flag and the patch bytes since the last snapshot through it.
    run: tuple[bool, int]
    #: The record's secret salt (`db.chain.hashing.state_hash`).
    state_salt: str | None = field(default=None, repr=False)


class NotTheExpectedHead(Exception):
    """The stored head was not the one `append_on_expected_head` wrote on (its writes are
    rolled back with its transaction; the commit runs again as usual)."""


def append_on_expected_head(
    dialect: Dialect,
    *,
    channel_id: int,
    expected: ExpectedHead,
    pending: PreparedEvent,
    prepared: PreparedState,
    new_status: GameStatus | None,
) -> Step[CommitResult]:
    """A command's commit whose first write proves its head: the game row advances only
    while the change counter is unmoved since the expected head was verified (nobody else
    committed; this process's own commits moved the head it keeps) and the interaction is
    not stored; its writes are sent in one trip.

    For a driver that runs it in one transaction (`Operation.on_expected_head`): the guard
    and the writes after it are then one snapshot, the latest (the first statement writes).
    Anything else — a moved counter, a retry, an ended game, a patch made on another base —
    raises, and the commit runs as usual (`append`), which says what happened.
    """
    patch_json = prepared.patch_from(expected.document_text)
    if expected.status == "ended" or patch_json is None:
        raise NotTheExpectedHead(channel_id)
    status = new_status or expected.status
    new_version = expected.version + 1
    head_kept = expected.version == 1 or expected.run[0]
    run_bytes = (0 if head_kept else expected.run[1]) + len(patch_json)
    snapshot = snapshot_due(run_bytes, len(prepared.text))
    writes, event = event_writes(
        dialect,
        channel_id=channel_id,
        version=new_version,
        prev_hash=expected.head_hash,
        pending=pending,
        args_json=pending.args_json,
        document_json=prepared.text,
        status=status,
        undoes_seq=None,
        salt=expected.state_salt,
        patch=(patch_json, snapshot, run_bytes),
    )
    # The head's proof is the game row's write itself: it advances only while the change
    # counter is unmoved and the interaction is not stored (one statement fewer to send).
    writes.insert(
        0,
        Query(
            _ADVANCE_GAME + _ON_EXPECTED_HEAD.format(counter=dialect.change_counter),
            (
                new_version,
                status,
                dialect.stamp(pending.created_at),
                channel_id,
                expected.version,
                expected.counter,
                pending.interaction_id,
            ),
            "count",
        ),
    )
    if not head_kept:
        writes.append(Query(_DROP_STATE, (channel_id, expected.version)))
    if dialect.commit_in_one_statement:
        # One row into the view whose trigger makes these very writes (schema 13): one trip.
        # The drop's place is filled with nothing to drop when the head is kept whole.
        drop = () if not head_kept else (None, None)
        params = tuple(value for query in writes for value in query.params) + drop
        # A head that is not the expected one aborts the statement (nothing of it stays):
        # the error reaches the driver, which commits as usual (`Operation.on_expected_head`).
        yield Query(_COMMIT_IN_ONE, params)
        return CommitResult(event, run=(snapshot, run_bytes))
    answers = yield Batch(tuple(writes))
    if answers[0] != 1:
        raise NotTheExpectedHead(channel_id)
    return CommitResult(event, run=(snapshot, run_bytes))


def decide_commit(
    version: int,
    status: GameStatus,
    known: VerifiedHead | None,
    *,
    channel_id: int,
    document_json: str,
    new_status: GameStatus | None,
) -> Step[NextState]:
    """A command's next state: the document it made (an ended game takes no command)."""
    if status == "ended":
        raise GameEnded(channel_id)
    return NextState(document_json, new_status or status)
    yield  # a step function, although it reads nothing


_CURRENT_DOCUMENT = (
    "SELECT s.{document}, s.status, e.state_hash, g.state_salt FROM states AS s "
    "JOIN events AS e ON e.channel_id = s.channel_id AND e.seq = s.version "
    "JOIN games AS g ON g.channel_id = s.channel_id "
    "WHERE s.channel_id = ? AND s.version = ?"
)


def decide_end(
    version: int, status: GameStatus, known: VerifiedHead | None, *, channel_id: int
) -> Step[NextState]:
    """The same document, ended; the head's document must be the state its event says."""
    if status == "ended":
        raise GameEnded(channel_id)
    row = yield Query(_CURRENT_DOCUMENT, (channel_id, version), "row")
    if row is None:
        raise CorruptRecord(channel_id, f"state of version {version} is missing")
    if state_hash(str(row[0]), str(row[1]), None if row[3] is None else str(row[3])) != row[2]:
        raise TamperedGame(channel_id, STATE_EDITED)
    return NextState(str(row[0]), "ended")


_UNDO_TARGET = (
    "SELECT e.seq, e.verb FROM events AS e "
    "WHERE e.channel_id = ? AND e.verb NOT IN (?, ?) AND e.verb NOT LIKE 'seat.%' "
    "AND NOT EXISTS (SELECT 1 FROM events AS u "
    "                WHERE u.channel_id = e.channel_id AND u.undoes_seq = e.seq) "
    "ORDER BY e.seq DESC LIMIT 1"
)


def decide_undo(
    version: int,
    status: GameStatus,
    known: VerifiedHead | None,
    *,
    channel_id: int,
    chains: VerifiedChains,
) -> Step[NextState]:
    """The state before the latest event that is neither an undo, nor the creation, nor
    already undone (seat changes are left to the referee)."""
    target = yield Query(_UNDO_TARGET, (channel_id, VERB_UNDO, VERB_CREATED), "row")
    if target is None:
        raise NothingToUndo(channel_id)
    undone_seq, undone_verb = int(target[0]), str(target[1])
    # Event n produced version n, so the state before it is version n - 1. Every event
    # after n is either undone or an undo, so that state is the right one to restore.
    before_status, before_text = yield from state_text(channel_id, undone_seq - 1, chains, known)
    return NextState(
        document_json=before_text,
        status=check_status(before_status, channel_id),
        undoes_seq=undone_seq,
        args_json=canonical_json({"undone_seq": undone_seq, "undone_verb": undone_verb}),
    )


# ---- leaving the channel ----------------------------------------------------------------

_ENDED_GAME = "SELECT g.status, g.version FROM games AS g WHERE g.channel_id = ?{lock}"


def _drop_rows(channel_id: int) -> Batch:
    # Children first: foreign keys are enforced and have no cascade on purpose.
    return Batch(
        tuple(
            Query(f"DELETE FROM {table} WHERE channel_id = ?", (channel_id,))
            for table in CHILD_TABLES
        )
    )


def delete_game(channel_id: int) -> Step[None]:
    """Remove an ended game and everything about it."""
    row = yield Query(_ENDED_GAME, (channel_id,), "row")
    if row is None:
        raise GameNotFound(channel_id)
    if row[0] != "ended":
        raise GameNotEnded(channel_id)
    yield _drop_rows(channel_id)


def archive_game(
    dialect: Dialect, channel_id: int, *, version: int, fields: tuple[Any, ...], blob: bytes
) -> Step[ArchivedGame]:
    """Move an ended game, still at ``version``, into ``archived_games``."""
    row = yield Query(_ENDED_GAME, (channel_id,), "row")
    if row is None:
        raise GameNotFound(channel_id)
    if row[0] != "ended":
        raise GameNotEnded(channel_id)
    if int(row[1]) != version:
        raise VersionConflict(channel_id, version, int(row[1]))
    values = list(fields)
    for index in (6, 7, 8):  # created, ended, archived: the fixed-width texts
        values[index] = dialect.stamp(values[index])
    archived = yield Query(
        "INSERT INTO archived_games (channel_id, guild_id, ruleset, language, title, "
        "version, created_at, ended_at, archived_at, head_hash, bundle) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {ARCHIVE_COLUMNS}",
        (*values, blob),
        "row",
    )
    yield _drop_rows(channel_id)
    return archive_from_row(archived, dialect.when)


__all__ = [
    "INSERT_EVENT",
    "INSERT_PATCH",
    "Decide",
    "ExpectedHead",
    "NextState",
    "NotTheExpectedHead",
    "append",
    "append_on_expected_head",
    "archive_game",
    "create_game",
    "decide_commit",
    "decide_end",
    "decide_undo",
    "delete_game",
    "event_writes",
    "load",
    "open_command",
    "open_command_counted",
    "patch_between",
    "probe",
]
