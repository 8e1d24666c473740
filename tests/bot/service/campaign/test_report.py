"""The after-action report worth sharing, and ``/campaign log``: players by the names they
played under, units by name, how a game ended in words, every aftermath die and fate, the
final rosters and the winner; a free roll in the campaign's channel is listed as every
other event the head hash covers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.console.render_text import reply_text
from bot.render.campaign_report import with_report
from bot.service.export import discard
from db.drivers.sqlite import SqliteStore
from rules.campaign.events import CampaignResult
from rules.campaign.report import losses_text
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    OUTSIDER,
    REFEREE,
    Table,
    settle,
)


@pytest.fixture()
async def played(tmp_path: Path) -> AsyncIterator[Table]:
    """A book campaign whose first game was decided and settled, then ended; a free roll
    made in its channel before the game."""
    store = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    try:
        yield await _play(Table(store))
    finally:
        await store.close()


async def _play(table: Table) -> Table:
    await table(
        CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Valle", language="en",
        book="crociata_valle",
    )  # fmt: skip
    for user, side in ((ANNA, "legione"), (BRUNO, "predoni")):  # seats by consent
        await table(CAMPAIGN, REFEREE, "campaign.invite", user=user, side=side)
        await table(CAMPAIGN, user, "campaign.join", side=side)
    await table(CAMPAIGN, ANNA, "roll", expression="2d6")  # a free roll in the campaign's channel
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    await settle(table, 1, by_players=False)
    await table(CAMPAIGN, REFEREE, "campaign.end")
    return table


async def test_the_report_names_people_outcomes_rosters_and_the_winner(played: Table) -> None:
    exported = await with_report(await played(CAMPAIGN, OUTSIDER, "campaign.export"))
    report = exported.files["campaign-report.md"].decode()
    discard(exported.spool)  # the files are bytes: the spool goes
    assert "<@" not in report  # nobody as a mention id
    assert f"- Astral Legion: user{ANNA}" in report
    assert "**Campaign won by Raiders, 3 points.**" in report
    assert "(by the referee's decision)" in report and "(decision)" not in report
    assert "  - aftermath:" in report and "    - Raiders, " in report
    assert "## Final rosters" in report and "- Roster of Raiders (" in report


async def test_a_free_roll_is_listed_by_the_export_and_the_log(played: Table) -> None:
    events = await played.campaign_events()
    roll = next(e for e in events if e.verb == "roll")
    exported = await with_report(await played(CAMPAIGN, OUTSIDER, "campaign.export"))
    report = exported.files["campaign-report.md"].decode()
    discard(exported.spool)  # the files are bytes: the spool goes
    listed = [line for line in report.splitlines() if line.startswith("- #")]
    assert len(listed) == len(events) == dict(exported.notices[0].params)["events"]
    assert f"user{ANNA} — free dice 2d6" in report and f"`{roll.hash}`" in report
    log = reply_text(await played(CAMPAIGN, OUTSIDER, "campaign.log", count=50))
    # Named as the log names everyone, not as a mention id.
    assert f"\n#{roll.seq} user{ANNA} — free dice 2d6" in log


async def test_losses_name_their_units(played: Table) -> None:
    state = await played.campaign()
    entry = state.rosters["legione"].entries[0]
    result = CampaignResult(
        number=1, winner=None, scores={}, ending="turn_limit", final_hash="0" * 64,
        losses={"legione": {entry.id: 2}},
    )  # fmt: skip
    assert losses_text(state, result, "en") == "Astral Legion: Tactical Squad 2"
    assert losses_text(state, result, "fr").startswith("Légion astrale\u202f: Escouade tactique 2")
