"""pzgren in a campaign: a side's roster from a scenario, a scenario mustered from rosters.

Strength is counted in steps: a unit fielded below the scenario's steps starts reduced
(its values stay the counter's: the game reads its steps). pzgren counts no weapons and
has no quality or rank: an entry starts on the first rung of the house ladder
(``campaign.yaml``) and its rank changes nothing in play (see ``docs/campaigns.md``).
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.campaign.muster import Ranked, ScenarioMuster, starting_rank
from rules.campaign.roster import Roster, RosterEntry
from rules.pzgren.scenario import Scenario
from rules.pzgren.surface import PLAY


def roster_of(scenario: Scenario, side: str) -> Roster:
    """Side ``side`` of the scenario as a roster at full strength."""
    units = next((s.units for s in scenario.sides if s.id == side), ())
    return Roster(
        side=side,
        entries=tuple(
            RosterEntry(
                id=spec.id,
                name=spec.name,
                strength=spec.steps,
                full=spec.steps,
                rank=starting_rank("pzgren", {}),
            )
            for spec in units
        ),
    )


def units(scenario: Scenario) -> dict[str, dict[str, int]]:
    """Each side's units and their steps."""
    return {side.id: {spec.id: spec.steps for spec in side.units} for side in scenario.sides}


def muster(
    scenario: Scenario,
    fielded: Mapping[str, int],
    ranked: Ranked | None = None,  # a rank changes nothing in play here
) -> Scenario:
    """The scenario with only the units of ``fielded``, each at its steps there."""
    sides = tuple(
        side.model_copy(
            update={
                "units": tuple(
                    spec.model_copy(update={"steps": fielded[spec.id]})
                    for spec in side.units
                    if spec.id in fielded
                )
            }
        )
        for side in scenario.sides
    )
    return scenario.model_copy(update={"sides": sides})


MUSTER = ScenarioMuster(PLAY, roster_of, muster, units, ruleset="pzgren")

__all__ = ["MUSTER", "muster", "roster_of", "units"]
