"""The assault phase: assault moves and the combats they lock units in."""

from __future__ import annotations

from rules.core.battlefield import Overlay
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.resolution import Resolution
from rules.w40k4 import field, lookups
from rules.w40k4.model import (
    Facing,
    Phase,
    Speed,
    Terrain,
)
from rules.w40k4.orders import Assault, Combat
from rules.w40k4.procedures import checks
from rules.w40k4.state import Applied, PendingTest, UnitState, W40kState
from rules.w40k4.tables import load_tables
from rules.w40k4.turn import steps
from rules.w40k4.turn.common import (
    acting_unit,
    chain_step,
    component,
    enemy_target,
    inches,
    is_locked,
    require_phase,
    resolve,
    unlock,
)
from rules.w40k4.turn.effects import apply_hits, dangerous_tests
from rules.w40k4.turn.shooting import attack


def do_assault(
    state: W40kState, command: Assault, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/assault: the assault move; a unit that reaches its target is locked with it."""
    if state.battlefield is not None:
        command = _measured_assault(state, command, actor_side, tray, result)
    unit, target = check_assault(state, command, actor_side)
    # An assault move is a move: TERRENI ACCIDENTATI slows it and owes its dangerous tests
    # as /move does (the models cross the terrain whether or not they reach).
    plan = checks.plan_move(
        checks.MovementInput(
            unit_type=unit.type,
            distance=command.distance or 0.0,
            terrain=command.terrain or Terrain.OPEN,
            fast=unit.fast,
        )
    )
    resolution = resolve(
        "assault_move",
        checks.AssaultMoveInput(
            distance=command.distance or 0.0, assault_range=unit.assault, slowed=plan.slowed
        ),
        tray,
    )
    result.resolutions.append(resolution)
    unit.assaulted = True
    dangerous_tests(state, unit, plan.dangerous, tray, result)
    if resolution.outcome.key != "w40k4.assault.charged" or not unit.alive:
        return
    unit.charged = True
    if state.battlefield is not None:
        start = unit.at
        field.charge(state, unit, target)
        if start is not None and unit.at is not None:
            field.remember(
                state,
                "w40k4.map.charged",
                [Overlay(kind="arrow", points=(start, unit.at))],
                unit=unit.name,
                target=target.name,
            )
    unit.locked_with.append(target.id)
    if unit.id not in target.locked_with:
        target.locked_with.append(unit.id)


def check_assault(
    state: W40kState, command: Assault, actor_side: str | None
) -> tuple[UnitState, UnitState]:
    """The assaulting unit and its target, refused if the assault is not allowed now.

    The handler and the legal-action listing both call it.
    """
    unit = acting_unit(state, command.unit, actor_side, Phase.ASSAULT)
    if not unit.on_table:
        raise IllegalAction("error.w40k4.not_on_table", unit=unit.name)
    if unit.assaulted:
        raise IllegalAction("error.w40k4.already_assaulted", unit=unit.name)
    if is_locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    if unit.has("falling_back"):
        raise IllegalAction("error.w40k4.falling_back", unit=unit.name)
    if (unit.vehicle and not unit.walker) or unit.assault <= 0:
        raise IllegalAction("error.w40k4.cannot_assault", unit=unit.name)
    rule = lookups.standard("assalto_dopo_tiro")
    if unit.deep_struck and rule.get("no_assault_after_deep_strike"):
        raise IllegalAction("error.w40k4.deep_struck_no_assault", unit=unit.name)
    for fired in unit.fired_types:
        if not lookups.weapon_rules(fired)["assault_after"]:
            raise IllegalAction("error.w40k4.fired_no_assault", unit=unit.name, type=fired)
    target = enemy_target(state, unit, command.target)
    if unit.fired_at is not None and rule.get("same_target") and target.id != unit.fired_at:
        raise IllegalAction(
            "error.w40k4.assault_fired_target", target=state.units[unit.fired_at].name
        )
    if command.distance is None:
        raise InvalidInput("error.option.missing", option="distance")
    if command.distance > unit.assault:
        raise IllegalAction("error.w40k4.too_far", unit=unit.name, limit=unit.assault)
    return unit, target


def _measured_assault(
    state: W40kState,
    command: Assault,
    actor_side: str | None,
    tray: DiceTray | None,
    result: Applied | None,
) -> Assault:
    """On a battlefield the distance to the assaulted unit and the roughest terrain on the way
    are measured (a player's differing values are refused; the referee's stand)."""
    unit = state.unit(command.unit)
    target = state.unit(command.target)
    if not (unit.on_table and target.on_table) or unit.at is None or target.at is None:
        return command  # check_assault refuses it with its own words
    measured = field.measure(state, unit, target)
    distance = field.refuse_typed("distance", command.distance, measured.inches, actor_side)
    terrain = field.assault_terrain(state, unit, target)
    if command.terrain is not None and command.terrain is not terrain:
        if actor_side is not None:
            raise IllegalAction(
                "error.w40k4.measured_terrain",
                typed=command.terrain.value,
                measured=terrain.value,
                legs="-",
            )
        terrain = command.terrain
    if distance > unit.assault:
        raise IllegalAction(
            "error.w40k4.out_of_reach",
            unit=unit.name,
            target=target.name,
            inches=inches(distance),
            limit=unit.assault,
        )
    if tray is not None and result is not None:
        result.resolutions.append(
            resolve(
                "measure",
                checks.MeasureInput(
                    what="assault",
                    inches=measured.inches,
                    typed=distance if distance != measured.inches else None,
                ),
                tray,
            )
        )
    return command.model_copy(update={"distance": distance, "terrain": terrain})


def _attacks_of(state: W40kState, unit: UnitState) -> int:
    rule = lookups.standard("attacchi")
    per_model = (unit.a or 0) + (int(rule["charge_bonus"]) if unit.charged else 0)
    attacks = unit.models * per_model
    if unit.close_combat_weapon:
        pistols = sum(
            count
            for name, count in unit.weapons.items()
            if lookups.weapon_rules(state.weapons[name].type.value).get("extra_close_combat_weapon")
        )
        attacks += min(pistols, unit.models) * int(rule["second_weapon_bonus"])
    return attacks


def _cc_hit(
    state: W40kState, unit: UnitState, enemy: UnitState, attacks: int
) -> tuple[dict[str, int | None], int, int, Facing]:
    """How ``unit``'s attacks hit ``enemy``: (hit fields, rolled attacks, auto hits, facing)."""
    rule = lookups.standard("veicoli_corpo_a_corpo")
    if not enemy.vehicle or enemy.walker:
        facing = Facing(rule["walker_armour"]) if enemy.walker else Facing.FRONT
        return {"ws": unit.ws or 1, "target_ws": enemy.ws or 1}, attacks, 0, facing
    facing = Facing(rule["armour"])
    speed = enemy.speed or Speed.STAZIONARIO.value
    if speed == Speed.STAZIONARIO.value or enemy.has("immobilised"):
        return {}, 0, attacks, facing
    score = int(rule["combat"] if speed == Speed.COMBATTIMENTO.value else rule["faster"])
    return {"hit_on": score}, attacks, 0, facing


def do_combat(
    state: W40kState, command: Combat, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/combat: resolve one combat (Initiative steps, result, the loser's test owed)."""
    unit = state.unit(command.unit)
    if actor_side is not None and actor_side != state.active:
        raise IllegalAction("error.w40k4.not_your_turn", side=state.sides[state.active])
    require_phase(state, Phase.ASSAULT)
    if not unit.alive or not unit.locked_with:
        raise IllegalAction("error.w40k4.not_in_combat", unit=unit.name)
    members = component(state, unit)
    if any(m in state.resolved_combats for m in members):
        raise IllegalAction("error.w40k4.combat_resolved", unit=unit.name)
    steps.close_assault_moves(state, result)
    fighters = [state.units[m] for m in members]
    strikers = [u for u in fighters if (not u.vehicle or u.walker) and u.i is not None]
    losses = {u.id: 0 for u in fighters}
    suffered = {side: 0 for side in state.sides}
    for level in sorted({u.i or 0 for u in strikers}, reverse=True):
        at_level = [u for u in strikers if u.i == level and u.alive]
        counts = {u.id: _attacks_of(state, u) for u in at_level}  # simultaneous blows
        for striker in at_level:
            enemy = next(
                (state.units[e] for e in striker.locked_with if state.units[e].alive), None
            )
            if enemy is None or counts[striker.id] <= 0:
                continue
            hit, rolled, auto, facing = _cc_hit(state, striker, enemy, counts[striker.id])
            # Each side rolls its own blows to hit and wound, the opponents their saves
            # (LA FASE DI COMBATTIMENTO, step 2), whoever gave the /combat command.
            with tray.rolled_by(striker.side):
                resolution = attack(
                    state,
                    enemy,
                    tray,
                    weapon=None,
                    attacks=rolled,
                    auto_hits=auto,
                    hit=hit,
                    cover=None,
                    facing=facing,
                    strength=striker.s or 1,
                    close_combat=True,
                )
            result.resolutions.append(resolution)
            losses[enemy.id] += apply_hits(state, enemy, resolution, result)
            suffered[enemy.side] += _wounds_counted(enemy, resolution)
    state.resolved_combats += members
    fighting_sides = {u.side for u in fighters if not u.vehicle or u.walker}
    for vehicle in [u for u in fighters if u.vehicle and not u.walker]:
        unlock(state, vehicle)  # vehicles are never locked in combat
    sides = list(state.sides)
    if len(fighting_sides) < 2:
        after_combat(state, members, tray, result)
        return
    outcome = resolve(
        "combat_result",
        checks.CombatResultInput(
            side_a=state.sides[sides[0]],
            side_b=state.sides[sides[1]],
            suffered_a=suffered[sides[0]],
            suffered_b=suffered[sides[1]],
        ),
        tray,
    )
    result.resolutions.append(outcome)
    if suffered[sides[0]] != suffered[sides[1]]:
        winner = sides[0] if suffered[sides[0]] < suffered[sides[1]] else sides[1]
        winners = [u.id for u in fighters if u.side == winner and u.alive]
        per_casualty = int(
            load_tables()["controlli_morale"].row_by_id("combat").data["modifier_per_casualty"]
        )
        for loser in fighters:
            if loser.side == winner or not loser.alive or loser.vehicle or loser.ld is None:
                continue
            state.pending.append(
                PendingTest(
                    unit=loser.id,
                    reason="combat",
                    modifier=max(-10, per_casualty * losses[loser.id]),
                    winners=winners,
                )
            )
    after_combat(state, members, tray, result)


def _wounds_counted(enemy: UnitState, resolution: Resolution) -> int:
    """Wounds inflicted for the combat result: unsaved wounds; a walker's damaging hits."""
    if enemy.vehicle:
        if not enemy.walker:
            return 0
        step = next((s for s in resolution.steps if s.key == "w40k4.step.penetration_facing"), None)
        if step is None or step.outcome is None:
            return 0
        params = dict(step.outcome.params)
        return int(params.get("pen", 0)) + int(params.get("glance", 0))
    return int(chain_step(resolution).get("inflicted", 0))


def after_combat(state: W40kState, members: list[str], tray: DiceTray, result: Applied) -> None:
    """Winners whose enemies are all gone consolidate."""
    for member in members:
        unit = state.units[member]
        was_fighting = unit.alive and not unit.locked_with and not unit.has("falling_back")
        if unit.vehicle and not unit.walker:
            continue
        if was_fighting and not any(p.unit == unit.id for p in state.pending):
            with tray.rolled_by(unit.side):  # the winners consolidate with their own die
                resolution = resolve("consolidate", checks.ConsolidateInput(target=unit.id), tray)
            result.resolutions.append(resolution)
