"""The generic operations on the application features' records, written once for both
backends: get, put (plain, only if absent, only at a revision, renewed), delete, list and
the time index.

The store knows no feature. A feature (`bot/service/stored/`) names itself, chooses the
scope of each record (a game's, which goes with the game; a guild's) and its key, and
hands over its typed value as JSON; the store keeps it as canonical JSON text in one table,
``records`` (schema 9), and gives back what the guarantees need: an id never reused
(records list in the order they were made; a renewed record is a new one), a revision for
compare-and-set, a due time on an index, and for a game's *sealed* records the game's
checksum (`db.chain.integrity`) and a place in every command's snapshot (`db.core.games`).

Every write of a game's record first takes the game's row (PostgreSQL ``FOR UPDATE``;
SQLite's ``BEGIN IMMEDIATE`` holds the file): it raises `GameNotFound` for no game, and
two processes writing records of one game queue there, so the checksum each refreshes
counts the other's row and a claim (``if_absent``) is won by exactly one of them.
"""

from __future__ import annotations

from typing import Any

from db.chain.hashing import canonical_json, parse_canonical
from db.core.common import RECORD_COLUMNS, reseal
from db.core.dialect import Dialect
from db.core.steps import Query, Step
from db.errors import CorruptRecord, GameNotFound
from db.models import FeatureRecord, Scope, format_timestamp

#: A listing or the time index answers at most this many records at once.
MAX_RECORDS_PAGE = 1_000

_WHERE_KEY = "feature = ? AND scope = ? AND key = ?"
_INSERT = (
    "INSERT INTO records (feature, scope, channel_id, key, value, revision, due_at, "
    "created_at, sealed) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)"
)
_INSERT_AT_REVISION = (
    "INSERT INTO records (feature, scope, channel_id, key, value, revision, due_at, "
    "created_at, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_ON_KEY = " ON CONFLICT (feature, scope, key)"
_RETURNING = f" RETURNING {RECORD_COLUMNS}"


def record_of(row: Any, dialect: Dialect) -> FeatureRecord:
    """A ``records`` row (`RECORD_COLUMNS`) as a `FeatureRecord`, its value parsed."""
    ident, feature, scope, channel_id, key, value, revision, due_at, created_at, sealed = row
    try:
        return FeatureRecord(
            feature=str(feature),
            scope=Scope(int(scope), channel_id is not None),
            key=str(key),
            value=parse_canonical(str(value)),
            id=int(ident),
            revision=int(revision),
            created_at=dialect.when(created_at),
            due_at=None if due_at is None else dialect.when(due_at),
            sealed=bool(sealed),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(
            channel_id, f"record {feature}/{key} is unreadable ({error})"
        ) from error


def _take_game(scope: Scope) -> Step[None]:
    """A game's record needs its game: its row, locked until the write commits."""
    if not scope.game:
        return
    found = yield Query(
        "SELECT 1 FROM games AS g WHERE g.channel_id = ?{lock}", (scope.id,), "value"
    )
    if found is None:
        raise GameNotFound(scope.id)


def get(dialect: Dialect, feature: str, scope: Scope, key: str) -> Step[FeatureRecord | None]:
    """The record, or None."""
    row = yield Query(
        f"SELECT {RECORD_COLUMNS} FROM records WHERE {_WHERE_KEY}",
        (feature, scope.id, key),
        "row",
    )
    return None if row is None else record_of(row, dialect)


def put(
    dialect: Dialect,
    feature: str,
    scope: Scope,
    key: str,
    value_json: str,
    *,
    now: str,
    due_at: str | None = None,
    sealed: bool = False,
    if_absent: bool = False,
    expected_revision: int | None = None,
    renew: bool = False,
) -> Step[FeatureRecord | None]:
    """Store a record; None when a condition refused it (nothing written).

    Plain: insert, or update in place (same id and creation time, next revision).
    ``if_absent``: insert only (a claim: true for one caller). ``expected_revision``:
    update only a record still at that revision (a compare-and-set). ``renew``: replace
    any record of that key with a new one (a new id: whoever kept the old id finds
    nothing; its revision follows the old one's).
    """
    yield from _take_game(scope)
    channel_id = scope.id if scope.game else None
    stamped_due = None if due_at is None else dialect.stamp(due_at)
    inserted = (
        feature,
        scope.id,
        channel_id,
        key,
        value_json,
        stamped_due,
        dialect.stamp(now),
        sealed,
    )
    if expected_revision is not None:
        row = yield Query(
            "UPDATE records SET value = ?, revision = revision + 1, due_at = ?, sealed = ? "
            f"WHERE {_WHERE_KEY} AND revision = ?{_RETURNING}",
            (value_json, stamped_due, sealed, feature, scope.id, key, expected_revision),
            "row",
        )
    elif if_absent:
        row = yield Query(_INSERT + _ON_KEY + " DO NOTHING" + _RETURNING, inserted, "row")
    elif renew:
        # The new record counts on from the old one's revision: a key's revisions never
        # repeat, so a compare-and-set by revision cannot take the renewed record for it.
        before = yield Query(
            f"DELETE FROM records WHERE {_WHERE_KEY} RETURNING revision",
            (feature, scope.id, key),
            "value",
        )
        row = yield Query(
            _INSERT_AT_REVISION + _RETURNING,
            (*inserted[:5], 1 + int(before or 0), *inserted[5:]),
            "row",
        )
    else:
        row = yield Query(
            _INSERT
            + _ON_KEY
            + " DO UPDATE SET value = excluded.value, revision = records.revision + 1, "
            "due_at = excluded.due_at, sealed = excluded.sealed" + _RETURNING,
            inserted,
            "row",
        )
    if row is None:
        return None
    record = record_of(row, dialect)
    if scope.game and sealed:  # a feature seals all of its records or none
        yield from reseal(scope.id)
    return record


def delete(
    feature: str, scope: Scope, key: str, expected_revision: int | None = None
) -> Step[bool]:
    """Delete a record (only at ``expected_revision``, if given); false if none was."""
    yield from _take_game(scope)
    condition = "" if expected_revision is None else " AND revision = ?"
    params: tuple[Any, ...] = (feature, scope.id, key)
    if expected_revision is not None:
        params += (expected_revision,)
    sealed = yield Query(
        f"DELETE FROM records WHERE {_WHERE_KEY}{condition} RETURNING sealed", params, "value"
    )
    if sealed is None:
        return False
    if scope.game and bool(sealed):
        yield from reseal(scope.id)
    return True


def listing(
    dialect: Dialect, feature: str, scope: Scope, prefix: str = "", limit: int = MAX_RECORDS_PAGE
) -> Step[list[FeatureRecord]]:
    """A scope's records of a feature (whose key starts with ``prefix``), oldest first."""
    rows = yield Query(
        f"SELECT {RECORD_COLUMNS} FROM records WHERE feature = ? AND scope = ? "
        "AND substr(key, 1, ?) = ? ORDER BY id LIMIT ?",
        (feature, scope.id, len(prefix), prefix, max(1, min(limit, MAX_RECORDS_PAGE))),
        "rows",
    )
    return [record_of(row, dialect) for row in rows]


def due(
    dialect: Dialect, feature: str, before: str, limit: int = MAX_RECORDS_PAGE
) -> Step[list[FeatureRecord]]:
    """A feature's records due at ``before`` or earlier, earliest first, leaving out the
    records of games that have ended (a guild's records have no game)."""
    rows = yield Query(
        f"SELECT {', '.join('r.' + column for column in RECORD_COLUMNS.split(', '))} "
        "FROM records AS r LEFT JOIN games AS g ON g.channel_id = r.channel_id "
        "WHERE r.feature = ? AND r.due_at IS NOT NULL AND r.due_at <= ? "
        "AND (g.status IS NULL OR g.status <> 'ended') "
        "ORDER BY r.due_at, r.scope, r.key LIMIT ?",
        (feature, dialect.stamp(before), max(1, min(limit, MAX_RECORDS_PAGE))),
        "rows",
    )
    return [record_of(row, dialect) for row in rows]


def page(
    dialect: Dialect, after_id: int, limit: int = MAX_RECORDS_PAGE
) -> Step[list[FeatureRecord]]:
    """Every record of every feature and scope with an id above ``after_id``, by id (a
    page of them: `arbitro db copy` reads them all this way)."""
    rows = yield Query(
        f"SELECT {RECORD_COLUMNS} FROM records WHERE id > ? ORDER BY id LIMIT ?",
        (after_id, max(1, min(limit, MAX_RECORDS_PAGE))),
        "rows",
    )
    return [record_of(row, dialect) for row in rows]


def restore(dialect: Dialect, records: list[FeatureRecord]) -> Step[None]:
    """Records inserted exactly as another store holds them (same ids, revisions, times
    and value texts); the games whose sealed records arrived are sealed anew."""
    stamp = dialect.stamp
    yield Query(
        "INSERT INTO records (id, feature, scope, channel_id, key, value, revision, due_at, "
        "created_at, sealed) {overriding}VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                record.id,
                record.feature,
                record.scope.id,
                record.scope.id if record.scope.game else None,
                record.key,
                canonical_json(record.value),
                record.revision,
                None if record.due_at is None else stamp(format_timestamp(record.due_at)),
                stamp(format_timestamp(record.created_at)),
                record.sealed,
            )
            for record in records
        ],
        many=True,
    )
    if dialect.records_identity_reset:
        yield Query(dialect.records_identity_reset, (), "value")
    for channel_id in sorted({r.scope.id for r in records if r.scope.game and r.sealed}):
        yield from reseal(channel_id)


__all__ = [
    "MAX_RECORDS_PAGE",
    "delete",
    "due",
    "get",
    "listing",
    "page",
    "put",
    "record_of",
    "restore",
]
