"""Every linea_gotica table against the seed (004): cells, corners, whole tables, and the
decisions taken where the seed is garbled."""

from __future__ import annotations

import re

import pytest

from rules.core.errors import UnknownName
from rules.linea_gotica.model import Level
from rules.linea_gotica.tables import TABLES_DIR, load_tables

SEED = "004_c23c797ff42c0b66.txt"
TABLE_IDS = sorted(path.stem for path in TABLES_DIR.glob("*.yaml"))
PROSE_TABLES = {
    "cause_morale",
    "modificatori_morale",
    "aerei",
    "cecchini",
    "mine",
    "individuazione_mine",
    "supporto",
    "passeggeri",
    "sequenza",
}


def lines_of(text: str) -> list[str]:
    return text.split("\n")


def block_after(text: str, header: str, skip: int = 0) -> list[list[str]]:
    """The tab-split lines after the line ``header`` (+ ``skip`` lines), up to a blank line;
    blank lines right after the header are skipped."""
    lines = lines_of(text)
    start = lines.index(header) + 1 + skip
    while not lines[start].strip():
        start += 1
    rows: list[list[str]] = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split("\t"))
    return rows


def printed_key(key: str) -> str:
    """The seed's own words for a band: the alias after '/', else the band."""
    band, _, alias = key.partition(" / ")
    return alias or band


def strip_tags(text: str) -> str:
    return re.sub(r"</?i>", "", text)


# -- common to every table ----------------------------------------------------------------


def test_every_table_is_here():
    assert len(TABLE_IDS) == 32
    assert set(TABLE_IDS) == {t.id for t in load_tables()}


@pytest.mark.parametrize("table_id", TABLE_IDS)
def test_loads_and_cites_the_seed(lg_table, seed, table_id):
    table = lg_table(table_id)
    assert table.id == table_id
    assert table.seed == SEED
    assert table.seed_table in seed
    stripped = {line.rstrip("\t").lstrip("\t") for line in lines_of(seed)}
    assert table.seed_table.strip() in stripped or table.seed_table in seed
    for footnote in table.footnotes:
        assert footnote in stripped, footnote
    assert table.title and table.description


@pytest.mark.parametrize("table_id", sorted(PROSE_TABLES))
def test_prose_tables_quote_the_seed(lg_table, seed, table_id):
    """Tables built from the seed's prose: every cell is a verbatim piece of it."""
    table = lg_table(table_id)
    flat = " ".join(seed.split())
    for row in table.rows:
        for cell in row.cells:
            assert " ".join(cell.split()) in flat, (row.id, cell)


# -- QUALITA', DISTANZE DI COMANDO ----------------------------------------------------------


def test_qualita_whole_table(lg_table, seed):
    table = lg_table("qualita")
    rows = block_after(seed, "QUALITA'\tpossibilità di riuscita (1d10)")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    assert [r.id for r in table.rows] == ["elite", "veterani", "regolari", "reclute", "marmaglia"]
    assert [r.data["rank"] for r in table.rows] == [1, 2, 3, 4, 5]
    assert table.column("possibilita").label == "possibilità di riuscita (1d10)"


def test_quality_chances_are_parsed():
    tables = load_tables()
    table = tables["qualita"]
    values = [tables.parsed(table, r, table.column("possibilita")) for r in table.rows]
    assert values == [6, 5, 4, 3, 2]


def test_distanze_comando_whole_table(lg_table, seed):
    table = lg_table("distanze_comando")
    rows = block_after(seed, "Abilità comandante\tCapo-squadra\tCapo-sezione")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    tables = load_tables()
    parsed = tables["distanze_comando"]
    corners = [[tables.parsed(parsed, r, c) for c in parsed.columns] for r in parsed.rows]
    assert corners == [[16, 8], [12, None], [8, None], [6, None], [4, None]]
    assert table.data["scout_multiplier"] == 2
    assert "doppio della normale distanza di comando" in seed
    assert table.data["sniper_free_qualities"] == ["elite", "veterani", "regolari"]
    assert "Gli Sniper (tiratori scelti) di unità Elite, Veterane o Regolari" in seed


# -- MOVIMENTO --------------------------------------------------------------------------------


def test_movimento_fanteria_whole_table(lg_table, seed):
    table = lg_table("movimento_fanteria")
    rows = block_after(seed, "MOVIMENTO TRUPPE APPIEDATE\t")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["movimento_fanteria"]
    assert [tables.parsed(t, r, t.column("distanza")) for r in t.rows] == [8, 16, 24]


def test_tumi_is_read_as_turni(lg_table):
    table = lg_table("movimento_fanteria")
    corsa = table.row_by_id("corsa")
    assert table.cell(corsa, "distanza") == "cm. 24 (non 2 tumi consecutivi)"
    assert corsa.data == {"not_consecutive": True}
    assert any("tumi" in note.where for note in table.notes)


@pytest.mark.parametrize(
    ("table_id", "header"),
    [
        ("modificatori_movimento_fanteria", "MODIFICATORI AL MOVIMENTO TRUPPE APPIEDATE\t"),
        ("modificatori_movimento_veicoli", "MODIFICATORI AL MOVIMENTO DEI VEICOLI\t"),
    ],
)
def test_movement_modifiers_whole_tables(lg_table, seed, table_id, header):
    table = lg_table(table_id)
    rows = block_after(seed, header)
    assert [[r.label, *r.cells] for r in table.rows] == rows


def test_movement_modifier_cells_are_read():
    tables = load_tables()
    foot = tables["modificatori_movimento_fanteria"]
    read = {r.id: tables.parsed(foot, r, foot.column("modifica")) for r in foot.rows}
    assert read["sotto_fuoco"].percent == -25
    assert read["finestra"].percent == -50
    assert read["grandi_ostacoli"].whole_turn and read["blindato"].whole_turn
    vehicles = tables["modificatori_movimento_veicoli"]
    read = {r.id: tables.parsed(vehicles, r, vehicles.column("modifica")) for r in vehicles.rows}
    assert read["travolgere_grande"].percent == -75
    assert read["lasciare_riparo"].percent == -30
    assert read["invalicabile"].impassable


def test_invalidabile_and_the_mobility_footnote(lg_table, seed):
    table = lg_table("modificatori_movimento_veicoli")
    assert table.cell(table.row_by_id("invalicabile"), "modifica") == "invalidabile"
    assert any("invalidabile" in note.where for note in table.notes)
    assert table.data["mobility_test"] == {
        "die": "d10",
        "pass_at_most": 3,
        "fail_status": "mobility_damaged",
    }
    assert "Lancio di 1d10 e test superato con 1,2,3" in table.footnotes[0]
    assert table.row_by_id("travolgere_grande").data["only"] == "medium_heavy_tanks"
    assert "(solo carri armati medi e pesanti)" in table.row_by_id("travolgere_grande").label


def test_movimento_veicoli_whole_table(lg_table, seed):
    table = lg_table("movimento_veicoli")
    rows = block_after(seed, "VEICOLO\tSU STRADA (1)\tFUORI STRADA")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["movimento_veicoli"]
    values = [[tables.parsed(t, r, c) for c in t.columns] for r in t.rows]
    assert values == [[60, 25], [80, 30], [80, 35], [120, 10], [100, 35], [16, 8], [50, 35]]


# -- TIRO DIRETTO -----------------------------------------------------------------------------


def test_weapons_whole_table(lg_table, seed):
    table = lg_table("armi_tiro_diretto")
    rows = block_after(seed, "ARMA\tCOLPI\tBERSAGLIO\tBREVE\tNORMALE\tLUNGA")
    assert len(rows) == len(table.rows) == 24
    previous = ""
    for line, row in zip(rows, table.rows, strict=True):
        if line[0]:
            previous = line[0]
            assert row.label == line[0]
        else:  # the second line of a weapon: its area fire
            assert row.label == f"{previous} — area"
            assert row.id is not None and row.id.endswith("_area")
        assert list(row.cells) == line[1:]


def test_weapon_cells_are_read():
    tables = load_tables()
    table = tables["armi_tiro_diretto"]

    def read(row_id: str) -> list[object]:
        row = table.row_by_id(row_id)
        return [tables.parsed(table, row, column) for column in table.columns]

    assert read("pistola") == [1, "single", 5, 10, None]
    assert read("fucile") == [1, "single", 20, 40, 120]
    assert read("pistola_mitragliatrice") == [2, "single", 10, None, 40]
    assert read("fucile_assalto_area") == [1, (4, 10), None, 20, 60]
    assert read("mitragliatrice_area") == [1, (8, 15), None, None, None]
    assert read("bomba_mano") == [1, "he", None, 10, None]
    assert read("lanciafiamme_veicolo") == [1, "flame", 8, 18, 30]
    assert read("cannone_oltre_106") == [1, "he", 100, 200, 600]


def test_blank_area_ranges_inherit_the_weapon_line():
    from rules.linea_gotica.procedures.fire import weapon_ranges

    assert weapon_ranges("mitragliatrice_leggera_area") == (20, 40, 120)
    assert weapon_ranges("mitragliatrice_area") == (30, 70, 200)
    assert weapon_ranges("cannoncino_area") == (50, 100, 300)
    assert weapon_ranges("fucile_assalto_area") == (None, 20, 60)


def test_weapon_notes_are_data(lg_table):
    table = lg_table("armi_tiro_diretto")
    assert table.row_by_id("fucile").data["notes"] == [1]
    assert table.row_by_id("fucile_assalto_area").data["area_halves"] is True
    assert table.row_by_id("mitragliatrice_leggera").data["unemplaced_as"] == "fucile_assalto"
    assert table.row_by_id("mitragliatrice").data["must_emplace"] is True
    assert table.row_by_id("lanciafiamme").data["uses"] == 2
    assert table.row_by_id("lanciafiamme_veicolo").data["uses"] == 6
    assert "2 volte" in table.footnotes[6] and "6 volte" in table.footnotes[6]
    for row in table.rows:
        for note in row.data.get("notes", []):
            assert f"({note})" in row.label


def test_gun_calibre_bands_cover_every_calibre(lg_table):
    table = lg_table("armi_tiro_diretto")
    bands = [r.data["calibre_mm"] for r in table.rows if "calibre_mm" in r.data]
    assert bands == [[1, 76], [77, 105], [106, 1000]]


def test_modificatori_tiro_whole_table(lg_table, seed):
    table = lg_table("modificatori_tiro")
    rows = block_after(seed, "\tSITUAZIONE\tMODIFICA")
    assert len(rows) == len(table.rows) == 19
    for line, row in zip(rows, table.rows, strict=True):
        assert row.data["printed_group"] == line[0]
        assert list(row.cells) == line[1:]


def test_modificatori_tiro_groups_decision(lg_table):
    table = lg_table("modificatori_tiro")
    groups: dict[str, list[str]] = {}
    for row in table.rows:
        groups.setdefault(row.keys["gruppo"], []).append(str(row.id))
    assert groups == {
        "DISTANZA": ["breve", "lunga"],
        "TIRATORE": ["mirato", "ferito", "copertura", "opportunita"],
        "BERSAGLIO": [
            "bersaglio_cauto",
            "bersaglio_corsa",
            "sdraiato",
            "copertura_leggera",
            "copertura_pesante",
            "dietro_blindato",
        ],
        "ARMA": ["non_semiautomatico", "assalto_area"],
        "NOTTE": ["senza_luna", "luna_20", "luna_50", "bersaglio_singolo", "bersaglio_automatico"],
    }
    # each printed group name falls inside its own group
    for row in table.rows:
        if row.data["printed_group"]:
            assert row.data["printed_group"] == row.keys["gruppo"]
    assert any("TARGET's movement" in note.decision for note in table.notes)


def test_modificatori_tiro_values():
    tables = load_tables()
    table = tables["modificatori_tiro"]
    read = {r.id: tables.parsed(table, r, table.column("modifica")) for r in table.rows}
    assert read["breve"].add == 1 and read["lunga"].add == -1
    assert read["bersaglio_corsa"].add == 1  # "+ 1" with a space
    assert read["copertura_pesante"].add == -2
    assert all(read[k].halve for k in ("ferito", "copertura", "opportunita", "assalto_area"))
    assert read["bersaglio_automatico"].add == 2
    assert table.row_by_id("senza_luna").data["max_cm"] == 20
    assert table.row_by_id("luna_50").data["max_cm"] == 50


def test_deviazione_he_whole_table(lg_table, seed):
    table = lg_table("deviazione_he")
    rows = block_after(seed, "Dado (1d10)\tEffetto")
    assert [[printed_key(r.keys["d10"]), *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["deviazione_he"]
    read = [tables.parsed(t, t.row_for("d10", face), t.column("effetto")) for face in range(1, 11)]
    assert read[0].dud and read[1].dud
    assert [(d.direction.value, d.percent) for d in read[2:]] == [
        ("lungo", 20),
        ("lungo", 50),
        ("corto", 20),
        ("corto", 50),
        ("destra", 20),
        ("destra", 50),
        ("sinistra", 20),
        ("sinistra", 50),
    ]


# -- TIRO INDIRETTO ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table_id", "title"),
    [
        ("deviazione_preciso", 'DEVIAZIONE TIRO INDIRETTO "PRECISO"\t\t'),
        ("deviazione_impreciso", 'DEVIAZIONE TIRO INDIRETTO "IMPRECISO"\t\t'),
    ],
)
def test_indirect_deviation_whole_tables(lg_table, seed, table_id, title):
    table = lg_table(table_id)
    lines = lines_of(seed)
    header = lines[lines.index(title) + 1].split("\t")
    assert [strip_tags(h) for h in header[1:]] == [c.label for c in table.columns]
    rows = block_after(seed, title, skip=1)
    assert [[printed_key(r.keys["d10"]), *r.cells] for r in table.rows] == rows


def test_indirect_deviation_cells_are_read():
    tables = load_tables()
    precise = tables["deviazione_preciso"]
    imprecise = tables["deviazione_impreciso"]

    def read(table, face):  # type: ignore[no-untyped-def]
        return tables.parsed(table, table.row_for("d10", face), table.column("effetto"))

    assert read(precise, 1).on_target and read(precise, 2).on_target
    assert (read(precise, 5).along.value, read(precise, 5).along_dice) == ("lungo", 1)
    assert (read(precise, 10).across.value, read(precise, 10).across_dice) == ("sinistra", 1)
    assert read(imprecise, 2).lost
    # row 5 "a destra": read as long + right, as its effect cell says
    five = read(imprecise, 5)
    assert (five.along.value, five.along_dice, five.across.value, five.across_dice) == (
        "lungo",
        4,
        "destra",
        4,
    )
    assert (read(imprecise, 7).along.value, read(imprecise, 7).across_dice) == ("corto", 0)
    assert read(imprecise, 10).across_dice == 4


def test_impreciso_garbling_notes(lg_table):
    table = lg_table("deviazione_impreciso")
    wheres = " | ".join(note.where for note in table.notes)
    for garbled in ("a destra", "Corto Corto", "Dove sparate?", "4d 10"):
        assert garbled in wheres
    assert table.cell(table.row_for("d10", 5), "risultato") == "a destra"
    assert table.cell(table.row_for("d10", 8), "risultato") == "Corto Corto"


def test_area_he_whole_table(lg_table, seed):
    table = lg_table("area_he")
    rows = block_after(seed, "Arma\tDistanza Breve\tDistanza Lunga")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["area_he"]
    values = [[tables.parsed(t, r, c) for c in t.columns] for r in t.rows]
    assert values == [[3, 6], [4, 6], [4, 8], [5, 10], [8, 15], [10, 20], [4, 8]]


def test_calibre_bands_have_no_gap():
    from rules.linea_gotica.procedures.fire import (
        blast_row_for_calibre,
        penetration_row_for_calibre,
    )

    assert [blast_row_for_calibre(mm) for mm in (20, 59, 60, 76, 77, 105, 106, 150, 151, 380)] == [
        "cal_60",
        "cal_60",
        "cal_77",
        "cal_77",
        "cal_106",
        "cal_106",
        "oltre_106",
        "oltre_106",
        "oltre_150",
        "oltre_150",
    ]
    assert [
        penetration_row_for_calibre(mm, indirect=False) for mm in (20, 39, 40, 59, 60, 85, 86)
    ] == [
        "cannone_40",
        "cannone_40",
        "cannone_60",
        "cannone_60",
        "cannone_86",
        "cannone_86",
        "cannone_oltre_86",
    ]
    assert penetration_row_for_calibre(105, indirect=True) == "mortaio_106"
    assert penetration_row_for_calibre(106, indirect=True) == "mortaio_oltre_106"


def test_probabilita_he_whole_table(lg_table, seed):
    table = lg_table("probabilita_he")
    rows = block_after(seed, "Terreno\tDistanza Breve\tDistanza Lunga")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    assert table.footnotes == ("Modificate di +1 se sotto tiro di cannoni/mortai >106mm",)
    assert table.data == {"heavy_calibre_bonus": 1, "heavy_calibre_from_mm": 106}


# -- DANNI -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table_id", "title"),
    [
        ("danni_fanteria", "DANNI CONTRO FANTERIA\t\t"),
        ("danni_non_blindati", "DANNI CONTRO VEICOLI NON BLINDATI\t\t"),
        ("danni_blindati", "DANNI CONTRO VEICOLI BLINDATI\t\t"),
        ("effetti_morale", "EFFETTI DEL MORALE\t\t"),
    ],
)
def test_result_tables_whole(lg_table, seed, table_id, title):
    table = lg_table(table_id)
    lines = lines_of(seed)
    header = lines[lines.index(title) + 1].split("\t")
    assert [strip_tags(h) for h in header[1:]] == [c.label for c in table.columns]
    rows = block_after(seed, title, skip=1)
    assert [[printed_key(r.keys["d10"]), *r.cells] for r in table.rows] == rows


def test_danni_fanteria_bands_and_data(lg_table):
    table = lg_table("danni_fanteria")
    results = [table.row_for("d10", face).data["result"] for face in range(1, 11)]
    assert results == [
        "near_miss",
        "shocked",
        "shocked",
        "shocked",
        "shocked",
        "wounded",
        "wounded",
        "wounded",
        "badly_wounded",
        "dead",
    ]
    assert table.data == {"modifiers": {"sniper": 1, "flame": 1}, "never_modified": [10]}
    assert "+1 se a sparare è stato uno Sniper o lanciafiamme" in table.footnotes[0]
    assert any("nessun" in note.decision for note in table.notes)


def test_danni_non_blindati_bands_and_data(lg_table):
    table = lg_table("danni_non_blindati")
    results = [table.row_for("d10", face).data["result"] for face in range(1, 15)]
    assert results[:8] == [
        "near_miss",
        "mobility_damaged",
        "mobility_damaged",
        "mobility_damaged",
        "immobilised",
        "immobilised",
        "immobilised",
        "destroyed",
    ]
    assert set(results[7:]) == {"destroyed"}
    assert table.data["modifiers"] == {"none": 0, "mg": 1, "explosive": 2, "cannon": 4}
    sentence = table.footnotes[0]
    assert "+1 se a sparare è stata una mitragliatrice" in sentence
    assert "di +2 se a sparare" in sentence and "di +4 se a sparare" in sentence
    assert table.data["never_modified"] == [1] and "un risultato di 1 non viene mai" in sentence
    assert table.data["flame_no_damage_faces"] == [2, 3, 4]
    assert table.row_for("d10", 5).data["morale_modifier"] == -2


def test_danni_blindati_bands_and_data(lg_table):
    table = lg_table("danni_blindati")
    results = [table.row_for("d10", face).data["result"] for face in range(-3, 13)]
    assert results == [
        "near_miss",
        "near_miss",
        "near_miss",
        "near_miss",
        "near_miss",
        "radio_destroyed",
        "mobility_damaged",
        "mobility_damaged",
        "immobilised",
        "turret_jammed",
        "weapon_destroyed",
        "weapon_destroyed",
        "destroyed",
        "destroyed",
        "destroyed",
        "destroyed",
    ]
    assert table.data["modifiers"] == {"indirect": -4, "flame": 2}
    assert "-4 se il veicolo è stato colpito da mortai/artiglieria" in table.footnotes[0]
    assert table.row_for("d10", 2).data["counts_as_damage"] is False
    assert "radio_destroyed" not in table.data["damaged_results"]


def test_penetrazione_whole_table(lg_table, seed):
    table = lg_table("penetrazione")
    rows = block_after(seed, "\tcontro carro armato\tcontro altri blindati")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    assert table.cell(table.row_by_id("cannone_40"), "carro_armato") == "2"
    assert table.cell(table.row_by_id("fuciloni"), "altri_blindati") == "4"


def test_modificatori_penetrazione_whole_table(lg_table, seed):
    table = lg_table("modificatori_penetrazione")
    rows = block_after(seed, "La possibilità di bucare la corazza è modificata come segue :")
    assert [[r.label, *r.cells] for r in table.rows] == rows


# -- MORALE ----------------------------------------------------------------------------------------


def test_morale_lists(lg_table, seed):
    causes = lg_table("cause_morale")
    bullets = block_after(seed, "Le unità devono controllare il morale tutte le volte in cui :")
    assert [[r.cells[0]] for r in causes.rows] == bullets
    modifiers = lg_table("modificatori_morale")
    bullets = block_after(
        seed,
        "La possibilità di superare il morale è pari alla possibilità base aumentata di "
        "**+4**, e modificata come segue:",
    )
    assert [[r.label] for r in modifiers.rows] == bullets
    assert modifiers.data == {"base_bonus": 4}
    tables = load_tables()
    t = tables["modificatori_morale"]
    values = [tables.parsed(t, r, t.column("modifica")) for r in t.rows]
    assert [v.add for v in values[:-1]] == [-4, -3, 3, 2, -3, -2, -1]
    assert values[-1].choices == (1, 2, 3)


def test_effetti_morale_data(lg_table):
    table = lg_table("effetti_morale")
    assert [table.row_for("d10", f).data["result"] for f in (-4, 1, 6, 7, 9, 10)] == [
        "shocked",
        "shocked",
        "shocked",
        "panic",
        "panic",
        "surrender",
    ]
    assert table.data["die_modifiers"] == {"armoured_undamaged": -3, "elite": -2}
    assert "-3, le unità di qualità Elite di -2" in table.footnotes[0]
    assert table.data["air_attack"] == {"shocked": "panic", "surrender": "panic"}
    assert table.footnotes[1].startswith("Ai fini del Controllo del Morale")


# -- OSSERVAZIONE, AZIONI, FUMOGENI, AEREI ---------------------------------------------------------


def test_osservazione_whole_table(lg_table, seed):
    table = lg_table("osservazione")
    header = '\t<i>fanteria</i>\t<i>veicolo "aperto"</i>\t<i>veicolo "chiuso"</i>'
    assert [strip_tags(h) for h in header.split("\t")[1:]] == [c.label for c in table.columns]
    rows = block_after(seed, header)
    assert [[r.keys["bersaglio"], *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["osservazione"]
    corner = tables.parsed(t, t.rows[0], t.column("fanteria"))
    assert corner is Level.MOLTO_FACILE
    assert tables.parsed(t, t.rows[3], t.column("veicolo_chiuso")) is Level.NO
    assert table.data["ladder"] == ["NO", "Difficile", "Normale", "Facile", "Molto Facile"]


def test_azioni_whole_table(lg_table, seed):
    table = lg_table("azioni")
    rows = block_after(seed, "AZIONE\tPossibilità di riuscita (1d10)")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    tables = load_tables()
    t = tables["azioni"]
    chances = [tables.parsed(t, r, t.column("possibilita")) for r in t.rows]
    assert chances[0].automatic
    assert [c.chance(5) for c in chances[1:]] == [10, 5, 3]
    assert [c.chance(4) for c in chances[1:]] == [8, 4, 2]


def test_fumogeni_whole_table(lg_table, seed):
    table = lg_table("fumogeni")
    rows = block_after(seed, "Arma\tEffetto")
    assert [[r.label, *r.cells] for r in table.rows] == rows
    assert table.data["duration"] == {"base_turns": 4, "die": "d10"}
    assert "Tutti i fumogeni durano 4 turni + 1d10" in seed
    assert any("swallowed" in note.decision for note in table.notes)


def test_antiaereo_whole_table(lg_table, seed):
    table = lg_table("antiaereo")
    rows = block_after(
        seed,
        "E' possibile effettuare tiro antiaereo, sia durante la fase di movimento (come \"tiro "
        'di opportunità") sia nella fase di tiro. Le possibilità di colpire (1d10) sono se '
        "seguenti:",
    )
    assert [[r.label, *r.cells] for r in table.rows] == rows
    assert table.data["quality_modifiers"] == {
        "elite": 2,
        "veterani": 1,
        "regolari": 0,
        "reclute": -2,
        "marmaglia": -4,
    }
    assert table.data["return"] == {"at_least": 9, "turns": 3}
    assert "9,10 su 1d10" in table.footnotes[1] and "3 turni consecutivi" in table.footnotes[1]


def test_prose_table_data(lg_table, seed):
    aerei = lg_table("aerei")
    assert aerei.row_by_id("area_lunga").data["area_cm"] == [30, 10]
    assert aerei.row_by_id("area_breve").data["area_cm"] == [15, 5]
    assert aerei.row_by_id("mitragliamento").data["area_cm"] == [5, 30]
    cecchini = load_tables()
    t = cecchini["cecchini"]
    column = t.column("soglia")
    assert [cecchini.parsed(t, r, column).add for r in t.rows] == [3, 1, 2]
    mine = lg_table("mine")
    assert [mine.cell(r, "breve") for r in mine.rows] == ["2cm", "0cm"]
    assert mine.row_by_id("anticarro").data["unarmoured"] == {"destroyed_at_most": 5}
    spotting = load_tables()
    sp = spotting["individuazione_mine"]
    assert [
        (
            spotting.parsed(sp, r, sp.column("entro")),
            spotting.parsed(sp, r, sp.column("difficolta")),
        )
        for r in sp.rows
    ] == [(5, Level.DIFFICILE), (10, Level.FACILE)]
    support = lg_table("supporto")
    assert [
        support.row_by_id(k).data["action"] for k in ("dedicata", "generale", "mortaio_leggero")
    ] == [
        "normale",
        "difficile",
        "facile",
    ]
    assert support.data == {"adjust_cm": 20, "ranging_delay_turns": 1}
    assert "spostare il tiro di 20cm." in seed
    sequence = lg_table("sequenza")
    assert [r.id for r in sequence.rows] == ["iniziativa", "movimento", "tiro"]
    assert sequence.row_by_id("tiro").data["order"] == [
        "elite",
        "veterani",
        "regolari",
        "reclute",
        "marmaglia",
    ]


def test_not_in_the_seed_is_marked():
    sequence = load_tables()["sequenza"]
    assert any("not in the seed" in note.decision for note in sequence.notes)


def test_lookups_fail_cleanly():
    table = load_tables()["danni_fanteria"]
    with pytest.raises(UnknownName):
        table.row_for("d10", 11)
    with pytest.raises(UnknownName):
        load_tables()["nope"]
