"""The two small-arms tables of the manovra seed: against unarmoured vehicles, and against
infantry and artillery (the latter restored where the seed's text is garbled)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from rules.core.errors import UnknownName

VEICOLI = (
    "FUOCO ARMI LEGGERE contro veicoli Non corazzati (D8 utile, D10 gittata efficace, D12 breve)"
)
FANTERIA = (
    "FUOCO ARMI LEGGERE contro fanteria ed artiglieria (D8 utile, D10 gittata efficace, D12 breve)"
)
SEED_HEADINGS_FANTERIA = [
    "1-3",
    "4-7",
    "8-12",
    "13-17",
    "18-23",
    "24-30",
    "31-39",
    "40-50",
    "51-62",
    "63-75",
    ">75",
]
BANDS_FANTERIA = [*SEED_HEADINGS_FANTERIA[:10], "76-89", ">89"]
KEYS_FANTERIA = [
    "1_3",
    "4_7",
    "8_12",
    "13_17",
    "18_23",
    "24_30",
    "31_39",
    "40_50",
    "51_62",
    "63_75",
    "76_89",
    "89_plus",
]


def _seed_block(seed: str, heading: str) -> list[list[str]]:
    """The tab-split lines of the table headed ``heading``, up to the first blank line."""
    lines = seed.split("\n")
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0] == heading)
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line.split("\t"))
    return block


def _value(cell: str) -> int:
    return 0 if cell == "-" else int(cell)


@pytest.fixture(scope="module")
def veicoli(manovra_table):
    return manovra_table("fuoco_leggere_veicoli")


@pytest.fixture(scope="module")
def fanteria(manovra_table):
    return manovra_table("fuoco_leggere_fanteria")


@pytest.fixture(scope="module")
def fanteria_seed_rows(seed_text):
    """(fermo, in moto, printed values) of each row of the infantry table in the seed."""
    block = _seed_block(seed_text("000"), FANTERIA)
    return [(p[0], p[1], [x for x in p[2:] if x != ""]) for p in block[4:]]


# -- fuoco_leggere_veicoli ---------------------------------------------------------------


def test_veicoli_identity(veicoli):
    assert veicoli.id == "fuoco_leggere_veicoli"
    assert veicoli.seed_table == VEICOLI
    assert [a.key for a in veicoli.row_axes] == ["fermo", "in_moto"]
    assert [c.key for c in veicoli.columns] == [
        "c1_3",
        "c4_7",
        "c8_12",
        "c13_18",
        "c19_25",
        "c26_33",
        "c34_42",
        "c43_52",
        "c53_63",
        "c64_75",
        "c75_plus",
    ]
    assert [c.range for c in veicoli.columns] == [
        "1-3",
        "4-7",
        "8-12",
        "13-18",
        "19-25",
        "26-33",
        "34-42",
        "43-52",
        "53-63",
        "64-75",
        ">75",
    ]
    assert [c.label for c in veicoli.columns] == [c.range for c in veicoli.columns]
    assert veicoli.data == {"range_dice": {"utile": "D8", "efficace": "D10", "breve": "D12"}}
    assert len(veicoli.rows) == 10


def test_veicoli_corners_and_inner_cells(veicoli):
    t = veicoli
    # corners
    assert t.cell(t.row_for("fermo", 1), "c1_3") == "-"
    assert t.cell(t.row_for("fermo", 1), "c75_plus") == "4 morti + CT + immobiliz"
    assert t.cell(t.row_for("fermo", 11), "c1_3") == "1 morto"
    assert t.cell(t.row_for("fermo", 11), "c75_plus") == "esplode tutti morti"
    # inner cells
    assert t.cell(t.row_for("fermo", 5), t.column_for(30)) == "3 morti + CT + Mov. breve"
    assert t.cell(t.row_for("in_moto", 8), t.column_for(20)) == "2 morti + Mov. breve"
    assert t.cell(t.row_for("fermo", 8), t.column_for(19)) == "3 morti + CT + immobiliz"
    assert t.cell(t.row_for("in_moto", 11), t.column_for(70)) == "esplode tutti morti"
    assert t.cell(t.row_for("fermo", 9), t.column_for(60)) == "6 morti + CT + distrutto"
    assert t.cell(t.row_for("in_moto", 4), t.column_for(13)) == "1 morto"
    assert t.cell(t.row_for("in_moto", 10), t.column_for(75)) == "6 morti + CT + distrutto"
    assert t.cell(t.row_for("fermo", 7), t.column_for(4)) == "1 morto"
    assert t.cell(t.row_for("fermo", 4), t.column_for(76)) == "5 morti + CT + distrutto"


def test_veicoli_whole_table_matches_seed(veicoli, seed_text):
    block = _seed_block(seed_text("000"), VEICOLI)
    assert block[1][0] == "DADO + AD" and block[1][2] == "Numero di colpi sparati"
    assert block[2][:2] == ["Bersaglio fermo", "Bersaglio in moto"]
    assert block[2][2:] == [c.label for c in veicoli.columns]
    seed_rows = block[3:]
    assert len(seed_rows) == len(veicoli.rows) == 10
    for parts, row in zip(seed_rows, veicoli.rows, strict=True):
        assert {"fermo": parts[0], "in_moto": parts[1]} == row.keys
        assert list(row.cells) == parts[2:]


def test_veicoli_footnotes_and_notes(veicoli, seed_text):
    seed = seed_text("000")
    assert len(veicoli.footnotes) == 3
    assert veicoli.footnotes[0].startswith("Il numero delle perdite inflitte al bersaglio")
    assert veicoli.footnotes[2].endswith("gli uomini sbarcano e fuggono a piedi.")
    for footnote in veicoli.footnotes:
        assert footnote in seed
    # the '2 morti + Mov. breve' cells named in the notes, without CT
    t = veicoli
    assert t.cell(t.row_for("fermo", 6), "c19_25") == "2 morti + Mov. breve"
    assert t.cell(t.row_for("fermo", 8), "c13_18") == "2 morti + Mov. breve"
    assert t.cell(t.row_for("fermo", 12), "c4_7") == "2 morti + Mov. breve"
    no_ct = [cell for row in t.rows for cell in row.cells if cell == "2 morti + Mov. breve"]
    assert len(no_ct) == 3


@pytest.mark.parametrize(
    ("axis", "value", "expected"),
    [
        ("fermo", 1, "1-2"),
        ("fermo", 2, "1-2"),
        ("fermo", 3, "3"),
        ("fermo", 4, "4"),
        ("fermo", 9, "9"),
        ("fermo", 10, "10"),
        ("fermo", 11, "+"),
        ("fermo", 40, "+"),
        ("in_moto", 1, "1-2"),
        ("in_moto", 2, "1-2"),
        ("in_moto", 3, "3-4"),
        ("in_moto", 4, "3-4"),
        ("in_moto", 5, "5-6"),
        ("in_moto", 6, "5-6"),
        ("in_moto", 7, "7"),
        ("in_moto", 12, "12"),
        ("in_moto", 13, "+"),
        ("in_moto", 99, "+"),
    ],
)
def test_veicoli_row_boundaries(veicoli, axis, value, expected):
    assert veicoli.row_for(axis, value).keys[axis] == expected


@pytest.mark.parametrize(
    ("shots", "key"),
    [
        (1, "c1_3"),
        (3, "c1_3"),
        (4, "c4_7"),
        (7, "c4_7"),
        (8, "c8_12"),
        (12, "c8_12"),
        (13, "c13_18"),
        (18, "c13_18"),
        (19, "c19_25"),
        (25, "c19_25"),
        (26, "c26_33"),
        (33, "c26_33"),
        (34, "c34_42"),
        (42, "c34_42"),
        (43, "c43_52"),
        (52, "c43_52"),
        (53, "c53_63"),
        (63, "c53_63"),
        (64, "c64_75"),
        (75, "c64_75"),
        (76, "c75_plus"),
        (500, "c75_plus"),
    ],
)
def test_veicoli_column_boundaries(veicoli, shots, key):
    assert veicoli.column_for(shots).key == key


def test_veicoli_out_of_range(veicoli):
    with pytest.raises(UnknownName):
        veicoli.row_for("fermo", 0)
    with pytest.raises(UnknownName):
        veicoli.column_for(0)


# -- fuoco_leggere_fanteria --------------------------------------------------------------


def test_fanteria_identity(fanteria):
    t = fanteria
    assert t.id == "fuoco_leggere_fanteria"
    assert t.seed_table == FANTERIA
    assert [a.key for a in t.row_axes] == ["fermo", "in_moto"]
    assert t.column_groups == {
        "S": "S — allo scoperto",
        "L": "L — riparo leggero",
        "M": "M P — riparo medio o pesante",
    }
    expected = [f"{g}_{k}" for k in KEYS_FANTERIA for g in "SLM"]
    assert [c.key for c in t.columns] == expected
    assert [c.group for c in t.columns] == list("SLM") * 12
    assert [c.range for c in t.columns] == [b for b in BANDS_FANTERIA for _ in "SLM"]
    assert [c.label for c in t.columns] == [f"{b} {g}" for b in BANDS_FANTERIA for g in "SLM"]
    assert t.cell_pattern == r"-|\d{1,2}"
    assert t.data == {
        "range_dice": {"utile": "D8", "efficace": "D10", "breve": "D12"},
        "cover_groups": {"scoperto": "S", "leggero": "L", "medio": "M", "pesante": "M"},
    }
    assert len(t.rows) == 10
    assert all(len(row.cells) == 36 for row in t.rows)


def test_fanteria_corners_and_inner_cells(fanteria):
    t = fanteria
    # corners
    assert t.cell(t.row_for("fermo", 1), "S_1_3") == "-"
    assert t.cell(t.row_for("fermo", 1), "M_89_plus") == "2"
    assert t.cell(t.row_for("fermo", 11), "S_1_3") == "1"
    assert t.cell(t.row_for("fermo", 11), "M_89_plus") == "5"
    # inner cells, addressed by shots and cover group
    assert t.cell(t.row_for("fermo", 8), t.column_for(1, "S")) == "1"
    assert t.cell(t.row_for("in_moto", 6), t.column_for(10, "S")) == "1"
    assert t.cell(t.row_for("fermo", 5), t.column_for(20, "L")) == "1"
    assert t.cell(t.row_for("in_moto", 11), t.column_for(45, "S")) == "6"
    assert t.cell(t.row_for("fermo", 9), t.column_for(100, "S")) == "10"
    assert t.cell(t.row_for("fermo", 10), t.column_for(80, "L")) == "7"
    assert t.cell(t.row_for("in_moto", 9), t.column_for(35, "M")) == "1"
    assert t.cell(t.row_for("fermo", 12), t.column_for(90, "S")) == "12"
    assert t.cell(t.row_for("fermo", 3), t.column_for(17, "S")) == "-"
    assert t.cell(t.row_for("fermo", 3), t.column_for(18, "S")) == "1"
    assert t.cell(t.row_for("in_moto", 7), t.column_for(63, "M")) == "2"


def test_fanteria_seed_garbling_is_as_documented(fanteria_seed_rows, seed_text):
    """The seed shows 11 headings, a 10-triple S L M line, 12 triples per full row and two
    rows one value short; if this changes, the notes no longer describe the seed."""
    block = _seed_block(seed_text("000"), FANTERIA)
    header = block[2]
    assert header[:2] == ["Bersaglio fermo", "in moto"]
    assert [h for h in header[2:] if h] == SEED_HEADINGS_FANTERIA
    # each heading spans three fields; after '>75' an empty three-field slot remains
    assert [header[2 + 3 * i] for i in range(11)] == SEED_HEADINGS_FANTERIA
    assert len(header) == 38 and header[35:38] == ["", "", ""]
    assert [x for x in block[3] if x] == list("SLM") * 10
    lengths = [len(values) for _, _, values in fanteria_seed_rows]
    assert lengths == [35, 35] + [36] * 8


def test_fanteria_whole_table_matches_seed(fanteria, fanteria_seed_rows):
    """Every value of every row equals the seed's, under the documented alignment: a '-'
    restored at the start of the two short rows, the other rows as printed."""
    assert len(fanteria_seed_rows) == len(fanteria.rows)
    for (fermo, in_moto, values), row in zip(fanteria_seed_rows, fanteria.rows, strict=True):
        assert row.keys == {"fermo": fermo, "in_moto": in_moto}
        if len(values) == 35:
            assert row.data == {"restored_leading_dash": True}
            assert list(row.cells) == ["-", *values]
        else:
            assert row.data == {}
            assert list(row.cells) == values


def test_fanteria_short_rows_restored(fanteria, fanteria_seed_rows):
    t = fanteria
    for value, (_, _, printed) in ((1, fanteria_seed_rows[0]), (3, fanteria_seed_rows[1])):
        row = t.row_for("fermo", value)
        assert len(row.cells) == 36
        assert row.cells[0] == "-"
        assert list(row.cells[1:]) == printed  # the tail is the seed's 35 values
    assert t.cell(t.row_for("fermo", 1), "S_18_23") == "1"
    assert t.cell(t.row_for("in_moto", 4), "S_89_plus") == "5"


@pytest.mark.parametrize("index", [0, 1])
def test_fanteria_short_rows_alignment_is_forced(fanteria_seed_rows, index):
    """Only a '-' inside the leading run of dashes keeps S >= L >= M in every triple, and all
    such placements give the same row."""
    printed = fanteria_seed_rows[index][2]
    good = set()
    for position in range(36):
        candidate = [*printed[:position], "-", *printed[position:]]
        triples = [candidate[i : i + 3] for i in range(0, 36, 3)]
        if all(_value(s) >= _value(lm) >= _value(m) for s, lm, m in triples):
            good.add(tuple(candidate))
            assert all(x == "-" for x in printed[:position])
    assert good == {("-", *printed)}


def test_fanteria_triples_ordered(fanteria):
    """Open ground loses at least as many as light cover, light cover as medium/heavy."""
    for row in fanteria.rows:
        for band in KEYS_FANTERIA:
            s, light, m = (_value(fanteria.cell(row, f"{g}_{band}")) for g in "SLM")
            assert s >= light >= m, (row.keys, band)


def test_fanteria_rows_non_decreasing_with_shots(fanteria):
    for row in fanteria.rows:
        for group in "SLM":
            values = [_value(fanteria.cell(row, f"{group}_{band}")) for band in KEYS_FANTERIA]
            assert values == sorted(values), (row.keys, group)


def test_fanteria_columns_non_decreasing_except_noted_dip(fanteria):
    """Down every column the casualties do not fall, except the seed's own L/M dip from
    fermo 6 to fermo 7 recorded in the notes (kept as printed)."""
    dips = set()
    for upper, lower in pairwise(fanteria.rows):
        for column in fanteria.columns:
            if _value(fanteria.cell(upper, column)) > _value(fanteria.cell(lower, column)):
                dips.add((upper.keys["fermo"], column.key))
    assert dips == {
        ("6", "M_40_50"),
        ("6", "L_51_62"),
        ("6", "L_63_75"),
        ("6", "M_63_75"),
        ("6", "L_76_89"),
        ("6", "M_76_89"),
        ("6", "L_89_plus"),
        ("6", "M_89_plus"),
    }
    t = fanteria
    six, seven = t.row_for("fermo", 6), t.row_for("fermo", 7)
    assert [t.cell(six, k) for k in ("M_40_50", "L_51_62", "L_63_75", "M_63_75")] == [
        "2",
        "4",
        "5",
        "3",
    ]
    assert [t.cell(seven, k) for k in ("M_40_50", "L_51_62", "L_63_75", "M_63_75")] == [
        "1",
        "3",
        "4",
        "2",
    ]
    assert any("fermo 6" in note.where for note in t.notes)


def test_fanteria_added_band(fanteria):
    """The seed's '>75' triple is bounded as 76-89 and the 12th triple gets '>89'."""
    t = fanteria
    for group in "SLM":
        restored = t.column(f"{group}_76_89")
        added = t.column(f"{group}_89_plus")
        assert (restored.range, restored.data) == (
            "76-89",
            {"seed_heading": ">75", "band_restored": True},
        )
        assert (added.range, added.data) == (">89", {"seed_heading": None, "band_added": True})
        assert t.column_for(75, group).key == f"{group}_63_75"
        assert t.column_for(76, group) is restored
        assert t.column_for(89, group) is restored
        assert t.column_for(90, group) is added
        assert t.column_for(1000, group) is added
    # the values placed under the added band are the seed's 12th triple of each row
    plus = t.row_for("fermo", 11)
    assert [t.cell(plus, f"{g}_89_plus") for g in "SLM"] == ["12", "8", "5"]
    assert [t.cell(plus, f"{g}_76_89") for g in "SLM"] == ["11", "7", "4"]
    # the + row's S values climb one per band across all twelve bands
    assert [t.cell(plus, f"S_{k}") for k in KEYS_FANTERIA] == [str(n) for n in range(1, 13)]
    assert any("column headings" in note.where for note in t.notes)


def test_fanteria_footnotes(fanteria, seed_text):
    seed = seed_text("000")
    assert len(fanteria.footnotes) == 2
    assert fanteria.footnotes[0].endswith("M P= riparo medio o pesante.")
    assert fanteria.footnotes[1].startswith("Quando una unità è ridotta al 50% degli effettivi")
    for footnote in fanteria.footnotes:
        assert footnote in seed


@pytest.mark.parametrize(
    ("axis", "value", "expected"),
    [
        ("fermo", 1, "1-2"),
        ("fermo", 2, "1-2"),
        ("fermo", 3, "3"),
        ("fermo", 4, "4"),
        ("fermo", 10, "10"),
        ("fermo", 11, "+"),
        ("fermo", 30, "+"),
        ("in_moto", 1, "1-3"),
        ("in_moto", 3, "1-3"),
        ("in_moto", 4, "4-5"),
        ("in_moto", 5, "4-5"),
        ("in_moto", 6, "6"),
        ("in_moto", 12, "12"),
        ("in_moto", 13, "+"),
        ("in_moto", 50, "+"),
    ],
)
def test_fanteria_row_boundaries(fanteria, axis, value, expected):
    assert fanteria.row_for(axis, value).keys[axis] == expected


@pytest.mark.parametrize(
    ("shots", "band"),
    [
        (1, "1_3"),
        (3, "1_3"),
        (4, "4_7"),
        (7, "4_7"),
        (8, "8_12"),
        (12, "8_12"),
        (13, "13_17"),
        (17, "13_17"),
        (18, "18_23"),
        (23, "18_23"),
        (24, "24_30"),
        (30, "24_30"),
        (31, "31_39"),
        (39, "31_39"),
        (40, "40_50"),
        (50, "40_50"),
        (51, "51_62"),
        (62, "51_62"),
        (63, "63_75"),
        (75, "63_75"),
        (76, "76_89"),
        (89, "76_89"),
        (90, "89_plus"),
        (250, "89_plus"),
    ],
)
@pytest.mark.parametrize("group", ["S", "L", "M"])
def test_fanteria_column_boundaries(fanteria, shots, band, group):
    assert fanteria.column_for(shots, group).key == f"{group}_{band}"


def test_fanteria_cover_groups_lookup(fanteria):
    t = fanteria
    row = t.row_for("fermo", 9)
    cover = t.data["cover_groups"]
    assert t.cell(row, t.column_for(60, cover["scoperto"])) == "7"
    assert t.cell(row, t.column_for(60, cover["leggero"])) == "5"
    assert t.cell(row, t.column_for(60, cover["medio"])) == "3"
    assert t.cell(row, t.column_for(60, cover["pesante"])) == "3"
    with pytest.raises(UnknownName):
        t.column_for(0, "S")
