"""Who may create a game in a guild: members with this Discord role (a guild's record,
``creator_role``; none: anyone)."""

from __future__ import annotations

from db.models import Scope
from db.protocol import GameStore

CREATOR_ROLE = "creator_role"
_KEY = "creator"


async def creator_role(store: GameStore, guild_id: int) -> int | None:
    """The role a member needs to create a game in this guild (None: anyone)."""
    record = await store.feature_get(CREATOR_ROLE, Scope.of_guild(guild_id), _KEY)
    return None if record is None else int(record.value["role_id"])


async def set_creator_role(store: GameStore, guild_id: int, role_id: int | None) -> None:
    """Set (None: clear) the role a member needs to create a game in this guild."""
    scope = Scope.of_guild(guild_id)
    if role_id is None:
        await store.feature_delete(CREATOR_ROLE, scope, _KEY)
        return
    await store.feature_put(CREATOR_ROLE, scope, _KEY, {"role_id": int(role_id)})


__all__ = ["CREATOR_ROLE", "creator_role", "set_creator_role"]
