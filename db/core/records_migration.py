"""Migration 9: the feature tables' rows moved into ``records`` (both backends, once).

Each row becomes the record its feature reads back (the value formats are the features'
own, in `bot/service/stored/`; `tests/db/test_migrations.py` reads migrated rows through
them): a side's deadline, the warning claimed before it, a game's pace, a side bound to a
Discord role, a guild's game-creator role and a player's dice prompt, whose id is kept (a
button of the prompt still answers it). Then the old tables and ``games.pace_hours`` go and
every game is sealed anew: its checksum now covers its sealed records.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from db.chain.hashing import canonical_json, parse_canonical
from db.core.audit import seal_all_games
from db.core.dialect import Dialect
from db.core.steps import Query, Step
from db.models import format_timestamp, utc_now

_INSERT = (
    "INSERT INTO records (feature, scope, channel_id, key, value, revision, due_at, "
    "created_at, sealed) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)"
)
_INSERT_WITH_ID = (
    "INSERT INTO records (id, feature, scope, channel_id, key, value, revision, due_at, "
    "created_at, sealed) {overriding}VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
)


def _text(moment: Any) -> str:
    """A stored timestamp (SQLite text, PostgreSQL datetime) as the fixed-width text."""
    return format_timestamp(moment) if isinstance(moment, datetime) else str(moment)


def _game_record(
    dialect: Dialect,
    feature: str,
    channel_id: Any,
    key: str,
    value: dict[str, Any],
    created_at: str,
    *,
    sealed: bool,
    due_at: str | None = None,
) -> tuple[Any, ...]:
    return (
        feature,
        int(channel_id),
        int(channel_id),
        key,
        canonical_json(value),
        None if due_at is None else dialect.stamp(due_at),
        dialect.stamp(created_at),
        sealed,
    )


def move_feature_rows(dialect: Dialect) -> Step[None]:
    """Every row of the feature tables as a record; the tables dropped; games resealed."""
    now = format_timestamp(utc_now())
    # Dice prompts first, with their ids: every record made after gets a higher one.
    prompts = yield Query(
        "SELECT id, channel_id, user_id, version, verb, options, faces, bot_faces, die_sides, "
        "label, side, created_at FROM pending_rolls ORDER BY id",
        (),
        "rows",
    )
    yield Query(
        _INSERT_WITH_ID,
        [
            (
                int(row[0]),
                *_game_record(
                    dialect,
                    "dice_prompt",
                    row[1],
                    str(row[2]),
                    {
                        "user_id": int(row[2]),
                        "version": int(row[3]),
                        "verb": str(row[4]),
                        "options": parse_canonical(str(row[5])),
                        "faces": parse_canonical(str(row[6])),
                        "bot_faces": parse_canonical(str(row[7])),
                        "die_sides": int(row[8]),
                        "label": str(row[9]),
                        "side": row[10],
                    },
                    _text(row[11]),
                    sealed=False,
                ),
            )
            for row in prompts
        ],
        many=True,
    )
    if prompts and dialect.records_identity_reset:
        yield Query(dialect.records_identity_reset, (), "value")
    records: list[tuple[Any, ...]] = []
    for channel_id, side, due_at, reminded, set_at in (
        yield Query(
            "SELECT channel_id, side, due_at, reminded, set_at FROM deadlines "
            "ORDER BY channel_id, due_at, side",
            (),
            "rows",
        )
    ):
        due, done = _text(due_at), bool(reminded)
        value = {"side": side, "due_at": due, "set_at": _text(set_at), "reminded": done}
        records.append(
            _game_record(
                dialect,
                "deadline",
                channel_id,
                str(side),
                value,
                _text(set_at),
                sealed=True,
                due_at=None if done else due,
            )
        )
    # Warnings of games that are gone were harmless rows; a record needs its game.
    for channel_id, side, due_at, sent_at in (
        yield Query(
            "SELECT w.channel_id, w.side, w.due_at, w.sent_at FROM deadline_warnings AS w "
            "JOIN games AS g ON g.channel_id = w.channel_id ORDER BY w.channel_id, w.due_at",
            (),
            "rows",
        )
    ):
        due = _text(due_at)
        value = {"side": side, "due_at": due}
        records.append(
            _game_record(
                dialect,
                "deadline_warning",
                channel_id,
                f"{side}@{due}",
                value,
                _text(sent_at),
                sealed=False,
            )
        )
    for channel_id, hours, created_at in (
        yield Query(
            "SELECT channel_id, pace_hours, created_at FROM games "
            "WHERE pace_hours IS NOT NULL ORDER BY channel_id",
            (),
            "rows",
        )
    ):
        records.append(
            _game_record(
                dialect,
                "pace",
                channel_id,
                "pace",
                {"hours": int(hours)},
                _text(created_at),
                sealed=True,
            )
        )
    for channel_id, side, role_id in (
        yield Query(
            "SELECT channel_id, side, role_id FROM side_roles ORDER BY channel_id, side", (), "rows"
        )
    ):
        value = {"side": side, "role_id": int(role_id)}
        records.append(
            _game_record(dialect, "side_role", channel_id, str(side), value, now, sealed=True)
        )
    for guild_id, role_id in (
        yield Query(
            "SELECT guild_id, creator_role_id FROM guild_settings "
            "WHERE creator_role_id IS NOT NULL ORDER BY guild_id",
            (),
            "rows",
        )
    ):
        value = {"role_id": int(role_id)}
        records.append(
            (
                "creator_role",
                int(guild_id),
                None,
                "creator",
                canonical_json(value),
                None,
                dialect.stamp(now),
                False,
            )
        )
    yield Query(_INSERT, records, many=True)
    for table in (
        "pending_rolls",
        "deadline_warnings",
        "deadlines",
        "side_roles",
        "guild_settings",
    ):
        yield Query(f"DROP TABLE {table}")
    yield Query("ALTER TABLE games DROP COLUMN pace_hours")
    yield from seal_all_games()


__all__ = ["move_feature_rows"]
