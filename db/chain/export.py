"""Export bundles written as the history is read: bounded memory for a log of any length.

The bundle is the one `ExportBundle.to_json_dict` describes (``arbitro.export/1``, checked
by `db.chain.hashing.verify_export`): the game, its members, the head hash, every event, and the
states kept — every one (``arbitro db export``) or the first and the current one (``/game
export``, marked ``"states_kept": "first_and_current"``). It is written page by page
(`db.chain.history`): an event is copied from the very texts the chain hashed, one per line, and
each state is rebuilt from the previous one and its patch, so the memory needed is a page
of events and one document, whatever the game's length. Every event is checked against
the chain and every state against its event while it is written (`VersionCheck`); a
failure leaves no file behind.

The reading is the store's (its own thread or connection: one short job a page, so other
channels' commands pass between them) and the work on the texts runs on a worker thread:
the event loop only awaits. ``on_page`` lets a caller see each page on that thread (the
bot writes its after-action report from the same pages).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from db.chain.hashing import canonical_json
from db.chain.history import PAGE_VERSIONS, ExportHead, StoredVersion, VersionCheck
from db.models import EXPORT_FORMAT

StatesKept = Literal["all", "first_and_current"]
#: Sees each page of versions, on the worker thread, after it was written.
PageHook = Callable[[Sequence[StoredVersion]], None]


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What an export wrote: the game's channel, its events, its head and the file's size."""

    channel_id: int
    events: int
    head_hash: str
    size: int


class BundleWriter:
    """Writes one export bundle to a binary file, version by version.

    `begin` with the head, `add` every version in order, `finish`. With ``keep="all"``
    the states wait in a temporary file until the events are written (the bundle lists
    them after the events); the first and current states alone are kept in memory.
    """

    def __init__(self, out: IO[bytes], *, keep: StatesKept, verify: bool = True) -> None:
        self._out = out
        self._keep = keep
        self._verify = verify
        self._check: VersionCheck | None = None
        self._states: IO[bytes] | None = None
        self._kept: list[bytes] = []
        self._size = 0

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._size += len(data)

    def begin(self, head: ExportHead) -> None:
        """The bundle's opening: format, time, game, members, head hash."""
        self._check = VersionCheck(head, verify=self._verify)
        members = ",".join(f"\n  {_compact(member)}" for member in head.members)
        if members:
            members += "\n "
        self._write(
            (
                "{\n"
                f' "format": {canonical_json(EXPORT_FORMAT)},\n'
                f' "exported_at": {canonical_json(head.exported_at)},\n'
                f' "game": {_compact(head.game)},\n'
                f' "members": [{members}],\n'
                f' "head_hash": {canonical_json(head.head_hash)},\n'
                ' "events": ['
            ).encode()
        )
        if self._keep == "all":
            # Open until finish() or close(): it outlives this call.
            self._states = tempfile.TemporaryFile()  # noqa: SIM115

    def add(self, version: StoredVersion) -> None:
        """The next version: its event written, its state checked (and kept if asked)."""
        check = self._check
        if check is None:
            raise RuntimeError("begin() first")
        separator = "\n  " if check.count == 0 else ",\n  "
        state = check.state_of(version)
        self._write((separator + version.event_json()).encode("utf-8"))
        if state is None:
            return
        kept = self._keep == "all" or version.seq in (1, check.head.version)
        if not kept:
            return
        status, text = state
        line = (
            f'{{"version":{version.seq},"status":{canonical_json(status)},"document":{text}}}'
        ).encode()
        if self._states is not None:
            self._states.write(line if self._states.tell() == 0 else b",\n  " + line)
        else:
            self._kept.append(line)

    def finish(self) -> ExportSummary:
        """Check the head, write the states and close the bundle (not the file)."""
        check = self._check
        if check is None:
            raise RuntimeError("begin() first")
        check.finish()
        self._write(b"\n ],\n \"states\": [")
        if self._states is not None:
            if self._states.tell():
                self._write(b"\n  ")
                self._states.seek(0)
                while chunk := self._states.read(1 << 20):
                    self._write(chunk)
            self._states.close()
            self._states = None
            self._write(b"\n ]\n}\n")
        else:
            if self._kept:
                self._write(b"\n  " + b",\n  ".join(self._kept))
            self._write(b'\n ],\n "states_kept": "first_and_current"\n}\n')
        return ExportSummary(check.head.channel_id, check.count, check.head.head_hash, self._size)

    def close(self) -> None:
        """Drop the temporary states (after a failure)."""
        if self._states is not None:
            self._states.close()
            self._states = None


async def export_game(
    store: Any,
    channel_id: int,
    path: Path,
    *,
    keep: StatesKept,
    verify: bool = True,
    on_page: PageHook | None = None,
    head: ExportHead | None = None,
) -> ExportSummary:
    """Write the channel's game to ``path`` (a new file; none is left if this fails).

    ``store`` is a `db.protocol.GameStore`; ``head`` its `export_head`, when the caller
    read it already.
    """
    if head is None:
        head = await store.export_head(channel_id)
    return await write_bundle(
        head, history_pages(store, channel_id, head.version), path, keep=keep,
        verify=verify, on_page=on_page,
    )


async def history_pages(
    store: Any, channel_id: int, last: int
) -> AsyncIterator[list[StoredVersion]]:
    """The game's versions 1..``last``, page by page, as the store reads them."""
    after = 0
    while after < last:
        page = await store.history_page(channel_id, after, last, PAGE_VERSIONS)
        if not page:
            return  # the writer's check names what is missing
        yield page
        after = page[-1].seq


async def write_bundle(
    head: ExportHead,
    pages: AsyncIterator[Sequence[StoredVersion]],
    path: Path,
    *,
    keep: StatesKept,
    verify: bool = True,
    on_page: PageHook | None = None,
) -> ExportSummary:
    """Write a bundle from ``head`` and ``pages`` to ``path``, every write on a worker
    thread; through ``path.partial``, renamed at the end (removed on failure)."""
    partial = path.with_name(path.name + ".partial")
    handle = await asyncio.to_thread(partial.open, "wb")
    writer = BundleWriter(handle, keep=keep, verify=verify)

    def add(page: Sequence[StoredVersion]) -> None:
        for version in page:
            writer.add(version)
        if on_page is not None:
            on_page(page)

    def complete() -> ExportSummary:
        summary = writer.finish()
        handle.close()
        os.replace(partial, path)
        return summary

    try:
        await asyncio.to_thread(writer.begin, head)
        async for page in pages:
            await asyncio.to_thread(add, page)
        return await asyncio.to_thread(complete)
    except BaseException:
        close = getattr(pages, "aclose", None)  # stop the store's reading at once
        if close is not None:
            await close()
        await asyncio.to_thread(_discard, writer, handle, partial)
        raise


def _compact(value: Any) -> str:
    """One line of JSON, keys in their own order (the game's and members' fields)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _discard(writer: BundleWriter, handle: IO[bytes], partial: Path) -> None:
    writer.close()
    handle.close()
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()


def copy_file(source: Path, target: IO[bytes]) -> None:
    """Copy a written export to a stream (standard output), in chunks."""
    with source.open("rb") as handle:
        shutil.copyfileobj(handle, target, 1 << 20)


__all__ = [
    "BundleWriter",
    "ExportSummary",
    "PageHook",
    "StatesKept",
    "copy_file",
    "export_game",
    "history_pages",
    "write_bundle",
]
