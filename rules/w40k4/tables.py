"""Loading w40k4's tables, with every cell parsed once at load time."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from rules.core.tables import CellParser, Column, Row, Table, TableSet
from rules.w40k4.model import (
    Allowance,
    Damage,
    DangerRule,
    parse_score,
    vocabulary,
)

TABLES_DIR = Path(__file__).resolve().parent / "tables"


def _score(_table: Table, _row: Row, _column: Column, text: str) -> int | None:
    return parse_score(text)


def _word(section: str) -> CellParser:
    def parse(_table: Table, _row: Row, _column: Column, text: str) -> Any:
        words = vocabulary()[section]
        if text not in words:
            raise ValueError(f"{text!r} is not in the {section} vocabulary")
        return words[text]

    return parse


def _terrain(table: Table, row: Row, column: Column, text: str) -> Any:
    if column.key == "rallentate":
        return bool(_word("slowed")(table, row, column, text))
    return DangerRule(_word("dangerous")(table, row, column, text))


def _vehicle_fire(table: Table, row: Row, column: Column, text: str) -> Allowance:
    return Allowance(_word("vehicle_fire")(table, row, column, text))


def _damage(table: Table, row: Row, column: Column, text: str) -> Any:
    if column.key == "effetto":
        effect = Damage(_word("vehicle_damage")(table, row, column, text))
        if row.data.get("effect") != effect.value:
            raise ValueError(f"row data effect {row.data.get('effect')!r} != {effect.value!r}")
        return effect
    if column.key == "valore":
        if not text:
            return None
        value = int(text)
        if row.data.get("modifier", {}).get("value") != value:
            raise ValueError(f"row data modifier does not match {text!r}")
        return value
    return text or None


def _reserves(_table: Table, row: Row, _column: Column, text: str) -> int | str | None:
    if text == "auto.":
        return "auto"
    score = parse_score(text)
    if score != row.data.get("score"):
        raise ValueError(f"row data score {row.data.get('score')!r} != {text!r}")
    return score


def _cover(_table: Table, row: Row, _column: Column, text: str) -> int | None:
    score = parse_score(text)
    if score != row.data.get("save"):
        raise ValueError(f"row data save {row.data.get('save')!r} != {text!r}")
    return score


PARSERS: dict[str, CellParser] = {
    "tiri_per_colpire": _score,
    "tiri_per_ferire": _score,
    "tiri_armatura": _score,
    "corpo_a_corpo": _score,
    "tiri_copertura": _cover,
    "tiri_riserve": _reserves,
    "terreni_accidentati": _terrain,
    "movimento_tiro_veicoli": _vehicle_fire,
    "danni_veicoli": _damage,
}


@cache
def load_tables() -> TableSet:
    """Every w40k4 table, validated and with its cells parsed (loaded once)."""
    return TableSet.load(TABLES_DIR, PARSERS)
