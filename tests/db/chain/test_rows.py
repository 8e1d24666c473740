"""How SQLite stores an event's JSON texts (db/chain/rows.py): a long one packed with zlib as
sqlite3 binds it (on the connection's thread), a short one as it is, both read back exactly."""

from __future__ import annotations

import sqlite3

from db.chain.hashing import canonical_json
from db.chain.rows import PACK_THRESHOLD, unpack_text
from db.core.dialect import SQLITE

LONG = canonical_json({"odds": [[face, face / 7] for face in range(1, 120)]})


def _bound(value: object) -> object:
    """What sqlite3 stores for ``value`` bound as a statement's parameter."""
    with sqlite3.connect(":memory:") as connection:
        return connection.execute("SELECT ?", (value,)).fetchone()[0]


def test_a_long_text_is_packed_as_sqlite3_binds_it_not_as_the_statement_is_built() -> None:
    assert len(LONG) >= PACK_THRESHOLD
    value = SQLITE.pack(LONG)
    # Building the statement (on the event loop) compresses nothing: the text as it is.
    assert not isinstance(value, bytes) and value == LONG
    stored = _bound(value)
    assert isinstance(stored, bytes) and len(stored) < len(LONG)
    assert unpack_text(stored) == LONG


def test_a_short_text_or_one_zlib_cannot_shrink_is_stored_as_it_is() -> None:
    short = canonical_json({"faces": [3, 5]})
    assert type(_bound(SQLITE.pack(short))) is str and _bound(SQLITE.pack(short)) == short
    # Random-looking text of the threshold's length: zlib's bytes would be longer.
    dense = canonical_json("".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(PACK_THRESHOLD)))
    stored = _bound(SQLITE.pack(dense))
    assert type(stored) is str and stored == dense
