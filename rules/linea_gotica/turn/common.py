"""The checks and helpers every verb shares: who may act with which unit now, one activity
per unit per turn, the soldiers able to fire or act (the class roster), isolation rolls.
"""

from __future__ import annotations

from typing import Any

from rules.core import geometry
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.i18n import LANGUAGES, translate
from rules.core.resolution import Resolution
from rules.core.words import Words, worded
from rules.linea_gotica.model import QUALITY_ORDER, RULESET_KEY, Level
from rules.linea_gotica.procedures import PROCEDURES, checks, fire
from rules.linea_gotica.procedures.fire import TargetSpec
from rules.linea_gotica.scenario import Weapon
from rules.linea_gotica.state import (
    Figure,
    GameState,
    Minefield,
    Phase,
    UnitState,
)
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY
Applied = CoreApplied[GameState]


def resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    return PROCEDURES[procedure].resolve_on(data, tray)


def require_own(unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.linea_gotica.not_your_unit", unit=unit.name)


def require_alive(unit: UnitState) -> None:
    if not unit.alive:
        raise IllegalAction("error.linea_gotica.unit_out", unit=unit.name)


def require_fresh(unit: UnitState) -> None:
    """One activity per unit per turn (a preview of the odds does not check it)."""
    if unit.activity is not None and not is_preview():
        raise IllegalAction(
            "error.linea_gotica.already_acted", unit=unit.name, activity=unit.activity
        )


def require_fresh_soldiers(state: GameState, unit: UnitState) -> None:
    """Firing or acting: the unit has done nothing this turn, or, while the covering fire
    step lasts, only some of its automatic weapons fired covering fire (others may join it)."""
    if is_preview() or unit.activity is None or partly_covering(state, unit):
        return
    raise IllegalAction("error.linea_gotica.already_acted", unit=unit.name, activity=unit.activity)


def partly_covering(state: GameState, unit: UnitState) -> bool:
    """Some soldiers of a squad are firing covering fire, in the covering fire step.

    Seed 004 line 154: "ogni unità può svolgere una sola attività durante un turno (quindi le
    unità che abbiano già sparato con un tiro di copertura […] **non** potranno sparare
    nuovamente durante la successiva fase di tiro, e non potranno muovere)". Covering fire is
    the unit's activity for the turn: once the step is over the unit neither moves, nor fires
    (opportunity fire or the fire phase), nor acts (issue 26).
    """
    return (
        state.phase is Phase.COVERING
        and unit.activity == "covering"
        and unit.vehicle is None
        and bool(unit.covered_by)
    )


def may_still_act(state: GameState, unit: UnitState) -> bool:
    """Whether the unit has someone who may still fire or act this turn."""
    if unit.activity is None:
        return True
    return partly_covering(state, unit) and any(
        f.able(state.turn) and f.n not in unit.covered_by for f in unit.figures
    )


def weapon_of(state: GameState, weapon_id: str) -> Weapon:
    try:
        return state.weapons[weapon_id]
    except KeyError:
        raise UnknownName("error.linea_gotica.unknown_weapon", name=weapon_id[:40]) from None


def quality_modifier_of(state: GameState, unit: UnitState) -> int:
    return unit.quality_modifier


def _figure_key(unit: UnitState, figure: Figure | None) -> str:
    return unit.id if figure is None else f"{unit.id}#{figure.n}"


def roster_for(state: GameState, index: int) -> list[str]:
    keys: list[str] = []
    for unit in state.units.values():
        if unit.class_index != index or not unit.alive:
            continue
        if unit.vehicle is not None:
            if unit.crew_able(state.turn):
                keys.append(unit.id)
        else:
            keys += [_figure_key(unit, f) for f in unit.figures if f.able(state.turn)]
    return keys


def able_figures(state: GameState, unit: UnitState) -> list[Figure]:
    """Soldiers who may fire or act now (in the fire phase, those of the class roster)."""
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    return [
        f
        for f in unit.figures
        if (f.able(state.turn) or (in_class and _figure_key(unit, f) in state.roster))
        and f.n not in unit.covered_by
    ]


def crew_able(state: GameState, unit: UnitState) -> bool:
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    return unit.crew_able(state.turn) or (in_class and unit.id in state.roster)


def is_isolated(unit: UnitState, figure: Figure) -> bool:
    """Out of command distance (declared), or his squad has lost its leader."""
    if figure.role == "sniper":
        free = load_tables()["distanze_comando"].data["sniper_free_qualities"]
        if unit.quality.value in free:
            return False
    if figure.role == "leader":
        return False
    return figure.isolated or unit.leaderless


def isolation_rolls(
    state: GameState, unit: UnitState, figures: list[Figure], tray: DiceTray, result: Applied
) -> list[Figure]:
    """Isolated soldiers roll 1d10 ≤ quality before acting; those who fail stay put."""
    kept: list[Figure] = []
    for figure in figures:
        if not is_isolated(unit, figure):
            kept.append(figure)
            continue
        resolution = resolve(
            "action",
            checks.ActionInput(
                quality=unit.quality,
                quality_modifier=quality_modifier_of(state, unit),
                level=Level.NORMALE,
                purpose=checks.Purpose.ISOLATO,
            ),
            tray,
        )
        result.resolutions.append(resolution)
        if resolution.outcome.key == f"{K}.action.passed":
            kept.append(figure)
    return kept


def transport_isolated(state: GameState, unit: UnitState) -> bool:
    """An unarmed transport out of its squad leader's command distance, measured on the
    battlefield ("I veicoli da trasporto disarmati … sono soggetti alle normali regole del
    raggio di comando (riferito alla propria squadra/sezione di fanteria)"); a squad out of
    play or leaderless leaves it isolated."""
    if state.field is None or unit.squad is None or unit.vehicle is None:
        return False
    squad = state.units.get(unit.squad)
    if squad is None or not squad.alive or squad.leader_ability is None or squad.leader() is None:
        return True
    here, there = state.positions.get(unit.id), state.positions.get(squad.id)
    if here is None or there is None:
        return False
    limit, _ = checks.command_limit(squad.leader_ability, squad.section, False)
    return geometry.distance(here, there) > limit


def transport_may_act(state: GameState, unit: UnitState, tray: DiceTray, result: Applied) -> bool:
    """An isolated transport rolls 1d10 ≤ its quality before moving or firing (as an
    isolated soldier does); a failure spends its turn."""
    if is_preview() or not transport_isolated(state, unit):
        return True
    resolution = resolve(
        "action",
        checks.ActionInput(
            quality=unit.quality,
            quality_modifier=quality_modifier_of(state, unit),
            level=Level.NORMALE,
            purpose=checks.Purpose.ISOLATO,
        ),
        tray,
    )
    result.resolutions.append(resolution)
    return resolution.outcome.key == f"{K}.action.passed"


def acting_unit(state: GameState, unit_id: str, actor: str | None) -> UnitState:
    """The unit must be the actor's and in play (or, in the fire phase, of the class roster:
    results within a class are simultaneous)."""
    unit = state.unit(unit_id)
    require_own(unit, actor)
    in_roster = (
        state.phase is Phase.FIRE
        and unit.class_index == state.fire_class
        and any(key == unit.id or key.startswith(f"{unit.id}#") for key in state.roster)
    )
    if not in_roster:
        require_alive(unit)
    return unit


def known_minefield(state: GameState, field_id: str | None, actor: str | None) -> Minefield:
    """The minefield ``field_id`` names, as the side ``actor`` may name it (the referee,
    None: any): one not cleared that the side knows of. A minefield is drawn only for the
    sides that know it, so to another side its id is a name nobody has, refused alike
    (it answered "too far" when spotted, telling the enemy that it was there)."""
    mines = state.minefields.get(field_id or "")
    if mines is None or mines.cleared or (actor is not None and actor not in mines.known_to):
        raise UnknownName("error.linea_gotica.unknown_minefield", name=str(field_id or "")[:40])
    return mines


def fire_class_name(state: GameState) -> Words:
    """The quality class that acts now as each language names it ("Elite", "Veterans"),
    never by its id ("Class elite acts now")."""
    return worded(f"{K}.values.{QUALITY_ORDER[state.fire_class].value}")


def phase_name(state: GameState) -> Words:
    """The phase as each language names it (a refusal names it in its reader's language,
    never by its id: "Not allowed in the phase «Covering fire»", not «copertura»)."""
    key = f"{K}.phase.{state.phase.value}"
    quality = fire_class_name(state) if state.phase is Phase.FIRE else Words("")
    named = {
        language: translate(key, language, quality=quality.in_language(language))
        for language in LANGUAGES
    }
    return Words(named[LANGUAGES[0]], named)


def wrong_phase(state: GameState) -> IllegalAction:
    """The refusal of an action the current phase does not allow."""
    return IllegalAction("error.linea_gotica.wrong_phase", phase=phase_name(state))


def may_act_in_fire_phase(state: GameState, unit: UnitState) -> None:
    if is_preview():
        return
    if state.phase is not Phase.FIRE:
        raise wrong_phase(state)
    if unit.class_index != state.fire_class:
        raise IllegalAction(
            "error.linea_gotica.not_this_class",
            unit=unit.name,
            quality=fire_class_name(state),
        )
    if unit.side in state.done:
        raise IllegalAction("error.linea_gotica.side_done")


def owes_morale(state: GameState, unit: UnitState) -> None:
    if is_preview():
        return
    in_class = state.phase is Phase.FIRE and unit.class_index == state.fire_class
    if not in_class and any(p.unit == unit.id for p in state.pending):
        raise IllegalAction("error.linea_gotica.unit_owes_morale", unit=unit.name)


def move_side(state: GameState) -> str | None:
    if state.phase in (Phase.COVERING, Phase.MOVEMENT):
        return state.order[state.mover]
    return None


def target_spec(state: GameState, unit: UnitState, figure: Figure | None) -> TargetSpec:
    vehicle = unit.vehicle
    return TargetSpec(
        kind=unit.target_kind,
        armour=vehicle.armour if vehicle is not None else fire.Armour.MEDIA,
        turret=vehicle.turret if vehicle is not None else True,
        weapons=min(len(armament(state, unit)), 6),
        wounded=bool(figure and (figure.wounded or figure.badly_wounded)),
        unit=unit.id,
        figure=figure.n if figure is not None else None,
    )


def alive_figures(unit: UnitState) -> list[Figure | None]:
    """The living soldiers of a unit (typed for mixed lists)."""
    return [f for f in unit.figures if f.alive]


def actor_figure(unit: UnitState, man: int | None, state: GameState) -> Figure | None:
    if unit.vehicle is not None:
        return None
    if man is not None:
        figure = unit.figure(man)
        if not figure.alive:
            raise IllegalAction("error.linea_gotica.figure_out", unit=unit.name, figure=figure.n)
        return figure
    able = [f for f in unit.figures if f.able(state.turn) and f.n not in unit.covered_by]
    able.sort(key=lambda f: (f.wounded, f.role != "leader"))
    return able[0] if able else None


def armament(state: GameState, unit: UnitState) -> list[str]:
    """A vehicle's working weapons that fire ("armi di bordo"), main armament first.

    A smoke discharger is equipment, not a weapon: a "weapon destroyed" result draws among
    these only.
    """
    return [w for w in unit.working_weapons() if w in state.weapons and state.weapons[w].row]
