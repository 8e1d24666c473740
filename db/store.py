"""`GameStore` written once, over a driver that runs the core's operations.

`CoreStore` turns each method of the interface into one operation of the core (`db.core`)
and hands it to its driver's `_execute`: `db.drivers.sqlite.SqliteStore` (aiosqlite, group commit)
and `db.drivers.postgres.PostgresStore` (asyncpg, a pool). What is per process rather than per
backend lives here: the memory of the chain heads this process verified
(`db.chain.verify.VerifiedChains`) and the commit preparer's memory of each channel's last document
(`db.chain.prepare.CommitPreparer`).
"""

from __future__ import annotations

import asyncio
import json
import operator
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import datetime
from functools import partial
from types import TracebackType
from typing import Any, Self, TypeVar

from db.chain.archive import archive_row, bundle_of, encode_bundle
from db.chain.hashing import canonical_json, encode_document, parse_kept
from db.chain.head_cache import HeadCache
from db.chain.history import PAGE_VERSIONS, ExportHead, StoredVersion
from db.chain.long_history import LongHistories
from db.chain.prepare import CommitPreparer, PreparedEvent, prepare_event, system_event
from db.chain.verify import VerifiedChains, VerifiedHead, VerifiedState
from db.core import games, logs, records
from db.core import members as roster
from db.core.common import MAX_EVENTS_PAGE, event_by_interaction, members_of
from db.core.dialect import Dialect
from db.core.records import MAX_RECORDS_PAGE
from db.core.steps import Operation, Step, Transaction
from db.models import (
    GAME_KINDS,
    GAME_STATUSES,
    MEMBER_ROLES,
    RESERVED_VERBS,
    VERB_CREATED,
    VERB_ENDED,
    VERB_UNDO,
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
    PreparedState,
    Scope,
    StateRecord,
    format_timestamp,
    parse_timestamp,
    utc_now,
)

_T = TypeVar("_T")

#: A feature's record is small (a deadline, a prompt's options): its JSON text at most.
MAX_RECORD_CHARS = 64 * 1024


def _served(context: CommandContext, held: HeldDocument | None) -> CommandContext:
    """A kept context as a full read gives it: its document a fresh object parsed from the
    text that read verified (the caller may change its copy), or the caller's own when it
    holds that very head's (``held``) or one of the same stored text (the head moved by a
    write that left the document as it was), no earlier event."""
    record = context.record
    if held is not None and (
        (held.version, held.head_hash) == (record.version, record.head_hash)
        or (held.text is not None and held.text == record.document_text)
    ):
        document = held.document
    else:
        document = parse_kept(record.document_text or "")
    return replace(context, record=replace(record, document=document), earlier=None)


def _channel_of(scope: Scope) -> int | None:
    return scope.id if scope.game else None


class CoreStore(ABC):
    """The `GameStore` methods, each one operation of the core run by `_execute`."""

    #: The backend's words and codecs (set by each driver).
    dialect: Dialect

    def __init__(self) -> None:
        # A commit's canonical JSON, patch and event texts (`db.chain.prepare`): made by the
        # caller when it passes a `PreparedState` (the service does, on its rules thread),
        # otherwise on a worker thread; never on the event loop.
        self.preparer = CommitPreparer()
        # The chain head this process verified per channel (db/chain/verify.py): a game's history
        # is verified once, then every commit extends the verified head.
        self.verified_chains = VerifiedChains()
        # Long histories: the event chain verified on first touch, the states in the
        # background (db/chain/long_history.py).
        self.long_histories = LongHistories(
            self.verified_chains, lambda steps, channel: self._run(steps, "read", channel)
        )
        # The verified head of the games played lately, served again after a probe
        # (db/chain/head_cache.py); empty on a backend without a change counter.
        self.head_cache = HeadCache()
        # The full reads under way, per channel (`open_command`): callers at once wait for
        # the one under way rather than each reading and verifying the game again.
        self._full_reads: dict[int, asyncio.Event] = {}

    @abstractmethod
    async def _execute(self, operation: Operation[_T]) -> _T:
        """Run one operation on the backend (the driver's part)."""

    @abstractmethod
    async def close(self) -> None:
        """Release the backend's connections (the driver's part)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def _run(
        self,
        steps: Callable[[], Step[_T]],
        transaction: Transaction = "none",
        channel_id: int | None = None,
        *,
        keeps_head: bool = False,
        **options: Any,
    ) -> Awaitable[_T]:
        """Wrap a step function (a callable making a fresh generator) and run it.

        A write drops the kept head of its channel (of every channel: a write of none in
        particular) as it is queued, before any read queued after it can run, unless it
        ``keeps_head`` (a commit moves the head itself, `_append`).
        """
        if transaction == "write" and not keeps_head:
            self.head_cache.forget(channel_id)
        return self._execute(
            Operation(steps, transaction=transaction, channel_id=channel_id, **options)
        )

    async def _verify_long_history(self, channel_id: int) -> None:
        """A long history this process has not verified yet: its event chain now, its
        states in the background (`db.chain.long_history`)."""
        await self.long_histories.verify(channel_id)

    async def history_checks(self) -> None:
        """Wait for the checks of long histories' states under way (`db.chain.long_history`)."""
        await self.long_histories.checked()

    # ---- games ---------------------------------------------------------------------------

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
        """Store a new game at version 1, with a ``game.created`` event holding its setup.

        ``referee_id`` joins the game as its referee in the same transaction;
        ``origin`` (JSON) joins the event's arguments: what the game was made from (the
        campaign that linked it); ``kind`` what the record is (a campaign's, for its log).
        Raises
        `GameExists` if the channel holds a game (even an ended one: delete it first).
        Retrying the same interaction returns the game as it is now.
        """
        if status not in GAME_STATUSES:
            raise ValueError(f"unknown game status {status!r}")
        if kind not in GAME_KINDS:
            raise ValueError(f"unknown record kind {kind!r}")
        # Ids go into the hash chain: they must be the ints the columns will return.
        channel_id = operator.index(channel_id)
        guild_id = None if guild_id is None else operator.index(guild_id)
        document_json = encode_document(document)
        pending = system_event(
            VERB_CREATED,
            args={
                **(origin or {}),
                "ruleset": ruleset,
                "language": language,
                "guild_id": guild_id,
            },
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        result: CommitResult = await self._run(
            partial(
                games.create_game,
                self.dialect,
                channel_id=channel_id,
                guild_id=guild_id,
                ruleset=ruleset,
                language=language,
                status=status,
                document_json=document_json,
                pending=pending,
                referee_id=None if referee_id is None else operator.index(referee_id),
                kind=kind,
            ),
            "write",
            channel_id,
        )
        if result.duplicate:
            return await self.load(channel_id)
        self.preparer.remember(channel_id, document_json)
        # Written here, in one transaction: its one-event chain is verified by construction.
        self.verified_chains.remember(
            channel_id, VerifiedHead(pending.created_at, 1, result.event.hash)
        )
        created = parse_timestamp(pending.created_at)
        return GameRecord(
            channel_id=channel_id,
            guild_id=guild_id,
            ruleset=ruleset,
            language=language,
            status=status,
            version=1,
            document=json.loads(document_json),
            created_at=created,
            updated_at=created,
            head_hash=result.event.hash,
            kind=kind,
        )

    async def load(self, channel_id: int) -> GameRecord:
        """The channel's game: metadata, current version and document, checked.

        Raises `GameNotFound`, `CorruptRecord`/`TamperedGame`/`ChainBroken` naming the
        channel if the stored rows cannot be read back or fail their checks.
        """
        channel_id = operator.index(channel_id)
        if self.dialect.change_counter:  # the same read, kept (`db.chain.head_cache`)
            return (await self.open_command(channel_id)).record
        await self._verify_long_history(channel_id)
        return await self._run(
            partial(games.load, self.dialect, channel_id, self.verified_chains), "read", channel_id
        )

    async def open_command(
        self,
        channel_id: int,
        interaction_id: str | None = None,
        *,
        held: HeldDocument | None = None,
    ) -> CommandContext:
        """The game, the event ``interaction_id`` already committed (if any), members and
        the game's sealed feature records: one batch of reads in one snapshot, or what the
        last one read (and this process's commits since) after a probe finds that nobody
        else has written since (`db.chain.head_cache`); then, on the head of ``held``, with
        the caller's document rather than a parse of the kept text."""
        channel_id = operator.index(channel_id)
        interaction = None if interaction_id is None else str(interaction_id)
        if not self.dialect.change_counter:
            await self._verify_long_history(channel_id)
            return await self._run(
                partial(
                    games.open_command, self.dialect, channel_id, interaction, self.verified_chains
                ),
                "read",
                channel_id,
            )
        while True:
            flight = self._full_reads.get(channel_id)
            if flight is not None:
                # Another caller is reading this game in full: what it keeps is probed
                # next, so readers at once cost one read and one verification, and none
                # replays the history below a kept head another reader dropped.
                await flight.wait()
                continue
            kept = self.head_cache.get(channel_id)
            if kept is None:
                return await self._read_in_full(channel_id, interaction, None, held)
            counter, retried = await self._run(
                partial(games.probe, self.dialect, interaction),
                "read",
                channel_id,
                one_statement=True,
            )
            if (
                counter == kept.stamp
                and not retried
                and self.head_cache.get(channel_id) is kept
                and self.verified_chains.head(channel_id) == kept.head
            ):
                return _served(kept.context, held)
            if channel_id in self._full_reads:
                continue  # a full read began while this one probed: wait for it
            # Another connection wrote: a head it moved is verified forward from the kept
            # head's document, not from the snapshot below it (`db.core.verify`).
            self.head_cache.forget(channel_id)
            return await self._read_in_full(channel_id, interaction, kept.state, held)

    async def _read_in_full(
        self,
        channel_id: int,
        interaction: str | None,
        base: VerifiedState | None,
        held: HeldDocument | None = None,
    ) -> CommandContext:
        """`open_command`'s full read (the head moved by another connection verified from
        ``base``, when given; a document of ``held``'s text not parsed again), kept for the
        next callers; the callers meanwhile wait."""
        flight = self._full_reads[channel_id] = asyncio.Event()
        try:
            await self._verify_long_history(channel_id)
            ticket = self.head_cache.reading(channel_id)
            try:
                context, counter = await self._run(
                    partial(
                        games.open_command_counted,
                        self.dialect,
                        channel_id,
                        interaction,
                        self.verified_chains,
                        base,
                        held,
                    ),
                    "read",
                    channel_id,
                )
            except BaseException:
                self.head_cache.done(ticket)
                raise
            head = self.verified_chains.head(channel_id)
            record = context.record
            if head is not None and head.seq == record.version and head.hash == record.head_hash:
                self.head_cache.put(ticket, context, head, counter)
            else:
                self.head_cache.done(ticket)
            return context
        finally:
            if self._full_reads.get(channel_id) is flight:
                del self._full_reads[channel_id]
            flight.set()

    async def list_games(
        self, guild_id: int | None, status: GameStatus | None = None
    ) -> list[GameSummary]:
        """The games of a guild (``None``: outside any guild), optionally by status."""
        return await self._run(partial(logs.list_games, self.dialect, guild_id, status))

    async def all_games(self, status: GameStatus | None = None) -> list[GameSummary]:
        """Every game of every guild, optionally only those with ``status``, by channel.

        For maintenance (start-up document checks, ``arbitro db replay``), not per command.
        """
        return await self._run(partial(logs.all_games, self.dialect, status))

    async def count_games(self, status: GameStatus | None = None) -> int:
        """How many games are stored, optionally only those with ``status``."""
        return await self._run(partial(logs.count_games, status))

    async def commit(
        self,
        channel_id: int,
        expected_version: int,
        new_state: Document,
        event: NewEvent | PreparedEvent,
        *,
        status: GameStatus | None = None,
    ) -> CommitResult:
        """Store ``new_state`` as version ``expected_version + 1`` and log ``event``.

        One transaction. Raises `VersionConflict` if the game is no longer at
        ``expected_version``, `GameEnded` once it has ended, `GameNotFound`. If the event's
        interaction id was already committed, nothing is written and the earlier result
        comes back with ``duplicate=True``. ``status`` changes the game's status (e.g.
        ``"active"`` when setup is over); to end a game use `end_game`.
        """
        if event.verb in RESERVED_VERBS:
            raise ValueError(f"verb {event.verb!r} is reserved for the store")
        if status is not None and status not in ("setup", "active"):
            raise ValueError(f"commit cannot set status {status!r}")
        channel_id = operator.index(channel_id)
        if isinstance(new_state, PreparedState):
            prepared = new_state
        else:  # encoding and diffing a document is CPU work: off the event loop
            prepared = await asyncio.to_thread(self.preparer.prepare, channel_id, new_state)
        pending = event if isinstance(event, PreparedEvent) else prepare_event(event)
        decide = partial(
            games.decide_commit,
            channel_id=channel_id,
            document_json=prepared.text,
            new_status=status,
        )
        return await self._append(
            channel_id,
            expected_version,
            pending,
            decide,
            prepared,
            new_status=status,
            expected=self._expected_head(channel_id, expected_version, prepared),
        )

    def _expected_head(
        self, channel_id: int, expected_version: int, prepared: PreparedState
    ) -> games.ExpectedHead | None:
        """The head this process keeps for the channel, if the commit extends it (its
        version, and the text its patch was made from) and the chain still vouches for it."""
        kept = self.head_cache.get(channel_id)
        if kept is None or self.verified_chains.head(channel_id) != kept.head:
            return None
        record = kept.context.record
        text = record.document_text
        # Where the last snapshot is: version 1 is always whole; a later version's run is
        # known once this process committed it (a full read does not read it).
        run = (True, 0) if record.version == 1 else kept.run
        if (
            record.version != expected_version
            or text is None
            or prepared.base_text != text
            or run is None
        ):
            return None
        return games.ExpectedHead(
            record.version, kept.head.hash, record.status, text, kept.stamp, run,
            record.state_salt,
        )  # fmt: skip

    async def _append(
        self,
        channel_id: int,
        expected_version: int | None,
        pending: PreparedEvent,
        decide: games.Decide,
        prepared: PreparedState | None = None,
        *,
        new_status: GameStatus | None = None,
        expected: games.ExpectedHead | None = None,
    ) -> CommitResult:
        """Run `games.append`; a command's commit (``prepared``) moves the kept head of its
        channel to what it wrote, any other write (end, undo) or a failure drops it. On the
        head this process keeps (``expected``), a driver that can may write it in fewer
        trips (`games.append_on_expected_head`)."""
        chains = self.verified_chains
        cache = self.head_cache
        await self._verify_long_history(channel_id)

        def advanced(result: CommitResult) -> None:
            # After the COMMIT, before any operation queued behind it runs: its event
            # extends the head this process verified, and the head it keeps.
            if result.duplicate:
                return
            chains.advance(channel_id, result.event)
            if prepared is None:
                cache.forget(channel_id)
            else:
                cache.advance(channel_id, result.event, prepared.text, new_status, result.run)

        if prepared is None:
            cache.forget(channel_id)
        try:
            return await self._run(
                partial(
                    games.append,
                    self.dialect,
                    channel_id=channel_id,
                    expected_version=expected_version,
                    pending=pending,
                    decide=decide,
                    chains=chains,
                    prepared=prepared,
                ),
                "write",
                channel_id,
                keeps_head=True,
                groupable=prepared is not None,
                after=advanced,
                on_expected_head=None
                if expected is None or prepared is None
                else partial(
                    games.append_on_expected_head,
                    self.dialect,
                    channel_id=channel_id,
                    expected=expected,
                    pending=pending,
                    prepared=prepared,
                    new_status=new_status,
                ),
                expected_head_in_one_statement=self.dialect.commit_in_one_statement,
            )
        except BaseException:
            cache.forget(channel_id)
            raise

    async def end_game(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
        reason: str | None = None,
    ) -> CommitResult:
        """End the game: a ``game.ended`` event whose state is the same document, ended.

        Afterwards commits raise `GameEnded`; `undo` can still reopen the game.
        """
        channel_id = operator.index(channel_id)
        pending = system_event(
            VERB_ENDED,
            args={} if reason is None else {"reason": reason},
            actor_id=actor_id,
            interaction_id=interaction_id,
        )
        decide = partial(games.decide_end, channel_id=channel_id)
        return await self._append(channel_id, expected_version, pending, decide)

    async def undo(
        self,
        channel_id: int,
        *,
        expected_version: int | None = None,
        actor_id: int | None = None,
        interaction_id: str | None = None,
    ) -> CommitResult:
        """Undo the latest event that is not an undo and not already undone.

        The restored state (document and status from before that event) becomes a new
        version, logged as an ``undo`` event whose ``undoes_seq`` names the undone event;
        a second undo walks one event further back. The creation cannot be undone:
        `NothingToUndo`.
        """
        channel_id = operator.index(channel_id)
        pending = system_event(VERB_UNDO, actor_id=actor_id, interaction_id=interaction_id)
        decide = partial(games.decide_undo, channel_id=channel_id, chains=self.verified_chains)
        return await self._append(channel_id, expected_version, pending, decide)

    async def delete_game(self, channel_id: int) -> None:
        """Delete an ended game with its events, states, members and deadlines.

        Export it first if it should be kept. Raises `GameNotEnded` for a game in progress.
        """
        channel_id = operator.index(channel_id)
        await self._run(partial(games.delete_game, channel_id), "write", channel_id)
        self.verified_chains.forget(channel_id)

    async def archive_game(
        self, channel_id: int, bundle: ExportBundle | None = None, *, title: str = ""
    ) -> ArchivedGame:
        """Move an ended game out of its channel into the archive, in one transaction.

        Its history is read page by page and stored compact (`db.chain.archive`); the move
        itself is one short write, refused if the game changed meanwhile."""
        channel_id = operator.index(channel_id)
        version, fields, blob = await archive_row(self, channel_id, bundle, title)
        archived: ArchivedGame = await self._run(
            partial(
                games.archive_game,
                self.dialect,
                channel_id,
                version=version,
                fields=fields,
                blob=blob,
            ),
            "write",
            channel_id,
        )
        self.verified_chains.forget(channel_id)
        return archived

    async def archived_games(self, guild_id: int | None) -> list[ArchivedGame]:
        """The archived games of a guild, newest first."""
        return await self._run(partial(logs.archived_games, self.dialect, guild_id))

    async def all_archives(self) -> list[ArchivedGame]:
        """Every archived game of every guild, by id (for ``arbitro db copy``)."""
        return await self._run(partial(logs.all_archives, self.dialect))

    async def restore_archive(self, entry: ArchivedGame, bundle: dict[str, Any]) -> None:
        """Insert an archived game exactly as another store holds it (same id)."""
        blob = await asyncio.to_thread(encode_bundle, bundle)
        await self._run(partial(logs.restore_archive, self.dialect, entry, blob), "write")

    async def archived_export(self, archive_id: int) -> dict[str, Any]:
        """An archived game's whole export bundle as JSON, every state rebuilt (for copies;
        `db.chain.archive.read_archive` reads it page by page)."""
        blob = await self._run(partial(logs.archived_bundle, operator.index(archive_id)))
        return await asyncio.to_thread(bundle_of, blob)

    async def archive_chunk(self, archive_id: int, offset: int, size: int) -> bytes:
        """Part of an archive's stored bundle (empty past its end)."""
        return await self._run(
            partial(logs.archive_chunk, operator.index(archive_id), max(0, offset), max(1, size))
        )

    # ---- history ---------------------------------------------------------------------------

    async def events(
        self, channel_id: int, after_seq: int = 0, limit: int = 50
    ) -> list[EventRecord]:
        """Up to ``limit`` (at most 1000) events after ``after_seq``, oldest first."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))
        return await self._run(
            partial(logs.events, self.dialect, channel_id, after_seq, page), "none", channel_id
        )

    async def state_at(self, channel_id: int, version: int) -> StateRecord:
        """The stored state of one version of the game, checked against the chain."""
        await self._verify_long_history(channel_id)
        return await self._run(
            partial(logs.state_at, channel_id, version, self.verified_chains), "read", channel_id
        )

    async def export(self, channel_id: int, *, verify: bool = True) -> ExportBundle:
        """Game, members, every event and every state, read in one snapshot.

        With ``verify`` (the default) the hash chain and every state's hash are checked
        first: `ChainBroken` names the first event that fails.
        """
        return await self._run(
            partial(logs.export, self.dialect, channel_id, verify, self.verified_chains),
            "read",
            channel_id,
        )

    async def export_head(self, channel_id: int) -> ExportHead:
        """What an export writes before the events (`db.chain.history.ExportHead`)."""
        return await self._run(
            partial(logs.export_head, self.dialect, channel_id), "read", channel_id
        )

    async def history_page(
        self, channel_id: int, after_seq: int, upto_seq: int, limit: int = PAGE_VERSIONS
    ) -> list[StoredVersion]:
        """Versions ``after_seq + 1`` to at most ``upto_seq`` (``limit`` of them, at most
        1000): each event's stored texts with its state's patch and full document, if any.
        One short read: other commands run between pages."""
        page = max(1, min(limit, MAX_EVENTS_PAGE))
        return await self._run(
            partial(logs.history_page, self.dialect, channel_id, after_seq, upto_seq, page),
            "none",
            channel_id,
        )

    async def event_by_interaction(self, interaction_id: str) -> EventRecord | None:
        """The event an interaction committed, if any (a retried interaction's answer)."""
        return await self._run(partial(event_by_interaction, self.dialect, str(interaction_id)))

    async def restore_game(self, bundle: ExportBundle) -> None:
        """Insert a game exactly as exported elsewhere (same events, hashes and times).

        For ``arbitro db copy``. Refuses (`GameExists`) a channel that already has a game.
        The bundle should have been verified; the caller verifies the copy afterwards.
        """
        channel_id = bundle.game.channel_id
        await self._run(partial(logs.restore_game, self.dialect, bundle), "write", channel_id)
        self.verified_chains.forget(channel_id)

    # ---- the game's members ---------------------------------------------------------------

    async def add_member(
        self,
        channel_id: int,
        user_id: int,
        *,
        side: str | None = None,
        role: MemberRole = "player",
    ) -> Member:
        """Add a member, or change the side/role of an existing one."""
        if role not in MEMBER_ROLES:
            raise ValueError(f"unknown member role {role!r}")
        joined_at = format_timestamp(utc_now())
        step = partial(roster.add_member, self.dialect, channel_id, user_id, side, role, joined_at)
        return (await self._reseat(channel_id, step))[0]

    async def members(self, channel_id: int) -> list[Member]:
        """The game's members in joining order (empty if none)."""
        return await self._read(members_of, self.dialect, channel_id, channel_id=channel_id)

    async def remove_member(self, channel_id: int, user_id: int) -> bool:
        """Remove a member; false if they were not one."""
        step = partial(roster.remove_member, self.dialect, channel_id, user_id)
        return (await self._reseat(channel_id, step))[0]

    async def _reseat(
        self, channel_id: int, step: Callable[[], Step[tuple[_T, roster.Seats]]]
    ) -> tuple[_T, roster.Seats]:
        """A write of the game's members: its kept head stays, with the seats the write
        read back after the COMMIT (`HeadCache.reseated`), before any operation queued
        behind it runs; a failure drops it."""
        cache = self.head_cache
        cache.spoil(channel_id)
        try:
            return await self._run(
                step,
                "write",
                channel_id,
                keeps_head=True,
                after=lambda result: cache.reseated(channel_id, *result[1]),
            )
        except BaseException:
            cache.forget(channel_id)
            raise

    # ---- the features' records (db/core/records.py) ---------------------------------------

    async def feature_get(self, feature: str, scope: Scope, key: str) -> FeatureRecord | None:
        """A feature's record in ``scope`` under ``key``, or None."""
        return await self._read(
            records.get, self.dialect, feature, scope, key, channel_id=_channel_of(scope)
        )

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
        """Store a feature's record (``value``: JSON, kept as canonical JSON text); None
        when ``if_absent`` or ``expected_revision`` refused it and nothing was written.

        A game's record needs its game (`GameNotFound`) and goes with it. ``due_at``
        (timezone-aware) puts it on the time index, ``sealed`` in the game's checksum and
        in every command's context (a feature seals all its records or none). ``renew``
        makes a new record of that key (a new id) instead of updating the old one.
        """
        if if_absent + (expected_revision is not None) + renew > 1:
            raise ValueError("if_absent, expected_revision and renew exclude each other")
        if sealed and not scope.game:
            raise ValueError("only a game's records are sealed")
        value_json = canonical_json(value)
        if len(value_json) > MAX_RECORD_CHARS:
            raise ValueError(f"a record's value is at most {MAX_RECORD_CHARS} characters")
        channel_id = _channel_of(scope)
        # A game's record that is not sealed is no part of what a command reads with the
        # game (`open_command`: members and sealed records): the kept head stays, unless it
        # holds that key sealed (the put would take it out of the checksum's rows). Full
        # reads in flight keep nothing, as after any write of the game.
        keeps_head = False
        if channel_id is not None and not sealed:
            keeps_head = self._unsealed_in_kept_head(channel_id, str(feature), str(key))
            if keeps_head:
                self.head_cache.spoil(channel_id)
        return await self._run(
            partial(
                records.put,
                self.dialect,
                str(feature),
                scope,
                str(key),
                value_json,
                due_at=None if due_at is None else format_timestamp(due_at),
                sealed=sealed,
                if_absent=if_absent,
                expected_revision=expected_revision,
                renew=renew,
                now=format_timestamp(utc_now()),
            ),
            "write",
            channel_id,
            keeps_head=keeps_head,
        )

    def _unsealed_in_kept_head(self, channel_id: int, feature: str, key: str) -> bool:
        """Whether the channel's head is kept and holds no sealed record of that key."""
        kept = self.head_cache.get(channel_id)
        return kept is not None and not any(
            record.feature == feature and record.key == key for record in kept.context.records
        )

    async def feature_delete(
        self, feature: str, scope: Scope, key: str, *, expected_revision: int | None = None
    ) -> bool:
        """Delete a feature's record (only at ``expected_revision``, if given); false if
        there was none (or it had moved on)."""
        return await self._write(
            records.delete,
            str(feature),
            scope,
            str(key),
            expected_revision,
            channel_id=_channel_of(scope),
        )

    async def feature_list(
        self, feature: str, scope: Scope, *, prefix: str = "", limit: int = MAX_RECORDS_PAGE
    ) -> list[FeatureRecord]:
        """A feature's records in ``scope`` (keys starting with ``prefix``), in the order
        they were made; at most ``limit`` (1000)."""
        return await self._read(
            records.listing,
            self.dialect,
            str(feature),
            scope,
            prefix,
            limit,
            channel_id=_channel_of(scope),
        )

    async def feature_due(
        self, feature: str, before: datetime, *, limit: int = MAX_RECORDS_PAGE
    ) -> list[FeatureRecord]:
        """A feature's records due at ``before`` or earlier, earliest first, except those
        of ended games; at most ``limit`` (1000)."""
        return await self._read(
            records.due, self.dialect, str(feature), format_timestamp(before), limit
        )

    async def all_records(
        self, after_id: int = 0, limit: int = MAX_RECORDS_PAGE
    ) -> list[FeatureRecord]:
        """Every feature's records with an id above ``after_id``, by id (``db copy``)."""
        return await self._read(records.page, self.dialect, operator.index(after_id), limit)

    async def restore_records(self, copied: list[FeatureRecord]) -> None:
        """Insert records exactly as another store holds them (same ids; ``db copy``)."""
        if copied:
            await self._write(records.restore, self.dialect, list(copied))

    def _write(
        self, step: Callable[..., Step[_T]], *args: Any, channel_id: int | None = None
    ) -> Awaitable[_T]:
        return self._run(partial(step, *args), "write", channel_id)

    def _read(
        self, step: Callable[..., Step[_T]], *args: Any, channel_id: int | None = None
    ) -> Awaitable[_T]:
        return self._run(partial(step, *args), "none", channel_id)


__all__ = ["CoreStore"]
