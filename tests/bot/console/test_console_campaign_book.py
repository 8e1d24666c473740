"""A bundled campaign at the console table, for every ruleset: ``/campaign new book:``, three
games each taking the book's next scenario (no ``scenario:`` typed), ended by the referee,
each one's aftermath rolled and validated by the referee before the next is linked,
the map's holders and the standings in ``/campaign status``, and ``/campaign export``
saved beside the database (the report and the log)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from bot.console.table import Console
from bot.service import GameService
from rules.campaign.book import book_files, load_book
from rules.campaign.state import CampaignState, standings
from rules.campaign.story import holders
from rules.core.ruleset import KNOWN_RULESETS


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
async def test_a_bundled_campaign_of_three_games_at_the_console(
    store, tmp_path: Path, ruleset: str
) -> None:
    book = load_book(ruleset, next(iter(book_files(ruleset))))
    first = second = sorted({area.holder for area in book.areas})[0]
    out = io.StringIO()
    console = Console(GameService(store), out, language="en", files_dir=tmp_path)
    script = [
        f"/campaign new ruleset:{ruleset} name:Book book:{book.id} language:en",
        "/campaign game channel:2 by:2999-01-01",  # too far ahead: refused
        "/campaign game channel:2",
        "/channel 2",
        f"/game end result:{first} reason:held",
        "/channel 1",
        "/campaign game channel:3",  # game 1 owes its aftermath: refused
        "/campaign aftermath game:1",
        "/campaign confirm game:1",  # the referee validates it for both sides
        "/campaign game channel:3",
        "/channel 3",
        "/game end result:draw reason:night",
        "/channel 1",
        "/campaign aftermath game:2",
        "/campaign confirm game:2",
        "/campaign game channel:4",
        "/channel 4",
        f"/game end result:{second} reason:held",
        "/channel 1",
        "/campaign status",
        "/campaign export",
    ]
    errors = await console.run(script, interactive=False)
    text = out.getvalue()
    assert errors == 2, text
    assert "Game 1 still owes its aftermath: each side rolls its own" in text
    assert "Traceback" not in text
    state = CampaignState.from_json((await store.load(1)).document)
    assert [g.scenario for g in state.games] == [s.scenario for s in book.scenarios[:3]]
    assert [g.result.winner for g in state.games if g.result] == [first, None, second]
    top = standings(state)[0]
    assert (top.side, top.wins, top.draws) == (first, 2, 1)
    # The areas of games 1 and 3 went to their winner; game 2's (a draw) stayed.
    held = holders(state)
    start = {area.id: area.holder for area in book.areas}
    for step, winner in zip(book.scenarios[:3], [first, None, second], strict=True):
        if step.area is not None:
            assert held[step.area] == (winner or start[step.area])
    assert "Map:" in text and "held by" in text
    saved = sorted(path.name for path in await asyncio.to_thread(tmp_path.iterdir))
    reports = [tmp_path / n for n in saved if n.startswith("1-") and n.endswith("report.md")]
    logs = [tmp_path / n for n in saved if n.startswith("1-") and n.endswith("log.json")]
    assert len(reports) == 1 and len(logs) == 1, text
    # The console draws the campaign's map from the export's data and saves it beside them.
    maps = [tmp_path / n for n in saved if n.startswith("1-") and n.endswith("campaign-map.png")]
    assert len(maps) == 1 and maps[0].read_bytes().startswith(b"\x89PNG"), saved
    report = reports[0].read_text("utf-8")
    for channel in (2, 3, 4):
        assert (await store.load(channel)).head_hash in report
    assert len(json.loads(logs[0].read_text("utf-8"))["events"]) == (await store.load(1)).version
