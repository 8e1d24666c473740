"""pzgren fire procedures: the direct-fire table (with its column shifts) and anti-tank fire."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import lru_cache
from typing import Literal

from pydantic import Field, model_validator

from rules.core.caches import BoundedCache
from rules.core.dice import D6, DiceTray, Roll
from rules.core.procedures import ODDS_CACHE_CLEARERS
from rules.core.resolution import (
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
)
from rules.core.tables import Row, Table
from rules.core.words import LocalizedName, joined
from rules.pzgren.cells import AntiTankResult, FireResult
from rules.pzgren.model import ID_PATTERN, RULESET_KEY, Armour, Category, Frozen
from rules.pzgren.tables import load_tables

MAX_FIRE_VALUE = 999
MAX_TARGET_UNITS = 12


def roll_2d6(
    tray: DiceTray, what: str, read: Callable[[int], Hashable] | None = None
) -> tuple[Roll, Roll]:
    """Two D6, labelled for the dice prompts ("Tir direct — D6 n°1"), read only as their
    sum (through ``read``, a table's row, when given): the odds branch on that."""
    first, second = tray.roll_sum(D6, (f"{what} — D6 n°1", f"{what} — D6 n°2"), read)
    return first, second


def _check_keys(table: Table, keys: Iterable[str], scopes: set[str] | None, where: str) -> None:
    seen: set[str] = set()
    known = {row.id for row in table.rows}
    for key in keys:
        if key not in known:
            raise ValueError(
                f"{where}: unknown modifier {key!r}; known: {sorted(k for k in known if k)}"
            )
        if key in seen:
            raise ValueError(f"{where}: modifier {key!r} given twice")
        seen.add(key)
        row = table.row_by_id(key)
        if scopes is not None and row.data.get("scope") not in scopes:
            raise ValueError(f"{where}: modifier {key!r} does not apply here")
        for excluded in row.data.get("excludes", ()):
            if excluded in seen or excluded in keys:
                raise ValueError(f"{where}: {key!r} replaces {excluded!r}; give one of them")


@lru_cache(maxsize=64)  # by table id: a handful
def _modifier_rows(table_id: str) -> tuple[dict[str, int], dict[str, int]]:
    """A modifier table's values (read from its 'valeur' cells) and its row order."""
    tables = load_tables()
    table = tables[table_id]
    column = table.column("valeur")
    values = {row.id or "": int(tables.parsed(table, row, column)) for row in table.rows}
    order = {row.id or "": index for index, row in enumerate(table.rows)}
    return values, order


def modifier_value(table: Table, key: str) -> int:
    """The signed shift of one modifier row, read from its 'valeur' cell."""
    return _modifier_rows(table.id)[0][key]


def _ordered(table: Table, keys: Iterable[str]) -> list[str]:
    order = _modifier_rows(table.id)[1]
    return sorted(set(keys), key=lambda key: order[key])


# -- TABLE DE TIR DIRECT ----------------------------------------------------------------------


class TargetUnit(Frozen):
    """A unit in the target hex, as the direct-fire results need it."""

    id: str = Field(pattern=ID_PATTERN)
    #: Its name, in its languages: the outcome names it to its reader (its id without one).
    name: LocalizedName | None = None
    category: Category = Category.COMBAT
    armour: Armour = Field(Armour.NONE, description="none: no armour value; AFV closed/open top")
    modifiers: tuple[str, ...] = Field(
        (), max_length=4, description="column modifiers of this unit only (scope unit)"
    )


class DirectFireInput(Frozen):
    """Direct fire at one hex: the attack's fire value, its column modifiers, the units hit."""

    fire_value: int = Field(ge=1, le=MAX_FIRE_VALUE, description="sum of the firers' values")
    modifiers: tuple[str, ...] = Field(
        (), max_length=17, description="modifier ids of MODIFICATEURS DE COLONNE for every unit"
    )
    units: tuple[TargetUnit, ...] = Field(
        (), max_length=MAX_TARGET_UNITS, description="the units in the target hex (may be empty)"
    )
    hex: str | None = Field(None, max_length=12, description="the target hex, for effects")

    @model_validator(mode="after")
    def _check(self) -> DirectFireInput:
        table = load_tables()["modificateurs_colonne"]
        _check_keys(table, self.modifiers, None, "modifiers")
        ids = [unit.id for unit in self.units]
        if len(ids) != len(set(ids)):
            raise ValueError("a unit is listed twice")
        for unit in self.units:
            _check_keys(table, unit.modifiers, {"unit"}, f"unit {unit.id}")
            clash = set(unit.modifiers) & set(self.modifiers)
            if clash:
                raise ValueError(f"unit {unit.id}: {sorted(clash)} already given for every unit")
        return self


def _groups(data: DirectFireInput) -> list[tuple[tuple[str, ...], tuple[TargetUnit, ...]]]:
    """Units sharing the same unit-only modifiers share a column (rule 7.51, via the seed)."""
    if not data.units:
        return [((), ())]
    order = _modifier_rows("modificateurs_colonne")[1]
    groups: dict[tuple[str, ...], list[TargetUnit]] = {}
    for unit in data.units:
        key = tuple(sorted(unit.modifiers, key=lambda k: order[k]))
        groups.setdefault(key, []).append(unit)
    ranked = sorted(groups, key=lambda keys: (len(keys), [order[k] for k in keys]))
    return [(keys, tuple(groups[keys])) for keys in ranked]


_COLUMNS: BoundedCache[
    DirectFireInput, list[tuple[tuple[TargetUnit, ...], tuple[Modifier, ...], int]]
] = BoundedCache(256, name="pzgren fire columns")


def _columns(
    data: DirectFireInput,
) -> list[tuple[tuple[TargetUnit, ...], tuple[Modifier, ...], int]]:
    """Each group of units with its column modifiers and capped shift: no die changes them,
    so the odds' paths (one per row) share them, memoised by the input."""
    found = _COLUMNS.get(data)
    if found is None:
        shifts = load_tables()["modificateurs_colonne"]
        cap: dict[str, int] = shifts.data["cap"]
        found = []
        for unit_keys, units in _groups(data):
            keys = _ordered(shifts, (*data.modifiers, *unit_keys))
            modifiers, shift = _shift_modifiers(shifts, keys, cap)
            found.append((units, modifiers, shift))
        _COLUMNS.put(data, found)
    return found


ODDS_CACHE_CLEARERS.append(_COLUMNS.clear)


def _shift_modifiers(
    table: Table, keys: Iterable[str], cap: dict[str, int]
) -> tuple[tuple[Modifier, ...], int]:
    modifiers = [Modifier(f"pzgren.mod.{key}", modifier_value(table, key)) for key in keys]
    raw = sum(m.value for m in modifiers)
    shift = max(int(cap["min"]), min(int(cap["max"]), raw))
    if shift != raw:
        modifiers.append(Modifier("pzgren.mod.cap", shift - raw))
    return tuple(modifiers), shift


def _direct_effects(
    builder: ResolutionBuilder,
    table: Table,
    result: FireResult,
    units: tuple[TargetUnit, ...],
    hex_label: str | None,
) -> None:
    """What a result does to the units of its column (the legend of TABLE DE TIR DIRECT)."""
    if result.kind == "morale":
        skip_armoured = bool(table.data.get("morale_result_skips_armoured", True))
        key = "M" if result.n == 0 else f"M{result.n}"
        for unit in units:
            if skip_armoured and unit.armour is not Armour.NONE:
                continue
            builder.effect(EffectKind.TEST_OWED, key, target=unit.id, n=result.n)
    elif result.kind == "steps":
        rule = table.data["x_result"]
        categories = {
            Category.COMBAT: [
                u for u in units if u.category is Category.COMBAT and u.armour is not Armour.CLOSED
            ],
            Category.TRANSPORT: [u for u in units if u.category is Category.TRANSPORT],
        }
        for category, members in categories.items():
            if not members:
                continue  # "Les pas de perte concernant des catégories absentes sont ignorés."
            open_top = [u.id for u in members if u.armour is Armour.OPEN]
            needs_open = result.n >= int(rule["open_top_from_steps"]) and bool(open_top)
            builder.effect(
                EffectKind.DAMAGE,
                f"steps_{category.value}_{result.n}",
                target=hex_label,
                amount=result.n,
                category=category.value,
                units=",".join(u.id for u in members),
                open_top=",".join(open_top) if needs_open else None,
            )
        for unit in units:
            n = int(rule["closed_top_morale" if unit.armour is Armour.CLOSED else "others_morale"])
            builder.effect(EffectKind.TEST_OWED, "M" if n == 0 else f"M{n}", target=unit.id, n=n)


def _spared_by_armour(
    table: Table, result: FireResult, units: tuple[TargetUnit, ...]
) -> list[TargetUnit]:
    """The units an M result does not touch: those with an armour value (the M legend)."""
    if result.kind != "morale" or not table.data.get("morale_result_skips_armoured", True):
        return []
    return [unit for unit in units if unit.armour is not Armour.NONE]


def resolve_direct_fire(data: DirectFireInput, tray: DiceTray) -> Resolution:
    """2D6 on TABLE DE TIR DIRECT: fire value → column, shifted (capped −2/+3), per unit type."""
    tables = load_tables()
    table = tables["tir_direct"]
    builder = ResolutionBuilder(RULESET_KEY, "direct_fire", tray)
    first, second = roll_2d6(
        tray, "Tir direct", lambda total: table.rows.index(table.row_for("jet", total))
    )
    roll = first.face + second.face
    row = table.row_for("jet", roll)
    base = table.column_for(data.fire_value)
    base_index = next(i for i, column in enumerate(table.columns) if column is base)
    builder.step(
        "pzgren.step.direct_roll",
        rolls=(first, second),
        total=roll,
        fire=data.fire_value,
        column=base.label,
    )
    parts: list[str] = []
    groups = _columns(data)
    for units, modifiers, shift in groups:
        index = max(0, min(len(table.columns) - 1, base_index + shift))
        column = table.columns[index]
        result: FireResult = tables.parsed(table, row, column)
        spared = _spared_by_armour(table, result, units)
        names = joined(unit.name or unit.id for unit in units if unit not in spared)
        spared_names = joined(unit.name or unit.id for unit in spared)
        if spared:
            # "M : toutes les unités sans valeur de blindage": armoured units are not named
            # as checking morale; the step says the result spares them.
            key = "pzgren.direct.cell_units_spared" if names else "pzgren.direct.cell_spared"
            outcome = Outcome.of(key, cell=result.code, units=names, spared=spared_names)
        elif names:
            outcome = Outcome.of("pzgren.direct.cell_units", cell=result.code, units=names)
        else:
            outcome = Outcome.of("pzgren.direct.cell", cell=result.code)
        builder.step(
            "pzgren.step.column",
            modifiers=modifiers,
            total=shift,
            table=TableRead(
                table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
            ),
            outcome=outcome,
            base=base.label,
            column=column.label,
        )
        _direct_effects(builder, table, result, units, data.hex)
        code = result.code if names or not spared else "-"
        label = names or spared_names
        parts.append(f"{label}: {code}" if label and len(groups) > 1 else code)
    return builder.finish(Outcome.of("pzgren.direct.result", result=" · ".join(parts)))


# -- TABLE DE TIR ANTI-CHARS ------------------------------------------------------------------


class AntiTankInput(Frozen):
    """Anti-tank fire at one armoured unit (or a truck, armour -1)."""

    at_value: int = Field(ge=0, le=30, description="the attacker's anti-tank value")
    target_kind: Literal["afv", "truck"] = "afv"
    armour: int | None = Field(None, ge=0, le=30, description="the AFV's armour value")
    modifiers: tuple[str, ...] = Field(
        (), max_length=8, description="modifier ids of MODIFICATEURS DE TIR ANTI-CHARS"
    )
    steps: int = Field(1, ge=1, le=10, description="steps the target has left")
    target: str | None = Field(None, pattern=ID_PATTERN)

    @model_validator(mode="after")
    def _check(self) -> AntiTankInput:
        if self.target_kind == "afv" and self.armour is None:
            raise ValueError("an AFV target needs its armour value")
        if self.target_kind == "truck" and self.armour is not None:
            raise ValueError("a truck has armour -1 from the table: give no armour")
        _check_keys(load_tables()["modificateurs_antichars"], self.modifiers, None, "modifiers")
        return self


def resolve_anti_tank(data: AntiTankInput, tray: DiceTray) -> Resolution:
    """2D6 + AT value − armour + modifiers on TABLE DE TIR ANTI-CHARS."""
    tables = load_tables()
    table = tables["tir_antichars"]
    mods_table = tables["modificateurs_antichars"]
    armour = int(table.data["truck_armour"]) if data.target_kind == "truck" else data.armour or 0
    lowest = table.axis_bands("resultat")[0][0]

    def row_of(total: int) -> Row:
        return table.row_for("resultat", max(total, lowest.low if lowest is not None else total))

    shift = (
        data.at_value
        - armour
        + sum(modifier_value(mods_table, key) for key in _ordered(mods_table, data.modifiers))
    )
    first, second = roll_2d6(
        tray, "Tir anti-chars", lambda dice: table.rows.index(row_of(dice + shift))
    )
    modifiers = [
        Modifier("pzgren.mod.at_value", data.at_value),
        Modifier(
            "pzgren.mod.truck_armour" if data.target_kind == "truck" else "pzgren.mod.armour",
            -armour,
        ),
    ]
    modifiers += [
        Modifier(f"pzgren.atmod.{key}", modifier_value(mods_table, key))
        for key in _ordered(mods_table, data.modifiers)
    ]
    total = first.face + second.face + sum(m.value for m in modifiers)
    row = row_of(total)
    column = table.column("effet")
    result: AntiTankResult = tables.parsed(table, row, column)
    builder = ResolutionBuilder(RULESET_KEY, "anti_tank", tray)
    if result.kind == "none":
        outcome = Outcome.of("pzgren.at.no_effect")
    elif result.kind == "step" and data.steps > 1:
        outcome = Outcome.of("pzgren.at.step_lost", left=data.steps - 1)
        builder.effect(EffectKind.DAMAGE, "step_loss", target=data.target, amount=1)
        morale = result.morale or 0
        builder.effect(
            EffectKind.TEST_OWED, "M" if morale == 0 else f"M{morale}", target=data.target, n=morale
        )
    elif result.kind == "step":
        outcome = Outcome.of("pzgren.at.last_step")
        builder.effect(EffectKind.STATUS, "eliminated", target=data.target)
    else:
        outcome = Outcome.of("pzgren.at.eliminated")
        builder.effect(EffectKind.STATUS, "eliminated", target=data.target)
    builder.step(
        "pzgren.step.anti_tank",
        rolls=(first, second),
        modifiers=tuple(modifiers),
        total=total,
        table=TableRead(
            table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
        ),
        outcome=outcome,
    )
    return builder.finish(outcome)
