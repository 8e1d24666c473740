"""Loading pzgren's tables, with every result cell parsed once at load time."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rules.core.tables import CellParser, TableSet
from rules.pzgren.cells import (
    parse_at_cell,
    parse_direct_cell,
    parse_modifier_cell,
    parse_morale_cell,
)

TABLES_DIR = Path(__file__).resolve().parent / "tables"

PARSERS: dict[str, CellParser] = {
    "tir_direct": parse_direct_cell,
    "tir_antichars": parse_at_cell,
    "moral": parse_morale_cell,
    "modificateurs_colonne": parse_modifier_cell,
    "modificateurs_antichars": parse_modifier_cell,
}


@cache
def load_tables() -> TableSet:
    """Every pzgren table, validated and with its cells parsed (loaded once)."""
    return TableSet.load(TABLES_DIR, PARSERS)
