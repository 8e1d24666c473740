"""Copy every game from one store to another, verifying each on arrival (``arbitro db copy``).

Moving a club from SQLite to PostgreSQL (or back, or to a fresh file) must not change a
single byte of history: each game is exported from the source with its hash chain verified,
inserted verbatim (same events, hashes, timestamps, states, members) in one
transaction on the destination, exported again from there, verified, and compared with
what left. Then every feature's records (deadlines, pace, bound sides, game creators,
dice prompts: the store's generic records, same ids) are copied and compared the same way.
Any difference stops the copy naming the channel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from db.chain.hashing import canonical_json, verify_export
from db.errors import ChainBroken, GameExists
from db.models import ExportBundle, FeatureRecord


@dataclass(frozen=True, slots=True)
class CopiedGame:
    """One game that arrived and verified: its channel, event count and head hash."""

    channel_id: int
    events: int
    head_hash: str


def _comparable(bundle: ExportBundle) -> dict[str, Any]:
    data = bundle.to_json_dict()
    del data["exported_at"]
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
        await destination.restore_game(bundle)
        arrived = await destination.export(channel_id, verify=True)
        if arrived.head_hash != bundle.head_hash:
            raise ChainBroken(channel_id, len(arrived.events), "head hash changed in the copy")
        if _comparable(arrived) != _comparable(bundle):
            raise ChainBroken(channel_id, len(arrived.events), "the copy differs from its source")
        done = CopiedGame(channel_id, len(arrived.events), arrived.head_hash)
        copied.append(done)
        if progress is not None:
            progress(done)
    await _copy_records(source, destination, {game.channel_id for game in games})
    await _copy_archives(source, destination)
    return copied


async def _copy_records(source: Any, destination: Any, channels: set[int]) -> None:
    """Every feature's records (deadlines, pace, bound sides, game creators, prompts…)
    with their ids, page by page; the games whose sealed records arrive are sealed anew,
    and each game is loaded there, its checksum checked over what arrived."""
    after = 0
    while page := await source.all_records(after):
        await destination.restore_records(page)
        arrived = await destination.all_records(after, len(page))
        if [_record_fields(r) for r in arrived] != [_record_fields(r) for r in page]:
            raise ChainBroken(
                page[0].scope.id if page[0].scope.game else None,
                0,
                "the copied feature records differ from their source",
            )
        after = page[-1].id
    for channel_id in sorted(channels):
        await destination.load(channel_id)


def _record_fields(record: FeatureRecord) -> tuple[Any, ...]:
    return (
        record.id,
        record.feature,
        record.scope,
        record.key,
        canonical_json(record.value),
        record.revision,
        record.created_at,
        record.due_at,
        record.sealed,
    )


async def _copy_archives(source: Any, destination: Any) -> None:
    """The archived games (same ids, bundles verified)."""
    archives = await source.all_archives()
    for entry in archives:
        bundle = await source.archived_export(entry.id)
        if verify_export(bundle) != entry.head_hash:
            raise ChainBroken(entry.channel_id, entry.version, "an archived game fails to verify")
        await destination.restore_archive(entry, bundle)
