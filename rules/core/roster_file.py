"""A roster file: a side's roster written by hand (``/campaign roster side: file:``).

The file is YAML (docs/campaigns.md gives an example)::

    side: legione
    entries:
      - {id: squadra_tattica, name: Squadra tattica, strength: 7, full: 10}
      - {id: devastatori, name: Devastatori, strength: 5, full: 5, experience: 3}

It is read like a scenario (`rules.core.scenario.parse_yaml_model`): hostile YAML is
screened, and every refusal names the file's line and what is wrong there. Bounded: the
file's size (:data:`MAX_ROSTER_BYTES`), its entries and each entry's history
(`rules.core.roster`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.errors import InvalidInput
from rules.core.roster import ID_PATTERN, MAX_ENTRIES, Roster, RosterEntry
from rules.core.scenario import ScenarioReferenceError, parse_yaml_model

#: The largest roster file read (60 entries with their history fit in far less).
MAX_ROSTER_BYTES = 64 * 1024
#: The name a roster file's refusals give it.
ROSTER_SOURCE = "roster.yaml"


class RosterFile(BaseModel):
    """A roster file as written: its side and its entries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    side: str = Field(pattern=ID_PATTERN)
    entries: tuple[RosterEntry, ...] = Field(min_length=1, max_length=MAX_ENTRIES)

    @model_validator(mode="after")
    def _unique(self) -> RosterFile:
        seen: set[str] = set()
        for index, entry in enumerate(self.entries):
            if entry.id in seen:
                raise ScenarioReferenceError(
                    f"unit {entry.id!r} is listed twice", ("entries", index, "id")
                )
            seen.add(entry.id)
        return self

    def roster(self) -> Roster:
        """The roster the file gives its side."""
        return Roster(side=self.side, entries=self.entries)


def parse_roster(text: str) -> Roster:
    """A roster file's text as a roster; an `InvalidInput` naming the line when bad."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ROSTER_BYTES:
        raise InvalidInput(
            "error.scenario.too_big", source=ROSTER_SOURCE, size=size, limit=MAX_ROSTER_BYTES
        )
    return parse_yaml_model(text, RosterFile, ROSTER_SOURCE).roster()


__all__ = ["MAX_ROSTER_BYTES", "ROSTER_SOURCE", "RosterFile", "parse_roster"]
