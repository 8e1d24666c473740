"""The linea_gotica procedures: pure resolutions of the seed's tables (``checks``: actions,
observation, initiative, command distance, morale, snipers, smoke, aircraft; ``fire``:
direct fire, HE, damage, ranging, mines; ``movement``: foot and vehicle moves)."""

from __future__ import annotations

from typing import Any

from rules.core.procedures import Procedure
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.procedures import checks, fire, movement


def _procedure(
    name: str,
    model: Any,
    resolver: Any,
    dice: str,
    limit: int = 5_000,
    odds_input: Any = None,
) -> Procedure[Any]:
    summary = (resolver.__doc__ or "").strip().splitlines()[0]
    return Procedure(
        RULESET_KEY, name, model, resolver, summary, dice, limit, odds_input=odds_input
    )


PROCEDURES: dict[str, Procedure[Any]] = {
    p.name: p
    for p in (
        _procedure(
            "action",
            checks.ActionInput,
            checks.resolve_action,
            "one d10 (none when automatic or impossible)",
        ),
        _procedure(
            "observation",
            checks.ObservationInput,
            checks.resolve_observation,
            "one d10 (none when automatic or impossible)",
        ),
        _procedure(
            "initiative",
            checks.InitiativeInput,
            checks.resolve_initiative,
            "d10 of the first side, then d10 of the second",
        ),
        _procedure("command", checks.CommandInput, checks.resolve_command, "no dice"),
        _procedure(
            "morale",
            checks.MoraleInput,
            checks.resolve_morale,
            "d10 morale test; on a failure d10 on EFFETTI DEL MORALE",
        ),
        _procedure("sniper", checks.SniperInput, checks.resolve_sniper, "one d10"),
        _procedure("smoke", checks.SmokeInput, checks.resolve_smoke, "one d10 (duration)"),
        _procedure(
            "anti_aircraft",
            checks.AntiAircraftInput,
            checks.resolve_anti_aircraft,
            "d10 to hit; on a hit d10 shot down (1-5) or damaged (6-10)",
        ),
        _procedure(
            "aircraft_return",
            checks.AircraftReturnInput,
            checks.resolve_aircraft_return,
            "one d10 (returns on 9-10)",
        ),
        _procedure(
            "direct_fire",
            fire.DirectFireInput,
            fire.resolve_direct_fire,
            "d10 to hit; on a hit the damage dice of the target (infantry: d10, d6 for a "
            "grave wound; unarmoured: d10; armour: d10 penetration, d10 damage, a die for "
            "the weapon destroyed); on an HE miss d10 deviation",
            odds_input=fire.direct_fire_odds,
        ),
        _procedure(
            "he_effect",
            fire.HeEffectInput,
            fire.resolve_he_effect,
            "d10 to be hit; on a hit the damage dice of the target",
        ),
        _procedure(
            "damage",
            fire.DamageInput,
            fire.resolve_damage,
            "the damage dice of the target (armour: penetration first)",
        ),
        _procedure(
            "ranging",
            fire.RangingInput,
            fire.resolve_ranging,
            "d10 precision (≤ quality), then d10 on the PRECISO or IMPRECISO table",
        ),
        _procedure(
            "scatter_distance",
            fire.ScatterDistanceInput,
            fire.resolve_scatter_distance,
            "1d10 or 4d10 cm",
        ),
        _procedure(
            "mine_vehicle",
            fire.MineVehicleInput,
            fire.resolve_mine_vehicle,
            "one d10 (destroyed on 1-5)",
        ),
        _procedure("foot_move", movement.FootMoveInput, movement.resolve_foot_move, "no dice"),
        _procedure(
            "vehicle_move",
            movement.VehicleMoveInput,
            movement.resolve_vehicle_move,
            "no dice; d10 mobility after crushing an obstacle (tracked vehicles)",
        ),
    )
}
