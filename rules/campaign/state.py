"""A campaign as a pure fold over its log: the state its events build, the standings.

A campaign is a log of typed events (`rules.campaign.events`: created, a side joined, a
game linked, a game's result entered, a result reversed, the campaign ended, after the
battle, a book and its calendar). :func:`apply` checks one event
against the state so far and returns the next state; :func:`replay` folds a whole log. The
service stores each event in the campaign's own hash-chained log and the state beside it;
the state is never edited by hand, so it always equals the replay of the log (a test says
so). Standings are computed from the state's results, never kept: :func:`standings` is the
recount.

No I/O here: the service reads and writes the log (``bot/service/campaign/``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from rules.campaign.aftermath_fold import (
    AFTERMATH_EVENTS,
    AftermathEvent,
    AftermathRecord,
    fold_aftermath,
)
from rules.campaign.events import (
    CampaignBook,
    CampaignCreated,
    CampaignDue,
    CampaignEvent,
    CampaignGame,
    CampaignInvite,
    CampaignJoined,
    CampaignJoinRequest,
    CampaignOverdue,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
    FieldedUnits,
    Points,
)
from rules.campaign.roster import HistoryLine, Roster
from rules.campaign.rules import campaign_rules
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.words import LocalizedName

#: The campaign state's format, stamped in its document.
CAMPAIGN_FORMAT = 1
#: The most games and sides' players one campaign holds: what a
#: player can make large is bounded.
MAX_GAMES = 200
MAX_PLAYERS = 50


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Calendar(_Frozen):
    """The dates games are due by and the decisions taken on overdue ones."""

    due: dict[int, dt.date] = {}
    #: The last decision on each game (a forfeit's side with it).
    decisions: dict[int, CampaignOverdue] = {}


def book_opened(
    current: CampaignBook | None, event: CampaignBook, sides: Collection[str], games: int
) -> CampaignBook:
    """The book a campaign follows after ``event`` (refused once it has one or a game)."""
    if current is not None or games:
        raise IllegalAction("error.campaign.book_late")
    for area in event.areas:
        if area.holder not in sides:
            raise InvalidInput(
                "error.campaign.unknown_side", side=area.holder[:40], known=", ".join(sides)
            )
    return event


def calendar_after(
    calendar: Calendar,
    event: CampaignDue | CampaignOverdue,
    *,
    playing: bool,
    sides: Collection[str],
) -> Calendar:
    """The calendar after ``event`` on a game (``playing``: linked and without a result)."""
    if not playing:
        raise IllegalAction("error.campaign.not_playing", number=event.number)
    if isinstance(event, CampaignDue):
        return calendar.model_copy(update={"due": {**calendar.due, event.number: event.by}})
    if event.number not in calendar.due:
        raise IllegalAction("error.campaign.no_date", number=event.number)
    due = dict(calendar.due)
    if event.decision == "extend":
        if event.until is None or event.until <= calendar.due[event.number]:
            raise InvalidInput("error.campaign.bad_extension", number=event.number)
        due[event.number] = event.until
    else:
        if event.decision == "forfeit" and event.side not in sides:
            raise InvalidInput(
                "error.campaign.unknown_side", side=str(event.side)[:40], known=", ".join(sides)
            )
        del due[event.number]
    decisions = {**calendar.decisions, event.number: event}
    return Calendar(due=due, decisions=decisions)


class GameEntry(_Frozen, FieldedUnits):
    """A linked game: its number, where and from what, its result while one holds, and the
    roster entries it fields (:class:`FieldedUnits`)."""

    number: int
    channel: int
    scenario: str
    result: CampaignResult | None = None


class CampaignState(_Frozen):
    """Everything the log says so far."""

    format: int = CAMPAIGN_FORMAT
    ruleset: str
    name: str
    points: Points
    sides: dict[str, LocalizedName]
    referee: int
    players: dict[str, list[int]]
    #: Seats pending, by user: the side each asked for, the side each was invited to.
    requests: dict[int, str] = {}
    invitations: dict[int, str] = {}
    games: list[GameEntry] = []
    #: Each side's roster (`rules.campaign.roster`), once the campaign's log has given it one.
    rosters: dict[str, Roster] = {}
    #: Each game's post-battle sequence, by game number, once rolled (`rules.campaign.aftermath`).
    aftermaths: dict[int, AftermathRecord] = {}
    ended: bool = False
    #: The bundled campaign it follows (`rules.campaign.book`), if any.
    book: CampaignBook | None = None
    #: The dates its games are due by, and the referee's decisions on overdue ones.
    calendar: Calendar = Calendar()

    def side_of(self, user: int) -> str | None:
        """The side ``user`` plays, if any."""
        return next((side for side, users in self.players.items() if user in users), None)

    def game(self, number: int) -> GameEntry | None:
        """The linked game numbered ``number``, if any."""
        return self.games[number - 1] if 0 < number <= len(self.games) else None

    def holds(self, entry: GameEntry) -> bool:
        """Whether game ``entry`` still holds the units it fields: until its result is in
        and, in a ruleset with campaign rules, its aftermath settled (every side rolled
        and confirmed), since until then the rosters are still changing for it."""
        if entry.result is None:
            return True
        if campaign_rules(self.ruleset) is None:
            return False
        record = self.aftermaths.get(entry.number)
        return record is None or not record.settled(list(self.sides))

    def held_units(self) -> dict[str, dict[str, int]]:
        """The roster entries games still hold (:meth:`holds`): side -> unit -> the number
        of the game holding it. No other game may field them."""
        held: dict[str, dict[str, int]] = {}
        for entry in self.games:
            if entry.fielded and self.holds(entry):
                for side, units in entry.fielded.items():
                    held.setdefault(side, {}).update(dict.fromkeys(units, entry.number))
        return held

    def playing_in(self, channel: int) -> GameEntry | None:
        """The linked game in ``channel`` still without a result, if any."""
        return next((e for e in self.games if e.channel == channel and e.result is None), None)

    def to_json(self) -> dict[str, Any]:
        """The state as the campaign's stored document."""
        data: dict[str, Any] = self.model_dump(mode="json")
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CampaignState:
        """A state stored with :meth:`to_json`."""
        return cls.model_validate(dict(data))


def start(event: CampaignCreated) -> CampaignState:
    """The state a campaign begins with."""
    if len(event.sides) < 2:
        raise InvalidInput("error.campaign.no_sides", ruleset=event.ruleset)
    book = None if event.book is None else book_opened(None, event.book, event.sides, 0)
    return CampaignState(
        ruleset=event.ruleset,
        name=event.name,
        points=event.points,
        sides=dict(event.sides),
        referee=event.referee,
        players={side: [] for side in event.sides},
        book=book,
    )


def apply(state: CampaignState, event: CampaignEvent) -> CampaignState:
    """The state after ``event``; a `RulesError` (the state unchanged) when it may not
    happen now."""
    if isinstance(event, CampaignCreated):
        raise IllegalAction("error.campaign.exists", name=state.name)
    if state.ended:
        raise IllegalAction("error.campaign.ended", name=state.name)
    if isinstance(event, CampaignJoined):
        return _joined(state, event)
    if isinstance(event, CampaignJoinRequest | CampaignInvite):
        return _pending(state, event)
    if isinstance(event, CampaignRoster):
        return _roster_set(state, event)
    if isinstance(event, CampaignGame):
        return _linked(state, event)
    if isinstance(event, CampaignResult):
        return _entered(state, event)
    if isinstance(event, CampaignReversal):
        if event.number in state.aftermaths:  # unwound first, by its own logged event
            raise IllegalAction("error.campaign.aftermath_first", number=event.number)
        return _reversed(state, event)
    if isinstance(event, AFTERMATH_EVENTS):
        return state.model_copy(update=_aftermath_update(state, event))
    if isinstance(event, CampaignBook):
        return state.model_copy(
            update={"book": book_opened(state.book, event, state.sides, len(state.games))}
        )
    if isinstance(event, CampaignDue | CampaignOverdue):
        entry = state.game(event.number)
        playing = entry is not None and entry.result is None
        calendar = calendar_after(state.calendar, event, playing=playing, sides=state.sides)
        return state.model_copy(update={"calendar": calendar})
    unsettled = [entry.number for entry in state.games if entry.result is None]
    if unsettled:
        raise IllegalAction("error.campaign.games_unsettled", games=len(unsettled))
    return state.model_copy(update={"ended": True})


def _aftermath_update(
    state: CampaignState,
    event: AftermathEvent,
) -> dict[str, Any]:
    return fold_aftermath(
        event,
        sides=tuple(state.sides),
        results=[entry.number for entry in state.games if entry.result is not None],
        last_game=len(state.games),
        rosters=state.rosters,
        aftermaths=state.aftermaths,
        rules=campaign_rules(state.ruleset),
    )


def _may_join(state: CampaignState, side: str, user: int) -> None:
    if side not in state.sides:
        raise InvalidInput(
            "error.campaign.unknown_side", side=side[:40], known=", ".join(state.sides)
        )
    current = state.side_of(user)
    if current is not None:
        raise IllegalAction("error.campaign.already_joined", side=state.sides[current])


def _pending(state: CampaignState, event: CampaignJoinRequest | CampaignInvite) -> CampaignState:
    _may_join(state, event.side, event.user)
    field = "requests" if isinstance(event, CampaignJoinRequest) else "invitations"
    held: dict[int, str] = getattr(state, field)
    if len(held) >= MAX_PLAYERS and event.user not in held:
        raise IllegalAction("error.campaign.too_many_players", limit=MAX_PLAYERS)
    return state.model_copy(update={field: {**held, event.user: event.side}})


def _joined(state: CampaignState, event: CampaignJoined) -> CampaignState:
    _may_join(state, event.side, event.user)
    if sum(len(users) for users in state.players.values()) >= MAX_PLAYERS:
        raise IllegalAction("error.campaign.too_many_players", limit=MAX_PLAYERS)
    players = {side: list(users) for side, users in state.players.items()}
    players[event.side].append(event.user)
    requests = {user: side for user, side in state.requests.items() if user != event.user}
    invitations = {user: side for user, side in state.invitations.items() if user != event.user}
    return state.model_copy(
        update={"players": players, "requests": requests, "invitations": invitations}
    )


def _roster_set(state: CampaignState, event: CampaignRoster) -> CampaignState:
    if event.side not in state.sides or event.roster.side != event.side:
        raise InvalidInput(
            "error.campaign.unknown_side", side=event.side[:40], known=", ".join(state.sides)
        )
    playing = [entry.number for entry in state.games if entry.result is None]
    if playing:
        raise IllegalAction("error.campaign.roster_in_play", number=playing[0])
    return state.model_copy(update={"rosters": {**state.rosters, event.side: event.roster}})


def _carried(
    state: CampaignState, event: CampaignResult, sign: int
) -> tuple[dict[str, Roster], dict[str, dict[str, int]]]:
    """The rosters with a result's losses carried (``sign`` 1) or taken back (-1), and the
    losses as carried (by the rosters' units, none more than the strength there was):
    strength lost becomes casualties awaiting their fate; taking back needs them unsettled."""
    rosters = dict(state.rosters)
    carried: dict[str, dict[str, int]] = {}
    for side, lost in event.losses.items():
        roster = rosters.get(side)
        if roster is None:
            continue
        for unit, amount in lost.items():
            entry = roster.entry(unit)
            if entry is None or amount == 0:
                continue
            if sign > 0:
                amount = min(amount, entry.strength)
                what = "bot.campaign.history.lost"
            elif entry.casualties < amount or entry.strength + amount > entry.full:
                # settled since, or its full strength corrected below what would return
                raise IllegalAction("error.campaign.casualties_settled", number=event.number)
            else:
                what = "bot.campaign.history.lost_reversed"
            changed = entry.model_copy(
                update={
                    "strength": entry.strength - sign * amount,
                    "casualties": entry.casualties + sign * amount,
                }
            ).noted(
                HistoryLine(
                    game=event.number, what=what, params={"lost": amount, "game": event.number}
                )
            )
            roster = roster.replaced(changed)
            carried.setdefault(side, {})[unit] = amount
        rosters[side] = roster
    return rosters, carried


def _linked(state: CampaignState, event: CampaignGame) -> CampaignState:
    if state.playing_in(event.channel) is not None:
        raise IllegalAction("error.campaign.game_in_play", channel=event.channel)
    if len(state.games) >= MAX_GAMES:
        raise IllegalAction("error.campaign.too_many_games", limit=MAX_GAMES)
    if event.number != len(state.games) + 1:
        raise IllegalAction("error.campaign.not_linked", number=event.number)
    held = state.held_units()
    for side, units in event.fielded.items():
        if side not in state.sides:
            raise InvalidInput(
                "error.campaign.unknown_side", side=side[:40], known=", ".join(state.sides)
            )
        # One unit never fights two games at once: the muster leaves a held unit behind,
        # and a link mustered on an older state (another process's game listed since) is
        # refused here, before its losses could be carried twice.
        taken = [unit for unit in units if unit in held.get(side, {})]
        if taken:
            raise IllegalAction(
                "error.campaign.unit_held",
                unit=taken[0],
                number=held[side][taken[0]],
                game=event.number,
            )
    entry = GameEntry(
        number=event.number,
        channel=event.channel,
        scenario=event.scenario,
        fielded=dict(event.fielded),
    )
    games = [*state.games, entry]
    return state.model_copy(update={"games": games})


def _replace(state: CampaignState, entry: GameEntry) -> CampaignState:
    games = [entry if old.number == entry.number else old for old in state.games]
    return state.model_copy(update={"games": games})


def _entered(state: CampaignState, event: CampaignResult) -> CampaignState:
    entry = state.game(event.number)
    if entry is None:
        raise IllegalAction("error.campaign.not_linked", number=event.number)
    if entry.result is not None:
        raise IllegalAction("error.campaign.result_held", number=event.number)
    if event.winner is not None and event.winner not in state.sides:
        raise InvalidInput("error.campaign.unknown_side", side=event.winner, known="")
    rosters, carried = _carried(state, event, 1)
    # The entry keeps the losses as carried, so a reversal takes back exactly those.
    held = event.model_copy(update={"losses": carried})
    entered = _replace(state, entry.model_copy(update={"result": held}))
    return entered.model_copy(update={"rosters": rosters})


def _reversed(state: CampaignState, event: CampaignReversal) -> CampaignState:
    entry = state.game(event.number)
    if entry is None or entry.result is None or entry.result.final_hash != event.final_hash:
        raise IllegalAction("error.campaign.no_result", number=event.number)
    rosters, _ = _carried(state, entry.result, -1)
    reversed_ = _replace(state, entry.model_copy(update={"result": None}))
    return reversed_.model_copy(update={"rosters": rosters})


def replay(events: Iterable[CampaignEvent]) -> CampaignState:
    """The state a whole log builds (the first event creates the campaign)."""
    state: CampaignState | None = None
    for event in events:
        if state is None:
            if not isinstance(event, CampaignCreated):
                raise IllegalAction("error.campaign.not_created")
            state = start(event)
        else:
            state = apply(state, event)
    if state is None:
        raise IllegalAction("error.campaign.not_created")
    return state


@dataclass(frozen=True, slots=True)
class Standing:
    """One side's line of the standings."""

    side: str
    played: int
    wins: int
    draws: int
    losses: int
    points: int
    #: The tiebreaker: the game points it scored less those scored against it.
    difference: int


def standings(state: CampaignState) -> tuple[Standing, ...]:
    """The standings recounted from the results that hold: by points, then points
    difference, then wins; sides still level keep their order of declaration."""
    counts = {side: [0, 0, 0, 0, 0] for side in state.sides}  # played w d l difference
    for entry in state.games:
        result = entry.result
        if result is None:
            continue
        for side in state.sides:
            line = counts[side]
            line[0] += 1
            if result.winner is None:
                line[2] += 1
            elif result.winner == side:
                line[1] += 1
            else:
                line[3] += 1
            own = result.scores.get(side, 0)
            against = sum(v for s, v in result.scores.items() if s != side)
            line[4] += own - against
    points = state.points
    table = [
        Standing(
            side=side,
            played=played,
            wins=wins,
            draws=draws,
            losses=losses,
            points=wins * points.win + draws * points.draw + losses * points.loss,
            difference=difference,
        )
        for side, (played, wins, draws, losses, difference) in counts.items()
    ]
    order = list(state.sides)
    table.sort(key=lambda s: (-s.points, -s.difference, -s.wins, order.index(s.side)))
    return tuple(table)


__all__ = [
    "CAMPAIGN_FORMAT",
    "MAX_GAMES",
    "MAX_PLAYERS",
    "Calendar",
    "CampaignState",
    "GameEntry",
    "Standing",
    "apply",
    "book_opened",
    "calendar_after",
    "replay",
    "standings",
    "start",
]
