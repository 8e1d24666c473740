"""Linea gotica movement: foot (cautious, normal, run) and vehicles (road, off road), with
every modifier of the seed's tables, and the mobility roll after crushing an obstacle."""

from __future__ import annotations

import enum
import math
from fractions import Fraction
from typing import Literal

from pydantic import Field

from rules.core.dice import D10, DiceTray
from rules.core.errors import UnknownName
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    Threshold,
)
from rules.core.tables import Table
from rules.linea_gotica.model import RULESET_KEY, MoveModifier
from rules.linea_gotica.procedures.checks import Frozen, read
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY


class Pace(enum.StrEnum):
    """MOVIMENTO TRUPPE APPIEDATE."""

    CAUTO = "cauto"
    NORMALE = "normale"
    CORSA = "corsa"


def _modifier_row_ids(table: Table, ids: tuple[str, ...]) -> None:
    known = {row.id for row in table.rows}
    for name in ids:
        if name not in known:
            raise UnknownName(
                "error.linea_gotica.unknown_move_modifier",
                name=name[:40],
                known=", ".join(sorted(str(k) for k in known)),
            )


def _allowance(
    table: Table, base: int, ids: tuple[str, ...]
) -> tuple[int, bool, bool, list[Modifier]]:
    """Apply each percentage to what is left (rounded up at the end); whole-turn tasks."""
    tables = load_tables()
    share = Fraction(1)
    whole_turn = False
    impassable = False
    mods: list[Modifier] = []
    for name in dict.fromkeys(ids):
        row = table.row_by_id(name)
        parsed: MoveModifier = tables.parsed(table, row, table.column("modifica"))
        if parsed.impassable:
            impassable = True
            mods.append(Modifier(f"{K}.mod.move_{name}", 0))
        elif parsed.whole_turn:
            whole_turn = True
            mods.append(Modifier(f"{K}.mod.move_{name}", 0))
        else:
            share *= Fraction(100 + parsed.percent, 100)
            mods.append(Modifier(f"{K}.mod.move_{name}", parsed.percent))
    allowance = 0 if whole_turn else math.ceil(base * share)
    return allowance, whole_turn, impassable, mods


class FootMoveInput(Frozen):
    """A foot move: pace, distance and the modifiers that apply."""

    pace: Pace = Pace.NORMALE
    distance_cm: float = Field(0, ge=0, le=1000)
    modifiers: tuple[str, ...] = Field((), max_length=11)
    ran_last_turn: bool = False


def resolve_foot_move(data: FootMoveInput, tray: DiceTray) -> Resolution:
    """MOVIMENTO TRUPPE APPIEDATE with its modifiers (no dice)."""
    tables = load_tables()
    table = tables["movimento_fanteria"]
    mods_table = tables["modificatori_movimento_fanteria"]
    _modifier_row_ids(mods_table, data.modifiers)
    row = table.row_by_id(data.pace.value)
    base: int = tables.parsed(table, row, table.column("distanza"))
    builder = ResolutionBuilder(K, "foot_move", tray)
    if row.data.get("not_consecutive") and data.ran_last_turn:
        outcome = Outcome.of(f"{K}.move.no_run_twice")
        builder.step(
            f"{K}.step.move",
            table=read(table, row, "distanza"),
            outcome=outcome,
            pace=data.pace.value,
        )
        return builder.finish(outcome)
    allowance, whole_turn, _, mods = _allowance(mods_table, base, data.modifiers)
    distance = math.ceil(data.distance_cm)
    if whole_turn and distance > 0:
        # "1 turno": the task is the unit's whole movement (the table's notes), so "0 cm
        # allowed" would not say why.
        outcome = Outcome.of(f"{K}.move.whole_turn_only", cm=distance)
    elif distance > allowance:
        outcome = Outcome.of(f"{K}.move.too_far", allowance=allowance, cm=distance)
    elif whole_turn:
        outcome = Outcome.of(f"{K}.move.whole_turn")
    else:
        outcome = Outcome.of(f"{K}.move.ok", allowance=allowance, cm=distance)
    builder.step(
        f"{K}.step.move",
        modifiers=tuple(mods),
        total=distance,
        threshold=Threshold(Comparison.AT_MOST, allowance, f"{K}.threshold.cm"),
        table=read(table, row, "distanza"),
        outcome=outcome,
        pace=data.pace.value,
    )
    return builder.finish(outcome)


VehicleRow = Literal[
    "carri", "cingolati", "ruotati_4x4", "civili", "moto", "traino_animale", "cavalleria"
]


class VehicleMoveInput(Frozen):
    """A vehicle move: type, road or not, distance and modifiers."""

    vehicle: VehicleRow = "carri"
    road: bool = False
    distance_cm: float = Field(0, ge=0, le=1000)
    modifiers: tuple[str, ...] = Field((), max_length=9)
    tank_weight: Literal["leggero", "medio", "pesante"] = "medio"


def resolve_vehicle_move(data: VehicleMoveInput, tray: DiceTray) -> Resolution:
    """MOVIMENTO VEICOLI with its modifiers; crushing an obstacle with tracks rolls 1d10."""
    tables = load_tables()
    table = tables["movimento_veicoli"]
    mods_table = tables["modificatori_movimento_veicoli"]
    _modifier_row_ids(mods_table, data.modifiers)
    row = table.row_by_id(data.vehicle)
    column = "su_strada" if data.road else "fuori_strada"
    base: int = tables.parsed(table, row, table.column(column))
    builder = ResolutionBuilder(K, "vehicle_move", tray)
    for name in data.modifiers:
        only = mods_table.row_by_id(name).data.get("only")
        tank = bool(row.data.get("tank"))
        if (only == "tanks" and not tank) or (
            only == "medium_heavy_tanks" and (not tank or data.tank_weight == "leggero")
        ):
            outcome = Outcome.of(f"{K}.move.not_for_this_vehicle", modifier=name)
            builder.step(f"{K}.step.vehicle_move", table=read(table, row, column), outcome=outcome)
            return builder.finish(outcome)
    allowance, whole_turn, impassable, mods = _allowance(mods_table, base, data.modifiers)
    distance = math.ceil(data.distance_cm)
    if impassable:
        outcome = Outcome.of(f"{K}.move.impassable")
    elif whole_turn and distance > 0:
        outcome = Outcome.of(f"{K}.move.whole_turn_only", cm=distance)
    elif distance > allowance:
        outcome = Outcome.of(f"{K}.move.too_far", allowance=allowance, cm=distance)
    elif whole_turn:
        outcome = Outcome.of(f"{K}.move.whole_turn")
    else:
        outcome = Outcome.of(f"{K}.move.ok", allowance=allowance, cm=distance)
    builder.step(
        f"{K}.step.vehicle_move",
        modifiers=tuple(mods),
        total=distance,
        threshold=Threshold(Comparison.AT_MOST, allowance, f"{K}.threshold.cm"),
        table=read(table, row, column),
        outcome=outcome,
    )
    crushing = any(mods_table.row_by_id(n).data.get("mobility_check") for n in data.modifiers)
    if outcome.key != f"{K}.move.ok" or not crushing or not row.data.get("tracked"):
        return builder.finish(outcome)
    test = mods_table.data["mobility_test"]
    limit = int(test["pass_at_most"])
    roll = tray.roll_against(D10, "Mobility after crushing — d10", limit)
    passed = roll.face <= limit
    check = Outcome.of(f"{K}.move.mobility_ok" if passed else f"{K}.move.mobility_damaged")
    builder.step(
        f"{K}.step.mobility",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, limit, f"{K}.threshold.chance"),
        outcome=check,
    )
    if not passed:
        builder.effect(EffectKind.DAMAGE, str(test["fail_status"]))
        return builder.finish(Outcome.of(f"{K}.move.ok_damaged", allowance=allowance, cm=distance))
    return builder.finish(outcome)


def foot_allowance(pace: Pace, modifiers: tuple[str, ...], ran_last_turn: bool) -> int | None:
    """The farthest a foot move may go (cm), as ``resolve_foot_move`` accepts it; None when
    the move is not allowed (running twice) — the legal-action listing's range."""
    tables = load_tables()
    table = tables["movimento_fanteria"]
    row = table.row_by_id(pace.value)
    if row.data.get("not_consecutive") and ran_last_turn:
        return None
    base: int = tables.parsed(table, row, table.column("distanza"))
    allowance, _, _, _ = _allowance(tables["modificatori_movimento_fanteria"], base, modifiers)
    return allowance


def vehicle_allowance(vehicle: VehicleRow, road: bool, modifiers: tuple[str, ...]) -> int | None:
    """The farthest a vehicle move may go (cm) with automatic modifiers only (no crushing);
    None when impassable — the legal-action listing's range."""
    tables = load_tables()
    table = tables["movimento_veicoli"]
    row = table.row_by_id(vehicle)
    column = "su_strada" if road else "fuori_strada"
    base: int = tables.parsed(table, row, table.column(column))
    allowance, _, impassable, _ = _allowance(
        tables["modificatori_movimento_veicoli"], base, modifiers
    )
    return None if impassable else allowance
