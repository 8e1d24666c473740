"""w40k4 in a campaign: a side's roster from a scenario, a scenario mustered from rosters.

Strength is counted in models. A unit fielded below the scenario's models loses its
plainest models first: a weapon carried by every model goes down with the models, a
weapon fewer models carry (a special or heavy weapon) stays as long as there are models
to carry it (its count is at most the models fielded). A vehicle is one model: fielded
whole or not at all. w40k4 has no quality or rank: an entry starts on the first rung of
the house ladder (``campaign.yaml``) and its rank changes nothing in play (see
``docs/campaigns.md``).
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.campaign.muster import Ranked, ScenarioMuster, starting_rank
from rules.campaign.roster import Roster, RosterEntry
from rules.core.battlefield import Battlefield
from rules.w40k4.scenario import Scenario, UnitSpec
from rules.w40k4.surface import PLAY


def _weapons(spec: UnitSpec, models: int) -> dict[str, int]:
    return {weapon: min(count, models) for weapon, count in spec.weapons.items()}


def roster_of(scenario: Scenario, side: str) -> Roster:
    """Side ``side`` of the scenario as a roster at full strength."""
    units = next((s.units for s in scenario.sides if s.id == side), ())
    return Roster(
        side=side,
        entries=tuple(
            RosterEntry(
                id=spec.id,
                name=spec.name,
                strength=spec.models,
                full=spec.models,
                rank=starting_rank("w40k4", {}),
                weapons=dict(spec.weapons),
            )
            for spec in units
        ),
    )


def units(scenario: Scenario) -> dict[str, dict[str, int]]:
    """Each side's units and their models."""
    return {side.id: {spec.id: spec.models for spec in side.units} for side in scenario.sides}


def _field(scenario: Scenario, fielded: Mapping[str, int]) -> Battlefield | None:
    """The table with the positions of the units fielded only."""
    field = scenario.battlefield
    return None if field is None else field.deploying(fielded)


def muster(
    scenario: Scenario,
    fielded: Mapping[str, int],
    ranked: Ranked | None = None,  # a rank changes nothing in play here
) -> Scenario:
    """The scenario with only the units of ``fielded``, each at its models there."""
    sides = tuple(
        side.model_copy(
            update={
                "units": tuple(
                    spec.model_copy(
                        update={
                            "models": fielded[spec.id],
                            "weapons": _weapons(spec, fielded[spec.id]),
                        }
                    )
                    for spec in side.units
                    if spec.id in fielded
                )
            }
        )
        for side in scenario.sides
    )
    return scenario.model_copy(update={"sides": sides, "battlefield": _field(scenario, fielded)})


MUSTER = ScenarioMuster(PLAY, roster_of, muster, units, ruleset="w40k4")

__all__ = ["MUSTER", "muster", "roster_of", "units"]
