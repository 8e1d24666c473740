"""Reading w40k4's tables: every rule value the procedures and the game need comes from here."""

from __future__ import annotations

from typing import Any

from rules.core.errors import UnknownName
from rules.core.resolution import TableRead
from rules.core.tables import Column, Row, Table
from rules.w40k4.model import Allowance, DangerRule, Speed, Terrain, terrain_class
from rules.w40k4.tables import load_tables


def read(table: Table, row: Row, column: Column | str) -> TableRead:
    """The citation of one cell."""
    col = table.column(column) if isinstance(column, str) else column
    return TableRead(table.id, table.title, table.row_label(row), col.label, table.cell(row, col))


def cite(table_id: str, row_id: str, column: str | None = None) -> TableRead:
    """The citation of a row (its first column unless ``column`` is given)."""
    table = load_tables()[table_id]
    row = table.row_by_id(row_id)
    return read(table, row, column or table.columns[0].key)


def standard(rule_id: str) -> dict[str, Any]:
    """The data of one line of meccaniche_standard (not in the seed)."""
    data: dict[str, Any] = load_tables()["meccaniche_standard"].row_by_id(rule_id).data
    return data


def to_hit_score(bs: int) -> tuple[int, TableRead]:
    """TIRI PER COLPIRE: the D6 score to hit for a Ballistic Skill (≥ 6: not in the seed)."""
    tables = load_tables()
    table = tables["tiri_per_colpire"]
    beyond = table.data["bs_beyond_table"]
    if bs >= int(beyond["from"]):
        last = table.rows[-1]
        cite_row = read(table, last, "d6")
        return int(beyond["score"]), TableRead(
            table.id, table.title, f"{bs} (≥ {beyond['from']})", cite_row.column, cite_row.cell
        )
    row = table.row_for("ab", bs)
    score = tables.parsed(table, row, table.column("d6"))
    return int(score), read(table, row, "d6")


def ws_score(ws: int, target_ws: int) -> tuple[int, TableRead]:
    """The close-combat to-hit score (corpo_a_corpo, not in the seed)."""
    tables = load_tables()
    table = tables["corpo_a_corpo"]
    row = table.row_for("ac", ws)
    column = table.column_for(target_ws, "difensore")
    return int(tables.parsed(table, row, column)), read(table, row, column)


def wound_score(strength: int, toughness: int) -> tuple[int | None, TableRead]:
    """tiri_per_ferire (not in the seed): the score to wound, None if it cannot wound."""
    tables = load_tables()
    table = tables["tiri_per_ferire"]
    row = table.row_for("f", strength)
    column = table.column_for(toughness, "resistenza")
    score: int | None = tables.parsed(table, row, column)
    return score, read(table, row, column)


def instant_death(strength: int, toughness: int) -> bool:
    """Whether an unsaved wound removes a whole model (Strength ≥ double Toughness)."""
    factor = int(load_tables()["tiri_per_ferire"].data["instant_death_factor"])
    return strength >= factor * toughness


def armour_save(ap: int | None, save: int) -> tuple[int | None, TableRead]:
    """tiri_armatura (not in the seed): the armour save left against a weapon's AP."""
    tables = load_tables()
    table = tables["tiri_armatura"]
    row = table.row_by_id("ap_none" if ap is None else f"ap{ap}")
    column = table.column(f"sv{save}")
    score: int | None = tables.parsed(table, row, column)
    return score, read(table, row, column)


def cover_row(name: str) -> Row:
    """The TIRI COPERTURA row for a cover id or one of its aliases."""
    table = load_tables()["tiri_copertura"]
    wanted = name.strip().lower()
    for row in table.rows:
        if row.id == wanted or wanted in [str(a) for a in row.data.get("aliases", [])]:
            return row
    raise UnknownName("error.w40k4.unknown_cover", name=name[:40], known=", ".join(cover_names()))


def cover_names() -> list[str]:
    """Every cover id and alias, 'nessuna' first."""
    table = load_tables()["tiri_copertura"]
    names = ["nessuna"]
    for row in table.rows:
        names.append(row.id or "")
        names += [str(a) for a in row.data.get("aliases", []) if a != row.id]
    return names


def cover_save(name: str | None) -> tuple[int | None, TableRead | None, str | None]:
    """The cover save of a cover (None / 'nessuna': no cover): score, citation, row id."""
    if name is None or name.strip().lower() in ("nessuna", "none", ""):
        return None, None, None
    tables = load_tables()
    table = tables["tiri_copertura"]
    row = cover_row(name)
    score: int | None = tables.parsed(table, row, table.column("ts"))
    return score, read(table, row, "ts"), row.id


def terrain_rules(unit_type: str) -> tuple[bool, DangerRule, Row]:
    """TERRENI ACCIDENTATI for a unit type: slowed?, the dangerous-terrain rule, the row."""
    tables = load_tables()
    table = tables["terreni_accidentati"]
    try:
        row = table.row_by_id(unit_type)
    except UnknownName:
        raise UnknownName("error.w40k4.unknown_unit_type", name=unit_type[:40]) from None
    slowed: bool = tables.parsed(table, row, table.column("rallentate"))
    danger: DangerRule = tables.parsed(table, row, table.column("pericoloso"))
    return slowed, danger, row


def vehicle_row(fast: bool, walker: bool) -> str:
    """The MOVIMENTO E TIRO DEI VEICOLI row of a vehicle."""
    if walker:
        return "camminatori"
    return "veloci" if fast else "tutti"


def vehicle_allowance(row_id: str, speed: Speed) -> tuple[Allowance, TableRead]:
    """What a vehicle of a row may fire at a speed."""
    tables = load_tables()
    table = tables["movimento_tiro_veicoli"]
    row = table.row_by_id(row_id)
    column = table.column(speed.value)
    allowance: Allowance = tables.parsed(table, row, column)
    return allowance, read(table, row, column)


def vehicle_speed(inches: float, row_id: str) -> Speed | None:
    """The speed of a vehicle that moved ``inches`` (None: faster than it may go)."""
    limits = standard("velocita_veicoli")
    for speed in Speed:
        if inches <= float(limits[speed.value]):
            allowance, _ = vehicle_allowance(row_id, speed)
            return None if allowance is Allowance.NOT_ALLOWED else speed
    return None


def weapon_rules(weapon_type: str) -> dict[str, Any]:
    """The data of a RIASSUNTO DEI VARI TIPI DI ARMI row."""
    data: dict[str, Any] = load_tables()["tipi_armi"].row_by_id(weapon_type).data
    return data


def template_rules(template: str) -> dict[str, Any]:
    """The data of an ALTRI TIPI DI ARMI COMUNI row."""
    data: dict[str, Any] = load_tables()["altri_tipi_armi"].row_by_id(template).data
    return data


def terrain_cover(terrain: str) -> str | None:
    """The TIRI COPERTURA row a battlefield terrain class gives (None: no cover)."""
    found = terrain_class(terrain)
    if found is None:
        raise UnknownName("error.w40k4.unknown_terrain", name=terrain[:40])
    return cover_save(found["cover"])[2]


def terrain_move(terrain: str) -> Terrain:
    """How a move through a battlefield terrain class counts (open, difficult, dangerous)."""
    found = terrain_class(terrain)
    if found is None:
        raise UnknownName("error.w40k4.unknown_terrain", name=terrain[:40])
    return Terrain(found["move"])
