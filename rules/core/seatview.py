"""What one seat sees of a game: :class:`SeatView`, and what the core derives for it.

A ruleset answers a few questions about a state (:class:`ViewSource`: the status it may
show a seat, the picture, the legal actions, the actions it prompts for, whose turn it is by
its sequence, the names it knows); the core derives the rest the same way for every ruleset
(:func:`follow_ups_of`, :func:`awaiting_of`, the seat's own legal actions, names hidden from
the seat left out), so no ruleset rebuilds the follow-up buttons or whose turn it is by hand.

A seat is a side, the referee (who sees everything) or a spectator (the public view, what the
channel may see). A unit the ruleset marks ``hidden`` (concealed, unobserved) is never in a
view for another side or for the spectator: not in the status, not on the map, not among the
names for autocomplete.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from rules.core.battlefield import MapView, Overlay
from rules.core.legal import LegalAction, for_seat, owed, values_of
from rules.core.resolution import Outcome
from rules.core.score import GameResult, Score

_T = TypeVar("_T")

#: The most follow-up buttons a state offers (Discord's limit of components per message).
MAX_FOLLOW_UPS = 25
#: The most names a seat is offered for one autocomplete (Discord's limit).
MAX_NAMES = 25


@dataclass(frozen=True, slots=True)
class UnitLine:
    """One unit in a status view."""

    id: str
    name: str
    side: str
    group: str
    models: int
    initial_models: int
    statuses: tuple[str, ...]
    place: str
    acted: bool
    hidden: bool = False  # hidden from the enemy: front ends show it to its owner only


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A roll or action owed now: the front ends show it as a button."""

    verb: str
    options: Mapping[str, str]
    label: Outcome
    side: str | None


@dataclass(frozen=True, slots=True)
class StatusView:
    """The state of a game as the front ends show it."""

    title: str
    turn: int
    phase: Outcome
    awaiting: str | None
    sides: Mapping[str, str]
    tokens: Mapping[str, int]
    units: tuple[UnitLine, ...]
    notes: tuple[Outcome, ...] = ()
    ended: bool = False


@dataclass(frozen=True, slots=True)
class Seat:
    """Who looks at (or acts on) a game: a side, the referee, or a spectator — the one seat
    type of the rules, the service and the readers of a game's story.

    ``joined`` marks a spectator who is a member of the game, at no side yet (a player who
    has not picked one, a referee who handed the game over): the rules show them what the
    channel sees, and the service lets them do what seated people do."""

    side: str | None = None
    referee: bool = False
    joined: bool = False

    def __post_init__(self) -> None:
        if self.referee and self.side is not None:
            raise ValueError("the referee sits at no side")
        if self.joined and (self.referee or self.side is not None):
            raise ValueError("only a seat at no side is marked joined")

    @property
    def seated(self) -> bool:
        """Whether someone holds this seat in the game: a side, the referee, a member at
        no side; not a mere spectator."""
        return self.referee or self.side is not None or self.joined

    @classmethod
    def of(cls, side: str | None) -> Seat:
        """The seat of an acting side as the rules always took it (None: the referee)."""
        return REFEREE if side is None else cls(side)

    @property
    def public(self) -> bool:
        """Whether this is the spectator's view: what every seat may see."""
        return self.side is None and not self.referee

    @property
    def viewer(self) -> str | None:
        """The side the view is for; None for the referee and the spectator."""
        return self.side

    def may_see(self, unit: UnitLine) -> bool:
        """Whether this seat may know of a unit: hidden units only by their side and the
        referee."""
        return not unit.hidden or self.referee or unit.side == self.side

    def may_read(self, secret_for: str | None) -> bool:
        """Whether this seat may read what is ``secret_for`` a side (a resolution or a
        notice telling of that side's hidden unit; None: every seat's): its side and the
        referee only."""
        return secret_for is None or self.referee or secret_for == self.side


REFEREE = Seat(referee=True)
SPECTATOR = Seat()


class ViewSource(Protocol):
    """The questions a ruleset answers about one state, each asked only when a view needs it.

    ``status`` is the state as a seat may see it (the referee's lists every unit, hidden ones
    marked ``hidden``); the core leaves out any unit still hidden from the seat. ``prompts``
    are the owed actions and those the ruleset offers as buttons though not owed
    (``LegalAction.button``), in the order of the legal list, found without listing every
    move and fire: at least every owed action that is a button or may come first (it decides
    whose move it is). ``turn`` is the side whose move it is by the turn sequence when
    nothing owed decides it.
    """

    def status(self, seat: Seat) -> StatusView:
        """The state as ``seat`` may see it (the referee's: every unit, hidden ones marked)."""
        ...

    def map(self, seat: Seat, language: str) -> MapView | None:
        """The picture for a seat (None without a battlefield)."""
        ...

    def legal(self) -> list[LegalAction]:
        """Everything any seat may do now (:mod:`rules.core.legal`)."""
        ...

    def prompts(self) -> list[LegalAction]:
        """The owed actions and those offered as buttons, in the legal list's order."""
        ...

    def turn(self) -> str | None:
        """Whose move it is by the turn sequence (None: nobody's, or the game is over)."""
        ...

    def names(self, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete of one kind (units, targets, weapons…) for a side."""
        ...

    def named(self, kind: str) -> Mapping[str, str]:
        """What each id of one kind is called (a unit's, a weapon's name, in each of its
        languages): what a player reads, and may type instead of the id."""
        ...

    def score(self, seat: Seat) -> Score:
        """The score if the game ended now, counting only the units ``seat`` may know of:
        no line (an objective held, a side's losses) may tell of a unit hidden from it."""
        ...

    def result(self) -> GameResult | None:
        """The result of an ended game."""
        ...

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        """What a command given now would draw on its reply's picture (a line of fire),
        read from this state; none for most commands and rulesets."""
        ...


def follow_ups_of(actions: Iterable[LegalAction], ruleset: str) -> list[FollowUp]:
    """The follow-up buttons of some legal actions: each owed (or ``button``) action a seat
    gives with one press.

    The label of an action is its button's text: an action whose required options are all
    fixed is one button (its optional ones left out); one with a single required free choice
    labelled per choice (``OptionSpec.labels``) is one button per choice. An action without
    a label, or that needs more (a distance, a position), is typed, not pressed. An action
    listed alike for several sides (either may roll the initiative) is one button for anyone.
    ``ruleset`` names the ruleset in the error a malformed listing raises.
    """
    listed = [a for a in actions if a.owed or a.button]
    buttons: list[FollowUp] = []
    for action in listed:
        fixed = {name: str(value) for name, value in action.options.items()}
        required = [spec for spec in action.free if spec.required]
        if not required and action.label is not None:
            buttons.append(FollowUp(action.verb, fixed, action.label, action.side))
        elif len(required) == 1 and required[0].labels:
            spec = required[0]
            if len(spec.labels) != len(spec.choices):
                raise ValueError(f"{ruleset}: {action.verb} {spec.name}: a label per choice")
            for choice, label in zip(spec.choices, spec.labels, strict=True):
                options = {**fixed, spec.name: choice}
                buttons.append(FollowUp(action.verb, options, label, action.side))
    return _shared(buttons)[:MAX_FOLLOW_UPS]


def _shared(buttons: list[FollowUp]) -> list[FollowUp]:
    """Buttons listed alike for several sides, as one button anyone may press."""
    merged: dict[tuple[str, tuple[tuple[str, str], ...], Outcome], list[FollowUp]] = {}
    for button in buttons:
        key = (button.verb, tuple(button.options.items()), button.label)
        merged.setdefault(key, []).append(button)
    result = []
    for same in merged.values():
        if len({button.side for button in same}) > 1:
            result.append(replace(same[0], side=None))
        else:
            result += same
    return result


def awaiting_of(prompts: Iterable[LegalAction], turn: Callable[[], str | None]) -> str | None:
    """Whose move it is: the side owing the first owed action (nobody's in particular when
    several sides owe it alike, as an initiative roll either may make), else the side the
    turn sequence names."""
    listed = owed(prompts)
    if not listed:
        return turn()
    first = listed[0]
    alike = {a.side for a in listed if a.verb == first.verb and a.options == first.options}
    return None if len(alike) > 1 else first.side


class SeatView:
    """What one seat sees of one state: the status, the picture, its legal actions, what is
    owed and by whom, whose move it is, the buttons, the score and the result, the names for
    autocomplete.

    Each part is asked of the ruleset only when first read, and kept: a view costs only what
    its reader uses, and every part reads the one state the ruleset validated.
    """

    def __init__(
        self,
        ruleset: str,
        seat: Seat,
        source: ViewSource,
        *,
        owed_first: bool = True,
        owed_in_prompts: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.seat = seat
        self._source = source
        self._owed_first = owed_first
        self._owed_in_prompts = owed_in_prompts
        self._maps: dict[str, MapView | None] = {}
        self._parts: dict[str, Any] = {}

    def _part(self, name: str, compute: Callable[[], _T]) -> _T:
        """A part computed once, when first read. (Not ``functools.cached_property``: on
        Python 3.11 it holds one lock for every instance, so a slow view on one thread
        would hold every other thread's views.)"""
        try:
            found: _T = self._parts[name]
        except KeyError:
            found = self._parts[name] = compute()
        return found

    @property
    def status(self) -> StatusView:
        """The status as this seat may see it: no unit hidden from it, whatever the ruleset
        listed, and whose move it is as the core derives it."""
        return self._part("status", self._status)

    def _status(self) -> StatusView:
        status = self._source.status(self.seat)
        units = tuple(u for u in status.units if self.seat.may_see(u))
        if len(units) != len(status.units):
            status = replace(status, units=units)
        awaiting = None if status.ended else self.awaiting
        return status if awaiting == status.awaiting else replace(status, awaiting=awaiting)

    def map(self, language: str = "it") -> MapView | None:
        """The picture of the table for this seat (None where the game has no battlefield);
        for a spectator, never a hidden unit whatever the ruleset drew."""
        if language not in self._maps:
            view = self._source.map(self.seat, language)
            if view is not None and not self.seat.referee:
                visible = tuple(
                    c for c in view.counters if not c.hidden or c.side == self.seat.side
                )
                if len(visible) != len(view.counters):
                    view = view.model_copy(update={"counters": visible})
            self._maps[language] = view
        return self._maps[language]

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        """What the command ``verb`` with ``options``, given now, draws on the picture of
        its reply (asked before it is played: the state after it may not keep it)."""
        return self._source.marks(verb, options)

    @property
    def every_legal(self) -> list[LegalAction]:
        """Everything any seat may do now (the referee's list)."""
        return self._part("every_legal", self._every_legal)

    def _every_legal(self) -> list[LegalAction]:
        return self._source.legal()

    @property
    def legal(self) -> list[LegalAction]:
        """What this seat may do now (the referee: anything; a spectator: nothing)."""
        return self._part("legal", self._legal)

    def _legal(self) -> list[LegalAction]:
        if self.seat.public:
            return []
        return for_seat(self.every_legal, self.seat.side)

    @property
    def prompts(self) -> list[LegalAction]:
        """The owed actions and the ones offered as buttons (any seat's)."""
        return self._part("prompts", self._prompts)

    def _prompts(self) -> list[LegalAction]:
        return self._source.prompts()

    @property
    def owed(self) -> list[LegalAction]:
        """What must happen before the game moves on, and by whom (any seat's, but what
        names a unit hidden from this seat), from the whole legal list (an owed move needs
        a listing of moves), or from the prompts where the ruleset owes nothing else
        (``owed_in_prompts``: listing every fire at every target only to find none owed
        took a large game's whole work budget)."""
        return self._part("owed", self._owed)

    def _owed(self) -> list[LegalAction]:
        return self._unhidden(owed(self.prompts if self._owed_in_prompts else self.every_legal))

    def _unhidden(self, actions: list[LegalAction]) -> list[LegalAction]:
        """The actions naming no unit hidden from this seat (a hidden unit's owed morale
        test would name it to the enemy and the channel)."""
        hidden = self.hidden_names
        if not hidden:
            return actions
        return [a for a in actions if not any(str(v) in hidden for v in a.options.values())]

    @property
    def awaiting(self) -> str | None:
        """Whose move it is (:func:`awaiting_of`)."""
        return self._part("awaiting", self._awaiting)

    def _awaiting(self) -> str | None:
        if not self._owed_first:
            return self._source.turn()
        return awaiting_of(self.prompts, self._source.turn)

    @property
    def follow_ups(self) -> list[FollowUp]:
        """The buttons of what is owed now (:func:`follow_ups_of`), none naming a unit
        hidden from this seat."""
        return self._part("follow_ups", self._follow_ups)

    def _follow_ups(self) -> list[FollowUp]:
        return follow_ups_of(self._unhidden(self.prompts), self.ruleset)

    @property
    def score(self) -> Score:
        """The score if the game ended now as this seat may count it (the result's once it
        has ended): a unit hidden from the seat is in none of its lines."""
        return self._part("score", self._score)

    def _score(self) -> Score:
        return self._source.score(self.seat)

    @property
    def result(self) -> GameResult | None:
        """The result of an ended game; None while it goes on."""
        return self._part("result", self._result)

    def _result(self) -> GameResult | None:
        return self._source.result()

    @property
    def hidden_names(self) -> frozenset[str]:
        """Ids of the units this seat may not know of."""
        return self._part("hidden_names", self._hidden_names)

    def _hidden_names(self) -> frozenset[str]:
        if self.seat.referee:
            return frozenset()
        every = self._source.status(REFEREE).units
        return frozenset(u.id for u in every if not self.seat.may_see(u))

    def labels(self, kind: str) -> dict[str, str]:
        """What each id of one kind is called (its name, in each of its languages), for
        what this seat may know of: never a unit hidden from it."""
        hidden = self.hidden_names
        named = self._source.named(kind)
        return {key: name for key, name in named.items() if key not in hidden}

    def names(self, kind: str, *, legal_first: bool = True) -> list[str]:
        """Names for autocomplete of one kind: what the seat may use now first (the same
        answer the rules give), then the names the ruleset knows; never a unit hidden from
        this seat. A spectator gives no command: no name (the ruleset's names for no side
        are every side's, which would tell of a hidden unit's weapon or place)."""
        if self.seat.public:
            return []
        side = None if self.seat.referee else self.seat.side
        known = self._source.names(kind, side)
        found = values_of(self.legal, kind) if legal_first else []
        found += [name for name in known if name not in found]
        hidden = self.hidden_names
        if hidden:
            found = [name for name in found if name not in hidden]
        return found


__all__ = [
    "MAX_FOLLOW_UPS",
    "MAX_NAMES",
    "REFEREE",
    "SPECTATOR",
    "FollowUp",
    "Seat",
    "SeatView",
    "StatusView",
    "UnitLine",
    "ViewSource",
    "awaiting_of",
    "follow_ups_of",
]
