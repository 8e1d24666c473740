"""``/campaign new book:`` makes the campaign and its book in one commit, on both store
backends: a store whose every later commit fails (a crash right after the campaign's
record is made) still leaves a campaign with its book, and the log says so in one event."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from rules.campaign.events import CampaignCreated, event_of
from rules.campaign.state import replay
from tests.bot.service.campaign.test_commands import CAMPAIGN, REFEREE, Table


async def test_a_book_campaign_is_made_whole_in_one_commit(
    any_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(any_store)

    async def crashed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the process stopped here")

    # Only the campaign's record may be written: any further commit would be lost.
    monkeypatch.setattr(any_store, "commit", crashed)
    created = await table(
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        ruleset="w40k4",
        name="Valle",
        language="en",
        book="crociata_valle",
    )
    assert [n.key for n in created.notices] == ["bot.campaign.created", "bot.campaign.book.opened"]
    monkeypatch.undo()
    state = await table.campaign()
    assert state.book is not None and state.book.book == "crociata_valle"
    events = await table.campaign_events()
    assert len(events) == 1  # the created event carries the book
    first = event_of(events[0].args["campaign"])
    assert isinstance(first, CampaignCreated) and first.book is not None
    assert replay(event_of(e.args["campaign"]) for e in events) == state
    shown = reply_text(await table(CAMPAIGN, REFEREE, "campaign.log"))
    line = "campaign «Valle» created (w40k4); the campaign follows «The crusade of the valley»"
    assert line in shown
