"""A commit's CPU work, done before the commit and on whichever thread the caller likes.

A commit stores its event's canonical JSON texts (`prepare_event`), the new document's
canonical JSON and its patch from the previous version (db/chain/patch.py). All of it is pure
computation: the service makes them on its rules thread, in the same hop that played the
command (`CommitPreparer.prepare`, `prepare_event`), and hands the result to ``commit``; a
plain document is prepared by the store on a worker thread (`db.store.CoreStore.commit`).
Either way the event loop never encodes a document.
"""

from __future__ import annotations

import json
import operator
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from db.chain.hashing import (
    canonical_json,
    canonical_json_of_parsed,
    encode_document,
    event_hash,
    fast_canonical,
    parse_kept,
    state_hash,
    unchecked_canonical,
)
from db.chain.patch import ParsedDocuments, patch_and_result, patch_onto
from db.models import Document, EventRecord, NewEvent, PreparedState, format_timestamp, utc_now


@dataclass(frozen=True, slots=True)
class PreparedEvent:
    """An event serialized on the caller's side, before the store's transaction.

    Serializing there means the caller's objects are read while the caller is suspended on
    this very call, not later on another thread while other coroutines may mutate them.
    ``args``, ``dice`` and ``resolution`` are private parses of the three texts (what the
    stored event reads back as), so the committed `EventRecord` needs no second parse.
    """

    verb: str
    args_json: str
    dice_json: str
    resolution_json: str
    actor_id: int | None
    interaction_id: str | None
    created_at: str
    args: Any = None
    dice: Any = None
    resolution: Any = None

    def chained_hash(
        self,
        prev_hash: str,
        *,
        channel_id: int,
        version: int,
        args_json: str,
        resulting_state_hash: str,
        undoes_seq: int | None,
        salt: str | None,
    ) -> str:
        """The hash chaining this event, stored as ``version`` with these fields in a record
        salted with ``salt``, to ``prev_hash`` (`db.chain.hashing.event_hash`, from the texts
        that are stored)."""
        return event_hash(
            prev_hash,
            {
                "actor_id": canonical_json(self.actor_id),
                "args": args_json,
                "channel_id": canonical_json(channel_id),
                "created_at": canonical_json(self.created_at),
                "dice": self.dice_json,
                "interaction_id": canonical_json(self.interaction_id),
                "resolution": self.resolution_json,
                "seq": canonical_json(version),
                "state_hash": canonical_json(resulting_state_hash),
                "state_version": canonical_json(version),
                "undoes_seq": canonical_json(undoes_seq),
                "verb": canonical_json(self.verb),
            },
            salt=salt,
        )

    def hashes(
        self,
        prev_hash: str,
        *,
        channel_id: int,
        version: int,
        args_json: str,
        document_json: str,
        status: str,
        undoes_seq: int | None,
        salt: str | None,
    ) -> tuple[str, str]:
        """``(state hash, event hash)`` of this event stored as ``version`` with the state
        ``document_json`` / ``status`` of a record salted with ``salt``, chained to
        ``prev_hash``."""
        resulting_state_hash = state_hash(document_json, status, salt)
        return resulting_state_hash, self.chained_hash(
            prev_hash,
            channel_id=channel_id,
            version=version,
            args_json=args_json,
            resulting_state_hash=resulting_state_hash,
            undoes_seq=undoes_seq,
            salt=salt,
        )

    def record(
        self,
        *,
        channel_id: int,
        version: int,
        args_json: str,
        resulting_state_hash: str,
        undoes_seq: int | None,
        created_at: datetime,
        prev_hash: str,
        chained_hash: str,
    ) -> EventRecord:
        """The stored event, as a read of its row would give it."""
        own_args = args_json == self.args_json and self.args is not None
        return EventRecord(
            channel_id=channel_id,
            seq=version,
            interaction_id=self.interaction_id,
            actor_id=self.actor_id,
            verb=self.verb,
            args=self.args if own_args else json.loads(args_json),
            dice=json.loads(self.dice_json) if self.dice is None else self.dice,
            resolution=(
                json.loads(self.resolution_json) if self.resolution is None else self.resolution
            ),
            state_version=version,
            state_hash=resulting_state_hash,
            undoes_seq=undoes_seq,
            created_at=created_at,
            prev_hash=prev_hash,
            hash=chained_hash,
        )


def stable_json(value: Any) -> str:
    """Canonical JSON that reads back to the same canonical JSON.

    A dict with integer keys sorts numerically when dumped but its keys come back as
    strings, which sort differently; one round trip first makes the stored text, the
    hashed text and what a verifier recomputes from the parsed value all agree.
    """
    return stable_and_value(value)[0]


# Made once: ``json.dumps`` with an option builds a new encoder on every call.
_PLAIN_JSON = json.JSONEncoder(allow_nan=False).encode


def stable_and_value(value: Any) -> tuple[str, Any]:
    """`stable_json` and the value it reads back as (a private copy)."""
    fast = fast_canonical(value)  # a value that reads back as itself is stable already
    if fast is not None:
        return fast
    parsed = json.loads(_PLAIN_JSON(value))
    return canonical_json_of_parsed(parsed), parsed


def prepare_event(event: NewEvent, *, verb: str | None = None) -> PreparedEvent:
    # Coerce ids to the column types: a value SQLite converted on the way in (an int
    # interaction id into TEXT) would read back differently from what was hashed.
    args_json, args = stable_and_value(dict(event.args))
    dice_json, dice = stable_and_value(list(event.dice))
    resolution_json, resolution = stable_and_value(event.resolution)
    return PreparedEvent(
        verb=str(event.verb if verb is None else verb),
        args_json=args_json,
        dice_json=dice_json,
        resolution_json=resolution_json,
        actor_id=None if event.actor_id is None else operator.index(event.actor_id),
        interaction_id=None if event.interaction_id is None else str(event.interaction_id),
        created_at=format_timestamp(utc_now()),
        args=args,
        dice=dice,
        resolution=resolution,
    )


def system_event(
    verb: str,
    *,
    args: Mapping[str, Any] | None = None,
    actor_id: int | None,
    interaction_id: str | None,
) -> PreparedEvent:
    return prepare_event(
        NewEvent(verb=verb, args=dict(args or {}), actor_id=actor_id, interaction_id=interaction_id)
    )


class CommitPreparer:
    """Makes `PreparedState` values, remembering each channel's last prepared document.

    Thread-safe: the service's rules thread and the store's worker threads may all use it.
    A channel's commits are serialized by their caller, so two preparations of the same
    channel do not overlap in practice; if they did, the second finds no base and leaves
    the patch to the transaction.
    """

    def __init__(self) -> None:
        """An empty memory of documents (see `db.chain.patch.ParsedDocuments` for its bounds)."""
        self._parsed = ParsedDocuments()
        self._lock = threading.Lock()

    def prepare(
        self,
        channel_id: int,
        new_state: Document,
        *,
        base_text: str | None = None,
        base_document: Mapping[str, Any] | None = None,
    ) -> PreparedState:
        """Encode ``new_state`` and diff it against the channel's previous document.

        ``base_text`` is that document's canonical JSON as the caller read it (the service
        passes the text its command loaded); without it, the parse kept from the channel's
        last commit is the base, if any. ``base_document`` is the caller's document of that
        text, JSON's own values only (a parse of it, or a document its commit proved, as the
        service's read is): when it writes exactly ``base_text`` the patch is made against
        it, only read, instead of a parse of the text; if the command changed it, its text
        differs, and the text is parsed as without it. Raises ``ValueError`` / ``TypeError``
        for a document that is not a JSON object. The text stored and hashed comes from one
        ``json.dumps`` call, one consistent reading of the document; the patch, made by
        walking the document afterwards, is checked against that text
        (`db.chain.patch.patch_and_result`).
        """
        if isinstance(new_state, PreparedState):
            return new_state
        # A document patched from a base its caller read is encoded by orjson unchecked
        # (`unchecked_canonical`: no read-back, a parse and a comparison of the whole
        # document fewer). Its patch proves the text: the patch holds every value that
        # differs from the base (a value parsed from JSON), so a value the recipe refuses
        # (an enum, a UUID, a non-finite float) fails the patch's own encoding, and the
        # document is then encoded the checked way, which refuses it as it always did.
        new_json = (
            unchecked_canonical(new_state)
            if base_text is not None and type(new_state) is dict
            else None
        )
        checked = new_json is None
        if new_json is None:
            new_json = encode_document(new_state)
        with self._lock:
            kept = self._parsed.latest(channel_id)
        if kept is not None and (base_text is None or kept[0] == base_text):
            base_json, old = kept
        elif base_text is not None:
            base_json, old = base_text, None
        else:
            # No base known: the transaction makes the patch from the stored text. Only the
            # text is kept: it is parsed if and when the channel's next commit needs it.
            self._keep(channel_id, new_json, None)
            return PreparedState(channel_id, new_json)
        if base_json == new_json:
            if not checked:  # no patch proves it: the checked way (refusals included)
                new_json = encode_document(new_state)
            self._keep(channel_id, new_json, old)
            return PreparedState(channel_id, new_json, base_json, "[]")
        try:
            source = json.loads(new_state) if isinstance(new_state, str) else new_state
            rebuilt: Any = None
            if old is None and self._writes(base_document, base_json):
                # The caller's document of the base text: a dump proves it that text (about
                # half a parse's time), and the patch is proven on copies of what it changes.
                patch_json = patch_onto(base_document, source, new_json)
            else:
                if old is None:
                    # The text the command read, which the store parsed when it read it:
                    # read exactly without its proof by writing back (`parse_kept`; a big
                    # integer still takes the proof), a dump and a comparison fewer.
                    old = parse_kept(base_json)
                patch_json, rebuilt = patch_and_result(old, source, new_json)
        except (ValueError, TypeError, RecursionError):
            patched = False
        else:
            patched = True
        if not patched:
            # A document JSON reads back differently (say, integer keys), or one the recipe
            # refuses (then the checked encoding raises): the transaction makes the patch
            # from the stored texts instead.
            if not checked:
                new_json = encode_document(new_state)
            self._keep(channel_id, new_json, None)
            return PreparedState(channel_id, new_json)
        # A private parse of new_json, for free: kept (none made against the caller's
        # document, whose parts its result shares).
        self._keep(channel_id, new_json, rebuilt)
        return PreparedState(channel_id, new_json, base_json, patch_json)

    @staticmethod
    def _writes(document: Mapping[str, Any] | None, text: str) -> bool:
        """Whether ``document`` is a plain JSON object whose canonical JSON is ``text``
        (orjson's, unchecked: equal to a canonical text, it holds no value that text
        does not)."""
        return type(document) is dict and unchecked_canonical(document) == text

    def unchanged(self, channel_id: int, document_json: str) -> PreparedState:
        """The channel's current document committed again as it is (an event that changes
        no state: a seat change), from ``document_json``, the verified text of the head it
        is committed on: the canonical text of its document (the chain's verification
        replays canonical texts), so encoding its parse again would write these very
        bytes. Its patch is empty; no encoding, parse or diff."""
        with self._lock:
            kept = self._parsed.latest(channel_id)
            parsed = kept[1] if kept is not None and kept[0] == document_json else None
            self._parsed.keep(channel_id, document_json, parsed)
        return PreparedState(channel_id, document_json, document_json, "[]")

    def remember(self, channel_id: int, document_json: str) -> None:
        """Note a channel's current document (its next commit's patch base)."""
        self._keep(channel_id, document_json, None)

    def _keep(self, channel_id: int, text: str, document: object) -> None:
        with self._lock:
            self._parsed.keep(channel_id, text, document)


__all__ = ["CommitPreparer", "PreparedEvent", "prepare_event", "stable_json", "system_event"]
