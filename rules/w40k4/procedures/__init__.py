"""The w40k4 procedures: pure resolutions of the quick reference's tables (``chain``: the
attack chains, to hit → to wound → saves and to hit → penetration → damage; ``checks``:
tests, reserves, scatter, terrain, moves)."""

from __future__ import annotations

from typing import Any

from rules.core.procedures import Procedure
from rules.core.resolution import Outcome
from rules.w40k4.model import RULESET_KEY
from rules.w40k4.procedures import chain, checks


def _procedure(name: str, model: Any, resolver: Any, dice: str) -> Procedure[Any]:
    summary = (resolver.__doc__ or "").strip().splitlines()[0]
    return Procedure(RULESET_KEY, name, model, resolver, summary, dice)


def _composed(name: str, model: Any, resolver: Any, dice: str, composer: Any) -> Procedure[Any]:
    summary = (resolver.__doc__ or "").strip().splitlines()[0]
    return chain.ComposedProcedure(
        RULESET_KEY, name, model, resolver, summary, dice, composer=composer
    )


def _dangerous_odds(data: checks.DangerousTerrainInput) -> Any:
    procedure = PROCEDURES["dangerous_terrain"]
    one = data.model_copy(update={"dice": 1, "target": None})

    def single() -> Any:
        return Procedure.odds(procedure, one)

    def outcome_of(failed: int) -> Outcome:
        return checks.dangerous_outcome(data.kind, failed)

    return chain.counted_odds(single, data.dice, outcome_of)


PROCEDURES: dict[str, Procedure[Any]] = {
    p.name: p
    for p in (
        _composed(
            "shooting",
            chain.AttackInput,
            chain.resolve_shooting,
            "to hit: one D6 per attack; to wound: one D6 per hit; saves: one D6 per wound",
            chain.attack_odds,
        ),
        _composed(
            "close_combat",
            chain.AttackInput,
            chain.resolve_close_combat,
            "to hit (WS chart): one D6 per attack; to wound: one D6 per hit; saves: one per wound",
            chain.attack_odds,
        ),
        _composed(
            "vehicle_hits",
            chain.VehicleAttackInput,
            chain.resolve_vehicle_hits,
            "to hit: one D6 per attack; penetration: one D6 per hit; damage: one D6 per "
            "glancing or penetrating hit, in order",
            chain.vehicle_odds,
        ),
        _composed(
            "dangerous_terrain",
            checks.DangerousTerrainInput,
            checks.resolve_dangerous_terrain,
            "one D6 per model, vehicle or gun",
            _dangerous_odds,
        ),
        _procedure("leadership", checks.LeadershipInput, checks.resolve_leadership, "2D6 (two D6)"),
        _procedure(
            "escape",
            checks.EscapeInput,
            checks.resolve_escape,
            "D6 of the unit falling back, then D6 of the winners",
        ),
        _procedure("fall_back", checks.FallBackInput, checks.resolve_fall_back, "2D6"),
        _procedure("consolidate", checks.ConsolidateInput, checks.resolve_consolidate, "D6"),
        _procedure(
            "difficult_terrain",
            checks.DifficultTerrainInput,
            checks.resolve_difficult_terrain,
            "2D6, the highest counts",
        ),
        _procedure(
            "assault_move",
            checks.AssaultMoveInput,
            checks.resolve_assault_move,
            "none; 2D6 (the highest counts) for a slowed unit in difficult terrain",
        ),
        _procedure(
            "reserves",
            checks.ReservesInput,
            checks.resolve_reserves,
            "one D6 (none on turn 1 and from turn 5)",
        ),
        _procedure(
            "blast_scatter",
            checks.BlastScatterInput,
            checks.resolve_blast_scatter,
            "scatter die (D6: 1-2 hit, 3-6 arrow); on an arrow D12 direction, then 2D6",
        ),
        _procedure(
            "deep_strike",
            checks.DeepStrikeInput,
            checks.resolve_deep_strike,
            "scatter die (D6: 1-2 hit, 3-6 arrow); on an arrow D12 direction, then 2D6",
        ),
        _procedure("mishap", checks.MishapInput, checks.resolve_mishap, "D6"),
        _procedure("penetration", checks.PenetrationInput, checks.resolve_penetration, "D6"),
        _procedure(
            "vehicle_damage", checks.VehicleDamageInput, checks.resolve_vehicle_damage, "D6"
        ),
        _procedure("movement", checks.MovementInput, checks.resolve_movement, "no dice"),
        _procedure("measure", checks.MeasureInput, checks.resolve_measure, "no dice"),
        _procedure(
            "combat_result", checks.CombatResultInput, checks.resolve_combat_result, "no dice"
        ),
    )
}
