"""The front ends write ``/campaign export``'s after-action report from the reply's data:
first among the files, the events read from the spool a line at a time, people named as
they played, in the campaign's language; a reply without a report goes as it is."""

from __future__ import annotations

from typing import Any

import pytest

from bot.render.campaign_report import REPORT_FILE, report_text, with_report
from bot.service.export import discard, read_file
from bot.service.replies import FilesReply, TextReply
from rules.core.i18n import translate
from tests.bot.service.campaign.test_commands import ANNA, CAMPAIGN, OUTSIDER, REFEREE, Table


async def _exported(table: Table, language: str) -> Any:
    await table(
        CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language=language
    )
    await table.seat(ANNA, "legione")  # her name recorded as she joined
    await table(CAMPAIGN, ANNA, "roll", expression="2d6")
    return await table(CAMPAIGN, OUTSIDER, "campaign.export")


async def test_the_report_is_written_first_from_the_events_in_the_spool(any_store: Any) -> None:
    table = Table(any_store)
    exported = await _exported(table, "en")
    report = exported.campaign_report
    written = await with_report(exported)
    try:
        assert isinstance(written, FilesReply) and written.campaign_report is None
        assert list(written.files) == [REPORT_FILE, "campaign-log.json"]
        assert not report.events.exists()  # the events' spool file is the front end's to drop
        text = read_file(written.files[REPORT_FILE]).decode()
        events = await table.campaign_events()
        assert text == report_text(report, events, "en")
        assert text.startswith("# Orbita\n")
        assert f"user{ANNA} — free dice 2d6" in text and "<@" not in text
        listed = [line for line in text.splitlines() if line.startswith("- #")]
        assert [line.split()[1] for line in listed] == [f"#{event.seq}" for event in events]
        head = (await any_store.load(CAMPAIGN)).head_hash
        assert text.endswith(translate("bot.campaign.report.head", "en", hash=head) + "\n")
    finally:
        discard(written.spool)


async def test_the_report_is_in_the_campaigns_language(any_store: Any) -> None:
    exported = await _exported(Table(any_store), "fr")
    written = await with_report(exported)
    try:
        text = read_file(written.files[REPORT_FILE]).decode()
        assert f"## {translate('bot.campaign.report.log', 'fr')}\n" in text
        assert translate("bot.campaign.report.log", "fr") != translate(
            "bot.campaign.report.log", "en"
        )
    finally:
        discard(written.spool)


async def test_a_reply_without_a_report_goes_as_it_is() -> None:
    plain = TextReply(language="en")
    assert await with_report(plain) is plain
    files = FilesReply(language="en", files={"x.json": b"{}"})
    assert await with_report(files) is files


async def test_a_report_that_cannot_be_written_leaves_the_log_to_go(
    any_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Writing the report fails (its events' file gone): logged, the reply goes with the
    log's file alone, its spool still named for the front end to remove."""
    exported = await _exported(Table(any_store), "en")
    exported.campaign_report.events.unlink()
    written = await with_report(exported)
    try:
        assert isinstance(written, FilesReply) and written.campaign_report is None
        assert list(written.files) == ["campaign-log.json"]
        assert written.spool == exported.spool
        assert "could not write the report of campaign 'Orbita'" in caplog.text
    finally:
        discard(written.spool)
