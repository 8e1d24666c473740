"""The surface of a ruleset: three calls and what it declares.

A ruleset is played through

* ``setup(scenario_id, scenario_text)`` → a new game document (a plain JSON dict, stamped
  with the ruleset's document format);
* ``view(document, seat)`` → :class:`rules.core.seatview.SeatView`, what a seat (a side, the
  referee, a spectator) sees: the status, the picture, its legal actions, what is owed and
  by whom, whose move it is, the follow-up buttons, the score and the result, the names for
  autocomplete;
* ``act(document, seat, verb, options, dice, other_dice)`` →
  ``Played`` (:mod:`rules.core.play`), the new document and what to show, or a ``RulesError``
  that refuses the command and leaves the document as it was;

plus what it declares: its key (``ruleset``), its bundled scenarios, its verbs and the option
names each takes, and its document format; and two facts of a document no view is needed
for: its sides (``sides(document)``, every seat may know them) and its canonical form
(``canonical(document)``, what a replay compares stored states by). Its key, title, seed,
dice, tables and procedures are the :class:`rules.core.ruleset.Ruleset` it registers
(:func:`rules.core.ruleset.register`), with the typed facts a ruleset may add: its commands
as data (:class:`CarriedDeclaration`) and how a campaign musters its games (:class:`Muster`).

A command that both views a game and acts on it (whose move it was, then the command, then
what follows) reads the document once: ``load(document)`` gives a :class:`Loaded` handle
whose ``view(seat)`` and ``act(seat, …)`` share the one state the ruleset validated, the
command played on it in place. ``view(document, seat)`` and ``act(document, seat, …)`` are
the same for one question. A ruleset with no state worth keeping between the calls hands out
a :class:`Reread`. The service asks only these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from rules.campaign.roster import Roster
from rules.core.dice import DiceSource
from rules.core.migrations import DocumentFormat
from rules.core.play import Played
from rules.core.seatview import Seat, SeatView


class Loaded(Protocol):
    """One game document read once by its ruleset, for one command: the seat views of it and
    a command on it share the state the ruleset read. After a command, the handle is of the
    state the command left (``document`` is the new one)."""

    @property
    def document(self) -> Mapping[str, Any]:
        """The document the handle's state is (the new one once a command was played)."""
        ...

    def view(self, seat: Seat) -> SeatView:
        """What ``seat`` sees of the game now."""
        ...

    def act(
        self,
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Play a verb for ``seat`` (see :meth:`Rules.act`)."""
        ...


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

    def load(self, document: Mapping[str, Any]) -> Loaded:
        """A handle on ``document`` for one command: read once, viewed and acted on."""
        ...

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        """What ``seat`` sees of the game (``load(document).view(seat)``)."""
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
        held: Mapping[str, Mapping[str, int]] | None = None,
    ) -> dict[str, Any]:
        """The new game's document, each side mustered from its roster (the entries
        ``held`` by another game of the campaign, side -> unit -> game, left behind)."""
        ...

    def losses(self, document: Mapping[str, Any]) -> dict[str, dict[str, int]]:
        """Each side's losses by unit in a game's final document."""
        ...


class Reread:
    """The :class:`Loaded` handle of a ruleset with no state worth keeping between calls:
    each view and command asks the ruleset with the document."""

    def __init__(self, rules: Rules, document: Mapping[str, Any]) -> None:
        self.rules = rules
        self.document: Mapping[str, Any] = document

    def view(self, seat: Seat) -> SeatView:
        """The ruleset's view of the document."""
        return self.rules.view(self.document, seat)

    def act(
        self,
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """The ruleset's command on the document; the handle is then of the new one (an
        ``odds`` preview changes nothing)."""
        played = self.rules.act(self.document, seat, verb, options, dice, other_dice)
        if verb != "odds":
            self.document = played.document
        return played


__all__ = ["CarriedDeclaration", "Loaded", "Muster", "Reread", "Rules"]
