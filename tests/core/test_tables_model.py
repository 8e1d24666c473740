"""The Table model: what a table file may and may not say, and the lookups on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rules.core.errors import RulesError, TableDataError, UnknownName
from rules.core.tables import OPEN, Band, Table, TableSet, load_table, parse_band, split_aliases


def _base() -> dict[str, Any]:
    """A small valid table: a D6 axis, three columns, four rows."""
    return {
        "id": "toy",
        "title": "TOY",
        "seed": "000_test.txt",
        "seed_table": "TOY",
        "row_axes": [{"key": "d6", "label": "D6", "kind": "range"}],
        "columns": [
            {"key": "a", "label": "A"},
            {"key": "b", "label": "B"},
            {"key": "c", "label": "C"},
        ],
        "rows": [
            {"keys": {"d6": "1-2"}, "cells": ["1", "2", "3"]},
            {"keys": {"d6": "3"}, "cells": ["4", "5", "6"]},
            {"keys": {"d6": "4-5"}, "cells": ["7", "8", "9"]},
            {"keys": {"d6": "+"}, "cells": ["10", "11", "12"]},
        ],
        "cell_pattern": r"\d+",
    }


def _write(tmp_path: Path, data: Any, name: str = "toy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _rejected(tmp_path: Path, data: Any) -> TableDataError:
    with pytest.raises(TableDataError) as caught:
        load_table(_write(tmp_path, data))
    error = caught.value
    assert isinstance(error, RulesError)
    assert error.key == "error.table.invalid"
    assert error.params["file"] == "toy.yaml"
    return error


def test_the_base_table_loads(tmp_path: Path):
    table = load_table(_write(tmp_path, _base()))
    assert table.id == "toy"
    assert [row.cells[0] for row in table.rows] == ["1", "4", "7", "10"]


# -- rejections ------------------------------------------------------------------------------


def test_rejects_a_gap_between_bands(tmp_path: Path):
    data = _base()
    data["rows"][1]["keys"]["d6"] = "4"  # 1-2 then 4: 3 is missing
    data["rows"][2]["keys"]["d6"] = "5"
    assert "gap" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_overlapping_bands(tmp_path: Path):
    data = _base()
    data["rows"][1]["keys"]["d6"] = "2-3"
    assert "overlaps" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_a_backwards_band(tmp_path: Path):
    data = _base()
    data["rows"][2]["keys"]["d6"] = "5-4"
    assert "backwards" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_an_open_band_with_nothing_before_it(tmp_path: Path):
    data = _base()
    data["rows"] = [{"keys": {"d6": "+"}, "cells": ["1", "2", "3"]}]
    assert "open band" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_a_gt_band_that_does_not_follow(tmp_path: Path):
    data = _base()
    data["rows"][3]["keys"]["d6"] = ">7"
    assert "does not follow" in str(_rejected(tmp_path, data).params["detail"])


@pytest.mark.parametrize("cells", [["1", "2"], ["1", "2", "3", "4"], []])
def test_rejects_a_cell_count_different_from_the_columns(tmp_path: Path, cells: list[str]):
    data = _base()
    data["rows"][0]["cells"] = cells
    detail = str(_rejected(tmp_path, data).params["detail"])
    assert f"{len(cells)} cells for 3 columns" in detail


@pytest.mark.parametrize(
    "keys", [{"d8": "1-2"}, {"d6": "1-2", "d8": "1"}, {}], ids=["renamed", "extra", "none"]
)
def test_rejects_row_keys_that_are_not_the_axes(tmp_path: Path, keys: dict[str, str]):
    data = _base()
    data["rows"][0]["keys"] = keys
    assert "axes" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_a_cell_not_matching_the_cell_pattern(tmp_path: Path):
    data = _base()
    data["rows"][2]["cells"][1] = "8 morti"
    detail = str(_rejected(tmp_path, data).params["detail"])
    assert "8 morti" in detail and "column b" in detail


def test_column_cell_patterns_override_the_table_pattern(tmp_path: Path):
    data = _base()
    data["column_cell_patterns"] = {"a": "[a-z]+"}
    _rejected(tmp_path, data)  # column a holds digits
    for row in data["rows"]:
        row["cells"][0] = "x"
    assert load_table(_write(tmp_path, data)).rows[0].cells[0] == "x"


def test_rejects_dash_on_a_non_optional_axis(tmp_path: Path):
    data = _base()
    data["row_axes"].append({"key": "d8", "label": "D8"})
    keys = ["1-3", "4", "5-7", "-"]
    for row, key in zip(data["rows"], keys, strict=True):
        row["keys"]["d8"] = key
    assert "'-' where a band is required" in str(_rejected(tmp_path, data).params["detail"])
    data["row_axes"][1]["optional"] = True
    table = load_table(_write(tmp_path, data))
    assert table.row_for("d8", 6).cells[0] == "7"
    with pytest.raises(UnknownName):
        table.row_for("d8", 8)


def test_rejects_duplicate_column_keys(tmp_path: Path):
    data = _base()
    data["columns"][2]["key"] = "a"
    assert "duplicate column keys ['a']" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_duplicate_row_ids(tmp_path: Path):
    data = _base()
    data["rows"][0]["id"] = "same"
    data["rows"][1]["id"] = "same"
    assert "duplicate row ids" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_an_undeclared_column_group(tmp_path: Path):
    data = _base()
    data["column_groups"] = {"g": "G"}
    data["columns"][0]["group"] = "h"
    assert "not declared" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_a_gap_between_column_bands(tmp_path: Path):
    data = _base()
    data["columns"] = [
        {"key": "a", "label": "1-3", "range": "1-3"},
        {"key": "b", "label": "5-7", "range": "5-7"},
        {"key": "c", "label": ">7", "range": ">7"},
    ]
    assert "gap" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_unknown_fields_and_missing_ones(tmp_path: Path):
    data = _base()
    data["colour"] = "red"
    _rejected(tmp_path, data)
    data = _base()
    del data["seed_table"]
    assert "seed_table" in str(_rejected(tmp_path, data).params["detail"])


def test_rejects_a_bad_axis_kind(tmp_path: Path):
    data = _base()
    data["row_axes"][0]["kind"] = "dice"
    _rejected(tmp_path, data)


def test_rejects_a_band_that_is_not_a_band(tmp_path: Path):
    data = _base()
    data["rows"][1]["keys"]["d6"] = "three"
    assert "not a band" in str(_rejected(tmp_path, data).params["detail"])


# -- malformed files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "id: [unclosed\n",
        "id: toy\n  title: : :\n",
        "rows:\n\t- x\n",
        "{a: 1, a: }}}",
    ],
)
def test_malformed_yaml_is_a_table_data_error(tmp_path: Path, text: str):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableDataError) as caught:
        load_table(path)
    assert caught.value.key == "error.table.yaml"
    assert caught.value.params["file"] == "broken.yaml"
    assert "broken.yaml" in caught.value.localized("en")


@pytest.mark.parametrize("text", ["", "- 1\n- 2\n", "just a string\n", "42\n"])
def test_yaml_that_is_not_a_table_is_a_table_data_error(tmp_path: Path, text: str):
    path = tmp_path / "odd.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableDataError) as caught:
        load_table(path)
    assert caught.value.key == "error.table.invalid"


# -- what is accepted --------------------------------------------------------------------------


def test_accepts_open_bands_in_every_spelling(tmp_path: Path):
    for last in ("+", ">5", "6+"):
        data = _base()
        data["rows"][3]["keys"]["d6"] = last
        table = load_table(_write(tmp_path, data))
        assert table.row_for("d6", 6).cells[0] == "10"
        assert table.row_for("d6", 99).cells[0] == "10"


def test_gt_band_after_a_band_ending_just_before_it(tmp_path: Path):
    """'>17' right after '15-16' starts at 17 (the penetration table's reading)."""
    data = _base()
    data["rows"][2]["keys"]["d6"] = "4-16"
    data["rows"][3]["keys"]["d6"] = ">17"
    table = load_table(_write(tmp_path, data))
    assert table.row_for("d6", 17).cells[0] == "10"
    assert table.row_for("d6", 16).cells[0] == "7"


def test_aliases_and_lookups(tmp_path: Path):
    data = _base()
    data["row_axes"] = [
        {"key": "ap", "label": "AP", "optional": True},
        {"key": "he", "label": "HE", "optional": True},
    ]
    data["rows"] = [
        {"keys": {"ap": "-", "he": "11-19"}, "cells": ["1", "2", "3"]},
        {"keys": {"ap": "13-30", "he": "20-30"}, "cells": ["4", "5", "6"]},
        {"keys": {"ap": "31-40 / 2p", "he": "31-40/Bm / ☼"}, "cells": ["7", "8", "9"]},
        {"keys": {"ap": ">40", "he": "+"}, "cells": ["10", "11", "12"]},
    ]
    table = load_table(_write(tmp_path, data))
    assert table.row_for("ap", 35).cells[0] == "7"
    assert table.row_for("ap", "2p").cells[0] == "7"
    assert table.row_for("ap", "31-40").cells[0] == "7"  # a band's own text
    assert table.row_for("he", "Bm").cells[0] == "7"
    assert table.row_for("he", "☼").cells[0] == "7"
    assert table.row_for("he", 15).cells[0] == "1"
    assert table.row_for("ap", 1000).cells[0] == "10"
    with pytest.raises(UnknownName) as caught:
        table.row_for("ap", 12)  # the AP axis starts at 13
    assert caught.value.key == "error.table.no_row"
    with pytest.raises(UnknownName):
        table.row_for("ap", "Bm")  # an alias of the other axis
    with pytest.raises(UnknownName) as caught:
        table.row_for("calibre", 20)
    assert caught.value.key == "error.table.no_axis"


def test_split_aliases_and_parse_band():
    assert split_aliases("31-40 / 2p") == ("31-40", ["2p"])
    assert split_aliases("81-90/17-25p") == ("81-90", ["17-25p"])
    assert split_aliases("7") == ("7", [])
    assert parse_band("-", None) is None
    assert parse_band("1-3", None) == Band(1, 3)
    assert parse_band("+", Band(1, 3)) == Band(4, OPEN)
    assert parse_band(">75", Band(64, 75)) == Band(76, OPEN)
    assert parse_band("10+", None) == Band(10, OPEN)
    assert str(Band(4, OPEN)) == "4+"
    assert str(Band(3, 3)) == "3"
    assert str(Band(1, 3)) == "1-3"
    assert 3 in Band(1, 3) and 4 not in Band(1, 3) and "3" not in Band(1, 3)


def test_column_for_by_group(tmp_path: Path):
    data = _base()
    data["column_groups"] = {"lt": "< 75°", "gt": "> 75°"}
    data["columns"] = [
        {"key": "lt_1", "label": "1L", "group": "lt", "range": "1", "aliases": ["L"]},
        {"key": "lt_2_3", "label": "2-3", "group": "lt", "range": "2-3"},
        {"key": "lt_4", "label": ">3", "group": "lt", "range": ">3"},
        {"key": "gt_1_2", "label": "1-2", "group": "gt", "range": "1-2"},
        {"key": "gt_3", "label": "3+", "group": "gt", "range": "3+"},
    ]
    for row in data["rows"]:
        row["cells"] = [f"{row['cells'][0]}{i}" for i in range(5)]
    data["cell_pattern"] = r"\d+"
    table = load_table(_write(tmp_path, data))
    assert table.column_for(1, "lt").key == "lt_1"
    assert table.column_for(3, "lt").key == "lt_2_3"
    assert table.column_for(40, "lt").key == "lt_4"
    assert table.column_for(1, "gt").key == "gt_1_2"
    assert table.column_for(3, "gt").key == "gt_3"
    assert table.column("L").key == "lt_1"
    row = table.row_for("d6", 3)
    assert table.cell(row, "gt_3") == "44"
    assert table.cell(row, table.column_for(2, "lt")) == "41"
    with pytest.raises(UnknownName) as caught:
        table.column_for(0, "gt")
    assert caught.value.key == "error.table.no_column"
    with pytest.raises(UnknownName):
        table.column_for(1)  # no ungrouped ranged column
    with pytest.raises(UnknownName):
        table.column("nope")


def test_row_where_and_row_by_id(tmp_path: Path):
    data = _base()
    data["row_axes"] = [{"key": "kind", "label": "Kind", "kind": "category"}]
    for index, row in enumerate(data["rows"]):
        row["keys"] = {"kind": f"k{index % 2}"}
        row["id"] = f"r{index}"
    table = load_table(_write(tmp_path, data))
    assert table.row_by_id("r2").cells[0] == "7"
    with pytest.raises(UnknownName):
        table.row_by_id("r9")
    with pytest.raises(UnknownName):
        table.row_where(kind="k0")  # two rows match
    with pytest.raises(UnknownName):
        table.row_where(kind="k9")


# -- TableSet ----------------------------------------------------------------------------------


def test_table_set_runs_the_cell_parsers(tmp_path: Path):
    _write(tmp_path, _base())
    tables = TableSet.load(tmp_path, {"toy": lambda t, r, c, text: int(text) * 10})
    table = tables["toy"]
    row = table.row_for("d6", 3)
    assert tables.parsed(table, row, table.column("b")) == 50
    assert "toy" in tables and "other" not in tables
    assert [t.id for t in tables] == ["toy"]
    with pytest.raises(UnknownName):
        tables["other"]


def test_table_set_turns_an_unreadable_cell_into_a_table_data_error(tmp_path: Path):
    _write(tmp_path, _base())

    def parser(_table: Table, _row: Any, _column: Any, text: str) -> int:
        if text == "8":
            raise ValueError("no eights")
        return int(text)

    with pytest.raises(TableDataError) as caught:
        TableSet.load(tmp_path, {"toy": parser})
    assert caught.value.key == "error.table.bad_cell"
    assert caught.value.params["cell"] == "8"
    assert caught.value.params["column"] == "B"


def test_table_set_refuses_duplicates_and_missing_tables(tmp_path: Path):
    _write(tmp_path, _base(), "one.yaml")
    _write(tmp_path, _base(), "two.yaml")
    with pytest.raises(TableDataError) as caught:
        TableSet.load(tmp_path)
    assert caught.value.key == "error.table.duplicate"
    (tmp_path / "two.yaml").unlink()
    with pytest.raises(TableDataError) as caught:
        TableSet.load(tmp_path, {"ghost": lambda *args: None})
    assert caught.value.key == "error.table.missing"


# -- the band cache ----------------------------------------------------------------------------


def _numbered_table(index: int) -> Table:
    data = _base()
    data["rows"] = [
        {"keys": {"d6": "1-3" if index % 2 else "1-2"}, "cells": [f"{index}", "0", "0"]},
        {"keys": {"d6": "+"}, "cells": [f"{index + 100000}", "0", "0"]},
    ]
    return Table.model_validate(data)


def test_band_lookups_never_leak_between_tables():
    reused = 0
    for index in range(20):
        first, second = _numbered_table(2 * index), _numbered_table(2 * index + 1)
        expected = second.row_for("d6", 3).cells[0]
        # model_construct allocates only the Table object itself, so the second one usually
        # lands where the first one (just freed) was
        table = Table.model_construct(**dict(first))
        table.row_for("d6", 3)
        old_id = id(table)
        del table
        table = Table.model_construct(**dict(second))
        reused += id(table) == old_id
        row = table.row_for("d6", 3)
        assert row.cells[0] == expected, f"table {index} answered with another table's row"
        assert any(row is own for own in table.rows)
    # Whether CPython reused an id is up to its allocator; the answers above must hold either way.
    assert reused >= 0
