"""What each seat may do now in a pzgren game (the contract of :mod:`rules.core.legal`).

Built from the checks the game handlers run (``check_move``, ``plan_fire``,
``step_choices``): a candidate is listed only if those checks accept it, so the listing and
the handlers cannot disagree.

* An owed step choice (an X result the owner distributes): one owed ``step`` for the owner,
  the units that may take the step as its choices.
* The owed morale checks: one owed ``morale`` per unit, for its owner.
* What is owed blocks everything else, the step losses before the morale checks: the
  listing keeps what the declared sequence allows (``sequence.yaml``, ``turn/steps.py``).
* Otherwise the side to activate may pass (``turn.next``) or activate one unit that has not
  acted: hold, move (the legal destination hexes as choices), rally, direct fire at each
  enemy hex in range, anti-tank fire at each armoured unit (or truck) in range. After an
  activation in which a unit moved, the other side's units that have not acted may fire at
  it (opportunity fire).

Fire by several units together (one hex, their values added) is accepted too; the listing
offers each unit's own fire, which is enough to play a whole game.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.budget import charge
from rules.core.errors import RulesError
from rules.core.legal import LegalAction, OptionSpec
from rules.core.resolution import Outcome
from rules.core.words import joined
from rules.pzgren import turn as g
from rules.pzgren.field import Hex, distance
from rules.pzgren.model import MoraleState
from rules.pzgren.turn import steps


def legal_actions(state: g.PzgrenState) -> list[LegalAction]:
    """Everything any seat may do now, each action tagged with the side that gives it."""
    actions = [_owed_step(state, entry) for entry in state.pending_steps[:1]]
    actions += [_owed_morale(state, owed) for owed in state.pending_morale]
    if not state.ended and steps.allows(state, "turn.next", state.active_side):
        actions.append(LegalAction("turn.next", state.active_side))
        occupancy = state.occupancy()  # nothing moves while the listing asks of every hex
        for unit in state.units.values():
            if unit.side == state.active_side and unit.alive and not unit.acted:
                actions += _activations(state, unit, occupancy)
        actions += _opportunity_fire(state)
    return [a for a in actions if steps.allows(state, a.verb, a.side)]


def _owed_step(state: g.PzgrenState, entry: g.PendingSteps) -> LegalAction:
    choices = tuple(g.step_choices(state, entry))
    buttons = tuple(
        Outcome.of("pzgren.follow.step", unit=state.units[u].name, n=entry.owed, hex=entry.hex)
        for u in choices
    )
    return LegalAction(
        "step",
        entry.side,
        free=(OptionSpec("unit", choices=choices, labels=buttons),),
        owed=True,
        label=Outcome.of(
            "pzgren.status.steps",
            side=state.sides[entry.side],
            n=entry.owed,
            hex=entry.hex,
            units=joined(state.units[u].name for u in choices),
        ),
    )


def _owed_morale(state: g.PzgrenState, owed: g.PendingMorale) -> LegalAction:
    unit = state.units[owed.unit]
    return LegalAction(
        "morale",
        unit.side,
        {"unit": unit.id},
        owed=True,
        label=Outcome.of(
            "pzgren.follow.morale", unit=unit.name, check="M" if owed.n == 0 else f"M{owed.n}"
        ),
    )


def move_destinations(
    state: g.PzgrenState,
    unit: g.UnitState,
    occupancy: Mapping[str, list[g.UnitState]] | None = None,
) -> list[str]:
    """The hexes the unit may move to now (``check_move`` accepts them); ``occupancy``: the
    state's :meth:`~rules.pzgren.turn.PzgrenState.occupancy`, if the caller has it."""
    if unit.air:
        return []
    found: list[str] = []
    here = unit.position
    reach = unit.movement
    if occupancy is None:
        occupancy = state.occupancy()
    for q in range(max(0, here.q - reach), min(state.columns, here.q + reach + 1)):
        for r in range(max(0, here.r - reach), min(state.rows, here.r + reach + 1)):
            where = Hex(q, r)
            if distance(here, where) > reach:
                continue
            charge(4)  # a hex checked (rules.core.budget)
            try:
                g.check_move(state, unit, where, occupancy)
            except RulesError:
                continue
            found.append(str(where))
    return found


def _activations(
    state: g.PzgrenState, unit: g.UnitState, occupancy: Mapping[str, list[g.UnitState]]
) -> list[LegalAction]:
    side = unit.side
    actions = [LegalAction("move", side, {"unit": unit.id, "kind": "hold"})]
    destinations = move_destinations(state, unit, occupancy)
    if destinations:
        actions.append(
            LegalAction("move", side, {"unit": unit.id}, (OptionSpec("hex", tuple(destinations)),))
        )
    if unit.status is not MoraleState.GOOD_ORDER:
        actions.append(LegalAction("recover", side, {"unit": unit.id}))
    actions += _fires(state, unit, opportunity=False)
    return actions


def _fires(state: g.PzgrenState, unit: g.UnitState, *, opportunity: bool) -> list[LegalAction]:
    """Direct fire at each enemy hex and anti-tank fire at each target the checks accept."""
    extra: dict[str, str | int] = {"opportunity": "true"} if opportunity else {}
    candidates: list[dict[str, str | int]] = []
    enemies = [u for u in state.units.values() if u.alive and not u.air and u.side != unit.side]
    for where in dict.fromkeys(u.hex for u in enemies):
        candidates.append({"unit": unit.id, "hex": where, **extra})
    for target in enemies:
        if target.armour is not None or target.kind.get("truck"):
            candidates.append({"unit": unit.id, "target": target.id, "mode": "at", **extra})
    actions: list[LegalAction] = []
    for options in candidates:
        charge(16)  # a target checked (rules.core.budget)
        command = g.Fire(
            units=(unit.id,),
            hex=_text(options.get("hex")),
            target=_text(options.get("target")),
            mode="at" if options.get("mode") == "at" else None,
            opportunity=opportunity,
        )
        try:
            g.plan_fire(state, command, unit.side)
        except RulesError:
            continue
        actions.append(LegalAction("fire", unit.side, options))
    return actions


def _text(value: str | int | None) -> str | None:
    return None if value is None else str(value)


def _opportunity_fire(state: g.PzgrenState) -> list[LegalAction]:
    """Rule 13.0: units of the other side that have not acted may fire at a unit that moved."""
    movers = [state.units[u] for u in state.moved_last if u in state.units]
    if not movers:
        return []
    firing_side = state.other_side(movers[0].side)
    actions: list[LegalAction] = []
    for unit in state.units.values():
        if unit.side == firing_side and unit.alive and not unit.acted:
            actions += _fires(state, unit, opportunity=True)
    return actions
