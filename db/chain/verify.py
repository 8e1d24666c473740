"""Every stored version checked against the hash chain before it is used.

The hash chain (`db.chain.hashing`) vouches for every event and, through each event's state
hash, for every version of a game; the store keeps whole documents only at version 1,
the versions it recorded as snapshots (`patches.snapshot`, `db.chain.patch.snapshot_due`) and
the head, and patches in between. Nothing of
that is trusted as read: this module is what the two stores (and ``arbitro db check``) run
to prove the rows they are about to use are the ones the chain vouches for.

* **Once per game per process, the whole history.** The first time a process touches a
  game (a load, a command, a commit, an old version), every event of it is hashed again
  and linked to the previous one from the genesis, and every version is rebuilt from its
  snapshot and patches and hashed against its event (`verify_span` with ``first=1``). The
  process then remembers the chain head it verified, ``(seq, hash)`` per channel, in a
  bounded table (`VerifiedChains`).
* **Then incrementally.** This process's own commits move the remembered head forward
  (`VerifiedChains.advance`) without reading anything back. A head that moved otherwise
  (another process committed) is verified up to the new head, anchored at the remembered
  hash: from the remembered head's own document when the caller kept it (`db.chain.head_cache`:
  only the versions added since are rebuilt and hashed, `verify_forward`), else from the
  nearest whole document at or below the remembered head. A stored head *behind* or *other
  than* the remembered one means the history this process verified was shortened or
  rewritten: the game is refused (`first_to_verify`).
* **Old versions** (`state_at`, undo, rewind, re-roll, export): the nearest whole document
  and the patches up to the version are hashed against their events, and those events are
  hashed and linked up to the remembered head, so an edited snapshot, patch or event
  state hash cannot be served even if it was edited after the game was first verified.

Every failure is a `ChainBroken` naming the first bad event (the lowest version whose event
or state fails), with one of the fixed reasons below (the bot translates them). Work per
check: the whole history once per game per process (a 379-version game: tens of
milliseconds), then nothing per command but a dictionary lookup while the head is the one
this process verified or wrote.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from db.chain.archive import bundle_of
from db.chain.hashing import (
    GENESIS_HASH,
    canonical_json_of_parsed,
    compute_event_hash,
    parse_canonical,
    state_hash,
    verify_export,
)
from db.chain.integrity import stored_event_hash
from db.chain.patch import apply_patch, patch_from_json
from db.chain.rows import event_from_row
from db.errors import ChainBroken, CorruptRecord
from db.models import EventRecord, format_timestamp, parse_timestamp

# ---- the reasons a version fails (bot/service/integrity.py translates them) ----------------

EVENT_MISSING = "the event is missing"
EVENT_MISNUMBERED = "state version differs from sequence"
EVENT_UNLINKED = "does not link to the previous event"
EVENT_EDITED = "content does not match its hash"
EVENT_UNREADABLE = "the event cannot be read"
STATE_EDITED = "its state does not match the state hash"
STATE_UNREADABLE = "its state cannot be read"
FULL_MISSING = "its full document is missing"
PATCH_MISSING = "its patch is missing"
ROWS_BEYOND = "states without an event"
NOT_AS_VERIFIED = "it differs from the event this process verified (history rewritten)"
LOG_SHORTENED = "it is gone from a log this process verified up to a later event"

#: Every fixed reason, for the translations (bot/service/integrity.py) and their test.
REASONS = (
    EVENT_MISSING,
    EVENT_MISNUMBERED,
    EVENT_UNLINKED,
    EVENT_EDITED,
    EVENT_UNREADABLE,
    STATE_EDITED,
    STATE_UNREADABLE,
    FULL_MISSING,
    PATCH_MISSING,
    ROWS_BEYOND,
    NOT_AS_VERIFIED,
    LOG_SHORTENED,
)

#: A timestamp as a store returns it (SQLite text, PostgreSQL datetime) → the fixed text
#: the chain hashed.
Timestamp = Callable[[Any], str]

#: A stored document: ``(version, status, text)``.
Row = tuple[int, str, str]
#: A stored patch: ``(version, status, text, snapshot)``, where ``snapshot`` says the store
#: recorded that version as one whose whole document it keeps.
PatchRow = tuple[int, str, str, bool]

#: Every this many versions, the event this process verified is kept as an anchor: an old
#: version is checked up to the first anchor at or after it rather than up to the head.
ANCHOR_EVERY = 16


def stamp_text(value: Any) -> str:
    """A stored timestamp in the fixed text the chain hashed: SQLite's text as stored (an
    edited text differs even when it names the same instant), PostgreSQL's datetime
    rendered by `format_timestamp`."""
    if isinstance(value, datetime):
        return format_timestamp(value)
    return str(value)


# ---- what this process verified ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerifiedHead:
    """A game's chain head as this process verified (or wrote) it.

    ``game`` is the game's creation time in the fixed text: a channel whose game was
    archived and replaced holds another game, which is verified afresh.
    """

    game: str
    seq: int
    hash: str


@dataclass(frozen=True, slots=True)
class VerifiedState:
    """The document of a head this process verified (or wrote), as the chain hashed it:
    what a head another process moved on is verified forward from (`verify_forward`)."""

    head: VerifiedHead
    #: The head version's canonical document text.
    text: str


class VerifiedChains:
    """The chain head this process verified, per channel; bounded, thread-safe.

    The stores read and advance it on the event loop; the lock keeps it safe for any
    thread all the same. ``size`` channels are kept (about 300 bytes each), least
    recently used first out: a game pushed out is verified whole again the next
    time it is used. A game that failed is remembered as refused, with its error, for
    ``refusal_seconds`` while its head stays the same, so a player insisting on a tampered
    channel does not re-run a whole verification per command.

    Beside each head, the hashes of the anchor events (every `ANCHOR_EVERY`) this
    process verified or wrote, 32 bytes each, at most ``anchor_bytes`` in all (the least
    recently used channels' go first): an old version is then checked up to the next
    anchor event after it instead of all the way to the head (`anchor_for`).
    """

    def __init__(
        self, size: int = 16_384, refusal_seconds: float = 60.0, anchor_bytes: int = 8 << 20
    ) -> None:
        self._size = size
        self._refusal_seconds = refusal_seconds
        self._heads: OrderedDict[int, VerifiedHead] = OrderedDict()
        self._refused: OrderedDict[int, tuple[VerifiedHead, ChainBroken, float]] = OrderedDict()
        # channel -> (game, the anchor events' digests: the k-th is version 16 (k + 1)'s)
        self._anchors: OrderedDict[int, tuple[str, bytearray]] = OrderedDict()
        self._anchor_budget = anchor_bytes
        self._anchor_total = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._heads)

    def head(self, channel_id: int) -> VerifiedHead | None:
        """The head verified for the channel's game, if any."""
        with self._lock:
            return self._heads.get(channel_id)

    def matches(self, channel_id: int, game: str, seq: int, head_hash: object) -> bool:
        """Whether ``(seq, head_hash)`` of the game ``game`` is the head verified: the
        check every command pays (a lookup and two comparisons)."""
        with self._lock:
            known = self._heads.get(channel_id)
            if known is None or known.seq != seq or known.hash != head_hash:
                return False
            if known.game != game:
                return False
            self._heads.move_to_end(channel_id)
            return True

    def remember(
        self, channel_id: int, head: VerifiedHead, snapshots: dict[int, str] | None = None
    ) -> None:
        """Note ``head`` as verified (it supersedes a refusal), with the hashes of the
        anchor events verified on the way (``snapshots``, by version)."""
        with self._lock:
            self._refused.pop(channel_id, None)
            current = self._heads.get(channel_id)
            # A head read in a snapshot taken before this process's own later commit (an
            # operation verifying while another committed): the later head stays.
            if current is None or current.game != head.game or current.seq <= head.seq:
                self._heads[channel_id] = head
            self._heads.move_to_end(channel_id)
            if snapshots:
                self._add_anchors(channel_id, head.game, snapshots)
            while len(self._heads) > self._size:
                evicted, _ = self._heads.popitem(last=False)
                self._drop_anchors(evicted)

    def advance(self, channel_id: int, event: EventRecord) -> None:
        """After this process committed ``event`` durably: its head is verified if the
        head it extended was (the store chained it to that hash itself)."""
        with self._lock:
            known = self._heads.get(channel_id)
            if known is None or known.seq != event.seq - 1 or known.hash != event.prev_hash:
                return
            self._heads[channel_id] = VerifiedHead(known.game, event.seq, event.hash)
            self._heads.move_to_end(channel_id)
            if event.seq % ANCHOR_EVERY == 0:
                self._add_anchors(channel_id, known.game, {event.seq: event.hash})

    def anchor_for(self, channel_id: int, head: VerifiedHead, version: int) -> VerifiedHead:
        """The verified event to check version ``version`` up to: the first anchor event
        at or after it whose hash this process verified, else ``head`` itself."""
        wanted = max(ANCHOR_EVERY, -(-version // ANCHOR_EVERY) * ANCHOR_EVERY)
        if wanted >= head.seq:
            return head
        with self._lock:
            if self._heads.get(channel_id) != head:
                return head
            found = self._anchors.get(channel_id)
            start = (wanted // ANCHOR_EVERY - 1) * 32
            if found is None or found[0] != head.game or start + 32 > len(found[1]):
                return head
            return VerifiedHead(head.game, wanted, found[1][start : start + 32].hex())

    def forget(self, channel_id: int) -> None:
        """The channel's game is gone (deleted, archived) or replaced."""
        with self._lock:
            self._heads.pop(channel_id, None)
            self._refused.pop(channel_id, None)
            self._drop_anchors(channel_id)

    def refusal(self, channel_id: int, head: VerifiedHead) -> ChainBroken | None:
        """The error this game's head failed with lately, if it is still that head."""
        with self._lock:
            found = self._refused.get(channel_id)
            if found is None:
                return None
            refused_head, error, until = found
            if refused_head != head or time.monotonic() > until:
                del self._refused[channel_id]
                return None
            return error

    def refuse(self, channel_id: int, head: VerifiedHead, error: ChainBroken) -> None:
        """Remember that the game with this head failed verification with ``error``."""
        with self._lock:
            self._heads.pop(channel_id, None)
            self._drop_anchors(channel_id)
            until = time.monotonic() + self._refusal_seconds
            self._refused[channel_id] = (head, error, until)
            self._refused.move_to_end(channel_id)
            while len(self._refused) > self._size:
                self._refused.popitem(last=False)

    def _add_anchors(self, channel_id: int, game: str, snapshots: dict[int, str]) -> None:
        """Append the anchor events' digests that follow the channel's last one (the
        lock is held)."""
        found = self._anchors.get(channel_id)
        if found is None or found[0] != game:
            self._drop_anchors(channel_id)
            found = (game, bytearray())
        digests = found[1]
        before = len(digests)
        for version in sorted(snapshots):
            if version % ANCHOR_EVERY or version < ANCHOR_EVERY:
                continue
            index = version // ANCHOR_EVERY - 1
            if index * 32 < len(digests):
                continue  # known already (the same hash: the chain was verified)
            if index * 32 > len(digests):
                break  # a gap: the anchors stay contiguous
            digests += bytes.fromhex(snapshots[version])
        self._anchors[channel_id] = found
        self._anchors.move_to_end(channel_id)
        self._anchor_total += len(digests) - before
        while self._anchor_total > self._anchor_budget and len(self._anchors) > 1:
            self._drop_anchors(next(iter(self._anchors)))  # never this channel's: moved last

    def _drop_anchors(self, channel_id: int) -> None:
        found = self._anchors.pop(channel_id, None)
        if found is not None:
            self._anchor_total -= len(found[1])


def first_to_verify(
    channel_id: int, known: VerifiedHead | None, stored: VerifiedHead
) -> int | None:
    """The first version to read to bring the verified head up to the stored head ``stored``.

    None: ``stored`` is the head this process verified. 1: nothing usable is known (or
    the channel holds another game), verify the whole history. Otherwise the remembered
    head: the versions after it are rebuilt from the nearest whole document at or below
    it (which the caller reads: where the snapshots are is recorded, not computed). Raises
    `ChainBroken` when the stored log is shorter than the one verified, or its event at
    the verified head differs from it: the history was rewritten.
    """
    if known is None or known.game != stored.game:
        return 1
    if known.seq == stored.seq:
        if known.hash == stored.hash:
            return None
        raise ChainBroken(channel_id, stored.seq, NOT_AS_VERIFIED)
    if known.seq > stored.seq:
        raise ChainBroken(channel_id, stored.seq + 1, LOG_SHORTENED)
    return known.seq


# ---- checking rows against the chain -----------------------------------------------------


def check_event_row(
    channel_id: int,
    row: Sequence[Any],
    previous: str | None,
    timestamp: Timestamp,
    *,
    salt: str | None,
) -> str:
    """Check one stored event row (the stores' column order) of a record salted with
    ``salt`` (None: unsalted); return its hash.

    ``previous`` is the hash it must link to (None: not known here). The row is hashed
    as stored (`db.chain.integrity.stored_event_hash`); only when that differs is it parsed and
    re-encoded (`compute_event_hash`), which accepts an event an older release wrote with
    other JSON texts and names an edited one.
    """
    seq = int(row[1])
    try:
        if int(row[8]) != seq:
            raise ChainBroken(channel_id, seq, EVENT_MISNUMBERED)
        prev_hash, own_hash = str(row[12]), row[13]
        if previous is not None and prev_hash != previous:
            raise ChainBroken(channel_id, seq, EVENT_UNLINKED)
        if stored_event_hash(row, timestamp(row[11]), salt) == own_hash:
            return str(own_hash)
        event = event_from_row(row, when=lambda value: parse_timestamp(timestamp(value)))
    except (TypeError, ValueError, CorruptRecord) as error:
        if isinstance(error, ChainBroken):
            raise
        raise ChainBroken(channel_id, seq, EVENT_UNREADABLE) from error
    if compute_event_hash(event, prev_hash, salt=salt) != own_hash:
        raise ChainBroken(channel_id, seq, EVENT_EDITED)
    return str(own_hash)


def check_event_page(
    channel_id: int, rows: Sequence[Sequence[Any]], timestamp: Timestamp, salt: str | None
) -> None:
    """Check a page of consecutive event rows of a record salted with ``salt``: each against
    its own hash, each linked to the one before it (the first to whatever precedes the page)."""
    previous: str | None = None
    expected: int | None = None
    for row in rows:
        seq = row[1]
        if type(seq) is not int:
            raise ChainBroken(channel_id, expected or 0, EVENT_UNREADABLE)
        link = previous if expected == seq else None
        previous = check_event_row(channel_id, row, link, timestamp, salt=salt)
        expected = seq + 1


def verify_span(
    channel_id: int,
    *,
    first: int,
    last: int,
    events: Sequence[Sequence[Any]],
    full: Sequence[Row],
    patches: Sequence[PatchRow],
    timestamp: Timestamp,
    anchor: VerifiedHead | None = None,
    states_upto: int | None = None,
    whole: bool = False,
    snapshots: dict[int, str] | None = None,
    every_state: bool = True,
    head: int | None = None,
    salt: str | None,
) -> tuple[str, str, str]:
    """Check versions ``first``..``last`` of a game against its chain, in version order.

    ``events`` are the event rows ``first``..``last`` (the stores' column order); ``full``
    the whole documents and ``patches`` the patches read for that span, as ``(version,
    status, text)``. For each version in turn, first its event (present, numbered, linked
    to the one before, hashing to its hash), then, up to ``states_upto`` (default
    ``last``), its state: version ``first`` must keep its whole document, each later one
    its patch, version 1, every recorded snapshot and the head (``last``) their whole
    document, and every whole document and every patch's result must hash to its event's
    state hash. So the first failure names the lowest bad version, whatever is wrong with
    it. Without ``every_state`` (reading one old version) the whole document the span starts
    from and version ``states_upto`` are hashed, the patches' results between them only
    rebuilt (the last hash vouches for what is returned); a failure walks the span again
    hashing every state, to name the first bad version all the same. ``head``: the game's
    head, when ``last`` is an anchor before it (default ``last``).

    The span is anchored either at the genesis (``first`` = 1: event 1 links to the 64
    zeros) or at ``anchor``, a head verified before, which must lie in the span with its
    very hash: then every event before it is the one verified, and every event after it a
    valid extension. ``whole``: the rows are all the game has, so any row beyond ``last``
    is a problem too (a state without an event). ``snapshots``, if given, receives the hash
    of each anchor version's event verified (`VerifiedChains.anchor_for`). ``salt``: the
    record's, hashed into each state (`db.chain.hashing.state_hash`).

    Returns ``(hash of event last, status, text of version states_upto)``. Raises
    `ChainBroken` at the first bad version.
    """
    upto = last if states_upto is None else states_upto
    if anchor is None and first != 1:
        raise ValueError("a span after version 1 needs an anchor")
    if anchor is not None and not first <= anchor.seq <= last:
        raise ValueError(f"anchor {anchor.seq} outside versions {first}..{last}")
    if whole and (
        any(row[0] > last or row[0] < 1 for row in full)
        or any(row[0] > last or row[0] < 2 for row in patches)
    ):
        raise ChainBroken(channel_id, last, ROWS_BEYOND)
    rows = (events, full, patches)
    start = (GENESIS_HASH, None) if first == 1 else None
    walk = partial(
        _walk, channel_id, first, last, rows, timestamp, start=start, anchor=anchor, upto=upto,
        head=last if head is None else head, snapshots=snapshots, salt=salt,
    )  # fmt: skip
    if every_state:
        previous, _, (status, text) = walk()
        return previous, status, text
    try:
        previous, _, (status, text) = walk(every_state=False)
    except ChainBroken as lazy:
        walk()  # names the first bad version
        raise lazy from None
    return previous, status, text


def verify_old_version(
    channel_id: int,
    *,
    base: Row,
    version: int,
    base_events: Sequence[Sequence[Any]],
    base_anchor: VerifiedHead,
    events: Sequence[Sequence[Any]],
    anchor: VerifiedHead,
    patches: Sequence[PatchRow],
    timestamp: Timestamp,
    salt: str | None,
) -> tuple[str, str]:
    """``(status, text)`` of version ``version``, rebuilt from the whole document ``base``
    (a lower version) and the ``patches`` after it, checked at its two ends: the events
    from ``base`` to ``base_anchor`` and from ``version`` to ``anchor`` (``base_events`` and
    ``events``: anchors this process verified, `VerifiedChains.anchor_for`) hashed and
    linked, the base document against its event's state hash, the result against
    version's. The events and the patches' results between the two ends are not read or
    hashed: a long run of patches (a small change to a large document) costs its patches,
    not its events (docs/storage.md, "What reading an old version proves"). `ChainBroken`
    at the first failure found (the caller walks the whole span to name the first bad
    version)."""
    base_row = _checked_segment(channel_id, base[0], base_events, base_anchor, timestamp, salt)
    target_row = _checked_segment(channel_id, version, events, anchor, timestamp, salt)
    if state_hash(base[2], base[1], salt) != base_row[9]:
        raise ChainBroken(channel_id, base[0], STATE_EDITED)
    steps = {row[0]: row for row in patches}
    try:
        current = parse_canonical(base[2])
        status = base[1]
        for step in range(base[0] + 1, version + 1):
            row = steps.get(step)
            if row is None:
                raise ChainBroken(channel_id, step, PATCH_MISSING)
            current = apply_patch(current, patch_from_json(row[2]))
            status = row[1]
        text = canonical_json_of_parsed(current)
    except (TypeError, ValueError, RecursionError) as error:
        if isinstance(error, ChainBroken):
            raise
        raise ChainBroken(channel_id, version, STATE_UNREADABLE) from error
    if state_hash(text, status, salt) != target_row[9]:
        raise ChainBroken(channel_id, version, STATE_EDITED)
    return status, text


def _checked_segment(
    channel_id: int,
    first: int,
    rows: Sequence[Sequence[Any]],
    anchor: VerifiedHead,
    timestamp: Timestamp,
    salt: str | None,
) -> Sequence[Any]:
    """Check events ``first``..``anchor.seq``, each hashed and linked to the one before,
    the last the very event verified; return event ``first``'s row."""
    by_seq = _by_seq(rows)
    previous: str | None = None
    for seq in range(first, anchor.seq + 1):
        row = by_seq.get(seq)
        if row is None:
            raise ChainBroken(channel_id, seq, EVENT_MISSING)
        previous = check_event_row(channel_id, row, previous, timestamp, salt=salt)
    if previous != anchor.hash:
        raise ChainBroken(channel_id, anchor.seq, NOT_AS_VERIFIED)
    return by_seq[first]


def verify_events(
    channel_id: int,
    *,
    first: int,
    last: int,
    events: Sequence[Sequence[Any]],
    timestamp: Timestamp,
    previous: str,
    snapshots: dict[int, str],
    salt: str | None,
) -> str:
    """Check events ``first``..``last`` of a log verified page by page from the genesis,
    without their states (`db.chain.long_history`: the states are checked in the background):
    each present, numbered, linked to the one before (the first to ``previous``, the hash
    of event ``first - 1``, the 64 zeros for event 1) and hashing to its own hash.
    ``snapshots`` receives the anchor events' hashes (`VerifiedChains.anchor_for`).
    Returns the hash of event ``last``; `ChainBroken` at the first bad event."""
    by_seq = _by_seq(events)
    for version in range(first, last + 1):
        row = by_seq.get(version)
        if row is None:
            raise ChainBroken(channel_id, version, EVENT_MISSING)
        previous = check_event_row(channel_id, row, previous, timestamp, salt=salt)
        if version % ANCHOR_EVERY == 0:
            snapshots[version] = previous
    return previous


def verify_page(
    channel_id: int,
    *,
    first: int,
    last: int,
    head: int,
    events: Sequence[Sequence[Any]],
    full: Sequence[Row],
    patches: Sequence[PatchRow],
    timestamp: Timestamp,
    start: tuple[str, Any] | None,
    snapshots: dict[int, str],
    salt: str | None,
) -> tuple[str, Any]:
    """Check versions ``first``..``last`` of a history verified page by page from the
    genesis up to ``head`` (`verify_span`'s checks, with the whole documents needed at
    version 1, the recorded snapshots and ``head``).

    ``start`` is what the page before left: the hash of event ``first - 1`` and version
    ``first - 1`` parsed (None for the first page, ``first`` = 1). Returns the same for
    the next page: the hash of event ``last`` and version ``last`` parsed (owned by the
    caller, who hands it to the next page only).
    """
    if (start is None) != (first == 1):
        raise ValueError("only the first page starts at the genesis")
    rows, opening = (events, full, patches), start or (GENESIS_HASH, None)
    previous, current, _ = _walk(
        channel_id, first, last, rows, timestamp, start=opening, upto=last, head=head,
        snapshots=snapshots, continued=start is not None, salt=salt,
    )  # fmt: skip
    return previous, current


def verify_forward(
    channel_id: int,
    *,
    base: VerifiedState,
    last: int,
    events: Sequence[Sequence[Any]],
    full: Sequence[Row],
    patches: Sequence[PatchRow],
    timestamp: Timestamp,
    snapshots: dict[int, str],
    salt: str | None,
) -> str:
    """Check versions ``base.head.seq + 1``..``last`` (the head now stored), rebuilt from
    ``base``, the verified head's document, by their patches: `verify_span`'s checks for each
    new version (its event hashed and linked, the first to the verified head's hash; its
    patch's result, and every whole document among them, the head's included, against its
    event's state hash), none for the versions up to the verified head, which this process
    verified already. So a head another process moved costs the versions it added, not a
    replay from the snapshot below the verified head (a game whose patches are small against
    its document keeps few snapshots). ``snapshots`` receives the anchor events' hashes.
    Returns the hash of event ``last``; `ChainBroken` at the first bad version."""
    # The verified head's document is parsed only if a new version's patch changes it.
    previous, _, _ = _walk(
        channel_id, base.head.seq + 1, last, (events, full, patches), timestamp,
        start=(base.head.hash, None), upto=last, head=last, snapshots=snapshots,
        continued=True, salt=salt, start_text=base.text,
    )  # fmt: skip
    return previous


def _walk(
    channel_id: int,
    first: int,
    last: int,
    rows: tuple[Sequence[Sequence[Any]], Sequence[Row], Sequence[PatchRow]],
    timestamp: Timestamp,
    *,
    start: tuple[str, Any] | None,
    upto: int,
    head: int,
    anchor: VerifiedHead | None = None,
    snapshots: dict[int, str] | None = None,
    continued: bool = False,
    every_state: bool = True,
    salt: str | None,
    start_text: str | None = None,
) -> tuple[str, Any, tuple[str, str]]:
    """The loop of `verify_span` and `verify_page`: each version's event, then its state.

    ``rows`` are the span's event rows, whole documents and patches; ``start`` the hash
    the first event links to and the version before it parsed (None when unknown: a span
    anchored further on; that version None when ``start_text``, its canonical text, is given);
    ``continued``: the first version is rebuilt from that parsed
    version by its patch rather than read whole; ``every_state`` false: only version
    ``upto``'s state is hashed. Returns the hash of event ``last``, the last version
    checked parsed and its ``(status, text)``."""
    events, full, patches = rows
    documents = {row[0]: row for row in full}
    steps = {row[0]: row for row in patches}
    by_seq = _by_seq(events)
    previous, current = start if start is not None else (None, None)
    # The canonical text of ``current`` when known (hashed as its version's state): an
    # empty patch (a write that left the document as it was) is not serialized again.
    text = start_text
    result: tuple[str, str] | None = None
    for version in range(first, last + 1):
        row = by_seq.get(version)
        if row is None:
            raise ChainBroken(channel_id, version, EVENT_MISSING)
        previous = check_event_row(channel_id, row, previous, timestamp, salt=salt)
        if anchor is not None and version == anchor.seq and previous != anchor.hash:
            raise ChainBroken(channel_id, version, NOT_AS_VERIFIED)
        if snapshots is not None and version % ANCHOR_EVERY == 0:
            snapshots[version] = previous
        if version <= upto:
            current, result = _check_state(
                channel_id,
                version,
                str(row[9]),
                documents.get(version),
                steps.get(version),
                current,
                first=version == first and not continued,
                whole_needed=version == 1
                or version == head
                or (version in steps and steps[version][3]),
                hashed=every_state or version == upto,
                salt=salt,
                current_text=text,
            )
            text = result[1] or None
    if result is None or previous is None:
        raise ChainBroken(channel_id, first, EVENT_MISSING)
    return previous, current, result


def _by_seq(rows: Sequence[Sequence[Any]]) -> dict[int, Sequence[Any]]:
    """Event rows by sequence number; a row whose number is not one counts as missing."""
    found: dict[int, Sequence[Any]] = {}
    for row in rows:
        if type(row[1]) is int:
            found.setdefault(row[1], row)
    return found


def _check_state(
    channel_id: int,
    version: int,
    expected: str,
    kept: Row | None,
    step: PatchRow | None,
    current: Any,
    *,
    first: bool,
    whole_needed: bool,
    hashed: bool = True,
    salt: str | None,
    current_text: str | None = None,
) -> tuple[Any, tuple[str, str]]:
    """Check one version's stored rows against its event's state hash; return the version
    parsed (what the next patch applies to) and its ``(status, canonical text)``. A patch's
    result on the way to the version asked for (``hashed`` false) is rebuilt, not hashed:
    ``("", "")``. ``current_text``: the canonical text of ``current``, if known (an empty
    patch's result is then hashed as that text, not serialized again; ``current`` may then
    be None, parsed from that text only when a patch changes it)."""
    if first:
        if kept is None:
            raise ChainBroken(channel_id, version, FULL_MISSING)
    else:
        if step is None:
            raise ChainBroken(channel_id, version, PATCH_MISSING)
        if whole_needed and kept is None:
            raise ChainBroken(channel_id, version, FULL_MISSING)
    result: tuple[str, str] | None = None
    if kept is not None:  # a whole document read is always hashed: it is the base
        if state_hash(kept[2], kept[1], salt) != expected:
            raise ChainBroken(channel_id, version, STATE_EDITED)
        result = (kept[1], kept[2])
    if step is not None and not first:
        try:
            patch = patch_from_json(step[2])
            if current is None and current_text is not None and (patch or not hashed):
                current = parse_canonical(current_text)  # the previous version, when needed
            current = apply_patch(current, patch)
            if not hashed:
                return current, ("", "")
            if patch or current_text is None:
                text = canonical_json_of_parsed(current)
            else:  # nothing changed: the text hashed is the previous version's
                text = current_text
        except (TypeError, ValueError, RecursionError) as error:
            raise ChainBroken(channel_id, version, STATE_UNREADABLE) from error
        if state_hash(text, step[1], salt) != expected:
            raise ChainBroken(channel_id, version, STATE_EDITED)
        return current, result or (step[1], text)
    assert kept is not None  # first: checked above
    try:
        current = parse_canonical(kept[2])  # hashed as the chain says: valid JSON
    except (TypeError, ValueError, RecursionError) as error:
        raise ChainBroken(channel_id, version, STATE_UNREADABLE) from error
    return current, (kept[1], kept[2])


# ---- archives ---------------------------------------------------------------------------


def verify_bundle(bundle: dict[str, Any]) -> str:
    """`db.chain.hashing.verify_export` of an archived (or exported) bundle, whatever was done to
    it: the head hash, or `ChainBroken` naming the first bad event (event 0: the bundle
    is not an export at all)."""
    try:
        return verify_export(bundle)
    except ChainBroken:
        raise
    except (KeyError, AttributeError, TypeError, ValueError, RecursionError) as error:
        game = bundle.get("game") if isinstance(bundle, dict) else None
        channel_id = game.get("channel_id") if isinstance(game, dict) else None
        detail = f"the bundle cannot be read ({error!r})"
        raise ChainBroken(channel_id if isinstance(channel_id, int) else None, 0, detail) from error


def archive_problem(
    archive_id: int, channel_id: object, head_hash: object, blob: object
) -> str | None:
    """What is wrong with one archived game (None: its bundle verifies), as a `db check`
    line: the bundle is checked like an export (`db.chain.hashing.verify_export`: the chain,
    every state kept, the head, the count) and against the head hash its row lists."""
    where = f"archive {archive_id} (channel {channel_id}):"
    try:
        if not isinstance(blob, bytes | bytearray | memoryview):
            raise TypeError(f"a bundle is bytes, not {type(blob).__name__}")
        bundle = bundle_of(bytes(blob))
    except (TypeError, ValueError, RecursionError, CorruptRecord, zlib.error) as error:
        return f"{where} its bundle cannot be read ({error})"
    try:
        head = verify_bundle(bundle)
    except ChainBroken as error:
        return f"{where} event {error.seq} fails verification ({error.detail})"
    if head != head_hash:
        return f"{where} its head hash differs from the archived bundle's"
    return None


__all__ = [
    "ANCHOR_EVERY",
    "REASONS",
    "PatchRow",
    "VerifiedChains",
    "VerifiedHead",
    "VerifiedState",
    "archive_problem",
    "check_event_page",
    "check_event_row",
    "first_to_verify",
    "stamp_text",
    "verify_bundle",
    "verify_events",
    "verify_forward",
    "verify_old_version",
    "verify_page",
    "verify_span",
]
