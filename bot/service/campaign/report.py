"""The after-action report's parts that make it worth sharing: people by the names they
played under, units by name, how each game ended in words, every aftermath die and fate,
the final rosters, and who won the campaign (`bot.service.campaign.export` lays them out).
A free roll or any other command made in the campaign's channel is told as a game's log
tells it, so the report and ``/campaign log`` list every event the head hash covers."""

from __future__ import annotations

from bot.service.events import event_line
from db.models import EventRecord
from rules.campaign.events import CampaignResult
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState, standings
from rules.campaign.text import entry_line, roster_lines
from rules.core.i18n import colon, has_key, semicolon, translate
from rules.core.words import in_language, joined


def unit_name(state: CampaignState, side: str, unit: str) -> str:
    """A unit as its side's roster names it (its id when the roster lacks it)."""
    roster = state.rosters.get(side)
    entry = roster.entry(unit) if roster is not None else None
    return entry.name if entry is not None else unit


def losses_text(state: CampaignState, result: CampaignResult, language: str) -> str:
    """A game's losses by side, each unit by name (empty: none lost)."""
    return f"{semicolon(language)} ".join(
        f"{in_language(state.sides.get(side, side), language)}{colon(language)} "
        + ", ".join(f"{unit_name(state, side, unit)} {amount}" for unit, amount in units.items())
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


def other_event_text(state: CampaignState, event: EventRecord, language: str) -> str:
    """An event of the campaign's channel that is not the campaign's (a free roll), told
    as a game's log tells it, without its seq."""
    line = event_line(event, state.ruleset, language, state.sides)
    return line.removeprefix(f"#{event.seq} ")


__all__ = [
    "aftermath_report_lines",
    "ending_words",
    "final_roster_lines",
    "losses_text",
    "other_event_text",
    "unit_name",
    "winner_line",
]
