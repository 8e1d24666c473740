"""A game's history as the store keeps it, read page by page (exports, archives).

An export or an archive walks a game from version 1 to its head without ever holding the
whole log: the stores hand out `StoredVersion` pages — each version's event as the texts
the chain hashed (no JSON parsed), its full document where one is kept and its patch from
the previous version — and an `ExportHead` read first (the game, its members, the head's
hash and document). The version read first bounds every page, so pages read later see the
same history even if the game moves on meanwhile: an event, a patch and the snapshot
documents never change once written; only the head's own full document is dropped at the
next commit, which is why the head carries it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from db.chain.hashing import GENESIS_HASH, canonical_json, event_hash, parse_canonical
from db.chain.patch import HistoryWalker
from db.chain.rows import Clock, unpack_text
from db.errors import ChainBroken, CorruptRecord
from db.models import EventRecord, JsonObject, format_timestamp, parse_timestamp

#: Versions a store reads in one page (a few hundred KB of event texts).
PAGE_VERSIONS = 256


@dataclass(frozen=True, slots=True)
class ExportHead:
    """What is read before a game's events: the game, its members, its head.

    ``game`` and ``members`` are in the export format (`GameSummary.to_json_dict`,
    `Member.to_json_dict`); ``current`` is the head version's ``(status, document JSON)``.
    """

    game: JsonObject
    members: list[JsonObject]
    head_hash: str
    exported_at: str
    current: tuple[str, str]

    @property
    def channel_id(self) -> int:
        """The game's channel."""
        return int(self.game["channel_id"])

    @property
    def version(self) -> int:
        """The game's version: its number of events, the last version an export walks."""
        return int(self.game["version"])


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One version of a game: its event as the hashed texts, and its state's stored rows.

    ``full`` is ``(status, document JSON)`` where the store keeps the whole document,
    ``patch`` the ``(status, patch JSON)`` from the previous version (none for version 1),
    ``snapshot`` whether the store recorded the version as a snapshot (its whole document
    kept for good).
    """

    channel_id: int
    seq: int
    interaction_id: str | None
    actor_id: int | None
    verb: str
    args_json: str
    dice_json: str
    resolution_json: str
    state_version: int
    state_hash: str
    undoes_seq: int | None
    created_at: str
    prev_hash: str
    hash: str
    full: tuple[str, str] | None = None
    patch: tuple[str, str] | None = None
    snapshot: bool = False

    def computed_hash(self, prev_hash: str, salt: str | None) -> str:
        """What the event's hash must be if it follows ``prev_hash`` in a record salted with
        ``salt``, from its texts.

        Equal to `db.chain.hashing.compute_event_hash` of the parsed event whenever the stored
        texts are canonical, as the stores write them; `fields_hash` is the reference.
        """
        return event_hash(
            prev_hash,
            {
                "actor_id": canonical_json(self.actor_id),
                "args": self.args_json,
                "channel_id": canonical_json(self.channel_id),
                "created_at": canonical_json(self.created_at),
                "dice": self.dice_json,
                "interaction_id": canonical_json(self.interaction_id),
                "resolution": self.resolution_json,
                "seq": canonical_json(self.seq),
                "state_hash": canonical_json(self.state_hash),
                "state_version": canonical_json(self.state_version),
                "undoes_seq": canonical_json(self.undoes_seq),
                "verb": canonical_json(self.verb),
            },
            salt=salt,
        )

    def fields_hash(self, prev_hash: str, salt: str | None) -> str:
        """The hash recomputed from the parsed fields, as a verifier of the export does."""
        return event_hash(
            prev_hash,
            {
                "actor_id": canonical_json(self.actor_id),
                "args": canonical_json(json.loads(self.args_json)),
                "channel_id": canonical_json(self.channel_id),
                "created_at": canonical_json(self.created_at),
                "dice": canonical_json(json.loads(self.dice_json)),
                "interaction_id": canonical_json(self.interaction_id),
                "resolution": canonical_json(json.loads(self.resolution_json)),
                "seq": canonical_json(self.seq),
                "state_hash": canonical_json(self.state_hash),
                "state_version": canonical_json(self.state_version),
                "undoes_seq": canonical_json(self.undoes_seq),
                "verb": canonical_json(self.verb),
            },
            salt=salt,
        )

    def event_json(self) -> str:
        """The event in the export format (`EventRecord.to_json_dict`), as one JSON text,
        its args, dice and resolution the stored texts themselves."""
        return (
            f'{{"channel_id":{canonical_json(self.channel_id)},'
            f'"seq":{canonical_json(self.seq)},'
            f'"interaction_id":{canonical_json(self.interaction_id)},'
            f'"actor_id":{canonical_json(self.actor_id)},'
            f'"verb":{canonical_json(self.verb)},'
            f'"args":{self.args_json},'
            f'"dice":{self.dice_json},'
            f'"resolution":{self.resolution_json},'
            f'"state_version":{canonical_json(self.state_version)},'
            f'"state_hash":{canonical_json(self.state_hash)},'
            f'"undoes_seq":{canonical_json(self.undoes_seq)},'
            f'"created_at":{canonical_json(self.created_at)},'
            f'"prev_hash":{canonical_json(self.prev_hash)},'
            f'"hash":{canonical_json(self.hash)}}}'
        )

    def event(self) -> EventRecord:
        """The event, parsed (as `GameStore.events` gives it)."""
        return EventRecord(
            channel_id=self.channel_id,
            seq=self.seq,
            interaction_id=self.interaction_id,
            actor_id=self.actor_id,
            verb=self.verb,
            args=parse_canonical(self.args_json),
            dice=parse_canonical(self.dice_json),
            resolution=parse_canonical(self.resolution_json),
            state_version=self.state_version,
            state_hash=self.state_hash,
            undoes_seq=self.undoes_seq,
            created_at=parse_timestamp(self.created_at),
            prev_hash=self.prev_hash,
            hash=self.hash,
        )

    @classmethod
    def from_event(
        cls,
        event: JsonObject,
        full: tuple[str, str] | None = None,
        patch: tuple[str, str] | None = None,
        *,
        snapshot: bool = False,
    ) -> StoredVersion:
        """A version from an event in the export format (an archive's line)."""
        channel_id, seq = int(event["channel_id"]), int(event["seq"])
        try:
            return cls(
                channel_id=channel_id,
                seq=seq,
                interaction_id=event["interaction_id"],
                actor_id=event["actor_id"],
                verb=str(event["verb"]),
                args_json=canonical_json(event["args"]),
                dice_json=canonical_json(event["dice"]),
                resolution_json=canonical_json(event["resolution"]),
                state_version=int(event["state_version"]),
                state_hash=str(event["state_hash"]),
                undoes_seq=event["undoes_seq"],
                created_at=format_timestamp(parse_timestamp(str(event["created_at"]))),
                prev_hash=str(event["prev_hash"]),
                hash=str(event["hash"]),
                full=full,
                patch=patch,
                snapshot=snapshot,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptRecord(channel_id, f"event {seq} is unreadable ({error})") from error


#: The columns a history page reads, in `stored_version_from_row`'s order: the event's
#: (`db.core.common.EVENT_COLUMNS`), then its patch and its full document, if any, and
#: whether the version is a recorded snapshot.
VERSION_COLUMNS = (
    "e.channel_id, e.seq, e.interaction_id, e.actor_id, e.verb, e.args, e.dice, "
    "e.resolution, e.state_version, e.state_hash, e.undoes_seq, e.created_at, e.prev_hash, "
    "e.hash, p.status, p.patch, s.status, s.{document}, p.snapshot"
)


def stored_version_from_row(row: Sequence[Any], when: Clock = parse_timestamp) -> StoredVersion:
    """A history page's row (`VERSION_COLUMNS`)."""
    channel_id, seq = int(row[0]), int(row[1])
    try:
        return StoredVersion(
            channel_id=channel_id,
            seq=seq,
            interaction_id=row[2],
            actor_id=row[3],
            verb=str(row[4]),
            args_json=unpack_text(row[5]),
            dice_json=unpack_text(row[6]),
            resolution_json=unpack_text(row[7]),
            state_version=int(row[8]),
            state_hash=str(row[9]),
            undoes_seq=row[10],
            created_at=format_timestamp(when(row[11])),
            prev_hash=str(row[12]),
            hash=str(row[13]),
            patch=None if row[15] is None else (str(row[14]), str(row[15])),
            full=None if row[17] is None else (str(row[16]), str(row[17])),
            snapshot=bool(row[18]),
        )
    except (TypeError, ValueError) as error:
        raise CorruptRecord(channel_id, f"event {seq} is unreadable ({error})") from error



class VersionCheck:
    """Checks a game's versions as they are read, in order, and rebuilds each state.

    The chain (each event links to the previous one and its texts hash to its hash, its
    sequence and state version follow on) and, through `db.chain.patch.HistoryWalker`, every
    stored state against its event's state hash; `finish` then checks that the last event
    is the head the export announced. Without ``verify`` nothing is checked and a state
    that cannot be rebuilt is None. Holds one parsed document at a time.
    """

    def __init__(self, head: ExportHead, *, verify: bool = True) -> None:
        self.head = head
        self.verify = verify
        self.count = 0
        self.last_event: StoredVersion | None = None
        self._prev_hash = GENESIS_HASH
        salt = head.game.get("state_salt")  # the record's, hashed into its states and events
        self._salt = None if salt is None else str(salt)
        self._walker = HistoryWalker(head.channel_id, head.version, verify=verify, salt=self._salt)

    def state_of(self, version: StoredVersion) -> tuple[str, str] | None:
        """Check ``version`` (the next one) and return its ``(status, document JSON)``."""
        channel_id = self.head.channel_id
        expected_seq = self.count + 1
        if self.verify:
            if version.channel_id != channel_id:
                raise ChainBroken(channel_id, version.seq, "event from another channel")
            if version.seq != expected_seq:
                raise ChainBroken(channel_id, version.seq, f"expected event {expected_seq}")
            if version.state_version != version.seq:
                raise ChainBroken(channel_id, version.seq, "state version differs from sequence")
            if version.prev_hash != self._prev_hash:
                raise ChainBroken(channel_id, version.seq, "does not link to the previous event")
            if version.computed_hash(self._prev_hash, self._salt) != version.hash and (
                version.fields_hash(self._prev_hash, self._salt) != version.hash
            ):
                raise ChainBroken(channel_id, version.seq, "content does not match its hash")
        full = version.full
        if full is None and version.seq == self.head.version:
            # The head's full document as read with the head: a commit since (by another
            # process) may have dropped its row, never its content.
            full = self.head.current
        state = self._walker.step(
            version.seq, version.state_hash, full, version.patch, snapshot=version.snapshot
        )
        self._prev_hash = version.hash
        self.count = expected_seq
        self.last_event = version
        return state

    def finish(self) -> None:
        """Check that every event was read and the last one is the announced head."""
        if not self.verify:
            return
        channel_id = self.head.channel_id
        if self.count != self.head.version:
            raise ChainBroken(
                channel_id, self.count, f"game is at version {self.head.version}"
            )
        if self._prev_hash != self.head.head_hash:
            raise ChainBroken(channel_id, self.count, "head hash differs from the last event")


__all__ = [
    "PAGE_VERSIONS",
    "VERSION_COLUMNS",
    "ExportHead",
    "StoredVersion",
    "VersionCheck",
    "stored_version_from_row",
]
