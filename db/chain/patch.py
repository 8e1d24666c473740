"""Compact patches between two JSON documents, and the history layout built on them.

The store keeps every version of a game, but not every version whole (docs/storage.md,
"History: snapshots and patches"): each version after the first has a patch from the
previous version, full documents are kept at version 1, at the versions chosen as
snapshots (recorded beside their patch) and at the head.
Nothing here knows what a document means: a patch is a generic recursive difference of two
JSON values.

A patch is a JSON list of operations, applied in order; each is a list whose length says
what it does (``path`` is a list of object keys and list indices from the root):

* ``[path, value]``: set — the object member (added or replaced) or the list element at
  ``path`` becomes ``value``; the empty path replaces the whole document;
* ``[path]``: remove the object member at ``path``;
* ``[path, start, stop, items]``: splice — the list at ``path`` has its elements
  ``[start:stop]`` replaced by ``items`` (an append is ``[path, n, n, [new…]]``).

Patches are verified when they are made (`make_patch` applies the patch and compares the
canonical JSON with the new document's, falling back to a whole replacement), and every
state rebuilt from them is checked against its event's state hash by the stores.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from db.chain.hashing import canonical_json, canonical_json_of_parsed, parse_canonical, state_hash
from db.errors import ChainBroken, CorruptRecord

#: A version keeps its whole document for good (a snapshot) once the patches since the last
#: snapshot, its own included, add up to more than this share of its document's size. So
#: rebuilding any old version reads at most one whole document and about half a document
#: of patches (about 1.5× the document, whatever its length), and a history costs at most
#: about 3× its patches' bytes: each patch, plus the snapshot it eventually pays for, a
#: share of it at most twice its own size. A small change to a large document (a
#: `/campaign adjust` of a few hundred bytes on a 600 KB campaign) stores its patch, not
#: a whole state; a larger share would make old versions slower to rebuild, a smaller one
#: the history bigger. (docs/storage.md, "History: snapshots and patches".)
SNAPSHOT_SHARE = 0.5

#: Schemas 8 and 9 kept a snapshot at every multiple of this; migration 8 still lays an
#: old history out so (migration 10 then records those snapshots as such).
SNAPSHOT_EVERY = 16

Patch = list[list[Any]]

#: A stored patch as written: ``(version, status, patch JSON, snapshot, run bytes)``, where
#: ``snapshot`` says the version keeps its whole document for good and ``run bytes`` is
#: the size of the patches since the last snapshot, this one's included.
PatchRow = tuple[int, str, str, bool, int]


def is_snapshot(version: int) -> bool:
    """Whether version ``version`` kept its full document under schemas 8 and 9 (migration
    8's layout: version 1 and every multiple of `SNAPSHOT_EVERY`)."""
    return version == 1 or version % SNAPSHOT_EVERY == 0


def snapshot_due(run_bytes: int, document_chars: int) -> bool:
    """Whether a version whose patch ends a run of ``run_bytes`` bytes of patches since the
    last snapshot keeps its whole document (of ``document_chars`` characters) for good:
    the run exceeds `SNAPSHOT_SHARE` of it."""
    return run_bytes > SNAPSHOT_SHARE * document_chars


# --------------------------------------------------------------------------------------
# Difference and application
# --------------------------------------------------------------------------------------


def diff(old: Any, new: Any) -> Patch:
    """The operations that turn JSON value ``old`` into ``new`` (empty if they are equal).

    Equal subtrees are skipped with Python's ``==``, which takes ``1``, ``1.0`` and
    ``True`` for the same value; `make_patch` checks the result byte for byte, so such a
    case costs a larger patch, never a wrong one.
    """
    operations: Patch = []
    _diff(old, new, [], operations)
    return operations


def _diff(old: Any, new: Any, path: list[Any], operations: Patch) -> None:
    if old is new:
        return
    if type(old) is dict and type(new) is dict:
        for key in old:
            if key not in new:
                operations.append([[*path, key]])
        for key, value in new.items():
            if key not in old:
                operations.append([[*path, key], value])
                continue
            before = old[key]
            if before is value or (before == value and type(before) is type(value)):
                continue
            _diff(before, value, [*path, key], operations)
        return
    if type(old) is list and type(new) is list:
        _diff_list(old, new, path, operations)
        return
    operations.append([path, new])


def _diff_list(old: list[Any], new: list[Any], path: list[Any], operations: Patch) -> None:
    # A common prefix and suffix stay; the middle is diffed element by element when it kept
    # its length (a unit's models changed), else replaced in one splice (a log grew).
    shortest = min(len(old), len(new))
    start = 0
    while start < shortest and _equal(old[start], new[start]):
        start += 1
    end = 0
    while end < shortest - start and _equal(old[-1 - end], new[-1 - end]):
        end += 1
    old_stop, new_stop = len(old) - end, len(new) - end
    if old_stop - start == new_stop - start:
        for index in range(start, old_stop):
            _diff(old[index], new[index], [*path, index], operations)
        return
    operations.append([path, start, old_stop, new[start:new_stop]])


def _equal(left: Any, right: Any) -> bool:
    return left is right or (type(left) is type(right) and left == right)


def apply_patch(document: Any, patch: Iterable[Sequence[Any]]) -> Any:
    """Apply ``patch`` to ``document`` IN PLACE and return the result.

    The caller owns ``document`` (typically freshly parsed JSON) and the patch's values
    (also freshly parsed): they become part of the result. Raises ``ValueError`` for an
    operation that does not fit the document (a malformed or foreign patch).
    """
    for operation in patch:
        try:
            document = _apply_operation(document, operation)
        except (KeyError, IndexError, TypeError) as error:
            raise ValueError(f"patch operation does not fit the document ({error!r})") from error
    return document


def _apply_operation(document: Any, operation: Sequence[Any]) -> Any:
    if not isinstance(operation, list) or not operation or not isinstance(operation[0], list):
        raise ValueError(f"malformed patch operation {operation!r}")
    path = operation[0]
    if len(operation) == 2 and not path:
        return operation[1]
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1] if path else None
    if len(operation) == 2:
        if type(parent) is list and (type(last) is not int or not 0 <= last < len(parent)):
            raise ValueError(f"no list element {last!r} to set")
        parent[last] = operation[1]
    elif len(operation) == 1 and path:
        if type(parent) is not dict:
            raise ValueError("only object members are removed")
        del parent[last]
    elif len(operation) == 4:
        target = parent[last] if path else document
        start, stop, items = operation[1], operation[2], operation[3]
        if type(target) is not list or type(items) is not list:
            raise ValueError("a splice needs a list")
        if not (type(start) is int and type(stop) is int and 0 <= start <= stop <= len(target)):
            raise ValueError(f"splice bounds {start!r}:{stop!r} out of range")
        target[start:stop] = items
    else:
        raise ValueError(f"malformed patch operation {operation!r}")
    return document


def make_patch(old: Any, new: Any, new_json: str) -> str:
    """The canonical JSON of a patch from ``old`` to ``new``, proven to rebuild ``new_json``.

    ``old`` is consumed (the patch is applied to it to check the result); ``new_json`` is
    ``canonical_json(new)``. Should the difference not rebuild the exact text (see `diff`),
    the patch replaces the whole document instead: larger, never wrong.
    """
    return patch_and_result(old, new, new_json)[0]


def patch_and_result(old: Any, new: Any, new_json: str) -> tuple[str, Any]:
    """`make_patch`, and a private parse of ``new_json`` (``old`` with the patch applied).

    ``new`` is only read (it may be the caller's own document: the patch is checked
    against ``new_json``, so even a document changed meanwhile cannot yield a wrong
    patch), and it is not part of the result.
    """
    operations = diff(old, new)
    patch_json = canonical_json(operations)
    rebuilt = apply_patch(old, json.loads(patch_json))
    if canonical_json_of_parsed(rebuilt) == new_json:
        return patch_json, rebuilt
    return canonical_json([[[], json.loads(new_json)]]), json.loads(new_json)


def patch_onto(old: Any, new: Any, new_json: str) -> str:
    """`make_patch` without consuming ``old``: the patch is proven on copies of the objects
    and lists on its operations' paths, everything else shared with ``old``, which is left
    as it is (the caller's own parse of the previous version, read on after the patch)."""
    operations = diff(old, new)
    patch_json = canonical_json(operations)
    rebuilt = _applied_to_copies(old, json.loads(patch_json))
    if canonical_json_of_parsed(rebuilt) == new_json:
        return patch_json
    return canonical_json([[[], json.loads(new_json)]])


def _applied_to_copies(document: Any, patch: Iterable[Sequence[Any]]) -> Any:
    """`apply_patch` on a result that shares with ``document`` what the patch leaves alone:
    before each operation, the containers on its path (the list a splice changes
    included) are replaced by shallow copies, each copied once."""
    # The result's own containers by identity (held here, so no identity is reused).
    copied: dict[int, Any] = {}

    def own(value: Any) -> Any:
        if id(value) in copied:
            return value
        if type(value) is not dict and type(value) is not list:
            raise TypeError(f"no object or list at {value!r}")
        private = value.copy()
        copied[id(private)] = private
        return private

    for operation in patch:
        try:
            path = operation[0] if isinstance(operation, list) and operation else None
            if isinstance(path, list) and path and len(operation) in (1, 2, 4):
                # A set or removal changes the path's parent; a splice the list at the path.
                through = len(path) if len(operation) == 4 else len(path) - 1
                document = own(document)
                parent = document
                for step in path[:through]:
                    child = own(parent[step])
                    parent[step] = child
                    parent = child
            document = _apply_operation(document, operation)
        except (KeyError, IndexError, TypeError) as error:
            raise ValueError(f"patch operation does not fit the document ({error!r})") from error
    return document


def patch_from_json(text: object) -> Patch:
    """A stored patch's text, parsed; ``ValueError`` if it is not a JSON list."""
    if not isinstance(text, str):
        raise ValueError("patch is not text")
    value = parse_canonical(text)
    if not isinstance(value, list):
        raise ValueError("patch is not a JSON list")
    return value


# --------------------------------------------------------------------------------------
# The layout of a game's history
# --------------------------------------------------------------------------------------


def compact_history(
    documents: Sequence[tuple[int, str, str]], *, by_size: bool = True
) -> tuple[list[tuple[int, str, str]], list[PatchRow]]:
    """Split a whole history into what the store keeps.

    ``documents`` are every version ``(version, status, canonical document JSON)`` from 1
    to the head, in order. Returns ``(full, patches)``: the full documents to keep (version
    1, every snapshot version and the head) and a `PatchRow` for every version after the
    first. The snapshots are chosen as a commit chooses them (`snapshot_due`), or, without
    ``by_size``, at the multiples of `SNAPSHOT_EVERY`: migration 8's layout, which
    inserts no flag (migration 10 records those). Used by migration 8 and by restoring a
    copied game.
    """
    full: list[tuple[int, str, str]] = []
    patches: list[PatchRow] = []
    head = documents[-1][0] if documents else 0
    previous: str | None = None
    run_bytes = 0
    for version, status, text in documents:
        snapshot = version == 1 or (not by_size and is_snapshot(version))
        if previous is not None:
            patch = make_patch(json.loads(previous), json.loads(text), text)
            run_bytes += len(patch)
            snapshot = snapshot or (by_size and snapshot_due(run_bytes, len(text)))
            patches.append((version, status, patch, snapshot, run_bytes))
        if snapshot:
            run_bytes = 0
        if snapshot or version == head:
            full.append((version, status, text))
        previous = text
    return full, patches


def rebuild_text(base_text: str, patch_texts: Iterable[str]) -> str:
    """The canonical JSON of a document rebuilt from ``base_text`` and stored patches.

    Raises ``ValueError`` if the base or a patch is not valid JSON or does not fit.
    """
    document = json.loads(base_text)
    for text in patch_texts:
        document = apply_patch(document, patch_from_json(text))
    return canonical_json(document)


# Marks a version that cannot be rebuilt (None is a JSON value).
_UNKNOWN: Any = object()


class HistoryWalker:
    """A game's versions 1..``last`` rebuilt one at a time from its stored rows.

    Feed it every version in order (`step`): the full document the store keeps for it, if
    any, and its patch from the previous version (none for version 1). It holds one parsed
    document, the previous version's, so a history of any length is walked in the memory
    of one state. With ``verify``, every stored row must agree with the chain: each full
    document and each patch's result hashes to its event's state hash, version 1, every
    snapshot version and the head keep their full document, and every later version has
    its patch — else `ChainBroken` names the version (a snapshot version is one the store
    recorded as such, ``snapshot`` in `step`). Without it, whatever can be read is
    returned (a version that cannot be rebuilt gives None, and so do the ones after it
    until a full document).
    """

    def __init__(
        self, channel_id: int, last: int, *, verify: bool, salt: str | None = None
    ) -> None:
        self.channel_id = channel_id
        self.last = last
        self.verify = verify
        self.salt = salt  # the record's, hashed into each state (`db.chain.hashing.state_hash`)
        self._current: Any = _UNKNOWN  # the previous version, parsed
        self._text: str | None = None  # ... and its canonical JSON
        self._hashed: tuple[str, str, str] | None = None  # (text, status, state hash) last

    def step(
        self,
        version: int,
        state_hash_: str | None,
        full: tuple[str, str] | None,
        patch: tuple[str, str] | None,
        *,
        snapshot: bool = False,
    ) -> tuple[str, str] | None:
        """``(status, document JSON)`` of ``version``, given its stored ``(status, full
        document)`` and ``(status, patch)`` (None where the store keeps none) and, to
        verify, its event's state hash and whether the store recorded it as a snapshot."""
        try:
            candidates = self._candidates(full, patch)
        except ValueError as error:
            if self.verify:
                raise ChainBroken(
                    self.channel_id, version, f"a stored state cannot be read ({error})"
                ) from error
            raise CorruptRecord(
                self.channel_id, f"a stored state cannot be read ({error})"
            ) from error
        if self.verify:
            kept = full is not None
            whole = version == 1 or snapshot or version == self.last
            self._check(version, state_hash_, candidates, whole and not kept, patch is not None)
        return candidates[0] if candidates else None

    def _candidates(
        self, full: tuple[str, str] | None, patch: tuple[str, str] | None
    ) -> list[tuple[str, str]]:
        candidates: list[tuple[str, str]] = []
        if full is not None:
            candidates.append(full)
        rebuilt: Any = _UNKNOWN
        text: str | None = None
        if patch is not None and self._current is not _UNKNOWN:
            operations = patch_from_json(patch[1])
            if operations:
                rebuilt = apply_patch(self._current, operations)
                # A parse of canonical text changed by parsed values: no read-back needed.
                text = canonical_json_of_parsed(rebuilt)
            else:  # the event left the document as it was (a roll, a confirmation)
                rebuilt, text = self._current, self._text
            assert text is not None
            candidates.append((patch[0], text))
        if full is not None:
            self._current, self._text = parse_canonical(full[1]), full[1]
        else:
            self._current, self._text = rebuilt, text
        return candidates

    def _check(
        self,
        version: int,
        expected: str | None,
        candidates: list[tuple[str, str]],
        whole_missing: bool,
        stepped: bool,
    ) -> None:
        channel_id = self.channel_id
        if not candidates:
            raise ChainBroken(channel_id, version, "its state is missing")
        if whole_missing:
            raise ChainBroken(channel_id, version, "its full document is missing")
        if version > 1 and not stepped:
            raise ChainBroken(channel_id, version, "its patch is missing")
        for status, text in candidates:
            if self._hash(text, status) != expected:
                raise ChainBroken(channel_id, version, "its state does not match the state hash")

    def _hash(self, text: str, status: str) -> str:
        """`state_hash`, remembered for the last state (a run of events that change
        nothing hashes the same text again)."""
        hashed = self._hashed
        if hashed is not None and hashed[0] is text and hashed[1] == status:
            return hashed[2]
        value = state_hash(text, status, self.salt)
        self._hashed = (text, status, value)
        return value


def history_states(
    channel_id: int,
    state_hashes: Sequence[str],
    full: Sequence[tuple[int, str, str]],
    patches: Sequence[tuple[int, str, str, bool]],
    *,
    verify: bool,
    salt: str | None = None,
) -> list[tuple[int, str, str]]:
    """Every version ``(version, status, document JSON)`` of a game, from its stored rows.

    ``state_hashes`` are its events' state hashes in order (event n produced version n);
    ``full`` the stored ``(version, status, text)`` rows and ``patches`` the stored
    ``(version, status, text, snapshot)`` rows, in any order. The
    versions are walked by `HistoryWalker` (see there for what ``verify`` checks); with
    ``verify``, a row beyond the last event is refused too. Without it, a version that
    cannot be rebuilt is left out.
    """
    last = len(state_hashes)
    if not verify:
        last = max([last, *(row[0] for row in full), *(row[0] for row in patches)])
    elif any(row[0] > last or row[0] < 1 for row in full) or any(
        row[0] > last or row[0] < 2 for row in patches
    ):
        raise ChainBroken(channel_id, last, "states without an event")
    documents = {version: (status, text) for version, status, text in full}
    steps = {row[0]: (row[1], row[2]) for row in patches}
    snapshots = {row[0] for row in patches if row[3]}
    walker = HistoryWalker(channel_id, last, verify=verify, salt=salt)
    states: list[tuple[int, str, str]] = []
    for version in range(1, last + 1):
        expected = state_hashes[version - 1] if version <= len(state_hashes) else None
        found = walker.step(
            version,
            expected,
            documents.get(version),
            steps.get(version),
            snapshot=version in snapshots,
        )
        if found is not None:
            states.append((version, *found))
    return states


class ParsedDocuments:
    """The current documents of the channels committed lately, with their text.

    A commit diffs the previous version against the new one; the previous version is
    usually the document the channel's last commit wrote, so keeping it saves reading and
    parsing it again when the same channel plays on. Whoever uses an entry must check that
    its text equals the stored current version exactly (the SQLite store does, in the
    commit's transaction; the service passes the text it read): a commit that was refused
    or rolled back, or another process's write, then simply misses.

    Bounded for any number of channels, least recently used first out: the texts of at
    most ``texts`` channels and ``text_bytes`` characters (1,000 channels of 12 KB
    documents would take 24 MB once SQLite has held each as UTF-8 too), the parses —
    several times larger than their text — of at most ``parsed`` of them (the others are
    parsed again from their text). Not thread-safe: one thread uses it
    (`db.chain.prepare.CommitPreparer` locks around it).
    """

    def __init__(
        self, *, texts: int = 64, parsed: int = 8, text_bytes: int = 1024 * 1024
    ) -> None:
        self._texts_size = texts
        self._parsed_size = parsed
        self._text_bytes = text_bytes
        self._texts: OrderedDict[int, str] = OrderedDict()
        self._parsed: OrderedDict[int, Any] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._texts)

    @property
    def size(self) -> tuple[int, int, int]:
        """(texts kept, their characters, parses kept)."""
        return len(self._texts), self._bytes, len(self._parsed)

    def latest(self, channel_id: int) -> tuple[str, Any] | None:
        """The last ``(text, document or None)`` kept for the channel, taken out (the caller
        owns the document now), or None."""
        text = self._texts.pop(channel_id, None)
        document = self._parsed.pop(channel_id, None)
        if text is None:
            return None
        self._bytes -= len(text)
        return text, document

    def keep(self, channel_id: int, text: str, document: Any) -> None:
        """Remember ``text`` and ``document`` (None: not parsed; else a parse of ``text``
        that nobody else may change) as the channel's current version."""
        self.latest(channel_id)
        if len(text) > self._text_bytes:
            return
        self._texts[channel_id] = text
        self._bytes += len(text)
        if document is not None:
            # (Without one, a parse kept from before is gone with latest(): it belongs to
            # another text — the channel's previous game, say — and would be a wrong base.)
            self._parsed[channel_id] = document
        while len(self._texts) > self._texts_size or self._bytes > self._text_bytes:
            dropped, text_dropped = self._texts.popitem(last=False)
            self._bytes -= len(text_dropped)
            self._parsed.pop(dropped, None)
        while len(self._parsed) > self._parsed_size:
            self._parsed.popitem(last=False)
