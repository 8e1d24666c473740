"""OSSERVAZIONE (``/test kind:osservare``): one attempt per side per terrain element per phase."""

from __future__ import annotations

from rules.core import geometry
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.orders import TakeTest
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.procedures.fire import TargetMovement
from rules.linea_gotica.state import Figure, GameState, Phase, UnitState
from rules.linea_gotica.turn.common import actor_figure, move_side, quality_modifier_of, resolve

K = RULESET_KEY
Applied = CoreApplied[GameState]


def do_observe(
    state: GameState,
    unit: UnitState,
    command: TakeTest,
    tray: DiceTray,
    actor: str | None,
    result: Applied,
) -> None:
    """Observe a hidden enemy (``target``) or a terrain element (``place``).

    Naming the element is how a side that cannot see the hidden units observes: every hidden
    enemy unit in it is tested (one attempt for the element). What the observing side reads
    is the same whether something hides there or not, unless it is spotted: "no enemy
    spotted". A roll that fails (or cannot succeed) is the hidden unit's side's to read,
    with the distance measured to it (docs/linea_gotica.md, "Observation by terrain
    element"): a roll, or its distance, shown only where a unit hides told the enemy so.
    """
    if command.target is None and command.place:
        element = command.place
        check_observe_place(state, unit, element)
        hidden = [
            u
            for u in state.units.values()
            if u.side != unit.side and u.alive and u.hidden and u.place == element
        ]
        figure = actor_figure(unit, command.man, state)
        spotted = False
        for target in hidden:
            if state.field is not None and _out_of_sight(state, unit, target) is not None:
                # Nothing to roll: the line to it is blocked (the roll would leak it).
                continue
            found = Applied(state)
            # The bot rolls it, as a referee behind the screen: dice the observer typed,
            # used only where a unit hides, would tell that one does.
            with tray.rolled_by(target.side):
                _observe(state, unit, target, figure, command, tray, found, actor)
            seen = any(r.outcome.key == f"{K}.observe.seen" for r in found.resolutions)
            spotted = spotted or seen
            keep = None if seen else target.side
            result.resolutions += [
                r if keep is None else r.kept_for(keep) for r in found.resolutions
            ]
            result.notices += [n if keep is None else n.kept_for(keep) for n in found.notices]
        if not spotted:
            result.notices.append(
                Outcome.of(f"{K}.observe.nothing", place=field.place_name(state.field, element))
            )
        if not is_preview():
            state.observed.append(_attempt(state, unit, element))
        return
    if command.target is None:
        raise InvalidInput("error.linea_gotica.target_needed")
    target = state.unit(command.target)
    if target.side == unit.side:
        raise IllegalAction("error.linea_gotica.friendly_target", target=target.name)
    if not target.hidden:
        raise IllegalAction("error.linea_gotica.already_seen", target=target.name)
    moving_now = (
        state.phase is Phase.MOVEMENT
        and target.activity == "moved"
        and target.side == move_side(state)
    )
    if (
        not is_preview()
        and state.phase not in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE)
        and not moving_now
    ):
        raise IllegalAction("error.linea_gotica.not_observation_time")
    element = target.place or target.id
    key = _attempt(state, unit, element)
    if key in state.observed and not is_preview():
        raise IllegalAction(
            "error.linea_gotica.observed_already", place=field.place_name(state.field, element)
        )
    figure = actor_figure(unit, command.man, state)
    if state.field is not None:
        blocking = _out_of_sight(state, unit, target)
        if blocking is not None:
            field.refuse_blocked(state.field, blocking, target.name)
    _observe(state, unit, target, figure, command, tray, result, actor)
    if not is_preview():
        state.observed.append(key)
    del actor


def _out_of_sight(state: GameState, unit: UnitState, target: UnitState) -> tuple[str, ...] | None:
    """What blocks the observer's line to the target on the battlefield (None: clear)."""
    assert state.field is not None
    origin, aim = state.positions.get(unit.id), state.positions.get(target.id)
    if origin is None or aim is None:
        return None
    smoke = tuple(s.place for s in state.smoke if s.effective and s.place)
    _, blocking = field.sight(state.field, origin, aim, smoke)
    return blocking or None


def _attempt(state: GameState, unit: UnitState, element: str) -> str:
    """The record of a side's one attempt at a terrain element in this phase."""
    return f"{unit.side}:{state.phase.value}:{element}"


def check_observe_place(state: GameState, unit: UnitState, element: str) -> None:
    """The checks of observing a terrain element (the handler and the listing call it)."""
    if not is_preview() and state.phase not in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE):
        raise IllegalAction("error.linea_gotica.not_observation_time")
    if _attempt(state, unit, element) in state.observed and not is_preview():
        raise IllegalAction(
            "error.linea_gotica.observed_already", place=field.place_name(state.field, element)
        )


def _observe(
    state: GameState,
    unit: UnitState,
    target: UnitState,
    figure: Figure | None,
    command: TakeTest,
    tray: DiceTray,
    result: Applied,
    actor_side: str | None = None,
) -> None:
    """Roll the observation of one hidden unit; a success reveals it."""
    scout = any(
        f.role == "esploratore" and f.able(state.turn) for f in unit.figures
    ) and unit.pace in (TargetMovement.FERMO, TargetMovement.CAUTO)
    if unit.vehicle is None:
        observer = checks.Observer.FANTERIA
    else:
        observer = (
            checks.Observer.VEICOLO_APERTO if unit.vehicle.open else checks.Observer.VEICOLO_CHIUSO
        )
    sniper_unit = (
        target.vehicle is None
        and any(f.role == "sniper" and f.alive for f in target.figures)
        and all(f.role in ("sniper", "osservatore") for f in target.figures if f.alive)
    )
    distance_cm = command.distance_cm
    if state.field is not None and unit.id in state.positions and target.id in state.positions:
        measured = geometry.distance(state.positions[unit.id], state.positions[target.id])
        notices: list[Outcome] = []
        distance_cm = field.settle_distance(distance_cm, measured, actor_side, notices)
        result.notices.extend(notices)
    resolution = resolve(
        "observation",
        checks.ObservationInput(
            quality=unit.quality,
            quality_modifier=quality_modifier_of(state, unit),
            target="infantry" if target.vehicle is None else "vehicle",
            target_moving=target.pace is not TargetMovement.FERMO,
            target_in_cover=target.cover is not Cover.NONE,
            observer=observer,
            target_fired=target.fired_serial == state.serial,
            night=state.night is not fire.Night.GIORNO,
            scout=scout,
            wounded=figure is not None and figure.wounded,
            hidden_sniper=sniper_unit,
            moonless=state.night is fire.Night.SENZA_LUNA,
            distance_cm=distance_cm,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if not is_preview() and resolution.outcome.key == f"{K}.observe.seen":
        target.hidden = False
