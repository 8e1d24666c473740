"""What the post-battle sequence's events carry, and its arithmetic.

After a linked game's result enters its campaign, the post-battle sequence
(`rules.campaign.postbattle`) rolls what becomes of each roster entry and logs it in
``CampaignAftermath`` events (`rules.campaign.events`), one per side (each side rolls its
own part: typed dice feed only it; another side may dispute them, and the bot re-rolls that
part): for each entry (an :class:`EntryAftermath`) the dice
of its fates (a destroyed unit's fate, then one die per strength point lost), the
experience it gained, its promotion, the replacements it got, and its values before and
after. The fold (`rules.campaign.aftermath_fold`) checks every entry against the roster and
against :func:`settled_entry` — the same arithmetic here — so a log cannot say what the
rules would not give, and the replay never rolls again. Once every side rolled, each
confirms (or the referee validates) the outcome (``CampaignConfirm``); the referee
corrects a roster with a logged ``CampaignAdjust``, and a result undone after its aftermath
is unwound by ``CampaignAftermathReversal`` while nothing has changed the entries since.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.campaign.roster import ID_PATTERN, MAX_ENTRIES, MAX_STRENGTH, RosterEntry, Status
from rules.campaign.rules import MAX_RECOVERY, Fate

#: The fields of a roster entry the referee may adjust.
AdjustableField = Literal["strength", "full", "casualties", "experience", "rank", "status", "until"]
ADJUSTABLE_FIELDS: tuple[str, ...] = (
    "strength",
    "full",
    "casualties",
    "experience",
    "rank",
    "status",
    "until",
)
#: The longest reason of an adjustment.
MAX_REASON = 200


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FateRoll(_Frozen):
    """One die of the sequence: its face and the fate its band gave."""

    face: int = Field(ge=1, le=100)
    fate: Fate
    games: int = Field(0, ge=0, le=MAX_RECOVERY)


class Snapshot(_Frozen):
    """What the sequence reads and changes of an entry."""

    strength: int = Field(ge=0, le=MAX_STRENGTH)
    casualties: int = Field(ge=0, le=MAX_STRENGTH)
    experience: int = Field(ge=0, le=100_000)
    rank: str | None = None
    status: Status
    until: int | None = None

    @classmethod
    def of(cls, entry: RosterEntry) -> Snapshot:
        """The snapshot of ``entry`` as it stands."""
        return cls(
            strength=entry.strength,
            casualties=entry.casualties,
            experience=entry.experience,
            rank=entry.rank,
            status=entry.status,
            until=entry.until,
        )

    def onto(self, entry: RosterEntry) -> RosterEntry:
        """``entry`` with these values."""
        return entry.model_copy(update=self.model_dump())


class EntryAftermath(_Frozen):
    """What the sequence did to one roster entry."""

    unit: str = Field(pattern=ID_PATTERN)
    #: The unit's fate when it ended the game destroyed (strength 0 with casualties).
    destroyed: FateRoll | None = None
    #: One die per strength point lost (none when the unit died).
    fates: tuple[FateRoll, ...] = Field((), max_length=MAX_STRENGTH)
    #: Whether it was fielded in the game (experience goes to those who were).
    fought: bool = False
    experience: int = Field(0, ge=0, le=1000)
    #: The rank it is promoted to (None: no promotion).
    promoted: str | None = Field(None, max_length=40)
    replaced: int = Field(0, ge=0, le=MAX_STRENGTH)
    before: Snapshot
    after: Snapshot


def settled_entry(
    before: Snapshot, full: int, number: int, change: EntryAftermath
) -> Snapshot | None:
    """The values an entry holds after ``change`` (None: the change is not one the rules
    give: dice missing or too many, replacements past full strength, a dead unit back)."""
    if before.status is Status.DEAD:
        return None
    status, until = before.status, before.until
    if change.destroyed is not None:
        if before.strength != 0 or before.casualties == 0:
            return None
        if change.destroyed.fate == "dead":
            if change.fates or change.replaced or change.experience or change.promoted:
                return None
            return before.model_copy(update={"casualties": 0, "status": Status.DEAD, "until": None})
        if change.destroyed.fate == "recovering":
            status, until = Status.RECOVERING, number + 1 + change.destroyed.games
    if len(change.fates) != before.casualties:
        return None
    if any(roll.fate == "recovering" for roll in change.fates):
        return None
    returned = sum(1 for roll in change.fates if roll.fate == "returns")
    strength = before.strength + returned + change.replaced
    if strength > full or (change.replaced and before.strength + returned == 0):
        return None
    return Snapshot(
        strength=strength,
        casualties=0,
        experience=before.experience + change.experience,
        rank=change.promoted if change.promoted is not None else before.rank,
        status=status,
        until=until,
    )


__all__ = [
    "ADJUSTABLE_FIELDS",
    "MAX_ENTRIES",
    "MAX_REASON",
    "AdjustableField",
    "EntryAftermath",
    "FateRoll",
    "Snapshot",
    "settled_entry",
]
