"""What a ruleset offers for play, independent of the front end.

A ruleset is played through three calls (:mod:`rules.core.surface`): ``setup`` a game from a
scenario, ``view`` it as one seat sees it (:class:`rules.core.seatview.SeatView`), ``act`` a
verb for a seat; ``load`` reads a document once for a command that both views and acts on it.
:class:`DocumentRules` implements them for the four bundled rulesets over their pydantic
states: a handle (:class:`LoadedGame`) validates its document into a state once, every part of
its views reads that state, and a command is played on it in place — the handle owns the
state, so nobody can see it half-changed and no deep copy is needed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import ValidationError

from rules.core import ending
from rules.core.battlefield import MapView, ObjectiveMark, Overlay
from rules.core.dice import DiceSource, Roll
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import Applied
from rules.core.legal import LegalAction, NotOwed, owed
from rules.core.migrations import DocumentFormat, document_format
from rules.core.resolution import Outcome, Resolution
from rules.core.score import Battle, GameResult, Score, objective_marks
from rules.core.seatview import (
    REFEREE,
    SPECTATOR,
    FollowUp,
    Seat,
    SeatView,
    StatusView,
    UnitLine,
)
from rules.core.words import id_named, names_of

#: The autocomplete kinds of the options that name a unit (``unit:``, ``target:``…).
UNIT_KINDS = frozenset({"unit", "target"})
#: The autocomplete kind of the option that names a weapon (``weapon:``).
WEAPON_KIND = "weapon"


@dataclass
class Played:
    """The outcome of one command: the new state document and what to show."""

    document: dict[str, Any]
    resolutions: list[Resolution] = field(default_factory=list)
    notices: list[Outcome] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    #: The side that alone (with the referee) may see this command: its options, rolls and
    #: outcome say where a unit hidden from the enemy is (a concealed unit's move). None:
    #: every seat and the channel may see it.
    secret_for: str | None = None

    def read_by(self, seat: Seat) -> tuple[list[Resolution], list[Outcome]]:
        """The resolutions and notices ``seat`` may read (:func:`read_by`)."""
        return read_by(seat, self.resolutions, self.notices)


def read_by(
    seat: Seat, resolutions: list[Resolution], notices: list[Outcome]
) -> tuple[list[Resolution], list[Outcome]]:
    """The ``resolutions`` and ``notices`` ``seat`` may read: those a side keeps for itself
    (``secret_for``: a hidden squad's roll for a new leader) only by that side and the
    referee. The dice were rolled all the same: only who reads them differs."""
    return (
        [resolution for resolution in resolutions if seat.may_read(resolution.secret_for)],
        [notice for notice in notices if seat.may_read(notice.secret_for)],
    )


class DocumentRules(ABC):
    """The :class:`rules.core.surface.Rules` of a ruleset whose game is a pydantic state.

    A subclass names its game module (``new_game``, ``load_state``, ``apply``,
    ``awaiting``), its commands module (``VERBS``, ``VERB_OPTIONS``, ``build_command``), its
    scenario module (``bundled_scenarios``, ``load_bundled``, ``parse_scenario``) and its
    victory module (``battle``), and writes what differs, each read from a validated state:
    ``status`` and ``legal_actions``, ``choices``, and where it has them ``seat_status``,
    ``prompts``, ``map_view``, ``action_overlays`` and ``secret_side``.
    """

    ruleset: str
    game: Any  # the ruleset's game module
    commands: Any  # its commands module
    scenario: Any  # its scenario module
    victory: Any  # its victory module: ``battle(state)`` describes a state for scoring

    #: Whether whatever is owed decides whose move it is (:func:`rules.core.seatview.
    #: awaiting_of`); linea_gotica's sequence keeps the move with the mover meanwhile.
    owed_first: ClassVar[bool] = True
    #: Whether every action it may owe is among its prompts (the verbs its ``prompts``
    #: list), so what is owed is read from them, not from a listing of every move and fire.
    owed_in_prompts: ClassVar[bool] = False

    # -- what it declares ------------------------------------------------------------------

    def scenarios(self) -> list[str]:
        """Ids of the bundled scenarios."""
        return list(self.scenario.bundled_scenarios())

    def verbs(self) -> tuple[str, ...]:
        """The verbs this ruleset's commands take, and the two that end any game
        (``rules.core.ending.VERBS``: ``game.concede``, ``game.decide``)."""
        return (*self.commands.VERBS, *ending.VERBS)

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names this ruleset accepts for ``verb`` (none for a verb it lacks);
        ``odds`` takes what ``fire`` takes."""
        if verb in ending.VERB_OPTIONS:
            return ending.VERB_OPTIONS[verb]
        table: Mapping[str, tuple[str, Mapping[str, str]]] = self.commands.VERB_OPTIONS
        entry = table.get("fire" if verb == "odds" else verb)
        return tuple(entry[1]) if entry is not None else ()

    @property
    def document_format(self) -> DocumentFormat:
        """This ruleset's document format (``rules/<ruleset>/migrations.py``)."""
        return document_format(self.ruleset)

    # -- the three calls (rules.core.surface.Rules) ------------------------------------------

    def setup(
        self, scenario_id: str | None = None, scenario_text: str | None = None
    ) -> dict[str, Any]:
        """A new game document from a bundled scenario (the first one by default) or an
        uploaded YAML text."""
        if scenario_text is not None:
            scenario = self.scenario.parse_scenario(scenario_text, "scenario.yaml")
        else:
            first = next(iter(self.scenario.bundled_scenarios()))
            scenario = self.bundled_scenario(scenario_id or first)
        return self.setup_scenario(scenario)

    def load(self, document: Mapping[str, Any]) -> LoadedGame:
        """A handle on ``document`` for one command: validated once, when first asked."""
        return LoadedGame(self, document)

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        """What ``seat`` sees of the game (each part computed when first read)."""
        return self.load(document).view(seat)

    def act(
        self,
        document: Mapping[str, Any],
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """A verb given by ``seat`` (a side, or the referee); a spectator gives none."""
        return self.load(document).act(seat, verb, options, dice, other_dice)

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        return names_of(document.get("sides", {}))

    def canonical(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The document as the state model dumps it (migrated, validated, defaults filled
        in, canonical values); ``error.corrupt_state`` for one that does not fit."""
        return self._document(self._load_state(document))

    # -- what mustering a campaign game asks (rules.campaign.muster.ScenarioPlay) ---------------

    def bundled_scenario(self, scenario_id: str) -> Any:
        """A bundled scenario, as the ruleset's scenario model."""
        return self.scenario.load_bundled(scenario_id)

    def setup_scenario(
        self, scenario: Any, full_strength: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """A new game document from a scenario model (a mustered one, for a campaign);
        ``full_strength`` gives the units mustered below their scenario strength the
        strength they are shown out of."""
        state = self.game.new_game(scenario)
        for unit, full in (full_strength or {}).items():
            state.units[unit].full_strength = full
        return self._document(state)

    def battle(self, document: Mapping[str, Any]) -> Battle:
        """A game's pieces, objectives and result as its victory rules read them."""
        described: Battle = self.victory.battle(self._load_state(document))
        return described

    # -- documents and states ----------------------------------------------------------------

    def _document(self, state: Any) -> dict[str, Any]:
        """A state as the document to store: its JSON dump, stamped with the format."""
        return self.document_format.stamp(state.model_dump(mode="json"))

    def _load_state(self, document: Mapping[str, Any]) -> Any:
        """A new state read from ``document`` (migrated in memory when older): the one
        validation a command pays for. ``DocumentTooNew`` for a format newer than the code,
        ``error.corrupt_state`` for a document the state model refuses."""
        fields = self.document_format.state_fields(self.document_format.upgrade(document))
        try:
            return self.game.load_state(fields)
        except ValidationError as error:
            raise InvalidInput("error.corrupt_state", detail=str(error)[:200]) from None

    def play_on(
        self,
        state: Any,
        document: Mapping[str, Any],
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> tuple[Played, Any]:
        """Play a verb on ``state`` (read from ``document``), handed over by its owner: it
        is changed in place, and is worth nothing after a refusal. ``odds`` previews
        (turn-order checks skipped). ``game.concede`` and ``game.decide``
        (:mod:`rules.core.ending`) end any ruleset's game the same way. Returns what to
        show and the state after the command."""
        actor_side = seat.side
        if verb in ending.VERBS:
            ended: Applied[Any] = Applied(state)
            ending.apply_verb(state, self.victory.battle, verb, options, actor_side, ended)
            return Played(self._document(state), [], ended.notices, []), state
        command = self.commands.build_command(verb, self.by_id(state, seat, verb, options))
        # Read before the command: a unit it destroys may leave the state it leaves.
        names_before = dict(self.named(state, "unit"))
        try:
            applied = self.game.apply(
                state,
                command,
                dice,
                actor_side=actor_side,
                preview=verb == "odds",
                other_dice=other_dice,
                owned=True,
            )
        except NotOwed as refusal:
            # A roll nobody owes: say what is owed now and by whom, from the owed legal
            # actions of the document as it was.
            listed = owed(self.legal_actions(self._load_state(document)))
            raise refusal.naming(listed, self.sides(document)) from None
        rolls = list(applied.tray.rolls) if applied.tray is not None else []
        names = {**names_before, **self.named(applied.state, "unit")}
        resolutions = [resolution.naming_targets(names) for resolution in applied.resolutions]
        played = Played(self._document(applied.state), resolutions, applied.notices, rolls)
        played.secret_for = self.secret_side(applied.state, command)
        return played, applied.state

    # -- names a player types ------------------------------------------------------------------

    def named(self, state: Any, kind: str) -> Mapping[str, str]:
        """Names by id that an option of autocomplete ``kind`` may be typed as: every unit's
        for a unit or a target, every weapon's of the scenario for a weapon (a ruleset adds
        its own kinds: a platoon, a battery)."""
        if kind in UNIT_KINDS:
            return {key: unit.name for key, unit in state.units.items()}
        if kind == WEAPON_KIND:
            weapons = getattr(state, "weapons", None) or {}
            return {key: weapon.name for key, weapon in weapons.items()}
        return {}

    def by_id(
        self, state: Any, seat: Seat, verb: str, options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """``options`` with each unit (platoon, battery) typed by its name, in any of its
        languages, as its id: the rules read ids. A name stands only for what ``seat`` may
        know of (a unit hidden from it is not found by its name); anything else is left as
        typed, for the ruleset's own refusal of an unknown name."""
        declared = self._declared(verb)
        if declared is None:
            return options
        resolved = dict(options)
        hidden: frozenset[str] | None = None
        for option in declared.options:
            value = options.get(option.name)
            names = self.named(state, option.autocomplete or "")
            if not isinstance(value, str) or not names or value in names:
                continue
            if hidden is None:  # read only when a name is typed: the status costs
                hidden = self._hidden_from(state, seat)
            known = {k: v for k, v in names.items() if k not in hidden}
            found = id_named(known, value)
            if found is None and "," in value:  # several units (pzgren's fire together)
                parts = [id_named(known, part) or part for part in value.split(",")]
                found = ",".join(parts) if parts != value.split(",") else None
            if found is not None:
                resolved[option.name] = found
        return resolved

    def _hidden_from(self, state: Any, seat: Seat) -> frozenset[str]:
        """The ids of the units ``seat`` may not know of: none for the referee (read of no
        status); for another seat, whatever of the referee's status, which lists every
        unit (a ruleset's plain status may be the public one, without the hidden units),
        the seat's own status does not show it."""
        if seat.referee:
            return frozenset()
        every = self.seat_status(state, REFEREE).units
        shown = self.seat_status(state, seat).units
        visible = {u.id for u in shown if seat.may_see(u)}
        return frozenset(u.id for u in every if u.id not in visible)

    def _declared(self, verb: str) -> Any:
        """The verb's declaration (``rules.core.declaration.VerbDeclaration``, from the
        commands module's ``DECLARATION``); None for the verbs that end any game."""
        if verb in ending.VERBS:
            return None
        return self.commands.DECLARATION.verb(verb)

    # -- what the views read of a state, each ruleset's own ------------------------------------

    def secret_side(self, state: Any, command: Any) -> str | None:
        """The side that alone may see ``command`` played on ``state`` (now the state after
        it), or None when it gives away nothing hidden; rulesets with hidden units say."""
        return None

    @abstractmethod
    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Everything any seat may do now: every ruleset writes its own (its ``legal`` module;
        see :mod:`rules.core.legal` for the contract the whole-game fuzzer checks)."""

    def prompts(self, state: Any) -> list[LegalAction]:
        """The owed actions and those offered as buttons, in the legal list's order (see
        :class:`rules.core.seatview.ViewSource`); a ruleset lists them without listing
        every move and fire where that costs."""
        return [a for a in self.legal_actions(state) if a.owed or a.button]

    def turn(self, state: Any) -> str | None:
        """Whose move it is by the turn sequence, when nothing owed decides it."""
        side: str | None = self.game.awaiting(state)
        return side

    @abstractmethod
    def status(self, state: Any) -> StatusView:
        """The state with every unit, hidden ones marked (the referee's status)."""

    def seat_status(self, state: Any, seat: Seat) -> StatusView:
        """The status a seat may see; by default the whole one, from which the seat view
        leaves out the units hidden from the seat."""
        return self.status(state)

    @abstractmethod
    def choices(self, state: Any, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete of one kind for a side (None: every side's)."""

    def map_view(
        self,
        state: Any,
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """What to draw of the table for a viewer; None where the game has no battlefield.

        Texts the ruleset writes itself (labels, captions) are in ``language``; status words
        may be value words, which the front ends localize. ``public``: the picture posted in
        the channel (units hidden from the enemy left out for everyone); otherwise the view
        of ``viewer_side`` (None: the referee, who sees everything)."""
        return None

    def action_overlays(
        self, state: Any, verb: str, options: Mapping[str, Any]
    ) -> tuple[Overlay, ...]:
        """Marks of a command on the picture of its own reply (a line of fire), read from
        the state it is played on; none unless the ruleset draws some."""
        return ()

    def score(self, state: Any, seat: Seat = REFEREE) -> Score:
        """The score if the game ended now (the result's, once it has ended; empty for a
        scenario without victory conditions), counting only the units ``seat`` may know of
        (the referee's: every unit)."""
        battle = self.victory.battle(state).seen_by(seat.side, referee=seat.referee)
        reader = None if seat.referee else (seat.side or ending.PUBLIC_READER)
        return ending.score_of(state, battle, reader)

    def result(self, state: Any) -> GameResult | None:
        """The result of an ended game, None while it goes on."""
        found: GameResult | None = state.victory.result
        conditions = state.victory.conditions
        if found is None or conditions is None:
            return found
        return found.named([objective.name for objective in conditions.objectives])

    def _objective_marks(
        self, state: Any, language: str, viewer_side: str | None, *, public: bool
    ) -> tuple[ObjectiveMark, ...]:
        """The scenario's objectives for a ruleset's map view, with their holders now as
        that viewer sees them (units hidden from it do not count)."""
        battle = self.victory.battle(state)
        conditions = state.victory.conditions
        return objective_marks(conditions, battle, language, viewer_side, public=public)


class StaleView(RuntimeError):
    """A part of a seat view read after a command was played on the state it reads: read
    what a view says of a state before acting on it, or view the handle again after."""


class _HeldState:
    """What a :class:`LoadedGame` holds of its game: the document, the state validated from
    it when first asked for, and how many commands were played on it.

    Its views read the state through this, never through the handle that keeps them: a
    handle and its views in a reference cycle would leave the whole state (thousands of
    objects on a large map) to the cycle collector, whose passes hold the interpreter for
    tens of milliseconds, every other channel's command waiting; without one, the state goes
    with the last reference to it.
    """

    __slots__ = ("document", "generation", "rules", "state")

    def __init__(self, rules: DocumentRules, document: Mapping[str, Any]) -> None:
        self.rules = rules
        self.document = document
        self.state: Any = None
        self.generation = 0  # how many commands were played on the state

    def read(self) -> Any:
        """The state, validated from the document the first time."""
        if self.state is None:
            self.state = self.rules._load_state(self.document)
        return self.state

    def state_of(self, generation: int) -> Any:
        """The state a view made at ``generation`` reads (refused once a command changed it)."""
        if generation != self.generation:
            raise StaleView("a view of a state a command has since been played on")
        return self.read()


class LoadedGame:
    """One document read once by its :class:`DocumentRules`: its seat views, and a command.

    The state is validated when first asked for and owned by this handle: every view reads
    it, and a command is played on it in place (no deep copy: nobody else holds it). After a
    command the handle holds the state the command left, and ``document`` is the new one;
    after a refused command or an ``odds`` preview, whose work on the state is thrown away,
    it reads its document again if asked once more. One command's thread uses it at a time.
    """

    def __init__(self, rules: DocumentRules, document: Mapping[str, Any]) -> None:
        self.rules = rules
        self._held = _HeldState(rules, document)
        self._views: dict[Seat, SeatView] = {}

    @property
    def document(self) -> Mapping[str, Any]:
        """The document of the state the handle holds (the new one after a command)."""
        return self._held.document

    def view(self, seat: Seat) -> SeatView:
        """What ``seat`` sees of the game now (kept until a command is played)."""
        found = self._views.get(seat)
        if found is None:
            held = self._held
            held.read()  # a document the ruleset cannot read is refused here, not later
            source = StateSource(self.rules, held, held.generation)
            rules = self.rules
            found = SeatView(
                rules.ruleset,
                seat,
                source,
                owed_first=rules.owed_first,
                owed_in_prompts=rules.owed_in_prompts,
            )
            self._views[seat] = found
        return found

    def act(
        self,
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Play a verb for ``seat`` on the state (a spectator gives none); ``other_dice``
        serve rolls made for another side when ``dice`` are a player's typed faces."""
        if seat.public:
            raise IllegalAction("error.seat.spectator")
        held = self._held
        state = held.read()
        # Handed to the command: whatever happens, neither it nor a view of it is read again.
        held.state, self._views = None, {}
        held.generation += 1
        played, after = self.rules.play_on(
            state, held.document, seat, verb, options, dice, other_dice
        )
        if verb != "odds":
            held.document, held.state = played.document, after
        return played


@dataclass(frozen=True, slots=True)
class StateSource:
    """A :class:`DocumentRules`' answers about a handle's state, for its seat views."""

    rules: DocumentRules
    held: _HeldState
    generation: int

    @property
    def state(self) -> Any:
        """The state the view was made of."""
        return self.held.state_of(self.generation)

    def status(self, seat: Seat) -> StatusView:
        """The state as the seat may see it."""
        return self.rules.seat_status(self.state, seat)

    def map(self, seat: Seat, language: str) -> MapView | None:
        """The ruleset's picture for the seat."""
        return self.rules.map_view(self.state, seat.side, public=seat.public, language=language)

    def legal(self) -> list[LegalAction]:
        """Every seat's legal actions."""
        return self.rules.legal_actions(self.state)

    def prompts(self) -> list[LegalAction]:
        """The owed actions and the buttons."""
        return self.rules.prompts(self.state)

    def turn(self) -> str | None:
        """Whose move by the sequence."""
        return self.rules.turn(self.state)

    def names(self, kind: str, side: str | None) -> list[str]:
        """The ruleset's names for autocomplete."""
        return self.rules.choices(self.state, kind, side)

    def named(self, kind: str) -> Mapping[str, str]:
        """What the ruleset calls each id of a kind."""
        return self.rules.named(self.state, kind)

    def score(self, seat: Seat) -> Score:
        """The score now, as the seat may count it."""
        return self.rules.score(self.state, seat)

    def result(self) -> GameResult | None:
        """The result, once ended."""
        return self.rules.result(self.state)

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        """The ruleset's marks of a command on this state, its units typed by name read as
        the command reads them (a unit hidden from anyone never by its name: the seat is
        not known here). A ruleset that draws none is not asked, nor are the names read
        (a name that is no unit's costs two statuses)."""
        rules = self.rules
        if type(rules).action_overlays is DocumentRules.action_overlays:
            return ()
        typed = rules.by_id(self.state, SPECTATOR, verb, options)
        return rules.action_overlays(self.state, verb, typed)


__all__ = [
    "DocumentRules",
    "FollowUp",
    "LoadedGame",
    "Played",
    "StaleView",
    "StateSource",
    "StatusView",
    "UnitLine",
    "read_by",
]
