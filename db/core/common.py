"""Statements and steps every part of the core uses: columns, the event of an interaction,
a game's existence, its members, and the checksum of the rows the chain does not cover.
"""

from __future__ import annotations

from typing import Any

from db.chain.hashing import parse_canonical
from db.chain.integrity import covered_digests, rows_problem
from db.chain.rows import event_from_row, member_from_row
from db.chain.verify import check_event_row, stamp_text
from db.core.dialect import Dialect
from db.core.steps import Query, Step
from db.errors import CorruptRecord, GameNotFound, InteractionReused
from db.models import CommitResult, EventRecord, JsonObject, Member

EVENT_COLUMNS = (
    "channel_id, seq, interaction_id, actor_id, verb, args, dice, resolution, "
    "state_version, state_hash, undoes_seq, created_at, prev_hash, hash"
)
GAME_COLUMNS = (
    "channel_id, guild_id, ruleset, language, status, version, created_at, updated_at, kind"
)
MEMBER_COLUMNS = "channel_id, user_id, role, side, joined_at"
RECORD_COLUMNS = "id, feature, scope, channel_id, key, value, revision, due_at, created_at, sealed"

#: Events and patches are read at most this many at a time.
MAX_EVENTS_PAGE = 1_000

#: An interaction's event, and last its record's salt, which the event's hash covers.
EVENT_BY_INTERACTION = (
    f"SELECT {EVENT_COLUMNS}, (SELECT g.state_salt FROM games AS g "
    "WHERE g.channel_id = events.channel_id) FROM events WHERE interaction_id = ?"
)
MEMBERS = f"SELECT {MEMBER_COLUMNS} FROM members WHERE channel_id = ? ORDER BY joined_at, user_id"
# One statement, so one consistent snapshot, reading every covered row of a game through
# the primary keys and the index of a game's records: db/chain/integrity.py. `open_command` reads
# the members and sealed records it hands the command from the same rows.
# (The casts type the NULLs for PostgreSQL's UNION; SQLite reads them as plain NULLs.)
_COVERED_ROWS = (
    "SELECT 2, channel_id, ruleset, language, {kind}, created_at, "
    "CAST(NULL AS TIMESTAMPTZ), guild_id, rows_digest, {salt} "
    "FROM games WHERE channel_id = ? "
    "UNION ALL SELECT 0, user_id, role, side, NULL, joined_at, NULL, NULL, NULL, NULL "
    "FROM members WHERE channel_id = ? "
    "UNION ALL SELECT 1, id, feature, key, value, created_at, due_at, revision, NULL, NULL "
    "FROM records WHERE channel_id = ? AND sealed"
)
_NONE = "CAST(NULL AS TEXT)"
COVERED_ROWS = _COVERED_ROWS.format(kind="kind", salt="state_salt")
#: The same rows on a schema before 11, whose games have no kind (all of them are read as
#: games: the digest of a game is the same either way, `db.chain.integrity.rows_digest`), and on
#: schema 11, whose games have no salt yet (none is covered either way).
COVERED_ROWS_BEFORE_KINDS = _COVERED_ROWS.format(kind=_NONE, salt=_NONE)
COVERED_ROWS_BEFORE_SALTS = _COVERED_ROWS.format(kind="kind", salt=_NONE)


def covered_rows(channel_id: int, *, kinds: bool = True, salts: bool = True) -> Query:
    """The game's covered rows (`db.chain.integrity.covered_digests` reads them); ``kinds``
    False on a schema before 11, ``salts`` False before 12 (a migration sealing games on
    the way)."""
    if not kinds:
        sql = COVERED_ROWS_BEFORE_KINDS
    else:
        sql = COVERED_ROWS if salts else COVERED_ROWS_BEFORE_SALTS
    return Query(sql, (channel_id, channel_id, channel_id), "rows")


def decode_document(text: object, channel_id: int, version: int) -> JsonObject:
    """A stored document text as a JSON object, or `CorruptRecord` naming the version."""
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


def event_of_row(row: Any, dialect: Dialect) -> EventRecord | None:
    """The event of an interaction (an `EVENT_BY_INTERACTION` row), checked against its own
    hash (None: no row)."""
    if row is None:
        return None
    salt = None if row[-1] is None else str(row[-1])
    # Shown again: not edited since.
    check_event_row(int(row[0]), row, None, stamp_text, salt=salt)
    return event_from_row(row, dialect.when)


def event_by_interaction(dialect: Dialect, interaction_id: str) -> Step[EventRecord | None]:
    """The event an interaction committed, if any."""
    row = yield Query(EVENT_BY_INTERACTION, (interaction_id,), "row")
    return event_of_row(row, dialect)


def duplicate_of(
    dialect: Dialect, channel_id: int, interaction_id: str | None
) -> Step[CommitResult | None]:
    """The earlier result of this interaction, if it was already committed;
    `InteractionReused` if it was committed in another channel."""
    if interaction_id is None:
        return None
    existing = yield from event_by_interaction(dialect, interaction_id)
    if existing is None:
        return None
    if existing.channel_id != channel_id:
        raise InteractionReused(channel_id, interaction_id, existing.channel_id)
    return CommitResult(existing, duplicate=True)


def require_game(channel_id: int) -> Step[None]:
    """`GameNotFound` unless the channel holds a game."""
    found = yield Query("SELECT 1 FROM games WHERE channel_id = ?", (channel_id,), "value")
    if found is None:
        raise GameNotFound(channel_id)


def members_of(dialect: Dialect, channel_id: int) -> Step[list[Member]]:
    """The game's members in joining order."""
    rows = yield Query(MEMBERS, (channel_id,), "rows")
    return [member_from_row(row, dialect.when) for row in rows]


def reseal(channel_id: int, *, kinds: bool = True, salts: bool = True) -> Step[Any]:
    """Refresh the game's checksum of members, sealed records and settings, inside the
    caller's write transaction; the covered rows it read (what a full read of the game
    would read after the write: `db.core.members.covered_seats` makes its seats of them).

    EVERY write of ``members``, of a game's sealed ``records`` or of a covered ``games``
    column (guild, ruleset, language, created_at, kind, state_salt) must run it before
    committing, or the next load sees the game as tampered. The writers: create, add/remove
    a member, a sealed record put or deleted, restore a copied game (`db.core.games`,
    `db.core.records`, `db.core.logs`). ``kinds`` and ``salts`` as for `covered_rows`.
    """
    rows = yield covered_rows(channel_id, kinds=kinds, salts=salts)
    digests = covered_digests(rows)
    if digests is not None:
        yield Query(
            "UPDATE games SET rows_digest = ? WHERE channel_id = ?", (digests[1], channel_id)
        )
    return rows


def covered_rows_problem(channel_id: int) -> Step[str | None]:
    """Why the game's covered rows do not match their checksum (None: they do)."""
    digests = covered_digests((yield covered_rows(channel_id)))
    return None if digests is None else rows_problem(*digests)


__all__ = [
    "COVERED_ROWS",
    "COVERED_ROWS_BEFORE_KINDS",
    "EVENT_BY_INTERACTION",
    "EVENT_COLUMNS",
    "GAME_COLUMNS",
    "MAX_EVENTS_PAGE",
    "MEMBERS",
    "RECORD_COLUMNS",
    "covered_rows",
    "covered_rows_problem",
    "decode_document",
    "duplicate_of",
    "event_by_interaction",
    "event_of_row",
    "members_of",
    "require_game",
    "reseal",
]
