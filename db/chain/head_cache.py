"""The verified head of the games this process is playing, kept between commands.

A command opens with the game, its seats and its sealed records (`CoreStore.open_command`):
one read of the head row, the whole current document, the covered rows and their checksum,
all checked against the chain. Between two commands of the same channel nothing of that
changes unless someone writes, so the store keeps what it read and verified here, per
channel, and serves it again after a **probe**: one cheap statement telling whether any
other connection has committed to the database since the entry was read (SQLite's
``PRAGMA data_version``, which moves on every commit of another connection and never on the
connection's own) and whether the command's interaction is already stored (a retry is
answered with its recorded event, read whole).

* **Write-through.** This process's own writes go through its store: a command's commit
  moves the entry to the version it wrote (`HeadCache.advance`, after the COMMIT, with the
  text it stored); a change of its members moves the entry to the seats that write read
  back in its own transaction (`HeadCache.reseated`: a seat change is followed by its
  event's commit, which then extends a kept head instead of reading the game again in
  full); a game's record that is not sealed, no part of the entry, leaves it
  (`CoreStore.feature_put`); every other write of a game (sealed records, end, undo,
  deletion) drops the entry. The version guard stays in the write: a commit on a stale entry is
  refused by the store exactly as before, and the service retries on a fresh read.
* **Another process's write** moves the probe's number: the entry is read and verified
  again, in full (which is also what notices rows changed under it: a tampered head, an
  edited checksum). What is served is therefore always what a full read would have served
  at the probe's moment.
* **Reads in flight.** A read that started before a write of its channel must not store its
  older snapshot after that write: each full read holds a ticket, and a write of its
  channel spoils the tickets in flight (`HeadCache.reading`, `HeadCache.put`).
* **Bounded**: at most `MAX_ENTRIES` games and `MAX_BYTES` of document text in all, the
  least recently used first out. A document is kept as its canonical text and parsed again
  for each command (a private dict every time, as a full read gives: a caller may change
  its copy).

A backend without a probe (PostgreSQL: another process's commit leaves no per-connection
mark to read cheaply) keeps no entries: every command reads the game in full, as before.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace

from db.chain.verify import VerifiedHead, VerifiedState
from db.models import CommandContext, EventRecord, FeatureRecord, GameStatus, Member

#: Games kept (the channels played lately).
MAX_ENTRIES = 512
#: Document text kept, in characters, for all of them together.
MAX_BYTES = 32 << 20


@dataclass(frozen=True, slots=True)
class CachedHead:
    """A game as its last full read (or this process's last commit) left it."""

    #: The context that read returned, its record's document included (served re-parsed).
    context: CommandContext
    #: The chain head the entry stands on: it is served only while this process still
    #: holds that head as verified (a refusal or a forgotten chain drops it).
    head: VerifiedHead
    #: The probe's number when the entry was read: equal later means no other connection
    #: has committed since.
    stamp: int
    #: The head version's snapshot flag and the patch bytes since the last snapshot, known
    #: once this process committed it (a full read does not read them: None).
    run: tuple[bool, int] | None = None

    @property
    def size(self) -> int:
        return len(self.context.record.document_text or "")

    @property
    def state(self) -> VerifiedState | None:
        """The head's document as verified: where a head another connection moved on is
        verified from (`db.core.verify.verified_up_to`)."""
        text = self.context.record.document_text
        return None if text is None else VerifiedState(self.head, text)


@dataclass(eq=False, slots=True)
class Ticket:
    """A full read in flight for ``channel_id``; spoiled by a write of that channel."""

    channel_id: int
    spoiled: bool = field(default=False)


class HeadCache:
    """The verified heads, per channel, bounded (see the module's text).

    Used on the event loop only (the store's methods and the driver's after-commit hooks
    run there), so it takes no lock.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self._entries: OrderedDict[int, CachedHead] = OrderedDict()
        self._bytes = 0
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self._reading: dict[int, list[Ticket]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size_bytes(self) -> int:
        """The document text held, in characters."""
        return self._bytes

    def get(self, channel_id: int) -> CachedHead | None:
        """The channel's entry, if any (marked as used)."""
        entry = self._entries.get(channel_id)
        if entry is not None:
            self._entries.move_to_end(channel_id)
        return entry

    def reading(self, channel_id: int) -> Ticket:
        """A ticket for a full read of the channel starting now (give it to `put` or
        `done`)."""
        ticket = Ticket(channel_id)
        self._reading.setdefault(channel_id, []).append(ticket)
        return ticket

    def done(self, ticket: Ticket) -> None:
        """The read of ``ticket`` is over (stored or not)."""
        tickets = self._reading.get(ticket.channel_id)
        if tickets is None:
            return
        if ticket in tickets:
            tickets.remove(ticket)
        if not tickets:
            del self._reading[ticket.channel_id]

    def put(self, ticket: Ticket, context: CommandContext, head: VerifiedHead, stamp: int) -> None:
        """Keep what the read of ``ticket`` returned, unless a write of its channel came
        meanwhile (its snapshot may be older than that write)."""
        self.done(ticket)
        record = context.record
        if ticket.spoiled or record.document_text is None:
            return
        # The text only: the parsed document is the caller's (served parsed afresh).
        kept = replace(context, record=replace(record, document={}), earlier=None)
        self._store(ticket.channel_id, CachedHead(kept, head, stamp))

    def advance(
        self,
        channel_id: int,
        event: EventRecord,
        text: str,
        status: GameStatus | None,
        run: tuple[bool, int] | None = None,
    ) -> None:
        """This process committed ``event`` (storing ``text``, with ``status`` if it changed
        the game's) on top of the entry's head: the entry moves to the new version;
        otherwise it goes."""
        entry = self._entries.get(channel_id)
        self.forget(channel_id)
        if entry is None:
            return
        record = entry.context.record
        if record.version != event.seq - 1 or record.head_hash != event.prev_hash:
            return
        moved = replace(
            record,
            version=event.seq,
            status=status or record.status,
            updated_at=event.created_at,
            head_hash=event.hash,
            document_text=text,
        )
        context = replace(entry.context, record=moved, earlier=None)
        self._store(
            channel_id,
            CachedHead(
                context, replace(entry.head, seq=event.seq, hash=event.hash), entry.stamp, run
            ),
        )

    def reseated(
        self,
        channel_id: int,
        members: tuple[Member, ...],
        records: tuple[FeatureRecord, ...],
    ) -> None:
        """This process changed the game's members, and ``members`` and ``records`` are its
        seats as that write's transaction read them back after it: the entry, if still
        kept, serves them from now on (its head and document are the write's too: a seat
        change moves neither). Reads of it in flight were spoiled when the write was queued
        (`spoil`)."""
        entry = self._entries.get(channel_id)
        if entry is not None:
            context = replace(entry.context, members=members, records=records)
            self._entries[channel_id] = replace(entry, context=context, run=None)

    def spoil(self, channel_id: int) -> None:
        """A write of the channel's game that leaves its head is queued (seats, a record
        that is not sealed): the full reads of it in flight, which may read the game before
        it, keep nothing; the entry stays (`reseated`), but its run of patches is no longer
        known, so the game's next commit takes the usual three trips, as after the full
        read such a write used to cost, not the one-trip commit on a kept head (slower in
        wall time for a seat event here: docs/benchmarks.md, "What the commands' tail is")."""
        for ticket in self._reading.get(channel_id, ()):
            ticket.spoiled = True
        entry = self._entries.get(channel_id)
        if entry is not None:
            self._entries[channel_id] = replace(entry, run=None)

    def forget(self, channel_id: int | None) -> None:
        """A write of the channel's game (None: of anything) is under way or done: drop its
        entry and spoil the reads of it in flight."""
        if channel_id is None:
            self._entries.clear()
            self._bytes = 0
            for tickets in self._reading.values():
                for ticket in tickets:
                    ticket.spoiled = True
            return
        entry = self._entries.pop(channel_id, None)
        if entry is not None:
            self._bytes -= entry.size
        for ticket in self._reading.get(channel_id, ()):
            ticket.spoiled = True

    def _store(self, channel_id: int, entry: CachedHead) -> None:
        old = self._entries.pop(channel_id, None)
        if old is not None:
            self._bytes -= old.size
        if entry.size > self._max_bytes:
            return
        self._entries[channel_id] = entry
        self._bytes += entry.size
        while len(self._entries) > self._max_entries or self._bytes > self._max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.size


__all__ = ["MAX_BYTES", "MAX_ENTRIES", "CachedHead", "HeadCache", "Ticket"]
