"""The after-action report worth sharing, and ``/campaign log``: players by the names they
played under, units by name, how a game ended in words, every aftermath die and fate, the
final rosters and the winner; a free roll in the campaign's channel is listed as every
other event the head hash covers."""

from __future__ import annotations

from pathlib import Path

from bot.render_text import reply_text
from bot.service.campaign.report import losses_text
from db.sqlite import SqliteStore
from rules.core.campaign import ResultEntered
from tests.bot.service.test_campaigns import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    OUTSIDER,
    REFEREE,
    Table,
    settle,
)


async def _played(tmp_path: Path) -> tuple[Table, SqliteStore]:
    store = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    table = Table(store)
    await table(
        CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Valle", language="en",
        book="crociata_valle",
    )  # fmt: skip
    await table(CAMPAIGN, ANNA, "campaign.join", side="legione")
    await table(CAMPAIGN, BRUNO, "campaign.join", side="predoni")
    await table(CAMPAIGN, ANNA, "roll", expression="2d6")  # a free roll in the campaign's channel
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    await settle(table, 1, by_players=False)
    await table(CAMPAIGN, REFEREE, "campaign.end")
    return table, store


async def test_the_report_names_people_outcomes_rosters_and_the_winner(tmp_path: Path) -> None:
    table, store = await _played(tmp_path)
    try:
        exported = await table(CAMPAIGN, OUTSIDER, "campaign.export")
        report = exported.files["campaign-report.md"].decode()
        assert "<@" not in report  # nobody as a mention id
        assert f"- Legione Astrale: user{ANNA}" in report
        assert "**Campaign won by Predoni, 3 points.**" in report
        assert "(by the referee's decision)" in report and "(decision)" not in report
        assert "  - aftermath:" in report and "    - Predoni, " in report
        assert "## Final rosters" in report and "- Roster of Predoni (" in report
    finally:
        await store.close()


async def test_a_free_roll_is_listed_by_the_export_and_the_log(tmp_path: Path) -> None:
    table, store = await _played(tmp_path)
    try:
        events = await table.campaign_events()
        roll = next(e for e in events if e.verb == "roll")
        exported = await table(CAMPAIGN, OUTSIDER, "campaign.export")
        report = exported.files["campaign-report.md"].decode()
        listed = [line for line in report.splitlines() if line.startswith("- #")]
        assert len(listed) == len(events) == dict(exported.notices[0].params)["events"]
        assert f"user{ANNA} — free dice 2d6" in report and f"`{roll.hash}`" in report
        log = reply_text(await table(CAMPAIGN, OUTSIDER, "campaign.log", count=50))
        assert f"\n#{roll.seq} <@{ANNA}> — free dice 2d6" in log
    finally:
        await store.close()


async def test_losses_name_their_units(tmp_path: Path) -> None:
    table, store = await _played(tmp_path)
    try:
        state = await table.campaign()
        entry = state.rosters["legione"].entries[0]
        result = ResultEntered(
            number=1, winner=None, scores={}, ending="turn_limit", final_hash="0" * 64,
            losses={"legione": {entry.id: 2}},
        )  # fmt: skip
        assert losses_text(state, result, "en") == f"Legione Astrale: {entry.name} 2"
    finally:
        await store.close()
