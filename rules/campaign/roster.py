"""A campaign side's roster: the units it carries from one game to the next.

Each entry is one unit of the side as the campaign knows it between games: its strength
now and at full establishment (in the ruleset's unit of strength — models, figures,
steps — the word :class:`rules.core.victory.Dialect` names), the strength lost in its last
game and not yet settled by the post-battle sequence, its experience, its quality or rank
in the ruleset's own words, whether it is fit, recovering (fit again from a given game) or
dead, and a short history. An entry musters as the scenario unit with the same ``id``.

The roster is part of the campaign's state, so it is only ever the fold of the campaign's
log (`rules.campaign.state.apply`); this module holds the values and their checks, no I/O.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.upload import Refusal
from rules.core.words import LocalizedLabel

#: The most entries one side's roster holds (a scenario side holds at most 60 units).
MAX_ENTRIES = 60
#: The most history lines an entry keeps (the oldest are dropped past it: the campaign's
#: log keeps everything).
MAX_HISTORY = 50
#: The largest strength an entry may have (the largest unit a scenario accepts is smaller).
MAX_STRENGTH = 1000
#: A unit id, as scenarios write them.
ID_PATTERN = r"^[A-Za-z0-9_\-]{1,40}$"
#: The history keys the bot writes; any other line (a roster file's, an older log's) is a
#: player's words, shown quoted (``bot.campaign.history.note``), never looked up.
NOTE_KEY = "bot.campaign.history.note"
HISTORY_KEYS = frozenset(
    {
        "bot.campaign.history.lost",
        "bot.campaign.history.lost_reversed",
        "bot.campaign.history.aftermath",
        "bot.campaign.history.aftermath_reversed",
        "bot.campaign.history.adjusted",
        NOTE_KEY,
    }
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Status(StrEnum):
    """Whether an entry may be fielded."""

    FIT = "fit"
    RECOVERING = "recovering"
    DEAD = "dead"


class HistoryLine(_Frozen):
    """One thing that happened to an entry: a catalogue key and its parameters, and the
    game it happened in (None: between games, e.g. a referee's adjustment)."""

    game: int | None = None
    what: str = Field(min_length=1, max_length=80)
    params: dict[str, str | int] = {}


class RosterEntry(_Frozen):
    """One unit of a side between games."""

    id: str = Field(pattern=ID_PATTERN)
    #: The scenario's name for the unit, in every language it gives (read in the reader's),
    #: or a roster file's plain one; up to 80 characters.
    name: LocalizedLabel
    #: Strength now (models, figures or steps, as the ruleset counts them).
    strength: int = Field(ge=0, le=MAX_STRENGTH)
    #: Strength at full establishment (what replacements may bring it back to).
    full: int = Field(ge=1, le=MAX_STRENGTH)
    #: Strength lost in its last game whose fate the post-battle sequence has not settled.
    casualties: int = Field(0, ge=0, le=MAX_STRENGTH)
    experience: int = Field(0, ge=0, le=100_000)
    #: Quality class or rank, in the ruleset's words (None where the ruleset has none).
    rank: str | None = Field(None, max_length=40)
    #: Weapons carried, by the scenario's weapon id, where the ruleset counts them.
    weapons: dict[str, int] = {}
    status: Status = Status.FIT
    #: While recovering: the number of the first campaign game it may be fielded in.
    until: int | None = Field(None, ge=1)
    history: tuple[HistoryLine, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> RosterEntry:
        check_entry(self.strength, self.full, self.status, self.until)
        if len(self.history) > MAX_HISTORY:
            raise ValueError(f"at most {MAX_HISTORY} history lines")
        return self

    def available(self, game: int) -> bool:
        """Whether the entry may be fielded in campaign game number ``game``."""
        if self.status is Status.DEAD or self.strength == 0:
            return False
        return self.status is Status.FIT or (self.until is not None and game >= self.until)

    def noted(self, line: HistoryLine) -> RosterEntry:
        """The entry with ``line`` added to its history (the oldest dropped past the cap)."""
        history = (*self.history, line)[-MAX_HISTORY:]
        return self.model_copy(update={"history": history})


def check_entry(strength: int, full: int, status: Status, until: int | None) -> None:
    """Refuse an entry's values that disagree (a `Refusal`, worded in the catalogue)."""
    if strength > full:
        raise Refusal("error.upload.strength_over_full", strength=strength, full=full)
    if (status is Status.RECOVERING) != (until is not None):
        raise Refusal("error.upload.until_status")


class Roster(_Frozen):
    """One side's roster: its entries in their order."""

    side: str
    entries: tuple[RosterEntry, ...] = Field((), max_length=MAX_ENTRIES)

    @model_validator(mode="after")
    def _unique(self) -> Roster:
        seen: set[str] = set()
        for entry in self.entries:
            if entry.id in seen:
                raise ValueError(f"unit {entry.id!r} is listed twice")
            seen.add(entry.id)
        return self

    def entry(self, unit: str) -> RosterEntry | None:
        """The entry of unit ``unit``, if the roster holds it."""
        return next((e for e in self.entries if e.id == unit), None)

    def replaced(self, entry: RosterEntry) -> Roster:
        """The roster with ``entry`` in place of the one with its id (appended if new)."""
        if self.entry(entry.id) is None:
            return self.model_copy(update={"entries": (*self.entries, entry)})
        entries = tuple(entry if e.id == entry.id else e for e in self.entries)
        return self.model_copy(update={"entries": entries})


def rosters_hash(rosters: Mapping[str, Roster]) -> str:
    """A hash of the rosters as fielded (sides in sorted order, canonical JSON): what a
    linked game's first event carries, so the game's forces can be traced to them."""
    data = {side: rosters[side].model_dump(mode="json") for side in sorted(rosters)}
    return hashlib.sha256(
        json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()


__all__ = [
    "HISTORY_KEYS",
    "ID_PATTERN",
    "MAX_ENTRIES",
    "MAX_HISTORY",
    "MAX_STRENGTH",
    "NOTE_KEY",
    "HistoryLine",
    "Roster",
    "RosterEntry",
    "Status",
    "check_entry",
    "rosters_hash",
]
