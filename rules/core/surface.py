"""The surface of a ruleset: three calls and what it declares.

A ruleset is played through

* ``setup(scenario_id, scenario_text)`` → a new game document (a plain JSON dict, stamped
  with the ruleset's document format);
* ``view(document, seat)`` → :class:`rules.core.seatview.SeatView`, what a seat (a side, the
  referee, a spectator) sees: the status, the picture, its legal actions, what is owed and
  by whom, whose move it is, the follow-up buttons, the score and the result, the names for
  autocomplete;
* ``act(document, seat, verb, options, dice, other_dice)`` →
  :class:`rules.core.play.Played`, the new document and what to show, or a ``RulesError``
  that refuses the command and leaves the document as it was;

plus what it declares: its key (``ruleset``), its bundled scenarios, its verbs and the option
names each takes, and its document format; and two facts of a document no view is needed
for: its sides (``sides(document)``, every seat may know them) and its canonical form
(``canonical(document)``, what a replay compares stored states by). Its key, title, seed,
dice, tables and procedures are the :class:`rules.core.ruleset.Ruleset` it registers
(:func:`rules.core.ruleset.register`), with the typed facts a ruleset may add: its commands
as data (:class:`CarriedDeclaration`) and how a campaign musters its games (:class:`Muster`).

The service asks only these. The older, wider :class:`rules.core.play.GamePlay` (the tests'
and tools' way in) is answered for a ruleset that implements only this surface by
:class:`SurfacePlay`, from its views and its ``act``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from rules.campaign.roster import Roster
from rules.core.battlefield import MapView, Overlay
from rules.core.dice import DiceSource
from rules.core.legal import LegalAction
from rules.core.migrations import DocumentFormat
from rules.core.play import Played
from rules.core.score import GameResult, Score
from rules.core.seatview import (
    MAX_NAMES,
    REFEREE,
    SPECTATOR,
    FollowUp,
    Seat,
    SeatView,
    StatusView,
)


class Rules(Protocol):
    """A ruleset's play: three calls, and the few facts the front ends need to offer them."""

    ruleset: str  # the key it registers under

    @property
    def document_format(self) -> DocumentFormat:
        """The format of its documents, and the migrations from older ones."""
        ...

    def scenarios(self) -> list[str]:
        """Ids of its bundled scenarios (``setup`` takes the first by default)."""
        ...

    def verbs(self) -> tuple[str, ...]:
        """The verbs ``act`` takes."""
        ...

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names ``act`` takes for a verb (none for a verb it lacks)."""
        ...

    def setup(
        self, scenario_id: str | None = None, scenario_text: str | None = None
    ) -> dict[str, Any]:
        """A new game document from a bundled scenario or an uploaded YAML text."""
        ...

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """The game's sides: id → name (every seat may know them)."""
        ...

    def canonical(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The document as the ruleset writes it (migrated, read, defaults filled in): what
        a replay compares a stored state by; a ``RulesError`` for one it cannot read."""
        ...

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        """What ``seat`` sees of the game."""
        ...

    def act(
        self,
        document: Mapping[str, Any],
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Play a verb for ``seat``; ``other_dice`` serve rolls made for another side when
        ``dice`` are a player's typed faces."""
        ...


class CarriedDeclaration(Protocol):
    """A ruleset's commands as data (a :class:`rules.core.declaration.Declaration`, which
    the registry cannot name: the declarations read the registry)."""

    @property
    def ruleset(self) -> str:
        """The key of the ruleset it declares."""
        ...


class Muster(Protocol):
    """How a campaign musters a ruleset's games from the sides' rosters (a
    :class:`rules.campaign.muster.ScenarioMuster`): scenarios by id, documents in and out."""

    @property
    def rank_fields(self) -> Mapping[str, tuple[int | str, ...]]:
        """The unit fields a rank is written into, and the values each may hold."""
        ...

    def roster_of(self, scenario_id: str, side: str) -> Roster:
        """A side of a bundled scenario as a roster at full strength."""
        ...

    def units(self, scenario_id: str) -> dict[str, dict[str, int]]:
        """Each side's units in a bundled scenario, with their strength."""
        ...

    def muster(
        self,
        scenario_id: str,
        rosters: Mapping[str, Roster],
        game: int,
        leave: frozenset[str] = frozenset(),
    ) -> dict[str, Any]:
        """The new game's document, each side mustered from its roster."""
        ...

    def losses(self, document: Mapping[str, Any]) -> dict[str, dict[str, int]]:
        """Each side's losses by unit in a game's final document."""
        ...


class SurfacePlay:
    """The :class:`rules.core.play.GamePlay` of a ruleset that implements only
    :class:`Rules`: every question answered from a seat view or ``act``."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.ruleset = rules.ruleset

    def scenarios(self) -> list[str]:
        """Its bundled scenarios."""
        return list(self.rules.scenarios())

    def verbs(self) -> tuple[str, ...]:
        """Its verbs."""
        return tuple(self.rules.verbs())

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names of a verb."""
        return tuple(self.rules.options_of(verb))

    def new_game(self, scenario_id: str | None, scenario_text: str | None) -> dict[str, Any]:
        """``setup``."""
        return self.rules.setup(scenario_id, scenario_text)

    def load_document(
        self, document: Mapping[str, Any], *, validate: bool = False
    ) -> dict[str, Any]:
        """The document in the current format; with ``validate``, read once by the ruleset
        (which refuses a state it cannot read)."""
        if validate:
            return self.rules.canonical(document)
        return self.rules.document_format.upgrade(document)

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        return self.rules.sides(document)

    def apply(
        self,
        document: Mapping[str, Any],
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        actor_side: str | None,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """``act`` for a side (None: the referee)."""
        return self.rules.act(document, Seat.of(actor_side), verb, options, dice, other_dice)

    def legal_actions(self, document: Mapping[str, Any]) -> list[LegalAction]:
        """Every seat's legal actions."""
        return self.rules.view(document, REFEREE).every_legal

    def awaiting(self, document: Mapping[str, Any]) -> str | None:
        """Whose move it is."""
        return self.rules.view(document, REFEREE).awaiting

    def status(self, document: Mapping[str, Any]) -> StatusView:
        """The whole status (the referee's)."""
        return self.rules.view(document, REFEREE).status

    def follow_ups(self, document: Mapping[str, Any]) -> list[FollowUp]:
        """The buttons of what is owed."""
        return self.rules.view(document, REFEREE).follow_ups

    def choices(self, document: Mapping[str, Any], kind: str, side: str | None) -> list[str]:
        """The ruleset's names for a side (None: the referee's)."""
        view = self.rules.view(document, Seat.of(side))
        return view.names(kind, legal_first=False)[:MAX_NAMES]

    def map_view(
        self,
        document: Mapping[str, Any],
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """The picture for the public or for a seat."""
        seat = SPECTATOR if public else Seat.of(viewer_side)
        return self.rules.view(document, seat).map(language)

    def action_overlays(
        self, document: Mapping[str, Any], verb: str, options: Mapping[str, Any]
    ) -> tuple[Overlay, ...]:
        """No marks of a command beyond what the picture shows."""
        return ()

    def score(self, document: Mapping[str, Any]) -> Score:
        """The score now."""
        return self.rules.view(document, REFEREE).score

    def result(self, document: Mapping[str, Any]) -> GameResult | None:
        """The result, once ended."""
        return self.rules.view(document, REFEREE).result


__all__ = ["CarriedDeclaration", "Muster", "Rules", "SurfacePlay"]
