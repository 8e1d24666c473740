"""The shooting phase: weapon groups, the attack chains, blast templates."""

from __future__ import annotations

from rules.core.battlefield import Overlay
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput, NoneCan, ParamValue, UnknownName
from rules.core.game import is_preview
from rules.core.geometry import offset
from rules.core.resolution import Outcome, Resolution
from rules.core.words import joined
from rules.w40k4 import field, lookups
from rules.w40k4.model import (
    Facing,
    Phase,
    Template,
    WeaponType,
    field_data,
    unit_types,
)
from rules.w40k4.orders import Fire, PlaceTemplate
from rules.w40k4.procedures import chain, checks
from rules.w40k4.scenario import Weapon
from rules.w40k4.state import Applied, PendingTemplate, UnitState, W40kState
from rules.w40k4.turn.common import (
    acting_unit,
    enemy_target,
    inches,
    is_locked,
    procedure_input,
    require_own,
    resolve,
    timed_active,
)
from rules.w40k4.turn.effects import apply_hits
from rules.w40k4.turn.vehicles import WeaponGroup, vehicle_allowance


def _weapon_count(unit: UnitState, weapon_id: str, weapon: Weapon) -> int:
    carried = unit.weapons[weapon_id]
    if unit.vehicle:
        return -(-carried * unit.models // unit.initial_models)
    count = min(carried, unit.models)
    if unit.guns and weapon.type is WeaponType.PESANTE:
        count = min(count, unit.guns)
    return count


def weapon_groups(
    state: W40kState, unit: UnitState, command: Fire, result: Applied
) -> list[WeaponGroup]:
    """The weapon groups that fire: checked against range, movement and the vehicle table."""
    explicit = command.weapon is not None
    names = (
        [n.strip() for n in (command.weapon or "").split(",") if n.strip()]
        if explicit
        else list(unit.weapon_order)
    )
    if explicit and not names:
        raise InvalidInput("error.w40k4.no_weapon_named")
    if command.distance is None:
        raise InvalidInput("error.option.missing", option="distance")
    distance = command.distance
    moved = unit.moved or unit.has("falling_back")  # falling back: fires as if it moved
    heavy_ok = unit.vehicle or bool(unit_types()[unit.type].get("moves_and_fires_heavy"))
    groups: list[WeaponGroup] = []
    # Why each weapon does not fire, with how far short it falls (0: no distance to it).
    skipped: list[tuple[float, str, dict[str, ParamValue]]] = []
    for name in dict.fromkeys(names):
        if name not in unit.weapons:
            raise UnknownName(
                "error.w40k4.no_such_weapon",
                unit=unit.name,
                weapon=name[:40],
                weapons=joined(state.weapons[w].name for w in unit.weapon_order),
                among=tuple(unit.weapon_order),
            )
        weapon = state.weapons[name]
        problem: str | None = None
        rules = lookups.weapon_rules(weapon.type.value)
        shots = int(rules.get("fixed_shots", weapon.shots))
        if name in unit.destroyed_weapons:
            problem = "weapon_destroyed"
        elif "rapid_fire" in rules:
            rapid = rules["rapid_fire"]
            if distance <= float(rapid["short_range"]):
                shots = int(rapid["short_shots"])
            elif weapon.range is not None and distance <= weapon.range:
                shots = int(rapid["long_shots"])
                if moved and rapid["long_needs_stationary"] and not unit.vehicle:
                    problem = "rapid_fire_moved"
            else:
                problem = "out_of_range"
        elif weapon.range is not None and distance > weapon.range:
            problem = "out_of_range"
        elif (
            weapon.template is Template.SAGOMA
            and state.battlefield is not None
            and distance > float(field_data()["flamer_template_length"])
        ):
            problem = "out_of_range"  # the teardrop reaches as far as it is long
        reach = _reach(state, weapon)
        if problem is None and moved and not rules["move_and_fire"] and not heavy_ok:
            problem = "heavy_moved"
        count = _weapon_count(unit, name, weapon)
        if problem is None and count <= 0:
            problem = "no_crew"
        if problem is not None:
            beyond = problem == "out_of_range" and reach is not None
            params: dict[str, ParamValue] = {"weapon": weapon.name, "distance": inches(distance)}
            if beyond:
                assert reach is not None
                params["range"] = inches(reach)
            if explicit:
                key = "error.w40k4.beyond_range" if beyond else f"error.w40k4.{problem}"
                raise IllegalAction(key, **params)
            result.notices.append(Outcome.of(f"w40k4.fire.skipped_{problem}", weapon=weapon.name))
            why = "w40k4.fire.why_out_of_range" if beyond else f"w40k4.fire.skipped_{problem}"
            short = distance - reach if beyond and reach is not None else 0.0
            skipped.append((short, why, params))
            continue
        groups.append(WeaponGroup(name, weapon, count, shots))
    if not groups:
        # Each weapon's own reason, the nearest to firing first (the least out of range).
        reasons = [(why, params) for _, why, params in sorted(skipped, key=lambda s: s[0])]
        if not reasons:
            raise IllegalAction("error.w40k4.nothing_fires", unit=unit.name)
        raise NoneCan("error.w40k4.no_weapon_fires", reasons, unit=unit.name)
    if unit.vehicle:
        vehicle_allowance(state, unit, groups, explicit, result)
    return groups


def _reach(state: W40kState, weapon: Weapon) -> float | None:
    """How far ``weapon`` fires (a teardrop template: as far as it is long on a
    battlefield), None when no range limits it."""
    limits = [float(weapon.range)] if weapon.range is not None else []
    if weapon.template is Template.SAGOMA and state.battlefield is not None:
        limits.append(float(field_data()["flamer_template_length"]))
    return min(limits, default=None)


def do_fire(
    state: W40kState, command: Fire, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    """/fire: every weapon group of one unit at one target (blasts wait for /template)."""
    unit, target = check_fire(state, command, actor_side)
    marks: list[Overlay] | None = None
    if state.battlefield is not None:
        command, measured_cover = _measured_fire(
            state, unit, target, command, actor_side, tray, result
        )
        marks = (
            [
                Overlay(
                    kind="line_of_fire",
                    points=(unit.at, target.at),
                    label=unit.id,
                    # drawn as blocked when the referee ruled the firer sees past an area
                    blocked=bool(field.measure(state, unit, target).blocked_by),
                )
            ]
            if unit.at is not None and target.at is not None
            else []
        )
        cover = measured_cover
    else:
        cover = command.cover if command.cover is not None else target.cover
    groups = weapon_groups(state, unit, command, result)
    waiting = len(state.templates)
    for group in groups:
        if not target.alive:
            result.notices.append(Outcome.of("w40k4.fire.target_gone", weapon=group.weapon.name))
            continue
        _fire_group(
            state, unit, target, group, command, cover, tray, result, marks, actor_side is None
        )
    placed = len(state.templates) - waiting
    if placed > 0:
        # The fire is not over: each scattered template is resolved by /template, which
        # the reply spells out for the player to type next.
        result.notices.append(
            Outcome.of("w40k4.fire.template_next", n=placed, unit=unit.id, target=target.id)
        )
    if marks is not None and not is_preview():
        field.remember(state, "w40k4.map.fired", marks, unit=unit.name, target=target.name)
    unit.fired = True
    unit.fired_at = target.id
    unit.fired_types = sorted({*unit.fired_types, *(g.weapon.type.value for g in groups)})


def _measured_fire(
    state: W40kState,
    unit: UnitState,
    target: UnitState,
    command: Fire,
    actor_side: str | None,
    tray: DiceTray,
    result: Applied,
) -> tuple[Fire, str | None]:
    """On a battlefield: the distance between the units, refused if sight is blocked, and
    the cover the target takes (a player's differing distance or cover is refused; the
    referee's stands and the resolution shows both)."""
    measured = field.in_sight(state, unit, target, referee=actor_side is None)
    distance = field.refuse_typed("distance", command.distance, measured.inches, actor_side)
    cover = measured.cover
    if command.cover is not None:
        typed = lookups.cover_save(command.cover)[2]
        if typed != measured.cover:
            if actor_side is not None:
                raise IllegalAction(
                    "error.w40k4.measured_cover",
                    typed=typed or "nessuna",
                    measured=measured.cover or "nessuna",
                )
            cover = typed
    result.resolutions.append(
        resolve(
            "measure",
            checks.MeasureInput(
                what="fire",
                inches=measured.inches,
                typed=distance if distance != measured.inches else None,
                terrain=measured.terrain,
                cover=cover,
                crossed=", ".join(measured.crossed)[:400],
                blocked=", ".join(measured.blocked_by)[:400],
            ),
            tray,
        )
    )
    return command.model_copy(update={"distance": distance}), cover


def check_fire(
    state: W40kState, command: Fire, actor_side: str | None
) -> tuple[UnitState, UnitState]:
    """The firing unit and its target, refused if either may not take part in this fire.

    The weapons are checked by :func:`weapon_groups`; the handler and the legal-action
    listing both call the two.
    """
    unit = acting_unit(state, command.unit, actor_side, Phase.SHOOTING)
    if not is_preview() and unit.fired:
        raise IllegalAction("error.w40k4.already_fired", unit=unit.name)
    if not unit.on_table:
        raise IllegalAction("error.w40k4.not_on_table", unit=unit.name)
    if is_locked(unit):
        raise IllegalAction("error.w40k4.locked", unit=unit.name)
    crew_shaken = timed_active(state, unit, "shaken") or timed_active(state, unit, "stunned")
    if unit.vehicle and crew_shaken:
        raise IllegalAction("error.w40k4.crew_shaken", unit=unit.name)
    if unit.bs is None:
        raise IllegalAction("error.w40k4.cannot_shoot", unit=unit.name)
    target = enemy_target(state, unit, command.target)
    if is_locked(target):
        raise IllegalAction("error.w40k4.target_locked", target=target.name)
    return unit, target


def _fire_group(
    state: W40kState,
    unit: UnitState,
    target: UnitState,
    group: WeaponGroup,
    command: Fire,
    cover: str | None,
    tray: DiceTray,
    result: Applied,
    marks: list[Overlay] | None = None,
    referee: bool = False,
) -> None:
    weapon = group.weapon
    template = weapon.template
    if template in (Template.AREA, Template.ARTIGLIERIA):
        for _ in range(group.count * group.shots):
            scatter = resolve(
                "blast_scatter",
                checks.BlastScatterInput(
                    template=template.value, bs=unit.bs or 1, barrage=weapon.barrage
                ),
                tray,
            )
            result.resolutions.append(scatter)
            if is_preview():
                continue
            if marks is not None:
                _blast_lands(state, unit, target, group, scatter, command, tray, result, marks)
                continue
            state.counter += 1
            state.templates.append(
                PendingTemplate(
                    id=f"t{state.counter}",
                    unit=unit.id,
                    weapon=group.weapon_id,
                    landed=scatter.outcome.code,
                )
            )
        return
    attacks, auto_hits = group.count * group.shots, 0
    if template is Template.SAGOMA and marks is not None:
        _flamer_lands(state, unit, target, group, command, tray, result, marks, referee)
        return
    if template is Template.SAGOMA:
        if command.models is None:
            raise InvalidInput("error.w40k4.models_needed", weapon=weapon.name)
        attacks = 0
        auto_hits = min(command.models, group.count if target.vehicle else target.models)
        if auto_hits == 0:
            result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=weapon.name))
            return
    resolution = attack(
        state,
        target,
        tray,
        weapon=weapon,
        attacks=attacks,
        auto_hits=auto_hits,
        hit={"bs": unit.bs},
        cover=cover,
        facing=command.facing,
    )
    result.resolutions.append(resolution)
    apply_hits(state, target, resolution, result)


def attack(
    state: W40kState,
    target: UnitState,
    tray: DiceTray,
    *,
    weapon: Weapon | None,
    attacks: int,
    auto_hits: int,
    hit: dict[str, int | None],
    cover: str | None,
    facing: Facing,
    strength: int | None = None,
    close_combat: bool = False,
) -> Resolution:
    """One group of attacks at a unit: the chain against models or against a vehicle."""
    s = strength if strength is not None else (weapon.strength if weapon else 1)
    ap = weapon.ap if weapon else None
    label = weapon.name if weapon else None
    if target.vehicle:
        armour = target.armour.get(facing.value, 10)
        vehicle_data = procedure_input(
            chain.VehicleAttackInput,
            weapon=label,
            attacks=attacks,
            auto_hits=auto_hits,
            strength=s,
            ap=ap,
            armour=armour,
            facing=facing,
            open_topped=target.open_topped,
            squadron=target.squadron,
            models=max(1, min(target.models, 20)),
            target=target.id,
            **hit,
        )
        return resolve("vehicle_hits", vehicle_data, tray)
    data = procedure_input(
        chain.AttackInput,
        weapon=label,
        attacks=attacks,
        auto_hits=auto_hits,
        strength=s,
        ap=ap,
        toughness=target.t or 1,
        save=target.sv,
        invulnerable=target.invulnerable,
        cover=None if close_combat else cover,
        ignores_cover=bool(weapon and weapon.template is Template.SAGOMA),
        wounds=target.w,
        wounds_taken=target.wounds_taken,
        models=max(1, min(target.models, 1000)),
        target=target.id,
        saved_by=target.side,
        **hit,
    )
    return resolve("close_combat" if close_combat else "shooting", data, tray)


def do_template(
    state: W40kState,
    command: PlaceTemplate,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    """/template: the models under a scattered blast template are hit."""
    unit = state.unit(command.unit)
    require_own(unit, actor_side)
    pending = next((t for t in state.templates if t.unit == unit.id), None)
    if pending is None:
        raise IllegalAction("error.w40k4.no_template", unit=unit.name)
    target = state.unit(command.target)
    if not target.on_table:
        raise IllegalAction("error.w40k4.target_not_on_table", target=target.name)
    weapon = state.weapons[pending.weapon]
    state.templates.remove(pending)
    hits = min(command.models, 1 if target.vehicle else target.models)
    partial = 0 if target.vehicle else min(command.partial, max(target.models - hits, 0))
    if hits + partial == 0:
        result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=weapon.name))
        return
    hit_on = int(lookups.standard("sagoma_parziale")["score"])
    resolution = attack(
        state,
        target,
        tray,
        weapon=weapon,
        attacks=partial,
        auto_hits=hits,
        hit={"hit_on": hit_on if partial else None},
        cover=target.cover,
        facing=command.facing,
    )
    result.resolutions.append(resolution)
    apply_hits(state, target, resolution, result)


def _blast_lands(
    state: W40kState,
    unit: UnitState,
    target: UnitState,
    group: WeaponGroup,
    scatter: Resolution,
    command: Fire,
    tray: DiceTray,
    result: Applied,
    marks: list[Overlay],
) -> None:
    """On a battlefield the template lands where the scatter takes it (the clock's 12 points
    away from the firer) and every unit under it is hit, friend or foe."""
    if unit.at is None or target.at is None:
        return
    battlefield = field.field_of(state)
    template = group.weapon.template
    assert template is not None
    radius = float(lookups.template_rules(template.value)["inches"]) / 2
    moved = float(scatter.outcome.param("inches", 0) or 0)
    clock = next(
        (
            int(dict(s.params).get("clock", 12) or 12)
            for s in scatter.steps
            if s.key == "w40k4.step.scatter_distance"
        ),
        12,
    )
    x, y = field.scatter_point(target.at, clock, moved, field.bearing(unit.at, target.at))
    landed = field.drawn(battlefield, x, y)
    if moved:
        marks.append(Overlay(kind="arrow", points=(target.at, landed)))
    marks.append(Overlay(kind="circle", points=(landed,), radius=radius, label=group.weapon.name))
    centre = field.spot(x, y) if (x >= 0 and y >= 0) else landed
    under = field.under_template(state, centre, radius)
    if not under:
        result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=group.weapon.name))
        return
    hit_on = int(lookups.standard("sagoma_parziale")["score"])
    for found in under:
        hit = state.units[found.unit]
        if not hit.alive:
            continue
        result.notices.append(
            Outcome.of(
                "w40k4.field.under_template",
                weapon=group.weapon.name,
                unit=hit.name,
                full=found.full,
                partial=found.partial,
            )
        )
        resolution = attack(
            state,
            hit,
            tray,
            weapon=group.weapon,
            attacks=found.partial,
            auto_hits=found.full,
            hit={"hit_on": hit_on if found.partial else None},
            cover=field.measure(state, unit, hit).cover if hit.id != unit.id else hit.cover,
            facing=command.facing,
        )
        result.resolutions.append(resolution)
        apply_hits(state, hit, resolution, result)


def _flamer_lands(
    state: W40kState,
    unit: UnitState,
    target: UnitState,
    group: WeaponGroup,
    command: Fire,
    tray: DiceTray,
    result: Applied,
    marks: list[Overlay],
    referee: bool,
) -> None:
    """On a battlefield a flamer's template lies from the firer towards the target and hits
    every model under it, friend or foe (each flamer of the group lays its own). A player's
    ``models`` for the target that differ are refused; the referee's stand."""
    if unit.at is None or target.at is None:
        return
    weapon = group.weapon
    under = field.under_flamer(state, unit, target.at)
    length = float(field_data()["flamer_template_length"])
    reach = offset(unit.at, field.bearing(unit.at, target.at), length)
    end = field.drawn(field.field_of(state), *reach)
    marks.append(Overlay(kind="arrow", points=(unit.at, end), label=weapon.name))
    on_target = next((u.full for u in under if u.unit == target.id), 0)
    typed = field.refuse_typed(
        "models",
        None if command.models is None else float(command.models),
        float(on_target),
        None if referee else unit.side,
    )
    if command.models is not None and int(typed) != on_target:  # the referee's count
        under = [u for u in under if u.unit != target.id]
        under.append(field.UnderTemplate(target.id, int(typed), 0))
    if not any(u.full for u in under):
        result.notices.append(Outcome.of("w40k4.fire.template_empty", weapon=weapon.name))
        return
    for found in under:
        hit = state.units[found.unit]
        if not hit.alive or found.full <= 0:
            continue
        hits = found.full * (1 if hit.vehicle else group.count)
        result.notices.append(
            Outcome.of(
                "w40k4.field.under_template",
                weapon=weapon.name,
                unit=hit.name,
                full=min(hits, hit.models if not hit.vehicle else group.count),
                partial=0,
            )
        )
        resolution = attack(
            state,
            hit,
            tray,
            weapon=weapon,
            attacks=0,
            auto_hits=min(hits, group.count if hit.vehicle else hit.models),
            hit={"bs": unit.bs},
            cover=None,
            facing=command.facing,
        )
        result.resolutions.append(resolution)
        apply_hits(state, hit, resolution, result)
