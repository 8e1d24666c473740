"""The application's own rows beside the game log: members, deadlines and their reminders,
the game's pace, sides bound to Discord roles, who may create games, dice prompts.

Written once for both backends; the names are the `GameStore` methods' for now (see
docs/storage.md, "Where a new operation goes", for how they become a few generic
operations owned by the bot's feature modules).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from db.core.common import DEADLINE_COLUMNS, DEADLINES, MEMBER_COLUMNS, require_game, reseal
from db.core.dialect import Dialect
from db.core.steps import Batch, Query, Step
from db.errors import CorruptRecord, GameNotFound
from db.models import Deadline, Member, MemberRole, PendingRoll, parse_timestamp
from db.prepare import stable_json
from db.rows import deadline_from_row, member_from_row

# ---- members ---------------------------------------------------------------------------


def add_member(
    dialect: Dialect,
    channel_id: int,
    user_id: int,
    side: str | None,
    role: MemberRole,
    joined_at: str,
) -> Step[Member]:
    """Add a member, or change the side/role of one (who keeps their joining time)."""
    yield from require_game(channel_id)
    row = yield Query(
        f"INSERT INTO members ({MEMBER_COLUMNS}) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (channel_id, user_id) DO UPDATE SET role = excluded.role, "
        f"side = excluded.side RETURNING {MEMBER_COLUMNS}",
        (channel_id, user_id, role, side, dialect.stamp(joined_at)),
        "row",
    )
    yield from reseal(channel_id)
    return member_from_row(row, dialect.when)


def remove_member(channel_id: int, user_id: int) -> Step[bool]:
    """Remove a member; false if they were not one."""
    changed = yield Query(
        "DELETE FROM members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id), "count"
    )
    yield from reseal(channel_id)
    return bool(changed)


# ---- deadlines -------------------------------------------------------------------------


def set_deadline(
    dialect: Dialect, channel_id: int, side: str, due_at: str, set_at: str
) -> Step[Deadline]:
    """Set or move a side's deadline; its reminder is armed again."""
    yield from require_game(channel_id)
    yield Query(
        "INSERT INTO deadlines (channel_id, side, due_at, reminded, set_at) "
        "VALUES (?, ?, ?, FALSE, ?) "
        "ON CONFLICT (channel_id, side) DO UPDATE SET due_at = excluded.due_at, "
        "reminded = FALSE, set_at = excluded.set_at",
        (channel_id, side, dialect.stamp(due_at), dialect.stamp(set_at)),
    )
    yield from reseal(channel_id)
    return Deadline(
        channel_id=channel_id,
        side=side,
        due_at=parse_timestamp(due_at),
        reminded=False,
        set_at=parse_timestamp(set_at),
    )


def clear_deadline(channel_id: int, side: str) -> Step[bool]:
    """Drop a side's deadline; false if there was none."""
    changed = yield Query(
        "DELETE FROM deadlines WHERE channel_id = ? AND side = ?", (channel_id, side), "count"
    )
    yield from reseal(channel_id)
    return bool(changed)


def deadlines(dialect: Dialect, channel_id: int) -> Step[list[Deadline]]:
    """A channel's deadlines, earliest first."""
    rows = yield Query(DEADLINES, (channel_id,), "rows")
    return [deadline_from_row(row, dialect.when) for row in rows]


def due_deadlines(dialect: Dialect, now: str) -> Step[list[Deadline]]:
    """Deadlines due at ``now`` or earlier, not reminded, in games that have not ended."""
    rows = yield Query(
        f"SELECT {DEADLINE_COLUMNS} FROM deadlines AS d "
        "JOIN games AS g ON g.channel_id = d.channel_id "
        "WHERE NOT d.reminded AND d.due_at <= ? AND g.status <> 'ended' "
        "ORDER BY d.due_at, d.channel_id, d.side",
        (dialect.stamp(now),),
        "rows",
    )
    return [deadline_from_row(row, dialect.when) for row in rows]


def mark_reminded(dialect: Dialect, channel_id: int, side: str, due_at: str) -> Step[bool]:
    """A compare-and-set on this exact deadline: true for the one caller that flipped it."""
    changed = yield Query(
        "UPDATE deadlines SET reminded = TRUE "
        "WHERE channel_id = ? AND side = ? AND due_at = ? AND NOT reminded",
        (channel_id, side, dialect.stamp(due_at)),
        "count",
    )
    return bool(changed)


def claim_warning(
    dialect: Dialect, channel_id: int, side: str, due_at: str, sent_at: str
) -> Step[bool]:
    """Claim the warning before this exact deadline: true once, across processes."""
    changed = yield Query(
        "INSERT INTO deadline_warnings (channel_id, side, due_at, sent_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (channel_id, side, due_at) DO NOTHING",
        (channel_id, side, dialect.stamp(due_at), dialect.stamp(sent_at)),
        "count",
    )
    return bool(changed)


# ---- settings of a game and of a guild -------------------------------------------------


def set_pace(channel_id: int, hours: int | None) -> Step[None]:
    """Set the game's pace (hours per owed action; None: no pace)."""
    changed = yield Query(
        "UPDATE games SET pace_hours = ? WHERE channel_id = ?", (hours, channel_id), "count"
    )
    if not changed:
        raise GameNotFound(channel_id)


def bind_side(channel_id: int, side: str, role_id: int | None) -> Step[None]:
    """Bind a side to a Discord role (None: unbind it)."""
    yield from require_game(channel_id)
    queries = [
        Query("DELETE FROM side_roles WHERE channel_id = ? AND side = ?", (channel_id, side))
    ]
    if role_id is not None:
        queries.append(
            Query(
                "INSERT INTO side_roles (channel_id, side, role_id) VALUES (?, ?, ?)",
                (channel_id, side, role_id),
            )
        )
    yield Batch(tuple(queries))


def creator_role(guild_id: int) -> Step[int | None]:
    """The role a member needs to create a game in this guild (None: anyone)."""
    value = yield Query(
        "SELECT creator_role_id FROM guild_settings WHERE guild_id = ?", (guild_id,), "value"
    )
    return None if value is None else int(value)


def set_creator_role(guild_id: int, role_id: int | None) -> Step[None]:
    """Set (None: clear) the role a member needs to create a game in this guild."""
    yield Query(
        "INSERT INTO guild_settings (guild_id, creator_role_id) VALUES (?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET creator_role_id = excluded.creator_role_id",
        (guild_id, role_id),
    )


# ---- dice prompts a player still owes -------------------------------------------------


def save_pending_roll(dialect: Dialect, roll: PendingRoll, created_at: str) -> Step[PendingRoll]:
    """Keep a command waiting for its roller's next die, replacing that player's older one."""
    yield from require_game(roll.channel_id)
    yield Query(
        "DELETE FROM pending_rolls WHERE channel_id = ? AND user_id = ?",
        (roll.channel_id, roll.user_id),
    )
    roll_id = yield Query(
        "INSERT INTO pending_rolls (channel_id, user_id, version, verb, options, faces, "
        "bot_faces, die_sides, label, side, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
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
            dialect.stamp(created_at),
        ),
        "value",
    )
    return replace(roll, id=int(roll_id), created_at=parse_timestamp(created_at))


def _pending_roll_of(row: Any, channel_id: int, roll_id: int, dialect: Dialect) -> PendingRoll:
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
            created_at=dialect.when(row[11]),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(
            channel_id, f"pending roll {roll_id} is unreadable ({error})"
        ) from error


def pending_roll(dialect: Dialect, channel_id: int, roll_id: int) -> Step[PendingRoll | None]:
    """A waiting command by id, or None once answered, replaced or dropped."""
    row = yield Query(
        "SELECT id, channel_id, user_id, version, verb, options, faces, bot_faces, die_sides, "
        "label, side, created_at FROM pending_rolls WHERE channel_id = ? AND id = ?",
        (channel_id, roll_id),
        "row",
    )
    return None if row is None else _pending_roll_of(row, channel_id, roll_id, dialect)


def drop_pending_roll(channel_id: int, roll_id: int) -> Step[bool]:
    """Forget a waiting command; false if it was already gone."""
    changed = yield Query(
        "DELETE FROM pending_rolls WHERE channel_id = ? AND id = ?", (channel_id, roll_id), "count"
    )
    return bool(changed)


__all__ = [
    "add_member",
    "bind_side",
    "claim_warning",
    "clear_deadline",
    "creator_role",
    "deadlines",
    "drop_pending_roll",
    "due_deadlines",
    "mark_reminded",
    "pending_roll",
    "remove_member",
    "save_pending_roll",
    "set_creator_role",
    "set_deadline",
    "set_pace",
]
