"""What each seat may do now in a w40k4 game (the contract of :mod:`rules.core.legal`).

Built from the checks the handlers run (``check_move``, ``check_tank_shock``,
``check_fire`` and ``weapon_groups``, ``check_assault``, ``open_combats``): a candidate is
listed only if they accept it, so the listing and the handlers cannot disagree; and filtered
by the declared sequence of play (``sequence.yaml``, ``turn/steps.py``) the same way.

Owed actions, each for the side that owes it: the morale checks and regroup tests
(``morale``, the unit's owner), blast templates to place (``template``, the firer's side),
units arrived from reserve that must enter (``move``, the active player), and in the
assault phase the combats to resolve (``combat``, the active player). While any of them is
owed, ``/turn next`` is not listed (the handler refuses it, naming what is owed and by whom);
while a phase closes on its morale checks, only those are listed.

The active player's free actions per phase: movement — a move of each unit that may move
(distance 1…its limit, terrain optional), a tank shock at each enemy that can take it, a deep
strike for arriving deep strikers, a mishap roll after a deep strike; shooting — each weapon of
each unit at each legal target, with the distances at which that weapon may fire (a flamer
also takes ``models``); assault — each legal assault with distance 1…the assault range.
"""

from __future__ import annotations

from rules.core.budget import charge
from rules.core.errors import RulesError
from rules.core.legal import LegalAction, OptionSpec
from rules.core.resolution import Outcome
from rules.w40k4 import field
from rules.w40k4 import turn as g
from rules.w40k4.field import move_limit
from rules.w40k4.model import Facing, Phase, Template, Terrain
from rules.w40k4.state import Applied, UnitState, W40kState
from rules.w40k4.turn import steps
from rules.w40k4.turn.assault import check_assault
from rules.w40k4.turn.common import open_combats
from rules.w40k4.turn.movement import check_move, check_tank_shock
from rules.w40k4.turn.shooting import check_fire, weapon_groups

MAX_SCAN = 72  # inches scanned for a weapon's firing band (a weapon without range: to here)
MAX_TEMPLATE_MODELS = 20
MAX_FIRE_DISTANCE = 240  # the longest distance /fire takes

_TERRAIN = OptionSpec("terrain", tuple(t.value for t in Terrain), required=False)
_FACING = OptionSpec("facing", tuple(f.value for f in Facing), required=False)


def legal_actions(state: W40kState) -> list[LegalAction]:
    """Everything any seat may do now, each action tagged with the side that gives it."""
    if state.ended:
        return []
    actions = [_owed_test(state, p.unit) for p in state.pending]
    if state.closing:
        return actions
    actions += _owed_templates(state)
    active = [u for u in state.ordered() if u.side == state.active and u.alive]
    if state.phase is Phase.MOVEMENT:
        actions += _movement(state, active)
    elif state.phase is Phase.SHOOTING:
        for unit in active:
            actions += _fires(state, unit)
    else:
        actions += _owed_combats(state)
        for unit in active:
            actions += _assaults(state, unit)
    if not any(a.owed for a in actions):
        actions.insert(0, LegalAction("turn.next", state.active))
    return _in_sequence(state, actions)


def prompted_actions(state: W40kState) -> list[LegalAction]:
    """The owed actions of :func:`legal_actions` that are buttons or come first (tests,
    templates, combats), in its order, without listing moves, fires and assaults."""
    if state.ended:
        return []
    actions = [_owed_test(state, p.unit) for p in state.pending]
    if state.closing:
        return actions
    actions += _owed_templates(state)
    if state.phase not in (Phase.MOVEMENT, Phase.SHOOTING):
        actions += _owed_combats(state)
    return _in_sequence(state, actions)


def _in_sequence(state: W40kState, actions: list[LegalAction]) -> list[LegalAction]:
    """The actions the declared sequence allows now (rules/w40k4/sequence.yaml)."""
    return [a for a in actions if steps.allows(state, a.verb, a.side)]


def _owed_test(state: W40kState, unit_id: str) -> LegalAction:
    unit = state.units[unit_id]
    owed = next(p for p in state.pending if p.unit == unit_id)
    return LegalAction(
        "morale",
        unit.side,
        {"unit": unit.id},
        owed=True,
        label=Outcome.of(f"w40k4.follow.{owed.reason}", unit=unit.name),
    )


def _owed_templates(state: W40kState) -> list[LegalAction]:
    """One owed /template per firing unit with a blast waiting (its first one is placed)."""
    on_table = [u for u in state.ordered() if u.on_table]
    if not on_table:
        return []
    actions: list[LegalAction] = []
    for unit_id in dict.fromkeys(t.unit for t in state.templates):
        unit = state.units[unit_id]
        pending = next(t for t in state.templates if t.unit == unit_id)
        most = min(MAX_TEMPLATE_MODELS, max(u.models for u in on_table))
        actions.append(
            LegalAction(
                "template",
                unit.side,
                {"unit": unit.id},
                (
                    OptionSpec("target", tuple(u.id for u in on_table)),
                    OptionSpec("models", low=0, high=most),
                    OptionSpec("partial", low=0, high=most, required=False),
                    _FACING,
                ),
                owed=True,
                label=Outcome.of(
                    "w40k4.status.template",
                    unit=unit.name,
                    weapon=state.weapons[pending.weapon].name,
                ),
            )
        )
    return actions


def _owed_combats(state: W40kState) -> list[LegalAction]:
    """LA FASE DI COMBATTIMENTO: the active player resolves every open combat."""
    actions: list[LegalAction] = []
    for members in open_combats(state):
        first = next((m for m in members if state.units[m].side == state.active), members[0])
        actions.append(
            LegalAction(
                "combat",
                state.active,
                {"unit": first},
                owed=True,
                label=Outcome.of("w40k4.follow.resolve_combat", unit=state.units[first].name),
            )
        )
    return actions


def _movement(state: W40kState, active: list[UnitState]) -> list[LegalAction]:
    actions: list[LegalAction] = []
    enemies = [u for u in state.ordered() if u.side != state.active and u.on_table]
    for unit in active:
        if any(p.unit == unit.id for p in state.pending):
            continue
        arriving = unit.location == "arriving"
        if arriving and unit.deep_strike:
            free: tuple[OptionSpec, ...] = ()
            if state.battlefield is not None:
                free = (OptionSpec("to", tuple(field.named_places(state))),)
            actions.append(
                LegalAction(
                    "move", unit.side, {"unit": unit.id, "kind": "deepstrike"}, free, owed=True
                )
            )
        if unit.deep_struck and not unit.mishap_rolled:
            actions.append(
                LegalAction("move", unit.side, {"unit": unit.id, "kind": "mishap"}, (_TERRAIN,))
            )
        try:
            check_move(state, unit, 1)
        except RulesError:
            continue
        if state.battlefield is not None:
            actions += _field_moves(state, unit, enemies, arriving)
            continue
        limit = move_limit(unit)
        distance = OptionSpec("distance", low=1, high=limit)
        actions.append(
            LegalAction("move", unit.side, {"unit": unit.id}, (distance, _TERRAIN), owed=arriving)
        )
        for target in enemies:
            try:
                check_tank_shock(state, unit, target.id)
            except RulesError:
                continue
            actions.append(
                LegalAction(
                    "move", unit.side, {"unit": unit.id, "target": target.id}, (distance, _TERRAIN)
                )
            )
    return actions


def _field_moves(
    state: W40kState, unit: UnitState, enemies: list[UnitState], arriving: bool
) -> list[LegalAction]:
    """On a battlefield: a move ``to`` a handful of places within the unit's allowance."""
    places = field.move_destinations(state, unit, enemies)
    if not places:
        return []
    to = OptionSpec("to", tuple(places))
    actions = [LegalAction("move", unit.side, {"unit": unit.id}, (to,), owed=arriving)]
    for target in enemies:
        try:
            check_tank_shock(state, unit, target.id)
        except RulesError:
            continue
        ahead = field.tank_shock_destinations(state, unit, target)
        if ahead:
            actions.append(
                LegalAction(
                    "move",
                    unit.side,
                    {"unit": unit.id, "target": target.id},
                    (OptionSpec("to", tuple(ahead)),),
                )
            )
    return actions


def firing_band(state: W40kState, unit: UnitState, weapon_id: str) -> tuple[int, int] | None:
    """The distances (inches, from 1) at which ``weapon_groups`` lets this weapon fire alone."""
    scratch: Applied = Applied(state)
    high = 0
    for distance in range(1, MAX_SCAN + 1):
        command = g.Fire(unit=unit.id, target=unit.id, distance=distance, weapon=weapon_id)
        try:
            weapon_groups(state, unit, command, scratch)
        except RulesError:
            break
        high = distance
    return (1, high) if high else None


def _fires(state: W40kState, unit: UnitState) -> list[LegalAction]:
    """Each weapon of the unit at each target the checks accept, in its firing band."""
    targets: list[UnitState] = []
    for target in state.ordered():
        charge(16)  # a target's checks and measure (rules.core.budget)
        if target.side == unit.side or not target.on_table:
            continue
        try:
            check_fire(state, g.Fire(unit=unit.id, target=target.id, distance=1), unit.side)
        except RulesError:
            continue
        targets.append(target)
    if not targets:
        return []
    if state.battlefield is not None:
        return _field_fires(state, unit, targets)
    actions: list[LegalAction] = []
    for weapon_id in unit.weapon_order:
        band = firing_band(state, unit, weapon_id)
        if band is None:
            continue
        weapon = state.weapons[weapon_id]
        for target in targets:
            free = [OptionSpec("distance", low=band[0], high=band[1])]
            if target.vehicle:
                free.append(_FACING)
            if weapon.template is Template.SAGOMA:
                most = 1 if target.vehicle else min(MAX_TEMPLATE_MODELS, target.models)
                free.append(OptionSpec("models", low=0, high=most))
            actions.append(
                LegalAction(
                    "fire",
                    unit.side,
                    {"unit": unit.id, "target": target.id, "weapon": weapon_id},
                    tuple(free),
                )
            )
    return actions


def _field_fires(state: W40kState, unit: UnitState, targets: list[UnitState]) -> list[LegalAction]:
    """On a battlefield: each weapon at each target in sight and within its reach, as
    measured (no distance to give)."""
    actions: list[LegalAction] = []
    scratch: Applied = Applied(state)
    for target in targets:
        try:
            measured = field.in_sight(state, unit, target)
        except RulesError:
            continue
        if measured.inches > MAX_FIRE_DISTANCE:
            continue
        for weapon_id in unit.weapon_order:
            command = g.Fire(
                unit=unit.id, target=target.id, distance=measured.inches, weapon=weapon_id
            )
            try:
                weapon_groups(state, unit, command, scratch)
            except RulesError:
                continue
            free: list[OptionSpec] = []
            if target.vehicle:
                free.append(_FACING)
            actions.append(
                LegalAction(
                    "fire",
                    unit.side,
                    {"unit": unit.id, "target": target.id, "weapon": weapon_id},
                    tuple(free),  # a flamer's models under its template are found, not given
                )
            )
    return actions


def _assaults(state: W40kState, unit: UnitState) -> list[LegalAction]:
    actions: list[LegalAction] = []
    for target in state.ordered():
        charge(16)  # a target's checks and measure (rules.core.budget)
        if target.side == unit.side or not target.on_table:
            continue
        if state.battlefield is not None:
            if unit.at is None or target.at is None:
                continue
            reach = field.measure(state, unit, target).inches
            if reach > unit.assault:
                continue
            try:
                check_assault(
                    state, g.Assault(unit=unit.id, target=target.id, distance=reach), unit.side
                )
            except RulesError:
                continue
            actions.append(
                LegalAction("assault", unit.side, {"unit": unit.id, "target": target.id})
            )
            continue
        command = g.Assault(unit=unit.id, target=target.id, distance=1)
        try:
            check_assault(state, command, unit.side)
        except RulesError:
            continue
        actions.append(
            LegalAction(
                "assault",
                unit.side,
                {"unit": unit.id, "target": target.id},
                (OptionSpec("distance", low=1, high=unit.assault), _TERRAIN),
            )
        )
    return actions
