"""What each seat may do now in a manovra game (see :mod:`rules.core.legal` for the contract).

Every action listed here passes the very checks its handler makes (the same functions are
called), so a listed command is accepted whatever the dice then show. Numeric options carry
the range in which the command is accepted: a move's cm within the terrain's rate, a shot's
cm within both the weapon's range and the distance at which the target is seen, an approach
within the assaulting unit's fastest allowed move, a request's cm within the COMUNICAZIONI
limit of the link (farther is accepted too, but always fails; it is not listed).

Owed actions: the tests a unit owes (CT, SF, ET), rolled by the unit's side, block everything
but themselves and the fragments of bursts already fired; at step 4 the next IF marker is
owed by its battery's side. The listing keeps only what the declared sequence of play allows
(``sequence.yaml``, ``turn/steps.py``), as ``apply`` refuses the rest.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from functools import lru_cache, partial

from rules.core.battlefield import Point
from rules.core.budget import charge
from rules.core.dice import DiceTray, SystemDice
from rules.core.errors import RulesError
from rules.core.geometry import centroid, distance, toward
from rules.core.legal import LegalAction, OptionSpec
from rules.core.resolution import Outcome
from rules.manovra import field
from rules.manovra.orders import Fire
from rules.manovra.procedures import checks, ground
from rules.manovra.scenario import Weapon, WeaponKind
from rules.manovra.state import ManovraState, TurnStep, UnitState
from rules.manovra.turn import steps
from rules.manovra.turn.assault import approach_cm, approach_terrain, check_assault, overruns
from rules.manovra.turn.combined import plan
from rules.manovra.turn.common import _declaring_side, weapon_rounds
from rules.manovra.turn.indirect import (
    _fragment_sources,
    _may_take_fragments,
    _next_marker,
    _source_side,
)
from rules.manovra.turn.movement import (
    allowed_kinds,
    check_walk,
    retreat_destinations,
    terrain_ids,
)
from rules.manovra.turn.sequence import (
    _can_declare,
    _check_next,
    _free_batteries,
    _requesting_units,
    _requests_over,
)
from rules.manovra.turn.shooting import (
    _check_firer,
    _check_weapons,
    _same_area,
    sight_limit,
    weapons_reach,
)
from rules.manovra.turn.transport import (
    check_disembark,
    check_hook,
    check_load,
    check_unhook,
    free_to_act,
)


def legal_actions(state: ManovraState) -> list[LegalAction]:
    """Every action any seat may give now, each tagged with its side."""
    if state.ended:
        return []
    actions: list[LegalAction] = []
    if state.pending:
        actions += _owed_tests(state)
        actions += _fragments(state)
        return actions
    if state.step is TurnStep.REQUESTS:
        for side in state.sides:
            if not _requests_over(state, side):
                actions += _requests(state, side)
    elif state.step is TurnStep.MANOEUVRE:
        if state.queue:
            actions += _unit_actions(state, state.units[state.queue[0]])
        else:
            actions += _declarations(state)
    elif state.step is TurnStep.INDIRECT:
        actions += _next_execute(state)
    actions += _fragments(state)
    actions += [
        LegalAction("turn.next", side)
        for side in state.sides
        if _accepted(partial(_check_next, state, side))
    ]
    return _in_sequence(state, actions)


def _in_sequence(state: ManovraState, actions: list[LegalAction]) -> list[LegalAction]:
    """The actions the declared sequence allows now (rules/manovra/sequence.yaml)."""
    return [a for a in actions if steps.allows(state, a.verb, a.side)]


def owed_actions(state: ManovraState) -> list[LegalAction]:
    """The owed actions, in the order :func:`legal_actions` lists them (that list, filtered
    to ``owed``), without checking everything else a seat may do: the follow-up buttons.

    Only two things are ever owed: the tests of the units that owe one (which block all but
    the fragments) and, at step 4, the next IF marker."""
    if state.ended:
        return []
    if state.pending:
        return _owed_tests(state)
    if state.step is TurnStep.INDIRECT:
        return _next_execute(state)
    return []


def _next_execute(state: ManovraState) -> list[LegalAction]:
    """Step 4: the next IF marker to execute, owed by its battery's side (none when all are)."""
    marker = _next_marker(state)
    if marker is None:
        return []
    return [
        LegalAction(
            "execute",
            state.platoons[marker.battery].side,
            {"marker": marker.id},
            owed=True,
            label=Outcome.of("manovra.follow.execute", marker=marker.id),
        )
    ]


def _accepted(check: Callable[[], object]) -> bool:
    try:
        check()
    except RulesError:
        return False
    return True


def _owed_tests(state: ManovraState) -> list[LegalAction]:
    return [
        LegalAction(
            "test",
            state.units[p.unit].side,
            {"unit": p.unit, "kind": p.kind},
            owed=True,
            label=Outcome.of("manovra.follow.test", test=p.kind, unit=state.units[p.unit].name),
        )
        for p in state.pending
    ]


def _fragments(state: ManovraState) -> list[LegalAction]:
    actions = []
    for source in _fragment_sources(state):
        targets = tuple(u.id for u in state.units.values() if _may_take_fragments(source, u))
        if targets:
            actions.append(
                LegalAction(
                    "fragments",
                    _source_side(state, source),
                    {"marker": source.id},
                    (OptionSpec("target", choices=targets),),
                    label=Outcome.of("manovra.follow.fragments", marker=source.id),
                )
            )
    return actions


@lru_cache(maxsize=32)  # a link's limit never changes; asked ~40 times a listing
def _comms_limit(link: checks.Link) -> int:
    """How far a request travels over this link with a direct line of sight (cm)."""
    outcome = checks.resolve_communication(
        checks.CommunicationInput(link=link, distance_cm=0), DiceTray(SystemDice())
    ).outcome
    return int(float(str(outcome.param("limit") or 0)))


def _requests(state: ManovraState, side: str) -> list[LegalAction]:
    enemies = tuple(
        u.id
        for u in state.units.values()
        if u.side != side and u.alive and (state.battlefield is None or u.position is not None)
    )
    if state.battlefield is not None:
        enemies += tuple(state.battlefield.points)
    enemies = enemies or ("-",)
    actions = []
    for unit in _requesting_units(state, side):
        links = [checks.Link.STESSA_SQUADRA, checks.Link.STESSO_PLOTONE, checks.Link.ALTRO_PLOTONE]
        if unit.radio:
            links.append(checks.Link.STESSO_PLOTONE_RADIO)
        for battery in _free_batteries(state, side):
            for link in links:
                actions.append(
                    LegalAction(
                        "callarty",
                        side,
                        {"unit": unit.id, "battery": battery.id, "link": link.value},
                        (
                            OptionSpec("target", choices=enemies),
                            OptionSpec("distance", low=0, high=_comms_limit(link)),
                        ),
                    )
                )
    return actions


def _declarations(state: ManovraState) -> list[LegalAction]:
    side = _declaring_side(state)
    if side is None:
        return []
    actions = []
    platoons = tuple(p.id for p in _can_declare(state, side))
    if platoons:
        actions.append(
            LegalAction("manoeuvre.declare", side, free=(OptionSpec("platoon", choices=platoons),))
        )
    if state.tokens.get(side, 0) > 0:
        actions.append(LegalAction("manoeuvre.pass", side))
    return actions


def _unit_actions(state: ManovraState, unit: UnitState) -> list[LegalAction]:
    side = unit.side
    if unit.has("panic"):
        return _panicked_actions(state, unit)
    actions = [LegalAction("move", side, {"unit": unit.id, "kind": "hold"})]
    if unit.aboard is not None:
        return actions + _getting_off(state, unit)
    # A concealed enemy (Occultarsi) is out of this side's sight and view: never a target
    # it may name (the service answers its name as it would a unit that does not exist).
    enemies = [
        u
        for u in state.units.values()
        if u.side != side
        and u.alive
        and u.aboard is None
        and not (u.has("concealed") and u.position is not None)
    ]
    fires = _accepted(lambda: _check_firer(state, unit.id, side))
    variants = _complex_variants(state, unit) if fires else []
    actions += _transport_actions(state, unit)
    if state.battlefield is not None:
        actions += _field_moves(state, unit, enemies)
        if fires:
            shots = _capped(_nearest(unit, enemies), partial(_field_shots, state, unit))
            actions += _with_variants(shots, variants)
        actions += _capped(_nearest(unit, enemies), partial(_field_assaults, state, unit))
        return actions
    actions += _moves(unit)
    if fires:
        actions += _with_variants(
            [a for target in enemies for a in _shots(state, unit, target)], variants
        )
    for target in enemies:
        actions += _assaults(state, unit, target)
    return actions


def _getting_off(state: ManovraState, unit: UnitState) -> list[LegalAction]:
    """Infantry aboard gets off where its transport stands (a gun waits to be unhooked)."""
    if not _accepted(partial(check_disembark, state, unit)):
        return []
    return [LegalAction("disembark", unit.side, {"unit": unit.id})]


def _transport_actions(state: ManovraState, unit: UnitState) -> list[LegalAction]:
    """Boarding a friendly transport; a transport's hooking and unhooking (line 9)."""
    if not _accepted(partial(free_to_act, state, unit)):
        return []
    friends = [u for u in state.units.values() if u.side == unit.side and u.id != unit.id]
    actions = [
        LegalAction("embark", unit.side, {"unit": unit.id, "vehicle": v.id})
        for v in friends
        if v.carries and _accepted(partial(check_load, state, v, unit.id))
    ]
    if not unit.carries:
        return actions
    if _accepted(partial(check_unhook, state, unit)):
        actions.append(LegalAction("unhook", unit.side, {"unit": unit.id}))
    actions += [
        LegalAction("hook", unit.side, {"unit": unit.id, "gun": gun.id})
        for gun in friends
        if gun.type == "artiglieria" and _accepted(partial(check_hook, state, unit, gun.id))
    ]
    return actions


def _panicked_actions(state: ManovraState, unit: UnitState) -> list[LegalAction]:
    """A panicked unit tries to recover or retreats ("deve ritirarsi"); it holds only when it
    has no retreat (:func:`rules.manovra.turn.movement.may_retreat`, the handler's check)."""
    actions = [LegalAction("recover", unit.side, {"unit": unit.id})]
    if state.battlefield is not None:
        kinds = allowed_kinds(unit)
        actions += [
            LegalAction("move", unit.side, {"unit": unit.id, "kind": kinds[0].value, "to": text})
            for text in retreat_destinations(state, unit, MAX_DESTINATIONS)
        ]
    else:
        actions += _moves(unit)
    if len(actions) == 1:
        actions.append(LegalAction("move", unit.side, {"unit": unit.id, "kind": "hold"}))
    return actions


# -- On a battlefield: the bot measures, so actions carry destinations, not cm ----------------

MAX_DESTINATIONS = 8
# The targets one unit's fire (and its assaults) are listed at: the nearest that qualify. A
# scenario rarely puts this many enemies before one unit; past it, the listing (autocomplete
# shows 25 names) stays short and its work bounded.
MAX_TARGETS = 24


def _nearest(unit: UnitState, enemies: list[UnitState]) -> list[UnitState]:
    """The enemies in the state's order; past :data:`MAX_TARGETS` of them, nearest first
    (those off the table last), so a capped listing keeps the ones that matter."""
    if len(enemies) <= MAX_TARGETS or unit.position is None:
        return enemies
    here = unit.position
    return sorted(
        enemies,
        key=lambda u: math.inf if u.position is None else distance(here, u.position),
    )


def _capped(
    targets: Iterable[UnitState], actions_at: Callable[[UnitState], list[LegalAction]]
) -> list[LegalAction]:
    """The actions at each target in turn, until :data:`MAX_TARGETS` targets gave some."""
    found: list[LegalAction] = []
    listed = 0
    for target in targets:
        charge(16)
        at_target = actions_at(target)
        if at_target:
            found += at_target
            listed += 1
            if listed >= MAX_TARGETS:
                break
    return found


def destinations(state: ManovraState, unit: UnitState, reach: float) -> list[str]:
    """A handful of ``to:`` values worth offering: toward the nearest enemies, the named
    points, the areas, and the four compass points, all within ``reach`` cm."""
    field_ = state.battlefield
    if field_ is None or unit.position is None:
        return []
    here = unit.position
    enemies = sorted(
        (distance(here, u.position), u.id)
        for u in state.units.values()
        # A concealed enemy is not shown on the map: no destination names it.
        if u.side != unit.side and u.alive and u.position is not None and not u.has("concealed")
    )
    found: list[str] = []
    step = max(1, math.floor(reach))
    for cm, enemy in enemies[:2]:
        for share in (step, max(1, step // 2)):
            found.append(f"toward {enemy} {min(share, max(1, math.floor(cm) - 3))}")
    for name, point in field_.points.items():
        if distance(here, point) <= reach:
            found.append(name)
    for area in field_.areas:
        if distance(here, centroid(area.shape)) <= reach:
            found.append(area.id)
    half = max(1, step // 2)
    found += [f"{bearing} {half}" for bearing in ("N", "E", "S", "W")]
    return list(dict.fromkeys(found))


def _field_moves(
    state: ManovraState, unit: UnitState, enemies: list[UnitState]
) -> list[LegalAction]:
    """Per kind of move, the destinations on offer the move procedure accepts."""
    del enemies
    if unit.position is None:
        return []
    tray = DiceTray(SystemDice())
    unit_class = ground.MovementClass(unit.kind["movement"])
    actions = []
    paths: dict[str, tuple[Point, tuple[ground.Leg, ...]]] = {}
    for kind in allowed_kinds(unit):
        # The allowance through the ground the unit stands on (roads take it farther).
        reach = float(ground.leg_limit_cm(unit_class, unit.tactical_cm, kind, unit.terrain))
        offered = 0
        for text in destinations(state, unit, reach):
            if offered >= MAX_DESTINATIONS:
                break
            try:
                if text not in paths:  # the path is the same whatever the kind of move
                    goal = field.destination(state, unit, text)
                    paths[text] = (goal, field.legs(state, unit.position, goal))
                goal, legs = paths[text]
                check_walk(state, unit, kind, unit.position, goal, False, tray, legs)
            except RulesError:
                continue
            offered += 1
            actions.append(
                LegalAction("move", unit.side, {"unit": unit.id, "kind": kind.value, "to": text})
            )
    return actions


def _field_shots(state: ManovraState, unit: UnitState, target: UnitState) -> list[LegalAction]:
    """Fire at a target in sight (no blocking area) and within range and the sight limit."""
    if unit.position is None or target.position is None:
        return []
    # Beyond the reach of every weapon the unit carries no weapon fires: no sight to take.
    if distance(unit.position, target.position) > _farthest_band(state, unit):
        return []
    seen_line = field.sight(state, unit, target)
    if seen_line.blocked_by:
        return []
    limit = sight_limit(target, from_inside=_same_area(state, unit, target))
    if seen_line.cm > limit:
        return []
    actions = []
    for weapon_id, weapons in _fireable(state, unit, target):
        if not _in_band(unit, weapons, seen_line.cm):
            continue
        options: dict[str, str | int] = {"unit": unit.id, "target": target.id}
        free: list[OptionSpec] = []
        if weapon_id is not None:
            options["weapon"] = weapon_id
            ammo = state.weapons[weapon_id].ammo
            if len(ammo) > 1:
                free.append(OptionSpec("ammo", choices=tuple(ammo), required=False))
        actions.append(LegalAction("fire", unit.side, options, tuple(free)))
    return actions


def _farthest_band(state: ManovraState, unit: UnitState) -> float:
    """The far edge of the longest range band among the unit's weapons (cm)."""
    return max(
        (
            float(limit)
            for weapon_id in unit.weapons
            for limit in state.weapons[weapon_id].ranges_cm.values()
        ),
        default=0.0,
    )


def _in_band(unit: UnitState, weapons: list[tuple[str, Weapon]], cm: float) -> bool:
    """Whether some weapon that fires a shot reaches ``cm`` (the handlers' own test)."""
    for weapon_id, weapon in weapons:
        if weapon.band_for(cm) is None:
            continue
        if weapon.kind is not WeaponKind.LIGHT:
            return True
        if weapon_rounds(unit, weapon_id, weapon, False) > 0:
            return True
    return False


def _field_assaults(state: ManovraState, unit: UnitState, target: UnitState) -> list[LegalAction]:
    """An assault whose measured approach the unit's fastest move covers."""
    if unit.position is None or target.position is None:
        return []
    if not _accepted(lambda: check_assault(state, unit.id, target.id, None, unit.side)):
        return []
    needed = approach_cm(state, unit, target)
    if needed < 0.01:
        if overruns(unit):
            return []
    else:
        kinds = allowed_kinds(unit)
        if not kinds:
            return []
        x, y = toward(unit.position, target.position, needed)
        goal = field.rounded(Point(x=max(0.0, x), y=max(0.0, y)), unit.position)
        tray = DiceTray(SystemDice())
        if not _accepted(
            lambda: check_walk(state, unit, kinds[0], unit.position or goal, goal, False, tray)
        ):
            return []
    return [LegalAction("assault", unit.side, {"unit": unit.id, "target": target.id})]


def _moves(unit: UnitState) -> list[LegalAction]:
    """Per kind of move, the terrains grouped by how far the unit may go through them."""
    actions = []
    unit_class = ground.MovementClass(unit.kind["movement"])
    for kind in allowed_kinds(unit):
        by_limit: dict[int, list[str]] = defaultdict(list)
        for terrain in terrain_ids():
            limit = math.floor(ground.leg_limit_cm(unit_class, unit.tactical_cm, kind, terrain))
            if limit >= 1:
                by_limit[limit].append(terrain)
        for limit, terrains in sorted(by_limit.items()):
            actions.append(
                LegalAction(
                    "move",
                    unit.side,
                    {"unit": unit.id, "kind": kind.value},
                    (
                        OptionSpec("terrain", choices=tuple(terrains)),
                        OptionSpec("distance", low=1, high=limit),
                    ),
                )
            )
    return actions


def _fireable(
    state: ManovraState, unit: UnitState, target: UnitState
) -> Iterator[tuple[str | None, list[tuple[str, Weapon]]]]:
    """Each way ``unit`` may fire at ``target`` with the weapons it fires, as the fire
    handler checks them: None, every weapon that can ("con tutte le armi dell'unità"), then
    each heavy or incendiary weapon on its own (unless it is all the unit fires)."""
    every: list[tuple[str, Weapon]] = []
    with suppress(RulesError):
        every = _check_weapons(state, unit, target, None, None, False)
    if every:
        yield None, every
    for weapon_id in unit.weapons:
        if state.weapons[weapon_id].kind is WeaponKind.LIGHT:
            continue
        try:
            weapons = _check_weapons(state, unit, target, weapon_id, None, False)
        except RulesError:
            continue
        if weapons != every:
            yield weapon_id, weapons


def _complex_variants(state: ManovraState, unit: UnitState) -> list[dict[str, str | int]]:
    """The options a fire may add (seed line 10) without moving, each checked as the fire
    handler checks it: fire and conceal where it stands, and a transport's hook, unhook,
    load or unload (the first gun or infantry it may take)."""
    candidates: list[dict[str, str | int]] = [{"conceal": "true"}]
    if unit.carries:
        candidates += [{"unhook": "true"}, {"unload": "true"}]
        friends = [u for u in state.units.values() if u.side == unit.side and u.id != unit.id]
        guns = [u.id for u in friends if u.type == "artiglieria"]
        walkers = [u.id for u in friends if u.type != "artiglieria"]
        candidates += [{"hook": gun} for gun in guns[:4]]
        candidates += [{"load": walker} for walker in walkers[:6]]
    variants: list[dict[str, str | int]] = []
    found: set[str] = set()
    for extra in candidates:
        kind = next(iter(extra))
        if kind in found:
            continue
        command = Fire(unit=unit.id, target=unit.id, **{k: _flag(v) for k, v in extra.items()})
        if _accepted(partial(plan, state, unit, command)):
            variants.append(extra)
            found.add(kind)
    return variants


def _flag(value: str | int) -> str | int | bool:
    return True if value == "true" else value


def _with_variants(
    actions: list[LegalAction], variants: list[dict[str, str | int]]
) -> list[LegalAction]:
    """Each fire action, then the same fire with each complex action added."""
    return actions + [
        LegalAction(a.verb, a.side, {**a.options, **extra}, a.free)
        for extra in variants
        for a in actions
    ]


def _shots(state: ManovraState, unit: UnitState, target: UnitState) -> list[LegalAction]:
    """The volley of the light weapons, and each heavy or incendiary weapon on its own."""
    seen = sight_limit(target)
    actions = []
    for weapon_id, weapons in _fireable(state, unit, target):
        high = math.floor(min(weapons_reach(unit, weapons, False), seen))
        if high < 1:
            continue
        options: dict[str, str | int] = {"unit": unit.id, "target": target.id}
        free = [OptionSpec("distance", low=1, high=high)]
        if weapon_id is not None:
            options["weapon"] = weapon_id
            ammo = state.weapons[weapon_id].ammo
            if len(ammo) > 1:
                free.append(OptionSpec("ammo", choices=tuple(ammo), required=False))
        actions.append(LegalAction("fire", unit.side, options, tuple(free)))
    return actions


def _assaults(state: ManovraState, unit: UnitState, target: UnitState) -> list[LegalAction]:
    if not _accepted(lambda: check_assault(state, unit.id, target.id, None, unit.side)):
        return []
    kinds = allowed_kinds(unit)
    terrain = approach_terrain(target, None)
    reach = 0
    if kinds:
        reach = math.floor(
            ground.leg_limit_cm(
                ground.MovementClass(unit.kind["movement"]), unit.tactical_cm, kinds[0], terrain
            )
        )
    low = 1 if overruns(unit) else 0
    if reach < low:
        return []
    return [
        LegalAction(
            "assault",
            unit.side,
            {"unit": unit.id, "target": target.id},
            (OptionSpec("distance", low=low, high=reach),),
        )
    ]


def owed_follow_ups(actions: Iterable[LegalAction]) -> list[LegalAction]:
    """The owed actions, in the order listed: the follow-up buttons."""
    return [a for a in actions if a.owed]
