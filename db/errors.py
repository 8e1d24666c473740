"""Errors raised by the storage layer.

Every error carries a stable message ``key`` and the ``params`` needed to render it, so the
bot can translate it for a player; ``str(error)`` is a plain English sentence for logs and
the command line. None of them wraps a traceback worth showing to a user.
"""

from __future__ import annotations

from typing import Any, ClassVar


class StoreError(Exception):
    """Base class of every storage error: a message key plus its parameters."""

    key: ClassVar[str] = "store.error"
    template: ClassVar[str] = "storage error: {detail}"

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = params
        super().__init__(self.template.format(**params))

    @property
    def channel_id(self) -> int | None:
        """The channel the error is about, when there is one."""
        value = self.params.get("channel_id")
        return value if isinstance(value, int) else None


class VersionConflict(StoreError):
    """The game moved on since it was read: the command must be re-checked on the new state."""

    key = "store.version_conflict"
    template = (
        "channel {channel_id}: the game is at version {actual}, not {expected}; "
        "someone else acted first"
    )

    def __init__(self, channel_id: int, expected: int, actual: int) -> None:
        super().__init__(channel_id=channel_id, expected=expected, actual=actual)
        self.expected = expected
        self.actual = actual


class GameNotFound(StoreError):
    """No game is stored for the channel."""

    key = "store.game_not_found"
    template = "channel {channel_id}: no game here"

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id=channel_id)


class GameExists(StoreError):
    """The channel already holds a game (one game per channel)."""

    key = "store.game_exists"
    template = "channel {channel_id}: a game already exists here"

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id=channel_id)


class GameEnded(StoreError):
    """The game has ended: only undo, export and delete are allowed."""

    key = "store.game_ended"
    template = "channel {channel_id}: the game has ended"

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id=channel_id)


class GameNotEnded(StoreError):
    """Deleting a game is only allowed once it has ended."""

    key = "store.game_not_ended"
    template = "channel {channel_id}: the game has not ended; end it before deleting it"

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id=channel_id)


class ArchiveNotFound(StoreError):
    """No archived game has this id (in this guild)."""

    key = "store.archive_not_found"
    template = "no archived game {archive_id}"

    def __init__(self, archive_id: int) -> None:
        super().__init__(archive_id=archive_id)


class NothingToUndo(StoreError):
    """Every event after the game's creation has already been undone."""

    key = "store.nothing_to_undo"
    template = "channel {channel_id}: nothing left to undo"

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id=channel_id)


class InteractionReused(StoreError):
    """An interaction id already committed in another channel was offered again."""

    key = "store.interaction_reused"
    template = (
        "channel {channel_id}: interaction {interaction_id} was already used in "
        "channel {other_channel_id}"
    )

    def __init__(self, channel_id: int, interaction_id: str, other_channel_id: int) -> None:
        super().__init__(
            channel_id=channel_id,
            interaction_id=interaction_id,
            other_channel_id=other_channel_id,
        )


class CorruptRecord(StoreError):
    """A stored row of a channel cannot be read back (bad JSON, missing state, …)."""

    key = "store.corrupt_record"
    template = "channel {channel_id}: stored game data is corrupt ({detail})"

    def __init__(self, channel_id: int | None, detail: str) -> None:
        super().__init__(channel_id=channel_id, detail=detail)
        self.detail = detail
        if channel_id is None:
            self.args = (f"stored data is corrupt ({detail})",)


class ChainBroken(CorruptRecord):
    """The event log's hash chain does not verify: it was altered or truncated."""

    key = "store.chain_broken"
    template = "channel {channel_id}: event log fails verification at event {seq} ({detail})"

    def __init__(self, channel_id: int | None, seq: int, detail: str) -> None:
        StoreError.__init__(self, channel_id=channel_id, seq=seq, detail=detail)
        self.detail = detail
        self.seq = seq
        if channel_id is None:
            self.args = (f"event log fails verification at event {seq} ({detail})",)


class TamperedGame(CorruptRecord):
    """A game's stored rows disagree with what its hash chain (or its checksum) vouches for.

    Raised when a game is loaded: the current state does not hash to the head event's
    ``state_hash``, or the rows the chain does not cover (members, roles, deadlines, language,
    ruleset, creation time) do not match their checksum. The bot refuses to play such a game
    and tells the referee; ``arbitro db check`` reports the same thing.
    """

    key = "store.tampered_game"
    template = "channel {channel_id}: stored game was altered outside the bot ({detail})"


class SchemaError(StoreError):
    """The file is not an Arbitro database this code can use (foreign, newer, not SQLite)."""

    key = "store.schema"
    template = "{path}: {detail}"

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(path=path, detail=detail)
        self.detail = detail


class DamagedFile(SchemaError):
    """SQLite cannot read the database file itself: its header, its schema or a page is
    damaged (a disk fault, a bad copy, a byte flipped by hand).

    Nothing in such a file can be trusted, so it is one line and no traceback wherever it
    shows: ``arbitro db check`` and starting the bot or the console exit with status 2, a
    command answers that the database must be restored from a backup.
    """

    key = "store.damaged_file"
    template = "{path}: the database file is damaged ({detail}); restore a backup"


class StoreUnavailable(StoreError):
    """The database could not be reached or stayed locked past the busy timeout."""

    key = "store.unavailable"
    template = "database unavailable: {detail}"

    def __init__(self, detail: str, channel_id: int | None = None) -> None:
        super().__init__(detail=detail, channel_id=channel_id)
