"""The display name of each seat's holder, as a record of the game (or the campaign).

A seat is a Discord id (the members table, a campaign's players): Discord shows a mention
as the member's name, but the console after a restart and the web pages cannot. So a seat
records its holder's display name when the holder takes it (``/game join``, ``/game
takeover``, the game's creation, ``/campaign new`` and ``join``), and again whenever a seated
member writes to the game under another name (a seat assigned by the referee is named by
its holder's first command). ``seat_name``, keyed by the user, sealed in a game (read with
every command, at no extra read); a campaign's channel keeps its players' the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from db.models import FeatureRecord, Scope
from db.protocol import GameStore

SEAT_NAME = "seat_name"
#: A display name is kept to this many characters (as the log's actor names are).
MAX_SEAT_NAME = 60


def seat_names_of(records: Iterable[FeatureRecord]) -> dict[int, str]:
    """The holders' display names among a game's records (user id → name)."""
    return {
        int(record.key): str(record.value["name"])
        for record in records
        if record.feature == SEAT_NAME and record.value.get("name")
    }


async def seat_names(store: GameStore, channel_id: int) -> dict[int, str]:
    """The display names recorded for the seats of a game or a campaign."""
    return seat_names_of(await store.feature_list(SEAT_NAME, Scope.of_game(channel_id)))


async def note_seat_name(
    store: GameStore, channel_id: int, user: int, name: str, known: Mapping[int, str]
) -> None:
    """Record ``user``'s display name for their seat (nothing written when ``known``, the
    names recorded already, holds it, or when there is no name)."""
    kept = name.strip()[:MAX_SEAT_NAME]
    if not kept or known.get(user) == kept:
        return
    await store.feature_put(
        SEAT_NAME, Scope.of_game(channel_id), str(user), {"name": kept}, sealed=True
    )


__all__ = ["MAX_SEAT_NAME", "SEAT_NAME", "note_seat_name", "seat_names", "seat_names_of"]
