"""The five pzgren tables checked against the seed text (003, French), cell by cell."""

from __future__ import annotations

import re

import pytest

from rules.core.errors import UnknownName
from rules.core.ruleset import get_ruleset
from rules.pzgren.cells import AntiTankResult, FireResult, MoraleResult
from rules.pzgren.model import MoraleState
from rules.pzgren.tables import load_tables

SEED = "003_ddebe590e42383a5.txt"
SEED_TABLES = ["tir_direct", "tir_antichars", "modificateurs_colonne", "modificateurs_antichars"]


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


def seed_direct_fire(seed: str) -> tuple[list[str], list[list[str]]]:
    """The seed's direct-fire block: the 9 column headings and 11 rows (die, 9 cells)."""
    lines = seed.split("\n")
    start = lines.index("\tJet de dés") + 1
    tokens: list[str] = []
    for line in lines[start:]:
        if line.startswith("-\u00a0:"):
            break
        if line.strip():
            tokens.append(line.strip())
    headings, body = tokens[:9], tokens[9:]
    assert len(body) == 11 * 10
    return headings, [body[i : i + 10] for i in range(0, len(body), 10)]


# -- common ---------------------------------------------------------------------------------


@pytest.mark.parametrize("table_id", [*SEED_TABLES, "moral"])
def test_each_table_cites_the_seed(pzgren_table, table_id):
    table = pzgren_table(table_id)
    assert table.id == table_id
    assert table.seed == SEED
    assert table.notes, "every pzgren table records its reading of the seed"


@pytest.mark.parametrize("table_id", SEED_TABLES)
def test_seed_heading_and_footnotes_are_verbatim(pzgren_table, seed, table_id):
    table = pzgren_table(table_id)
    headings = {line.strip() for line in seed.split("\n")}
    assert table.seed_table in headings
    flat = normalise(seed)
    for footnote in table.footnotes:
        assert normalise(footnote) in flat, footnote


def test_the_ruleset_loads_every_table():
    tables = get_ruleset("pzgren").tables
    assert {t.id for t in tables} == {*SEED_TABLES, "moral"}


# -- TABLE DE TIR DIRECT --------------------------------------------------------------------


def test_direct_fire_whole_table_against_the_seed(pzgren_table, seed):
    table = pzgren_table("tir_direct")
    headings, rows = seed_direct_fire(seed)
    assert [c.label for c in table.columns] == headings == [
        "1", "2", "4", "7", "11", "16", "22", "30", "45+"
    ]  # fmt: skip
    assert len(rows) == len(table.rows) == 11
    for seed_row, row in zip(rows, table.rows, strict=True):
        assert row.keys == {"jet": seed_row[0]}
        assert list(row.cells) == seed_row[1:]


def test_direct_fire_corners_and_spread(pzgren_table):
    table = pzgren_table("tir_direct")

    def cell(roll: int, column: str) -> str:
        return table.cell(table.row_for("jet", roll), column)

    assert (cell(2, "v1"), cell(2, "v45"), cell(12, "v1"), cell(12, "v45")) == (
        "M",
        "3X",
        "M",
        "3X",
    )
    assert cell(7, "v1") == "-" and cell(7, "v16") == "-" and cell(7, "v22") == "M"
    assert cell(7, "v45") == "M1"
    assert cell(3, "v45") == "3X" and cell(4, "v45") == "2X" and cell(5, "v45") == "X"
    assert cell(6, "v45") == "M2" and cell(8, "v45") == "M2" and cell(9, "v45") == "M2"
    assert cell(10, "v30") == "X" and cell(11, "v30") == "2X" and cell(12, "v30") == "2X"
    assert cell(2, "v7") == "X" and cell(3, "v7") == "M2" and cell(12, "v4") == "M2"
    assert cell(4, "v1") == "-" and cell(11, "v1") == "M" and cell(10, "v4") == "M"


@pytest.mark.parametrize(
    ("value", "column"),
    [
        (1, "1"), (2, "2"), (3, "2"), (4, "4"), (6, "4"), (7, "7"), (10, "7"), (11, "11"),
        (15, "11"), (16, "16"), (21, "16"), (22, "22"), (29, "22"), (30, "30"), (44, "30"),
        (45, "45+"), (999, "45+"),
    ],
)  # fmt: skip
def test_direct_fire_columns_by_fire_value(pzgren_table, value, column):
    assert pzgren_table("tir_direct").column_for(value).label == column


def test_direct_fire_value_zero_has_no_column(pzgren_table):
    with pytest.raises(UnknownName):
        pzgren_table("tir_direct").column_for(0)


def test_direct_fire_cells_parse_as_the_legend_says():
    tables = load_tables()
    table = tables["tir_direct"]
    parsed = {
        table.cell(row, column): tables.parsed(table, row, column)
        for row in table.rows
        for column in table.columns
    }
    assert parsed == {
        "-": FireResult("none"),
        "M": FireResult("morale", 0),
        "M1": FireResult("morale", 1),
        "M2": FireResult("morale", 2),
        "X": FireResult("steps", 1),
        "2X": FireResult("steps", 2),
        "3X": FireResult("steps", 3),
    }
    assert all(result.code == cell for cell, result in parsed.items())


def test_direct_fire_legend_decisions(pzgren_table):
    table = pzgren_table("tir_direct")
    assert table.data["x_result"] == {
        "closed_top_morale": 0,
        "others_morale": 2,
        "open_top_from_steps": 2,
    }
    assert table.data["edges"] == "clamp"
    wheres = " ".join(note.where for note in table.notes)
    assert "M#" in wheres and "#X" in wheres and "edges" in wheres


# -- MODIFICATEURS DE COLONNE ------------------------------------------------------------------

COLUMN_MODIFIERS = {
    "entrenchment": -2,
    "entrenchment_town_woods": -1,
    "town_woods": -2,
    "night": -1,
    "dug_in": -1,
    "hill": -1,
    "range_3": -1,
    "enemy_aa": -1,
    "own_minefield": +1,
    "river_engineers": +1,
    "mortar_aa_at": +1,
    "opportunity": +1,
    "cavalry": +1,
    "marsh": +1,
    "three_stacked": +1,
    "artillery": +2,
    "adjacent_all": +2,
}


def test_column_modifiers_values_and_the_cap(pzgren_table):
    table = pzgren_table("modificateurs_colonne")
    assert {row.id: int(table.cell(row, "valeur")) for row in table.rows} == COLUMN_MODIFIERS
    assert table.data["cap"] == {"min": -2, "max": 3}
    unit_scoped = {row.id for row in table.rows if row.data["scope"] == "unit"}
    assert unit_scoped == {"dug_in", "mortar_aa_at", "cavalry", "artillery"}
    assert {row.id for row in table.rows if row.data.get("declarable")} == {
        "enemy_aa",
        "river_engineers",
    }


def test_column_modifier_texts_are_fragments_of_the_seed(pzgren_table, seed):
    """Each reconstructed text is made of the seed's own fragments, in reading order."""
    table = pzgren_table("modificateurs_colonne")
    flat = normalise(seed)
    fragments = {
        "own_minefield": [
            "l’hexagone cible contient des champs de mines",
            "appartenant au joueur faisant feu.",
        ],
        "river_engineers": [
            "l’hexagone cible contient des unités en train d’être",
            "assistées dans la traversée d’une rivière par des unités du",
            "génie (voir règle 5.7).",
        ],
        "mortar_aa_at": [
            "la cible est un mortier/une unité AA ( anti-aérienne )/une",
            "unité AT ( antichars )",
        ],
        "enemy_aa": [
            "une unité AA anti-aérienne ennemie non démoralisée à moins",
            "de 3 hexagones d’une ( des ) unité(s) aérienne(s) attaquante(s).",
        ],
        "three_stacked": [
            "trois unités de combat sont empilés dans l’hexagone cible",
            "(voir règle 4.4)",
        ],
        "entrenchment_town_woods": [
            "l’hexagone cible contient un retranchement",
            "( -1 si le retranchement est dans un hexagone de ville ou de bois )",
        ],
    }
    for row in table.rows:
        text = table.cell(row, "texte")
        pieces = fragments.get(row.id or "", [text])
        assert normalise(" ".join(pieces)) == normalise(text), row.id
        for piece in pieces:
            assert normalise(piece) in flat, piece
        value = table.cell(row, "valeur")
        if row.id != "entrenchment_town_woods":
            assert normalise(f"{value} : {pieces[0]}") in flat, row.id


def test_the_garbled_list_is_recorded_in_notes(pzgren_table):
    table = pzgren_table("modificateurs_colonne")
    text = " ".join(f"{n.where} {n.decision}" for n in table.notes)
    assert "two columns" in text and "retranchement" in text and "dug_in" in text


# -- TIR ANTI-CHARS -----------------------------------------------------------------------------


def test_anti_tank_table_against_the_seed(pzgren_table, seed):
    table = pzgren_table("tir_antichars")
    lines = [line.strip() for line in seed.split("\n")]
    assert [row.label for row in table.rows] == ["9 ou moins", "10 à 12", "13 ou plus"]
    for row in table.rows:
        assert row.label in lines
        assert normalise(table.cell(row, "effet")) in normalise(seed)
    assert table.row_for("resultat", 9).id == "aucun"
    assert table.row_for("resultat", -30).id == "aucun"
    assert table.row_for("resultat", 10).id == table.row_for("resultat", 12).id == "perd_un_pas"
    assert table.row_for("resultat", 13).id == table.row_for("resultat", 40).id == "eliminee"
    assert table.data["truck_armour"] == -1


def test_anti_tank_cells_parse():
    tables = load_tables()
    table = tables["tir_antichars"]
    column = table.column("effet")
    assert [tables.parsed(table, row, column) for row in table.rows] == [
        AntiTankResult("none"),
        AntiTankResult("step", 2),
        AntiTankResult("eliminated"),
    ]


def test_anti_tank_modifiers(pzgren_table, seed):
    table = pzgren_table("modificateurs_antichars")
    values = {row.id: int(table.cell(row, "valeur")) for row in table.rows}
    assert values == {
        "moved": -1,
        "opportunity": -1,
        "dug_in_or_town_woods": -1,
        "higher_hill": -1,
        "range_over_5": -1,
        "adjacent": +1,
        "river_engineers": +1,
        "flank": +2,
    }
    lines = {normalise(line) for line in seed.split("\n")}
    for row in table.rows:
        assert normalise(f"{table.cell(row, 'valeur')} : {table.cell(row, 'texte')}") in lines
    assert table.data["cap"] is None  # "pas de modificateur maximal"


# -- moral (not in the seed) ------------------------------------------------------------------


def test_the_morale_table_says_it_is_not_in_the_seed(pzgren_table, seed):
    table = pzgren_table("moral")
    assert table.data["not_in_seed"] is True
    assert table.title.in_language("fr") == "Vérification de moral (règle 14.1)"
    assert table.title.in_language("en") == "Morale check (rule 14.1)"
    assert not any("seed" in text or "graine" in text for text in table.title.translations.values())
    assert (table.description or "").startswith("NOT IN THE SEED")
    assert "règle 14.1" in seed and "14.1" in table.seed_table
    assert table.seed_table not in {line.strip() for line in seed.split("\n")}


def test_the_morale_cells_parse():
    tables = load_tables()
    table = tables["moral"]
    fail = table.row_by_id("echec")
    assert [tables.parsed(table, fail, c) for c in table.columns] == [
        MoraleResult(MoraleState.DISRUPTED),
        MoraleResult(MoraleState.DEMORALIZED),
        MoraleResult(MoraleState.DEMORALIZED),
    ]
    assert table.row_for("marge", 0).id == "reussite"
    assert table.row_for("marge", 1).id == "echec"


def test_the_cli_listing_marks_the_morale_table(capsys):
    from rules.cli import main

    assert main(["table", "pzgren"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("moral\t"))
    assert "not in the seed" in line
