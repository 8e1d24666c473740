"""Rows as the stores read them back: one decoder per table, shared by both backends.

SQLite returns tuples with timestamps as text, PostgreSQL records with TIMESTAMPTZ values;
``when`` turns a stored timestamp into an aware datetime, and every malformed row becomes a
:class:`~db.errors.CorruptRecord` naming its channel.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from db.errors import CorruptRecord
from db.models import (
    GAME_KINDS,
    GAME_STATUSES,
    MEMBER_ROLES,
    ArchivedGame,
    EventRecord,
    GameKind,
    GameStatus,
    GameSummary,
    Member,
    MemberRole,
    parse_timestamp,
)

#: A game's rows, children first (foreign keys are enforced and have no cascade on purpose;
#: ``records`` by its channel: a guild's records have none): deleting or archiving a game
#: deletes them in this order.
CHILD_TABLES = (
    "records",
    "members",
    "patches",
    "events",
    "states",
    "games",
)

log = logging.getLogger(__name__)

#: Turns a stored timestamp (SQLite text, PostgreSQL TIMESTAMPTZ) into an aware datetime.
Clock = Callable[[Any], datetime]


def check_status(value: object, channel_id: int) -> GameStatus:
    """A stored game status, or a CorruptRecord naming the channel."""
    if value not in GAME_STATUSES:
        raise CorruptRecord(channel_id, f"unknown game status {value!r}")
    return value


def check_kind(value: object, channel_id: int) -> GameKind:
    """A stored record kind, or a CorruptRecord naming the channel."""
    if value not in GAME_KINDS:
        raise CorruptRecord(channel_id, f"unknown record kind {value!r}")
    return value


def summary_from_row(row: Sequence[Any], when: Clock = parse_timestamp) -> GameSummary:
    """A ``games`` row (channel, guild, ruleset, language, status, version, times, kind)."""
    channel_id = int(row[0])
    try:
        if type(row[5]) is not int:  # int() would take 2.5 for 2, or "3" for 3
            raise ValueError(f"version {row[5]!r} is not a whole number")
        return GameSummary(
            channel_id=channel_id,
            guild_id=row[1],
            ruleset=row[2],
            language=row[3],
            status=check_status(row[4], channel_id),
            version=row[5],
            created_at=when(row[6]),
            updated_at=when(row[7]),
            kind=check_kind(row[8], channel_id),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(channel_id, f"game row is unreadable ({error})") from error


def summaries_from_rows(
    rows: Sequence[Sequence[Any]], when: Clock = parse_timestamp
) -> list[GameSummary]:
    """The ``games`` rows of a listing; a row that cannot be read is left out and logged.

    One damaged game row (its version, status or a timestamp edited into something else)
    must not hide every other game: the listings feed ``/game list`` and the console's
    start-up check. Loading that game names the damage to whoever uses its channel, and
    ``arbitro db check`` reports it.
    """
    summaries: list[GameSummary] = []
    for row in rows:
        try:
            summaries.append(summary_from_row(row, when))
        except (CorruptRecord, TypeError, ValueError) as error:
            log.error("channel %s: game row left out of the list: %s", row[0], error)
    return summaries


#: SQLite stores an event's args, dice or resolution of at least this many bytes compressed
#: (`pack_text`): a resolution with its odds table is 2–3 KB of repetitive JSON, a fifth of
#: that through zlib. Smaller texts stay as they are (readable with any SQLite client).
PACK_THRESHOLD = 256


def pack_text(text: str) -> str | bytes:
    """What SQLite stores for an event's JSON text: the text, or zlib bytes of a long one.

    Storage only: the chain hashes the text, which `unpack_text` gives back exactly.
    """
    if len(text) < PACK_THRESHOLD:
        return str(text)
    packed = zlib.compress(text.encode("utf-8"), 6)
    return packed if len(packed) < len(text) else str(text)


class PackedLater(str):
    """An event's long JSON text as a statement's parameter: sqlite3 packs it (`pack_text`)
    as it binds it, on the connection's thread, so the event loop that builds the statement
    does not run zlib (a resolution's 2–3 KB is most of a command's compression)."""

    __slots__ = ()


# Process-wide, for this one type: a parameter bound by any sqlite3 connection is packed.
sqlite3.register_adapter(PackedLater, pack_text)


def pack_when_bound(text: str) -> str:
    """`pack_text` deferred to the moment sqlite3 binds the text (`PackedLater`)."""
    return text if len(text) < PACK_THRESHOLD else PackedLater(text)


def unpack_text(value: object) -> str:
    """The JSON text of a stored value: text as it is, bytes from `pack_text` inflated.

    Raises ``ValueError`` for bytes that are not a zlib stream of UTF-8.
    """
    if isinstance(value, bytes | bytearray | memoryview):
        try:
            return zlib.decompress(bytes(value)).decode("utf-8")
        except zlib.error as error:
            raise ValueError(f"compressed text is damaged ({error})") from error
    if not isinstance(value, str):
        raise TypeError(f"expected JSON text, found {type(value).__name__}")
    return value


def event_from_row(row: Sequence[Any], when: Clock = parse_timestamp) -> EventRecord:
    """An ``events`` row in the stores' column order."""
    channel_id, seq = int(row[0]), int(row[1])
    try:
        args = json.loads(unpack_text(row[5]))
        dice = json.loads(unpack_text(row[6]))
        if not isinstance(args, dict) or not isinstance(dice, list):
            raise ValueError("args must be an object and dice a list")
        return EventRecord(
            channel_id=channel_id,
            seq=seq,
            interaction_id=row[2],
            actor_id=row[3],
            verb=row[4],
            args=args,
            dice=dice,
            resolution=json.loads(unpack_text(row[7])),
            state_version=int(row[8]),
            state_hash=row[9],
            undoes_seq=row[10],
            created_at=when(row[11]),
            prev_hash=row[12],
            hash=row[13],
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(channel_id, f"event {seq} is unreadable ({error})") from error


def member_from_row(row: Sequence[Any], when: Clock = parse_timestamp) -> Member:
    """A ``members`` row (channel, user, role, side, joined)."""
    channel_id = int(row[0])
    role = row[2]
    if role not in MEMBER_ROLES:
        raise CorruptRecord(channel_id, f"unknown member role {role!r}")
    try:
        return Member(
            channel_id=channel_id,
            user_id=int(row[1]),
            role=cast(MemberRole, role),
            side=row[3],
            joined_at=when(row[4]),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(channel_id, f"member row is unreadable ({error})") from error


def archive_fields(
    game: Mapping[str, Any], title: str, *, ended_at: str, archived_at: str, head_hash: str
) -> tuple[Any, ...]:
    """An ended game's archive row without its id and bundle, from its game in the export
    format (`GameSummary.to_json_dict`). Timestamps as the SQLite text columns hold them;
    PostgreSQL converts them back."""
    return (
        int(game["channel_id"]),
        game["guild_id"],
        str(game["ruleset"]),
        str(game["language"]),
        title[:200],
        int(game["version"]),
        str(game["created_at"]),
        ended_at,
        archived_at,
        head_hash,
    )


ARCHIVE_COLUMNS = (
    "id, channel_id, guild_id, ruleset, language, title, version, created_at, ended_at, "
    "archived_at, head_hash"
)


def archive_from_row(row: Sequence[Any], when: Clock = parse_timestamp) -> ArchivedGame:
    """An ``archived_games`` row (``ARCHIVE_COLUMNS``), without its bundle."""
    try:
        return ArchivedGame(
            id=int(row[0]),
            channel_id=int(row[1]),
            guild_id=None if row[2] is None else int(row[2]),
            ruleset=str(row[3]),
            language=str(row[4]),
            title=str(row[5]),
            version=int(row[6]),
            created_at=when(row[7]),
            ended_at=when(row[8]),
            archived_at=when(row[9]),
            head_hash=str(row[10]),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(None, f"archived game row: {error}") from error
