"""Archived games stored compact — events, snapshots and patches, like a live game — and
read back as the same verifiable export bundle, page by page.

An archive row's ``bundle`` holds zlib-compressed lines (``arbitro.archive/2``):

* ``arbitro.archive/2`` — the format;
* the head, one JSON object: ``exported_at``, ``game``, ``members``, ``head_hash`` and
  ``current`` (the head version's ``[status, document]``);
* one JSON object per version, in order: ``e`` the event in the export format, ``p`` its
  ``[status, patch]`` from the previous version (null for version 1), ``s`` the
  ``[status, document]`` kept whole (version 1 and every snapshot version only; the head's
  is in the head line).

So an archived game takes what it took live, not every state in full (the archives of
releases before this one, ``arbitro.export/1`` bundles with every state, are still read).
Both the writing (`build_archive`, from the game's history pages) and the reading
(`ArchiveReader`, from the row's bytes in chunks) hold a page of versions and one document
at a time; the same checks as an export's (`db.chain.history.VersionCheck`) run on the way in,
and again on the way out when it is exported.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import AsyncIterator
from io import BytesIO
from typing import Any

from db.chain.export import history_pages
from db.chain.hashing import canonical_json
from db.chain.history import ExportHead, StoredVersion, VersionCheck
from db.chain.patch import HistoryWalker, compact_history
from db.chain.rows import archive_fields
from db.errors import CorruptRecord, GameNotEnded
from db.models import EXPORT_FORMAT, ExportBundle, JsonObject, format_timestamp, parse_timestamp

ARCHIVE_FORMAT = "arbitro.archive/2"
_MAGIC = (ARCHIVE_FORMAT + "\n").encode()
#: Bytes of an archive read at a time.
CHUNK_BYTES = 256 * 1024
_LEVEL = 6


class ArchiveEncoder:
    """Compresses a game's history into an archive row's bundle, version by version."""

    def __init__(self, head: ExportHead, *, verify: bool = True) -> None:
        self.head = head
        self._check = VersionCheck(head, verify=verify)
        self._out = BytesIO()
        self._zip = zlib.compressobj(_LEVEL)
        status, document = head.current
        head_line = (
            f'{{"current":[{canonical_json(status)},{document}],'
            f'"exported_at":{canonical_json(head.exported_at)},'
            f'"game":{canonical_json(head.game)},'
            f'"head_hash":{canonical_json(head.head_hash)},'
            f'"members":{canonical_json(head.members)}}}\n'
        )
        self._put(_MAGIC + head_line.encode())

    def _put(self, data: bytes) -> None:
        self._out.write(self._zip.compress(data))

    def add(self, version: StoredVersion) -> None:
        """The next version, checked."""
        self._check.state_of(version)
        patch = "null" if version.patch is None else _pair(version.patch)
        full = version.full
        # The head's document is in the head line.
        whole = "null" if full is None or version.seq == self.head.version else _pair(full)
        self._put(f'{{"e":{version.event_json()},"p":{patch},"s":{whole}}}\n'.encode())

    @property
    def ended_at(self) -> str:
        """When the last event was written (the game's end, for an ended game)."""
        last = self._check.last_event
        return last.created_at if last is not None else self.head.exported_at

    def finish(self) -> bytes:
        """The bundle to store (after checking that every version came)."""
        self._check.finish()
        self._out.write(self._zip.flush())
        return self._out.getvalue()


def _pair(status_and_text: tuple[str, str]) -> str:
    status, text = status_and_text
    return f"[{canonical_json(status)},{text}]"


async def build_archive(store: Any, channel_id: int) -> tuple[ArchiveEncoder, bytes]:
    """A game's archive bundle, from its history read page by page (checked on the way);
    the encoder says what the row needs besides (head, end time). Raises `GameNotEnded`
    before reading the history of a game still in play."""
    head: ExportHead = await store.export_head(channel_id)
    if head.game.get("status") != "ended":
        raise GameNotEnded(channel_id)
    encoder = ArchiveEncoder(head)

    def add(page: list[StoredVersion]) -> None:
        for version in page:
            encoder.add(version)

    async for page in history_pages(store, channel_id, head.version):
        await asyncio.to_thread(add, page)
    blob = await asyncio.to_thread(encoder.finish)
    return encoder, blob


async def archive_row(
    store: Any, channel_id: int, bundle: ExportBundle | None, title: str
) -> tuple[int, tuple[Any, ...], bytes]:
    """What `GameStore.archive_game` inserts: the version the game must still be at, the
    row's fields (`db.chain.rows.archive_fields`) and its bundle — read page by page from the
    store, or encoded from ``bundle`` when the caller exported the game already."""
    if bundle is None:
        encoder, blob = await build_archive(store, channel_id)
        head, ended_at = encoder.head, encoder.ended_at
    else:
        data = bundle.to_json_dict()
        blob = await asyncio.to_thread(encode_bundle, data)
        head, _ = _from_bundle(data)
        ended_at = data["events"][-1]["created_at"] if data["events"] else head.exported_at
    fields = archive_fields(
        head.game,
        title,
        ended_at=ended_at,
        archived_at=head.exported_at,
        head_hash=head.head_hash,
    )
    return head.version, fields, blob


def encode_bundle(bundle: JsonObject) -> bytes:
    """An archive bundle from a whole export bundle in memory (every state kept), as a
    copy between stores (``arbitro db copy``) or an older caller hands it over."""
    head, versions = _from_bundle(bundle)
    encoder = ArchiveEncoder(head, verify=False)
    for version in versions:
        encoder.add(version)
    return encoder.finish()


class ArchiveReader:
    """Reads an archive's bytes, fed in chunks: first `head`, then the versions.

    An ``arbitro.archive/2`` bundle is decoded as it comes, a line at a time; an older
    one (one JSON object of the whole bundle) only once it is whole, as it always was.
    """

    def __init__(self) -> None:
        self.head: ExportHead | None = None
        self._unzip = zlib.decompressobj()
        self._pending = b""
        self._legacy: list[bytes] | None = None
        self._started = False

    def feed(self, chunk: bytes) -> list[StoredVersion]:
        """The versions completed by ``chunk`` (the head is set once read)."""
        try:
            data = self._unzip.decompress(chunk)
        except zlib.error as error:
            raise CorruptRecord(None, f"an archived bundle is damaged ({error})") from error
        return self._take(data)

    def close(self) -> list[StoredVersion]:
        """The versions left at the end of the bytes."""
        try:
            data = self._unzip.flush()
        except zlib.error as error:
            raise CorruptRecord(None, f"an archived bundle is damaged ({error})") from error
        found = self._take(data)
        if self._legacy is not None:
            head, versions = _from_bundle(_legacy_bundle(b"".join(self._legacy)))
            self.head = head
            return versions
        if self._pending.strip():
            found += self._lines([self._pending])
        self._pending = b""
        if self.head is None:
            raise CorruptRecord(None, "an archived bundle has no head")
        return found

    def _take(self, data: bytes) -> list[StoredVersion]:
        if self._legacy is not None:
            self._legacy.append(data)
            return []
        data = self._pending + data
        if not self._started:
            if len(data) < len(_MAGIC) and _MAGIC.startswith(data):
                self._pending = data
                return []
            self._started = True
            if not data.startswith(_MAGIC):
                self._legacy = [data]  # an arbitro.export/1 bundle, compressed whole
                self._pending = b""
                return []
            data = data[len(_MAGIC) :]
        *lines, self._pending = data.split(b"\n")
        return self._lines(lines)

    def _lines(self, lines: list[bytes]) -> list[StoredVersion]:
        found: list[StoredVersion] = []
        for line in lines:
            if not line:
                continue
            try:
                item = json.loads(line)
                if self.head is None:
                    self.head = _head_of(item)
                    continue
                found.append(_version_of(item))
            except (KeyError, TypeError, ValueError, IndexError) as error:
                raise CorruptRecord(None, f"an archived bundle is unreadable ({error})") from error
        return found


def _head_of(item: JsonObject) -> ExportHead:
    status, document = item["current"]
    return ExportHead(
        game=dict(item["game"]),
        members=list(item["members"]),
        head_hash=str(item["head_hash"]),
        exported_at=str(item["exported_at"]),
        current=(str(status), canonical_json(document)),
    )


def _version_of(item: JsonObject) -> StoredVersion:
    patch = item.get("p")
    whole = item.get("s")
    return StoredVersion.from_event(
        item["e"],
        full=None if whole is None else (str(whole[0]), canonical_json(whole[1])),
        patch=None if patch is None else (str(patch[0]), canonical_json(patch[1])),
    )


def _legacy_bundle(text: bytes) -> JsonObject:
    value = json.loads(text.decode("utf-8"))
    if not isinstance(value, dict):
        raise CorruptRecord(None, "an archived bundle is not a JSON object")
    return value


def _from_bundle(bundle: JsonObject) -> tuple[ExportHead, list[StoredVersion]]:
    """A whole export bundle (every state) as an archive's head and versions."""
    try:
        states = sorted(bundle["states"], key=lambda state: int(state["version"]))
        texts = [
            (int(state["version"]), str(state["status"]), canonical_json(state["document"]))
            for state in states
        ]
        events = list(bundle["events"])
        if not texts or [row[0] for row in texts] != list(range(1, len(events) + 1)):
            raise ValueError("an archive needs every state of the game")
        full, patches = compact_history(texts)
        documents = {version: (status, text) for version, status, text in full}
        steps = {row[0]: (row[1], row[2]) for row in patches}
        snapshots = {row[0] for row in patches if row[3]}
        head = ExportHead(
            game=dict(bundle["game"]),
            members=list(bundle.get("members") or []),
            head_hash=str(bundle["head_hash"]),
            exported_at=format_timestamp(parse_timestamp(str(bundle["exported_at"]))),
            current=(texts[-1][1], texts[-1][2]),
        )
        versions = [
            StoredVersion.from_event(
                event,
                full=documents.get(int(event["seq"])),
                patch=steps.get(int(event["seq"])),
                snapshot=int(event["seq"]) in snapshots,
            )
            for event in events
        ]
    except (KeyError, TypeError, ValueError) as error:
        raise CorruptRecord(None, f"an archived bundle is unreadable ({error})") from error
    return head, versions


async def read_archive(
    store: Any, archive_id: int
) -> tuple[ExportHead, AsyncIterator[list[StoredVersion]]]:
    """An archive's head, and then its versions page by page, read in chunks from the
    store (`GameStore.archive_chunk`) and decoded on a worker thread."""
    reader = ArchiveReader()
    offset = 0
    early: list[StoredVersion] = []
    ended = False
    while reader.head is None:
        chunk = await store.archive_chunk(archive_id, offset, CHUNK_BYTES)
        if not chunk:
            early += await asyncio.to_thread(reader.close)
            ended = True
            break
        offset += len(chunk)
        early += await asyncio.to_thread(reader.feed, chunk)
    head = reader.head
    assert head is not None  # close() raises rather than leave it unset

    async def pages() -> AsyncIterator[list[StoredVersion]]:
        nonlocal offset
        if early:
            yield early
        if ended:
            return
        while True:
            chunk = await store.archive_chunk(archive_id, offset, CHUNK_BYTES)
            if not chunk:
                rest = await asyncio.to_thread(reader.close)
                if rest:
                    yield rest
                return
            offset += len(chunk)
            page = await asyncio.to_thread(reader.feed, chunk)
            if page:
                yield page

    return head, pages()


def bundle_of(blob: bytes) -> JsonObject:
    """An archive's whole export bundle, every state rebuilt (`GameStore.archived_export`:
    for copies between stores; an export reads the archive page by page instead)."""
    try:
        text = zlib.decompress(blob)
    except zlib.error as error:
        raise CorruptRecord(None, f"an archived bundle is damaged ({error})") from error
    if not text.startswith(_MAGIC):
        return _legacy_bundle(text)  # stored whole, as before arbitro.archive/2
    reader = ArchiveReader()
    versions = reader.feed(blob) + reader.close()
    head = reader.head
    assert head is not None
    walker = HistoryWalker(head.channel_id, head.version, verify=False)
    states: list[JsonObject] = []
    for version in versions:
        full = version.full
        if full is None and version.seq == head.version:
            full = head.current
        state = walker.step(version.seq, None, full, version.patch)
        if state is not None:
            states.append(
                {"version": version.seq, "status": state[0], "document": json.loads(state[1])}
            )
    return {
        "format": EXPORT_FORMAT,
        "exported_at": head.exported_at,
        "game": head.game,
        "members": head.members,
        "head_hash": head.head_hash,
        "events": [json.loads(version.event_json()) for version in versions],
        "states": states,
    }


__all__ = [
    "ARCHIVE_FORMAT",
    "CHUNK_BYTES",
    "ArchiveEncoder",
    "ArchiveReader",
    "archive_row",
    "build_archive",
    "bundle_of",
    "encode_bundle",
    "read_archive",
]
