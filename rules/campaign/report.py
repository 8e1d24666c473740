"""The after-action report of ``/campaign export``, in words: the campaign, its winner, every
game with its scenario, the area fought for, its result, losses (units by name) and
aftermath (every die and fate), the map's holders, the final rosters; then a line per event
of the log with its seq and hash, and the log's head hash.

Pure wording of a campaign's state through the catalogue, as `rules.campaign.text` words its
pages: the service hands the front ends the state and the log as data
(`bot.service.replies.CampaignReport`), and the front ends lay the report out as a file
(`bot.render.campaign_report`), people named as they played.
"""

from __future__ import annotations

import datetime as dt

from rules.campaign.events import CampaignResult
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState, standings
from rules.campaign.story import holders, step_of
from rules.campaign.text import entry_line, in_language, roster_lines, status_lines
from rules.core.i18n import colon, has_key, semicolon, translate
from rules.core.words import in_language as name_in_language
from rules.core.words import joined


def area_name(state: CampaignState, area_id: str, language: str) -> str:
    """An area's name in ``language`` (its id when the book lacks it)."""
    book = state.book
    found = next((a for a in book.areas if a.id == area_id), None) if book else None
    return in_language(found.name, language) if found is not None else area_id


def unit_name(state: CampaignState, side: str, unit: str) -> str:
    """A unit as its side's roster names it (its id when the roster lacks it)."""
    roster = state.rosters.get(side)
    entry = roster.entry(unit) if roster is not None else None
    return entry.name if entry is not None else unit


def losses_text(state: CampaignState, result: CampaignResult, language: str) -> str:
    """A game's losses by side, each unit by name (empty: none lost)."""
    return f"{semicolon(language)} ".join(
        f"{name_in_language(state.sides.get(side, side), language)}{colon(language)} "
        + ", ".join(
            f"{name_in_language(unit_name(state, side, unit), language)} {amount}"
            for unit, amount in units.items()
        )
        for side, units in result.losses.items()
        if units
    )


def ending_words(ending: str, language: str) -> str:
    """How a game ended, in words (``turn_limit`` → "at the turn limit")."""
    key = f"bot.campaign.report.ending.{ending}"
    return translate(key, language) if has_key(key) else ending


def aftermath_report_lines(state: CampaignState, number: int, language: str) -> list[str]:
    """Game ``number``'s aftermath as rolled: every die and fate, entry by entry."""
    record = state.aftermaths.get(number)
    rules = campaign_rules(state.ruleset)
    if record is None or rules is None:
        return []
    lines = []
    for side, changes in record.event.sides.items():
        roster = state.rosters.get(side)
        for change in changes:
            entry = roster.entry(change.unit) if roster is not None else None
            name = entry.name if entry is not None else change.unit
            full = entry.full if entry is not None else change.after.strength
            lines.append(
                entry_line(state.sides.get(side, side), name, full, change, rules, language)
            )
    return lines


def winner_line(state: CampaignState, language: str) -> str | None:
    """Who won the campaign (once ended) or leads it: the top of the standings, or the
    sides level there (None before any result)."""
    table = standings(state)
    if not table or not any(line.played for line in table):
        return None
    top = [
        line
        for line in table
        if (line.points, line.difference)
        == (
            table[0].points,
            table[0].difference,
        )
    ]
    names = joined(state.sides.get(line.side, line.side) for line in top)
    key = "level" if len(top) > 1 else "won" if state.ended else "leading"
    return translate(f"bot.campaign.report.{key}", language, side=names, points=table[0].points)


def final_roster_lines(state: CampaignState, language: str) -> list[str]:
    """Every side's roster as it stands (the final one once the campaign ended)."""
    return [
        line
        for side in state.sides
        if (roster := state.rosters.get(side)) is not None
        for line in roster_lines(state, roster, language, None)
    ]


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


def report_entry(seq: int, created_at: dt.datetime, text: str, hash_: str) -> str:
    """The report's line of one event of the log: its seq, when, what (``text``), its hash."""
    return f"- #{seq} {created_at:%Y-%m-%d %H:%M} {text} `{hash_}`"


def report_tail(language: str, head: str) -> list[str]:
    """The report's closing lines: the log's head hash."""
    return ["", translate("bot.campaign.report.head", language, hash=head), ""]


__all__ = [
    "aftermath_report_lines",
    "area_name",
    "ending_words",
    "final_roster_lines",
    "losses_text",
    "report_entry",
    "report_head",
    "report_tail",
    "unit_name",
    "winner_line",
]
