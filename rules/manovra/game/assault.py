"""ASSALTO: infantry assault, close combat, and armour overrunning."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.manovra import ground
from rules.manovra.game.common import _acting_unit, _apply_effects, _resolve, _target_unit, _weapon
from rules.manovra.game.orders import Assault, Fire
from rules.manovra.game.sequence import _finish_action
from rules.manovra.game.shooting import _fire_heavy
from rules.manovra.game.state import Applied, ManovraState
from rules.manovra.scenario import WeaponKind


def _do_assault(
    state: ManovraState, command: Assault, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    unit = _acting_unit(state, command.unit, actor_side)
    if unit.has("panic"):
        raise IllegalAction("error.manovra.panicked", unit=unit.name)
    target = _target_unit(state, unit, command.target)
    if unit.kind["vehicle"] and unit.kind["small_arms"] is None:
        # Armour against infantry or soft vehicles: the target's ET to avoid being overrun.
        resolution = _resolve(
            "overrun", ground.OverrunInput(ad=target.ad, target_id=target.id), tray
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
        _finish_action(state, unit, result)
        return
    if unit.type not in ("fanteria", "mortaio"):
        raise IllegalAction("error.manovra.cannot_assault", unit=unit.name)
    closed_vehicle = target.kind["vehicle"] and not target.open_topped
    if not closed_vehicle:
        courage = _resolve(
            "assault", ground.AssaultInput(ad=unit.ad, cv=unit.cv, target_id=target.id), tray
        )
        result.resolutions.append(courage)
        if courage.outcome.key != "manovra.assault.goes_in":
            _finish_action(state, unit, result)
            return
    if target.kind["vehicle"]:
        weapon_id = command.weapon or next(
            (w for w in unit.weapons if state.weapons[w].kind is WeaponKind.HEAVY), None
        )
        if weapon_id is None:
            raise IllegalAction("error.manovra.choose_weapon", weapons=", ".join(unit.weapons))
        weapon = _weapon(state, unit, weapon_id)
        fire_command = Fire(
            unit=unit.id, target=target.id, distance_cm=0, weapon=weapon_id, impact="gt75"
        )
        _fire_heavy(state, unit, target, weapon_id, weapon, fire_command, 1, tray, result)
    else:
        duels = tuple(
            ground.Duel(ad=unit.ad, opponent_ad=target.ad)
            for _ in range(min(unit.models, target.models, 12))
        )
        resolution = _resolve(
            "close_combat",
            ground.CloseCombatInput(duels=duels, target_id=target.id, attacker_id=unit.id),
            tray,
        )
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    _finish_action(state, unit, result)
