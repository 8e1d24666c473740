"""``/game export``: the game's log as files that fit in a Discord message, written as the
history is read.

The JSON keeps what proves and replays the game: the game, its members, every event with its
dice and resolutions (the hash chain), and the first and current states — not every state in
between (each is the previous one after its event; ``arbitro db replay`` rebuilds them, and
the archive keeps them all). ``db.chain.hashing.verify_export`` checks the chain and the
states kept.
Beside it, the after-action report (Markdown): a line per event, each resolution spelt out.

Both files are written page by page (`db.chain.export`: a page of events and one document in
memory, whatever the game's length) into a spool directory, on worker threads. A file over
Discord's attachment limit is gzip-compressed; one still over it is split into numbered
parts, each a piece of the one ``.gz`` stream (join them, then decompress). Small files come
back as bytes; larger ones stay on disk (`ExportedFiles.files` maps a name to its bytes or
its path) until the front end has sent or saved them and calls `discard`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from db.chain.export import write_bundle
from db.chain.history import ExportHead, StoredVersion
from db.models import EventRecord
from rules.core.resolution import Resolution
from rules.render import render_resolution_text

#: Discord's attachment limit for a bot without boosts is 10 MiB; keep a margin.
ATTACHMENT_LIMIT = 10 * 1024 * 1024 - 256 * 1024
#: A file up to this size is handed over in memory; a larger one as a file on disk.
IN_MEMORY_BYTES = 1024 * 1024
JSON_NAME = "arbitro-log.json"
REPORT_NAME = "arbitro-report.md"
_COPY_CHUNK = 1024 * 1024

#: A file of a reply: its bytes, or the path of a spooled file.
FileContent = bytes | Path


@dataclass(frozen=True)
class Redaction:
    """An export for a reader who may not see everything (a side, or a spectator, in a
    ruleset whose units can be hidden): the events ``withheld`` (given an event's args)
    keep only the ``kept_args`` — who played which command — without options, dice or
    outcome. The game never carries its secret salt (``"state_salt"``, hashed into each
    state and each event: `db.chain.hashing`), only ``"salt_withheld": true``, so no guessed
    state nor guessed withheld command can be tested against a hash. With ``hides_states``
    no state is kept (a state says where every hidden unit is), and the events of a record
    stored before the salt (schema 12) carry no state's hash either: the events' own hashes
    still link into the chain (`db.chain.hashing.verify_links`), and in an unsalted record
    an event still whole is hashed again, but no state can be checked on such a file; the
    referee's export keeps everything (docs/integrity.md, "A seat's export")."""

    reader: str
    withheld: Callable[[Mapping[str, Any]], bool]
    kept_args: frozenset[str]
    #: Units can be hidden from the reader: the states and their hashes are left out even
    #: if no event is withheld.
    hides_states: bool = False
    #: Whether a part of an event the reader reads — a stored resolution or die — is kept
    #: from it (a side's own: a hidden squad's roll for a new leader). Such parts are left
    #: out without a trace where the record is salted (its events' contents are not checked
    #: on a seat's file, and a mark would tell that something hidden happened); an unsalted
    #: record's event is marked ``redacted`` (only linked, as its hash no longer checks).
    part_withheld: Callable[[Mapping[str, Any]], bool] = lambda _part: False

    def event(self, event: dict[str, Any], *, salted: bool = False) -> dict[str, Any]:
        """An event of the bundle as this reader may see it (``salted``: its record's
        states are hashed with a salt the reader does not get)."""
        if self.hides_states and not salted:
            event = {key: value for key, value in event.items() if key != "state_hash"}
        args = event.get("args")
        if not isinstance(args, dict) or not self.withheld(args):
            return self._parts_of(event, salted)
        kept = {k: v for k, v in args.items() if k in self.kept_args}
        return {**event, "args": kept, "dice": [], "resolution": [], "redacted": True}

    def readable(self, parts: Any) -> list[Any]:
        """The resolutions or dice of an event the reader may read."""
        return [
            part
            for part in parts or []
            if not (isinstance(part, Mapping) and self.part_withheld(part))
        ]

    def _parts_of(self, event: dict[str, Any], salted: bool) -> dict[str, Any]:
        """``event`` without the resolutions and dice kept from the reader (itself if none
        is)."""
        shown = {
            "dice": self.readable(event.get("dice")),
            "resolution": self.readable(event.get("resolution")),
        }
        if all(len(shown[key]) == len(event.get(key) or []) for key in shown):
            return event
        return {**event, **shown, **({} if salted else {"redacted": True})}


@dataclass
class ExportedFiles:
    """An export's files by name, the spool directory holding the large ones (None when
    every file is in memory), how many events it holds, and whether it was redacted."""

    files: dict[str, FileContent]
    spool: Path | None
    events: int
    #: Written for a reader who may not see everything, with something left out.
    redacted: bool = False


def slim(data: dict[str, Any]) -> dict[str, Any]:
    """An in-memory export without the states between the first and the current one."""
    states = data.get("states") or []
    kept = [states[0], states[-1]] if len(states) > 1 else list(states)
    return {**data, "states": kept, "states_kept": "first_and_current"}


def fit(name: str, content: bytes, limit: int | None = None) -> dict[str, bytes]:
    """``name`` as it can be attached: as is, gzip-compressed, or in numbered parts."""
    limit = ATTACHMENT_LIMIT if limit is None else limit
    if len(content) <= limit:
        return {name: content}
    packed = gzip.compress(content, compresslevel=9, mtime=0)
    if len(packed) <= limit:
        return {f"{name}.gz": packed}
    parts: dict[str, bytes] = {}
    for index, start in enumerate(range(0, len(packed), limit), start=1):
        parts[_part_name(name, index)] = packed[start : start + limit]
    return parts


def _part_name(name: str, index: int) -> str:
    stem, dot, extension = name.rpartition(".")
    return f"{stem}.part{index:02d}{dot}{extension}.gz"


def fit_file(path: Path, limit: int | None = None) -> dict[str, Path]:
    """The file at ``path`` as it can be attached (the same as `fit`, on disk, in
    chunks): itself, a ``.gz`` beside it, or numbered parts of that ``.gz``."""
    limit = ATTACHMENT_LIMIT if limit is None else limit
    if path.stat().st_size <= limit:
        return {path.name: path}
    packed = path.with_name(path.name + ".gz")
    with (
        path.open("rb") as source,
        packed.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0, filename="") as out,
    ):
        shutil.copyfileobj(source, out, _COPY_CHUNK)
    path.unlink()
    if packed.stat().st_size <= limit:
        return {packed.name: packed}
    parts: dict[str, Path] = {}
    with packed.open("rb") as source:
        index = 1
        while True:
            part = path.with_name(_part_name(path.name, index))
            if not _copy_part(source, part, limit):
                break
            parts[part.name] = part
            index += 1
    packed.unlink()
    return parts


def _copy_part(source: IO[bytes], target: Path, limit: int) -> bool:
    """Copy up to ``limit`` bytes of ``source`` into a new file ``target``; false (and no
    file) at the end of ``source``."""
    chunk = source.read(min(limit, _COPY_CHUNK))
    if not chunk:
        return False
    with target.open("wb") as out:
        written = 0
        while chunk:
            out.write(chunk)
            written += len(chunk)
            chunk = source.read(min(limit - written, _COPY_CHUNK)) if written < limit else b""
    return True


class ReportWriter:
    """The after-action report (Markdown), written from the export's pages as they pass.

    ``line_of`` tells an event as the log does (the service's ``event_line``, with the
    game's ruleset, language and sides); each resolution is spelt out below its event, then
    what ``details_of`` adds (the game's result, below the event that ended it).
    """

    def __init__(
        self,
        out: IO[bytes],
        title: str,
        language: str,
        line_of: Callable[[EventRecord], str],
        details_of: Callable[[EventRecord], list[str]] | None = None,
        redaction: Redaction | None = None,
    ) -> None:
        self._out = out
        self._language = language
        self._line_of = line_of
        self._details_of = details_of
        self._redaction = redaction
        self.events = 0
        self._out.write(f"# {title}\n\n".encode())

    def add(self, page: Sequence[StoredVersion]) -> None:
        """The page's events, told."""
        for version in page:
            event = version.event()
            lines = ["## " + self._line_of(event)]
            redaction = self._redaction
            withheld = redaction is not None and redaction.withheld(event.args or {})
            items = event.resolution if redaction is None else redaction.readable(event.resolution)
            for item in [] if withheld else items or []:
                if isinstance(item, dict) and "outcome" in item:
                    try:
                        text = render_resolution_text(Resolution.from_json(item), self._language)
                    except (ValueError, TypeError, KeyError):
                        continue
                    lines += ["```", text, "```"]
            details = self._details_of(event) if self._details_of is not None else []
            if details:
                lines += ["", *details]
            lines.append("")
            self._out.write(("\n".join(lines) + "\n").encode())
            self.events += 1

    def finish(self, head_hash: str) -> None:
        """The closing line: the hash of the chain's head."""
        self._out.write(f"hash: `{head_hash}`".encode())


async def export_files(
    head: ExportHead,
    pages: AsyncIterator[Sequence[StoredVersion]],
    *,
    title: str,
    language: str,
    line_of: Callable[[EventRecord], str],
    details_of: Callable[[EventRecord], list[str]] | None = None,
    limit: int | None = None,
    spool_root: Path | None = None,
    redaction: Redaction | None = None,
) -> ExportedFiles:
    """The verifiable JSON and the report of the game whose ``head`` and ``pages`` are
    given (`db.chain.export.history_pages`, `db.chain.archive.read_archive`), fitted to ``limit``;
    ``line_of`` and ``details_of`` tell each event in the report (`ReportWriter`);
    with a ``redaction``, both as its reader may see them (the JSON is written and checked
    whole, then rewritten without what the reader may not see)."""
    spool = Path(
        await asyncio.to_thread(tempfile.mkdtemp, prefix="arbitro-export-", dir=spool_root)
    )
    try:
        report_path = spool / REPORT_NAME
        handle = await asyncio.to_thread(report_path.open, "wb")
        try:
            report = ReportWriter(handle, title, language, line_of, details_of, redaction)
            summary = await write_bundle(
                head, pages, spool / JSON_NAME, keep="first_and_current", on_page=report.add
            )
            redacted = redaction is not None and await asyncio.to_thread(
                redact_bundle, spool / JSON_NAME, redaction
            )
            await asyncio.to_thread(report.finish, summary.head_hash)
        finally:
            await asyncio.to_thread(handle.close)
        files = await asyncio.to_thread(_fitted, spool, limit)
    except BaseException:
        await asyncio.to_thread(shutil.rmtree, spool, True)
        raise
    exported = ExportedFiles(files=files, spool=spool, events=summary.events, redacted=redacted)
    if all(isinstance(content, bytes) for content in files.values()):
        await asyncio.to_thread(shutil.rmtree, spool, True)
        exported.spool = None
    return exported


def redact_bundle(path: Path, redaction: Redaction) -> bool:
    """Rewrite the bundle at ``path`` for ``redaction``'s reader, line by line (the bundle
    has one event a line, `db.chain.export`): the game without its salt (marked
    ``"salt_withheld"``), the withheld events stripped, no state kept. Whether anything was
    withheld (if not, and ``hides_states`` is false, the bundle keeps its states; without
    the salt, its events' links are what `db.chain.hashing.verify_links` checks)."""
    redacted = path.with_name(path.name + ".redacted")
    withheld = redaction.hides_states
    salted = False
    with path.open("rb") as source, redacted.open("wb") as out:
        for raw in source:
            if raw.startswith(_GAME_LINE):
                game = json.loads(raw.strip().removeprefix(_GAME_LINE.strip()).rstrip(b","))
                salted = game.pop("state_salt", None) is not None
                if salted:  # its events' hashes cover the salt: only their links are checked
                    game["salt_withheld"] = True
                raw = _GAME_LINE + _compact(game).encode() + b",\n"
            out.write(raw)
            if raw.rstrip().endswith(b'"events": ['):
                break
        first = True
        for raw in source:
            line = raw.strip()
            if line.startswith(b"]"):
                break
            event = json.loads(line.removesuffix(b","))
            shown = redaction.event(event, salted=salted)
            withheld = withheld or shown is not event
            text = json.dumps(shown, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            out.write((("\n  " if first else ",\n  ") + text).encode())
            first = False
        if withheld:
            closing = {"states": [], "states_kept": "none", "redacted_for": redaction.reader}
            tail = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in closing.items())
            out.write(("\n ],\n" + tail + "\n}\n").encode())
        elif salted:  # the states kept as written, the file marked as a seat's
            out.write(b"\n" + raw)
            rest = source.read().rstrip()
            marked = f',\n "redacted_for": {json.dumps(redaction.reader)}\n}}\n'
            out.write(rest.removesuffix(b"}").rstrip() + marked.encode())
    if withheld or salted:
        redacted.replace(path)
    else:
        redacted.unlink()
    return withheld


#: The line of a bundle holding its game (`db.chain.export.BundleWriter.begin`).
_GAME_LINE = b' "game": '


def _compact(value: Any) -> str:
    """A JSON object on one line, keys in their own order, as `db.chain.export` writes the game."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _fitted(spool: Path, limit: int | None) -> dict[str, FileContent]:
    return fitted_files(spool, (JSON_NAME, REPORT_NAME), limit)


def fitted_files(
    spool: Path, names: tuple[str, ...], limit: int | None = None
) -> dict[str, FileContent]:
    """The spooled files ``names`` as they can be attached (`fit_file`): those of at most
    `IN_MEMORY_BYTES` read back as bytes, the others left as paths in the spool."""
    files: dict[str, FileContent] = {}
    for name in names:
        for fitted, path in fit_file(spool / name, limit).items():
            if path.stat().st_size <= IN_MEMORY_BYTES:
                files[fitted] = path.read_bytes()
                path.unlink()
            else:
                files[fitted] = path
    return files


def read_file(content: FileContent) -> bytes:
    """A reply file's bytes (reading a spooled one: for tests and small files only)."""
    return content if isinstance(content, bytes) else content.read_bytes()


def discard(spool: Path | None) -> None:
    """Remove an export's spool directory once its files were sent or saved."""
    if spool is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(spool)


__all__ = [
    "ATTACHMENT_LIMIT",
    "IN_MEMORY_BYTES",
    "ExportedFiles",
    "FileContent",
    "Redaction",
    "ReportWriter",
    "discard",
    "export_files",
    "fit",
    "fit_file",
    "fitted_files",
    "read_file",
    "redact_bundle",
    "slim",
]
