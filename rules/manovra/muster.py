"""manovra in a campaign: a side's roster from a scenario, a scenario mustered from rosters.

Strength is counted in models. A unit fielded below the scenario's models loses its
plainest models first: a weapon every model carries goes down with the models, a weapon
fewer models carry stays while there are models to carry it (its count is at most the
models fielded). A platoon left with no unit stays behind. An entry's rank is its
training, the seed's ADDESTRAMENTO (``reclute`` AD 0 … ``elite`` AD 3, the ladder of
``campaign.yaml``), and a unit musters at its entry's rank: a unit promoted fights with
its new AD.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.campaign.muster import Ranked, ScenarioMuster, starting_rank
from rules.campaign.roster import Roster, RosterEntry
from rules.core.battlefield import Battlefield
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
                rank=starting_rank("manovra", {"ad": spec.ad}),
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


def _mustered(spec: UnitSpec, models: int, ranked: Ranked) -> UnitSpec:
    weapons = {weapon: min(count, models) for weapon, count in spec.weapons.items()}
    update: dict[str, object] = {"models": models, "weapons": weapons}
    if "ad" in ranked.get(spec.id, {}):
        update["ad"] = int(ranked[spec.id]["ad"])
    return spec.model_copy(update=update)


def _field(scenario: Scenario, fielded: Mapping[str, int]) -> Battlefield | None:
    """The table with the positions of the units fielded only."""
    field = scenario.battlefield
    return None if field is None else field.deploying(fielded)


def muster(
    scenario: Scenario, fielded: Mapping[str, int], ranked: Ranked | None = None
) -> Scenario:
    """The scenario with only the units of ``fielded``, each at its models there and with
    the AD ``ranked`` gives it (its rank's)."""
    ranks = ranked or {}
    sides = []
    for side in scenario.sides:
        platoons = []
        for platoon in side.platoons:
            kept = tuple(
                _mustered(u, fielded[u.id], ranks) for u in platoon.units if u.id in fielded
            )
            if kept:
                platoons.append(platoon.model_copy(update={"units": kept}))
        sides.append(side.model_copy(update={"platoons": tuple(platoons)}))
    return scenario.model_copy(
        update={"sides": tuple(sides), "battlefield": _field(scenario, fielded)}
    )


MUSTER = ScenarioMuster(
    PLAY, roster_of, muster, units, ruleset="manovra", rank_fields={"ad": (0, 1, 2, 3)}
)

__all__ = ["MUSTER", "muster", "roster_of", "units"]
