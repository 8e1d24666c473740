"""The five heavy-weapon tables of the manovra seed, checked against the seed text."""

from __future__ import annotations

import re

import pytest

from rules.core.errors import UnknownName
from rules.core.tables import Table

_RANGE_DICE = {"utile": "D8", "efficace": "D10", "schegge": "D10", "breve": "D12"}
_TIRO_HEADING = "TIRO - Armi Pesanti (D8 utile, D10 gittata efficace e schegge, D12 breve)"
_ROW_START = re.compile(r"-|\+|>?\d+(-\d+)?( ?/ ?\S+)?")


def _block(text: str, heading: str) -> tuple[list[list[str]], list[str]]:
    """The data rows (tab-split, trailing empties dropped) and footnote lines of a seed table."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0].strip() == heading)
    index = start + 1
    while not lines[index].strip():
        index += 1
    rows: list[list[str]] = []
    while lines[index].strip():
        fields = lines[index].split("\t")
        while fields and fields[-1] == "":
            fields.pop()
        if _ROW_START.fullmatch(fields[0]):
            rows.append(fields)
        index += 1
    while not lines[index].strip():
        index += 1
    footnotes: list[str] = []
    while index < len(lines) and lines[index].strip():
        footnotes.append(lines[index].strip())
        index += 1
    return rows, footnotes


def _header_fields(text: str, heading: str, first_field: str) -> list[str]:
    """The tab-split header line of a seed table that starts with ``first_field``."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0].strip() == heading)
    for line in lines[start + 1 :]:
        fields = line.split("\t")
        if fields[0].strip() == first_field:
            while fields and fields[-1] == "":
                fields.pop()
            return fields
    raise AssertionError(f"no header {first_field!r} after {heading!r}")


def _score(cell: str) -> float:
    """A penetration cell as a number; '-' (cannot penetrate) is infinitely hard."""
    return float("inf") if cell == "-" else float(cell)


# -- TIRO - Armi Pesanti -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiro(manovra_table) -> Table:
    return manovra_table("tiro_armi_pesanti")


def test_tiro_shape(tiro: Table, seed_text):
    assert tiro.id == "tiro_armi_pesanti"
    assert tiro.seed_table in seed_text("000")
    assert [a.key for a in tiro.row_axes] == ["fermo", "in_moto"]
    assert tiro.row_axes[0].label == "Bersaglio fermo (☼, π)"
    assert tiro.column_groups == {
        "unita": "Unità Bersaglio",
        "elemento": "Elemento Artificiale Bersaglio",
    }
    assert [c.key for c in tiro.columns if c.group == "unita"] == [
        "carro_alto", "carro", "basso_profilo", "semicingolato",
        "camion", "jeep", "fanteria", "artiglieria",
    ]  # fmt: skip
    assert [c.key for c in tiro.columns if c.group == "elemento"] == [
        "edificio_centro", "edificio_muro", "bunker_muro", "apertura", "feritoia",
    ]  # fmt: skip


def test_tiro_corner_and_inner_cells(tiro: Table):
    first, last = tiro.row_for("fermo", 1), tiro.row_for("fermo", 11)
    assert tiro.cell(first, "carro_alto") == "-"
    assert tiro.cell(first, "feritoia") == "-"
    assert tiro.cell(last, "carro_alto") == "a scelta"
    assert tiro.cell(last, "feritoia") == "centrata"
    assert tiro.cell(tiro.row_for("fermo", 5), "camion") == "ruota"
    assert tiro.cell(tiro.row_for("fermo", 6), "fanteria") == "morto -L"
    assert tiro.cell(tiro.row_for("fermo", 7), "basso_profilo") == "ruota/cingolo"
    assert tiro.cell(tiro.row_for("fermo", 8), "basso_profilo") == "torretta/casamatta"
    assert tiro.cell(tiro.row_for("in_moto", 12), "carro") == "torretta/casam."
    assert tiro.cell(tiro.row_for("in_moto", 10), "artiglieria") == "scudo"
    assert tiro.cell(tiro.row_for("in_moto", 13), "artiglieria") == "affusto"
    assert tiro.cell(tiro.row_for("fermo", 10), "apertura") == "centrata"
    assert tiro.cell(tiro.row_for("fermo", 4), "edificio_centro") == "colpito"
    assert tiro.cell(tiro.row_for("in_moto", 11), "bunker_muro") == "colpito"
    assert tiro.cell(tiro.row_for("in_moto", 30), "fanteria") == "morto"


def test_tiro_whole_table_matches_seed(tiro: Table, seed_text):
    text = seed_text("000")
    rows, footnotes = _block(text, _TIRO_HEADING)
    assert len(rows) == len(tiro.rows) == 9
    for seed_row, row in zip(rows, tiro.rows, strict=True):
        assert [row.keys["fermo"], row.keys["in_moto"]] == seed_row[:2]
        assert list(row.cells) == seed_row[2:]
    header = _header_fields(text, tiro.seed_table, "Bersaglio fermo (☼, π)")
    assert header[1] == tiro.row_axes[1].label
    assert [c.label for c in tiro.columns] == header[2:]
    assert list(tiro.footnotes) == footnotes


@pytest.mark.parametrize(
    ("axis", "value", "index"),
    [
        ("fermo", 1, 0), ("fermo", 3, 0), ("fermo", 4, 1), ("fermo", 9, 6),
        ("fermo", 10, 7), ("fermo", 11, 8), ("fermo", 99, 8),
        ("in_moto", 1, 0), ("in_moto", 6, 0), ("in_moto", 7, 1), ("in_moto", 12, 6),
        ("in_moto", 13, 7), ("in_moto", 14, 8), ("in_moto", 99, 8),
    ],
)  # fmt: skip
def test_tiro_axis_boundaries(tiro: Table, axis: str, value: int, index: int):
    assert tiro.row_for(axis, value) is tiro.rows[index]


def test_tiro_data(tiro: Table):
    assert tiro.data["negates_light_cover_above_mm"] == 70
    assert tiro.data["negates_medium_cover_above_mm"] == 122
    assert tiro.data["range_dice"] == _RANGE_DICE
    assert "Calibri maggiori di 70 mm negano i ripari leggeri" in tiro.footnotes[4]
    assert "Calibri maggiori di 122 mm negano i ripari medi" in tiro.footnotes[4]
    # note: ☼ and π both sit in the fermo heading and are defined as columns in footnote 1
    assert tiro.footnotes[0].startswith("☼ = colonna")
    assert "π = colonna" in tiro.footnotes[0]
    assert "☼" in tiro.row_axes[0].label and "π" in tiro.row_axes[0].label


# -- PENETRAZIONE CORAZZA ----------------------------------------------------------------------

_PEN_HEADING = "PENETRAZIONE CORAZZA (D8 utile, D10 gittata efficace e schegge, D12 breve)"


@pytest.fixture(scope="module")
def pen(manovra_table) -> Table:
    return manovra_table("penetrazione")


def _group(table: Table, group: str) -> list[int]:
    return [i for i, c in enumerate(table.columns) if c.group == group]


def test_penetrazione_shape(pen: Table, seed_text):
    assert pen.seed_table in seed_text("000")
    assert [(a.key, a.label, a.optional) for a in pen.row_axes] == [
        ("ap", "AP mm", True),
        ("he", "HE/AA mm", True),
    ]
    lt = [pen.columns[i].key for i in _group(pen, "lt75")]
    gt = [pen.columns[i].key for i in _group(pen, "gt75")]
    assert lt == [f"lt_{n}" for n in range(1, 9)] + [
        "lt_9_10", "lt_11_12", "lt_13_14", "lt_15_16", "lt_17",
    ]  # fmt: skip
    assert gt == [f"gt_{n}" for n in range(1, 9)] + [
        "gt_9_10", "gt_11_12", "gt_13_14", "gt_15_16", "gt_17_18", "gt_19_20", "gt_21",
    ]  # fmt: skip
    assert pen.column("L").key == "lt_1"
    assert pen.column("M").key == "lt_3"
    assert pen.column("C").key == "lt_5"
    assert pen.column("B").key == "lt_8"


def test_penetrazione_corner_and_inner_cells(pen: Table):
    first, last = pen.row_for("he", 11), pen.row_for("ap", 200)
    assert first is pen.rows[0] and last is pen.rows[-1]
    assert pen.cell(first, "lt_1") == "9"
    assert pen.cell(first, "gt_21") == "-"
    assert pen.cell(last, "lt_1") == "1"
    assert pen.cell(last, "gt_21") == "12"
    assert pen.cell(pen.row_for("he", 15), "gt_2") == "12"
    assert pen.cell(pen.row_for("ap", 75), pen.column_for(9, "lt75")) == "12"
    assert pen.cell(pen.row_for("he", "☼"), "gt_5") == "11"
    assert pen.cell(pen.row_for("ap", "88L"), "lt_15_16") == "11"
    assert pen.cell(pen.row_for("ap", "2p"), "lt_5") == "12"
    assert pen.cell(pen.row_for("he", "Mm"), "gt_13_14") == "12"
    assert pen.cell(pen.row_for("ap", "50L"), "gt_9_10") == "11"
    assert pen.cell(pen.row_for("he", "Bm"), "M") == "12"
    assert pen.cell(pen.row_for("ap", 45), "gt_5") == "7"
    assert pen.cell(pen.row_for("ap", 300), "lt_17") == "12"


def test_penetrazione_whole_table_matches_seed(pen: Table, seed_text):
    text = seed_text("000")
    rows, footnotes = _block(text, _PEN_HEADING)
    assert len(rows) == len(pen.rows) == 13
    for seed_row, row in zip(rows, pen.rows, strict=True):
        assert [row.keys["ap"], row.keys["he"]] == seed_row[:2]
        assert len(seed_row) == 2 + 28
        # every value kept, in the seed's order: 13 in < 75°, 15 in > 75°
        assert list(row.cells) == seed_row[2:]
        assert list(row.cells[:13]) == seed_row[2:15]
    assert list(pen.footnotes) == footnotes
    header = _header_fields(text, _PEN_HEADING, "mm")[2:]
    assert len(header) == 27  # 13 + 14 headings for 28 values
    labels = [c.label for c in pen.columns]
    assert labels[:13] == header[:13]
    # > 75°: the seed's first 13 headings are kept, "19-20" is added, ">18" is read as ">20"
    assert labels[13:26] == header[13:26]
    assert header[26] == ">18"
    assert labels[26:] == ["19-20", ">20"]


def test_penetrazione_note_gt75_band_added_at_thick_end(pen: Table):
    assert pen.column_for(16, "gt75").key == "gt_15_16"
    assert pen.column_for(17, "gt75").key == "gt_17_18"
    assert pen.column_for(18, "gt75").key == "gt_17_18"
    assert pen.column_for(19, "gt75").key == "gt_19_20"
    assert pen.column_for(20, "gt75").key == "gt_19_20"
    assert pen.column_for(21, "gt75").key == "gt_21"
    assert pen.column_for(60, "gt75").key == "gt_21"
    # the 15th value of the last row is real data, under the added open band
    assert [pen.cell(pen.rows[-1], k) for k in ("gt_15_16", "gt_17_18", "gt_19_20", "gt_21")] == [
        "7", "9", "11", "12",
    ]  # fmt: skip
    # the three thickest columns each open with a 12, one row apart
    for key, ap in (("gt_17_18", 91), ("gt_19_20", 107), ("gt_21", 123)):
        opening = pen.row_for("ap", ap)
        above = pen.rows[pen.rows.index(opening) - 1]
        assert pen.cell(opening, key) == "12"
        assert pen.cell(above, key) == "-"
    assert any("19-20" in n.decision and ">20" in n.decision for n in pen.notes)


def test_penetrazione_note_lt17_starts_at_17(pen: Table):
    assert pen.column_for(15, "lt75").key == "lt_15_16"
    assert pen.column_for(16, "lt75").key == "lt_15_16"
    assert pen.column_for(17, "lt75").key == "lt_17"
    assert pen.column_for(50, "lt75").key == "lt_17"
    assert pen.column("lt_17").label == ">17"


def test_penetrazione_monotonic(pen: Table):
    for group in ("lt75", "gt75"):
        indexes = _group(pen, group)
        for row in pen.rows:
            scores = [_score(row.cells[i]) for i in indexes]
            assert scores == sorted(scores), (group, row.keys)  # non-decreasing with thickness
        for i in indexes:
            column = [_score(row.cells[i]) for row in pen.rows]
            assert column == sorted(column, reverse=True), pen.columns[i].key  # calibre helps


def test_penetrazione_gt75_never_harder_than_lt75(pen: Table):
    for row in pen.rows:
        lt_reach = gt_reach = 0
        for thickness in range(1, 31):
            lt = _score(pen.cell(row, pen.column_for(thickness, "lt75")))
            gt = _score(pen.cell(row, pen.column_for(thickness, "gt75")))
            assert gt <= lt, (row.keys, thickness)
            lt_reach = thickness if lt != float("inf") else lt_reach
            gt_reach = thickness if gt != float("inf") else gt_reach
        assert gt_reach > lt_reach or gt_reach == lt_reach == 30  # both open-ended


def test_penetrazione_reach_staircase(pen: Table):
    lt, gt = _group(pen, "lt75"), _group(pen, "gt75")
    lt_reach = [sum(row.cells[i] != "-" for i in lt) for row in pen.rows]
    gt_reach = [sum(row.cells[i] != "-" for i in gt) for row in pen.rows]
    assert lt_reach == list(range(1, 14))
    assert gt_reach == [2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]


@pytest.mark.parametrize(
    ("axis", "value", "index"),
    [
        ("ap", 13, 2), ("ap", 20, 2), ("ap", 21, 3), ("ap", 106, 10), ("ap", 107, 11),
        ("ap", 122, 11), ("ap", 123, 12), ("ap", 500, 12),
        ("he", 11, 0), ("he", 19, 0), ("he", 20, 1), ("he", 30, 1), ("he", 31, 2),
        ("he", 210, 11), ("he", 211, 12), ("he", 1000, 12),
        ("ap", "2p", 4), ("ap", "50L", 6), ("ap", "6p", 7), ("ap", "17-25p", 9),
        ("ap", "75L", 10), ("ap", "88L", 11),
        ("he", "Bm", 2), ("he", "☼", 3), ("he", "6p", 5), ("he", "Ex", 6),
        ("he", "17-25p", 7), ("he", "Mm", 8),
    ],
)  # fmt: skip
def test_penetrazione_axis_boundaries(pen: Table, axis: str, value: int | str, index: int):
    assert pen.row_for(axis, value) is pen.rows[index]


def test_penetrazione_no_ap_below_13mm(pen: Table):
    assert pen.rows[0].keys["ap"] == pen.rows[1].keys["ap"] == "-"
    with pytest.raises(UnknownName):
        pen.row_for("ap", 12)
    with pytest.raises(UnknownName):
        pen.row_for("he", 10)


@pytest.mark.parametrize(
    ("thickness", "lt_key", "gt_key"),
    [
        (1, "lt_1", "gt_1"), (8, "lt_8", "gt_8"), (9, "lt_9_10", "gt_9_10"),
        (10, "lt_9_10", "gt_9_10"), (11, "lt_11_12", "gt_11_12"), (14, "lt_13_14", "gt_13_14"),
    ],
)  # fmt: skip
def test_penetrazione_column_boundaries(pen: Table, thickness: int, lt_key: str, gt_key: str):
    assert pen.column_for(thickness, "lt75").key == lt_key
    assert pen.column_for(thickness, "gt75").key == gt_key


def test_penetrazione_data(pen: Table):
    assert pen.data["always_gt75_classes"] == ["Bm", "Ex", "Mm"]
    assert pen.data["indirect_fire_group"] == "lt75"
    assert pen.data["range_dice"] == _RANGE_DICE
    assert pen.column_groups["gt75"].endswith("Bm, Ex e Mm")
    assert "Fuoco Indiretto" in pen.column_groups["lt75"]
    for wall, cm in pen.data["wall_thickness_cm"].items():
        assert pen.column_for(cm, "lt75") is pen.column(wall)


# -- EFFETTI Armi Pesanti ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def eff(manovra_table) -> Table:
    return manovra_table("effetti_armi_pesanti")


def test_effetti_whole_table_matches_seed(eff: Table, seed_text):
    text = seed_text("000")
    rows, footnotes = _block(text, "EFFETTI Armi Pesanti")
    assert len(rows) == len(eff.rows) == 8
    for seed_row, row in zip(rows, eff.rows, strict=True):
        assert [row.keys["diretto"], row.keys["schegge"]] == seed_row[:2]
        assert list(row.cells) == seed_row[2:]
    header = _header_fields(text, "EFFETTI Armi Pesanti", "Colpo diretto o lancio ordigni")
    assert [a.label for a in eff.row_axes] == header[:2]
    assert [c.label for c in eff.columns] == header[2:]
    assert list(eff.footnotes) == footnotes
    assert [c.key for c in eff.columns] == [
        "apertura_scoperto", "scafo_carro", "scafo_camion", "torretta", "casamatta",
        "cingolo", "scafo_jeep", "ruota", "artiglieria",
    ]  # fmt: skip


def test_effetti_corner_and_inner_cells(eff: Table):
    first, last = eff.row_for("diretto", 1), eff.row_for("diretto", 10)
    assert eff.cell(first, "apertura_scoperto") == "movimento breve + tutti morti"
    assert eff.cell(first, "artiglieria") == "pezzo bloccato + 1 morto + CT"
    assert eff.cell(last, "apertura_scoperto") == "esplode + tutti morti"
    assert eff.cell(last, "artiglieria") == "esplode + tutti morti"
    assert eff.cell(eff.row_for("diretto", 4), "cingolo") == "movimento cauto + CT"
    assert eff.cell(eff.row_for("diretto", 3), "torretta") == "torretta bloccata + 1 morto + CT"
    assert eff.cell(eff.row_for("diretto", 7), "scafo_camion") == "distrutto + 6 morti + CT"
    assert eff.cell(eff.row_for("diretto", 8), "ruota") == "distrutta + 2 morti + CT"
    assert eff.cell(eff.row_for("schegge", 8), "scafo_carro") == "immobilizzato + CT"
    assert eff.cell(eff.row_for("schegge", 10), "scafo_jeep") == "distrutta + tutti morti"
    assert eff.cell(eff.row_for("schegge", 2), "torretta") == "MG distrutta + 1 morto + CT"
    assert eff.cell(eff.row_for("diretto", 9), "casamatta") == "esplode + tutti morti"


@pytest.mark.parametrize(
    ("axis", "value", "index"),
    [
        ("diretto", 1, 0), ("diretto", 2, 0), ("diretto", 3, 1), ("diretto", 4, 1),
        ("diretto", 5, 2), ("diretto", 6, 3), ("diretto", 9, 6), ("diretto", 10, 7),
        ("schegge", 1, 0), ("schegge", 3, 0), ("schegge", 4, 1), ("schegge", 6, 1),
        ("schegge", 7, 2), ("schegge", 9, 2), ("schegge", 10, 3),
    ],
)  # fmt: skip
def test_effetti_axis_boundaries(eff: Table, axis: str, value: int, index: int):
    assert eff.row_for(axis, value) is eff.rows[index]


def test_effetti_note_schegge_stops_at_row_6(eff: Table):
    assert [row.keys["schegge"] for row in eff.rows[4:]] == ["-"] * 4
    assert eff.row_for("schegge", 10) is eff.row_for("diretto", 6)
    with pytest.raises(UnknownName):
        eff.row_for("schegge", 11)
    with pytest.raises(UnknownName):
        eff.row_for("diretto", 11)
    assert "Speron." in eff.row_axes[1].label
    assert eff.column("scafo_camion").label.endswith("Speronamento")


# -- EFFETTI ARMI PESANTI CONTRO EDIFICI -------------------------------------------------------


@pytest.fixture(scope="module")
def edi(manovra_table) -> Table:
    return manovra_table("effetti_edifici")


def test_edifici_whole_table_matches_seed_except_the_30mm_gap(edi: Table, seed_text):
    text = seed_text("000")
    rows, footnotes = _block(text, "EFFETTI ARMI PESANTI CONTRO EDIFICI")
    assert len(rows) == len(edi.rows) == 7
    for index, (seed_row, row) in enumerate(zip(rows, edi.rows, strict=True)):
        expected_keys = seed_row[:3]
        if index == 2:
            assert expected_keys[2] == "10"  # the seed's garbled band
            expected_keys = [*expected_keys[:2], "9-10"]
        assert [row.keys["cal_120"], row.keys["cal_70"], row.keys["cal_30"]] == expected_keys
        assert list(row.cells) == seed_row[3:]
    header = _header_fields(text, "EFFETTI ARMI PESANTI CONTRO EDIFICI", "Calibro arma pesante")
    assert [c.label for c in edi.columns] == [h for h in header[1:] if h]
    axes = _header_fields(text, "EFFETTI ARMI PESANTI CONTRO EDIFICI", "+120 mm")
    assert [a.label for a in edi.row_axes] == axes
    assert list(edi.footnotes) == footnotes
    assert [c.key for c in edi.columns] == ["legno", "casa", "palazzo", "bunker"]


def test_edifici_corner_and_inner_cells(edi: Table):
    first, last = edi.row_for("cal_120", 1), edi.row_for("cal_120", 10)
    assert edi.cell(first, "legno") == "raggio esp."
    assert edi.cell(first, "bunker") == "raggio esp."
    assert edi.cell(last, "legno") == "distrutta"
    assert edi.cell(last, "bunker") == "distrutto"
    assert edi.cell(edi.row_for("cal_120", 5), "bunker") == "piano"
    assert edi.cell(edi.row_for("cal_120", 6), "legno") == "piano"
    assert edi.cell(edi.row_for("cal_120", 7), "legno") == "incendio"
    assert edi.cell(edi.row_for("cal_70", 10), "casa") == "incendio"
    assert edi.cell(edi.row_for("cal_70", 9), "palazzo") == "piano"
    assert edi.cell(edi.row_for("cal_70", 7), "casa") == "raggio esp."
    assert edi.cell(edi.row_for("cal_30", 8), "bunker") == "piano"
    assert edi.cell(edi.row_for("cal_120", 9), "palazzo") == "incendio"


@pytest.mark.parametrize(
    ("axis", "value", "index"),
    [
        ("cal_120", 1, 0), ("cal_120", 4, 0), ("cal_120", 5, 1), ("cal_120", 6, 2),
        ("cal_120", 9, 5), ("cal_120", 10, 6),
        ("cal_70", 1, 0), ("cal_70", 5, 0), ("cal_70", 6, 1), ("cal_70", 7, 1),
        ("cal_70", 8, 2), ("cal_70", 9, 3), ("cal_70", 10, 4),
        ("cal_30", 1, 0), ("cal_30", 6, 0), ("cal_30", 7, 1), ("cal_30", 8, 1),
        ("cal_30", 9, 2), ("cal_30", 10, 2),
    ],
)  # fmt: skip
def test_edifici_axis_boundaries(edi: Table, axis: str, value: int, index: int):
    assert edi.row_for(axis, value) is edi.rows[index]


def test_edifici_note_30mm_reads_9_10(edi: Table):
    third = edi.rows[2]
    assert third.keys["cal_30"] == "9-10"
    assert edi.row_for("cal_30", 9) is edi.row_for("cal_30", 10) is third
    assert list(third.cells) == ["piano", "raggio esp.", "raggio esp.", "piano"]
    assert edi.rows[1].keys["cal_30"] == "7-8"  # printed value kept
    # every axis covers the whole D10, each face on exactly one row
    for axis in ("cal_120", "cal_70", "cal_30"):
        for face in range(1, 11):
            edi.row_for(axis, face)

    # the smaller calibre never does better: P(third row or worse for the building) shrinks
    def share(axis: str) -> int:
        return sum(edi.rows.index(edi.row_for(axis, face)) >= 2 for face in range(1, 11))

    assert share("cal_120") > share("cal_70") > share("cal_30") > 0
    assert any("9-10" in n.decision for n in edi.notes)


def test_edifici_calibre_columns(edi: Table):
    columns = edi.data["calibre_columns"]
    assert columns == [
        {"axis": "cal_120", "above_mm": 120},
        {"axis": "cal_70", "above_mm": 70},
        {"axis": "cal_30", "above_mm": 30},
    ]

    def axis_for(calibre_mm: int) -> str | None:
        return next((c["axis"] for c in columns if calibre_mm > c["above_mm"]), None)

    assert axis_for(150) == "cal_120"
    assert axis_for(120) == "cal_70"
    assert axis_for(75) == "cal_70"
    assert axis_for(70) == "cal_30"
    assert axis_for(37) == "cal_30"
    assert axis_for(30) is None  # note: no effect on buildings through this table
    assert any("30 mm or less" in n.where for n in edi.notes)


# -- EFFETTI ARMI INCENDIARIE ------------------------------------------------------------------


@pytest.fixture(scope="module")
def inc(manovra_table) -> Table:
    return manovra_table("effetti_incendiarie")


def test_incendiarie_whole_table_matches_seed(inc: Table, seed_text):
    text = seed_text("000")
    rows, footnotes = _block(text, "EFFETTI ARMI INCENDIARIE")
    assert len(rows) == len(inc.rows) == 8
    for seed_row, row in zip(rows, inc.rows, strict=True):
        assert row.keys["d10"] == seed_row[0]
        assert list(row.cells) == seed_row[1:]
    header = _header_fields(text, "EFFETTI ARMI INCENDIARIE", "Lanciafiamme e Molotov")
    assert inc.row_axes[0].label == header[0]
    assert [c.label for c in inc.columns] == header[1:]
    assert list(inc.footnotes) == footnotes
    assert [c.key for c in inc.columns] == ["carro", "camion", "auto", "fanteria"]


def test_incendiarie_corner_and_inner_cells(inc: Table):
    first, last = inc.row_for("d10", 1), inc.row_for("d10", 10)
    assert inc.cell(first, "carro") == "-"
    assert inc.cell(first, "fanteria") == "Spento + SF"
    assert inc.cell(last, "carro") == "esplode"
    assert inc.cell(last, "fanteria") == "morto"
    assert inc.cell(inc.row_for("d10", 3), "carro") == "spento + SF"
    assert inc.cell(inc.row_for("d10", 4), "fanteria") == "morto/MP spento"
    assert inc.cell(inc.row_for("d10", 5), "fanteria") == "morto /P spento"
    assert inc.cell(inc.row_for("d10", 5), "auto") == "incendiato+salvi"
    assert inc.cell(inc.row_for("d10", 6), "carro") == "1 morto + CT"
    assert inc.cell(inc.row_for("d10", 7), "carro") == "immobilizzato"
    assert inc.cell(inc.row_for("d10", 7), "camion") == "incendiato+morti"
    assert inc.cell(inc.row_for("d10", 9), "carro") == "incendiato+morti"
    assert inc.cell(inc.row_for("d10", 8), "camion") == "esplode"


@pytest.mark.parametrize(
    ("value", "index"),
    [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 3), (9, 6), (10, 7)],
)
def test_incendiarie_axis_boundaries(inc: Table, value: int, index: int):
    assert inc.row_for("d10", value) is inc.rows[index]


def test_incendiarie_one_die_per_model(inc: Table):
    assert inc.column("fanteria").data == {"one_die_per_model": True}
    assert all(not inc.column(k).data for k in ("carro", "camion", "auto"))
    assert inc.footnotes[0].startswith("* lanciare un dado per ogni miniatura")
    assert inc.column("fanteria").label.count("*") == 2
    with pytest.raises(UnknownName):
        inc.row_for("d10", 11)
