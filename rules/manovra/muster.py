"""manovra in a campaign: a side's roster from a scenario, a scenario mustered from rosters.

Strength is counted in models. A unit fielded below the scenario's models loses its
plainest models first: a weapon every model carries goes down with the models, a weapon
fewer models carry stays while there are models to carry it (its count is at most the
models fielded). A platoon left with no unit stays behind. An entry's rank is its
leader's (``caporale`` … ``capitano``).
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.muster import ScenarioMuster
from rules.core.roster import Roster, RosterEntry
from rules.manovra.scenario import Scenario, UnitSpec
from rules.manovra.surface import PLAY


def _units(scenario: Scenario, side: str) -> list[UnitSpec]:
    return [
        unit
        for s in scenario.sides
        if s.id == side
        for platoon in s.platoons
        for unit in platoon.units
    ]


def roster_of(scenario: Scenario, side: str) -> Roster:
    """Side ``side`` of the scenario as a roster at full strength."""
    return Roster(
        side=side,
        entries=tuple(
            RosterEntry(
                id=spec.id,
                name=spec.name,
                strength=spec.models,
                full=spec.models,
                rank=spec.leader,
                weapons=dict(spec.weapons),
            )
            for spec in _units(scenario, side)
        ),
    )


def units(scenario: Scenario) -> dict[str, dict[str, int]]:
    """Each side's units and their models."""
    return {
        side.id: {spec.id: spec.models for spec in _units(scenario, side.id)}
        for side in scenario.sides
    }


def _mustered(spec: UnitSpec, models: int) -> UnitSpec:
    weapons = {weapon: min(count, models) for weapon, count in spec.weapons.items()}
    return spec.model_copy(update={"models": models, "weapons": weapons})


def muster(scenario: Scenario, fielded: Mapping[str, int]) -> Scenario:
    """The scenario with only the units of ``fielded``, each at its models there."""
    sides = []
    for side in scenario.sides:
        platoons = []
        for platoon in side.platoons:
            kept = tuple(_mustered(u, fielded[u.id]) for u in platoon.units if u.id in fielded)
            if kept:
                platoons.append(platoon.model_copy(update={"units": kept}))
        sides.append(side.model_copy(update={"platoons": tuple(platoons)}))
    return scenario.model_copy(update={"sides": tuple(sides)})


MUSTER = ScenarioMuster(PLAY, roster_of, muster, units)

__all__ = ["MUSTER", "muster", "roster_of", "units"]
