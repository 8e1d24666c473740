"""Copy every game from one store to another, verifying each on arrival (``arbitro db copy``).

Moving a club from SQLite to PostgreSQL (or back, or to a fresh file) must not change a
single byte of history: each game is exported from the source with its hash chain verified,
inserted verbatim (same events, hashes, timestamps, states, members, deadlines) in one
transaction on the destination, exported again from there, verified, and compared with
what left. Any difference stops the copy naming the channel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from db.errors import ChainBroken, GameExists
from db.models import Deadline, ExportBundle


@dataclass(frozen=True, slots=True)
class CopiedGame:
    """One game that arrived and verified: its channel, event count and head hash."""

    channel_id: int
    events: int
    head_hash: str


def _comparable(bundle: ExportBundle, deadlines: list[Deadline]) -> dict[str, Any]:
    data = bundle.to_json_dict()
    del data["exported_at"]
    data["deadlines"] = [
        (d.channel_id, d.side, d.due_at.isoformat(), d.reminded, d.set_at.isoformat())
        for d in deadlines
    ]
    return data


async def copy_games(
    source: Any, destination: Any, *, progress: Callable[[CopiedGame], None] | None = None
) -> list[CopiedGame]:
    """Copy every game of ``source`` into ``destination`` (both open stores).

    Refuses up front (`GameExists`, nothing written) when the destination already holds a
    game in one of the source's channels. Raises `ChainBroken` if a game fails
    verification before leaving or after arriving, `TamperedGame` if a game's members,
    deadlines or settings were edited behind the source store's back.
    """
    games = await source.all_games()
    taken = {game.channel_id for game in await destination.all_games()}
    clashes = sorted(taken & {game.channel_id for game in games})
    if clashes:
        raise GameExists(clashes[0])
    copied: list[CopiedGame] = []
    for game in games:
        channel_id = game.channel_id
        # Loading verifies what the chain does not cover (members, deadlines, settings):
        # a tampered game raises TamperedGame here instead of being sealed anew on arrival.
        await source.load(channel_id)
        bundle = await source.export(channel_id, verify=True)
        deadlines = await source.deadlines(channel_id)
        await destination.restore_game(bundle, deadlines)
        arrived = await destination.export(channel_id, verify=True)
        arrived_deadlines = await destination.deadlines(channel_id)
        if arrived.head_hash != bundle.head_hash:
            raise ChainBroken(channel_id, len(arrived.events), "head hash changed in the copy")
        if _comparable(arrived, arrived_deadlines) != _comparable(bundle, deadlines):
            raise ChainBroken(channel_id, len(arrived.events), "the copy differs from its source")
        done = CopiedGame(channel_id, len(arrived.events), arrived.head_hash)
        copied.append(done)
        if progress is not None:
            progress(done)
    return copied
