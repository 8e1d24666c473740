"""The chain of each game, verified once per process then incrementally (db/chain/verify.py),
as step functions: the rows are read by the driver, the hashing runs off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from db.chain.verify import (
    EVENT_MISSING,
    PatchRow,
    VerifiedChains,
    VerifiedHead,
    VerifiedState,
    first_to_verify,
    stamp_text,
    verify_forward,
    verify_old_version,
    verify_span,
)
from db.core.common import EVENT_COLUMNS
from db.core.steps import Batch, Compute, Query, Step
from db.errors import ChainBroken, CorruptRecord, GameNotFound

_CHAIN_HEAD = (
    "SELECT g.created_at, g.version, e.hash FROM games AS g "
    "LEFT JOIN events AS e ON e.channel_id = g.channel_id AND e.seq = g.version "
    "WHERE g.channel_id = ?"
)
_SPAN_EVENTS = (
    f"SELECT {EVENT_COLUMNS} FROM events WHERE channel_id = ? AND seq BETWEEN ? AND ? ORDER BY seq"
)
_SPAN_STATES = (
    "SELECT version, status, {document} FROM states "
    "WHERE channel_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
_SPAN_PATCHES = (
    "SELECT version, status, patch, snapshot FROM patches "
    "WHERE channel_id = ? AND version BETWEEN ? AND ? ORDER BY version"
)
_STATE_BELOW = (
    "SELECT version, status, {document} FROM states "
    "WHERE channel_id = ? AND version <= ? ORDER BY version DESC LIMIT 1"
)
_WHOLE_BELOW = "SELECT max(version) FROM states WHERE channel_id = ? AND version <= ?"
#: The record's secret salt, hashed into each of its states and events (`db.chain.hashing`).
STATE_SALT = "SELECT state_salt FROM games WHERE channel_id = ?"
#: An old version whose span (from the whole document below it to the anchor after it)
#: holds more events than this is checked at its two ends only (`state_text`).
LONG_SPAN = 64
#: Beyond any version (BETWEEN bounds for "every row of the game"; an INTEGER column).
_ALL = 2**31 - 1

Row = tuple[int, str, str]


def text_rows(rows: Any) -> list[Row]:
    """``(version, status, text)`` rows; one whose version is not a number is left out
    (its version then counts as missing)."""
    return [(row[0], str(row[1]), str(row[2])) for row in rows if type(row[0]) is int]


def patch_rows(rows: Any) -> list[PatchRow]:
    """``(version, status, text, snapshot)`` patch rows (`text_rows`' rule)."""
    return [
        (row[0], str(row[1]), str(row[2]), bool(row[3])) for row in rows if type(row[0]) is int
    ]


def span_rows(
    channel_id: int,
    first: int,
    last: int,
    upto: int,
    *,
    every: bool,
    documents: bool = True,
    first_patch: bool = False,
) -> Step[tuple[list[Any], list[Row], list[PatchRow], str | None]]:
    """The event rows ``first``..``last``, the whole documents (unless ``documents`` is
    false) and the patches of versions ``first``..``upto`` (``every``: all the game's;
    version ``first``'s own patch only with ``first_patch``: a page continuing another),
    and the record's salt their states are hashed with."""
    low, high = (-_ALL, _ALL) if every else (first, upto)
    queries = [
        Query(STATE_SALT, (channel_id,), "value"),
        Query(_SPAN_EVENTS, (channel_id, first, last), "rows"),
    ]
    if documents:
        queries.append(Query(_SPAN_STATES, (channel_id, low, high), "rows"))
    patch_low = low if every or first_patch else first + 1
    queries.append(Query(_SPAN_PATCHES, (channel_id, patch_low, high), "rows"))
    answers = yield Batch(tuple(queries))
    events = list(answers[1])
    full = text_rows(answers[2]) if documents else []
    salt = answers[0]
    return events, full, patch_rows(answers[-1]), None if salt is None else str(salt)


def verified_up_to(
    channel_id: int,
    chains: VerifiedChains,
    stored: VerifiedHead,
    known: VerifiedHead | None,
    base: VerifiedState | None = None,
) -> Step[None]:
    """Make ``stored`` (the game's head as read in this transaction) a head this process
    verified: the whole history the first time, else from ``known``, the head verified when
    the operation started (`db.chain.verify.first_to_verify`): from its document when ``base``
    holds it (the versions after it only, `db.chain.verify.verify_forward`), otherwise from the
    nearest whole document at or below it; `ChainBroken` at the first bad event.

    ``known`` is taken before the operation's first read: a head this process committed
    after that (another coroutine's commit, on PostgreSQL's pool) may be ahead of what this
    operation's snapshot shows, and is no sign of a shortened log.
    """
    first = first_to_verify(channel_id, known, stored)
    if first is None:
        return
    refused = chains.refusal(channel_id, stored)
    if refused is not None:
        raise refused
    anchor = known if known is not None and known.game == stored.game else None
    check: Callable[..., object]
    if anchor is not None and base is not None and base.head == anchor:
        events, full, patches, salt = yield from span_rows(
            channel_id, anchor.seq + 1, stored.seq, stored.seq, every=False, first_patch=True
        )
        check = partial(verify_forward, channel_id, base=base)
    else:
        if anchor is not None:
            below = yield Query(_WHOLE_BELOW, (channel_id, first), "value")
            first = below if type(below) is int and below >= 1 else 1
        events, full, patches, salt = yield from span_rows(
            channel_id, first, stored.seq, stored.seq, every=anchor is None
        )
        check = partial(verify_span, channel_id, first=first, anchor=anchor, whole=anchor is None)
    snapshots: dict[int, str] = {}
    try:
        yield Compute(
            partial(
                check,
                last=stored.seq,
                events=events,
                full=full,
                patches=patches,
                timestamp=stamp_text,
                snapshots=snapshots,
                salt=salt,
            )
        )
    except ChainBroken as error:
        chains.refuse(channel_id, stored, error)
        raise
    chains.remember(channel_id, stored, snapshots)


def check_head(
    channel_id: int,
    chains: VerifiedChains,
    known: VerifiedHead | None,
    game: str,
    version: int,
    head_hash: str,
    base: VerifiedState | None = None,
) -> Step[None]:
    """Nothing is used on top of a chain this process has not verified: a dictionary
    lookup while the head is the one it verified or wrote itself (``base``: that head's
    document, if the caller holds it, `verified_up_to`)."""
    if not chains.matches(channel_id, game, version, head_hash):
        stored = VerifiedHead(game, version, head_hash)
        yield from verified_up_to(channel_id, chains, stored, known, base)


def chain_head(channel_id: int) -> Step[VerifiedHead]:
    """The game's head as stored: its creation time, version and head event's hash."""
    row = yield Query(_CHAIN_HEAD, (channel_id,), "row")
    if row is None:
        raise GameNotFound(channel_id)
    if type(row[1]) is not int:
        raise CorruptRecord(channel_id, f"game row is unreadable (version {row[1]!r})")
    if row[2] is None:
        raise ChainBroken(channel_id, row[1], EVENT_MISSING)
    return VerifiedHead(stamp_text(row[0]), row[1], str(row[2]))


_ROWS_BEYOND = (
    "SELECT EXISTS (SELECT 1 FROM states WHERE channel_id = ? AND (version > ? OR version < 1)) "
    "OR EXISTS (SELECT 1 FROM patches WHERE channel_id = ? AND (version > ? OR version < 2))"
)
_GAME_VERSION = "SELECT version FROM games WHERE channel_id = ?"


def page_rows(
    channel_id: int, first: int, last: int, head: int
) -> Step[tuple[list[Any], list[Row], list[PatchRow], bool, int, str | None]]:
    """One page of a history verified page by page (`db.chain.verify.verify_page`): the events,
    whole documents and patches of versions ``first``..``last``, and, on the last page
    (``last`` = ``head``), whether any document or patch lies outside ``1..`` the game's
    version, and that version (``head`` on the other pages). The game may have moved past
    ``head`` since the first page (its own commands run meanwhile): ``head`` then lost its
    whole document, as any version that is not a snapshot does, and the rows after it are
    the later commits'. Last, the record's salt."""
    events, full, patches, salt = yield from span_rows(
        channel_id, first, last, last, every=False, first_patch=first > 1
    )
    beyond, now = False, head
    if last == head:
        version = yield Query(_GAME_VERSION, (channel_id,), "value")
        now = max(head, version) if type(version) is int else head
        beyond = bool((yield Query(_ROWS_BEYOND, (channel_id, now, channel_id, now), "value")))
    return events, full, patches, beyond, now, salt


def event_page(channel_id: int, first: int, last: int) -> Step[tuple[list[Any], str | None]]:
    """The event rows ``first``..``last`` of a log verified page by page, without their
    states (`db.chain.verify.verify_events`), and the record's salt their hashes cover."""
    salt, rows = yield Batch(
        (
            Query(STATE_SALT, (channel_id,), "value"),
            Query(_SPAN_EVENTS, (channel_id, first, last), "rows"),
        )
    )
    return list(rows), None if salt is None else str(salt)


def verified_head(
    channel_id: int, chains: VerifiedChains, known: VerifiedHead | None
) -> Step[VerifiedHead]:
    """The game's head, verified (inside the caller's transaction)."""
    stored = yield from chain_head(channel_id)
    if not chains.matches(channel_id, stored.game, stored.seq, stored.hash):
        yield from verified_up_to(channel_id, chains, stored, known)
    return stored


def state_text(
    channel_id: int, version: int, chains: VerifiedChains, known: VerifiedHead | None
) -> Step[tuple[str, str]]:
    """``(status, canonical document JSON)`` of any stored version of a game, checked
    against the chain before it is returned.

    The nearest whole document at or below ``version`` (version 1, a recorded snapshot, the
    head) plus the patches after it, applied in order; that document must hash to its
    event's state hash and the result to version's, and the events must hash and link up
    to the first anchor event after it that this process verified (else the head it
    verified): every event of the span (`db.chain.verify.verify_span`) while it holds at most
    `LONG_SPAN`, else the events of each end up to the anchor after it
    (`db.chain.verify.verify_old_version`: a long run of small patches to a large document costs
    its patches, not thousands of events). `ChainBroken` names the first
    version that fails (the whole span is walked then, every state hashed, to find it).
    What this proves: docs/storage.md, "What reading an old version proves".
    """
    head = yield from verified_head(channel_id, chains, known)
    base = yield Query(_STATE_BELOW, (channel_id, version), "row")
    if base is None or not 1 <= version <= head.seq or type(base[0]) is not int:
        raise CorruptRecord(channel_id, f"no state of version {version}")
    whole = (base[0], str(base[1]), str(base[2]))
    # Up to the first anchor event after it this process verified (else the head).
    anchor = chains.anchor_for(channel_id, head, version)
    base_anchor = chains.anchor_for(channel_id, head, base[0])
    if base_anchor.seq < version and anchor.seq - base[0] > LONG_SPAN:
        answers = yield Batch(
            (
                Query(_SPAN_EVENTS, (channel_id, base[0], base_anchor.seq), "rows"),
                Query(_SPAN_EVENTS, (channel_id, version, anchor.seq), "rows"),
                Query(_SPAN_PATCHES, (channel_id, base[0] + 1, version), "rows"),
                Query(STATE_SALT, (channel_id,), "value"),
            )
        )
        try:
            found: tuple[str, str] = yield Compute(
                partial(
                    verify_old_version,
                    channel_id,
                    base=whole,
                    version=version,
                    base_events=list(answers[0]),
                    base_anchor=base_anchor,
                    events=list(answers[1]),
                    anchor=anchor,
                    patches=patch_rows(answers[2]),
                    timestamp=stamp_text,
                    salt=None if answers[3] is None else str(answers[3]),
                )
            )
            return found
        except ChainBroken:
            pass  # the whole span below names the first bad version
    events, _, patches, salt = yield from span_rows(
        channel_id, base[0], anchor.seq, version, every=False, documents=False
    )
    _, status, text = yield Compute(
        partial(
            verify_span,
            channel_id,
            first=base[0],
            last=anchor.seq,
            events=events,
            full=[whole],
            patches=patches,
            timestamp=stamp_text,
            anchor=anchor,
            states_upto=version,
            every_state=False,
            head=head.seq,
            salt=salt,
        )
    )
    return status, text


__all__ = [
    "STATE_SALT",
    "chain_head",
    "check_head",
    "event_page",
    "page_rows",
    "patch_rows",
    "span_rows",
    "state_text",
    "text_rows",
    "verified_head",
    "verified_up_to",
]
