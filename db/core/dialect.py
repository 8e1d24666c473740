"""What differs between SQLite and PostgreSQL, in one place.

The operations (`db.core`) write their SQL once: ``?`` placeholders and a few ``{macro}``
words. `Dialect.translate` turns that into the backend's text (cached: one dictionary
lookup per statement after the first time):

* placeholders: ``?`` (SQLite) or ``$1, $2, …`` (PostgreSQL);
* ``{document}``: the column holding a state's hashed text — ``document`` in SQLite;
  ``document_text`` in PostgreSQL, whose ``document`` is a JSONB copy for queries;
* ``{lock}``: the row lock of a write on the game row, aliased ``g`` (PostgreSQL ``FOR
  UPDATE OF g``; nothing in SQLite, whose ``BEGIN IMMEDIATE`` already holds the file's
  write lock);
* ``{overriding}``: an insert that chooses its own identity value (PostgreSQL ``OVERRIDING
  SYSTEM VALUE``).

Values: timestamps are the fixed-width UTC text the chain hashes (`format_timestamp`) in
SQLite and TIMESTAMPTZ in PostgreSQL (`stamp` and `when`); an event's long JSON texts are
stored zlib-compressed in SQLite (`db.chain.rows.pack_text`, as sqlite3 binds them) and as
text in PostgreSQL (TOAST compresses them); a state is inserted with its JSONB copy in
PostgreSQL (`insert_state`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from db.chain.rows import pack_when_bound
from db.core.steps import Query
from db.models import format_timestamp, parse_timestamp


def _numbered(sql: str) -> str:
    """``?`` placeholders as ``$1, $2, …``, leaving quoted text alone."""
    out: list[str] = []
    number = 0
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            number += 1
            out.append(f"${number}")
        else:
            out.append(char)
    return "".join(out)


def _same(value: Any) -> Any:
    return value


def _aware(moment: Any) -> datetime:
    """A TIMESTAMPTZ value as the same aware datetime the SQLite text reads back as."""
    if not isinstance(moment, datetime):
        raise TypeError(f"expected a timestamp, found {type(moment).__name__}")
    return parse_timestamp(format_timestamp(moment))


def _jsonb_value(document_json: str) -> str | None:
    """The text PostgreSQL keeps as JSONB, or None for what JSONB cannot hold (NUL)."""
    return None if "\\u0000" in document_json else document_json


@dataclass(frozen=True, slots=True)
class Dialect:
    """One backend's words and codecs (`SQLITE`, `POSTGRES`)."""

    name: str
    macros: dict[str, str]
    numbered: bool
    #: A fixed-width timestamp text as the parameter the backend stores.
    stamp: Callable[[str], Any]
    #: A stored timestamp back to an aware datetime.
    when: Callable[[Any], datetime]
    #: An event's JSON text as stored (compressed or not).
    pack: Callable[[str], Any]
    #: Whether a state row carries a JSONB copy of its document.
    jsonb_copy: bool
    #: After inserting rows with their own ids: the statement moving the id sequence past
    #: them (PostgreSQL's identity column; SQLite's AUTOINCREMENT follows by itself).
    identity_reset: str = ""
    #: The same for the feature records' ids (`db.core.records.restore`).
    records_identity_reset: str = ""
    #: A number this connection reads that moves whenever another connection commits to
    #: the database (an SQL expression), or "" if the backend has none: the probe of the
    #: games this process keeps verified between commands (`db.chain.head_cache`).
    change_counter: str = ""
    #: Whether a command's commit on a kept head may be sent as one statement, an INSERT
    #: into the ``command_commits`` view whose trigger makes its writes (SQLite, schema 13:
    #: one trip to the driver's thread instead of one per statement).
    commit_in_one_statement: bool = False
    _cache: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def text(self, query: Query) -> str:
        """The backend's text of a query (`translate`, unless it is raw)."""
        return query.sql if query.raw else self.translate(query.sql)

    def translate(self, sql: str) -> str:
        """The backend's text of a neutral statement."""
        text = self._cache.get(sql)
        if text is None:
            text = sql.format_map(self.macros) if "{" in sql else sql
            if self.numbered:
                text = _numbered(text)
            with self._lock:
                self._cache[sql] = text
        return text

    def insert_state(self, channel_id: int, version: int, status: str, text: str) -> Query:
        """The row of one whole document (with its JSONB copy in PostgreSQL)."""
        if self.jsonb_copy:
            return Query(
                "INSERT INTO states (channel_id, version, status, document_text, document) "
                "VALUES (?, ?, ?, ?, ?)",
                (channel_id, version, status, text, _jsonb_value(text)),
            )
        return Query(
            "INSERT INTO states (channel_id, version, status, document) VALUES (?, ?, ?, ?)",
            (channel_id, version, status, text),
        )

    def state_rows(self, channel_id: int, rows: list[tuple[int, str, str]]) -> Query:
        """Several whole documents at once (``executemany``)."""
        first = self.insert_state(channel_id, 0, "", "")
        return Query(
            first.sql,
            [self.insert_state(channel_id, *row).params for row in rows],
            many=True,
        )


SQLITE = Dialect(
    name="sqlite",
    macros={"document": "document", "lock": "", "overriding": ""},
    numbered=False,
    stamp=_same,
    when=parse_timestamp,
    pack=pack_when_bound,
    jsonb_copy=False,
    # Moves on every commit of another connection to the file, never on this one's own.
    change_counter="(SELECT data_version FROM pragma_data_version())",
    commit_in_one_statement=True,
)

POSTGRES = Dialect(
    name="postgresql",
    macros={
        "document": "document_text",
        "lock": " FOR UPDATE OF g",
        "overriding": "OVERRIDING SYSTEM VALUE ",
    },
    numbered=True,
    stamp=parse_timestamp,
    when=_aware,
    pack=_same,
    jsonb_copy=True,
    identity_reset="SELECT setval(pg_get_serial_sequence('archived_games', 'id'), "
    "(SELECT max(id) FROM archived_games))",
    records_identity_reset="SELECT setval(pg_get_serial_sequence('records', 'id'), "
    "(SELECT max(id) FROM records))",
)

__all__ = ["POSTGRES", "SQLITE", "Dialect"]
