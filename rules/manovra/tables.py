"""Loading manovra's tables, with every result cell parsed once at load time."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rules.core.tables import CellParser, TableSet
from rules.manovra.cells import parse_effect_cell
from rules.manovra.model import parse_distance_cell, parse_int_cell, parse_movement_cell

TABLES_DIR = Path(__file__).resolve().parent / "tables"

PARSERS: dict[str, CellParser] = {
    "campo_minato": parse_effect_cell,
    "effetti_armi_pesanti": parse_effect_cell,
    "effetti_edifici": parse_effect_cell,
    "effetti_incendiarie": parse_effect_cell,
    "fuoco_leggere_veicoli": parse_effect_cell,
    "tiro_armi_pesanti": parse_effect_cell,
    "fuoco_leggere_fanteria": parse_int_cell,
    "penetrazione": parse_int_cell,
    "tipi_terreno": parse_movement_cell,
    "osservazione": parse_distance_cell,
}


@cache
def load_tables() -> TableSet:
    """Every manovra table, validated and with its cells parsed (loaded once)."""
    return TableSet.load(TABLES_DIR, PARSERS)
