"""The storage interface the application core depends on.

`db.drivers.sqlite.SqliteStore` is the embedded implementation and
`db.drivers.postgres.PostgresStore` the server one (several bot processes or hosts), both
`db.store.CoreStore` over the operations of `db.core`; `db.open.open_store` picks one from a
URL. Every backend keeps the same invariants (docs/storage.md): a game's version equals its
number of events, a write is the new state plus its event in one transaction guarded by
the version the caller read, an interaction id takes effect once, and the event log is
hash-chained.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from db.models import (
    ArchivedGame,
    CommandContext,
    CommitResult,
    Document,
    EventRecord,
    ExportBundle,
    FeatureRecord,
    GameKind,
    GameRecord,
    GameStatus,
    GameSummary,
    HeldDocument,
    Member,
    MemberRole,
    NewEvent,
    Scope,
    StateRecord,
)

if TYPE_CHECKING:  # db.chain.prepare and db.chain.history build on the types named here
    from db.chain.history import ExportHead, StoredVersion
    from db.chain.prepare import PreparedEvent


class GameStore(Protocol):
    """Async storage of one game per channel (documents, versions, event log, members)
    and of the features' records beside it, through generic operations (``feature_*``:
    the store knows no feature)."""

    async def close(self) -> None:
        """Release the backend's connections; the store is unusable afterwards."""
        ...

    async def create_game(
        self,
        channel_id: int,
        *,
        guild_id: int | None,
        ruleset: str,
        language: str,
        document: Document,
        status: GameStatus = "setup",
        actor_id: int | None = None,
        interaction_id: str | None = None,
        referee_id: int | None = None,
        origin: Mapping[str, Any] | None = None,
        kind: GameKind = "game",
    ) -> GameRecord:
        """Store a new game at version 1, logging a ``game.created`` event; ``referee_id``
        becomes its referee in the same transaction; ``origin`` (JSON) is added to the
        event's arguments: what the game was made from (a campaign); ``kind`` what the
        record is (``"campaign"``: a campaign's log and state)."""
        ...

    async def open_command(
        self,
        channel_id: int,
        interaction_id: str | None = None,
        *,
        held: HeldDocument | None = None,
    ) -> CommandContext:
        """The game, the event ``interaction_id`` already committed (if any), the members
        and the game's sealed feature records, read together in one round trip (one
        consistent snapshot). Raises `GameNotFound` like `load`. ``held``: the caller
        already holds the document of a head; a game read on that very head may come with
        that document (the caller's object) instead of a parse of its own."""
        ...

    async def load(self, channel_id: int) -> GameRecord:
        """The channel's game with its current document and version."""
        ...

    async def list_games(
        self, guild_id: int | None, status: GameStatus | None = None
    ) -> list[GameSummary]:
        """The games of a guild (``None``: games outside any guild), oldest first."""
        ...

    async def all_games(self, status: GameStatus | None = None) -> list[GameSummary]:
        """Every game of every guild, optionally only those with ``status``, by channel."""
        ...

    async def commit(
        self,
        channel_id: int,
        expected_version: int,
        new_state: Document,
        event: NewEvent | PreparedEvent,
        *,
        status: GameStatus | None = None,
    ) -> CommitResult:
        """Store ``new_state`` as version ``expected_version + 1`` with its event, atomically."""
        ...

    async def end_game(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
        reason: str | None = None,
    ) -> CommitResult:
        """Mark the game ended (a ``game.ended`` event; the document is unchanged)."""
        ...

    async def undo(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
    ) -> CommitResult:
        """Restore the state before the latest event not yet undone, as a new version."""
        ...

    async def delete_game(self, channel_id: int) -> None:
        """Remove an ended game and everything about it, freeing the channel."""
        ...

    async def archive_game(
        self, channel_id: int, bundle: ExportBundle | None = None, *, title: str = ""
    ) -> ArchivedGame:
        """Move an ended game out of its channel into the archive, in one transaction.

        The store reads the game's history page by page, checks it and keeps it compact
        (`db.chain.archive`: events, version 1, snapshots and patches); ``bundle``, the game's
        export if the caller took one, is encoded instead. The game must still be at the
        version read. Raises `GameNotEnded` for a game in progress, `VersionConflict` if it
        changed meanwhile, `GameNotFound`.
        """
        ...

    async def archived_games(self, guild_id: int | None) -> list[ArchivedGame]:
        """The archived games of a guild, newest first."""
        ...

    async def all_archives(self) -> list[ArchivedGame]:
        """Every archived game of every guild, by id (for ``arbitro db copy``)."""
        ...

    async def restore_archive(self, entry: ArchivedGame, bundle: dict[str, Any]) -> None:
        """Insert an archived game exactly as another store holds it (same id)."""
        ...

    async def archived_export(self, archive_id: int) -> dict[str, Any]:
        """An archived game's export bundle as JSON (``ExportBundle.to_json_dict``).

        Raises `GameNotFound` (with ``channel_id`` None) for an unknown archive id.
        """
        ...

    async def events(
        self, channel_id: int, after_seq: int = 0, limit: int = 50
    ) -> list[EventRecord]:
        """A page of the channel's event log, in order, after ``after_seq``."""
        ...

    async def state_at(self, channel_id: int, version: int) -> StateRecord:
        """One stored version of the game."""
        ...

    async def export(self, channel_id: int, *, verify: bool = True) -> ExportBundle:
        """Everything about the game, its hash chain verified unless ``verify`` is false."""
        ...

    async def export_head(self, channel_id: int) -> ExportHead:
        """What an export writes before the events, read in one snapshot: the game, its
        members, the head event's hash and the head version's document (`db.chain.export`).
        Raises `GameNotFound`; `ChainBroken` for a stored state beyond the last event."""
        ...

    async def history_page(
        self, channel_id: int, after_seq: int, upto_seq: int, limit: int = 256
    ) -> list[StoredVersion]:
        """The versions after ``after_seq`` up to ``upto_seq`` (at most ``limit``), in
        order: each event's stored texts, its state's patch and full document if kept. A
        short read: a long history is read page by page, never whole (`db.chain.history`)."""
        ...

    async def archive_chunk(self, archive_id: int, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes of an archive's stored bundle from ``offset`` (empty past
        its end; `db.chain.archive` reads them). Raises `ArchiveNotFound`."""
        ...

    async def event_by_interaction(self, interaction_id: str) -> EventRecord | None:
        """The event an interaction committed, if any."""
        ...

    async def add_member(
        self,
        channel_id: int,
        user_id: int,
        *,
        side: str | None = None,
        role: MemberRole = "player",
    ) -> Member:
        """Add or update a member of the game."""
        ...

    async def members(self, channel_id: int) -> list[Member]:
        """The game's members, in joining order."""
        ...

    async def remove_member(self, channel_id: int, user_id: int) -> bool:
        """Remove a member; false if they were not one."""
        ...

    async def feature_get(self, feature: str, scope: Scope, key: str) -> FeatureRecord | None:
        """A feature's record in ``scope`` under ``key``, or None."""
        ...

    async def feature_put(
        self,
        feature: str,
        scope: Scope,
        key: str,
        value: Any,
        *,
        due_at: datetime | None = None,
        sealed: bool = False,
        if_absent: bool = False,
        expected_revision: int | None = None,
        renew: bool = False,
    ) -> FeatureRecord | None:
        """Store a feature's record (JSON ``value``); None if ``if_absent`` (the key
        exists) or ``expected_revision`` (it moved on) refused it. ``renew``: a new record
        (new id) replaces the key's. ``due_at``: on the time index. ``sealed``: a game's
        record in its checksum and in `open_command`'s context."""
        ...

    async def feature_delete(
        self, feature: str, scope: Scope, key: str, *, expected_revision: int | None = None
    ) -> bool:
        """Delete a feature's record; false if there was none (or it moved on)."""
        ...

    async def feature_list(
        self, feature: str, scope: Scope, *, prefix: str = "", limit: int = 1000
    ) -> list[FeatureRecord]:
        """A feature's records in ``scope`` whose key starts with ``prefix``, oldest first."""
        ...

    async def feature_due(
        self, feature: str, before: datetime, *, limit: int = 1000
    ) -> list[FeatureRecord]:
        """A feature's records due at ``before`` or earlier (not of ended games), earliest
        first."""
        ...

    async def check(self) -> list[str]:
        """Audit the whole store; an empty list means every check passed."""
        ...
