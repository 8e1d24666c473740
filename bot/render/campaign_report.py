"""``/campaign export``'s after-action report, written by the front ends from the reply's
data (`bot.service.replies.CampaignReport`), for both front ends alike.

The report's words are `rules.campaign.report`'s (through the catalogue), an event of the
channel that is not the campaign's (a free roll) told as a game's log tells it. People are
named as they played (each event records its actor's name), so the head, which names the
players, is written once the whole log was read: the log's lines wait in a body file
meanwhile, and the events are read from the spool a line at a time, so a log of any length
takes one event in memory. The file is fitted to Discord's attachment limit like the log.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bot.service.campaign import CAMPAIGN_ARG
from bot.service.campaign.report import other_event_text
from bot.service.events import people, plain_mentions
from bot.service.export import fitted_files
from bot.service.replies import CampaignReport, FilesReply, Reply
from db.models import EventRecord
from rules.campaign.events import event_of
from rules.campaign.report import report_entry, report_head, report_tail
from rules.campaign.state import CampaignState
from rules.campaign.text import log_text

log = logging.getLogger(__name__)

#: The report's file, attached first.
REPORT_FILE = "campaign-report.md"
_BODY = "campaign-report.body"


def report_entry_line(
    state: CampaignState, event: EventRecord, language: str, in_guild: bool
) -> str:
    """The report's line of one event of the campaign's log."""
    data: Any = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
    if isinstance(data, dict):
        text = log_text(state, event_of(data), language, in_guild)
    else:
        text = other_event_text(state, event, language)
    return report_entry(event.seq, event.created_at, text, event.hash)


def report_text(report: CampaignReport, events: Iterable[EventRecord], language: str) -> str:
    """The after-action report as Markdown, whole in memory (for a short log, or a test):
    what :func:`write_report` writes."""
    events = list(events)
    state, in_guild = report.state, report.in_guild
    lines = report_head(state, language, in_guild)
    lines += [report_entry_line(state, event, language, in_guild) for event in events]
    lines += report_tail(language, report.head)
    names = people(events)
    return "\n".join(plain_mentions(line, names) for line in lines)


def write_report(report: CampaignReport, language: str, folder: Path) -> Path:
    """The report written into ``folder`` from the events in the spool, one at a time."""
    state, in_guild = report.state, report.in_guild
    names: dict[int, str] = {}
    body_path, report_path = folder / _BODY, folder / REPORT_FILE
    with (
        report.events.open(encoding="utf-8") as stored,
        body_path.open("w", encoding="utf-8") as body,
    ):
        for line in stored:
            event = EventRecord.from_json_dict(json.loads(line))
            names.update(people([event]))
            body.write(report_entry_line(state, event, language, in_guild) + "\n")
    with report_path.open("w", encoding="utf-8") as out:
        head = report_head(state, language, in_guild)
        out.writelines(plain_mentions(line, names) + "\n" for line in head)
        with body_path.open(encoding="utf-8") as body:
            for line in body:
                out.write(plain_mentions(line, names))
        out.write("\n".join(report_tail(language, report.head)))
    body_path.unlink()
    return report_path


def _written(report: CampaignReport, language: str, spool: Path) -> dict[str, Any]:
    write_report(report, language, spool)
    report.events.unlink()
    return dict(fitted_files(spool, (REPORT_FILE,)))


async def with_report(reply: Reply) -> Reply:
    """The reply with its campaign report written (off the event loop) and attached before
    its other files; the reply as it is when it carries none; without the report when
    writing it failed (logged: the log's file still goes, and the spool is removed as
    ever)."""
    if not isinstance(reply, FilesReply) or reply.campaign_report is None:
        return reply
    spool = reply.spool or reply.campaign_report.events.parent
    try:
        files = await asyncio.to_thread(_written, reply.campaign_report, reply.language, spool)
    except Exception:
        log.exception("could not write the report of campaign %r", reply.campaign_report.state.name)
        return dataclasses.replace(reply, campaign_report=None, spool=spool)
    return dataclasses.replace(
        reply, files={**files, **reply.files}, campaign_report=None, spool=spool
    )


__all__ = ["REPORT_FILE", "report_entry_line", "report_text", "with_report", "write_report"]
