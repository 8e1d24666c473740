"""The post-battle sequence, rolled: a game's result in, its :class:`Aftermath` out.

For each side's roster, entry by entry in roster order (dead entries are past it):

1. a unit that ended the game destroyed (strength 0, casualties held) rolls on the
   ruleset's ``destroyed`` table: dead (nothing more happens to it), recovering for some
   games (it may not be fielded until then), or returns;
2. each strength point lost rolls on the ``casualties`` table: back to the unit, or dead;
3. experience: for having fought, for the side's win, for still standing;
4. promotion one rung up the ladder when the experience reaches it;
5. replacements up to full strength for a unit with someone left (more for the winner).

The dice come from the injected source (a player's typed dice, the bot's, a test's
script) and every face is written in the event: the fold never rolls again. Typed dice
that run short are refused with the count the whole sequence needs (:func:`aftermath_dice`,
read from the state before rolling), so that a player can type them all at once. No I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from rules.core.aftermath import Aftermath, EntryAftermath, FateRoll, Snapshot, settled_entry
from rules.core.campaign import CampaignState
from rules.core.campaign_rules import CampaignRules, FateTable
from rules.core.dice import DiceSource
from rules.core.errors import DiceError, DiceNeeded, IllegalAction, InvalidInput
from rules.core.roster import RosterEntry, Status

#: The most dice one aftermath rolls (a die per strength point lost, one per unit
#: destroyed): what a roster file can make large is bounded.
MAX_AFTERMATH_DICE = 2000


@dataclass(frozen=True)
class AftermathDice:
    """The dice an aftermath rolls, counted from the rosters before it: one per strength
    point lost, and one more, rolled first, per unit destroyed (a destroyed unit whose die
    reads dead rolls none for its points, so ``total`` is then an upper bound)."""

    points: int
    destroyed: int

    @property
    def total(self) -> int:
        """Every die, when no destroyed unit is found dead."""
        return self.points + self.destroyed


def aftermath_dice(state: CampaignState) -> AftermathDice:
    """The dice the next aftermath of ``state``'s rosters rolls (dead entries roll none)."""
    alive = [
        unit
        for roster in state.rosters.values()
        for unit in roster.entries
        if unit.status is not Status.DEAD
    ]
    return AftermathDice(
        points=sum(unit.casualties for unit in alive),
        destroyed=sum(1 for unit in alive if unit.strength == 0 and unit.casualties > 0),
    )


def roll_aftermath(
    state: CampaignState,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    fielded: Mapping[str, Collection[str]] | None = None,
) -> Aftermath:
    """Game ``number``'s post-battle sequence for every side, its dice drawn from
    ``dice``. ``fielded``: the unit ids each side fielded in the game (None: every entry
    that could be fielded then). Refused when the game has no result or had its
    sequence already."""
    entry = state.game(number)
    if entry is None or entry.result is None:
        raise IllegalAction("error.campaign.no_result", number=number)
    if number in state.aftermaths:
        raise IllegalAction("error.campaign.aftermath_done", number=number)
    needed = aftermath_dice(state)
    if needed.total > MAX_AFTERMATH_DICE:
        raise InvalidInput(
            "error.campaign.aftermath_too_large", dice=needed.total, limit=MAX_AFTERMATH_DICE
        )
    try:
        return _rolled(state, number, rules, dice, fielded)
    except DiceNeeded as short:
        # Typed dice ran out: no prompt here (the sequence is one event); say how many
        # it takes, so that the player types them all in one go.
        key = "error.campaign.aftermath_dice_short"
        if needed.destroyed:
            key = "error.campaign.aftermath_dice_short_destroyed"
        raise DiceError(
            key,
            number=number,
            n=needed.total,
            typed=short.given,
            die=rules.casualties.dice.name,
            destroyed=needed.destroyed,
        ) from None


def _rolled(
    state: CampaignState,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    fielded: Mapping[str, Collection[str]] | None,
) -> Aftermath:
    entry = state.game(number)
    assert entry is not None and entry.result is not None  # checked by roll_aftermath
    result = entry.result
    sides: dict[str, tuple[EntryAftermath, ...]] = {}
    for side, roster in state.rosters.items():
        ids = None if fielded is None else set(fielded.get(side, ()))
        outcome = "drawn" if result.winner is None else ("won" if result.winner == side else "")
        changes = [
            _entry_aftermath(unit, number, rules, dice, outcome, ids)
            for unit in roster.entries
            if unit.status is not Status.DEAD
        ]
        sides[side] = tuple(change for change in changes if change.before != change.after)
    return Aftermath(number=number, sides=sides, by_hand=dice.by_hand)


def _roll(table: FateTable, dice: DiceSource, label: str) -> FateRoll:
    face = dice.face(table.dice, label)
    band = table.band(face)
    return FateRoll(face=face, fate=band.fate, games=band.games)


def _entry_aftermath(
    unit: RosterEntry,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    outcome: str,
    fielded: set[str] | None,
) -> EntryAftermath:
    before = Snapshot.of(unit)
    fought = (
        unit.id in fielded
        if fielded is not None
        else (unit.strength + unit.casualties > 0 and _could_field(unit, number))
    )
    destroyed = None
    if unit.strength == 0 and unit.casualties > 0:
        destroyed = _roll(rules.destroyed, dice, f"{unit.id}: destroyed")
        if destroyed.fate == "dead":
            return _checked(
                unit,
                number,
                EntryAftermath(
                    unit=unit.id, destroyed=destroyed, fought=fought, before=before, after=before
                ),
            )
    fates = tuple(
        _roll(rules.casualties, dice, f"{unit.id}: {index}/{unit.casualties}")
        for index in range(1, unit.casualties + 1)
    )
    standing = unit.strength + sum(1 for roll in fates if roll.fate == "returns")
    gained = 0
    if fought:
        gained = rules.experience.fought + (rules.experience.won if outcome == "won" else 0)
        gained += rules.experience.survived if unit.strength > 0 else 0
    promoted = rules.next_rank(unit.rank, unit.experience + gained)
    wanted = rules.replacements.per_game
    wanted += {"won": rules.replacements.won, "drawn": rules.replacements.drawn}.get(outcome, 0)
    # Never below none: an entry logged before adjustments were bounded may stand at more
    # than its full strength once its casualties return.
    replaced = max(0, min(wanted, unit.full - standing)) if standing > 0 else 0
    change = EntryAftermath(
        unit=unit.id,
        destroyed=destroyed,
        fates=fates,
        fought=fought,
        experience=gained,
        promoted=promoted,
        replaced=replaced,
        before=before,
        after=before,
    )
    return _checked(unit, number, change)


def _could_field(unit: RosterEntry, number: int) -> bool:
    return unit.status is Status.FIT or (unit.until is not None and number >= unit.until)


def _checked(unit: RosterEntry, number: int, change: EntryAftermath) -> EntryAftermath:
    """The change with its ``after`` worked out by the fold's own arithmetic."""
    after = settled_entry(change.before, unit.full, number, change)
    if after is None:  # pragma: no cover - the sequence above only makes what it allows
        raise AssertionError(f"aftermath of {unit.id} is not one the rules give")
    return change.model_copy(update={"after": after})


__all__ = ["MAX_AFTERMATH_DICE", "AftermathDice", "aftermath_dice", "roll_aftermath"]
