"""The post-battle sequence, rolled: a game's result in, its :class:`CampaignAftermath` out.

Each side rolls its own part (:func:`roll_aftermath` with ``side``; without, every side
still to roll, with the bot's dice); a typed part another side disputes is rolled again by
the bot from the rosters as they were before it (:func:`reroll_disputed`). For each side's
roster, entry by entry in roster order (dead entries are past it):

1. a unit that ended the game destroyed (strength 0, casualties held) rolls on the
   ruleset's ``destroyed`` table: dead (nothing more happens to it), recovering for some
   games (it may not be fielded until then), or returns;
2. each strength point lost rolls on the ``casualties`` table: back to the unit, or dead;
3. experience: for having fought, for the side's win, for still standing;
4. promotion one rung up the ladder when the experience reaches it;
5. replacements up to full strength for a unit with someone left (more for the winner).

The dice come from the injected source (a player's typed dice, the bot's, a test's
script) and every face is written in the event: the fold never rolls again. Typed dice
that run short are refused with the count the part needs (:func:`aftermath_dice`, read
from the state before rolling), so that a player can type them all at once. No I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Literal

from rules.campaign.aftermath import EntryAftermath, FateRoll, Snapshot, settled_entry
from rules.campaign.aftermath_fold import taken_back
from rules.campaign.events import CampaignAftermath
from rules.campaign.roster import RosterEntry, Status
from rules.campaign.rules import CampaignRules, FateTable, campaign_rules
from rules.campaign.state import CampaignState
from rules.core.dice import DiceSource
from rules.core.errors import DiceError, DiceNeeded, IllegalAction, InvalidInput

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


def aftermath_dice(state: CampaignState, side: str | None = None) -> AftermathDice:
    """The dice the next aftermath of ``state``'s rosters rolls (``side``'s part alone, when
    given; dead entries roll none)."""
    alive = [
        unit
        for held, roster in state.rosters.items()
        if side is None or held == side
        for unit in roster.entries
        if unit.status is not Status.DEAD
    ]
    return AftermathDice(
        points=sum(unit.casualties for unit in alive),
        destroyed=sum(1 for unit in alive if unit.strength == 0 and unit.casualties > 0),
    )


def to_roll(state: CampaignState, number: int) -> list[str]:
    """The sides whose part of game ``number``'s aftermath is still to roll (every side
    before any rolled)."""
    record = state.aftermaths.get(number)
    return list(state.sides) if record is None else record.unrolled(state.sides)


def roll_aftermath(
    state: CampaignState,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    fielded: Mapping[str, Collection[str]] | None = None,
    side: str | None = None,
) -> CampaignAftermath:
    """Game ``number``'s post-battle sequence for ``side`` (None: every side still to
    roll), its dice drawn from ``dice``. ``fielded``: the unit ids each side fielded in the
    game (None: every entry that could be fielded then). Refused when the game has no
    result or the part had its sequence already."""
    entry = state.game(number)
    if entry is None or entry.result is None:
        raise IllegalAction("error.campaign.no_result", number=number)
    owing = to_roll(state, number)
    if side is not None:
        if side not in owing:
            raise IllegalAction(
                "error.campaign.side_rolled", number=number, side=state.sides.get(side, side)
            )
        owing = [side]
    elif not owing:
        raise IllegalAction("error.campaign.aftermath_done", number=number)
    event = _counted(state, number, rules, dice, fielded, owing, side)
    return event.model_copy(update={"side": side})


def reroll_disputed(
    state: CampaignState,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    fielded: Mapping[str, Collection[str]] | None,
    side: str,
    by: str | None,
) -> CampaignAftermath:
    """``side``'s typed part of game ``number``'s aftermath, disputed by ``by``'s player
    (None: the referee), rolled again with ``dice`` (the bot's) from the rosters as they
    were before it. The fold checks that it may be disputed."""
    record = state.aftermaths.get(number)
    if record is None or side not in record.typed:
        raise IllegalAction("error.campaign.not_disputable", number=number, side=side)
    before = state.model_copy(update={"rosters": taken_back(record, side, state.rosters, number)})
    event = _counted(before, number, rules, dice, fielded, [side], side)
    return event.model_copy(update={"side": side, "disputed": True, "by": by})


def _counted(
    state: CampaignState,
    number: int,
    rules: CampaignRules,
    dice: DiceSource,
    fielded: Mapping[str, Collection[str]] | None,
    owing: list[str],
    side: str | None,
) -> CampaignAftermath:
    """The parts of ``owing`` rolled; typed dice that run short are refused with the count
    ``side``'s part (every part, for None) needs."""
    needed = aftermath_dice(state, side)
    if needed.total > MAX_AFTERMATH_DICE:
        raise InvalidInput(
            "error.campaign.aftermath_too_large", dice=needed.total, limit=MAX_AFTERMATH_DICE
        )
    try:
        return _rolled(state, number, rules, dice, fielded, owing)
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
    owing: list[str],
) -> CampaignAftermath:
    entry = state.game(number)
    assert entry is not None and entry.result is not None  # checked by roll_aftermath
    result = entry.result
    sides: dict[str, tuple[EntryAftermath, ...]] = {}
    for side, roster in state.rosters.items():
        if side not in owing:
            continue
        ids = None if fielded is None else set(fielded.get(side, ()))
        outcome = "drawn" if result.winner is None else ("won" if result.winner == side else "")
        changes = [
            _entry_aftermath(unit, number, rules, dice, outcome, ids)
            for unit in roster.entries
            if unit.status is not Status.DEAD
        ]
        sides[side] = tuple(change for change in changes if change.before != change.after)
    return CampaignAftermath(number=number, sides=sides, by_hand=dice.by_hand)


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


@dataclass(frozen=True, slots=True)
class Owed:
    """What a game whose result is in still owes after the battle: ``owed``, an aftermath
    nobody rolled; ``unrolled``, the ``sides`` still to roll their part; ``unconfirmed``,
    the ``sides`` yet to confirm; ``disputable``, the one side (``sides``) whose typed part
    another side may still dispute."""

    kind: Literal["owed", "unrolled", "unconfirmed", "disputable"]
    number: int
    sides: tuple[str, ...] = ()


def still_owed(state: CampaignState) -> list[Owed]:
    """What the games whose result is in still owe after the battle (campaigns with
    rosters, in rulesets with campaign rules), game by game. Nothing once the campaign is
    over: nothing more can be logged, a command is told so."""
    if state.ended or not state.rosters or campaign_rules(state.ruleset) is None:
        return []
    owed: list[Owed] = []
    for entry in state.games:
        if entry.result is None:
            continue
        record = state.aftermaths.get(entry.number)
        if record is None:
            owed.append(Owed("owed", entry.number))
            continue
        if record.settled(list(state.sides)):
            continue
        unrolled = record.unrolled(state.sides)
        if unrolled:
            owed.append(Owed("unrolled", entry.number, tuple(unrolled)))
        else:
            waiting = tuple(side for side in state.sides if side not in record.confirmed)
            owed.append(Owed("unconfirmed", entry.number, waiting))
        owed.extend(Owed("disputable", entry.number, (side,)) for side in record.typed)
    return owed


__all__ = [
    "MAX_AFTERMATH_DICE",
    "AftermathDice",
    "Owed",
    "aftermath_dice",
    "reroll_disputed",
    "roll_aftermath",
    "still_owed",
    "to_roll",
]
