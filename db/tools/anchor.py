"""Comparing the database with a saved export: an anchor kept outside the database.

The hash chain proves a log was not edited in place, but not that its latest events were
not removed, or that the whole history was not rebuilt with a fresh, self-consistent chain
(or lost with a WAL frame). An export someone saved (``/game export``, ``arbitro db
export``) records the head: ``arbitro db check --against FILE`` says whether the database
still holds that head at the same place.

Only each exported event's ``seq`` and ``hash`` (and the game's channel) are read, so the
bundle with every state and a lighter one carrying only events both work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class ExportUnreadable(ValueError):
    """The file is not an Arbitro export this check can use (says why)."""


@dataclass(frozen=True, slots=True)
class ExportedChain:
    """What an export vouches for: its channel and each event's hash by sequence number."""

    channel_id: int
    hashes: dict[int, str]

    @property
    def head_seq(self) -> int:
        """The last exported event's number (0 for an export without events)."""
        return max(self.hashes, default=0)


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExportUnreadable(f"{what} is not an integer ({value!r})")
    return value


def read_exported_chain(bundle: Any) -> ExportedChain:
    """The chain an export records; `ExportUnreadable` if it is not an export."""
    if not isinstance(bundle, Mapping):
        raise ExportUnreadable("not a JSON object")
    events = bundle.get("events")
    if not isinstance(events, Sequence) or isinstance(events, str | bytes):
        raise ExportUnreadable("no list of events")
    game = bundle.get("game")
    channel: Any = game.get("channel_id") if isinstance(game, Mapping) else None
    hashes: dict[int, str] = {}
    for index, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise ExportUnreadable(f"event #{index + 1} is not an object")
        seq = _as_int(event.get("seq"), f"event #{index + 1}'s seq")
        digest = event.get("hash")
        if not isinstance(digest, str) or not digest:
            raise ExportUnreadable(f"event {seq} has no hash")
        if seq in hashes:
            raise ExportUnreadable(f"event {seq} appears twice")
        hashes[seq] = digest
        if channel is None:
            channel = event.get("channel_id")
    if channel is None:
        raise ExportUnreadable("no channel: neither the game nor an event names one")
    channel_id = _as_int(channel, "the channel id")
    head = bundle.get("head_hash")
    if isinstance(head, str) and hashes and hashes[max(hashes)] != head:
        raise ExportUnreadable("its head hash is not its last event's hash")
    return ExportedChain(channel_id, hashes)


def compare_with_export(exported: ExportedChain, stored: Mapping[int, str] | None) -> list[str]:
    """Problems between an export and the stored chain (``seq → hash``; None: no game).

    The export's head must be in the database at the same sequence number with the same
    hash; every earlier exported event is compared too, to name the first rewritten one.
    An empty list means the database still holds everything the export vouched for (it
    may have moved on since).
    """
    prefix = f"channel {exported.channel_id}:"
    if stored is None:
        return [f"{prefix} the exported game is not in the database (removed)"]
    head = exported.head_seq
    if head == 0:
        return []
    for seq in sorted(exported.hashes):
        if seq not in stored:
            last = max(stored, default=0)
            return [
                f"{prefix} exported event {seq} is missing from the database, whose log ends "
                f"at event {last} (events removed after the export; head {head})"
            ]
        if stored[seq] != exported.hashes[seq]:
            return [
                f"{prefix} event {seq} differs from the export (history rewritten: "
                f"exported {exported.hashes[seq][:8]}, stored {stored[seq][:8]})"
            ]
    return []
