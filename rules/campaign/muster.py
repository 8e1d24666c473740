"""Mustering a campaign game: a scenario's sides fielded from the campaign's rosters.

A ruleset that plays campaigns with rosters gives its :class:`rules.core.ruleset.Ruleset`
a ``muster``: a :class:`ScenarioMuster` built from two pure functions of its own
(``rules/<key>/muster.py``):

* ``roster_of(scenario, side)``: the side's roster at full strength, one entry per unit
  (strength in the ruleset's unit — models, figures, steps — its weapons where the ruleset
  counts them, its quality or rank where it has one);
* ``muster(scenario, fielded, ranked)``: the scenario with each unit at the strength
  ``fielded`` gives it (units missing from ``fielded`` left out), the weapons following the
  strength as the ruleset decides, and the values ``ranked`` gives a unit (its rank's) written
  into it.

An entry's rank is a rung of the ruleset's promotion ladder (``rules/<key>/campaign.yaml``):
a rung names the values of the unit's fields it stands for (linea_gotica ``quality``,
manovra ``ad``; ``rank_fields`` lists the fields and the values a unit may hold there). An
entry made from a scenario starts on the lowest rung matching its unit
(:func:`starting_rank`); mustered, it takes its rank's values, so a promotion is fielded.
A rank off the ladder (a roster file's, or a referee's) leaves the scenario's values.

What is shared lives here: which units muster and at what strength (:func:`fielding`: an
entry musters as the scenario unit with its id; a unit without an entry is fielded as the
scenario gives it; entries dead, recovering, left behind or at 0 stay behind; nobody
musters above the scenario's own strength), the refusal of a side left with no unit, the
full strength of a unit mustered below it (each ruleset's state keeps its ``units`` by id,
each with a ``full_strength``: None when it began whole), and each side's losses read
from a game's final state (``initial - strength`` of each piece the victory module
describes: a unit mustered reduced loses from the strength it began with). A ruleset
without a ``muster`` plays campaigns without rosters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from rules.campaign.roster import Roster
from rules.campaign.rules import UnitValue, campaign_rules
from rules.core.errors import IllegalAction
from rules.core.score import Battle

#: A ruleset's scenario model.
ScenarioT = TypeVar("ScenarioT")


class ScenarioPlay(Protocol[ScenarioT]):
    """What mustering asks of a ruleset's rules (a ``DocumentRules``):
    its bundled scenarios as models, a game set up from one, a game's battle."""

    def bundled_scenario(self, scenario_id: str) -> ScenarioT:
        """A bundled scenario by id."""
        ...

    def setup_scenario(
        self, scenario: ScenarioT, full_strength: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """A new game document from a scenario."""
        ...

    def battle(self, document: Mapping[str, Any]) -> Battle:
        """A game's pieces, objectives and result as the victory rules read them."""
        ...


#: Units a side's roster strength is read for, and the strength each musters at.
Fielded = Mapping[str, int]
#: Units whose rank gives them values, and those values (field → value).
Ranked = Mapping[str, Mapping[str, UnitValue]]
#: Roster entries another game of the campaign holds: side -> unit -> that game's number.
Held = Mapping[str, Mapping[str, int]]


def starting_rank(ruleset: str, unit: Mapping[str, UnitValue]) -> str | None:
    """The rank a scenario unit whose rank fields hold ``unit`` starts a campaign with:
    the lowest rung of the ruleset's ladder it matches (None: the ruleset has no ladder)."""
    rules = campaign_rules(ruleset)
    return None if rules is None else rules.rank_of(unit)


def fielding(
    units: Mapping[str, Mapping[str, int]],
    rosters: Mapping[str, Roster],
    game: int,
    leave: frozenset[str] = frozenset(),
    held: Held | None = None,
) -> dict[str, dict[str, int]]:
    """Each side's units that muster for campaign game number ``game``, with their
    strength: ``units`` is each side's scenario units and their strength there; the
    entries ``held`` by another game in play stay behind like those left by choice."""
    fielded: dict[str, dict[str, int]] = {}
    for side, strengths in units.items():
        roster = rosters.get(side)
        busy = {} if held is None else held.get(side, {})
        chosen: dict[str, int] = {}
        for unit, given in strengths.items():
            if unit in leave or unit in busy:
                continue
            entry = None if roster is None else roster.entry(unit)
            if entry is None:
                chosen[unit] = given
            elif entry.available(game):
                chosen[unit] = min(entry.strength, given)
        fielded[side] = {unit: strength for unit, strength in chosen.items() if strength > 0}
    return fielded


@dataclass(frozen=True)
class ScenarioMuster(Generic[ScenarioT]):
    """A ruleset's mustering, reached through its ``Ruleset.muster``: scenarios by id."""

    #: The ruleset's rules: its scenarios, a game set up from one, a game's battle.
    rules: ScenarioPlay[ScenarioT]
    #: ``roster_of(scenario, side)`` → the side's roster at full strength.
    roster_of_scenario: Callable[[ScenarioT, str], Roster]
    #: ``muster(scenario, fielded, ranked)`` → the scenario with those units at those
    #: strengths, and the values their ranks give them.
    muster_scenario: Callable[[ScenarioT, Mapping[str, int], Ranked], ScenarioT]
    #: ``units(scenario)`` → each side's units and their strength in the scenario.
    units_of_scenario: Callable[[ScenarioT], dict[str, dict[str, int]]]
    #: The ruleset's key (its ladder is ``campaign_rules(ruleset)``).
    ruleset: str = ""
    #: The unit fields a rank is written into, and the values a scenario unit may hold
    #: there (the ladder is refused at load unless each rung gives each a value of these).
    rank_fields: Mapping[str, tuple[UnitValue, ...]] = field(default_factory=dict)

    def _scenario(self, scenario_id: str) -> ScenarioT:
        return self.rules.bundled_scenario(scenario_id)

    def roster_of(self, scenario_id: str, side: str) -> Roster:
        """Side ``side`` of a bundled scenario as a roster at full strength."""
        return self.roster_of_scenario(self._scenario(scenario_id), side)

    def units(self, scenario_id: str) -> dict[str, dict[str, int]]:
        """Each side's units in a bundled scenario, with their strength."""
        return self.units_of_scenario(self._scenario(scenario_id))

    def muster(
        self,
        scenario_id: str,
        rosters: Mapping[str, Roster],
        game: int,
        leave: frozenset[str] = frozenset(),
        held: Held | None = None,
    ) -> dict[str, Any]:
        """The new game's document: the scenario with each side mustered from its roster,
        the entries ``held`` by another game left behind (an `IllegalAction` when a side
        would field no unit)."""
        scenario = self._scenario(scenario_id)
        units = self.units_of_scenario(scenario)
        fielded = fielding(units, rosters, game, leave, held)
        for side, chosen in fielded.items():
            if chosen:
                continue
            busy = {} if held is None else held.get(side, {})
            if any(unit in busy for unit in units.get(side, {})):
                # Said apart: the referee waits for the other game rather than the roster.
                raise IllegalAction(
                    "error.campaign.side_held",
                    side=side,
                    number=game,
                    units=", ".join(
                        f"{unit} ({busy[unit]})" for unit in units[side] if unit in busy
                    ),
                )
            raise IllegalAction("error.campaign.side_empty", side=side, number=game)
        merged = {unit: n for chosen in fielded.values() for unit, n in chosen.items()}
        ranked = self.ranked(rosters, fielded)
        full = {u: n for side in self.units_of_scenario(scenario).values() for u, n in side.items()}
        # A unit below its scenario strength starts at its carried strength (its losses count
        # from there), shown out of the scenario's: "1/2", not a whole "1/1".
        reduced = {unit: full[unit] for unit, strength in merged.items() if strength < full[unit]}
        return self.rules.setup_scenario(self.muster_scenario(scenario, merged, ranked), reduced)

    def ranked(
        self, rosters: Mapping[str, Roster], fielded: Mapping[str, Mapping[str, int]]
    ) -> dict[str, Mapping[str, UnitValue]]:
        """The values each fielded entry's rank gives its unit (entries whose rank is off
        the ladder, or whose rung sets nothing, keep the scenario's)."""
        rules = campaign_rules(self.ruleset) if self.rank_fields else None
        if rules is None:
            return {}
        ranked: dict[str, Mapping[str, UnitValue]] = {}
        for side, chosen in fielded.items():
            roster = rosters.get(side)
            for unit in chosen:
                entry = None if roster is None else roster.entry(unit)
                rung = None if entry is None else rules.rung(entry.rank)
                if rung is not None and rung.unit:
                    ranked[unit] = rung.unit
        return ranked

    def losses(self, document: Mapping[str, Any]) -> dict[str, dict[str, int]]:
        """Each side's losses by unit in a game's (final) document: strength at the start
        less strength now, units that lost nothing left out."""
        battle = self.rules.battle(document)
        lost: dict[str, dict[str, int]] = {}
        for piece in battle.pieces:
            amount = max(0, piece.initial - piece.strength)
            if amount:
                lost.setdefault(piece.side, {})[piece.id] = amount
        return lost


__all__ = [
    "Fielded",
    "Held",
    "Ranked",
    "ScenarioMuster",
    "ScenarioPlay",
    "fielding",
    "starting_rank",
]
