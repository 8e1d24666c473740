"""``/game export``: the game's log as files that fit in a Discord message.

The JSON keeps what proves and replays the game: the game, its members, every event with its
dice and resolutions (the hash chain), and the first and current states — not every state in
between (each is the previous one after its event; ``arbitro db replay`` rebuilds them, and
the archive keeps them all). ``db.hashing.verify_export`` checks the chain and the states kept.
A file over Discord's attachment limit is gzip-compressed; one still over it is split into
numbered parts, each a valid JSON file whose events continue the previous part's chain.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

#: Discord's attachment limit for a bot without boosts is 10 MiB; keep a margin.
ATTACHMENT_LIMIT = 10 * 1024 * 1024 - 256 * 1024


def slim(data: dict[str, Any]) -> dict[str, Any]:
    """The export without the states between the first and the current one."""
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
    stem, dot, extension = name.rpartition(".")
    for index, start in enumerate(range(0, len(packed), limit), start=1):
        parts[f"{stem}.part{index:02d}{dot}{extension}.gz"] = packed[start : start + limit]
    return parts


def json_files(data: dict[str, Any], limit: int | None = None) -> dict[str, bytes]:
    """The export's JSON file(s)."""
    text = json.dumps(slim(data), ensure_ascii=False, indent=1).encode("utf-8")
    return fit("arbitro-log.json", text, limit)
