"""A roster file: a side's roster written by hand (``/campaign roster side: file:``).

The file is YAML (docs/campaigns.md gives an example and its rules)::

    side: legione
    entries:
      - {id: squadra_tattica, name: Squadra tattica, strength: 7, full: 10}
      - {id: devastatori, name: Devastatori, strength: 5, full: 5, experience: 3}

It is read like a scenario (`rules.core.scenario.parse_yaml_model`): hostile YAML is
screened, the values are typed strictly (``strength: true`` or ``"7"`` is refused), and
every refusal names the file as uploaded, its line and what is wrong there, in the
campaign's language. A file is data, never the bot's voice: names are one line of plain
text (`rules.core.upload.PlainName`), a unit's name plain or in several languages as a
bundled scenario writes it (``{it: …, en: …, fr: …}``, `rules.core.words.LocalizedLabel`,
read in the campaign's language), ``history:`` lines are the player's words, kept
quoted (`rules.campaign.roster.NOTE_KEY`). Bounded: the file's size
(:data:`MAX_ROSTER_BYTES`), its entries, each entry's history and weapons, an entry's
casualties by what it had (``strength + casualties <= full``) and the dice the next
aftermath would roll (``dice``: what the other sides leave of the 2,000).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from rules.campaign.postbattle import MAX_AFTERMATH_DICE
from rules.campaign.roster import (
    ID_PATTERN,
    MAX_ENTRIES,
    MAX_HISTORY,
    MAX_STRENGTH,
    NOTE_KEY,
    HistoryLine,
    Roster,
    RosterEntry,
    Status,
    check_entry,
)
from rules.campaign.state import MAX_GAMES
from rules.core.errors import InvalidInput
from rules.core.scenario import parse_yaml_model
from rules.core.upload import PlainName, Refusal
from rules.core.words import LocalizedLabel

#: The largest roster file read (60 entries with their history fit in far less).
MAX_ROSTER_BYTES = 64 * 1024
#: The name a roster file's refusals give it when the front end gives none.
ROSTER_SOURCE = "roster.yaml"
#: The most weapon ids an entry lists (a bundled unit carries at most a handful).
MAX_WEAPONS = 20
#: The longest history line of a roster file.
MAX_NOTE = 200

WeaponId = Annotated[str, Field(pattern=ID_PATTERN)]
WeaponCount = Annotated[int, Field(ge=0, le=MAX_STRENGTH)]
Note = Annotated[PlainName, Field(min_length=1, max_length=MAX_NOTE)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class FileEntry(_Strict):
    """One entry as a roster file writes it (`rules.campaign.roster.RosterEntry`'s fields,
    its history plain lines)."""

    id: str = Field(pattern=ID_PATTERN)
    name: LocalizedLabel
    strength: int = Field(ge=0, le=MAX_STRENGTH)
    full: int = Field(ge=1, le=MAX_STRENGTH)
    casualties: int = Field(0, ge=0, le=MAX_STRENGTH)
    experience: int = Field(0, ge=0, le=100_000)
    rank: PlainName | None = Field(None, min_length=1, max_length=40)
    weapons: dict[WeaponId, WeaponCount] = Field(default_factory=dict, max_length=MAX_WEAPONS)
    status: Status = Status.FIT
    until: int | None = Field(None, ge=1, le=MAX_GAMES)
    history: tuple[Note, ...] = Field((), max_length=MAX_HISTORY)

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> FileEntry:
        check_entry(self.strength, self.full, self.status, self.until)
        if self.strength + self.casualties > self.full:
            raise Refusal(
                "error.upload.casualties_over_full",
                ("casualties",),
                strength=self.strength,
                casualties=self.casualties,
                full=self.full,
            )
        known: Collection[str] | None = (info.context or {}).get("weapons")
        for weapon, count in self.weapons.items():
            if known is not None and weapon not in known:
                raise Refusal(
                    "error.upload.unknown_weapon",
                    ("weapons", weapon),
                    weapon=weapon,
                    known=", ".join(sorted(known)[:30]) or "—",
                )
            if count > self.full:
                raise Refusal(
                    "error.upload.weapon_count",
                    ("weapons", weapon),
                    weapon=weapon,
                    count=count,
                    full=self.full,
                )
        return self

    def dice(self) -> int:
        """The dice its next aftermath rolls: one a casualty, one more when destroyed."""
        if self.status is Status.DEAD or self.casualties == 0:
            return 0
        return self.casualties + (self.strength == 0)

    def entry(self) -> RosterEntry:
        """The roster entry it gives, its history lines the player's quoted words."""
        history = tuple(HistoryLine(what=NOTE_KEY, params={"text": line}) for line in self.history)
        values = self.model_dump(exclude={"history"})
        return RosterEntry.model_validate({**values, "history": history})


class RosterFile(_Strict):
    """A roster file as written: its side and its entries."""

    side: str = Field(pattern=ID_PATTERN)
    entries: tuple[FileEntry, ...] = Field(min_length=1, max_length=MAX_ENTRIES)

    @model_validator(mode="after")
    def _bounded(self, info: ValidationInfo) -> RosterFile:
        seen: set[str] = set()
        limit: int = (info.context or {}).get("dice", MAX_AFTERMATH_DICE)
        dice = 0
        for index, entry in enumerate(self.entries):
            if entry.id in seen:
                raise Refusal("error.upload.listed_twice", ("entries", index, "id"), unit=entry.id)
            seen.add(entry.id)
            dice += entry.dice()
            if dice > limit:
                total = sum(e.dice() for e in self.entries)
                raise Refusal(
                    "error.upload.aftermath_dice",
                    ("entries", index, "casualties"),
                    dice=total + MAX_AFTERMATH_DICE - limit,
                    limit=MAX_AFTERMATH_DICE,
                )
        return self

    def roster(self) -> Roster:
        """The roster the file gives its side."""
        return Roster(side=self.side, entries=tuple(entry.entry() for entry in self.entries))


def parse_roster(
    text: str,
    source: str = ROSTER_SOURCE,
    *,
    weapons: Collection[str] | None = None,
    dice: int = MAX_AFTERMATH_DICE,
) -> Roster:
    """A roster file's text as a roster; an `InvalidInput` naming ``source`` (the file as
    uploaded) and the line when bad. ``weapons``: the weapon ids the ruleset knows (None:
    not checked); ``dice``: the aftermath dice the file's casualties may take."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ROSTER_BYTES:
        raise InvalidInput(
            "error.scenario.too_big", source=source[:60], size=size, limit=MAX_ROSTER_BYTES
        )
    context: dict[str, Any] = {"dice": dice}
    if weapons is not None:
        context["weapons"] = frozenset(weapons)
    return parse_yaml_model(text, RosterFile, source, context).roster()


__all__ = [
    "MAX_NOTE",
    "MAX_ROSTER_BYTES",
    "MAX_WEAPONS",
    "ROSTER_SOURCE",
    "FileEntry",
    "RosterFile",
    "parse_roster",
]
