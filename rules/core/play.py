"""What a ruleset offers for play, independent of the front end.

A ruleset is played through three calls (:mod:`rules.core.surface`): ``setup`` a game from a
scenario, ``view`` it as one seat sees it (:class:`rules.core.seatview.SeatView`), ``act`` a
verb for a seat. :class:`DocumentPlay` implements them for the four bundled rulesets over
their pydantic states.

:class:`GamePlay` is the older, wider interface (create a game, apply a command, whose
move, the status, the follow-up buttons, autocomplete names, the map…) that tests and tools
still ask; the application service asks only the three calls and their declared facts.
Every method of it is answered from the same state as the seat views, and for a ruleset
that implements only the three calls, :class:`rules.core.surface.SurfacePlay` answers it
from them.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from pydantic import ValidationError

from rules.core import ending
from rules.core.battlefield import MapView, ObjectiveMark, Overlay
from rules.core.dice import DiceSource, Roll
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import Applied, disposable
from rules.core.legal import LegalAction, NotOwed, owed
from rules.core.migrations import DocumentFormat, document_format
from rules.core.resolution import Outcome, Resolution
from rules.core.score import Battle, GameResult, Score, objective_marks
from rules.core.seatview import REFEREE, FollowUp, Seat, SeatView, StatusView, UnitLine
from rules.core.words import names_of


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


class GamePlay(Protocol):
    """The play interface every ruleset implements."""

    ruleset: str

    def scenarios(self) -> list[str]:
        """Ids of the bundled scenarios."""
        ...

    def new_game(self, scenario_id: str | None, scenario_text: str | None) -> dict[str, Any]:
        """A new game document from a bundled scenario or an uploaded YAML text."""
        ...

    def load_document(
        self, document: Mapping[str, Any], *, validate: bool = False
    ) -> dict[str, Any]:
        """The document in the current format (migrated in memory when older).

        Raises ``DocumentTooNew`` for a format newer than the code. With ``validate`` the
        state model checks it too (``error.corrupt_state`` if it does not fit) and the
        document comes back as the model dumps it.
        """
        ...

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        ...

    def apply(
        self,
        document: Mapping[str, Any],
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        actor_side: str | None,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Apply a verb for a side (None: the referee); raise RulesError to refuse.

        ``other_dice`` serve rolls made on behalf of another side when ``dice`` are a
        player's typed faces (dice belong to their roller).
        """
        ...

    def legal_actions(self, document: Mapping[str, Any]) -> list[LegalAction]:
        """Everything any seat may do now, each action tagged with its side (None: referee).

        See :mod:`rules.core.legal` for the contract the whole-game fuzzer checks.
        """
        ...

    def awaiting(self, document: Mapping[str, Any]) -> str | None:
        """The side whose move it is."""
        ...

    def status(self, document: Mapping[str, Any]) -> StatusView:
        """A view of the state."""
        ...

    def follow_ups(self, document: Mapping[str, Any]) -> list[FollowUp]:
        """Rolls and actions owed now."""
        ...

    def choices(self, document: Mapping[str, Any], kind: str, side: str | None) -> list[str]:
        """Names for autocomplete: units, targets, weapons, platoons, markers, terrains."""
        ...

    def verbs(self) -> tuple[str, ...]:
        """The verbs this ruleset accepts."""
        ...

    def map_view(
        self,
        document: Mapping[str, Any],
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """What to draw of the table for a viewer; None where the game has no battlefield.

        Texts the ruleset writes itself (labels, captions) are in ``language``; status words
        may be value words, which the front ends localize.

        ``public``: the picture posted in the channel (units the ruleset hides from the
        enemy are left out for everyone); otherwise the ephemeral view of ``viewer_side``
        (None: the referee, who sees everything), which includes its own hidden units.
        """
        ...

    def action_overlays(
        self, document: Mapping[str, Any], verb: str, options: Mapping[str, Any]
    ) -> tuple[Overlay, ...]:
        """Marks of a command on the picture of its own reply (a line of fire), read from
        the state it was played on; none by default. For a ruleset whose state does not
        keep its last action: the reply to the command still shows what it did, and the
        stored state (and so the replay of old games) stays as it was."""
        ...

    def score(self, document: Mapping[str, Any]) -> Score:
        """The score if the game ended now (the result's, once it has ended); empty for a
        scenario without victory conditions."""
        ...

    def result(self, document: Mapping[str, Any]) -> GameResult | None:
        """The result of a game that has ended; None while it goes on."""
        ...


def forget_states() -> None:
    """Drop the calling thread's memo of validated states (`DocumentPlay`).

    A memo serves the questions one pass asks of one document; the bot's workers call this
    after each job, or every worker thread would keep a state (and its document) of each
    ruleset alive until its next job: tens of validated states, a few MB, for nothing.
    """
    DocumentPlay._memos.__dict__.clear()


class DocumentPlay(ABC):
    """The document plumbing every ruleset's :class:`GamePlay` shares.

    A subclass names its game module (``new_game``, ``load_state``, ``apply``,
    ``awaiting``), its commands module (``VERBS``, ``build_command``) and its scenario
    module (``bundled_scenarios``, ``load_bundled``, ``parse_scenario``), and writes what
    differs: ``status``, ``follow_ups`` and ``choices``.
    """

    ruleset: str
    game: Any  # the ruleset's game module
    commands: Any  # its commands module
    scenario: Any  # its scenario module
    victory: Any  # its victory module: ``battle(state)`` describes a state for scoring

    def scenarios(self) -> list[str]:
        """Ids of the bundled scenarios."""
        return list(self.scenario.bundled_scenarios())

    def new_game(self, scenario_id: str | None, scenario_text: str | None) -> dict[str, Any]:
        """A new game from a bundled scenario id or uploaded YAML."""
        if scenario_text is not None:
            scenario = self.scenario.parse_scenario(scenario_text, "scenario.yaml")
        else:
            first = next(iter(self.scenario.bundled_scenarios()))
            scenario = self.bundled_scenario(scenario_id or first)
        return self.setup_scenario(scenario)

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

    @property
    def document_format(self) -> DocumentFormat:
        """This ruleset's document format (``rules/<ruleset>/migrations.py``)."""
        return document_format(self.ruleset)

    def _document(self, state: Any) -> dict[str, Any]:
        """A state as the document to store: its JSON dump, stamped with the format."""
        return self.document_format.stamp(state.model_dump(mode="json"))

    def load_document(
        self, document: Mapping[str, Any], *, validate: bool = False
    ) -> dict[str, Any]:
        """The document in the current format (migrated in memory when older).

        Raises ``DocumentTooNew`` for a format newer than the code. With ``validate`` the
        state model checks it too (``error.corrupt_state`` if it does not fit) and the
        document comes back as the model dumps it (defaults filled in, canonical values).
        """
        current = self.document_format.upgrade(document)
        if validate:
            return self._document(self._state(current))
        return current

    def canonical(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The document as the state model dumps it (``load_document`` validated)."""
        return self.load_document(document, validate=True)

    # The last document validated, with its state: the service asks several questions of one
    # document per command (whose move, follow-ups, legal actions), each validation costing
    # about as much as the rules. Keyed by identity: documents are never changed in place.
    # One per thread: a command may run on one thread while a status is read on another.
    _memos: ClassVar[threading.local] = threading.local()

    @property
    def _memo(self) -> tuple[Mapping[str, Any], Any] | None:
        memo: tuple[Mapping[str, Any], Any] | None = getattr(self._memos, self.ruleset, None)
        return memo

    @_memo.setter
    def _memo(self, value: tuple[Mapping[str, Any], Any] | None) -> None:
        setattr(self._memos, self.ruleset, value)

    def _state(self, document: Mapping[str, Any]) -> Any:
        """The state of a document (read-only: callers must not change it)."""
        memo = self._memo
        if memo is not None and memo[0] is document:
            return memo[1]
        state = self._load_state(document)
        self._memo = (document, state)
        return state

    def _load_state(self, document: Mapping[str, Any]) -> Any:
        fields = self.document_format.state_fields(self.document_format.upgrade(document))
        try:
            return self.game.load_state(fields)
        except ValidationError as error:
            raise InvalidInput("error.corrupt_state", detail=str(error)[:200]) from None

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        return names_of(document.get("sides", {}))

    def apply(
        self,
        document: Mapping[str, Any],
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        actor_side: str | None,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Apply a verb; ``odds`` previews (turn-order checks skipped) and is not committed.

        ``game.concede`` and ``game.decide`` (:mod:`rules.core.ending`) end any ruleset's
        game the same way."""
        if verb in ending.VERBS:
            return self._end_game(document, verb, options, actor_side)
        command = self.commands.build_command(verb, options)
        memo = self._memo
        if memo is not None and memo[0] is document:
            # The state validated for an earlier question about this document (whose move it
            # is): the command takes it over and the memo forgets it, so no reader can see
            # it half-changed, and the command needs no deep copy.
            self._memo = None
            state = memo[1]
        else:
            state = self._load_state(document)  # ours alone: no copy needed
        try:
            with disposable(state):
                applied = self.game.apply(
                    state,
                    command,
                    dice,
                    actor_side=actor_side,
                    preview=verb == "odds",
                    other_dice=other_dice,
                )
        except NotOwed as refusal:
            # A roll nobody owes: say what is owed now and by whom, from the owed legal
            # actions (the document is untouched: the refusal came before any change).
            named = refusal.naming(owed(self.legal_actions(document)), self.sides(document))
            raise named from None
        rolls = list(applied.tray.rolls) if applied.tray is not None else []
        played = Played(self._document(applied.state), applied.resolutions, applied.notices, rolls)
        played.secret_for = self.secret_side(applied.state, command)
        if verb != "odds":
            self._memo = (played.document, applied.state)
        return played

    def secret_side(self, state: Any, command: Any) -> str | None:
        """The side that alone may see ``command`` played on ``state`` (now the state after
        it), or None when it gives away nothing hidden; rulesets with hidden units say."""
        return None

    def _end_game(
        self,
        document: Mapping[str, Any],
        verb: str,
        options: Mapping[str, Any],
        actor_side: str | None,
    ) -> Played:
        """A concession or the referee's decision: the game ends with its result."""
        state = self._load_state(document)  # a fresh state: ours to change
        applied: Applied[Any] = Applied(state)
        ending.apply_verb(state, self.victory.battle, verb, options, actor_side, applied)
        played = Played(self._document(state), [], applied.notices, [])
        self._memo = (played.document, state)
        return played

    def score(self, document: Mapping[str, Any], seat: Seat = REFEREE) -> Score:
        """The score if the game ended now (see :meth:`GamePlay.score`), counting only the
        units ``seat`` may know of (the referee's: every unit)."""
        state = self._state(document)
        battle = self.victory.battle(state).seen_by(seat.side, referee=seat.referee)
        reader = None if seat.referee else (seat.side or ending.PUBLIC_READER)
        return ending.score_of(state, battle, reader)

    def _objective_marks(
        self, state: Any, language: str, viewer_side: str | None, *, public: bool
    ) -> tuple[ObjectiveMark, ...]:
        """The scenario's objectives for a ruleset's map view, with their holders now as
        that viewer sees them (units hidden from it do not count)."""
        battle = self.victory.battle(state)
        conditions = state.victory.conditions
        return objective_marks(conditions, battle, language, viewer_side, public=public)

    def result(self, document: Mapping[str, Any]) -> GameResult | None:
        """The result of an ended game, None while it goes on."""
        found: GameResult | None = self._state(document).victory.result
        return found

    @abstractmethod
    def legal_actions(self, document: Mapping[str, Any]) -> list[LegalAction]:
        """Everything any seat may do now: every ruleset writes its own (its ``legal`` module)."""

    def prompts(self, document: Mapping[str, Any]) -> list[LegalAction]:
        """The owed actions and those offered as buttons, in the legal list's order (see
        :class:`rules.core.seatview.ViewSource`); a ruleset lists them without listing
        every move and fire where that costs."""
        return [a for a in self.legal_actions(document) if a.owed or a.button]

    def turn(self, document: Mapping[str, Any]) -> str | None:
        """Whose move it is by the turn sequence, when nothing owed decides it."""
        side: str | None = self.game.awaiting(self._state(document))
        return side

    #: Whether whatever is owed decides whose move it is (:func:`rules.core.seatview.
    #: awaiting_of`); linea_gotica's sequence keeps the move with the mover meanwhile.
    owed_first: ClassVar[bool] = True

    # -- the three calls (rules.core.surface.Rules) ------------------------------------------

    def setup(
        self, scenario_id: str | None = None, scenario_text: str | None = None
    ) -> dict[str, Any]:
        """A new game document from a bundled scenario (the first one by default) or an
        uploaded YAML text."""
        return self.new_game(scenario_id, scenario_text)

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        """What ``seat`` sees of the game (each part computed when first read).

        The last view is kept (per thread, like the state): the service asks whose move it
        is and what buttons follow of one document, and each part is then computed once."""
        slot = f"{self.ruleset}:view"
        kept: tuple[Mapping[str, Any], Seat, SeatView] | None = getattr(self._memos, slot, None)
        if kept is not None and kept[0] is document and kept[1] == seat:
            return kept[2]
        view = SeatView(
            self.ruleset, seat, DocumentSource(self, document), owed_first=self.owed_first
        )
        setattr(self._memos, slot, (document, seat, view))
        return view

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
        if seat.public:
            raise IllegalAction("error.seat.spectator")
        return self.apply(document, verb, options, dice, seat.side, other_dice)

    # -- the views every ruleset shares, derived by the core -----------------------------

    def awaiting(self, document: Mapping[str, Any]) -> str | None:
        """The side whose move it is (:func:`rules.core.seatview.awaiting_of`)."""
        return self.view(document, REFEREE).awaiting

    def follow_ups(self, document: Mapping[str, Any]) -> list[FollowUp]:
        """The buttons of what is owed now (:func:`rules.core.seatview.follow_ups_of`)."""
        return self.view(document, REFEREE).follow_ups

    @abstractmethod
    def status(self, document: Mapping[str, Any]) -> StatusView:
        """The state with every unit, hidden ones marked (the referee's status)."""

    def seat_status(self, document: Mapping[str, Any], seat: Seat) -> StatusView:
        """The status a seat may see; by default the whole one, from which the seat view
        leaves out the units hidden from the seat."""
        return self.status(document)

    @abstractmethod
    def choices(self, document: Mapping[str, Any], kind: str, side: str | None) -> list[str]:
        """Names for autocomplete of one kind for a side (None: every side's)."""

    def verbs(self) -> tuple[str, ...]:
        """The verbs this ruleset's commands take, and the two that end any game
        (``rules.core.ending.VERBS``: ``game.concede``, ``game.decide``)."""
        return (*self.commands.VERBS, *ending.VERBS)

    def map_view(
        self,
        document: Mapping[str, Any],
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """No battlefield unless the ruleset draws one (see :meth:`GamePlay.map_view`)."""
        return None

    def action_overlays(
        self, document: Mapping[str, Any], verb: str, options: Mapping[str, Any]
    ) -> tuple[Overlay, ...]:
        """No marks unless the ruleset draws some (see :meth:`GamePlay.action_overlays`)."""
        return ()

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names this ruleset accepts for ``verb`` (none for a verb it lacks);
        ``odds`` takes what ``fire`` takes."""
        if verb in ending.VERB_OPTIONS:
            return ending.VERB_OPTIONS[verb]
        table: Mapping[str, tuple[str, Mapping[str, str]]] = self.commands.VERB_OPTIONS
        entry = table.get("fire" if verb == "odds" else verb)
        return tuple(entry[1]) if entry is not None else ()


@dataclass(frozen=True, slots=True)
class DocumentSource:
    """A :class:`DocumentPlay`'s answers about one document, for its seat views."""

    play: DocumentPlay
    document: Mapping[str, Any]

    def status(self, seat: Seat) -> StatusView:
        """The state as the seat may see it."""
        return self.play.seat_status(self.document, seat)

    def map(self, seat: Seat, language: str) -> MapView | None:
        """The ruleset's picture for the seat."""
        return self.play.map_view(self.document, seat.side, public=seat.public, language=language)

    def legal(self) -> list[LegalAction]:
        """Every seat's legal actions."""
        return self.play.legal_actions(self.document)

    def prompts(self) -> list[LegalAction]:
        """The owed actions and the buttons."""
        return self.play.prompts(self.document)

    def turn(self) -> str | None:
        """Whose move by the sequence."""
        return self.play.turn(self.document)

    def names(self, kind: str, side: str | None) -> list[str]:
        """The ruleset's names for autocomplete."""
        return self.play.choices(self.document, kind, side)

    def score(self, seat: Seat) -> Score:
        """The score now, as the seat may count it."""
        return self.play.score(self.document, seat)

    def result(self) -> GameResult | None:
        """The result, once ended."""
        return self.play.result(self.document)

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        """The ruleset's marks of a command on this state."""
        return self.play.action_overlays(self.document, verb, options)


__all__ = [
    "DocumentPlay",
    "DocumentSource",
    "FollowUp",
    "GamePlay",
    "Played",
    "StatusView",
    "UnitLine",
    "forget_states",
]
