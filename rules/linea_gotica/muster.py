"""linea_gotica in a campaign: a side's roster from a scenario, a scenario mustered from
rosters.

Strength is counted in figures (one figure is one man; a vehicle is one). A squad fielded
below its figures loses its riflemen first (``soldato``), then ammunition bearers, gun
crews, scouts, snipers and observers, and its leader last — within a role, the figures
listed last go first — each figure taking its weapon with it. A vehicle is fielded whole
or not at all. An entry's rank is the unit's quality (``marmaglia`` … ``elite``, the
ladder of ``campaign.yaml``), and a unit musters at its entry's rank: a squad promoted
fights at its new quality. A transport whose squad stays behind no longer names it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from rules.campaign.muster import Ranked, ScenarioMuster, starting_rank
from rules.campaign.roster import Roster, RosterEntry
from rules.core.battlefield import Battlefield
from rules.linea_gotica.model import Quality
from rules.linea_gotica.scenario import FigureSpec, Scenario, UnitSpec
from rules.linea_gotica.surface import PLAY

#: The order figures are lost in (first lost first); the leader is lost last.
LOSS_ORDER = (
    "soldato",
    "portamunizioni",
    "servente",
    "esploratore",
    "sniper",
    "osservatore",
    "leader",
)


def _figures(spec: UnitSpec) -> int:
    return 1 if spec.vehicle is not None else sum(group.count for group in spec.figures)


def _weapons(spec: UnitSpec) -> dict[str, int]:
    carried = Counter(spec.weapons)
    for group in spec.figures:
        if group.weapon is not None:
            carried[group.weapon] += group.count
    return dict(carried)


def roster_of(scenario: Scenario, side: str) -> Roster:
    """Side ``side`` of the scenario as a roster at full strength."""
    units = next((s.units for s in scenario.sides if s.id == side), ())
    return Roster(
        side=side,
        entries=tuple(
            RosterEntry(
                id=spec.id,
                name=spec.name,
                strength=_figures(spec),
                full=_figures(spec),
                rank=starting_rank("linea_gotica", {"quality": spec.quality.value}),
                weapons=_weapons(spec),
            )
            for spec in units
        ),
    )


def units(scenario: Scenario) -> dict[str, dict[str, int]]:
    """Each side's units and their figures."""
    return {side.id: {spec.id: _figures(spec) for spec in side.units} for side in scenario.sides}


def reduced(figures: tuple[FigureSpec, ...], keep: int) -> tuple[FigureSpec, ...]:
    """A squad's figures down to ``keep``, lost in :data:`LOSS_ORDER`."""
    # One slot per figure: (its group, its place in the squad); the lost are taken first
    # by role, then from the end of the squad.
    slots = [(g, n) for g, group in enumerate(figures) for n in range(group.count)]
    order = sorted(
        range(len(slots)),
        key=lambda i: (LOSS_ORDER.index(figures[slots[i][0]].role), -i),
    )
    lost = Counter(slots[i][0] for i in order[: max(0, len(slots) - keep)])
    return tuple(
        group.model_copy(update={"count": group.count - lost[g]})
        for g, group in enumerate(figures)
        if group.count > lost[g]
    )


def _field(scenario: Scenario, fielded: Mapping[str, int]) -> Battlefield | None:
    """The table with the positions of the units fielded only."""
    field = scenario.battlefield
    return None if field is None else field.deploying(fielded)


def muster(
    scenario: Scenario, fielded: Mapping[str, int], ranked: Ranked | None = None
) -> Scenario:
    """The scenario with only the units of ``fielded``, each at its figures there and at the
    quality ``ranked`` gives it (its rank's)."""
    ranks = ranked or {}

    def mustered(spec: UnitSpec) -> UnitSpec:
        update: dict[str, object] = {}
        if "quality" in ranks.get(spec.id, {}):
            update["quality"] = Quality(str(ranks[spec.id]["quality"]))
            if spec.section and spec.leader is None:
                # Only an Elite leads a section (the seed's command table): its leader keeps
                # the scenario's ability whatever the section's rank.
                update["leader"] = spec.quality
        if spec.vehicle is None:
            update["figures"] = reduced(spec.figures, fielded[spec.id])
        if spec.squad is not None and spec.squad not in fielded:
            update["squad"] = None
        return spec.model_copy(update=update)

    sides = tuple(
        side.model_copy(update={"units": tuple(mustered(s) for s in side.units if s.id in fielded)})
        for side in scenario.sides
    )
    return scenario.model_copy(update={"sides": sides, "battlefield": _field(scenario, fielded)})


MUSTER = ScenarioMuster(
    PLAY,
    roster_of,
    muster,
    units,
    ruleset="linea_gotica",
    rank_fields={"quality": tuple(quality.value for quality in Quality)},
)

__all__ = ["LOSS_ORDER", "MUSTER", "muster", "reduced", "roster_of", "units"]
