"""What each seat may do now in linea_gotica (the contract of :mod:`rules.core.legal`).

Every candidate is checked with the same functions the handlers call (``check_fire``,
``check_move``, ``check_action``, ``acting_unit`` …), so the listing and the game cannot
disagree. Owed things — morale tests, the initiative roll, the winner's choice, due missions —
are ``owed`` and tagged with the side that owes them. The listing is filtered by the declared
sequence of play (``sequence.yaml``, ``turn/steps.py``) as the handlers are: a side that owes
a morale test or a due mission is not offered ``/turn next``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from functools import partial

from rules.core import geometry
from rules.core.budget import charge
from rules.core.errors import RulesError
from rules.core.legal import LegalAction, OptionSpec
from rules.core.resolution import Outcome
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.orders import Fire, TakeTest
from rules.linea_gotica.procedures import fire, movement
from rules.linea_gotica.state import GameState, Phase, UnitState
from rules.linea_gotica.turn import steps
from rules.linea_gotica.turn.actions import check_action
from rules.linea_gotica.turn.common import (
    acting_unit,
    may_act_in_fire_phase,
    may_still_act,
    owes_morale,
    require_fresh_soldiers,
)
from rules.linea_gotica.turn.firing import check_anti_aircraft, check_fire, measure_fire
from rules.linea_gotica.turn.moving import automatic_mods, check_move, vehicle_to_ride
from rules.linea_gotica.turn.observation import check_observe_place

MAX_DISTANCE_CM = 1000


def _passes(*checks: Callable[[], object]) -> bool:
    """Whether every check passes (the handlers' own check functions, which raise)."""
    try:
        for check in checks:
            check()
    except RulesError:
        return False
    return True


def legal_actions(state: GameState) -> list[LegalAction]:
    """Everything any seat may do now (see :mod:`rules.core.legal`)."""
    return _listing(state, None)


def legal_of_verbs(state: GameState, verbs: Collection[str]) -> list[LegalAction]:
    """The legal actions of these verbs only, in the order :func:`legal_actions` lists them
    (the same list, filtered), without checking the candidates of the other verbs: what the
    follow-up buttons ask (the owed morale, turn and execute), not every fire at every
    target."""
    wanted = frozenset(verbs)
    return [a for a in _listing(state, wanted) if a.verb in wanted]


def _listing(state: GameState, wanted: frozenset[str] | None) -> list[LegalAction]:
    """The legal actions; with ``wanted``, a producer that lists none of those verbs is
    skipped (its other verbs may still be listed: the caller filters)."""
    with field.remembered_sight():  # the checks only read the state
        listed = _listed(state, wanted)
    return [a for a in listed if steps.allows(state, a.verb, a.side)]


def _listed(state: GameState, wanted: frozenset[str] | None) -> list[LegalAction]:

    def want(*verbs: str) -> bool:
        return wanted is None or not wanted.isdisjoint(verbs)

    if state.ended:
        return []
    actions: list[LegalAction] = []
    for unit_id in dict.fromkeys(p.unit for p in state.pending):
        unit = state.units.get(unit_id)
        if unit is None or not unit.alive:
            continue
        label = Outcome.of(f"{RULESET_KEY}.follow.morale", unit=unit.name)
        actions.append(LegalAction("morale", unit.side, {"unit": unit_id}, owed=True, label=label))
    phase = state.phase
    if phase is Phase.INITIATIVE:
        roll = Outcome.of(f"{RULESET_KEY}.follow.initiative")
        actions += [LegalAction("turn.next", side, owed=True, label=roll) for side in state.sides]
        return actions
    if phase is Phase.CHOICE:
        if state.winner is not None:
            orders = ("first", "second")
            labels = tuple(Outcome.of(f"{RULESET_KEY}.follow.order_{o}") for o in orders)
            order = OptionSpec("order", choices=orders, labels=labels)
            actions.append(LegalAction("turn.next", state.winner, free=(order,), owed=True))
        return actions
    if phase is Phase.COVERING:
        mover = state.order[state.mover]
        if want("fire"):
            for unit in _units_of(state, mover):
                actions += _fire_actions(state, unit, covering=True)
        actions.append(LegalAction("turn.next", mover))
        return actions
    if phase is Phase.MOVEMENT:
        mover = state.order[state.mover]
        if want("move", "test"):
            for unit in _units_of(state, mover):
                actions += _move_actions(state, unit)
                actions += _smoke_actions(state, unit)
        if want("fire"):
            for unit in _units_of(state, state.other_side(mover)):
                actions += _fire_actions(state, unit)
                actions += _anti_aircraft_actions(state, unit)
        actions.append(LegalAction("turn.next", mover))
        return actions
    if phase in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE):
        for side in state.sides:
            if side in state.done:
                continue
            if want("test"):
                actions += _observe_actions(state, side)
            actions.append(LegalAction("turn.next", side))
        return actions
    # Phase.FIRE: the current quality class, both sides at once.
    per_unit = want("fire", "test", "callarty")
    for side in state.sides:
        if side in state.done:
            continue
        for unit in _units_of(state, side) if per_unit else ():
            if unit.class_index != state.fire_class or not may_still_act(state, unit):
                continue
            actions += _fire_actions(state, unit)
            actions += _anti_aircraft_actions(state, unit)
            actions += _test_actions(state, unit)
            actions += _smoke_actions(state, unit)
            actions += _call_actions(state, unit)
        due = _mission_actions(state, side)
        actions += due
        actions.append(LegalAction("turn.next", side))
    if want("fragments"):
        actions += _fragment_actions(state)
    return actions


def _units_of(state: GameState, side: str) -> list[UnitState]:
    return [u for u in state.units.values() if u.side == side and u.alive]


def _visible_enemies(state: GameState, side: str) -> list[UnitState]:
    return [u for u in state.units.values() if u.side != side and u.alive and not u.hidden]


def _weapons_of(state: GameState, unit: UnitState) -> list[str]:
    if unit.vehicle is not None:
        carried = unit.working_weapons()
    else:
        carried = [f.weapon for f in unit.figures if f.alive and f.weapon]
    return [w for w in dict.fromkeys(carried) if w in state.weapons and state.weapons[w].row]


def _max_range(row_id: str) -> int:
    ranges = [r for r in fire.weapon_ranges(row_id) if r is not None]
    return max(ranges) if ranges else 1


def _fire_actions(state: GameState, unit: UnitState, covering: bool = False) -> list[LegalAction]:
    """Fire per weapon (and mode) at each enemy in sight; covering fire at terrain too."""
    found: list[LegalAction] = []
    kind = "copertura" if covering else "normale"
    enemies = _visible_enemies(state, unit.side)
    for weapon_id in _weapons_of(state, unit):
        row_id = str(state.weapons[weapon_id].row)
        row = fire.weapon_row(row_id)
        modes = ["singolo"] + (["area"] if "area_row" in row.data else [])
        for target in enemies:
            charge(16)  # a target's checks and its line of sight (rules.core.budget)
            for mode in modes:
                options: dict[str, str | int] = {
                    "unit": unit.id,
                    "target": target.id,
                    "weapon": weapon_id,
                    "mode": mode,
                    "kind": kind,
                }
                command = Fire(
                    unit=unit.id,
                    target=target.id,
                    weapon=weapon_id,
                    mode=mode,
                    kind=kind,
                    distance_cm=1,
                )
                if not _fire_ok(state, command, unit.side):
                    continue
                fired_row = str(row.data["area_row"]) if mode == "area" else row_id
                if state.field is not None:
                    # The bot measures: no distance to give; only targets within range.
                    if measure_fire(state, unit, target) > _max_range(fired_row):
                        continue
                    found.append(LegalAction("fire", unit.side, options))
                    continue
                distance = OptionSpec("distance", low=1, high=_max_range(fired_row))
                found.append(LegalAction("fire", unit.side, options, free=(distance,)))
        if covering:
            for place in _places(state, unit.side):
                command = Fire(unit=unit.id, target=place, weapon=weapon_id, kind="copertura")
                if _fire_ok(state, command, unit.side):
                    found.append(
                        LegalAction(
                            "fire",
                            unit.side,
                            {
                                "unit": unit.id,
                                "target": place,
                                "weapon": weapon_id,
                                "kind": "copertura",
                            },
                        )
                    )
    return found


def _anti_aircraft_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    """Fire at each enemy aircraft over the table (its mission's marker) with an AA weapon."""
    carried = (
        unit.working_weapons()
        if unit.vehicle is not None
        else [f.weapon for f in unit.figures if f.alive and f.weapon]
    )
    weapons = [
        w for w in dict.fromkeys(carried) if w in state.weapons and state.weapons[w].anti_aircraft
    ]
    found: list[LegalAction] = []
    for mission in state.missions:
        if mission.stage != "aircraft" or mission.side == unit.side:
            continue
        for weapon_id in weapons:
            command = Fire(unit=unit.id, target=mission.id, weapon=weapon_id)
            if _passes(partial(check_anti_aircraft, state, command, unit.side)):
                options: dict[str, str | int] = {
                    "unit": unit.id,
                    "target": mission.id,
                    "weapon": weapon_id,
                }
                found.append(LegalAction("fire", unit.side, options))
    return found


def _places(state: GameState, side: str) -> list[str]:
    """Terrain elements a side may name as a target (a name that is also a unit's id would
    name the unit): the table's and those of the units it can see."""
    return [p for p in known_places(state, side) if p not in state.units]


def _move_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    mods = tuple(dict.fromkeys(automatic_mods(state, unit)))
    if unit.riding is not None:
        return _ride_actions(state, unit, "scendi", {}, mods)
    if not _passes(lambda: check_move(state, unit)):
        return []
    found: list[LegalAction] = []
    hidden = OptionSpec("hidden", choices=("true", "false"), required=False)
    if unit.vehicle is not None:
        kinds = [
            (k, movement.vehicle_allowance(unit.vehicle.type, k == "strada", mods))  # type: ignore[arg-type]
            for k in ("strada", "fuori_strada")
        ]
    else:
        kinds = [
            (k, movement.foot_allowance(movement.Pace(k), mods, unit.ran_last_turn))
            for k in ("cauto", "normale", "corsa")
        ]
    if state.field is not None:
        return found + _field_moves(state, unit, mods) + _boarding_actions(state, unit)
    for kind, limit in kinds:
        if limit is None or limit < 1:
            continue
        distance = OptionSpec("distance", low=1, high=min(limit, MAX_DISTANCE_CM))
        found.append(
            LegalAction("move", unit.side, {"unit": unit.id, "kind": kind}, free=(distance, hidden))
        )
    return found + _boarding_actions(state, unit)


def destinations(state: GameState, side: str | None) -> list[str]:
    """What ``to:`` may name that every seat knows: the battlefield's named points and
    its areas (their centres)."""
    if state.field is None:
        return []
    return [*state.field.points, *(area.id for area in state.field.areas)]


def _nearest_enemy(state: GameState, unit: UnitState) -> str | None:
    origin = state.positions.get(unit.id)
    enemies = [u for u in _visible_enemies(state, unit.side) if u.id in state.positions]
    if origin is None or not enemies:
        return None
    return min(enemies, key=lambda u: geometry.distance(origin, state.positions[u.id])).id


def _field_moves(state: GameState, unit: UnitState, mods: tuple[str, ...]) -> list[LegalAction]:
    """Moves on the battlefield: per kind a handful of destinations within the allowance
    once the path's terrain is counted (the named points and areas, toward the nearest enemy
    in sight, the four compass points)."""
    assert state.field is not None
    origin = state.positions.get(unit.id)
    if origin is None:
        return []
    places = {
        u.id: state.positions[u.id]
        for u in state.units.values()
        if u.id in state.positions and (u.side == unit.side or not u.hidden)
    }
    nearest = _nearest_enemy(state, unit)
    kinds: tuple[str, ...] = ("cauto", "normale", "corsa")
    if unit.vehicle is not None:
        kinds = ("strada", "fuori_strada")
    reaches: dict[str, int] = {}
    for kind in kinds:
        base = _allowance_for(unit, kind, mods, ())
        if base is not None and base >= 2:
            reaches[kind] = base - 1
    if not reaches:
        return []
    texts = list(destinations(state, unit.side))
    for reach in dict.fromkeys(reaches.values()):
        texts += [f"{c} {reach}" for c in ("N", "E", "S", "W")]
        if nearest is not None:
            texts.append(f"toward {nearest} {reach}")
    farthest = max(reaches.values()) + 1
    found: list[LegalAction] = []
    # Each destination is measured once, then checked for each kind of move.
    for text in dict.fromkeys(texts):
        try:
            point = field.destination(state.field, text, origin, places)
        except RulesError:
            continue
        straight = geometry.distance(origin, point)
        if straight < 1 or straight > farthest:
            continue
        plan = field.plan_path(state.field, origin, point)
        for kind in reaches:
            if _reachable(unit, kind, mods, plan):
                options: dict[str, str | int] = {"unit": unit.id, "kind": kind, "to": text}
                found.append(LegalAction("move", unit.side, options))
    return found


def _allowance_for(
    unit: UnitState, kind: str, mods: tuple[str, ...], terrain: tuple[str, ...]
) -> int | None:
    every = tuple(dict.fromkeys([*mods, *terrain]))
    if unit.vehicle is not None:
        return movement.vehicle_allowance(unit.vehicle.type, kind == "strada", every)  # type: ignore[arg-type]
    return movement.foot_allowance(movement.Pace(kind), every, unit.ran_last_turn)


def _reachable(unit: UnitState, kind: str, mods: tuple[str, ...], plan: field.PathPlan) -> bool:
    """Whether the handler accepts this path for this kind (its allowance, its terrain)."""
    if unit.vehicle is not None:
        if kind == "strada" and not plan.on_road:
            return False
        terrain, across = plan.vehicle_mods, plan.step_across_vehicle
    else:
        terrain, across = plan.foot_mods, plan.step_across_foot
    allowance = _allowance_for(unit, kind, mods, terrain)
    if allowance is None:
        return False
    if across:
        return True
    return allowance >= 1 and math.ceil(plan.cm) <= allowance


def _ride_actions(
    state: GameState,
    unit: UnitState,
    kind: str,
    options: dict[str, str | int],
    mods: tuple[str, ...],
) -> list[LegalAction]:
    """Getting on a tank (sali) or off it (scendi): a foot move at the normal pace."""
    if not _passes(partial(check_move, state, unit, kind)):
        return []
    limit = movement.foot_allowance(movement.Pace.NORMALE, mods, unit.ran_last_turn)
    if limit is None or limit < 1:
        return []
    distance = OptionSpec("distance", low=1, high=min(limit, MAX_DISTANCE_CM))
    return [
        LegalAction("move", unit.side, {"unit": unit.id, "kind": kind, **options}, free=(distance,))
    ]


def _boarding_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    """A squad on foot may get on each own vehicle that can carry it."""
    if unit.vehicle is not None or unit.riding is not None:
        return []
    mods = tuple(dict.fromkeys(automatic_mods(state, unit)))
    found: list[LegalAction] = []
    for vehicle in _units_of(state, unit.side):
        if vehicle.vehicle is not None and _passes(
            partial(vehicle_to_ride, state, unit, vehicle.id)
        ):
            found += _ride_actions(state, unit, "sali", {"vehicle": vehicle.id}, mods)
    return found


def _acting(state: GameState, unit: UnitState) -> None:
    acting_unit(state, unit.id, unit.side)


def _fire_ok(state: GameState, command: Fire, side: str) -> bool:
    return _passes(lambda: check_fire(state, command, side))


def _test(state: GameState, unit: UnitState, **fields: object) -> TakeTest | None:
    command = TakeTest.model_validate({"unit": unit.id, **fields})
    ok = _passes(
        lambda: _acting(state, unit),
        lambda: check_action(state, unit, command),
    )
    return command if ok else None


def _test_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    found: list[LegalAction] = []
    side = unit.side
    for kind in ("mirare", "scavare"):
        if _test(state, unit, kind=kind):
            found.append(LegalAction("test", side, {"unit": unit.id, "kind": kind}))
    if _test(state, unit, kind="azione"):
        level = OptionSpec("difficulty", choices=("molto_facile", "facile", "normale", "difficile"))
        if unit.task is not None:
            # Going on with a task of several turns: its level is the task's.
            found.append(LegalAction("test", side, {"unit": unit.id, "kind": "azione"}))
        else:
            # An action of one turn, or a task of several (turns) started now.
            turns = OptionSpec("turns", low=1, high=3, required=False)
            found.append(
                LegalAction("test", side, {"unit": unit.id, "kind": "azione"}, free=(level, turns))
            )
    for weapon_id in _weapons_of(state, unit):
        kinds = ["ricaricare"] if weapon_id in unit.needs_reload else []
        row = fire.weapon_row(str(state.weapons[weapon_id].row))
        if weapon_id not in unit.emplaced and (
            row.data.get("must_emplace") or "unemplaced_as" in row.data
        ):
            kinds.append("piazzare")
        for kind in kinds:
            if _test(state, unit, kind=kind, weapon=weapon_id):
                found.append(
                    LegalAction("test", side, {"unit": unit.id, "kind": kind, "weapon": weapon_id})
                )
    for figure in unit.figures:
        wounded = figure.alive and (figure.wounded or figure.badly_wounded)
        if wounded and _test(state, unit, kind="medicare", man=figure.n):
            found.append(
                LegalAction("test", side, {"unit": unit.id, "kind": "medicare", "man": figure.n})
            )
    return found


def _smoke_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    source = "lanciafumogeni_veicolo" if unit.vehicle is not None else "bomba_mano"
    if unit.vehicle is None and not any(
        f.alive and f.weapon and state.weapons[f.weapon].row == "bomba_mano" for f in unit.figures
    ):
        return []  # smoke grenades are thrown by soldiers who carry grenades
    if not _test(state, unit, kind="fumo", source=source):
        return []
    return [LegalAction("test", unit.side, {"unit": unit.id, "kind": "fumo", "source": source})]


def _call_actions(state: GameState, unit: UnitState) -> list[LegalAction]:
    if not unit.observer and not unit.commander:
        return []
    if not _passes(
        lambda: may_act_in_fire_phase(state, unit),
        lambda: require_fresh_soldiers(state, unit),
        lambda: owes_morale(state, unit),
    ):
        return []
    busy = {m.support for m in state.missions if m.stage != "done"}
    targets = tuple(
        u.id for u in _visible_enemies(state, unit.side) if _observer_sees(state, unit, u)
    )
    if not targets:
        return []
    found: list[LegalAction] = []
    for support in state.supports.values():
        if support.side != unit.side or support.id in busy:
            continue
        if not unit.observer and not support.platoon_mortars:
            continue
        found.append(
            LegalAction(
                "callarty",
                unit.side,
                {"unit": unit.id, "battery": support.id},
                free=(OptionSpec("target", choices=targets),),
            )
        )
    return found


def _observer_sees(state: GameState, observer: UnitState, target: UnitState) -> bool:
    """On the battlefield an observer calls fire only where he sees (no battlefield: any)."""
    if state.field is None:
        return True
    origin, aim = state.positions.get(observer.id), state.positions.get(target.id)
    if origin is None or aim is None:
        return False
    smoke = tuple(s.place for s in state.smoke if s.effective and s.place)
    return not field.sight(state.field, origin, aim, smoke)[1]


def _mission_actions(state: GameState, side: str) -> list[LegalAction]:
    found: list[LegalAction] = []
    for mission in state.missions:
        observer = state.units.get(mission.observer)
        if (
            mission.side != side
            or mission.stage == "done"
            or mission.due_turn > state.turn
            or observer is None
            or observer.class_index != state.fire_class
        ):
            continue
        options = {"marker": mission.id}
        if mission.stage in ("ranging", "aircraft", "returning"):
            visible = OptionSpec("visible", choices=("true", "false"), required=False)
            found.append(
                LegalAction(
                    "execute",
                    side,
                    {**options, "order": "tiro"},
                    free=(visible,),
                    owed=observer.alive,
                    label=_execute_label("tiro", mission.id),
                    button=True,
                )
            )
        elif mission.stage == "order" and observer.activity is None:
            for order in ("effetto", "aggiusta", "fine"):
                # Adjusting is typed (it had no button before either).
                pressed = order != "aggiusta"
                label = _execute_label(order, mission.id) if pressed else None
                found.append(
                    LegalAction(
                        "execute", side, {**options, "order": order}, label=label, button=pressed
                    )
                )
        elif mission.stage == "strafe":
            for order in ("mitraglia", "fine"):
                found.append(
                    LegalAction(
                        "execute",
                        side,
                        {**options, "order": order},
                        label=_execute_label(order, mission.id),
                        button=True,
                    )
                )
    return found


def _execute_label(order: str, marker: str) -> Outcome:
    """The button of an observer's order to a mission."""
    return Outcome.of(f"{RULESET_KEY}.follow.execute_{order}", marker=marker)


def _fragment_actions(state: GameState) -> list[LegalAction]:
    found: list[LegalAction] = []
    for blast in state.blasts:
        for unit in state.units.values():
            if not unit.alive or (unit.hidden and unit.side != blast.side):
                continue
            if unit.id in blast.resolved:
                continue
            found.append(
                LegalAction(
                    "fragments",
                    blast.side,
                    {"marker": blast.id, "target": unit.id},
                    free=(OptionSpec("ring", choices=("breve", "lunga")),),
                )
            )
    return found


def known_places(state: GameState, side: str | None) -> list[str]:
    """The terrain elements ``side`` (None: the referee) knows of: the table's named ones and
    the places of the units it can see — never a place only a hidden enemy gives away."""
    seen = {
        u.place
        for u in state.units.values()
        if u.place and (side is None or u.side == side or not u.hidden)
    }
    return sorted(seen | set(state.places))


def _observe_actions(state: GameState, side: str) -> list[LegalAction]:
    """Observation of each terrain element the side knows of, not yet tried this phase.

    Listed by element (``place``), never by a hidden unit's id: the side cannot see what
    hides there, so the listing must not tell it (nor which elements hide something).
    """
    observers = _units_of(state, side)
    if not observers:
        return []
    unit = OptionSpec("unit", choices=tuple(u.id for u in observers))
    found: list[LegalAction] = []
    for element in known_places(state, side):
        # The attempt is the side's (one per element and phase): any observer will do.
        if _passes(partial(check_observe_place, state, observers[0], element)):
            found.append(
                LegalAction("test", side, {"kind": "osservare", "place": element}, free=(unit,))
            )
    return found


__all__ = ["known_places", "legal_actions", "legal_of_verbs"]
