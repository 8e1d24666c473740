"""The manovra procedures: pure resolutions of the seed's tables, one model in, one
:class:`~rules.core.resolution.Resolution` out (``checks``: tests, scatter, communications,
observation; ``fire``: small arms, heavy weapons, fragments, incendiaries; ``ground``:
movement, obstacles, assault, close combat, panic recovery)."""

from __future__ import annotations

from typing import Any

from rules.core.procedures import Procedure
from rules.manovra.model import RULESET_KEY
from rules.manovra.procedures import checks, fire, ground


def _procedure(
    name: str, model: Any, resolver: Any, dice: str, limit: int = 5_000
) -> Procedure[Any]:
    summary = (resolver.__doc__ or "").strip().splitlines()[0]
    return Procedure(RULESET_KEY, name, model, resolver, summary, dice, limit)


PROCEDURES: dict[str, Procedure[Any]] = {
    p.name: p
    for p in (
        _procedure(
            "test",
            checks.TestInput,
            checks.resolve_test,
            "D6 of the unit (none for an IT of a crew with losses), then the die it must "
            "beat (D8 CT; D10 DFR, SF, ET, PT; D12 IFR, PT) or the opponent's D6 (IT, CC)",
        ),
        _procedure(
            "scatter",
            checks.ScatterInput,
            checks.resolve_scatter,
            "the dice of the row's formula in order (e.g. D10, D8, D8); the first D8 "
            "gives the direction",
        ),
        _procedure(
            "communication", checks.CommunicationInput, checks.resolve_communication, "no dice"
        ),
        _procedure("observation", checks.ObservationInput, checks.resolve_observation, "no dice"),
        _procedure(
            "small_arms",
            fire.SmallArmsInput,
            fire.resolve_small_arms,
            "one die by range band: D8 utile, D10 efficace, D12 breve",
        ),
        _procedure(
            "heavy_fire",
            fire.HeavyFireInput,
            fire.resolve_heavy_fire,
            "to-hit die by band; on an HE miss the scatter dice; on an armoured location "
            "or a wall the penetration die by band; then D10 effects (or D6 cm inside "
            "through an opening)",
        ),
        _procedure(
            "he_fragments",
            fire.HeFragmentsInput,
            fire.resolve_he_fragments,
            "D10 to hit (☼ column), D10 penetration (☼ row) if armoured, D10 effects",
        ),
        _procedure(
            "thrown",
            fire.ThrownInput,
            fire.resolve_thrown,
            "PT: D6 then D10 (D12 at a vehicle); on a miss the scatter D8; on the target the "
            "fragments dice, or penetration then D10 effects on a vehicle",
        ),
        _procedure(
            "incendiary",
            fire.IncendiaryInput,
            fire.resolve_incendiary,
            "one D10 per model touched (infantry, artillery) or one D10 (vehicles)",
            limit=10_000,
        ),
        _procedure("move", ground.MoveInput, ground.resolve_move, "no dice"),
        _procedure(
            "obstacle",
            ground.ObstacleInput,
            ground.resolve_obstacle,
            "ET: D6 then D10; on a failed ET against mines, D6 on EFFETTI CAMPO MINATO",
        ),
        _procedure("assault", ground.AssaultInput, ground.resolve_assault, "CT: D6 then D8"),
        _procedure(
            "close_combat",
            ground.CloseCombatInput,
            ground.resolve_close_combat,
            "per duel: the model's D6, then the enemy model's D6",
            limit=5_000,
        ),
        _procedure("overrun", ground.OverrunInput, ground.resolve_overrun, "ET: D6 then D10"),
        _procedure(
            "panic_recovery",
            ground.PanicRecoveryInput,
            ground.resolve_panic_recovery,
            "per commander until one passes: CT D6 then D8",
        ),
    )
}
