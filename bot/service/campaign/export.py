"""``/campaign export``: the campaign's story as files — the whole log as JSON, and the
after-action report, which the front ends write (`bot.render.campaign_report`).

The JSON holds every event as stored (`db.models.EventRecord.to_json_dict`) and the state
it folds to. The log is read in pages and written as the pages come, into a spool directory
on worker threads (as ``/game export``'s are, `bot.service.export`), so a log of any length takes a
page of events in memory; the file is fitted to Discord's attachment limit
(`bot.service.export.fit_file`), a small one read back as bytes. The service builds no text: the
report is data (:class:`~bot.service.replies.CampaignReport`: the state, and the same events
one a line in the spool), which the front ends word through the catalogue
(`rules.campaign.report`) and write as its first file. A campaign following a book with a
map gets its map as data (:class:`~rules.campaign.story.CampaignMap`) that the front ends
draw (`bot.render.campaign_map`): no picture is made in the service.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path
from typing import IO

from bot.service.campaign.ledger import language_of, load_campaign
from bot.service.export import fitted_files
from bot.service.handlers import Call
from bot.service.replies import CampaignReport, FilesReply, Reply
from db.models import EventRecord
from rules.campaign.report import area_name
from rules.campaign.state import CampaignState
from rules.campaign.story import CampaignMap, MapArea, holders, step_of
from rules.core.resolution import Outcome
from rules.core.words import in_language, names_in

#: Events read per page of the log (a campaign event's arguments can be a few KB).
_PAGE = 200
_LOG = "campaign-log.json"
#: The events again, one JSON object a line, for the front ends to write the report from.
REPORT_EVENTS = "campaign-report.events.jsonl"


async def campaign_export(call: Call) -> Reply:
    """``/campaign export``: the log as a file, the after-action report and the map as data."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    language = language_of(record)
    head = record.head_hash or ""
    spool = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="arbitro-campaign-"))
    try:
        writer = await asyncio.to_thread(_LogWriter, spool, state, record.channel_id, head)
        try:
            seq = 0
            while seq < record.version:  # the log as loaded: later events are not its state's
                page = await services.store.events(record.channel_id, after_seq=seq, limit=_PAGE)
                page = [event for event in page if event.seq <= record.version]
                if not page:
                    break
                await asyncio.to_thread(writer.add, page)
                seq = page[-1].seq
        finally:
            await asyncio.to_thread(writer.close)
        files = await asyncio.to_thread(fitted_files, spool, (_LOG,))
    except BaseException:
        await asyncio.to_thread(shutil.rmtree, spool, True)
        raise
    reply = FilesReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.files.update(files)
    # The report and the map as data: the front ends write the one and draw the other.
    reply.campaign_report = CampaignReport(
        state, request.guild_id is not None, head, spool / REPORT_EVENTS
    )
    reply.campaign_map = map_view(state, language)
    reply.spool = spool
    reply.notices.append(Outcome.of("bot.campaign.exported", events=writer.events))
    return reply


class _LogWriter:
    """The JSON log and the report's events, written page by page (on a worker thread): the
    JSON is byte for byte what ``json.dumps`` of the whole export would be."""

    def __init__(self, spool: Path, state: CampaignState, channel_id: int, head: str) -> None:
        self.events = 0
        self.log: IO[str] = (spool / _LOG).open("w", encoding="utf-8")
        self.lines: IO[str] = (spool / REPORT_EVENTS).open("w", encoding="utf-8")
        opening = {
            "format": "arbitro-campaign-export/1",
            "channel_id": channel_id,
            "head_hash": head,
            "state": state.to_json(),
        }
        self.log.write(json.dumps(opening, ensure_ascii=False)[:-1] + ', "events": [')

    def add(self, events: list[EventRecord]) -> None:
        for event in events:
            stored = json.dumps(event.to_json_dict(), ensure_ascii=False)
            if self.events:
                self.log.write(", ")
            self.log.write(stored)
            self.lines.write(stored + "\n")
            self.events += 1

    def close(self) -> None:
        self.log.write("]}")
        self.log.close()
        self.lines.close()


def map_view(state: CampaignState, language: str) -> CampaignMap | None:
    """The book's map as the front ends draw it: each area with its holder, the area a game
    in play is fought for marked; None without a book's map."""
    book = state.book
    if book is None or not book.areas:
        return None
    held = holders(state)
    contested = {
        step.area
        for entry in state.games
        if entry.result is None and (step := step_of(state, entry)) is not None
    }
    areas = tuple(
        MapArea(
            name=area_name(state, area.id, language),
            holder=held.get(area.id, area.holder),
            holder_name=in_language(
                state.sides.get(held.get(area.id, area.holder), area.holder), language
            ),
            contested=area.id in contested,
        )
        for area in book.areas
    )
    title = book.title.get(language) or book.title.get("it") or book.book
    return CampaignMap(
        title=f"{state.name} — {title}",
        areas=areas,
        sides=names_in(state.sides, language),
        language=language,
    )


__all__ = ["REPORT_EVENTS", "campaign_export", "map_view"]
