"""Plain records exchanged with the store.

They are frozen dataclasses rather than pydantic models: they are built on every read and
every commit, carry data the store has already validated, and must stay cheap. The game
document is an opaque JSON object to this layer (the bot turns it into `GameState`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

GameStatus = Literal["setup", "active", "ended"]
MemberRole = Literal["player", "referee"]
#: What a record of ``games`` is: a game, or a campaign linking games (its log and state).
GameKind = Literal["game", "campaign"]

GAME_STATUSES: tuple[GameStatus, ...] = ("setup", "active", "ended")
GAME_KINDS: tuple[GameKind, ...] = ("game", "campaign")
MEMBER_ROLES: tuple[MemberRole, ...] = ("player", "referee")

# Verbs the store writes itself; callers of `commit` may not use them, so the undo walk and
# the audit trail can trust them.
VERB_CREATED = "game.created"
VERB_ENDED = "game.ended"
VERB_UNDO = "undo"
RESERVED_VERBS = frozenset({VERB_CREATED, VERB_ENDED, VERB_UNDO})

JsonObject = dict[str, Any]


def format_timestamp(moment: datetime) -> str:
    """Render an aware datetime as the fixed-width UTC text stored and hashed everywhere.

    One fixed format (microseconds, ``+00:00``) makes stored timestamps sort as text and
    makes the hash chain reproducible from a parsed export.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("timestamps must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_timestamp(text: str) -> datetime:
    """Parse a timestamp written by `format_timestamp`."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp without timezone: {text!r}")
    return moment


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """What a command did, as the caller hands it to `commit`.

    ``interaction_id`` is the id of the Discord interaction (or any retry-stable id of the
    front end) that caused the event: committing the same id twice takes effect once.
    """

    verb: str
    args: Mapping[str, Any] = field(default_factory=dict)
    dice: Sequence[Any] = ()
    resolution: Any = None
    actor_id: int | None = None
    interaction_id: str | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One stored event of a channel's append-only log."""

    channel_id: int
    seq: int
    interaction_id: str | None
    actor_id: int | None
    verb: str
    args: JsonObject
    dice: list[Any]
    resolution: Any
    state_version: int
    state_hash: str
    undoes_seq: int | None
    created_at: datetime
    prev_hash: str
    hash: str

    def to_json_dict(self) -> JsonObject:
        """The event as a JSON-ready dict (the export format)."""
        return {
            "channel_id": self.channel_id,
            "seq": self.seq,
            "interaction_id": self.interaction_id,
            "actor_id": self.actor_id,
            "verb": self.verb,
            "args": self.args,
            "dice": self.dice,
            "resolution": self.resolution,
            "state_version": self.state_version,
            "state_hash": self.state_hash,
            "undoes_seq": self.undoes_seq,
            "created_at": format_timestamp(self.created_at),
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> EventRecord:
        """Rebuild an event from `to_json_dict` output; raises KeyError/ValueError if malformed."""
        return cls(
            channel_id=int(data["channel_id"]),
            seq=int(data["seq"]),
            interaction_id=data["interaction_id"],
            actor_id=data["actor_id"],
            verb=str(data["verb"]),
            args=dict(data["args"]),
            dice=list(data["dice"]),
            resolution=data["resolution"],
            state_version=int(data["state_version"]),
            state_hash=str(data["state_hash"]),
            undoes_seq=data["undoes_seq"],
            created_at=parse_timestamp(str(data["created_at"])),
            prev_hash=str(data["prev_hash"]),
            hash=str(data["hash"]),
        )


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of a write: the event that now stands for it.

    ``duplicate`` is true when the interaction had already been committed: nothing was
    written and ``event`` is the one stored the first time (render it again).
    """

    event: EventRecord
    duplicate: bool = False
    #: Whether the new version's whole document was kept as a snapshot, and the patch bytes
    #: since the last snapshot through it (`db.chain.patch.snapshot_due`); None when not written.
    run: tuple[bool, int] | None = None

    @property
    def version(self) -> int:
        """The game version produced by the event."""
        return self.event.state_version

    @property
    def seq(self) -> int:
        """The event's sequence number in its channel."""
        return self.event.seq


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game's metadata, without its document (for listings)."""

    channel_id: int
    guild_id: int | None
    ruleset: str
    language: str
    status: GameStatus
    version: int
    created_at: datetime
    updated_at: datetime
    #: A campaign's ``ruleset`` names the ruleset of its games ("campaign" in a campaign
    #: stored before schema 11): only its kind tells it from a game.
    kind: GameKind = "game"

    @property
    def is_campaign(self) -> bool:
        """Whether the record is a campaign (its log and state), not a game."""
        return self.kind == "campaign"

    def to_json_dict(self) -> JsonObject:
        """The metadata as a JSON-ready dict."""
        return {
            "channel_id": self.channel_id,
            "guild_id": self.guild_id,
            "kind": self.kind,
            "ruleset": self.ruleset,
            "language": self.language,
            "status": self.status,
            "version": self.version,
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as loaded for a command: metadata plus the current document and its version."""

    channel_id: int
    guild_id: int | None
    ruleset: str
    language: str
    status: GameStatus
    version: int
    document: JsonObject
    created_at: datetime
    updated_at: datetime
    #: The hash of the event at the head of the chain (the anchor shown under every reply).
    head_hash: str | None = None
    #: The document's canonical JSON as stored, when the record was read from the store: the
    #: base a command's next commit is diffed against (`db.chain.prepare.CommitPreparer`).
    document_text: str | None = field(default=None, repr=False, compare=False)
    kind: GameKind = "game"
    #: The record's secret salt, hashed into each state (`db.chain.hashing.state_hash`; None: a
    #: record stored before schema 12). The store's own: never shown to a player.
    state_salt: str | None = field(default=None, repr=False, compare=False)

    @property
    def is_campaign(self) -> bool:
        """Whether the record is a campaign (its log and state), not a game."""
        return self.kind == "campaign"

    @property
    def summary(self) -> GameSummary:
        """The same game without its document."""
        return GameSummary(
            channel_id=self.channel_id,
            guild_id=self.guild_id,
            ruleset=self.ruleset,
            language=self.language,
            status=self.status,
            version=self.version,
            created_at=self.created_at,
            updated_at=self.updated_at,
            kind=self.kind,
        )


@dataclass(frozen=True, slots=True)
class StateRecord:
    """One stored version of a game: its status and document."""

    version: int
    status: GameStatus
    document: JsonObject

    def to_json_dict(self) -> JsonObject:
        """The state as a JSON-ready dict (the export format)."""
        return {"version": self.version, "status": self.status, "document": self.document}


@dataclass(frozen=True, slots=True)
class Member:
    """Someone taking part in a channel's game: a player of a side, or a referee."""

    channel_id: int
    user_id: int
    role: MemberRole
    side: str | None
    joined_at: datetime

    def to_json_dict(self) -> JsonObject:
        """The membership as a JSON-ready dict."""
        return {
            "channel_id": self.channel_id,
            "user_id": self.user_id,
            "role": self.role,
            "side": self.side,
            "joined_at": format_timestamp(self.joined_at),
        }


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """An ended game moved out of its channel, so the channel can host a new one.

    Its whole export bundle is kept (``GameStore.archived_export``); this is what a
    listing shows.
    """

    id: int
    channel_id: int
    guild_id: int | None
    ruleset: str
    language: str
    title: str
    version: int
    created_at: datetime
    ended_at: datetime
    archived_at: datetime
    head_hash: str


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose a feature record is: a game's (by its channel) or a guild's.

    A game's records go with the game (deleted and archived with it; writing one needs
    the game); a guild's stay. A feature keeps all its records in one kind of scope.
    """

    id: int
    game: bool

    @classmethod
    def of_game(cls, channel_id: int) -> Scope:
        """The records of the game in ``channel_id``."""
        return cls(int(channel_id), True)

    @classmethod
    def of_guild(cls, guild_id: int) -> Scope:
        """The records of a guild (a Discord server)."""
        return cls(int(guild_id), False)


@dataclass(frozen=True, slots=True)
class FeatureRecord:
    """One record an application feature keeps in the store (``GameStore.feature_*``).

    The store knows no feature: ``value`` is the feature's own JSON (its typed record,
    dumped), ``key`` its name within the scope. ``id`` is given when the record is first
    stored (or renewed) and never reused, so records list in the order they were made;
    ``revision`` counts the puts (a compare-and-set names it). ``due_at`` places the record
    on the store's time index (`GameStore.feature_due`); ``sealed`` records of a game are
    covered by the game's checksum and read with every command (`open_command`).
    """

    feature: str
    scope: Scope
    key: str
    value: Any
    id: int
    revision: int
    created_at: datetime
    due_at: datetime | None = None
    sealed: bool = False


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What a command needs from storage before any rule runs, read in one round trip.

    ``earlier`` is the event this interaction already committed (a retried interaction is
    answered with it), ``members`` the game's seats (who the asker is, whom to ping),
    ``records`` the game's sealed feature records (deadlines, pace, bound sides: the
    features decode their own), in the order they were made.
    """

    record: GameRecord
    earlier: EventRecord | None
    members: tuple[Member, ...]
    records: tuple[FeatureRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class HeldDocument:
    """A game's document its caller already holds, and the head it is the document of
    (`GameStore.open_command`: a game read on that very head is served with it, and so is
    one read on any head whose stored text is ``text``, when the caller gives it)."""

    version: int
    head_hash: str
    document: JsonObject
    #: The document's text as stored (`GameRecord.document_text`), if the caller kept it.
    text: str | None = None


EXPORT_FORMAT = "arbitro.export/1"


def salted(game: JsonObject, salt: str | None) -> JsonObject:
    """An export's game object with the record's salt (``"state_salt"``), if it has one."""
    return game if salt is None else {**game, "state_salt": salt}


@dataclass(frozen=True, slots=True)
class ExportBundle:
    """Everything needed to audit or replay a game: metadata, members, events, every state."""

    game: GameSummary
    members: list[Member]
    events: list[EventRecord]
    states: list[StateRecord]
    head_hash: str
    exported_at: datetime
    #: The record's secret salt (`GameRecord.state_salt`), which its states are hashed with:
    #: in the game object of the JSON, so anyone holding the file can check every state.
    state_salt: str | None = field(default=None, repr=False)

    def to_json_dict(self) -> JsonObject:
        """The bundle as a JSON-ready dict; `db.chain.hashing.verify_export` checks it."""
        return {
            "format": EXPORT_FORMAT,
            "exported_at": format_timestamp(self.exported_at),
            "game": salted(self.game.to_json_dict(), self.state_salt),
            "members": [member.to_json_dict() for member in self.members],
            "head_hash": self.head_hash,
            "events": [event.to_json_dict() for event in self.events],
            "states": [state.to_json_dict() for state in self.states],
        }


@dataclass(frozen=True, slots=True)
class PreparedState:
    """A new document ready to commit: its canonical JSON and, when its maker knew the
    channel's previous version, the patch from that version.

    A store uses the patch only if ``base_text`` is exactly the stored current version
    (otherwise it makes the patch from the stored text in the transaction), so a prepared
    state that went stale, or that a different store made, is never wrong, only slower.
    """

    channel_id: int
    text: str
    base_text: str | None = None
    patch_json: str | None = None

    def patch_from(self, stored_text: str) -> str | None:
        """The patch to store when the current version's text is ``stored_text``, if known."""
        if self.base_text is not None and self.base_text == stored_text:
            return self.patch_json
        return None


# A game document: a JSON object, as a dict or as JSON text, or already prepared for a
# commit (`db.chain.prepare.CommitPreparer`).
Document = Mapping[str, Any] | str | PreparedState
