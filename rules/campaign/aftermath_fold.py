"""The fold of the post-battle events into a campaign's rosters and aftermaths.

`rules.campaign.state.apply` hands each post-battle event (`rules.campaign.aftermath`) here
with the parts of the state it reads; what comes back replaces those parts. Each event is
checked whole before anything changes: a refusal is a `RulesError` and the state stays as
it was.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from rules.campaign.aftermath import (
    EntryAftermath,
    FateRoll,
    Snapshot,
    settled_entry,
)
from rules.campaign.events import (
    CampaignAdjust,
    CampaignAftermath,
    CampaignAftermathReversal,
    CampaignConfirm,
)
from rules.campaign.roster import HistoryLine, Roster, RosterEntry, Status
from rules.campaign.rules import CampaignRules, FateTable
from rules.core.errors import IllegalAction, InvalidInput


class AftermathRecord(BaseModel):
    """A game's aftermath as the campaign holds it: every side's part rolled so far in one
    event, which sides rolled, whose typed dice may still be disputed, who confirmed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: CampaignAftermath
    #: The sides rolled so far (None: every side, by one event).
    rolled: tuple[str, ...] | None = None
    #: The sides whose part was typed by hand and not re-rolled on a dispute.
    typed: tuple[str, ...] = ()
    confirmed: tuple[str, ...] = ()
    validated: bool = False

    def unrolled(self, sides: Iterable[str]) -> list[str]:
        """The sides of ``sides`` still to roll their part."""
        if self.rolled is None:
            return []
        return [side for side in sides if side not in self.rolled]

    def settled(self, sides: tuple[str, ...] | list[str]) -> bool:
        """Whether every side rolled, and every side confirmed or the referee validated."""
        if self.unrolled(sides):
            return False
        return self.validated or all(side in self.confirmed for side in sides)


AftermathEvent = CampaignAftermath | CampaignConfirm | CampaignAftermathReversal | CampaignAdjust
#: The post-battle events' types, for ``isinstance``.
AFTERMATH_EVENTS = (CampaignAftermath, CampaignConfirm, CampaignAftermathReversal, CampaignAdjust)


def fold_aftermath(
    event: AftermathEvent,
    *,
    sides: Collection[str],
    results: Collection[int],
    last_game: int,
    rosters: Mapping[str, Roster],
    aftermaths: Mapping[int, AftermathRecord],
    rules: CampaignRules | None = None,
) -> dict[str, Any]:
    """The state's ``rosters`` and ``aftermaths`` after ``event`` (as a ``model_copy``
    update). ``results``: the numbers of the games whose result holds; ``last_game``: the
    number of the last game linked; ``rules``: the ruleset's campaign rules, whose bands
    each die's fate must be."""
    if isinstance(event, CampaignAftermath):
        return _rolled(event, sides, results, rosters, aftermaths, rules)
    if isinstance(event, CampaignConfirm):
        return {"aftermaths": _confirmed(event, sides, aftermaths)}
    if isinstance(event, CampaignAftermathReversal):
        return _unwound(event, last_game, rosters, aftermaths)
    return {"rosters": _adjusted(event, rosters)}


def _rolled(
    event: CampaignAftermath,
    sides: Collection[str],
    results: Collection[int],
    rosters: Mapping[str, Roster],
    aftermaths: Mapping[int, AftermathRecord],
    rules: CampaignRules | None,
) -> dict[str, Any]:
    if event.number not in results:
        raise IllegalAction("error.campaign.no_result", number=event.number)
    record = aftermaths.get(event.number)
    if event.side is not None and event.side not in sides:
        raise InvalidInput("error.campaign.unknown_side", side=event.side[:40], known="")
    changed = dict(rosters)
    if event.disputed:
        assert event.side is not None  # the event's own check
        changed = _disputable(event, sides, record, changed)
        owing = [event.side]
    elif record is None:
        owing = list(sides) if event.side is None else [event.side]
    else:
        owing = record.unrolled(sides)
        if event.side is not None:
            if event.side not in owing:
                raise IllegalAction(
                    "error.campaign.side_rolled", number=event.number, side=event.side
                )
            owing = [event.side]
        elif not owing:
            raise IllegalAction("error.campaign.aftermath_done", number=event.number)
    for side in owing:
        roster = changed.get(side)
        covered = {change.unit for change in event.sides.get(side, ())}
        held = roster.entries if roster is not None else ()
        owed = [e.id for e in held if e.casualties and e.id not in covered]
        if owed:  # every casualty gets its fate
            raise IllegalAction("error.campaign.aftermath_incomplete", unit=owed[0])
    for side, changes in event.sides.items():
        part = changed.get(side)
        if part is None or side not in owing:
            raise InvalidInput("error.campaign.unknown_side", side=side[:40], known="")
        changed[side] = _settled_side(event.number, part, changes, rules)
    return {
        "rosters": changed,
        "aftermaths": {**aftermaths, event.number: _recorded(event, owing, record)},
    }


def _settled_side(
    number: int,
    roster: Roster,
    entries: tuple[EntryAftermath, ...],
    rules: CampaignRules | None,
) -> Roster:
    """``roster`` with a side's part of game ``number``'s aftermath applied, each entry
    checked against the roster and the rules."""
    for change in entries:
        entry = roster.entry(change.unit)
        if entry is None or Snapshot.of(entry) != change.before:
            raise IllegalAction("error.campaign.aftermath_stale", unit=change.unit)
        after = settled_entry(change.before, entry.full, number, change)
        if (
            after is None
            or after != change.after
            or not _true_to_the_bands(change, rules)
            or not _within_the_rules(change, rules)
        ):
            raise IllegalAction("error.campaign.aftermath_unruly", unit=change.unit)
        line = HistoryLine(
            game=number,
            what="bot.campaign.history.aftermath",
            params={
                "game": number,
                "before": change.before.strength,
                "after": after.strength,
                "experience": change.experience,
            },
        )
        roster = roster.replaced(after.onto(entry).noted(line))
    return roster


def _disputable(
    event: CampaignAftermath,
    sides: Collection[str],
    record: AftermathRecord | None,
    rosters: dict[str, Roster],
) -> dict[str, Roster]:
    """The rosters with the disputed side's typed part taken back, when it may be
    disputed: typed by hand, not settled, and not by a side that confirmed it."""
    assert event.side is not None
    if record is None or event.side not in record.typed:
        raise IllegalAction("error.campaign.not_disputable", number=event.number, side=event.side)
    if record.settled(list(sides)):
        raise IllegalAction("error.campaign.aftermath_settled", number=event.number)
    if event.by is not None and (event.by not in sides or event.by in record.confirmed):
        raise IllegalAction("error.campaign.already_confirmed", number=event.number)
    return taken_back(record, event.side, rosters, event.number)


def taken_back(
    record: AftermathRecord, side: str, rosters: Mapping[str, Roster], number: int
) -> dict[str, Roster]:
    """``rosters`` with ``side``'s part of game ``number``'s aftermath taken back (its
    entries as they were before it), while every entry still holds what the part left."""
    changed = dict(rosters)
    roster = changed.get(side)
    for change in record.event.sides.get(side, ()):
        entry = None if roster is None else roster.entry(change.unit)
        if roster is None or entry is None or Snapshot.of(entry) != change.after:
            raise IllegalAction("error.campaign.aftermath_changed", number=number)
        line = HistoryLine(
            game=number,
            what="bot.campaign.history.aftermath_reversed",
            params={"game": number},
        )
        roster = roster.replaced(change.before.onto(entry).noted(line))
    if roster is not None:
        changed[side] = roster
    return changed


def _recorded(
    event: CampaignAftermath, owing: list[str], record: AftermathRecord | None
) -> AftermathRecord:
    """The game's record once ``event`` rolled the parts of ``owing``."""
    if record is None and event.side is None:
        return AftermathRecord(event=event)  # every side at once, as older logs rolled
    typed = [event.side] if event.by_hand and event.side is not None else []
    if record is None:
        whole = event.model_copy(update={"side": None})
        return AftermathRecord(event=whole, rolled=tuple(owing), typed=tuple(typed))
    parts = {side: event.sides.get(side, ()) for side in owing}
    whole = record.event.model_copy(
        update={
            "sides": {**record.event.sides, **parts},
            "by_hand": record.event.by_hand or event.by_hand,
        }
    )
    if event.disputed:  # the outcome changed: every side confirms it anew
        kept = tuple(side for side in record.typed if side != event.side)
        return record.model_copy(update={"event": whole, "typed": kept, "confirmed": ()})
    rolled = (*(record.rolled or ()), *owing)
    return record.model_copy(
        update={"event": whole, "rolled": rolled, "typed": (*record.typed, *typed)}
    )


def _true_to_the_bands(change: EntryAftermath, rules: CampaignRules | None) -> bool:
    """Whether each die's fate (and games of recovery) is the one its face falls in on the
    rules' table: a log cannot make a point the dice killed return."""
    if rules is None:
        return True

    def banded(roll: FateRoll, table: FateTable) -> bool:
        if not 1 <= roll.face <= table.die:
            return False
        band = table.band(roll.face)
        return (band.fate, band.games) == (roll.fate, roll.games)

    destroyed = change.destroyed is None or banded(change.destroyed, rules.destroyed)
    return destroyed and all(banded(roll, rules.casualties) for roll in change.fates)


def _within_the_rules(change: EntryAftermath, rules: CampaignRules | None) -> bool:
    """Whether the experience and replacements an entry got are no more than the rules
    give any unit after any result (the most a winner's unit still standing gets): a log
    cannot refill a unit or raise it past what the sequence could have."""
    if rules is None:
        return True
    gains = rules.experience
    most_experience = gains.fought + gains.won + gains.survived if change.fought else 0
    extra = max(rules.replacements.won, rules.replacements.drawn)
    return (
        change.experience <= most_experience
        and change.replaced <= rules.replacements.per_game + extra
    )


def _confirmed(
    event: CampaignConfirm, sides: Collection[str], aftermaths: Mapping[int, AftermathRecord]
) -> dict[int, AftermathRecord]:
    record = aftermaths.get(event.number)
    if record is None:
        raise IllegalAction("error.campaign.no_aftermath", number=event.number)
    if record.settled(list(sides)):
        raise IllegalAction("error.campaign.aftermath_settled", number=event.number)
    unrolled = record.unrolled(sides)
    if unrolled:  # confirmations wait until every side has rolled
        raise IllegalAction(
            "error.campaign.aftermath_unrolled", number=event.number, sides=", ".join(unrolled)
        )
    if event.side is None:
        record = record.model_copy(update={"validated": True})
    elif event.side not in sides:
        raise InvalidInput("error.campaign.unknown_side", side=event.side[:40], known="")
    elif event.side in record.confirmed:
        raise IllegalAction("error.campaign.already_confirmed", number=event.number)
    else:
        record = record.model_copy(update={"confirmed": (*record.confirmed, event.side)})
    return {**aftermaths, event.number: record}


def _unwound(
    event: CampaignAftermathReversal,
    last_game: int,
    rosters: Mapping[str, Roster],
    aftermaths: Mapping[int, AftermathRecord],
) -> dict[str, Any]:
    """Back to the values before the aftermath, when every entry still holds the values
    it left and no later game was linked (else the referee adjusts by hand)."""
    record = aftermaths.get(event.number)
    if record is None:
        raise IllegalAction("error.campaign.no_aftermath", number=event.number)
    if last_game != event.number:
        raise IllegalAction("error.campaign.aftermath_changed", number=event.number)
    changed = dict(rosters)
    for side in record.event.sides:
        changed = taken_back(record, side, changed, event.number)
    left = {number: held for number, held in aftermaths.items() if number != event.number}
    return {"rosters": changed, "aftermaths": left}


def _adjusted(event: CampaignAdjust, rosters: Mapping[str, Roster]) -> dict[str, Roster]:
    roster = rosters.get(event.side)
    entry = None if roster is None else roster.entry(event.unit)
    if roster is None or entry is None:
        raise IllegalAction("error.campaign.no_entry", unit=event.unit, side=event.side[:40])
    before = getattr(entry, event.field)
    data = entry.model_dump()
    value: object = event.value
    if event.field == "rank":
        value = None if event.value == "-" else event.value
    elif event.field == "status":
        if event.value not in (Status.FIT, Status.DEAD):
            raise InvalidInput("error.campaign.bad_adjust", field=event.field, value=event.value)
        data["until"] = None
    elif event.field == "until":
        data["status"] = Status.RECOVERING
    elif not event.value.isdigit():
        raise InvalidInput("error.campaign.bad_adjust", field=event.field, value=event.value)
    data[event.field] = value
    try:
        adjusted = RosterEntry.model_validate(data)
    except ValidationError:
        raise InvalidInput(
            "error.campaign.bad_adjust", field=event.field, value=event.value
        ) from None
    after = getattr(adjusted, event.field)
    line = HistoryLine(
        what="bot.campaign.history.adjusted",
        params={
            "field": event.field,
            "before": str(before if before is not None else "-"),
            "after": str(after if after is not None else "-"),
            "reason": event.reason[:60],
        },
    )
    return {**rosters, event.side: roster.replaced(adjusted.noted(line))}


__all__ = ["AFTERMATH_EVENTS", "AftermathEvent", "AftermathRecord", "fold_aftermath", "taken_back"]
