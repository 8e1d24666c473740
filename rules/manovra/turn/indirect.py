"""Indirect fire: requests at step 2, IF markers executed at step 4, HE fragments."""

from __future__ import annotations

from rules.core.battlefield import Overlay, Point
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.geometry import parse_destination
from rules.core.resolution import Outcome
from rules.manovra import field
from rules.manovra.orders import ExecuteFire, Fragments, RequestFire
from rules.manovra.procedures import checks
from rules.manovra.scenario import MAX_HEAVY_ROUNDS
from rules.manovra.state import (
    Applied,
    Burst,
    FireMarker,
    ManovraState,
    PlatoonState,
    TurnStep,
    UnitState,
)
from rules.manovra.turn.blast import burst_at, fragments_input
from rules.manovra.turn.common import (
    _apply_effects,
    _marker,
    _own,
    _require_step,
    _resolve,
    weapon_rounds,
)
from rules.manovra.turn.sequence import _free_batteries, _requesting_units


def _check_request(
    state: ManovraState, unit_id: str, battery_id: str, link: checks.Link, actor_side: str | None
) -> tuple[UnitState, PlatoonState]:
    """A request at step 2: a unit on the field relays it once a turn to a free battery."""
    _require_step(state, TurnStep.REQUESTS)
    unit = state.unit(unit_id)
    _own(state, unit, actor_side)
    if unit.side in state.requests_done:
        raise IllegalAction("error.manovra.requests_closed", side=state.sides[unit.side])
    if unit not in _requesting_units(state, unit.side):
        raise IllegalAction("error.manovra.unit_cannot", unit=unit.name)
    battery = state.platoon(battery_id)
    if battery.kind != "battery" or battery.side != unit.side:
        raise IllegalAction("error.manovra.not_a_battery", battery=battery.name)
    if battery not in _free_batteries(state, unit.side):
        raise IllegalAction("error.manovra.battery_busy", battery=battery.name)
    if link is checks.Link.STESSO_PLOTONE_RADIO and not unit.radio:
        raise IllegalAction("error.manovra.no_radio", unit=unit.name)
    return unit, battery


def _do_request(
    state: ManovraState,
    command: RequestFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    unit, battery = _check_request(state, command.unit, command.battery, command.link, actor_side)
    aim = aimed_point(state, unit, command.target)
    state.requested.append(unit.id)
    comms = _resolve(
        "communication",
        checks.CommunicationInput(
            link=command.link,
            distance_cm=command.distance_cm,
            line_of_sight=command.line_of_sight,
            both_entrenched=command.both_entrenched,
        ),
        tray,
    )
    result.resolutions.append(comms)
    if comms.outcome.key != "manovra.comms.ok":
        return
    kind = checks.TestKind.IFR if battery.off_table else checks.TestKind.DFR
    test = _resolve("test", checks.TestInput(kind=kind, ad=unit.ad, cv=unit.cv), tray)
    result.resolutions.append(test)
    if test.outcome.key == "manovra.test.passed":
        marker = FireMarker(
            id=f"if{state.turn}-{len(state.markers) + 1}",
            battery=battery.id,
            requested_by=unit.id,
            target=command.target,
            aim=aim,
        )
        state.markers.append(marker)
        result.notices.append(
            Outcome.of("manovra.turn.marker_placed", marker=marker.id, target=marker.target)
        )


def aimed_point(state: ManovraState, unit: UnitState, target: str) -> Point | None:
    """Where an IF marker goes on a battlefield: a unit's position, a named point or area,
    coordinates, a bearing and cm or ``toward NAME cm`` from the requesting unit."""
    if state.battlefield is None:
        return None
    aimed = state.units.get(target)
    if aimed is not None and aimed.alive and aimed.position is not None:
        return aimed.position
    origin = unit.position or Point(x=state.battlefield.width_cm / 2, y=0)
    return parse_destination(target, state.battlefield, origin, field.places(state))


def _next_marker(state: ManovraState) -> FireMarker | None:
    """The IF marker to fire next at step 4, in the order IT gave."""
    return next(
        (_marker(state, m) for m in state.marker_order if not _marker(state, m).executed), None
    )


def _check_execute(state: ManovraState, marker_id: str, actor_side: str | None) -> FireMarker:
    """Step 4: the next IF marker in order, fired by its battery's side."""
    _require_step(state, TurnStep.INDIRECT)
    marker = _marker(state, marker_id)
    battery = state.platoons[marker.battery]
    if actor_side is not None and battery.side != actor_side:
        raise IllegalAction("error.manovra.not_your_unit", unit=battery.name)
    if marker.executed:
        raise IllegalAction("error.manovra.marker_done", marker=marker.id)
    following = _next_marker(state)
    if following is not None and following.id != marker.id:
        raise IllegalAction("error.manovra.marker_order", marker=marker.id, next=following.id)
    return marker


def _gunners(state: ManovraState, battery_id: str) -> UnitState | None:
    """The battery's first living unit, which fires its IF markers."""
    battery = state.platoons[battery_id]
    return next((state.units[u] for u in battery.units if state.units[u].alive), None)


def _do_execute(
    state: ManovraState,
    command: ExecuteFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    marker = _check_execute(state, command.marker, actor_side)
    battery = state.platoons[marker.battery]
    marker.executed = True
    gunners = _gunners(state, battery.id)
    if gunners is None:
        # The battery was destroyed after the request: its marker is lifted unfired.
        result.notices.append(Outcome.of("manovra.turn.marker_cancelled", marker=marker.id))
        return
    kind = (
        checks.ScatterKind.INDIRETTO_FUORI_CAMPO
        if battery.off_table
        else checks.ScatterKind.INDIRETTO_IN_CAMPO
    )
    # Every piece fires (seed 000 line 9): the rate × the pieces of each indirect weapon.
    shots = max(
        1,
        min(
            MAX_HEAVY_ROUNDS,
            sum(
                weapon_rounds(gunners, wid, state.weapons[wid], False)
                for wid in gunners.weapons
                if state.weapons[wid].indirect
            ),
        ),
    )
    if marker.aim is not None:
        field.begin(state)
        field.remember(
            state,
            [Overlay(kind="point", points=(marker.aim,), label=marker.id)],
            "manovra.map.indirect",
            marker=marker.id,
            target=marker.target,
        )
    for _ in range(shots):
        resolution = _resolve(
            "scatter", checks.ScatterInput(kind=kind, ad=gunners.ad, cv=gunners.cv), tray
        )
        result.resolutions.append(resolution)
        if marker.aim is not None and state.battlefield is not None:
            # The bot lands each round and resolves the fragments of the units within.
            landed = burst_at(
                state,
                gunners,
                _battery_calibre(state, gunners),
                marker.aim,
                resolution,
                (),
                tray,
                result,
            )
            marker.landings.append(landed)
    marker.shots = shots
    result.notices.append(
        Outcome.of("manovra.turn.marker_executed", marker=marker.id, target=marker.target)
    )


def _fragment_sources(state: ManovraState) -> list[FireMarker | Burst]:
    """Fired IF markers and direct-fire bursts whose fragments are still to be resolved.

    None on a battlefield: the bot resolves each burst's fragments as the round lands.
    """
    if state.battlefield is not None:
        return []
    sources: list[FireMarker | Burst] = [m for m in state.markers if m.executed and m.shots]
    sources += state.bursts
    return sources


def _source_side(state: ManovraState, source: FireMarker | Burst) -> str:
    if isinstance(source, Burst):
        return source.side
    return state.platoons[source.battery].side


def _may_take_fragments(source: FireMarker | Burst, unit: UnitState) -> bool:
    """Each unit takes the fragments of each round of a source at most once."""
    return unit.alive and source.fragment_hits.count(unit.id) < source.shots


def _check_fragments(
    state: ManovraState, source_id: str, target_id: str, actor_side: str | None
) -> tuple[FireMarker | Burst, int, int]:
    """The source of the blast (fired marker or burst), its firer's AD and its calibre."""
    target = state.unit(target_id)
    if not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    if state.battlefield is not None:
        raise IllegalAction("error.manovra.fragments_measured")
    source: FireMarker | Burst | None = next((b for b in state.bursts if b.id == source_id), None)
    if source is None:
        source = _marker(state, source_id)
        if not source.executed or not source.shots:
            raise IllegalAction("error.manovra.marker_not_fired", marker=source.id)
    side = _source_side(state, source)
    if actor_side is not None and side != actor_side:
        raise IllegalAction("error.manovra.not_your_marker", marker=source.id)
    if not _may_take_fragments(source, target):
        raise IllegalAction("error.manovra.fragments_done", marker=source.id, unit=target.name)
    if isinstance(source, Burst):
        return source, source.ad, source.calibre_mm
    gunners = (
        _gunners(state, source.battery) or state.units[state.platoons[source.battery].units[0]]
    )
    return source, gunners.ad, _battery_calibre(state, gunners)


def _battery_calibre(state: ManovraState, gunners: UnitState) -> int:
    """The calibre of a battery's indirect-fire weapon (its largest weapon otherwise)."""
    return (
        max(
            (
                state.weapons[w].calibre_mm or 0
                for w in gunners.weapons
                if state.weapons[w].indirect
            ),
            default=0,
        )
        or max((state.weapons[w].calibre_mm or 0) for w in gunners.weapons)
        or 1
    )


def _do_fragments(
    state: ManovraState, command: Fragments, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    target = state.unit(command.target)
    ad = command.ad
    calibre = command.calibre_mm
    source: FireMarker | Burst | None = None
    if command.marker is not None:
        source, source_ad, source_calibre = _check_fragments(
            state, command.marker, command.target, actor_side
        )
        ad = source_ad if ad is None else ad
        calibre = calibre or source_calibre
    elif actor_side is not None:
        raise IllegalAction("error.manovra.fragments_need_marker")
    elif not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    if ad is None or not calibre:
        raise InvalidInput("error.manovra.fragments_need_calibre")
    resolution = _resolve("he_fragments", fragments_input(target, ad, calibre), tray)
    if source is not None:
        source.fragment_hits.append(target.id)
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)
