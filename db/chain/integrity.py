"""The checksum of the rows the hash chain does not cover.

The event log's hash chain vouches for every state and event of a game, but not for the
rows beside it: the game's own row (guild, ruleset, language, creation time, kind), its members
(who is referee, who plays which side) and its sealed feature records (deadlines, pace,
sides bound to roles: `db.models.FeatureRecord`). Those are brought under one
digest kept in ``games.rows_digest``. Every store method that writes them refreshes the
digest in the same transaction (`db.core.common.reseal`, shared by both backends);
loading a game recomputes it with one indexed query and raises `TamperedGame` on a
mismatch, and ``arbitro db check`` runs the same comparison, so the two always agree.

Recipe (schema 9): ``sha256(canonical({"game": {...}, "members": [...], "records":
[...]}))`` with members sorted by user id, records by feature then key (each its feature,
key, stored JSON text, creation and due times) and every timestamp in the fixed text of
`db.models.format_timestamp`; since schema 11 the game's ``kind`` too, written only for a
campaign (a game's digest is the one schema 9 gave it, so the migration reseals only the
campaigns); since schema 12 the record's secret ``state_salt``, written only when it has one
(a record stored before 12 keeps the digest it had). Not covered on purpose:
``status``/``version`` (the chain covers them), ``updated_at`` (every commit moves it), a
record's id and revision, and the records a feature does not seal (a reminder's claim, a
dice prompt).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from db.chain.hashing import canonical_json, compute_event_hash, state_hash
from db.chain.rows import unpack_text
from db.errors import TamperedGame
from db.models import EventRecord, format_timestamp

#: Row kinds in the one query that reads a game's covered rows (see `covered_digests`).
MEMBER_ROW = 0
RECORD_ROW = 1
GAME_ROW = 2


def _stamp(value: Any) -> str | None:
    """A stored timestamp in the one text the digest uses.

    SQLite stores the fixed text of `format_timestamp` and it is hashed as stored (an
    edited text differs even when it names the same instant); PostgreSQL returns a
    datetime, rendered in that same text, so both backends agree on a copied game.
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return format_timestamp(value)
    return str(value)


def rows_digest(
    game: Sequence[Any],
    members: Iterable[Sequence[Any]],
    records: Iterable[Sequence[Any]] = (),
) -> str:
    """The digest of a game's uncovered rows.

    ``game`` is ``(channel_id, guild_id, ruleset, language, created_at, kind, state_salt)``
    (a kind of None: a game, on a schema before 11; a salt of None: none, as before 12);
    ``members``
    ``(user_id, role, side, joined_at)``; ``records``, the game's sealed feature records,
    ``(feature, key, value, created_at, due_at)`` with the value's stored JSON text.
    """
    channel_id, guild_id, ruleset, language, created_at, kind, salt = game
    covered_members = [
        {"user_id": user_id, "role": role, "side": side, "joined_at": _stamp(joined_at)}
        for user_id, role, side, joined_at in members
    ]
    covered_records = [
        {
            "feature": feature,
            "key": key,
            "value": value,
            "created_at": _stamp(created),
            "due_at": _stamp(due),
        }
        for feature, key, value, created, due in records
    ]
    # (channel, user) and (feature, scope, key) are unique: the sort keys are unique.
    covered_members.sort(key=lambda member: str(member["user_id"]))
    covered_records.sort(key=lambda record: (str(record["feature"]), str(record["key"])))
    covered_game = {
        "channel_id": channel_id,
        "guild_id": guild_id,
        "ruleset": ruleset,
        "language": language,
        "created_at": _stamp(created_at),
    }
    if kind not in (None, "game"):
        # Only a campaign names its kind: a row flipped either way no longer matches.
        covered_game["kind"] = kind
    if salt is not None:
        # An edited salt fails here and in every state hash (`db.chain.hashing.state_hash`).
        covered_game["state_salt"] = salt
    covered = {
        "game": covered_game,
        "members": covered_members,
        "records": covered_records,
    }
    return hashlib.sha256(canonical_json(covered).encode("utf-8")).hexdigest()


def covered_digests(rows: Iterable[Sequence[Any]]) -> tuple[object, str] | None:
    """``(stored digest, digest of the rows)`` from the one query each store runs.

    The query (one statement, hence one consistent snapshot) returns rows of ten
    columns ``(kind, id, text_a, text_b, text_c, time_a, time_b, number, digest, salt)``:

    * the game: ``(GAME_ROW, channel_id, ruleset, language, kind, created_at, NULL,
      guild_id, rows_digest, state_salt)``;
    * a member: ``(MEMBER_ROW, user_id, role, side, NULL, joined_at, NULL, NULL, NULL,
      NULL)``;
    * a sealed feature record: ``(RECORD_ROW, id, feature, key, value, created_at, due_at,
      revision, NULL, NULL)``.

    None when the game row is absent (no such game).
    """
    game: tuple[Any, ...] | None = None
    stored: object = None
    members: list[tuple[Any, ...]] = []
    records: list[tuple[Any, ...]] = []
    for kind, ident, text_a, text_b, text_c, time_a, time_b, number, digest, salt in rows:
        if int(kind) == GAME_ROW:
            game = (ident, number, text_a, text_b, time_a, text_c, salt)
            stored = digest
        elif int(kind) == MEMBER_ROW:
            members.append((ident, text_a, text_b, time_a))
        else:
            records.append((text_a, text_b, text_c, time_a, time_b))
    if game is None:
        return None
    return stored, rows_digest(game, members, records)


#: The two reasons a game's rows fail their checksum (the bot shows them localized).
ROWS_UNSEALED = "the checksum of its members, deadlines and settings is missing"
ROWS_EDITED = (
    "its members, deadlines or settings (language, ruleset, kind, creation, salt) were edited"
)


def rows_problem(stored: object, computed: str) -> str | None:
    """Why a stored digest does not vouch for the rows, or None if it does."""
    if stored is None:
        return ROWS_UNSEALED
    if stored != computed:
        return ROWS_EDITED
    return None


def verify_rows_digest(channel_id: int, stored: object, computed: str) -> None:
    """Raise `TamperedGame` if the stored digest does not match the rows' digest."""
    problem = rows_problem(stored, computed)
    if problem is not None:
        raise TamperedGame(channel_id, problem)


#: The reasons the head check gives (the bot shows them localized).
HEAD_MISSING = "the event of the current version is missing"
STATE_EDITED = "the current state does not match the chain head"
HEAD_EDITED = "the latest event does not match its hash"


def head_problem(
    document_text: str, state_status: str, head: EventRecord | None, salt: str | None
) -> str | None:
    """Why the current state and the chain's head disagree (None: they agree); ``salt`` is
    the record's (`db.chain.hashing.state_hash`).

    Cheap enough for every load: the stored document text is the canonical JSON the chain
    hashed, so the check is one SHA-256 of it plus the head event's own hash, recomputed from
    its fields (a changed die face, an edited resolution of the latest command).
    """
    if head is None:
        return HEAD_MISSING
    if state_hash(document_text, state_status, salt) != head.state_hash:
        return STATE_EDITED
    if compute_event_hash(head, head.prev_hash, salt=salt) != head.hash:
        return HEAD_EDITED
    return None


def stored_event_hash(row: Sequence[Any], created_at_text: str, salt: str | None) -> str:
    """The chain hash of an event row as stored, hashing its JSON texts as they are.

    ``row`` is in the stores' event column order; ``created_at_text`` is its timestamp in
    the fixed text; ``salt`` its record's (None: unsalted, `db.chain.hashing.event_hash`).
    The stored args, dice and resolution are the canonical texts the chain hashed, so this
    equals the row's ``hash`` exactly when nothing in it was edited (an event written with
    other texts, by an older release, is checked by re-encoding its parsed fields instead:
    `db.chain.hashing.compute_event_hash`). Raises ``TypeError`` /
    ``ValueError`` for a row that cannot be hashed at all.
    """
    # `db.chain.hashing.canonical_fields` of the twelve chained fields and the salt, written
    # out in their sorted order (`CHAINED_FIELDS`): the first touch of a long log hashes
    # every event, and this is most of its time (tests/db/chain/test_integrity.py holds the
    # two equal).
    encode = canonical_json
    salted = "" if salt is None else f'"salt":{encode(salt)},'
    text = (
        f'{{"actor_id":{encode(row[3])},"args":{unpack_text(row[5])},'
        f'"channel_id":{encode(row[0])},"created_at":{encode(created_at_text)},'
        f'"dice":{unpack_text(row[6])},"interaction_id":{encode(row[2])},'
        f'"resolution":{unpack_text(row[7])},{salted}"seq":{encode(row[1])},'
        f'"state_hash":{encode(row[9])},"state_version":{encode(row[8])},'
        f'"undoes_seq":{encode(row[10])},"verb":{encode(row[4])}}}'
    )
    return hashlib.sha256((str(row[12]) + text).encode("utf-8")).hexdigest()


def head_row_agrees(
    document_text: str,
    state_status: str,
    row: Sequence[Any],
    created_at_text: str,
    salt: str | None,
) -> bool:
    """True if the head event's row, as stored, hashes to its hash and its state hash to the
    current state: `head_problem` without parsing the event back.

    ``row`` is in the stores' event column order; ``created_at_text`` is its timestamp in
    the fixed text (`stored_event_hash`); False sends the caller to `head_problem`, which
    re-encodes the parsed fields and names what differs.
    """
    try:
        if state_hash(document_text, state_status, salt) != row[9]:
            return False
        return bool(stored_event_hash(row, created_at_text, salt) == row[13])
    except (TypeError, ValueError):
        return False
