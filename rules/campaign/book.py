"""Bundled campaigns (a ruleset's campaign book) and the events that bring one into a log.

A ruleset ships its campaigns as ``rules/<key>/campaigns/<id>.yaml``: a title and a
description (per language), three or more of the ruleset's scenarios in the order they are
played, the days between two games, and an optional map of named areas, each held by a
side at the start, each game fought for one of them. The files are validated by
:class:`Book` at load and refused line by line like scenarios
(`rules.core.scenario.parse_yaml_model`).

A campaign started from a book logs :class:`CampaignBook` (the book's content, not only its
id: the log alone rebuilds the state, whatever later becomes of the file). Item 7's
calendar events live here too: :class:`CampaignDue` (the date by which a game should be
played) and :class:`CampaignOverdue` (what the referee decided once it passed). The folds
here take plain values, so :mod:`rules.campaign.state` calls them with no import back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.i18n import LANGUAGES
from rules.core.scenario import parse_yaml_model

#: What a book holds at most: a campaign a club plays over months, not a generator.
MAX_STEPS = 20
MAX_AREAS = 30
MAX_TEXT = 600
MAX_SPACING_DAYS = 120
#: The most days a game's date may lie ahead (``by:`` or an extension).
MAX_DUE_DAYS = 366
BOOK_KIND = "campaign book"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _localized(value: dict[str, str]) -> dict[str, str]:
    unknown = [language for language in value if language not in LANGUAGES]
    if unknown:
        raise ValueError(f"unknown language {unknown[0]!r} (known: {', '.join(LANGUAGES)})")
    if not value:
        raise ValueError("at least one language")
    return value


class BookArea(_Frozen):
    """A named area of the campaign's map and the side holding it at the start."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_]+$")
    name: dict[str, str]
    holder: str = Field(min_length=1, max_length=40)

    _names = field_validator("name")(_localized)


class BookStep(_Frozen):
    """One game of the book: its scenario and the area it is fought for (if the book has a
    map)."""

    scenario: str = Field(min_length=1, max_length=60)
    area: str | None = Field(None, max_length=40)


class Book(_Frozen):
    """A bundled campaign (``rules/<key>/campaigns/<id>.yaml``)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_]+$")
    ruleset: str
    title: dict[str, str]
    description: dict[str, str] = {}
    values_are_examples: bool = True
    #: Days between two games (the date each game should be played by); 0: none.
    spacing_days: int = Field(7, ge=0, le=MAX_SPACING_DAYS)
    areas: list[BookArea] = Field([], max_length=MAX_AREAS)
    scenarios: list[BookStep] = Field(min_length=3, max_length=MAX_STEPS)

    _titles = field_validator("title")(_localized)

    @field_validator("description")
    @classmethod
    def _described(cls, value: dict[str, str]) -> dict[str, str]:
        if any(len(text) > MAX_TEXT for text in value.values()):
            raise ValueError(f"a description holds at most {MAX_TEXT} characters")
        return _localized(value) if value else value

    @model_validator(mode="after")
    def _areas_known(self) -> Book:
        ids = [area.id for area in self.areas]
        if len(set(ids)) != len(ids):
            raise ValueError("two areas share an id")
        for step in self.scenarios:
            if step.area is not None and step.area not in ids:
                raise ValueError(f"scenario {step.scenario!r}: unknown area {step.area!r}")
        return self

    def text(self, field: dict[str, str], language: str) -> str:
        """A localized text in ``language``, else Italian, else the first given."""
        return field.get(language) or field.get("it") or next(iter(field.values()), "")


class CampaignBook(_Frozen):
    """The campaign follows a book: its scenarios in order, its map, its spacing."""

    type: Literal["campaign.book"] = "campaign.book"
    book: str
    title: dict[str, str]
    spacing_days: int = Field(0, ge=0, le=MAX_SPACING_DAYS)
    areas: list[BookArea] = []
    scenarios: list[BookStep]

    @classmethod
    def of(cls, book: Book) -> CampaignBook:
        """The event opening ``book``."""
        return cls(
            book=book.id,
            title=dict(book.title),
            spacing_days=book.spacing_days,
            areas=list(book.areas),
            scenarios=list(book.scenarios),
        )


class CampaignDue(_Frozen):
    """Game ``number`` should be played by ``by`` (a date)."""

    type: Literal["campaign.due"] = "campaign.due"
    number: int
    by: dt.date


class CampaignOverdue(_Frozen):
    """The referee's decision on a game past its date: ``extend`` to a new date, a
    ``forfeit`` by a side (the other side wins it), or a ``draw``."""

    type: Literal["campaign.overdue"] = "campaign.overdue"
    number: int
    decision: Literal["extend", "forfeit", "draw"]
    side: str | None = None
    until: dt.date | None = None


class Calendar(_Frozen):
    """The dates games are due by and the decisions taken on overdue ones."""

    due: dict[int, dt.date] = {}
    #: The last decision on each game (a forfeit's side with it).
    decisions: dict[int, CampaignOverdue] = {}


def book_opened(
    current: CampaignBook | None, event: CampaignBook, sides: Collection[str], games: int
) -> CampaignBook:
    """The book a campaign follows after ``event`` (refused once it has one or a game)."""
    if current is not None or games:
        raise IllegalAction("error.campaign.book_late")
    for area in event.areas:
        if area.holder not in sides:
            raise InvalidInput(
                "error.campaign.unknown_side", side=area.holder[:40], known=", ".join(sides)
            )
    return event


def calendar_after(
    calendar: Calendar,
    event: CampaignDue | CampaignOverdue,
    *,
    playing: bool,
    sides: Collection[str],
) -> Calendar:
    """The calendar after ``event`` on a game (``playing``: linked and without a result)."""
    if not playing:
        raise IllegalAction("error.campaign.not_playing", number=event.number)
    if isinstance(event, CampaignDue):
        return calendar.model_copy(update={"due": {**calendar.due, event.number: event.by}})
    if event.number not in calendar.due:
        raise IllegalAction("error.campaign.no_date", number=event.number)
    due = dict(calendar.due)
    if event.decision == "extend":
        if event.until is None or event.until <= calendar.due[event.number]:
            raise InvalidInput("error.campaign.bad_extension", number=event.number)
        due[event.number] = event.until
    else:
        if event.decision == "forfeit" and event.side not in sides:
            raise InvalidInput(
                "error.campaign.unknown_side", side=str(event.side)[:40], known=", ".join(sides)
            )
        del due[event.number]
    decisions = {**calendar.decisions, event.number: event}
    return Calendar(due=due, decisions=decisions)


# -- the bundled files ------------------------------------------------------------------------


def book_files(ruleset: str) -> dict[str, Path]:
    """A bundled ruleset's campaign books by id (none for a ruleset outside ``rules/``)."""
    try:
        folder = Path(str(resources.files(f"rules.{ruleset}") / "campaigns"))
    except ModuleNotFoundError:
        return {}
    return {path.stem: path for path in sorted(folder.glob("*.yaml"))}


def parse_book(text: str, source: str = "campaign") -> Book:
    """A campaign book from YAML text, refused line by line."""
    return parse_yaml_model(text, Book, source)


@lru_cache(maxsize=32)  # the bundled books: a handful
def _bundled(ruleset: str, book_id: str, path: Path) -> Book:
    return parse_book(path.read_text("utf-8"), f"{ruleset}/campaigns/{book_id}")


def load_book(ruleset: str, book_id: str) -> Book:
    """A ruleset's bundled book by id (a refusal naming those there are)."""
    paths = book_files(ruleset)
    if book_id not in paths:
        raise UnknownName(
            "error.campaign.unknown_book", name=book_id[:40], known=", ".join(paths) or "-"
        )
    book = _bundled(ruleset, book_id, paths[book_id])
    if book.ruleset != ruleset or book.id != book_id:
        raise InvalidInput("error.campaign.book_mismatch", name=book_id[:40], ruleset=ruleset)
    return book


__all__ = [
    "BOOK_KIND",
    "MAX_DUE_DAYS",
    "Book",
    "BookArea",
    "BookStep",
    "Calendar",
    "CampaignBook",
    "CampaignDue",
    "CampaignOverdue",
    "book_files",
    "book_opened",
    "calendar_after",
    "load_book",
    "parse_book",
]
