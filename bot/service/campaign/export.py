"""``/campaign export``: the campaign's story as files — the after-action report (Markdown)
and the whole log as JSON.

The report gives the campaign, every game with its scenario, the area fought for, its
result, scores, losses and the final hash of its log, the map's holders, the standings,
then every event of the campaign's log with its seq and hash, and the campaign log's head
hash. The JSON holds every event as stored (`db.models.EventRecord.to_json_dict`) and the
state it folds to. The log is read in pages and both files are written as the pages come,
into a spool directory on worker threads (as ``/game export``'s are, `bot.export`), so a
log of any length takes a page of events in memory; the files are fitted to Discord's
attachment limit (`bot.export.fit_file`), the small ones read back as bytes. A campaign
following a book with a map gets its map as data (:class:`~rules.campaign.story.CampaignMap`)
that the front ends draw (`bot.render.campaign_map`): no picture is made in the service.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from bot.export import fitted_files
from bot.service.campaign.book import area_name
from bot.service.campaign.ledger import CAMPAIGN_ARG, language_of, load_campaign
from bot.service.campaign.report import (
    aftermath_report_lines,
    ending_words,
    final_roster_lines,
    losses_text,
    other_event_text,
    winner_line,
)
from bot.service.events import people, plain_mentions
from bot.service.handlers import Call
from bot.service.replies import FilesReply, Reply
from db.models import EventRecord
from rules.campaign.events import event_of
from rules.campaign.state import CampaignState
from rules.campaign.story import CampaignMap, MapArea, holders, step_of
from rules.campaign.text import log_text, status_lines
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.words import in_language, names_in

#: Events read per page of the log (a campaign event's arguments can be a few KB).
_PAGE = 200
_REPORT, _LOG, _BODY = "campaign-report.md", "campaign-log.json", "campaign-report.body"


async def campaign_export(call: Call) -> Reply:
    """``/campaign export``: the after-action report and the log as files."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    language = language_of(record)
    in_guild = request.guild_id is not None
    head = record.head_hash or ""
    spool = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="arbitro-campaign-"))
    try:
        writer = await asyncio.to_thread(
            _LogWriter, spool, state, language, in_guild, record.channel_id, head
        )
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
        files = await asyncio.to_thread(fitted_files, spool, (_REPORT, _LOG))
    except BaseException:
        await asyncio.to_thread(shutil.rmtree, spool, True)
        raise
    reply = FilesReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.files.update(files)
    # The map as data: the front ends draw it (no picture is made in the service).
    reply.campaign_map = map_view(state, language)
    if any(isinstance(content, Path) for content in files.values()):
        reply.spool = spool
    else:
        await asyncio.to_thread(shutil.rmtree, spool, True)
    reply.notices.append(Outcome.of("bot.campaign.exported", events=writer.events))
    return reply


class _LogWriter:
    """The report and the JSON log, written page by page (on a worker thread): the JSON is
    byte for byte what ``json.dumps`` of the whole export would be."""

    def __init__(
        self,
        spool: Path,
        state: CampaignState,
        language: str,
        in_guild: bool,
        channel_id: int,
        head: str,
    ) -> None:
        self.state, self.language, self.in_guild, self.head = state, language, in_guild, head
        self.events = 0
        self.spool = spool
        # People are named as they played (each event records its actor's name), so the
        # head, which names the players, is written once the whole log was read: the log's
        # lines wait in a body file meanwhile.
        self.names: dict[int, str] = {}
        self.body: IO[str] = (spool / _BODY).open("w", encoding="utf-8")
        self.log: IO[str] = (spool / _LOG).open("w", encoding="utf-8")
        opening = {
            "format": "arbitro-campaign-export/1",
            "channel_id": channel_id,
            "head_hash": head,
            "state": state.to_json(),
        }
        self.log.write(json.dumps(opening, ensure_ascii=False)[:-1] + ', "events": [')

    def add(self, events: list[EventRecord]) -> None:
        self.names.update(people(events))
        lines = report_log_lines(self.state, events, self.language, self.in_guild)
        self.body.writelines(plain_mentions(line, self.names) + "\n" for line in lines)
        for event in events:
            if self.events:
                self.log.write(", ")
            self.log.write(json.dumps(event.to_json_dict(), ensure_ascii=False))
            self.events += 1

    def close(self) -> None:
        self.log.write("]}")
        self.log.close()
        self.body.close()
        head = report_head(self.state, self.language, self.in_guild)
        with (self.spool / _REPORT).open("w", encoding="utf-8") as report:
            report.writelines(plain_mentions(line, self.names) + "\n" for line in head)
            with (self.spool / _BODY).open(encoding="utf-8") as body:
                shutil.copyfileobj(body, report)
            report.write("\n".join(report_tail(self.language, self.head)))
        (self.spool / _BODY).unlink()


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


def report_text(
    state: CampaignState,
    events: list[EventRecord],
    language: str,
    in_guild: bool,
    head: str,
) -> str:
    """The after-action report as Markdown: people by the names they played under."""
    lines = report_head(state, language, in_guild)
    lines += report_log_lines(state, events, language, in_guild)
    lines += report_tail(language, head)
    names = people(events)
    return "\n".join(plain_mentions(line, names) for line in lines)


def report_head(state: CampaignState, language: str, in_guild: bool) -> list[str]:
    """The report's lines before the log: the campaign, its winner, its games, the map's
    holders, the final rosters."""
    lines = [f"# {state.name}", ""]
    won = winner_line(state, language)
    if won is not None:
        lines += [f"**{won}**", ""]
    lines += [f"- {line}" for line in status_lines(state, language, in_guild)]
    lines += ["", f"## {translate('bot.campaign.report.games', language)}", ""]
    for entry in state.games:
        result = entry.result
        step = step_of(state, entry)
        area = area_name(state, step.area, language) if step and step.area else "-"
        lines.append(
            translate(
                "bot.campaign.report.game",
                language,
                number=entry.number,
                scenario=entry.scenario,
                area=area,
            )
        )
        if result is None:
            lines.append("  - " + translate("bot.campaign.report.in_play", language))
            continue
        lost = losses_text(state, result, language)
        lines.append(
            "  - "
            + translate(
                "bot.campaign.report.result",
                language,
                outcome=state.sides.get(result.winner, result.winner)
                if result.winner
                else translate("bot.campaign.draw", language),
                ending=ending_words(result.ending, language),
                hash=result.final_hash,
            )
        )
        if lost:
            lines.append("  - " + translate("bot.campaign.report.losses", language, losses=lost))
        aftermath = aftermath_report_lines(state, entry.number, language)
        if aftermath:
            lines.append("  - " + translate("bot.campaign.report.aftermath", language))
            lines += [f"    - {line}" for line in aftermath]
    if state.book is not None and state.book.areas:
        lines += ["", f"## {translate('bot.campaign.report.map', language)}", ""]
        held = holders(state)
        lines += [
            "- "
            + translate(
                "bot.campaign.book.area",
                language,
                area=area_name(state, area, language),
                side=state.sides.get(side, side),
            )
            for area, side in held.items()
        ]
    rosters = final_roster_lines(state, language)
    if rosters:
        lines += ["", f"## {translate('bot.campaign.report.rosters', language)}", ""]
        lines += [f"  - {line[4:]}" if line.startswith("  · ") else f"- {line}" for line in rosters]
    lines += ["", f"## {translate('bot.campaign.report.log', language)}", ""]
    return lines


def report_log_lines(
    state: CampaignState, events: list[EventRecord], language: str, in_guild: bool
) -> list[str]:
    """The report's line of each campaign event of ``events`` (a page of the log)."""
    lines: list[str] = []
    for event in events:
        data: Any = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if isinstance(data, dict):
            text = log_text(state, event_of(data), language, in_guild)
        else:
            text = other_event_text(state, event, language)
        lines.append(f"- #{event.seq} {event.created_at:%Y-%m-%d %H:%M} {text} `{event.hash}`")
    return lines


def report_tail(language: str, head: str) -> list[str]:
    """The report's closing lines: the log's head hash."""
    return ["", translate("bot.campaign.report.head", language, hash=head), ""]


__all__ = [
    "campaign_export",
    "map_view",
    "report_head",
    "report_log_lines",
    "report_tail",
    "report_text",
]
