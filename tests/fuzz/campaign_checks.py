"""The campaign fuzzer's invariants, as functions of a campaign's log and of the results
the fuzzer saw its games end with (tests/fuzz/campaign.py runs them after every step).

Each reads the log as the issue states the rule, not as the service's code does it: a
result is entered once and reversed only while held; no roster entry's strength rises
without an event that may raise it, none is above its full establishment, the dead never
return; the standings are a recount of the results that hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.core.campaign import (
    CampaignEvent,
    CampaignState,
    ResultEntered,
    ResultReversed,
    apply,
    replay,
    standings,
)
from rules.core.i18n import translate
from rules.core.roster import Roster

#: Kinds of campaign event that may raise a roster entry's strength (a roster set anew
#: between games, a result's losses taken back by its reversal).
RAISES_STRENGTH = frozenset({"campaign.roster", "campaign.reversal"})
#: Kinds of campaign event that may bring a dead entry back: none.
REVIVES: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SeenResult:
    """A result the fuzzer saw a linked game end with: what the campaign must hold."""

    final_hash: str
    winner: str | None
    scores: tuple[tuple[str, int], ...]


# -- the invariants, as functions of the log ------------------------------------------------


def log_problems(events: Sequence[CampaignEvent]) -> list[str]:
    """Each result entered once; a reversal only of the result held, naming its hash."""
    problems: list[str] = []
    entered: set[tuple[int, str]] = set()
    held: dict[int, str] = {}
    for event in events:
        if isinstance(event, ResultEntered):
            key = (event.number, event.final_hash)
            if key in entered:
                problems.append(f"game {event.number}'s result {event.final_hash[:12]} twice")
            if event.number in held:
                problems.append(f"game {event.number}: a result entered over one held")
            entered.add(key)
            held[event.number] = event.final_hash
        elif isinstance(event, ResultReversed) and held.pop(event.number, None) != event.final_hash:
            problems.append(f"game {event.number}: a reversal of a result not held")
    return problems


def roster_problems(events: Sequence[CampaignEvent]) -> list[str]:
    """Fold the log event by event: no strength rises but by :data:`RAISES_STRENGTH`, none
    above its full establishment, no dead entry returns but by :data:`REVIVES`."""
    problems: list[str] = []
    state: CampaignState | None = None
    for number, event in enumerate(events, start=1):
        before = {} if state is None else state.rosters
        state = replay([event]) if state is None else apply(state, event)
        for side, roster in state.rosters.items():
            problems += _roster_changes(before.get(side), roster, event.type, number)
    return problems


def _roster_changes(old: Roster | None, new: Roster, kind: str, number: int) -> list[str]:
    problems: list[str] = []
    previous = {} if old is None else {e.id: e for e in old.entries}
    for entry in new.entries:
        where = f"event {number} ({kind}): {new.side}/{entry.id}"
        if entry.strength > entry.full:
            problems.append(f"{where}: strength {entry.strength} above full {entry.full}")
        was = previous.get(entry.id)
        if was is None:
            continue
        if entry.strength > was.strength and kind not in RAISES_STRENGTH:
            problems.append(f"{where}: strength {was.strength} -> {entry.strength}")
        if was.status == "dead" and entry.status != "dead" and kind not in REVIVES:
            problems.append(f"{where}: dead, then {entry.status}")
    if old is not None and kind not in REVIVES:
        kept = {e.id for e in new.entries}
        problems += [
            f"event {number} ({kind}): {new.side}/{e.id} dropped"
            for e in old.entries
            if e.status == "dead" and e.id not in kept and kind != "campaign.roster"
        ]
    return problems


@dataclass(frozen=True)
class Line:
    """One side's line of the recount."""

    side: str
    played: int
    wins: int
    draws: int
    losses: int
    points: int
    difference: int


def recount(state: CampaignState, seen: Mapping[int, SeenResult | None]) -> list[Line]:
    """The standings from the results the fuzzer saw the games end with, in their order:
    more points, then a better difference, then more wins, then the sides' order."""
    order = list(state.sides)
    lines = []
    for side in order:
        results = [r for r in seen.values() if r is not None]
        wins = sum(1 for r in results if r.winner == side)
        draws = sum(1 for r in results if r.winner is None)
        losses = len(results) - wins - draws
        difference = sum(
            dict(r.scores).get(side, 0) - sum(v for s, v in r.scores if s != side) for r in results
        )
        points = wins * state.points.win + draws * state.points.draw + losses * state.points.loss
        lines.append(Line(side, len(results), wins, draws, losses, points, difference))
    lines.sort(key=lambda x: (-x.points, -x.difference, -x.wins, order.index(x.side)))
    return lines


def standings_problems(state: CampaignState, seen: Mapping[int, SeenResult | None]) -> list[str]:
    """The campaign's standings against :func:`recount`."""
    expected = recount(state, seen)
    actual = [
        Line(s.side, s.played, s.wins, s.draws, s.losses, s.points, s.difference)
        for s in standings(state)
    ]
    return [] if actual == expected else [f"standings {actual}, recounted {expected}"]


def standing_lines(
    state: CampaignState, seen: Mapping[int, SeenResult | None], language: str
) -> list[str]:
    """The standings of :func:`recount` as ``/campaign status`` words them."""
    return [
        translate(
            "bot.campaign.standing",
            language,
            rank=rank,
            side=state.sides[line.side],
            played=line.played,
            wins=line.wins,
            draws=line.draws,
            losses=line.losses,
            points=line.points,
            difference=f"{line.difference:+d}",
        )
        for rank, line in enumerate(recount(state, seen), start=1)
    ]
