"""Reading a game's log and moving games whole: listings, event pages, old versions,
exports, history pages, archives, and a game copied in from another store."""

from __future__ import annotations

from functools import partial
from typing import Any

from db.chain.hashing import GENESIS_HASH, canonical_json, verify_chain
from db.chain.history import VERSION_COLUMNS, ExportHead, StoredVersion, stored_version_from_row
from db.chain.patch import compact_history, history_states
from db.chain.rows import (
    ARCHIVE_COLUMNS,
    archive_from_row,
    check_status,
    event_from_row,
    summaries_from_rows,
    summary_from_row,
)
from db.chain.verify import VerifiedChains, check_event_page, stamp_text
from db.core.common import (
    EVENT_COLUMNS,
    GAME_COLUMNS,
    decode_document,
    members_of,
    require_game,
    reseal,
)
from db.core.dialect import Dialect
from db.core.games import INSERT_EVENT, INSERT_PATCH
from db.core.steps import Batch, Compute, Query, Step
from db.core.verify import STATE_SALT, patch_rows, state_text, text_rows, verified_head
from db.errors import ArchiveNotFound, ChainBroken, CorruptRecord, GameExists, GameNotFound
from db.models import (
    ArchivedGame,
    EventRecord,
    ExportBundle,
    GameStatus,
    GameSummary,
    StateRecord,
    format_timestamp,
    salted,
    utc_now,
)

#: Event pages longer than this are hashed off the event loop.
_INLINE_PAGE = 32


def list_games(
    dialect: Dialect, guild_id: int | None, status: GameStatus | None
) -> Step[list[GameSummary]]:
    """The games of a guild (None: outside any guild), oldest first."""
    clauses = ["guild_id IS NULL" if guild_id is None else "guild_id = ?"]
    params: list[Any] = [] if guild_id is None else [guild_id]
    if status is not None:
        clauses.append("status = ?")
        params.append(status)
    rows = yield Query(
        f"SELECT {GAME_COLUMNS} FROM games WHERE {' AND '.join(clauses)} "
        "ORDER BY created_at, channel_id",
        tuple(params),
        "rows",
    )
    return summaries_from_rows(rows, dialect.when)


def all_games(dialect: Dialect, status: GameStatus | None) -> Step[list[GameSummary]]:
    """Every game of every guild, optionally only those with ``status``, by channel."""
    if status is None:
        rows = yield Query(f"SELECT {GAME_COLUMNS} FROM games ORDER BY channel_id", (), "rows")
    else:
        rows = yield Query(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = ? ORDER BY channel_id",
            (status,),
            "rows",
        )
    return summaries_from_rows(rows, dialect.when)


def count_games(status: GameStatus | None) -> Step[int]:
    """How many games are stored, optionally only those with ``status``."""
    if status is None:
        count = yield Query("SELECT count(*) FROM games", (), "value")
    else:
        count = yield Query("SELECT count(*) FROM games WHERE status = ?", (status,), "value")
    return int(count)


def events(
    dialect: Dialect, channel_id: int, after_seq: int, limit: int
) -> Step[list[EventRecord]]:
    """A page of the event log, each event hashed and linked to the one before it."""
    salt, rows = yield Batch(
        (
            Query(STATE_SALT, (channel_id,), "value"),
            Query(
                f"SELECT {EVENT_COLUMNS} FROM events "
                "WHERE channel_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (channel_id, after_seq, limit),
                "rows",
            ),
        )
    )
    if not rows:
        yield from require_game(channel_id)
    check = partial(
        check_event_page, channel_id, rows, stamp_text, None if salt is None else str(salt)
    )
    if len(rows) > _INLINE_PAGE:
        yield Compute(check)
    else:
        check()
    return [event_from_row(row, dialect.when) for row in rows]


def state_at(channel_id: int, version: int, chains: VerifiedChains) -> Step[StateRecord]:
    """One stored version, checked against the chain."""
    known = chains.head(channel_id)
    status, text = yield from state_text(channel_id, version, chains, known)
    return StateRecord(
        version=version,
        status=check_status(status, channel_id),
        document=decode_document(text, channel_id, version),
    )


#: A game's row and its secret salt, for an export (the referee's, or a copy's).
_GAME_AND_SALT = f"SELECT {GAME_COLUMNS}, state_salt FROM games WHERE channel_id = ?"
_ALL_STATES = "SELECT version, status, {document} FROM states WHERE channel_id = ? ORDER BY version"
_ALL_PATCHES = (
    "SELECT version, status, patch, snapshot FROM patches WHERE channel_id = ? ORDER BY version"
)


def _bundle(
    dialect: Dialect,
    channel_id: int,
    verify: bool,
    game_row: Any,
    members: Any,
    event_rows: Any,
    full: list[tuple[int, str, str]],
    patches: list[tuple[int, str, str, bool]],
) -> ExportBundle:
    game = summary_from_row(game_row, dialect.when)
    salt = None if game_row[-1] is None else str(game_row[-1])
    logged = [event_from_row(row, dialect.when) for row in event_rows]
    head = logged[-1].hash if logged else GENESIS_HASH
    if verify:
        head = verify_chain(logged, salt=salt)
    state_rows = history_states(
        channel_id,
        [event.state_hash for event in logged],
        full,
        patches,
        verify=verify,
        salt=salt,
    )
    if verify and game.version != len(logged):
        raise ChainBroken(channel_id, len(logged), f"game is at version {game.version}")
    states = [
        StateRecord(
            version=version,
            status=check_status(state_status, channel_id),
            document=decode_document(text, channel_id, version),
        )
        for version, state_status, text in state_rows
    ]
    return ExportBundle(
        game=game,
        members=members,
        events=logged,
        states=states,
        head_hash=head,
        exported_at=utc_now(),
        state_salt=salt,
    )


def export(
    dialect: Dialect, channel_id: int, verify: bool, chains: VerifiedChains
) -> Step[ExportBundle]:
    """Everything about the game in memory (for copies; `db.chain.export` streams instead)."""
    known = chains.head(channel_id)
    game_row = yield Query(_GAME_AND_SALT, (channel_id,), "row")
    if game_row is None:
        raise GameNotFound(channel_id)
    if verify:  # against the head this process verified, first bad event named
        yield from verified_head(channel_id, chains, known)
    members = yield from members_of(dialect, channel_id)
    event_rows, full, patches = yield Batch(
        (
            Query(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE channel_id = ? ORDER BY seq",
                (channel_id,),
                "rows",
            ),
            Query(_ALL_STATES, (channel_id,), "rows"),
            Query(_ALL_PATCHES, (channel_id,), "rows"),
        )
    )
    bundle: ExportBundle = yield Compute(
        partial(
            _bundle,
            dialect,
            channel_id,
            verify,
            game_row,
            members,
            event_rows,
            text_rows(full),
            patch_rows(patches),
        )
    )
    return bundle


_EXPORT_HEAD = (
    "SELECT e.hash, s.status, s.{document} FROM games AS g "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "LEFT JOIN states AS s ON s.channel_id = g.channel_id AND s.version = g.version "
    "WHERE g.channel_id = ?"
)
_BEYOND = (
    "SELECT max(version) FROM (SELECT version FROM states WHERE channel_id = ? "
    "UNION ALL SELECT version FROM patches WHERE channel_id = ?) AS kept"
)


def export_head(dialect: Dialect, channel_id: int) -> Step[ExportHead]:
    """The game, its members, its head event's hash and its head document, in one read;
    `ChainBroken` if a stored state or patch lies beyond the last event."""
    game_row = yield Query(_GAME_AND_SALT, (channel_id,), "row")
    if game_row is None:
        raise GameNotFound(channel_id)
    game = summary_from_row(game_row, dialect.when)
    members = yield from members_of(dialect, channel_id)
    head, beyond = yield Batch(
        (
            Query(_EXPORT_HEAD, (channel_id,), "row"),
            Query(_BEYOND, (channel_id, channel_id), "value"),
        )
    )
    if head[2] is None:
        raise CorruptRecord(channel_id, f"state of version {game.version} is missing")
    if beyond is not None and int(beyond) > game.version:
        raise ChainBroken(channel_id, game.version, "states without an event")
    return ExportHead(
        game=salted(game.to_json_dict(), None if game_row[-1] is None else str(game_row[-1])),
        members=[member.to_json_dict() for member in members],
        head_hash=GENESIS_HASH if head[0] is None else str(head[0]),
        exported_at=format_timestamp(utc_now()),
        current=(str(head[1]), str(head[2])),
    )


_HISTORY_PAGE = (
    f"SELECT {VERSION_COLUMNS.format(document='{document}')} FROM events AS e "
    "LEFT JOIN patches AS p ON p.channel_id = e.channel_id AND p.version = e.seq "
    "LEFT JOIN states AS s ON s.channel_id = e.channel_id AND s.version = e.seq "
    "WHERE e.channel_id = ? AND e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?"
)


def history_page(
    dialect: Dialect, channel_id: int, after_seq: int, upto_seq: int, limit: int
) -> Step[list[StoredVersion]]:
    """Versions after ``after_seq`` up to ``upto_seq``, at most ``limit``."""
    rows = yield Query(_HISTORY_PAGE, (channel_id, after_seq, upto_seq, limit), "rows")
    if not rows:
        yield from require_game(channel_id)
    return [stored_version_from_row(row, when=dialect.when) for row in rows]


# ---- archives ---------------------------------------------------------------------------


def archived_games(dialect: Dialect, guild_id: int | None) -> Step[list[ArchivedGame]]:
    """The archived games of a guild, newest first."""
    where = "guild_id IS NULL" if guild_id is None else "guild_id = ?"
    rows = yield Query(
        f"SELECT {ARCHIVE_COLUMNS} FROM archived_games WHERE {where} ORDER BY id DESC",
        () if guild_id is None else (guild_id,),
        "rows",
    )
    return [archive_from_row(row, dialect.when) for row in rows]


def all_archives(dialect: Dialect) -> Step[list[ArchivedGame]]:
    """Every archived game, by id."""
    rows = yield Query(f"SELECT {ARCHIVE_COLUMNS} FROM archived_games ORDER BY id", (), "rows")
    return [archive_from_row(row, dialect.when) for row in rows]


def archived_bundle(archive_id: int) -> Step[bytes]:
    """An archive's whole stored bundle."""
    blob = yield Query("SELECT bundle FROM archived_games WHERE id = ?", (archive_id,), "row")
    if blob is None:
        raise ArchiveNotFound(archive_id)
    return bytes(blob[0])


def archive_chunk(archive_id: int, offset: int, size: int) -> Step[bytes]:
    """Bytes ``offset`` to ``offset + size`` of an archive's bundle (empty past its end)."""
    row = yield Query(
        "SELECT substr(bundle, ?, ?) FROM archived_games WHERE id = ?",
        (offset + 1, size, archive_id),
        "row",
    )
    if row is None:
        raise ArchiveNotFound(archive_id)
    return bytes(row[0] or b"")


def restore_archive(dialect: Dialect, entry: ArchivedGame, blob: bytes) -> Step[None]:
    """An archived game inserted exactly as another store holds it (same id)."""
    yield Query(
        "INSERT INTO archived_games (id, channel_id, guild_id, ruleset, language, title, "
        "version, created_at, ended_at, archived_at, head_hash, bundle) {overriding}"
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            entry.id,
            entry.channel_id,
            entry.guild_id,
            entry.ruleset,
            entry.language,
            entry.title,
            entry.version,
            dialect.stamp(format_timestamp(entry.created_at)),
            dialect.stamp(format_timestamp(entry.ended_at)),
            dialect.stamp(format_timestamp(entry.archived_at)),
            entry.head_hash,
            blob,
        ),
    )
    if dialect.identity_reset:
        # Later archives get ids after the copied ones.
        yield Query(dialect.identity_reset, (), "value")


def restore_game(dialect: Dialect, bundle: ExportBundle) -> Step[None]:
    """A game inserted exactly as exported elsewhere (same events, hashes and times);
    `GameExists` for a channel that holds a game."""
    game = bundle.game
    inserted = yield Query(
        f"INSERT INTO games ({GAME_COLUMNS}, state_salt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (channel_id) DO NOTHING",
        (
            game.channel_id,
            game.guild_id,
            game.ruleset,
            game.language,
            game.status,
            game.version,
            dialect.stamp(format_timestamp(game.created_at)),
            dialect.stamp(format_timestamp(game.updated_at)),
            game.kind,
            bundle.state_salt,
        ),
        "count",
    )
    if inserted != 1:
        raise GameExists(game.channel_id)
    full, patches = yield Compute(
        partial(
            compact_history,
            [
                (state.version, state.status, canonical_json(state.document))
                for state in bundle.states
            ],
        )
    )
    stamp = dialect.stamp
    yield Batch(
        (
            dialect.state_rows(game.channel_id, full),
            Query(
                INSERT_EVENT,
                [
                    (
                        event.channel_id,
                        event.seq,
                        event.interaction_id,
                        event.actor_id,
                        event.verb,
                        dialect.pack(canonical_json(event.args)),
                        dialect.pack(canonical_json(event.dice)),
                        dialect.pack(canonical_json(event.resolution)),
                        event.state_version,
                        event.state_hash,
                        event.undoes_seq,
                        stamp(format_timestamp(event.created_at)),
                        event.prev_hash,
                        event.hash,
                    )
                    for event in bundle.events
                ],
                many=True,
            ),
            # After the events, which the patches refer to.
            Query(INSERT_PATCH, [(game.channel_id, *row) for row in patches], many=True),
            Query(
                "INSERT INTO members (channel_id, user_id, role, side, joined_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (m.channel_id, m.user_id, m.role, m.side, stamp(format_timestamp(m.joined_at)))
                    for m in bundle.members
                ],
                many=True,
            ),
        )
    )
    yield from reseal(game.channel_id)


__all__ = [
    "all_archives",
    "all_games",
    "archive_chunk",
    "archived_bundle",
    "archived_games",
    "count_games",
    "events",
    "export",
    "export_head",
    "history_page",
    "list_games",
    "restore_archive",
    "restore_game",
    "state_at",
]
