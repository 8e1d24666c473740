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
from db.hashing import verify_export
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
        # What is kept beside the chain: the game's pace and the sides bound to roles.
        context = await source.open_command(channel_id)
        if context.pace_hours:
            await destination.set_pace(channel_id, context.pace_hours)
        for side, role in context.side_roles:
            await destination.bind_side(channel_id, side, role)
        done = CopiedGame(channel_id, len(arrived.events), arrived.head_hash)
        copied.append(done)
        if progress is not None:
            progress(done)
    await _copy_guilds_and_archives(source, destination, {g.guild_id for g in games})
    return copied


async def _copy_guilds_and_archives(source: Any, destination: Any, guilds: set[Any]) -> None:
    """The archived games (same ids, bundles verified) and each guild's game creators."""
    archives = await source.all_archives()
    for entry in archives:
        bundle = await source.archived_export(entry.id)
        if verify_export(bundle) != entry.head_hash:
            raise ChainBroken(entry.channel_id, entry.version, "an archived game fails to verify")
        await destination.restore_archive(entry, bundle)
    for guild in sorted(g for g in guilds | {a.guild_id for a in archives} if g is not None):
        role = await source.creator_role(guild)
        if role is not None:
            await destination.set_creator_role(guild, role)
