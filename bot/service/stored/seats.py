"""Sides bound to Discord roles, as records of the game: any member with the role plays
that side, beside the players seated one by one (``side_role``, keyed by the side, sealed:
the game's checksum covers it and every command reads it to find the asker's seat)."""

from __future__ import annotations

from collections.abc import Iterable

from db.models import FeatureRecord, Scope
from db.protocol import GameStore

SIDE_ROLE = "side_role"


def side_roles_of(records: Iterable[FeatureRecord]) -> tuple[tuple[str, int], ...]:
    """The (side, Discord role id) bindings among a game's records, by side."""
    bound = [
        (str(record.value["side"]), int(record.value["role_id"]))
        for record in records
        if record.feature == SIDE_ROLE
    ]
    return tuple(sorted(bound))


async def bind_side(store: GameStore, channel_id: int, side: str, role_id: int | None) -> None:
    """Bind ``side`` to a Discord role: its members play that side (None: unbind)."""
    scope = Scope.of_game(channel_id)
    if role_id is None:
        await store.feature_delete(SIDE_ROLE, scope, side)
        return
    value = {"side": side, "role_id": int(role_id)}
    await store.feature_put(SIDE_ROLE, scope, side, value, sealed=True)


__all__ = ["SIDE_ROLE", "bind_side", "side_roles_of"]
