"""Canonical JSON and the hash chain of the event log.

Recipe (also in docs/storage.md), so an exported log can be checked by anyone:

* canonical JSON: ``json.dumps(value, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False, allow_nan=False)``, encoded as UTF-8;
* state hash: ``sha256(canonical({"document": document, "status": status}))`` for a record
  stored before schema 12 (no salt); since then ``sha256(canonical({"document": document,
  "salt": salt, "status": status}))`` with the record's secret salt (``games.state_salt``, 64
  hex digits), so a state cannot be guessed and tested against its hash without the salt;
* event hash: ``sha256(prev_hash + canonical(fields))`` where ``prev_hash`` is the previous
  event's hash as 64 lowercase hex digits (64 zeros for the first event) and ``fields`` is
  the object of `CHAINED_FIELDS` (state version and state hash included), timestamps in the
  fixed text of `db.models.format_timestamp`, plus ``"salt": salt`` for a salted record (a
  record stored before schema 12 has no such member), so a withheld command's options, dice
  and outcome cannot be guessed and tested against its event's hash without the salt either.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from db.errors import ChainBroken
from db.models import EventRecord, PreparedState, format_timestamp

GENESIS_HASH = "0" * 64

# The event fields covered by the chain, i.e. every stored field but the two hashes.
CHAINED_FIELDS = (
    "actor_id",
    "args",
    "channel_id",
    "created_at",
    "dice",
    "interaction_id",
    "resolution",
    "seq",
    "state_hash",
    "state_version",
    "undoes_seq",
    "verb",
)


# The recipe itself, made once: ``json.dumps`` with options builds a new encoder each call.
_REFERENCE = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode
_STRING = json.encoder.encode_basestring  # the recipe's own (C) string escaper
# Subclasses, dataclasses and datetimes go to the reference encoder, which either encodes
# them as the recipe does (an int or str subclass) or refuses them as it always did.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def canonical_json(value: Any) -> str:
    """Serialize ``value`` the one way the chain hashes it (sorted keys, no spaces, UTF-8).

    The text is the recipe's (module docstring) byte for byte, refusals included. orjson
    writes it about ten times faster; what it would write otherwise goes to the recipe's
    own encoder (`fast_canonical`). tests/db/chain/test_hashing.py checks the equality on
    generated values.
    """
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    fast = fast_canonical(value)
    return _REFERENCE(value) if fast is None else fast[0]


def fast_canonical(value: Any) -> tuple[str, Any] | None:
    """``(canonical_json(value), the value it reads back as)`` when orjson writes the
    recipe's text; None when only the recipe's own encoder may write (or refuse) it.

    orjson refuses some values the recipe writes (integers beyond 64 bits, keys that are
    not strings, subclasses, deep nesting), writes small floats its own way
    (`_written_otherwise`), and writes a few values the recipe refuses: a non-finite float
    as ``null``, an enum or a UUID as its value. The read-back catches the last kind: such a
    value does not read back as itself.
    """
    try:
        data = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError included
        return None
    if _written_otherwise(data):
        return None
    parsed = orjson.loads(data)  # exact: every integer in it fits 64 bits, or dumps refused
    if parsed != value:
        return None
    return data.decode("utf-8"), parsed


def unchecked_canonical(value: Any) -> str | None:
    """orjson's text of ``value`` where it may be the recipe's: `fast_canonical` without
    its read-back; None where only the recipe's own encoder may write (or refuse) it.

    The text is the recipe's unless ``value`` holds one of the values orjson writes and the
    recipe refuses (a non-finite float, an enum, a UUID): the caller rules those out
    otherwise (a value parsed from JSON holds none; `db.chain.prepare` proves a document's text
    by the patch it makes)."""
    try:
        data = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError included
        return None
    return None if _written_otherwise(data) else data.decode("utf-8")


def canonical_json_of_parsed(value: Any) -> str:
    """`canonical_json` of a value read from canonical JSON text by ``json.loads`` and
    changed only by other such values (a patch applied to a parsed document).

    Such a value holds nothing but JSON's own types and finite floats, so the read-back
    `fast_canonical` makes to rule out anything else is skipped.
    """
    text = unchecked_canonical(value)
    return _REFERENCE(value) if text is None else text


def parse_canonical(text: str) -> Any:
    """``json.loads(text)``, faster for a canonical text (a stored document).

    orjson parses it when its parse writes back to the very text, which proves the parse
    exact (an integer beyond 64 bits, which orjson would read as a float, does not write
    back the same); any other text goes to ``json.loads``, with its errors.
    """
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
    return value if canonical_json_of_parsed(value) == text else json.loads(text)


#: Nineteen digits in a row: the only place a canonical text can hold a number orjson reads
#: otherwise than ``json.loads`` (an integer beyond 64 bits, read as a float).
_LONG_RUN = 19
#: Every ASCII digit byte made ``0``, every other byte left as it is: a run of `_LONG_RUN`
#: zeros in the translated UTF-8 is a run of that many digits in the text (a byte of a
#: multi-byte character is never a digit).
_DIGITS_AS_ZEROS = bytes.maketrans(b"0123456789", b"0" * 10)
_ZEROS = b"0" * _LONG_RUN


def has_long_digit_run(text: str) -> bool:
    """Whether ``text`` holds nineteen ASCII digits in a row (``[0-9]{19}``).

    Three passes in C over the bytes (encode, translate, find) instead of a regular
    expression: ``re`` tries the class at every position (20–40 µs per KB here), and this runs on
    the event loop for every command served from a kept head (`parse_kept`)."""
    # A lone surrogate (which a str may hold) is encoded too: its bytes are no digits.
    return _ZEROS in text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZEROS)


def parse_kept(text: str) -> Any:
    """`parse_canonical` of a text this process wrote or already parsed that way (a kept
    head, `db.chain.head_cache`; the text a commit's patch is made from,
    `db.chain.prepare`), without its proof by writing back: orjson reads a canonical text
    exactly unless it holds an integer beyond 64 bits, which a scan for nineteen digits in a
    row finds (a text with such a run, even inside a string, takes `parse_canonical`)."""
    if not has_long_digit_run(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return parse_canonical(text)


def _written_otherwise(data: bytes) -> bool:
    """Whether orjson's ``data`` may write a float otherwise than the recipe.

    orjson writes floats below 1e-4 as ``0.00001`` and ``1e-6`` where the recipe writes
    ``1e-05`` and ``1e-06``; everything else it accepts is written as the recipe does. A
    string that merely looks like such a float costs the recipe's encoder, never a wrong
    text. The scan looks for the rare bytes ``-`` and ``.`` (memchr) and checks around
    them: a two-byte search for ``e-`` stops at every ``e`` of the text.
    """
    find = data.find
    at = find(b"-")
    while at != -1:
        if at > 1 and data[at - 1] == 101 and 48 <= data[at - 2] <= 57:  # digit, e, -
            return True
        at = find(b"-", at + 1)
    at = find(b".")
    while at != -1:
        if at > 0 and data[at - 1] == 48 and data[at + 1 : at + 5] == b"0000":  # 0.0000
            return True
        at = find(b".", at + 1)
    return False


def state_hash(document_json: str, status: str, salt: str | None) -> str:
    """Hash of a stored state, given its document already in canonical JSON and its
    record's secret salt (None: a record stored before schema 12).

    Equal to ``sha256(canonical({"document": document, "salt": salt, "status": status}))``,
    without the ``salt`` member when there is none; it is fed piecewise so a large document
    is not copied into a second string on every commit.
    """
    digest = hashlib.sha256(b'{"document":')
    digest.update(document_json.encode("utf-8"))
    if salt is not None:
        digest.update(b',"salt":')
        digest.update(canonical_json(salt).encode("utf-8"))
    digest.update(b',"status":')
    digest.update(canonical_json(status).encode("utf-8"))
    digest.update(b"}")
    return digest.hexdigest()


def encode_document(document: Mapping[str, Any] | str | PreparedState) -> str:
    """Canonical JSON text of a game document given as a dict or as JSON text.

    Raises ``ValueError`` / ``TypeError`` if it is not a JSON object (a caller's bug, not
    a storage error). Object keys must be strings, as ``model_dump(mode="json")`` and JSON
    text guarantee: the document is serialized once, on the hot path, without the round
    trip that would normalize integer keys.
    """
    if isinstance(document, PreparedState):
        return document.text
    value: Any = json.loads(document) if isinstance(document, str) else document
    if not isinstance(value, Mapping):
        raise TypeError("a game document must be a JSON object")
    return canonical_json(value)


#: The chained field names as canonical JSON, made once.
_KEY_JSON = {key: canonical_json(key) for key in CHAINED_FIELDS}


def canonical_fields(encoded_fields: Mapping[str, str]) -> str:
    """Assemble canonical JSON of an object whose values are already canonical JSON texts.

    This lets the commit path reuse the texts it stores (args, dice, resolution) instead of
    serializing them a second time, while producing exactly ``canonical_json(object)``.
    """
    members = (
        f"{_KEY_JSON.get(key) or canonical_json(key)}:{encoded_fields[key]}"
        for key in sorted(encoded_fields)
    )
    return "{" + ",".join(members) + "}"


def event_hash(prev_hash: str, encoded_fields: Mapping[str, str], *, salt: str | None) -> str:
    """Hash of an event chained to ``prev_hash``; ``encoded_fields`` hold canonical JSON.

    ``salt`` is the record's secret salt, hashed in as the member ``"salt"`` (None: a record
    stored before schema 12, hashed as it always was)."""
    if salt is not None:
        encoded_fields = {**encoded_fields, "salt": canonical_json(salt)}
    payload = prev_hash + canonical_fields(encoded_fields)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def encode_event_fields(event: EventRecord) -> dict[str, str]:
    """The chained fields of a stored event, each as canonical JSON."""
    return {
        "actor_id": canonical_json(event.actor_id),
        "args": canonical_json(event.args),
        "channel_id": canonical_json(event.channel_id),
        "created_at": canonical_json(format_timestamp(event.created_at)),
        "dice": canonical_json(event.dice),
        "interaction_id": canonical_json(event.interaction_id),
        "resolution": canonical_json(event.resolution),
        "seq": canonical_json(event.seq),
        "state_hash": canonical_json(event.state_hash),
        "state_version": canonical_json(event.state_version),
        "undoes_seq": canonical_json(event.undoes_seq),
        "verb": canonical_json(event.verb),
    }


def compute_event_hash(event: EventRecord, prev_hash: str, *, salt: str | None) -> str:
    """Recompute what ``event.hash`` must be if it follows ``prev_hash`` in a record salted
    with ``salt`` (None: unsalted, stored before schema 12)."""
    return event_hash(prev_hash, encode_event_fields(event), salt=salt)


def verify_chain(
    events: Iterable[EventRecord],
    *,
    salt: str | None,
    prev_hash: str = GENESIS_HASH,
    first_seq: int = 1,
) -> str:
    """Check that ``events`` form an unbroken, untampered chain; return the head hash.

    ``salt`` is their record's (None: unsalted). ``prev_hash`` and ``first_seq`` let a long
    log be checked page by page. Raises `ChainBroken` naming the channel and the first event
    that fails.
    """
    expected_seq = first_seq
    channel_id: int | None = None
    for event in events:
        if channel_id is None:
            channel_id = event.channel_id
        elif event.channel_id != channel_id:
            raise ChainBroken(channel_id, event.seq, "event from another channel")
        if event.seq != expected_seq:
            raise ChainBroken(channel_id, event.seq, f"expected event {expected_seq}")
        if event.state_version != event.seq:
            raise ChainBroken(channel_id, event.seq, "state version differs from sequence")
        if event.prev_hash != prev_hash:
            raise ChainBroken(channel_id, event.seq, "does not link to the previous event")
        if compute_event_hash(event, prev_hash, salt=salt) != event.hash:
            raise ChainBroken(channel_id, event.seq, "content does not match its hash")
        prev_hash = event.hash
        expected_seq += 1
    return prev_hash


def verify_export(bundle: Mapping[str, Any]) -> str:
    """Verify an export read back from JSON: the chain, every state kept against its event
    (all of them, or the first and the current one in a ``/game export``).

    Returns the head hash. Raises `ChainBroken` on any mismatch, including a bundle whose
    head hash, event count or game version disagree with its events.
    """
    game = bundle.get("game") or {}
    channel_id = game.get("channel_id")
    salt = game.get("state_salt")
    try:
        events = [EventRecord.from_json_dict(item) for item in bundle["events"]]
        states = {int(item["version"]): item for item in bundle["states"]}
    except (KeyError, TypeError, ValueError) as error:
        raise ChainBroken(channel_id, 0, f"malformed export: {error}") from error
    if any(event.channel_id != channel_id for event in events):
        raise ChainBroken(channel_id, 0, "events from another channel")
    head = verify_chain(events, salt=salt)
    if head != bundle.get("head_hash"):
        raise ChainBroken(channel_id, len(events), "head hash differs from the last event")
    if game.get("version") != len(events):
        raise ChainBroken(channel_id, len(events), "game version differs from event count")
    partial = bundle.get("states_kept") == "first_and_current"
    if partial and events and {1, len(events)} - set(states):
        raise ChainBroken(channel_id, len(events), "the first or current state is missing")
    if set(states) - {event.state_version for event in events}:
        raise ChainBroken(channel_id, len(events), "states without an event")
    for event in events:
        state = states.get(event.state_version)
        if state is None:
            if partial:  # a slim export keeps the first and the current state only
                continue
            raise ChainBroken(channel_id, event.seq, "its state is missing")
        recomputed = state_hash(canonical_json(state["document"]), str(state["status"]), salt)
        if recomputed != event.state_hash:
            raise ChainBroken(channel_id, event.seq, "its state does not match the state hash")
    if len(states) != len(events) and bundle.get("states_kept") != "first_and_current":
        raise ChainBroken(channel_id, len(events), "states without an event")
    return head


def verify_links(bundle: Mapping[str, Any]) -> str:
    """Verify what a seat's export (``"redacted_for"``: a side's or a spectator's) can
    prove: its events, in order from the 64 zeros, each linked to the hash of the one
    before it, up to the head hash; the game's version their count; and, in an unsalted
    record (stored before schema 12), every event still whole (its state's hash kept,
    nothing withheld) hashed again from its fields.

    A salted record's events are only linked: their hashes cover the record's secret salt
    (`event_hash`), which a seat's export does not carry (its game says
    ``"salt_withheld": true``), so neither their content nor any state can be checked on
    this file, only on the referee's export or one made after the game ended
    (docs/integrity.md, "A seat's export"); given a bundle carrying the salt, every whole
    event is hashed again with it. In an unsalted record an event without its state's hash
    (left out for a reader who may not see the state) or with its options withheld is only
    linked. Returns the head hash; raises `ChainBroken` like `verify_export`.
    """
    game = bundle.get("game") or {}
    channel_id = game.get("channel_id")
    salt = game.get("state_salt")
    contents = salt is not None or not game.get("salt_withheld")  # else: only the links
    prev_hash, seq = GENESIS_HASH, 0
    try:
        for seq, item in enumerate(bundle["events"], start=1):
            if item["channel_id"] != channel_id:
                raise ChainBroken(channel_id, seq, "event from another channel")
            if int(item["seq"]) != seq or int(item["state_version"]) != seq:
                raise ChainBroken(channel_id, seq, f"expected event {seq}")
            if item["prev_hash"] != prev_hash:
                raise ChainBroken(channel_id, seq, "does not link to the previous event")
            if contents and "state_hash" in item and not item.get("redacted"):
                event = EventRecord.from_json_dict(item)
                verify_chain([event], salt=salt, prev_hash=prev_hash, first_seq=seq)
            prev_hash = str(item["hash"])
    except (KeyError, TypeError, ValueError) as error:
        raise ChainBroken(channel_id, seq, f"malformed export: {error}") from error
    if prev_hash != bundle.get("head_hash"):
        raise ChainBroken(channel_id, seq, "head hash differs from the last event")
    if game.get("version") != seq:
        raise ChainBroken(channel_id, seq, "game version differs from event count")
    return prev_hash
