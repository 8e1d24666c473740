"""Loading linea_gotica's tables, with their cells read once at load time."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rules.core.tables import CellParser, TableSet
from rules.linea_gotica.model import (
    action_chance_cell,
    chance_modifier_cell,
    cm_cell,
    he_deviation_cell,
    indirect_deviation_cell,
    int_cell,
    level_cell,
    mine_spotting_cell,
    movement_modifier_cell,
    weapon_cell,
)

TABLES_DIR = Path(__file__).resolve().parent / "tables"

PARSERS: dict[str, CellParser] = {
    "qualita": int_cell,
    "distanze_comando": cm_cell,
    "movimento_fanteria": cm_cell,
    "modificatori_movimento_fanteria": movement_modifier_cell,
    "movimento_veicoli": cm_cell,
    "modificatori_movimento_veicoli": movement_modifier_cell,
    "armi_tiro_diretto": weapon_cell,
    "modificatori_tiro": chance_modifier_cell,
    "deviazione_he": he_deviation_cell,
    "deviazione_preciso": indirect_deviation_cell,
    "deviazione_impreciso": indirect_deviation_cell,
    "area_he": cm_cell,
    "probabilita_he": int_cell,
    "penetrazione": int_cell,
    "modificatori_penetrazione": chance_modifier_cell,
    "modificatori_morale": chance_modifier_cell,
    "osservazione": level_cell,
    "azioni": action_chance_cell,
    "antiaereo": int_cell,
    "cecchini": chance_modifier_cell,
    "individuazione_mine": mine_spotting_cell,
}


@cache
def load_tables() -> TableSet:
    """Every linea_gotica table, validated and with its cells read (loaded once)."""
    return TableSet.load(TABLES_DIR, PARSERS)
