"""What a campaign's book makes of its log: the next scenario, the map's holders, the
dates games are due by.

Recounted from the state, never kept: like the standings, the holders of the map's areas
follow from the results that hold (a reversed result gives its area back), so they always
equal the replay of the log.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from rules.campaign.book import BookStep
from rules.campaign.state import CampaignState, GameEntry


@dataclass(frozen=True, slots=True)
class MapArea:
    """One area of the campaign's map as the front ends draw it."""

    name: str
    holder: str
    holder_name: str
    #: A game in play is fought for it.
    contested: bool


@dataclass(frozen=True, slots=True)
class CampaignMap:
    """The campaign's map as data (the service builds it, the front ends draw it): the
    book's areas in its order, each with its holder, the sides' names, the title (the
    campaign's and the book's) in ``language``."""

    title: str
    areas: tuple[MapArea, ...]
    sides: Mapping[str, str]
    language: str


def step_of(state: CampaignState, entry: GameEntry) -> BookStep | None:
    """The book's step a linked game plays (by its scenario), if any."""
    if state.book is None:
        return None
    return next((s for s in state.book.scenarios if s.scenario == entry.scenario), None)


def next_step(state: CampaignState) -> BookStep | None:
    """The book's first step whose scenario no game of the campaign has played yet."""
    if state.book is None:
        return None
    played = {entry.scenario for entry in state.games}
    return next((s for s in state.book.scenarios if s.scenario not in played), None)


def holders(state: CampaignState) -> dict[str, str]:
    """Who holds each area of the book's map (area id -> side): the start's holders, then
    each won game's area to its winner, in the order games were linked (a draw changes
    nothing)."""
    if state.book is None:
        return {}
    held = {area.id: area.holder for area in state.book.areas}
    for entry in state.games:
        step = step_of(state, entry)
        result = entry.result
        if step is None or step.area is None or result is None or result.winner is None:
            continue
        held[step.area] = result.winner
    return held


def default_due(state: CampaignState, today: dt.date) -> dt.date | None:
    """The date a game linked ``today`` is due by, by the book's spacing (None: no book,
    or a book without one): counted from the latest date of the games before it when
    that is later than today, so a game is never due before the one it follows."""
    if state.book is None or state.book.spacing_days == 0:
        return None
    start = max([today, *state.calendar.due.values()])
    return start + dt.timedelta(days=state.book.spacing_days)


def overdue(state: CampaignState, today: dt.date) -> list[int]:
    """The games still in play whose date has passed, by number."""
    return [
        number
        for number, by in sorted(state.calendar.due.items())
        if by < today and (entry := state.game(number)) is not None and entry.result is None
    ]


__all__ = ["CampaignMap", "MapArea", "default_due", "holders", "next_step", "overdue", "step_of"]
