"""Bundled campaigns at the service: ``/campaign new book:``, the book's next scenario for
``/campaign game``, and the map's holders in ``/campaign status``.

The book's content travels in the campaign's created event (``campaign.created`` with its
``book``: one commit, so a campaign is never left without the book it was made from; older
logs carry it in a ``campaign.book`` event right after), so the log alone rebuilds it; the
holders of its map are recounted from the results (`rules.campaign.story.holders`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.service.errors import ServiceError
from bot.service.handlers import Call
from rules.campaign.book import (
    Book,
    load_book,
)
from rules.campaign.state import CampaignState
from rules.campaign.story import next_step
from rules.campaign.text import in_language
from rules.core.errors import InvalidInput
from rules.core.resolution import Outcome
from rules.core.words import joined


def book_option(ruleset: str, options: Mapping[str, Any]) -> Book | None:
    """The book ``/campaign new book:`` names (None when it names none)."""
    wanted = str(options.get("book") or "").strip()
    return load_book(ruleset, wanted) if wanted else None


async def check_book(call: Call, book: Book, sides: Mapping[str, str]) -> None:
    """Refuse a book whose scenarios do not all have the campaign's sides."""
    rules = call.services.rules(book.ruleset)
    for step in book.scenarios:
        document = await call.services.off_loop(rules.setup, step.scenario, None)
        found = rules.sides(document)
        if set(found) != set(sides):
            raise InvalidInput(
                "error.campaign.sides_differ",
                scenario=step.scenario,
                sides=joined(found.values()),
                known=joined(sides.values()),
            )


def scenario_wanted(state: CampaignState, options: Mapping[str, Any]) -> str:
    """The scenario ``/campaign game`` plays: the one typed, else the book's next."""
    typed = str(options.get("scenario") or "").strip()
    if typed:
        return typed
    if state.book is None:
        raise ServiceError("error.campaign.scenario_needed")
    step = next_step(state)
    if step is None:
        playing = next((e.number for e in state.games if e.result is None), None)
        if playing is not None:  # the book's last game is linked, not yet played
            raise ServiceError("error.campaign.book_in_play", book=state.book.book, number=playing)
        raise ServiceError("error.campaign.book_done", book=state.book.book)
    return step.scenario


def settled_notice(state: CampaignState, number: int, language: str) -> Outcome:
    """What a game's settled aftermath says: the next game may start, or, after the book's
    last scenario, that the book is complete."""
    book = state.book
    in_play = any(entry.result is None for entry in state.games)
    if book is None or next_step(state) is not None or in_play:
        return Outcome.of("bot.campaign.aftermath_settled", number=number)
    return Outcome.of(
        "bot.campaign.aftermath_settled_last", number=number, book=in_language(book.title, language)
    )


__all__ = [
    "book_option",
    "check_book",
    "scenario_wanted",
    "settled_notice",
]
