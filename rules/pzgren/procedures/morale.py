"""The morale check of rule 14.1 — NOT IN THE SEED (the seed cites the rule without it).

2D6 + the # of an M# result (+ a referee's modifier) against the unit's morale rating: at or
below passes. The outcome is read from the ``moral`` table (data, marked not_in_seed), the
column being the unit's state before the check. A rally (also not in the seed) is the same
roll: passing improves the unit one state, as the table's ``rally`` data says.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from pydantic import Field

from rules.core.dice import DiceTray
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.core.tables import Row
from rules.pzgren.cells import MoraleResult
from rules.pzgren.model import ID_PATTERN, RULESET_KEY, Frozen, MoraleState
from rules.pzgren.procedures.fire import roll_2d6
from rules.pzgren.tables import load_tables


class MoraleInput(Frozen):
    """One unit's morale check (or rally attempt)."""

    morale: int = Field(ge=0, le=20, description="the unit's morale rating")
    n: int = Field(0, ge=0, le=9, description="the # of an M# result (M is 0)")
    status: MoraleState = MoraleState.GOOD_ORDER
    modifier: int = Field(0, ge=-6, le=6, description="a modifier granted by the referee")
    rally: bool = Field(False, description="a rally attempt instead of a check")
    target: str | None = Field(None, pattern=ID_PATTERN)


def resolve_morale(data: MoraleInput, tray: DiceTray) -> Resolution:
    """2D6 + # (not in the seed: rule 14.1): at or below morale passes; the table says the rest."""
    tables = load_tables()
    table = tables["moral"]
    rule: dict[str, Any] = table.data
    modifiers: list[Modifier] = []
    n = int(rule["rally"]["modifier"]) if data.rally else data.n
    if n:
        modifiers.append(Modifier("pzgren.mod.morale_n", n))
    if data.modifier:
        modifiers.append(Modifier("pzgren.mod.referee", data.modifier))
    shift = sum(m.value for m in modifiers)
    comparison = Comparison(str(rule["comparison"]))
    threshold = Threshold(comparison, data.morale, "pzgren.threshold.morale")
    lowest = table.axis_bands("marge")[0][0]

    def margin_row(total: int) -> Row:
        margin = total - data.morale
        return table.row_for("marge", max(margin, lowest.low if lowest else margin))

    def reading(dice: int) -> Hashable:
        # What the rules read of the dice: passed or not, and (no rally) the margin's row.
        total = dice + shift
        row = None if data.rally else table.rows.index(margin_row(total))
        return threshold.passed(total), row

    first, second = roll_2d6(tray, "Moral", reading)
    total = first.face + second.face + shift
    passed = threshold.passed(total)
    builder = ResolutionBuilder(RULESET_KEY, "morale", tray)
    read: TableRead | None = None
    if data.rally:
        improved = rule["rally"]["on_pass"].get(data.status.value) if passed else None
        new = MoraleState(improved) if improved else data.status
        outcome = Outcome.of(
            "pzgren.morale.rallied" if passed else "pzgren.morale.not_rallied", status=new.value
        )
        steps = 0
    else:
        row = margin_row(total)
        column = table.column(data.status.value)
        result: MoraleResult = tables.parsed(table, row, column)
        new = result.status or data.status
        steps = result.steps
        read = TableRead(
            table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
        )
        outcome = Outcome.of(
            "pzgren.morale.passed" if passed else "pzgren.morale.failed",
            status=new.value,
            n=steps or None,
        )
    if new is not data.status:
        builder.effect(EffectKind.STATUS, new.value, target=data.target)
    if steps:
        builder.effect(EffectKind.DAMAGE, "step_loss", target=data.target, amount=steps)
    builder.step(
        "pzgren.step.morale",
        rolls=(first, second),
        modifiers=tuple(modifiers),
        total=total,
        threshold=threshold,
        table=read,
        outcome=outcome,
        check="M" if n == 0 else f"M{n}",
    )
    return builder.finish(outcome)
