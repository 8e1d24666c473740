"""``/campaign export``: the campaign's story as files — the after-action report (Markdown)
and the whole log as JSON.

The report gives the campaign, every game with its scenario, the area fought for, its
result, scores, losses and the final hash of its log, the map's holders, the standings,
then every event of the campaign's log with its seq and hash, and the campaign log's head
hash. The JSON holds every event as stored (`db.models.EventRecord.to_json_dict`) and the
state it folds to. A campaign's log is bounded (:data:`rules.core.campaign.MAX_GAMES`
games, a handful of events each); it is read in pages and refused past
:data:`MAX_EXPORT_EVENTS`, and the files are built off the event loop and fitted to
Discord's attachment limit (`bot.export.fit`). A campaign following a book with a map gets
its picture too (``campaign-map.png``, `bot.render.campaign_map`).
"""

from __future__ import annotations

import json
from typing import Any

from bot.export import fit
from bot.render.campaign_map import AreaBox, campaign_map_png
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
from bot.service.campaign.views import log_text, status_lines
from bot.service.errors import ServiceError
from bot.service.events import people, plain_mentions
from bot.service.handlers import Call
from bot.service.replies import FilesReply, Reply
from db.models import EventRecord
from rules.core.campaign import CampaignState, event_of
from rules.core.campaign_story import holders, step_of
from rules.core.i18n import translate
from rules.core.resolution import Outcome

#: The most events a campaign's export reads (its log is far shorter: games are bounded).
MAX_EXPORT_EVENTS = 5_000
_PAGE = 500


async def campaign_export(call: Call) -> Reply:
    """``/campaign export``: the after-action report and the log as files."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    events: list[EventRecord] = []
    while True:
        page = await services.store.events(
            record.channel_id, after_seq=events[-1].seq if events else 0, limit=_PAGE
        )
        events.extend(page)
        if len(events) > MAX_EXPORT_EVENTS:
            raise ServiceError("error.campaign.export_too_long", limit=MAX_EXPORT_EVENTS)
        if len(page) < _PAGE:
            break
    language = language_of(record)
    in_guild = request.guild_id is not None
    head = record.head_hash or ""

    def build() -> dict[str, bytes]:
        report = report_text(state, events, language, in_guild, head)
        data = {
            "format": "arbitro-campaign-export/1",
            "channel_id": record.channel_id,
            "head_hash": head,
            "state": state.to_json(),
            "events": [event.to_json_dict() for event in events],
        }
        files = fit("campaign-report.md", report.encode("utf-8"))
        files.update(fit("campaign-log.json", json.dumps(data, ensure_ascii=False).encode()))
        if state.book is not None and state.book.areas:
            files["campaign-map.png"] = map_picture(state, language)
        return files

    reply = FilesReply(language=language, ruleset=state.ruleset, head_hash=record.head_hash)
    reply.files.update(await services.off_loop(build))
    reply.notices.append(Outcome.of("bot.campaign.exported", events=len(events)))
    return reply


def map_picture(state: CampaignState, language: str) -> bytes:
    """The book's map as a picture: each area coloured by its holder, the area a game in
    play is fought for marked (`bot.render.campaign_map`)."""
    book = state.book
    if book is None:
        raise ValueError("a campaign without a book has no map")
    held = holders(state)
    contested = {
        step.area
        for entry in state.games
        if entry.result is None and (step := step_of(state, entry)) is not None
    }
    boxes = [
        AreaBox(
            name=area_name(state, area.id, language),
            holder=held.get(area.id, area.holder),
            holder_name=state.sides.get(held.get(area.id, area.holder), area.holder),
            contested=area.id in contested,
        )
        for area in book.areas
    ]
    title = book.title.get(language) or book.title.get("it") or book.book
    return campaign_map_png(f"{state.name} — {title}", boxes, state.sides)


def report_text(
    state: CampaignState,
    events: list[EventRecord],
    language: str,
    in_guild: bool,
    head: str,
) -> str:
    """The after-action report as Markdown: people by the names they played under."""
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
    for event in events:
        data: Any = event.args.get(CAMPAIGN_ARG) if isinstance(event.args, dict) else None
        if isinstance(data, dict):
            text = log_text(state, event_of(data), language, in_guild)
        else:
            text = other_event_text(state, event, language)
        lines.append(f"- #{event.seq} {event.created_at:%Y-%m-%d %H:%M} {text} `{event.hash}`")
    lines += ["", translate("bot.campaign.report.head", language, hash=head), ""]
    names = people(events)
    return "\n".join(plain_mentions(line, names) for line in lines)


__all__ = ["MAX_EXPORT_EVENTS", "campaign_export", "map_picture", "report_text"]
