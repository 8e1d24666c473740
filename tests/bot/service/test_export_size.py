"""Exports fit in a Discord message: events and resolutions, the first and current states,
compressed or split past the attachment limit, and still verifiable."""

from __future__ import annotations

import gzip
import json
import random

from bot.service import GameService, Request
from bot.service.export import ATTACHMENT_LIMIT, discard, fit, read_file, slim
from db.chain.hashing import verify_export
from db.models import NewEvent
from rules.core.ruleset import get_ruleset

REFEREE = 1


async def test_a_2000_event_game_exports_under_the_limit_and_verifies(store) -> None:
    service = GameService(store)
    await service.handle(
        Request(5, REFEREE, "game.new", {"scenario": "esempio_normandia", "language": "en"})
    )
    play = get_ruleset("manovra").play
    document = (await store.load(5)).document
    # A realistic event: a command with dice and a resolution as large as a heavy shot's.
    resolution = [{"procedure": "heavy_fire", "outcome": "hit", "steps": ["x" * 1500]}]
    version = 1
    for n in range(2000):
        turn = dict(document, turn=1 + n // 50)  # the document changes as play goes on
        committed = await store.commit(
            5,
            version,
            turn,
            NewEvent(
                verb="fire", args={"unit": "sherman_1", "n": n}, dice=[3, 7], resolution=resolution
            ),
        )
        version = committed.version
    reply = await service.handle(Request(5, REFEREE, "game.export", {}))
    sizes = {name: len(read_file(content)) for name, content in reply.files.items()}
    assert all(size <= ATTACHMENT_LIMIT for size in sizes.values()), sizes
    if "arbitro-log.json" in reply.files:
        raw = read_file(reply.files["arbitro-log.json"])
    else:
        raw = gzip.decompress(read_file(reply.files["arbitro-log.json.gz"]))
    discard(reply.spool)
    data = json.loads(raw)
    assert len(data["events"]) == 2001 and len(data["states"]) == 2
    assert verify_export(data) == data["head_hash"]
    assert play is not None


def test_a_file_past_the_limit_is_compressed_then_split() -> None:
    small = fit("a.json", b"{}", limit=100)
    assert small == {"a.json": b"{}"}
    repetitive = b'{"x": "' + b"ab" * 5000 + b'"}'
    packed = fit("a.json", repetitive, limit=1000)
    assert list(packed) == ["a.json.gz"] and gzip.decompress(packed["a.json.gz"]) == repetitive
    noisy = random.Random(1).randbytes(10_000)  # does not compress
    parts = fit("a.json", noisy, limit=1000)
    assert len(parts) > 1 and all(len(p) <= 1000 for p in parts.values())
    assert next(iter(parts)) == "a.part01.json.gz"
    assert gzip.decompress(b"".join(parts.values())) == noisy


def test_a_slim_export_is_refused_if_a_kept_state_was_edited() -> None:
    import pytest

    from db.errors import ChainBroken

    assert slim({"states": [], "events": []})["states_kept"] == "first_and_current"
    with pytest.raises(ChainBroken):
        verify_export(
            {
                "game": {"version": 1},
                "events": [],
                "states": [{"version": 1}],
                "states_kept": "first_and_current",
                "head_hash": "",
            }
        )
