"""Checks and helpers every verb of the manovra game shares."""

from __future__ import annotations

from typing import Any, NamedTuple

from rules.core.dice import D6, DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import is_preview
from rules.core.resolution import EffectKind, Modifier, Outcome, Resolution, ResolutionBuilder
from rules.core.words import joined
from rules.manovra.model import RULESET_KEY, Cover
from rules.manovra.procedures import PROCEDURES
from rules.manovra.scenario import MAX_HEAVY_ROUNDS, Weapon, WeaponKind
from rules.manovra.state import (
    MAX_TEXT,
    FireMarker,
    ManovraState,
    PendingTest,
    PlatoonState,
    TurnStep,
    UnitState,
)
from rules.manovra.tables import load_tables


def _resolve(procedure: str, data: Any, tray: DiceTray) -> Resolution:
    """Resolve through the ruleset's procedure, with its exact odds (bounded, cached)."""
    return PROCEDURES[procedure].resolve_on(data, tray)


def _own(state: ManovraState, unit: UnitState, actor_side: str | None) -> None:
    if actor_side is not None and unit.side != actor_side:
        raise IllegalAction("error.manovra.not_your_unit", unit=unit.name)


def _require_step(state: ManovraState, step: TurnStep) -> None:
    if state.step is not step:
        raise IllegalAction("error.manovra.wrong_step", needed=int(step), current=int(state.step))


def _acting_unit(state: ManovraState, unit_id: str, actor_side: str | None) -> UnitState:
    """The unit must exist, be the actor's, be alive, and be first in the IT order (an owed
    test or declaration comes first: the declared sequence refused the command before).

    A preview (odds while planning) checks only the unit itself, not whose turn it is.
    """
    unit = state.unit(unit_id)
    _own(state, unit, actor_side)
    if not unit.alive:
        raise IllegalAction("error.manovra.unit_out", unit=unit.name)
    if is_preview():
        return unit
    _require_step(state, TurnStep.MANOEUVRE)
    if not state.queue:
        raise IllegalAction("error.manovra.no_unit_to_act")
    if state.queue[0] != unit.id:
        following = state.units[state.queue[0]]
        hidden = concealed_on_table(following)
        if hidden and actor_side is not None and following.side != actor_side:
            # A unit concealed from the enemy is not named to it (bot.service.redaction).
            raise IllegalAction(
                "error.manovra.not_this_units_turn_hidden",
                unit=unit.name,
                side=state.sides.get(following.side, following.side),
            )
        raise IllegalAction(
            "error.manovra.not_this_units_turn",
            unit=unit.name,
            next=following.name,
        )
    return unit


def _field_platoons(state: ManovraState, side: str) -> list[PlatoonState]:
    return [
        p
        for p in state.platoons.values()
        if p.side == side and not p.off_table and any(state.units[u].alive for u in p.units)
    ]


def _declaring_side(state: ManovraState) -> str | None:
    for side in (state.first_side, state.other_side(state.first_side)):
        if side not in state.declarations:
            return side
    return None


def _simple_only(unit: UnitState) -> bool:
    """PERDITE EQUIPAGGI: a crew with half or more dead performs simple actions only."""
    row = load_tables()["perdite_equipaggi"].row_by_id("meta_morti")
    fraction = float(row.data["trigger"]["dead_fraction_at_least"])
    return bool(unit.kind["crew"]) and unit.crew_losses >= fraction * unit.initial_models


def _light_only(unit: UnitState) -> bool:
    """PERDITE EQUIPAGGI: a crew with one survivor fires light weapons only."""
    row = load_tables()["perdite_equipaggi"].row_by_id("un_superstite")
    return bool(unit.kind["crew"]) and unit.models == int(row.data["trigger"]["survivors_exactly"])


def _target_unit(state: ManovraState, unit: UnitState, target_id: str) -> UnitState:
    target = state.unit(target_id)
    if target.side == unit.side:
        raise IllegalAction("error.manovra.friendly_target", target=target.name)
    if not target.alive:
        raise IllegalAction("error.manovra.unit_out", unit=target.name)
    if target.aboard is not None:
        # A unit in or behind its transport shares the transport's fate (not in the seed).
        raise IllegalAction(
            "error.manovra.aboard_target",
            target=target.name,
            vehicle=state.units[target.aboard].name,
        )
    return target


def not_aboard(state: ManovraState, unit: UnitState) -> None:
    """A unit riding a transport (or hooked to one) only gets off or holds."""
    if unit.aboard is not None:
        raise IllegalAction(
            "error.manovra.aboard", unit=unit.name, vehicle=state.units[unit.aboard].name
        )


def cargo(state: ManovraState, vehicle: UnitState) -> list[UnitState]:
    """The units a transport carries or tows."""
    return [u for u in state.units.values() if u.aboard == vehicle.id]


def carry_along(state: ManovraState, vehicle: UnitState) -> None:
    """What a transport carries or tows goes where it goes."""
    for unit in cargo(state, vehicle):
        unit.position = vehicle.position
        unit.terrain = vehicle.terrain


def _release_wrecks(state: ManovraState) -> None:
    """A transport out of the game leaves its load where it stands (the seed is silent)."""
    for unit in state.units.values():
        if unit.aboard is not None and not state.units[unit.aboard].alive:
            unit.aboard = None


def _target_cover(target: UnitState) -> Cover:
    tables = load_tables()
    table = tables["tipi_terreno"]
    cover: Cover = tables.parsed(table, table.row_by_id(target.terrain), table.column("riparo"))
    return cover


def weapon_rounds(unit: UnitState, weapon_id: str, weapon: Weapon, moving: bool) -> int:
    """The shots a unit fires with one kind of weapon: the rate × the pieces it carries.

    Seed 000 line 9: a unit fires "con tutte le armi dell'unità, il numero di colpi indicato
    nella colonna 'Appostata'" — every piece fires, light and heavy alike. Each piece needs
    a man to serve it, so no more pieces fire than models are left (not in the seed). A
    heavy weapon fires at most ``MAX_HEAVY_ROUNDS`` (the scenario refuses more).
    """
    rate = weapon.rof_moving if moving else weapon.rof_stationary
    rounds = rate * min(unit.weapons.get(weapon_id, 0), unit.models)
    return rounds if weapon.kind is WeaponKind.LIGHT else min(rounds, MAX_HEAVY_ROUNDS)


def _weapon(state: ManovraState, unit: UnitState, weapon_id: str) -> Weapon:
    if weapon_id not in unit.weapons:
        # An unknown name: offered back among the unit's own weapons ("did you mean …?").
        raise UnknownName(
            "error.manovra.no_such_weapon",
            unit=unit.name,
            weapon=weapon_id[:MAX_TEXT],
            weapons=joined(state.weapons[w].name for w in unit.weapons if w in state.weapons),
            among=tuple(unit.weapons),
        )
    return state.weapons[weapon_id]


def choose_weapon(state: ManovraState, unit: UnitState) -> IllegalAction:
    """The refusal asking for a weapon, naming the unit's weapons as players read them."""
    return IllegalAction(
        "error.manovra.choose_weapon",
        weapons=joined(state.weapons[w].name for w in unit.weapons if w in state.weapons),
    )


def _marker(state: ManovraState, marker_id: str) -> FireMarker:
    for marker in state.markers:
        if marker.id == marker_id:
            return marker
    raise UnknownName("error.manovra.unknown_marker", name=marker_id[:MAX_TEXT])


def _apply_effects(state: ManovraState, resolution: Resolution) -> None:
    """Apply a resolution's effects to the units they name; owed tests become pending."""
    for effect in resolution.effects:
        if effect.target is None or effect.target not in state.units:
            continue
        unit = state.units[effect.target]
        if effect.kind is EffectKind.CASUALTIES:
            lost = unit.models if effect.amount is None else effect.amount
            before = unit.models
            unit.models = max(0, unit.models - lost)
            if unit.models == 0:
                unit.add("destroyed")
            elif _half_strength_rule(unit, before):
                _owe(state, unit, "CT", "half_strength")
        elif effect.kind in (EffectKind.STATUS, EffectKind.MOVEMENT):
            unit.add(effect.key)
        elif effect.kind is EffectKind.CLEAR_STATUS:
            unit.statuses = [s for s in unit.statuses if s != effect.key]
        elif effect.kind is EffectKind.TEST_OWED and effect.key in ("CT", "SF", "ET"):
            if effect.key == "SF" and unit.acted:
                continue
            _owe(
                state,
                unit,
                effect.key,
                str(dict(effect.params).get("reason", resolution.procedure)),
            )
    for pending in list(state.pending):
        if not state.units[pending.unit].alive:
            state.pending.remove(pending)
    _release_wrecks(state)


def _owe(state: ManovraState, unit: UnitState, kind: str, reason: str) -> None:
    """Record a test the unit owes, once."""
    if kind in ("CT", "SF", "ET") and not any(
        p.unit == unit.id and p.kind == kind for p in state.pending
    ):
        state.pending.append(PendingTest(unit=unit.id, kind=kind, reason=reason))


def _half_strength_rule(unit: UnitState, models_before: int) -> bool:
    """FUOCO ARMI LEGGERE (fanteria): a unit already at 50 % owes a CT for further losses.

    The rule stands under the infantry and artillery table; it applies to every loss such a
    unit takes (fire, fragments, close combat, mines), not to vehicles, whose result cells
    name their own CTs.
    """
    return (
        not unit.kind["vehicle"]
        and unit.models < models_before
        and 2 * models_before <= unit.initial_models
    )


def concealed_on_table(unit: UnitState) -> bool:
    """A unit hidden from the enemy: concealed (Occultarsi) where the table shows units."""
    return unit.alive and unit.has("concealed") and unit.position is not None


class Initiative(NamedTuple):
    """The IT tests' order of the units (every one), and their accounts: the one every seat
    reads, then one per side that conceals a unit tested, for that side alone."""

    order: list[str]
    resolutions: list[Resolution]


def _ranks(order: list[str]) -> tuple[tuple[str, str], ...]:
    return tuple((str(i + 1), unit_id) for i, unit_id in enumerate(order))


def _initiative(state: ManovraState, units: list[UnitState], tray: DiceTray) -> Initiative:
    """IT for each unit (D6 + AD + CV; a crew with losses counts 1); higher totals act first.

    Ties keep the side that began the turn first, then the declaration order (the seed
    gives no tie rule). A unit concealed from the enemy is tested all the same, in its
    place, with the bot's die (a typed face every seat reads would tell of it); its test is
    in an account its side alone reads, and the account every seat reads orders the units
    it may know of (not in the seed: docs/manovra.md, "A concealed unit").
    """
    fixed = int(
        load_tables()["perdite_equipaggi"].row_by_id("almeno_un_morto").data["fixed_die_face"]
    )
    seen = ResolutionBuilder(RULESET_KEY, "initiative", tray)
    kept: dict[str, ResolutionBuilder] = {}
    hidden: set[str] = set()
    totals: list[tuple[int, int, int, str]] = []
    for index, unit in enumerate(units):
        builder = seen
        if concealed_on_table(unit):
            hidden.add(unit.id)
            builder = kept.setdefault(
                unit.side, ResolutionBuilder(RULESET_KEY, "initiative", tray)
            )
        mods = [Modifier("manovra.mod.ad", unit.ad), Modifier("manovra.mod.cv", unit.cv)]
        if unit.kind["crew"] and unit.crew_losses > 0:
            rolls: tuple[Any, ...] = ()
            base = fixed
            mods.insert(0, Modifier("manovra.mod.crew_fixed_die", fixed))
        else:
            # "Ogni giocatore lancia un D6": each side rolls its own units' IT.
            rolling = (
                tray.rolled_unseen(unit.side) if unit.id in hidden else tray.rolled_by(unit.side)
            )
            with rolling:
                roll = tray.roll(D6, f"IT — {unit.name}")
            rolls, base = (roll,), roll.face
        total = base + unit.ad + unit.cv
        totals.append((-total, 0 if unit.side == state.first_side else 1, index, unit.id))
        builder.step(
            "manovra.step.initiative",
            rolls=rolls,
            modifiers=tuple(mods),
            total=total,
            unit=unit.name,
        )
    order = [unit_id for *_, unit_id in sorted(totals)]
    public = [unit_id for unit_id in order if unit_id not in hidden]
    resolutions = (
        [seen.finish(Outcome("manovra.turn.order", _ranks(public)))] if seen.steps else []
    )
    resolutions += [
        builder.finish(Outcome("manovra.turn.order", _ranks(order))).kept_for(side)
        for side, builder in kept.items()
    ]
    return Initiative(order, resolutions)
