"""Bundled campaigns (a ruleset's campaign book): the files, read and checked.

A ruleset ships its campaigns as ``rules/<key>/campaigns/<id>.yaml``: a title and a
description (per language), three or more of the ruleset's scenarios in the order they are
played, the days between two games, and an optional map of named areas, each held by a
side at the start, each game fought for one of them. The files are validated by
:class:`Book` at load and refused line by line like scenarios
(`rules.core.scenario.parse_yaml_model`).

A campaign started from a book logs the book's content, not only its id
(`rules.campaign.events.CampaignBook`, carrying the :class:`BookArea` and :class:`BookStep`
declared here): the log alone rebuilds the state, whatever later becomes of the file. The
calendar's events (`CampaignDue`, `CampaignOverdue`) are in `rules.campaign.events` too, and
their fold in `rules.campaign.state`.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.core.errors import InvalidInput, UnknownName
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
    "book_files",
    "load_book",
    "parse_book",
]
