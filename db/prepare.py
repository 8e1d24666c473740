"""A commit's CPU work, done before the commit and on whichever thread the caller likes.

A commit stores the new document's canonical JSON and its patch from the previous version
(db/patch.py). Both are pure computation on the document: the service makes them on its
rules thread, in the same hop that played the command (`CommitPreparer.prepare`), and hands
the result to ``commit``; a caller that passes a plain document has the store make them on
a thread of its own. Either way the event loop never encodes a document, and the database
thread, whose every millisecond all grouped commits wait for, only compares two texts.
"""

from __future__ import annotations

import json
import threading

from db.hashing import encode_document
from db.models import PreparedState
from db.patch import ParsedDocuments, patch_and_result
from db.protocol import Document


class CommitPreparer:
    """Makes `PreparedState` values, remembering each channel's last prepared document.

    Thread-safe: the store's own encoder thread and the service's rules thread may both use
    it. A channel's commits are serialized by their caller, so two preparations of the same
    channel do not overlap in practice; if they did, the second finds no base and leaves the
    patch to the transaction.
    """

    def __init__(self) -> None:
        """An empty memory of documents (see `db.patch.ParsedDocuments` for its bounds)."""
        self._parsed = ParsedDocuments()
        self._lock = threading.Lock()

    def prepare(self, channel_id: int, new_state: Document) -> PreparedState:
        """Encode ``new_state`` and diff it against the channel's previous document.

        Raises ``ValueError`` / ``TypeError`` for a document that is not a JSON object.
        The text stored and hashed comes from one ``json.dumps`` call, one consistent
        reading of the document; the patch, made by walking the document afterwards, is
        checked against that text (`db.patch.patch_and_result`).
        """
        if isinstance(new_state, PreparedState):
            return new_state
        new_json = encode_document(new_state)
        with self._lock:
            base = self._parsed.latest(channel_id)
        if base is None:
            # Only the text: it is parsed if and when the channel's next commit needs it.
            self._keep(channel_id, new_json, None)
            return PreparedState(channel_id, new_json)
        base_json, old = base
        if base_json == new_json:
            self._keep(channel_id, new_json, old)
            return PreparedState(channel_id, new_json, base_json, "[]")
        if old is None:
            old = json.loads(base_json)
        source = json.loads(new_state) if isinstance(new_state, str) else new_state
        try:
            patch_json, rebuilt = patch_and_result(old, source, new_json)
        except (ValueError, TypeError, RecursionError):
            # A document JSON reads back differently (say, integer keys): the transaction
            # makes the patch from the stored texts instead.
            self._keep(channel_id, new_json, None)
            return PreparedState(channel_id, new_json)
        self._keep(channel_id, new_json, rebuilt)  # a private parse of new_json, for free
        return PreparedState(channel_id, new_json, base_json, patch_json)

    def remember(self, channel_id: int, document_json: str) -> None:
        """Note a channel's current document (its next commit's patch base)."""
        self._keep(channel_id, document_json, None)

    def _keep(self, channel_id: int, text: str, document: object) -> None:
        with self._lock:
            self._parsed.keep(channel_id, text, document)


__all__ = ["CommitPreparer"]
