"""The game's members: who sits at the table, as a player of a side or as its referee.

Members are part of the game as recorded, not a feature beside it: the export and the
archive carry them, a replay re-runs every command with its player's seat, the game is
created with its referee in the same transaction and the game's checksum covers them.
"""

from __future__ import annotations

from typing import Any

from db.chain.integrity import MEMBER_ROW, RECORD_ROW
from db.chain.rows import member_from_row
from db.core.common import MEMBER_COLUMNS, require_game, reseal
from db.core.dialect import Dialect
from db.core.records import record_of
from db.core.steps import Query, Step
from db.models import FeatureRecord, Member, MemberRole

#: A game's seats as a full read gives them: its members in joining order, its sealed
#: records in the order they were made.
Seats = tuple[tuple[Member, ...], tuple[FeatureRecord, ...]]


def add_member(
    dialect: Dialect,
    channel_id: int,
    user_id: int,
    side: str | None,
    role: MemberRole,
    joined_at: str,
) -> Step[tuple[Member, Seats]]:
    """Add a member, or change the side/role of one (who keeps their joining time); the
    member and the game's seats after the write."""
    yield from require_game(channel_id)
    row = yield Query(
        f"INSERT INTO members ({MEMBER_COLUMNS}) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (channel_id, user_id) DO UPDATE SET role = excluded.role, "
        f"side = excluded.side RETURNING {MEMBER_COLUMNS}",
        (channel_id, user_id, role, side, dialect.stamp(joined_at)),
        "row",
    )
    covered = yield from reseal(channel_id)
    return member_from_row(row, dialect.when), covered_seats(dialect, channel_id, covered)


def remove_member(dialect: Dialect, channel_id: int, user_id: int) -> Step[tuple[bool, Seats]]:
    """Remove a member (false if they were not one); the game's seats after the write."""
    changed = yield Query(
        "DELETE FROM members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id), "count"
    )
    covered = yield from reseal(channel_id)
    return bool(changed), covered_seats(dialect, channel_id, covered)


def covered_seats(dialect: Dialect, channel_id: int, covered: Any) -> Seats:
    """The members and sealed records among a game's covered rows
    (`db.core.common.covered_rows`), as a full read of the game gives them."""
    members = sorted(
        (row for row in covered if row[0] == MEMBER_ROW), key=lambda row: (row[5], row[1])
    )
    records = sorted((row for row in covered if row[0] == RECORD_ROW), key=lambda row: row[1])
    return (
        tuple(
            member_from_row((channel_id, row[1], row[2], row[3], row[5]), dialect.when)
            for row in members
        ),
        tuple(
            record_of(
                (*row[1:3], channel_id, channel_id, row[3], row[4], row[7], row[6], row[5], True),
                dialect,
            )
            for row in records
        ),
    )


__all__ = ["Seats", "add_member", "covered_seats", "remove_member"]
