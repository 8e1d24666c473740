"""Indirect fire: requests at step 2, IF markers executed at step 4, HE fragments."""

from __future__ import annotations

from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.resolution import Outcome
from rules.manovra import checks, fire
from rules.manovra.game.common import (
    _apply_effects,
    _marker,
    _own,
    _require_step,
    _resolve,
    _target_cover,
)
from rules.manovra.game.orders import ExecuteFire, Fragments, RequestFire
from rules.manovra.game.state import Applied, FireMarker, ManovraState, TurnStep


def _do_request(
    state: ManovraState,
    command: RequestFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    _require_step(state, TurnStep.REQUESTS)
    unit = state.unit(command.unit)
    _own(state, unit, actor_side)
    if not unit.alive or unit.has("panic"):
        raise IllegalAction("error.manovra.unit_cannot", unit=unit.name)
    battery = state.platoon(command.battery)
    if battery.kind != "battery" or battery.side != unit.side:
        raise IllegalAction("error.manovra.not_a_battery", battery=battery.name)
    if any(m.battery == battery.id for m in state.markers):
        raise IllegalAction("error.manovra.battery_busy", battery=battery.name)
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
        )
        state.markers.append(marker)
        result.notices.append(
            Outcome.of("manovra.turn.marker_placed", marker=marker.id, target=marker.target)
        )


def _do_execute(
    state: ManovraState,
    command: ExecuteFire,
    tray: DiceTray,
    actor_side: str | None,
    result: Applied,
) -> None:
    _require_step(state, TurnStep.INDIRECT)
    marker = _marker(state, command.marker)
    battery = state.platoons[marker.battery]
    if actor_side is not None and battery.side != actor_side:
        raise IllegalAction("error.manovra.not_your_unit", unit=battery.name)
    if marker.executed:
        raise IllegalAction("error.manovra.marker_done", marker=marker.id)
    next_id = next((m for m in state.marker_order if not _marker(state, m).executed), marker.id)
    if next_id != marker.id:
        raise IllegalAction("error.manovra.marker_order", marker=marker.id, next=next_id)
    gunners = state.units[battery.units[0]]
    kind = (
        checks.ScatterKind.INDIRETTO_FUORI_CAMPO
        if battery.off_table
        else checks.ScatterKind.INDIRETTO_IN_CAMPO
    )
    shots = max(
        1,
        sum(
            w.rof_stationary for wid in gunners.weapons for w in [state.weapons[wid]] if w.indirect
        ),
    )
    for _ in range(shots):
        resolution = _resolve(
            "scatter", checks.ScatterInput(kind=kind, ad=gunners.ad, cv=gunners.cv), tray
        )
        result.resolutions.append(resolution)
    marker.executed = True
    result.notices.append(
        Outcome.of("manovra.turn.marker_executed", marker=marker.id, target=marker.target)
    )


def _do_fragments(
    state: ManovraState, command: Fragments, tray: DiceTray, actor_side: str | None, result: Applied
) -> None:
    target = state.unit(command.target)
    if not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    ad = command.ad
    calibre = command.calibre_mm
    if command.marker is not None:
        marker = _marker(state, command.marker)
        if not marker.executed:
            raise IllegalAction("error.manovra.marker_not_fired", marker=marker.id)
        gunners = state.units[state.platoons[marker.battery].units[0]]
        if actor_side is not None and gunners.side != actor_side:
            raise IllegalAction("error.manovra.not_your_unit", unit=gunners.name)
        ad = gunners.ad if ad is None else ad
        calibre = calibre or max((state.weapons[w].calibre_mm or 0) for w in gunners.weapons)
    elif actor_side is not None:
        raise IllegalAction("error.manovra.fragments_need_marker")
    if ad is None or not calibre:
        raise InvalidInput("error.manovra.fragments_need_calibre")
    resolution = _resolve(
        "he_fragments",
        fire.HeFragmentsInput(
            ad=ad,
            target=fire.HeavyTarget(target.kind["heavy_target"]),
            calibre_mm=calibre,
            armour=target.armour.get("side", {}),
            turret=target.turret,
            tracked=target.tracked,
            open_topped=target.open_topped,
            cover=_target_cover(target),
            models_present=target.models,
            target_has_manoeuvred=target.acted,
            target_id=target.id,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    _apply_effects(state, resolution)
