"""The game's members: who sits at the table, as a player of a side or as its referee.

Members are part of the game as recorded, not a feature beside it: the export and the
archive carry them, a replay re-runs every command with its player's seat, the game is
created with its referee in the same transaction and the game's checksum covers them.
"""

from __future__ import annotations

from db.chain.rows import member_from_row
from db.core.common import MEMBER_COLUMNS, require_game, reseal
from db.core.dialect import Dialect
from db.core.steps import Query, Step
from db.models import Member, MemberRole


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


__all__ = ["add_member", "remove_member"]
