"""Vehicles: damage results, defensive and main weapons, what a vehicle may fire at its speed."""

from __future__ import annotations

from dataclasses import dataclass

from rules.core.errors import IllegalAction
from rules.core.resolution import Outcome
from rules.w40k4 import lookups
from rules.w40k4.model import (
    Allowance,
    Damage,
    Speed,
)
from rules.w40k4.scenario import Weapon
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.turn.common import lose_models, wound_models


@dataclass
class WeaponGroup:
    """The weapons of one kind a unit fires together, and their shots each."""

    weapon_id: str
    weapon: Weapon
    count: int
    shots: int


def apply_damage(state: W40kState, unit: UnitState, key: str, amount: int, result: Applied) -> int:
    """Apply a damage result (or a dangerous-terrain loss); returns the models lost."""
    if key == "dangerous_models":
        return wound_models(state, unit, amount)
    if key == "dangerous_guns":
        unit.guns = max(0, unit.guns - amount)
        result.notices.append(Outcome.of("w40k4.move.guns_lost", unit=unit.name, n=amount))
        return 0
    if key == "dangerous_vehicles":
        if unit.squadron:
            return sum(
                apply_damage(state, unit, Damage.WRECKED.value, 1, result) for _ in range(amount)
            )
        return apply_damage(state, unit, Damage.IMMOBILISED.value, 1, result)
    damage = Damage(key)
    if damage.destroys:
        unit.add(damage.value)
        return lose_models(state, unit, 1)
    if damage is Damage.IMMOBILISED:
        unit.add("immobilised")
    elif damage is Damage.WEAPON_DESTROYED:
        working = [w for w in weapon_order(state, unit) if w not in unit.destroyed_weapons]
        if working:
            unit.destroyed_weapons.append(working[0])
        else:
            unit.add("immobilised")
    else:
        expiry = state.player_turn + (2 if unit.side == state.active else 1)
        unit.timed[damage.value] = max(unit.timed.get(damage.value, -1), expiry)
    return 0


def is_defensive(state: W40kState, weapon: Weapon) -> bool:
    """Whether a weapon is defensive (the scenario's word, else by Strength)."""
    if weapon.defensive is not None:
        return weapon.defensive
    return weapon.strength <= int(lookups.standard("armi_difensive")["max_strength"])


def weapon_order(state: W40kState, unit: UnitState) -> list[str]:
    """The unit's weapons, main weapons first (the order 'Arma distrutta' takes them)."""
    names = list(unit.weapon_order)
    return sorted(names, key=lambda w: is_defensive(state, state.weapons[w]))


def vehicle_allowance(
    state: W40kState, unit: UnitState, groups: list[WeaponGroup], explicit: bool, result: Applied
) -> None:
    """MOVIMENTO E TIRO DEI VEICOLI: refuse or trim the weapon groups a vehicle fires."""
    speed = Speed(unit.speed) if unit.speed else Speed.STAZIONARIO
    allowance, _ = lookups.vehicle_allowance(lookups.vehicle_row(unit.fast, unit.walker), speed)
    if allowance in (Allowance.NONE, Allowance.NOT_ALLOWED):
        raise IllegalAction("error.w40k4.vehicle_cannot_fire", unit=unit.name, speed=speed.value)
    if allowance is Allowance.ALL:
        return
    main = [g for g in groups if not is_defensive(state, g.weapon)]
    if len(main) > 1:
        raise IllegalAction(
            "error.w40k4.one_main_weapon",
            unit=unit.name,
            weapons=", ".join(g.weapon_id for g in main),
        )
    if main and main[0].count > 1:
        main[0].count = 1
        result.notices.append(Outcome.of("w40k4.fire.one_main", weapon=main[0].weapon.name))
