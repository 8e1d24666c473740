"""Playing linea_gotica: the turn sequence, who may do what, and how commands resolve.

``apply(state, command, dice)`` checks a command against the state (phase, whose move,
quality class, one activity per unit per turn, ownership, the state of each soldier),
resolves it through the ruleset's procedures (with their odds), and returns a new state.
It never mutates its input: a refused command leaves the state exactly as it was.

The turn (SEQUENZA DI GIOCO), step by step, and where each part lives:

1. initiative: leader replacements, both d10, the winner chooses — ``sequence``
2. covering fire declared, first mover then the other — ``firing``
3. movement, first mover then the other; the other side may fire at movers (opportunity)
   — ``moving``, ``firing``
4. observation at the end of the movement phase — ``observation``
5. fire and actions by quality class, Elite to Marmaglia (simultaneous within a class; its
   results, morale included, apply before the next class) — ``firing``,
   ``actions`` (actions, mines, command distance, smoke), ``support``
   (indirect fire and aircraft), ``blasts`` (HE on the figures inside a blast)
6. observation at the end of the fire phase, then the end of the turn — ``sequence``

The order itself (phases, steps, what is owed before a side may end its step) is declared in
``rules/linea_gotica/sequence.yaml``: ``steps.check`` refuses what it does not allow before
any handler runs.

Damage and owed morale tests are applied by ``effects``; morale tests are rolled by
``morale``; the checks every verb shares are in ``common``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core.dice import DiceSource
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction
from rules.core.game import Applied as CoreApplied
from rules.core.game import run_command
from rules.linea_gotica.field import where
from rules.linea_gotica.orders import (
    CallSupport,
    Execute,
    Fire,
    Fragments,
    MoraleTest,
    Move,
    Next,
    TakeTest,
)
from rules.linea_gotica.procedures import fire
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.scenario import Scenario
from rules.linea_gotica.state import (
    Figure,
    GameState,
    Minefield,
    SupportState,
    UnitState,
    VehicleState,
)
from rules.linea_gotica.turn import steps
from rules.linea_gotica.turn.actions import do_test
from rules.linea_gotica.turn.blasts import do_fragments
from rules.linea_gotica.turn.firing import do_fire
from rules.linea_gotica.turn.morale import do_morale
from rules.linea_gotica.turn.moving import do_move
from rules.linea_gotica.turn.sequence import awaiting, do_next, settle
from rules.linea_gotica.turn.support import do_call, do_execute

__all__ = ["Applied", "apply", "awaiting", "load_state", "new_game"]

Applied = CoreApplied[GameState]


def _fresh_marks(handler: Callable[..., None]) -> Callable[..., None]:
    """The picture shows the last action's marks: every command starts with none (on the
    working copy: a refused command changes nothing)."""

    def run(state: GameState, *args: Any) -> None:
        state.marks = []
        state.marks_of = []
        handler(state, *args)

    run.__doc__ = handler.__doc__
    return run


_VERB_HANDLERS: dict[type, Callable[..., None]] = {
    Next: do_next,
    Move: do_move,
    Fire: do_fire,
    TakeTest: do_test,
    MoraleTest: do_morale,
    CallSupport: do_call,
    Execute: do_execute,
    Fragments: do_fragments,
}
# One handler per command: each verb has its own module under turn/.
HANDLERS: dict[type, Callable[..., None]] = {
    command: _fresh_marks(handler) for command, handler in _VERB_HANDLERS.items()
}


def new_game(scenario: Scenario) -> GameState:
    """The state at the start of turn 1 (initiative to roll)."""
    units: dict[str, UnitState] = {}
    supports: dict[str, SupportState] = {}
    for side in scenario.sides:
        for spec in side.units:
            figures: list[Figure] = []
            for group in spec.figures:
                for _ in range(group.count):
                    figures.append(Figure(n=len(figures) + 1, role=group.role, weapon=group.weapon))
            vehicle = None
            if spec.vehicle is not None:
                v = spec.vehicle
                vehicle = VehicleState(
                    type=v.type,
                    armoured=v.armoured,
                    armour=v.armour,
                    weight=v.weight,
                    turret=v.turret,
                    open=v.open,
                    transport=v.transport,
                )
            has_leader = any(f.role == "leader" for f in figures)
            place = spec.place
            if scenario.battlefield is not None and not place:
                # The area a unit stands in is its place (observation names it).
                place = where(scenario.battlefield, scenario.battlefield.deployment[spec.id])[1]
            units[spec.id] = UnitState(
                id=spec.id,
                name=spec.name,
                side=side.id,
                quality=spec.quality,
                quality_modifier=spec.quality_modifier,
                leader_ability=(spec.leader or spec.quality) if has_leader else None,
                section=spec.section,
                fanatic=spec.fanatic,
                radio=spec.radio,
                engineers=spec.engineers,
                observer=spec.observer,
                commander=spec.commander,
                figures=figures,
                vehicle=vehicle,
                weapons=list(spec.weapons),
                cover=Cover(spec.cover),
                hidden=spec.hidden,
                place=place,
                emplaced=list(spec.emplaced),
                squad=spec.squad,
            )
        for sup in side.supports:
            supports[sup.id] = SupportState(
                id=sup.id,
                name=sup.name,
                side=side.id,
                kind=sup.kind,
                contact=sup.contact,
                calibre_mm=sup.calibre_mm,
                platoon_mortars=sup.platoon_mortars,
                smoke=sup.smoke,
                bombs=sup.bombs,
                strafing=sup.strafing,
                quality=sup.quality,
            )
    return GameState(
        scenario_id=scenario.id,
        title=scenario.title,
        max_turns=scenario.turns,
        victory=VictoryRecord(conditions=scenario.victory),
        night=fire.Night(scenario.night),
        passengers_on_tanks=scenario.passengers_on_tanks,
        sides={s.id: s.name for s in scenario.sides},
        coordination={s.id: s.coordination for s in scenario.sides},
        units=units,
        concealing=list(dict.fromkeys(unit.side for unit in units.values() if unit.hidden)),
        supports=supports,
        minefields={
            m.id: Minefield(
                id=m.id, name=m.name, kind=m.kind, owner=m.owner, known_to=[m.owner], shape=m.shape
            )
            for m in scenario.minefields
        },
        weapons=dict(scenario.weapons),
        places=list(
            dict.fromkeys(
                [*scenario.terrain, *(a.id for a in scenario.battlefield.areas)]
                if scenario.battlefield is not None
                else scenario.terrain
            )
        ),
        field=scenario.battlefield,
        positions=dict(scenario.battlefield.deployment) if scenario.battlefield else {},
    )


def load_state(document: dict[str, Any]) -> GameState:
    """Rebuild a state from its stored JSON document."""
    return GameState.model_validate(document)


def apply(
    state: GameState,
    command: Any,
    dice: DiceSource,
    *,
    actor_side: str | None = None,
    preview: bool = False,
    other_dice: DiceSource | None = None,
    owned: bool = False,
) -> Applied:
    """Check and resolve ``command`` for ``actor_side`` (None: the referee).

    Returns a new state (``owned``: the caller hands ``state`` over, and the command
    works on it in place); raises a :class:`RulesError` (changing nothing) if the command is
    not allowed now or its arguments are wrong.
    """
    if state.ended:
        raise IllegalAction("error.linea_gotica.game_over")
    if not preview:  # odds may be asked of any command, in or out of its step
        steps.check(state, command.verb, actor_side)
    return run_command(
        state,
        command,
        dice,
        HANDLERS,
        actor_side=actor_side,
        preview=preview,
        settle=settle,
        other_dice=other_dice,
        owned=owned,
    )
