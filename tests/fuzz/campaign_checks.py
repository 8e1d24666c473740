"""The campaign fuzzer's invariants, as functions of a campaign's log and of the results
the fuzzer saw its games end with (tests/fuzz/campaign.py runs them after every step).

Each reads the log as the issue states the rule, not as the service's code does it: a
result is entered once and reversed only while held; no roster entry's strength rises
without an event that may raise it, none is above its full establishment, the dead never
return; the standings are a recount of the results that hold.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass

from rules.campaign.events import (
    CampaignAdjust,
    CampaignAftermath,
    CampaignEvent,
    CampaignGame,
    CampaignResult,
    CampaignReversal,
)
from rules.campaign.roster import Roster, rosters_hash
from rules.campaign.rules import FateTable, campaign_rules
from rules.campaign.state import CampaignState, Standing, apply, replay, standings
from rules.campaign.text import standing_line

#: Kinds of campaign event that may raise a roster entry's strength, and by how much
#: (:func:`_allowed_rise`): a roster set anew between games (a file, or a side's first
#: game), a result's losses taken back by its reversal, the post-battle sequence (a
#: casualty whose die fell in a band that returns it, replacements), the referee's
#: adjustment of that entry.
RAISES_STRENGTH = frozenset(
    {"campaign.roster", "campaign.reversal", "campaign.aftermath", "campaign.adjust"}
)
#: Kinds of campaign event that may bring a dead entry back: an aftermath unwound (its
#: entries back to their values before it) and nothing else — but a disputed part, which
#: takes back the typed part it replaces (:func:`_revives`).
REVIVES: frozenset[str] = frozenset({"campaign.aftermath_reversal"})


def _revives(event: CampaignEvent) -> bool:
    """Whether ``event`` may bring a dead entry back: an aftermath unwound, or a side's
    typed part disputed and rolled again (the dead of the typed dice may live)."""
    return event.type in REVIVES or (isinstance(event, CampaignAftermath) and event.disputed)


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
        if isinstance(event, CampaignResult):
            key = (event.number, event.final_hash)
            if key in entered:
                problems.append(f"game {event.number}'s result {event.final_hash[:12]} twice")
            if event.number in held:
                problems.append(f"game {event.number}: a result entered over one held")
            entered.add(key)
            held[event.number] = event.final_hash
        elif (
            isinstance(event, CampaignReversal) and held.pop(event.number, None) != event.final_hash
        ):
            problems.append(f"game {event.number}: a reversal of a result not held")
    return problems


def roster_problems(events: Sequence[CampaignEvent]) -> list[str]:
    """Fold the log event by event: no strength rises but by :data:`RAISES_STRENGTH` and
    as far as the event allows (:func:`_allowed_rise`), none above its full establishment,
    no dead entry returns but by :data:`REVIVES`."""
    problems: list[str] = []
    state: CampaignState | None = None
    for number, event in enumerate(events, start=1):
        previous = state
        before = {} if state is None else state.rosters
        state = replay([event]) if state is None else apply(state, event)
        for side, roster in state.rosters.items():
            problems += _roster_changes(
                before.get(side), roster, event, number, _allowed_rise(previous, event, side)
            )
    return problems


def _band(table: FateTable, face: int) -> str:
    return next(band.fate for band in table.bands if band.low <= face <= band.high)


def _allowed_rise(
    state: CampaignState | None, event: CampaignEvent, side: str
) -> dict[str, int] | None:
    """How far ``event`` may raise each entry of ``side`` (None: as far as it likes, a
    roster set anew): read from the event and the ruleset's campaign rules, not from the
    fold's arithmetic."""
    if event.type == "campaign.roster":
        return None
    if state is None:
        return {}
    if isinstance(event, CampaignReversal):
        entry = state.game(event.number)
        held = entry.result if entry is not None else None
        return dict(held.losses.get(side, {})) if held is not None else {}
    if isinstance(event, CampaignAdjust):
        return (
            {event.unit: 10**6}
            if event.side == side
            and event.field
            in (
                "strength",
                "full",
            )
            else {}
        )
    if isinstance(event, CampaignAftermath):
        rules = campaign_rules(state.ruleset)
        game = state.game(event.number)
        if rules is None or game is None or game.result is None:
            return {}
        winner = game.result.winner
        most = rules.replacements.per_game + (
            rules.replacements.drawn
            if winner is None
            else rules.replacements.won
            if winner == side
            else 0
        )
        allowed: dict[str, int] = {}
        for change in event.sides.get(side, ()):
            returned = sum(
                1 for roll in change.fates if _band(rules.casualties, roll.face) == "returns"
            )
            allowed[change.unit] = returned + min(change.replaced, most)
        return allowed
    return {}


def _roster_changes(
    old: Roster | None,
    new: Roster,
    event: CampaignEvent,
    number: int,
    allowed: dict[str, int] | None,
) -> list[str]:
    kind = event.type
    problems: list[str] = []
    previous = {} if old is None else {e.id: e for e in old.entries}
    for entry in new.entries:
        where = f"event {number} ({kind}): {new.side}/{entry.id}"
        if entry.strength > entry.full:
            problems.append(f"{where}: strength {entry.strength} above full {entry.full}")
        was = previous.get(entry.id)
        if was is None:
            continue
        rise = entry.strength - was.strength
        if rise > 0 and kind not in RAISES_STRENGTH:
            problems.append(f"{where}: strength {was.strength} -> {entry.strength}")
        elif rise > 0 and allowed is not None and rise > allowed.get(entry.id, 0):
            problems.append(
                f"{where}: strength {was.strength} -> {entry.strength}, the event allows "
                f"+{allowed.get(entry.id, 0)}"
            )
        if was.status == "dead" and entry.status != "dead" and not _revives(event):
            problems.append(f"{where}: dead, then {entry.status}")
    if old is not None and not _revives(event):
        kept = {e.id for e in new.entries}
        problems += [
            f"event {number} ({kind}): {new.side}/{e.id} dropped"
            for e in old.entries
            if e.status == "dead" and e.id not in kept and kind != "campaign.roster"
        ]
    return problems


def link_problems(events: Sequence[CampaignEvent]) -> list[str]:
    """Each ``campaign.game`` carries the hash of the rosters as the log stood when it was
    linked (recomputed from the replay up to it)."""
    problems: list[str] = []
    state: CampaignState | None = None
    for event in events:
        if isinstance(event, CampaignGame) and state is not None and event.rosters_hash is not None:
            expected = rosters_hash(state.rosters)
            if event.rosters_hash != expected:
                problems.append(
                    f"game {event.number} linked with rosters hash {event.rosters_hash}, "
                    f"the rosters then {expected}"
                )
        state = replay([event]) if state is None else apply(state, event)
    return problems


def held_twice(
    state: CampaignState, fielded: Mapping[int, Mapping[str, Collection[str]]]
) -> list[str]:
    """No roster entry is on the field of two games that hold it at once. ``fielded``: the
    entries each game fields, by side, as read from its document (not as the campaign
    recorded them); a game holds them until its result is in and its aftermath settled."""
    problems: list[str] = []
    holder: dict[tuple[str, str], int] = {}
    for entry in state.games:
        record = state.aftermaths.get(entry.number)
        if entry.result is not None and record is not None and record.settled(list(state.sides)):
            continue
        for side, units in fielded.get(entry.number, {}).items():
            for unit in sorted(units):
                first = holder.setdefault((side, unit), entry.number)
                if first != entry.number:
                    problems.append(
                        f"{side}'s {unit} is fielded by games {first} and {entry.number} at once"
                    )
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
        standing_line(state, rank, Standing(**asdict(line)), language)
        for rank, line in enumerate(recount(state, seen), start=1)
    ]
