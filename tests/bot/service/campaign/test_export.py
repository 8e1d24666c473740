"""``/campaign export`` of a long log: written page by page at any length (it was refused
past 5,000 events), the JSON byte for byte what ``json.dumps`` of the whole export gives
and the report listing every event, on both store backends."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

from bot.render.campaign_report import report_text, with_report
from bot.service.export import discard, read_file
from bot.service.replies import CampaignReport, FilesReply
from db.models import NewEvent
from rules.campaign.state import CampaignState
from tests.bot.service.campaign.test_commands import CAMPAIGN, OUTSIDER, REFEREE, Table

#: Past the old limit of 5,000 events, and a fifth of it.
LONG, SHORT = 5_050, 1_010


async def test_a_campaign_log_past_five_thousand_events_is_exported_whole(
    any_store: Any,
) -> None:
    table = Table(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    # Once while short: what a first export loads (catalogues, modules) is not the log's.
    discard((await table(CAMPAIGN, OUTSIDER, "campaign.export")).spool)
    record = await any_store.load(CAMPAIGN)
    created = (await table.campaign_events())[0]
    # The log grows by campaign events the state already folds (the creation's, again):
    # what the export reads is the log, whatever its events say.
    version = record.version

    async def grow_to(length: int) -> None:
        nonlocal version
        while version < length:
            event = NewEvent(
                verb="campaign.created", args=created.args, interaction_id=f"long{version}"
            )
            version = (await any_store.commit(CAMPAIGN, version, record.document, event)).version

    await grow_to(SHORT)
    short_peak, short = await peak_of(table)
    discard(short.spool)
    await grow_to(LONG)
    long_peak, exported = await peak_of(table)
    try:
        log = read_file(exported.files["campaign-log.json"])
        report = read_file(exported.files["campaign-report.md"]).decode()
    finally:
        discard(exported.spool)
    events = await any_store.events(CAMPAIGN, after_seq=0, limit=1000)
    head = (await any_store.load(CAMPAIGN)).head_hash
    data = json.loads(log)
    assert [event["seq"] for event in data["events"]] == list(range(1, LONG + 1))
    state = CampaignState.from_json(record.document)
    everything: list[Any] = []
    while len(everything) < LONG:
        everything += await any_store.events(CAMPAIGN, after_seq=len(everything), limit=1000)
    whole = {
        "format": "arbitro-campaign-export/1",
        "channel_id": CAMPAIGN,
        "head_hash": head,
        "state": state.to_json(),
        "events": [event.to_json_dict() for event in everything],
    }
    assert log == json.dumps(whole, ensure_ascii=False).encode()
    assert report == report_text(CampaignReport(state, True, head or "", Path()), everything, "en")
    assert report.count(f"`{events[0].hash}`") == 1 and f"- #{LONG} " in report
    # A page of events at a time: five times the log, not five times the memory.
    assert long_peak < 2 * short_peak, (short_peak, long_peak)


async def peak_of(table: Table) -> tuple[int, Any]:
    """The export's peak of Python memory, and the export."""
    tracemalloc.start()
    try:
        exported = await with_report(await table(CAMPAIGN, OUTSIDER, "campaign.export"))
        return tracemalloc.get_traced_memory()[1], exported
    finally:
        tracemalloc.stop()


async def test_the_service_gives_the_report_as_data_and_writes_no_text(any_store: Any) -> None:
    """The service builds no report: its reply carries the log as a file and the report as
    a typed value (the state, where it is played, the head hash, the events as stored, one a
    line), which the front ends write; the log's file is the same events."""
    table = Table(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita", language="en")
    await table(CAMPAIGN, OUTSIDER, "roll", expression="2d6")
    exported = await table(CAMPAIGN, OUTSIDER, "campaign.export")
    try:
        assert isinstance(exported, FilesReply) and list(exported.files) == ["campaign-log.json"]
        report = exported.campaign_report
        assert isinstance(report, CampaignReport)
        record = await any_store.load(CAMPAIGN)
        assert report.state == CampaignState.from_json(record.document)
        assert (report.in_guild, report.head) == (True, record.head_hash)
        assert report.events.parent == exported.spool
        stored = [json.loads(line) for line in report.events.read_text("utf-8").splitlines()]
        events = await table.campaign_events()
        assert stored == [event.to_json_dict() for event in events]
        assert json.loads(read_file(exported.files["campaign-log.json"]))["events"] == stored
    finally:
        discard(exported.spool)
