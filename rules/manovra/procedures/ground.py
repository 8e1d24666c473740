"""Manovra procedures on the ground: movement, mines and wire, assault, panic recovery."""

from __future__ import annotations

import enum
from fractions import Fraction
from functools import lru_cache

from pydantic import Field

from rules.core.compose import independent
from rules.core.dice import D6, DiceTray
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.manovra.cells import CellEffect
from rules.manovra.model import RULESET_KEY, MoveRate, TerrainMovement
from rules.manovra.procedures.checks import Frozen, TestInput, TestKind, resolve_test
from rules.manovra.procedures.fire import _apply_cell  # shared cell-to-effects mapping
from rules.manovra.tables import load_tables


class MovementClass(enum.StrEnum):
    """The unit-type columns of TIPI DI TERRENO."""

    CARRI = "carri"
    SEMICINGOLATI = "semicingolati"
    AUTOBLINDO = "autoblindo"
    CAMION = "camion"
    AUTO_JEEP = "auto_jeep"
    MOTO = "moto"
    ARTIGLIERIA = "artiglieria"
    FANTERIA = "fanteria"


class Leg(Frozen):
    """A stretch of a move through one terrain type."""

    terrain: str = Field(max_length=40, description="a row id of TIPI DI TERRENO")
    cm: float = Field(gt=0, le=1000)


class MoveInput(Frozen):
    """A move: the unit's movement class and tactical rate, the kind of move, its legs."""

    unit_class: MovementClass
    tactical_cm: float = Field(gt=0, le=200, description="the unit's 'Movimento tattico'")
    kind: MoveRate = MoveRate.TATTICO
    legs: tuple[Leg, ...] = Field(min_length=1, max_length=20)
    conceal: bool = Field(False, description="Occultarsi (infantry/artillery, cautious only)")


_RATE_ORDER = (MoveRate.TATTICO, MoveRate.BREVE, MoveRate.CAUTO)


def _divisor(rate: MoveRate, data: dict[str, object]) -> int:
    if rate is MoveRate.TATTICO:
        return 1
    key = "short_divisor" if rate is MoveRate.BREVE else "cautious_divisor"
    return int(str(data[key]))


def leg_limit_cm(
    unit_class: MovementClass, tactical_cm: float, kind: MoveRate, terrain: str
) -> Fraction:
    """The longest single-leg move (cm) of this kind through ``terrain``; 0 if impassable.

    The same arithmetic as :func:`resolve_move`: a leg uses ``cm × divisor / tactical`` of
    the move (``cm / (tactical × N / divisor)`` on roads) and may use all of it.
    """
    tables = load_tables()
    table = tables["tipi_terreno"]
    cell: TerrainMovement = tables.parsed(
        table, table.row_by_id(terrain), table.column(unit_class.value)
    )
    tactical = Fraction(tactical_cm).limit_denominator(100)
    if cell.road_cm_per_cm is not None:
        return tactical * cell.road_cm_per_cm / _divisor(kind, table.data)
    if cell.rate is None:
        return Fraction(0)
    slowest = max(cell.rate, kind, key=_RATE_ORDER.index)
    return tactical / _divisor(slowest, table.data)


@lru_cache(maxsize=256)  # a few (class, allowance, kind) per game; asked for every path
def longest_move_cm(unit_class: MovementClass, tactical_cm: float, kind: MoveRate) -> Fraction:
    """The longest move of this kind through any terrain (roads take it farthest): no path
    longer than this is within the allowance, whatever ground it crosses, since each leg
    uses at least ``cm / longest`` of the move."""
    rows = load_tables()["tipi_terreno"].rows
    return max(
        (leg_limit_cm(unit_class, tactical_cm, kind, row.id or "") for row in rows),
        default=Fraction(0),
    )


def resolve_move(data: MoveInput, tray: DiceTray) -> Resolution:
    """Check a move against TIPI DI TERRENO (no dice).

    Each leg moves at the slower of the chosen kind and the terrain's class, so it uses
    ``cm × divisor / tactical`` of the move; the legs together may use at most all of it.
    Roads give 'N cm ogni 1'. The move must cover at least 1 cm.
    """
    tables = load_tables()
    table = tables["tipi_terreno"]
    builder = ResolutionBuilder(RULESET_KEY, "move", tray)
    column = table.column(data.unit_class.value)
    used = Fraction(0)
    total_cm = Fraction(0)
    blocked: str | None = None
    for leg in data.legs:
        row = table.row_by_id(leg.terrain)
        cell: TerrainMovement = tables.parsed(table, row, column)
        read = TableRead(
            table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
        )
        cm = Fraction(leg.cm).limit_denominator(100)
        total_cm += cm
        if not cell.passable:
            blocked = leg.terrain
            builder.step(
                "manovra.step.leg",
                table=read,
                outcome=Outcome.of("manovra.move.impassable", terrain=leg.terrain),
            )
            continue
        if cell.road_cm_per_cm is not None:
            share = cm / (
                Fraction(data.tactical_cm).limit_denominator(100)
                * cell.road_cm_per_cm
                / _divisor(data.kind, table.data)
            )
        else:
            assert cell.rate is not None
            slowest = max(cell.rate, data.kind, key=_RATE_ORDER.index)
            share = (
                cm
                * _divisor(slowest, table.data)
                / Fraction(data.tactical_cm).limit_denominator(100)
            )
        used += share
        builder.step(
            "manovra.step.leg",
            table=read,
            outcome=Outcome.of("manovra.move.leg", percent=round(float(share) * 100)),
        )
        if cell.obstacle:
            builder.effect(EffectKind.STATUS, f"obstacle_{cell.obstacle}", terrain=leg.terrain)
        if cell.needs_et:
            builder.effect(EffectKind.TEST_OWED, "ET", terrain=leg.terrain)
    cover = tables.parsed(table, table.row_by_id(data.legs[-1].terrain), table.column("riparo"))
    if blocked is not None:
        outcome = Outcome.of("manovra.move.impassable", terrain=blocked)
    elif total_cm < 1:
        outcome = Outcome.of("manovra.move.too_short")
    elif used > 1:
        outcome = Outcome.of("manovra.move.too_far", percent=round(float(used) * 100))
    elif data.conceal and (
        data.kind is not MoveRate.CAUTO
        or data.unit_class not in (MovementClass.FANTERIA, MovementClass.ARTIGLIERIA)
    ):
        outcome = Outcome.of("manovra.move.cannot_conceal")
    else:
        outcome = Outcome.of("manovra.move.ok", percent=round(float(used) * 100))
        builder.effect(EffectKind.STATUS, "cover", amount=cover.rank, cover=cover.value)
        if data.conceal:
            builder.effect(EffectKind.STATUS, "concealed")
    builder.step(
        "manovra.step.move", total=round(float(total_cm)), outcome=outcome, kind=data.kind.value
    )
    return builder.finish(outcome)


# -- ET against mines and wire -----------------------------------------------------------------


class Obstacle(enum.StrEnum):
    """What the ET is against."""

    MINE = "mine"
    WIRE = "wire"


class MineTarget(enum.StrEnum):
    """The target columns of EFFETTI CAMPO MINATO."""

    CARRI = "carri"
    AUTOBLINDO_SEMICINGOLATO = "autoblindo_semicingolato"
    CAMION_AUTO_MOTO = "camion_auto_moto"
    FANTERIA_ARTIGLIERIA = "fanteria_artiglieria"


class ObstacleInput(Frozen):
    """A unit entering a minefield or wire: ET, then EFFETTI CAMPO MINATO on a failed ET."""

    obstacle: Obstacle
    target: MineTarget
    ad: int = Field(ge=0, le=3)
    models_present: int | None = Field(None, ge=0, le=1000)
    target_id: str | None = Field(None, max_length=64)


def resolve_obstacle(data: ObstacleInput, tray: DiceTray) -> Resolution:
    """ET (D6 + AD ≥ D10); on failure wire stops the unit, a mine rolls EFFETTI CAMPO MINATO."""
    test = resolve_test(TestInput(kind=TestKind.ET, ad=data.ad), tray)
    builder = ResolutionBuilder(RULESET_KEY, "obstacle", tray)
    builder.steps.extend(test.steps)
    if test.outcome.key == "manovra.test.passed":
        return builder.finish(Outcome.of("manovra.obstacle.avoided", obstacle=data.obstacle.value))
    if data.obstacle is Obstacle.WIRE:
        builder.effect(EffectKind.MOVEMENT, "stopped_by_wire", target=data.target_id)
        return builder.finish(Outcome.of("manovra.obstacle.wire_holds"))
    tables = load_tables()
    table = tables["campo_minato"]
    column = table.column(data.target.value)
    roll = tray.roll_grouped(
        D6, "D6 — mine", lambda face: tables.parsed(table, table.row_for("d6", face), column)
    )
    row = table.row_for("d6", roll.face)
    effects: tuple[CellEffect, ...] = tables.parsed(table, row, column)
    casualties = _apply_cell(
        builder, effects, target=data.target_id, models_present=data.models_present
    )
    statuses = sorted({e.key for e in effects if e.kind == "status" and e.key})
    outcome = Outcome.of(
        "manovra.obstacle.mine",
        n=casualties or None,
        status="+".join(statuses) or None,
        ct=1 if any(e.key == "CT" for e in effects) else None,
    )
    builder.step(
        "manovra.step.mine",
        rolls=(roll,),
        total=roll.face,
        table=TableRead(
            table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
        ),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- Assault, close combat, overrun, panic recovery -------------------------------------------


class AssaultInput(Frozen):
    """An infantry unit about to assault: the CT that lets it go in."""

    ad: int = Field(ge=0, le=3)
    cv: int = Field(0, ge=0, le=3)
    target_id: str | None = Field(None, max_length=64)


def resolve_assault(data: AssaultInput, tray: DiceTray) -> Resolution:
    """CT before an assault: passed, the unit closes for CC (or heavy weapons on a vehicle)."""
    test = resolve_test(TestInput(kind=TestKind.CT, ad=data.ad, cv=data.cv), tray)
    builder = ResolutionBuilder(RULESET_KEY, "assault", tray)
    builder.steps.extend(test.steps)
    if test.outcome.key == "manovra.test.passed":
        return builder.finish(Outcome.of("manovra.assault.goes_in"))
    return builder.finish(Outcome.of("manovra.assault.refused"))


class Duel(Frozen):
    """One pair of models in close combat."""

    ad: int = Field(ge=0, le=3)
    opponent_ad: int = Field(ge=0, le=3)


class CloseCombatInput(Frozen):
    """Close combat, model against model (CC: D6 + AD > D6 + AD enemy)."""

    duels: tuple[Duel, ...] = Field(min_length=1, max_length=12)
    target_id: str | None = Field(None, max_length=64)
    attacker_id: str | None = Field(None, max_length=64)
    defender_side: str | None = Field(
        None, max_length=64, description="the side rolling the defending models' D6"
    )


def resolve_close_combat(data: CloseCombatInput, tray: DiceTray) -> Resolution:
    """Each pair rolls CC; the higher total eliminates the other model, a tie spares both.

    The duels are independent: the odds compose them (one enumeration per kind of duel).
    """
    builder = ResolutionBuilder(RULESET_KEY, "close_combat", tray)

    def duel(duel_tray: DiceTray, duel: Duel) -> str:
        test = resolve_test(
            TestInput(
                kind=TestKind.CC,
                ad=duel.ad,
                opponent_ad=duel.opponent_ad,
                opponent_side=data.defender_side,
            ),
            duel_tray,
        )
        builder.steps.extend(test.steps)
        return test.outcome.key

    won, lost = independent(
        tray, data.duels, duel, _tally_duel, (0, 0), key=(RULESET_KEY, "close_combat")
    )
    if won:
        builder.effect(EffectKind.CASUALTIES, "killed", target=data.target_id, amount=won)
    if lost:
        builder.effect(EffectKind.CASUALTIES, "killed", target=data.attacker_id, amount=lost)
    return builder.finish(Outcome.of("manovra.cc.result", won=won, lost=lost))


def _tally_duel(tally: tuple[int, int], outcome: str) -> tuple[int, int]:
    won, lost = tally
    return won + (outcome == "manovra.test.won"), lost + (outcome == "manovra.test.lost")


class OverrunInput(Frozen):
    """Armour driving onto infantry or soft vehicles: the ET to avoid being overrun."""

    ad: int = Field(ge=0, le=3)
    target_id: str | None = Field(None, max_length=64)


def resolve_overrun(data: OverrunInput, tray: DiceTray) -> Resolution:
    """ET of the unit in the vehicle's path; a failure means it is overrun (owes a CT)."""
    test = resolve_test(TestInput(kind=TestKind.ET, ad=data.ad), tray)
    builder = ResolutionBuilder(RULESET_KEY, "overrun", tray)
    builder.steps.extend(test.steps)
    if test.outcome.key == "manovra.test.passed":
        return builder.finish(Outcome.of("manovra.overrun.avoided"))
    builder.effect(EffectKind.STATUS, "overrun", target=data.target_id)
    builder.effect(EffectKind.TEST_OWED, "CT", target=data.target_id, reason="overrun")
    return builder.finish(Outcome.of("manovra.overrun.overrun"))


class PanicRecoveryInput(Frozen):
    """A panicked unit: one CT per commander (their CVs); the first success recovers it."""

    ad: int = Field(ge=0, le=3)
    commanders_cv: tuple[int, ...] = Field(min_length=1, max_length=6)
    target_id: str | None = Field(None, max_length=64)


def resolve_panic_recovery(data: PanicRecoveryInput, tray: DiceTray) -> Resolution:
    """Recupero panico: a CT per commander until one passes; then a tactical move is allowed.

    The CTs are independent and the first pass ends them: the odds compose them.
    """
    builder = ResolutionBuilder(RULESET_KEY, "panic_recovery", tray)

    def courage(test_tray: DiceTray, cv: int) -> bool:
        test = resolve_test(TestInput(kind=TestKind.CT, ad=data.ad, cv=cv), test_tray)
        builder.steps.extend(test.steps)
        return test.outcome.key == "manovra.test.passed"

    commanders = tuple(max(0, min(3, cv)) for cv in data.commanders_cv)
    recovered = independent(
        tray,
        commanders,
        courage,
        _either,
        False,
        key=(RULESET_KEY, "panic_recovery", data.ad),
        stop=bool,
    )
    if recovered:
        builder.effect(EffectKind.CLEAR_STATUS, "panic", target=data.target_id)
        return builder.finish(Outcome.of("manovra.panic.recovered"))
    return builder.finish(Outcome.of("manovra.panic.still_panicked"))


def _either(recovered: bool, passed: bool) -> bool:
    return recovered or passed


__all__ = [
    "AssaultInput",
    "CloseCombatInput",
    "Comparison",
    "Duel",
    "Leg",
    "MineTarget",
    "MoveInput",
    "MovementClass",
    "Obstacle",
    "ObstacleInput",
    "OverrunInput",
    "PanicRecoveryInput",
    "Threshold",
    "resolve_assault",
    "resolve_close_combat",
    "resolve_move",
    "resolve_obstacle",
    "resolve_overrun",
    "resolve_panic_recovery",
]
