"""SEQUENZA DI GIOCO: whose move it is, initiative and leader replacements, the winner's choice,
the steps of the movement phase, the fire phase class by class (Elite → Marmaglia), the
observation steps, and the end of the turn (``/turn next`` and what settles after any command).
"""

from __future__ import annotations

from rules.core import ending
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction
from rules.core.game import Applied as CoreApplied
from rules.core.resolution import Outcome
from rules.core.words import joined
from rules.linea_gotica import field, victory
from rules.linea_gotica.model import QUALITY_ORDER, RULESET_KEY, lower_quality
from rules.linea_gotica.orders import Next
from rules.linea_gotica.procedures import checks, fire
from rules.linea_gotica.procedures.fire import TargetMovement
from rules.linea_gotica.state import GameState, Phase
from rules.linea_gotica.turn.common import may_still_act, quality_modifier_of, resolve, roster_for
from rules.linea_gotica.turn.effects import on_killed

K = RULESET_KEY
Applied = CoreApplied[GameState]


def awaiting(state: GameState) -> str | None:
    """The side whose move it is (None: either may act, or the game is over)."""
    if state.ended:
        return None
    owing = [p for p in state.pending if p.unit in state.units]
    if state.phase is Phase.INITIATIVE:
        return None
    if state.phase is Phase.CHOICE:
        return state.winner
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        return state.order[state.mover]
    if owing and state.phase is Phase.FIRE:
        return state.units[owing[0].unit].side
    for side in state.order:
        if side not in state.done:
            return side
    return None


def conceals(state: GameState, side: str) -> bool:
    """Whether ``side`` has hidden a unit this game (one still hidden counts for a game saved
    before ``concealing`` was kept)."""
    return side in state.concealing or any(
        unit.side == side and unit.hidden for unit in state.units.values()
    )


def _has_actors_in_sight(state: GameState, side: str, index: int) -> bool:
    """Whether ``side`` has a unit of class ``index`` its enemy can see that may still fire
    or act, or a mission due in that class that such a unit observes."""
    for unit in state.units.values():
        if unit.side != side or unit.class_index != index or not unit.alive or unit.hidden:
            continue
        if not may_still_act(state, unit):
            continue
        if (unit.vehicle is not None and unit.crew_able(state.turn)) or any(
            f.able(state.turn) for f in unit.figures
        ):
            return True
    return any(
        m.side == side
        and m.stage != "done"
        and m.due_turn <= state.turn
        and m.observer in state.units
        and state.units[m.observer].class_index == index
        and not state.units[m.observer].hidden
        for m in state.missions
    )


def awaited_in_class(state: GameState, index: int) -> list[str]:
    """The sides the fire step of class ``index`` waits for, decided from what their enemy
    can see (seed lines 85-86 are silent on hidden units): a side with a unit in sight that
    may act in the class, and a side that conceals units, in every class — it passes with
    ``/turn next`` when it has nothing to do. A hidden unit so gets its class step, and the
    steps and the waiting look the same whether or not it exists (docs/linea_gotica.md)."""
    return [
        side
        for side in state.sides
        if conceals(state, side) or _has_actors_in_sight(state, side, index)
    ]


def _enter_phase(state: GameState, phase: Phase, result: Applied) -> None:
    if state.phase is Phase.FIRE and phase is not Phase.FIRE:
        for mission in state.missions:
            if mission.stage == "strafe":
                mission.stage = "done"
    for mission in state.missions:
        observer = state.units.get(mission.observer)
        if mission.stage != "done" and (observer is None or not observer.alive):
            mission.stage = "done"
            result.notices.append(Outcome.of(f"{K}.mission.observer_lost", marker=mission.id))
    state.phase = phase
    state.done = []
    state.blasts = []
    result.notices.append(Outcome.of(f"{K}.turn.phase", turn=state.turn, phase=phase.value))


def _open_class(state: GameState, index: int, result: Applied) -> None:
    """Start the fire phase at the first class from ``index`` that awaits a side."""
    awaited: list[str] = []
    while index < len(QUALITY_ORDER) and not (awaited := awaited_in_class(state, index)):
        index += 1
    if index >= len(QUALITY_ORDER):
        _enter_phase(state, Phase.OBSERVE_FIRE, result)
        return
    state.fire_class = index
    state.done = [s for s in state.sides if s not in awaited]
    state.roster = roster_for(state, index)
    result.notices.append(Outcome.of(f"{K}.turn.fire_class", quality=QUALITY_ORDER[index].value))


def _smoke_takes_effect(state: GameState, moment: str, result: Applied) -> None:
    for screen in state.smoke:
        if not screen.effective and screen.effect_at == moment:
            screen.effective = True
            screen.expires_after = state.turn + screen.turns
            result.notices.append(
                Outcome.of(
                    f"{K}.smoke.effective",
                    place=field.place_name(state.field, screen.place) if screen.place else "-",
                    turn=screen.expires_after,
                )
            )


def settle(state: GameState, result: Applied) -> None:
    """Move the turn on as far as the state allows (a class with both sides done), unless
    a side wiped out or broken ends the game first (the scenario's sudden death)."""
    if victory.settle(state, result):
        return
    # A soldier out of play (dead, captured) or a unit gone owes no morale test any more.
    state.pending = [
        p
        for p in state.pending
        if p.unit in state.units
        and state.units[p.unit].alive
        and (p.figure is None or state.units[p.unit].figure(p.figure).alive)
    ]
    for _ in range(12):
        if state.ended:
            return
        if state.phase is Phase.FIRE:
            if state.pending or any(s not in state.done for s in state.sides):
                return
            _open_next_class(state, result)
            continue
        if state.phase in (Phase.OBSERVE_MOVE, Phase.OBSERVE_FIRE):
            if any(s not in state.done for s in state.sides):
                return
            if state.phase is Phase.OBSERVE_MOVE:
                _smoke_takes_effect(state, "phase_end", result)
                _enter_phase(state, Phase.FIRE, result)
                _open_class(state, 0, result)
            else:
                _smoke_takes_effect(state, "phase_end", result)
                _smoke_takes_effect(state, "fire_phase_end", result)
                _end_turn(state, result)
            continue
        return


def _open_next_class(state: GameState, result: Applied) -> None:
    _open_class(state, state.fire_class + 1, result)


def _end_turn(state: GameState, result: Applied) -> None:
    for unit in state.units.values():
        for figure in unit.figures:
            if (
                figure.alive
                and figure.badly_wounded
                and figure.bleed_until is not None
                and figure.bleed_until <= state.turn
            ):
                figure.dead = True
                result.notices.append(
                    Outcome.of(f"{K}.turn.bled_to_death", unit=unit.name, figure=figure.n)
                )
                on_killed(state, unit, figure, result)
    state.smoke = [
        s for s in state.smoke if s.expires_after is None or s.expires_after > state.turn
    ]
    if victory.turn_over(state, result):
        return
    if ending.last_turn(state, result):
        victory.finish(state, result)
        result.notices.append(Outcome.of(f"{K}.turn.game_over", turn=state.turn))
        return
    state.turn += 1
    state.order = []
    state.winner = None
    state.mover = 0
    state.covering = []
    state.observed = []
    state.roster = []
    for unit in state.units.values():
        unit.ran_last_turn = unit.pace is TargetMovement.CORSA
        if unit.task is not None and unit.task.last_turn < state.turn - 1:
            unit.task = None
        unit.activity = None
        unit.covered_by = []
        unit.pace = TargetMovement.FERMO
        unit.fired = fire.TargetFired.NO
        unit.behind_armour = False
    _enter_phase(state, Phase.INITIATIVE, result)


def _replacements(state: GameState, tray: DiceTray, result: Applied) -> None:
    """At the start of each turn a leaderless squad rolls 1d10 ≤ quality for a new leader."""
    if state.replaced_turn >= state.turn:
        return
    state.replaced_turn = state.turn
    for unit in state.units.values():
        if not unit.alive or not unit.leaderless or unit.leader_ability is None:
            continue
        # Seed 004 line 80: "uno dei superstiti assume il ruolo di caposquadra": every soldier
        # still in play is a survivor, shocked, wounded or panicked (issue 26). One able to
        # act takes over if there is one (the seed does not say who: not in the seed).
        survivors = [f for f in unit.figures if f.alive]
        if not survivors:
            continue
        # The squad's own side rolls for its new leader; for a squad hidden from the enemy,
        # with the bot's dice even where that side typed its own (the enemy reads typed
        # faces and what a command still waits for: a face spent here would tell of it).
        rolling = tray.rolled_unseen(unit.side) if unit.hidden else tray.rolled_by(unit.side)
        with rolling:
            resolution = resolve(
                "action",
                checks.ActionInput(
                    quality=unit.quality,
                    quality_modifier=quality_modifier_of(state, unit),
                    purpose=checks.Purpose.RIMPIAZZO,
                ),
                tray,
            )
        # A hidden squad's roll and its new leader are its side's to read: told to all, they
        # would name a unit the enemy may not know of (the roll is made all the same).
        kept = unit.side if unit.hidden else None
        result.resolutions.append(resolution if kept is None else resolution.kept_for(kept))
        if resolution.outcome.key == f"{K}.action.passed":
            chosen = next((f for f in survivors if f.able(state.turn)), survivors[0])
            chosen.role = "leader"
            chosen.isolated = False
            unit.leader_ability = lower_quality(unit.leader_ability)
            notice = Outcome.of(
                f"{K}.turn.new_leader",
                unit=unit.name,
                figure=chosen.n,
                quality=unit.leader_ability.value,
            )
            result.notices.append(notice if kept is None else notice.kept_for(kept))


def do_next(
    state: GameState, command: Next, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    if state.phase is Phase.INITIATIVE:
        _replacements(state, tray, result)
        first, second = list(state.sides)
        resolution = resolve("initiative", checks.InitiativeInput(first=first, second=second), tray)
        # The rolls name the sides by their names, in the reader's language (not their ids).
        result.resolutions.append(resolution.naming("side", state.sides))
        if resolution.outcome.key == f"{K}.initiative.tie":
            return
        state.winner = str(resolution.outcome.param("side"))
        state.phase = Phase.CHOICE
        return
    waiting = awaiting(state)
    if (
        actor is not None
        and state.phase in (Phase.CHOICE, Phase.COVERING, Phase.MOVEMENT)
        and actor != waiting
    ):
        raise IllegalAction("error.linea_gotica.not_your_move")
    # The morale tests and the missions the actor owes were refused by the declared sequence
    # (rules/linea_gotica/sequence.yaml, turn/steps.py) before this handler.
    if state.phase is Phase.CHOICE:
        assert state.winner is not None
        loser = state.other_side(state.winner)
        state.order = [state.winner, loser] if command.order != "second" else [loser, state.winner]
        result.notices.append(Outcome.of(f"{K}.turn.order", side=state.sides[state.order[0]]))
        _enter_phase(state, Phase.COVERING, result)
        state.mover = 0
        return
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        state.mover += 1
        if state.mover >= 2:
            state.mover = 0
            if state.phase is Phase.COVERING:
                _enter_phase(state, Phase.MOVEMENT, result)
            else:
                _enter_phase(state, Phase.OBSERVE_MOVE, result)
        return
    sides = list(state.sides) if actor is None else [actor]
    waives = actor is None and state.phase is Phase.FIRE and bool(state.pending)
    if all(side in state.done for side in sides) and not waives:
        # The side has already ended this step (class): a repeat would change nothing and be
        # logged all the same (issue 26).
        others = [s for s in state.sides if s not in state.done] or list(
            dict.fromkeys(state.units[p.unit].side for p in state.pending)
        )
        raise IllegalAction(
            "error.linea_gotica.step_done",
            side=joined(state.sides[s] for s in sides),
            waiting=joined(state.sides[s] for s in others) or "-",
        )
    for side in sides:
        if side not in state.done:
            state.done.append(side)
    if actor is None and state.phase is Phase.FIRE and state.pending:
        state.pending = []
        result.notices.append(Outcome.of(f"{K}.turn.morale_waived"))
