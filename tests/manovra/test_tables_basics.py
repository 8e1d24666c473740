"""Nine small and medium manovra tables, checked against the seed (000).

addestramento, valenza_comando, tipi_terreno, osservazione, campo_minato,
perdite_equipaggi, comunicazioni, dispersione, test.
"""

from __future__ import annotations

import re

import pytest

from rules.core.errors import UnknownName

TABLE_IDS = [
    "addestramento",
    "valenza_comando",
    "tipi_terreno",
    "osservazione",
    "campo_minato",
    "perdite_equipaggi",
    "comunicazioni",
    "dispersione",
    "test",
]


# -- helpers ---------------------------------------------------------------------------


def seed_lines(text: str) -> list[str]:
    return text.split("\n")


def block(text: str, heading: str, skip: int) -> list[list[str]]:
    """The tab-split lines of the seed table titled ``heading``.

    ``skip`` header lines after the heading are skipped; the block ends at a blank line.
    """
    lines = seed_lines(text)
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0] == heading)
    rows: list[list[str]] = []
    for line in lines[start + 1 + skip :]:
        if not line.strip():
            break
        rows.append(line.split("\t"))
    return rows


def header(text: str, heading: str, offset: int) -> list[str]:
    lines = seed_lines(text)
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0] == heading)
    return lines[start + offset].split("\t")


# -- common to all nine ----------------------------------------------------------------


@pytest.mark.parametrize("table_id", TABLE_IDS)
def test_loads_and_cites_seed(manovra_table, seed_text, table_id):
    t = manovra_table(table_id)
    assert t.id == table_id
    assert t.seed == "000_28771903b3591280.txt"
    stripped = {line.rstrip("\t") for line in seed_lines(seed_text("000"))}
    assert t.seed_table in stripped
    for footnote in t.footnotes:
        assert footnote in stripped, footnote


# -- addestramento ---------------------------------------------------------------------


def test_addestramento_cells(manovra_table):
    t = manovra_table("addestramento")
    assert [c.key for c in t.columns] == ["definizione", "ad"]
    assert [r.id for r in t.rows] == ["reclute", "operativi", "veterani", "elite"]
    assert t.row_axes == ()
    reclute, elite = t.row_by_id("reclute"), t.row_by_id("elite")
    assert reclute.label == "RECLUTE"
    assert t.cell(reclute, "definizione") == "-Unità senza esperienza di combattimento"
    assert t.cell(reclute, "ad") == "0"
    assert t.cell(elite, "definizione") == "-Unità eccezionalmente addestrate ed esperte"
    assert t.cell(elite, "ad") == "3"
    assert t.cell(t.row_by_id("operativi"), "definizione") == (
        "-Unità con esperienza di combattimento"
    )
    assert t.cell(t.row_by_id("operativi"), "ad") == "1"
    assert t.cell(t.row_by_id("veterani"), "definizione") == (
        "-Unità con molta esperienza di combattimento"
    )
    assert t.cell(t.row_by_id("veterani"), "ad") == "2"
    assert [r.data["ad"] for r in t.rows] == [0, 1, 2, 3]
    assert t.column_cell_patterns == {"ad": r"\d"}


def test_addestramento_whole_table(manovra_table, seed_text):
    t = manovra_table("addestramento")
    text = seed_text("000")
    lines = block(text, "ADDESTRAMENTO", 1)
    assert len(lines) == len(t.rows)
    for cells, row in zip(lines, t.rows, strict=True):
        assert row.label == cells[0]
        assert list(row.cells) == cells[1:]
        assert row.data == {"ad": int(cells[2])}


def test_addestramento_header_note(manovra_table, seed_text):
    # The seed header "Definizione<TAB><TAB>Livello AD": Definizione names the text column.
    t = manovra_table("addestramento")
    head = header(seed_text("000"), "ADDESTRAMENTO", 1)
    assert head == ["Definizione", "", "Livello AD"]
    assert t.column("definizione").label == head[0]
    assert t.column("ad").label == head[2]
    assert any("Definizione" in n.where for n in t.notes)


# -- valenza_comando -------------------------------------------------------------------


def test_valenza_comando_cells(manovra_table, seed_text):
    t = manovra_table("valenza_comando")
    assert [c.key for c in t.columns] == ["cv"]
    assert [r.id for r in t.rows] == ["caporale", "sergente", "tenente", "capitano"]
    assert t.row_by_id("caporale").label == "CAPORALE e CAPORAL MAGGIORE"
    assert t.row_by_id("sergente").label == "SERGEANTE, SERGENTE MAGGIORE e COMMISSARIO POL."
    assert t.row_by_id("tenente").label == "TENENTE e SOTTOTENENTE"
    assert t.row_by_id("capitano").label == "CAPITANO e gradi superiori"
    assert t.cell(t.row_by_id("caporale"), "cv") == "0"
    assert t.cell(t.row_by_id("sergente"), "cv") == "1"
    assert t.cell(t.row_by_id("tenente"), "cv") == "2"
    assert t.cell(t.row_by_id("capitano"), "cv") == "3"
    assert [r.data for r in t.rows] == [{"cv": 0}, {"cv": 1}, {"cv": 2}, {"cv": 3}]
    lines = block(seed_text("000"), "VALENZA DI COMANDO", 1)
    assert [[r.label, *r.cells] for r in t.rows] == lines
    for cells, row in zip(lines, t.rows, strict=True):
        assert row.data["cv"] == int(cells[1])
    assert header(seed_text("000"), "VALENZA DI COMANDO", 1) == ["Grado", t.column("cv").label]


def test_valenza_comando_typo_kept(manovra_table):
    # Note: "SERGEANTE" is the seed's spelling, kept in the label; the id is sergente.
    t = manovra_table("valenza_comando")
    assert t.row_by_id("sergente").label.startswith("SERGEANTE,")
    with pytest.raises(UnknownName):
        t.row_by_id("sergeante")


# -- tipi_terreno ----------------------------------------------------------------------

TERRAIN_IDS = [
    "piano_scoperto", "piano_coltivato", "piano_boscoso", "piano_accidentato",
    "pendio_scoperto", "pendio_boscoso", "pendio_roccioso", "rocce_a_picco",
    "altopiano_scoperto", "altopiano_boscoso", "fluviale_guado", "fluviale_palude",
    "fluviale_acqua", "edificio_muratura", "edificio_legno", "muro_di_cinta", "siepe",
    "bunker", "trincee", "postazione_sacchi", "ostacoli_at", "reticolati", "campi_minati",
    "ostacolo_barricate", "relitto", "relitto_corazzato", "strade",
]  # fmt: skip
MOVE_KEYS = [
    "carri", "semicingolati", "autoblindo", "camion", "auto_jeep", "moto", "artiglieria",
    "fanteria",
]  # fmt: skip


def test_tipi_terreno_shape(manovra_table):
    t = manovra_table("tipi_terreno")
    assert [c.key for c in t.columns] == ["riparo", *MOVE_KEYS]
    assert [r.id for r in t.rows] == TERRAIN_IDS
    assert t.row_axes == ()


def test_tipi_terreno_cells(manovra_table):
    t = manovra_table("tipi_terreno")
    first, last = t.row_by_id("piano_scoperto"), t.row_by_id("strade")
    assert first.label == "Piano- scoperto"
    assert t.cell(first, "riparo") == "-"
    assert t.cell(first, "fanteria") == "tattico"
    assert last.label == "Strade"
    assert t.cell(last, "riparo") == "-"
    assert t.cell(last, "fanteria") == "tattico"
    assert t.cell(last, "carri") == "2 cm ogni 1"
    assert t.cell(last, "autoblindo") == "3 cm ogni 1"
    assert t.cell(t.row_by_id("edificio_legno"), "carri") == "breve /rovina"
    assert t.cell(t.row_by_id("muro_di_cinta"), "semicingolati") == "cauto/elimina"
    assert t.cell(t.row_by_id("muro_di_cinta"), "carri") == "breve /elimina"
    assert t.cell(t.row_by_id("siepe"), "moto") == "tattico /elimina"
    assert t.cell(t.row_by_id("siepe"), "artiglieria") == "cauto"
    assert t.cell(t.row_by_id("reticolati"), "fanteria") == "cauto +ET"
    assert t.cell(t.row_by_id("campi_minati"), "camion") == "cauto +ET"
    assert t.cell(t.row_by_id("bunker"), "riparo") == "P pesante"
    assert t.cell(t.row_by_id("piano_accidentato"), "riparo") == "M medio"
    assert t.cell(t.row_by_id("piano_accidentato"), "artiglieria") == "intransitabile"
    assert t.cell(t.row_by_id("ostacoli_at"), "moto") == "cauto"
    assert t.cell(t.row_by_id("ostacolo_barricate"), "autoblindo") == "breve /sposta"
    assert t.cell(t.row_by_id("altopiano_boscoso"), "auto_jeep") == "breve"
    assert t.cell(t.row_by_id("fluviale_acqua"), "fanteria") == "intransitabile"
    assert t.row_by_id("fluviale_guado").label == "Fluviale - Guado"
    assert t.row_by_id("ostacoli_at").label == "Ostacoli AT"


def test_tipi_terreno_whole_table(manovra_table, seed_text):
    t = manovra_table("tipi_terreno")
    text = seed_text("000")
    head = header(text, "TIPI DI TERRENO", 2)
    assert head[0] == "TIPO"
    assert [c.label for c in t.columns] == head[1:]
    groups = header(text, "TIPI DI TERRENO", 1)
    assert t.column_groups["terreno"] == groups[0]
    assert t.column_groups["movimento"] == groups[2]
    lines = block(text, "TIPI DI TERRENO", 2)
    assert len(lines) == len(t.rows) == 27
    for cells, row in zip(lines, t.rows, strict=True):
        assert row.label == cells[0]
        assert list(row.cells) == cells[1:]


def test_tipi_terreno_patterns_and_data(manovra_table, seed_text):
    t = manovra_table("tipi_terreno")
    riparo = {t.cell(r, "riparo") for r in t.rows}
    assert riparo == {"-", "L leggero", "M medio", "P pesante"}
    moves = {t.cell(r, k) for r in t.rows for k in MOVE_KEYS}
    assert moves == {
        "tattico", "breve", "cauto", "intransitabile", "breve /rovina", "breve /elimina",
        "cauto/elimina", "tattico /elimina", "breve /sposta", "cauto +ET", "2 cm ogni 1",
        "3 cm ogni 1",
    }  # fmt: skip
    # the pattern accepts exactly the forms present, no more
    pattern = t.cell_pattern
    assert all(re.fullmatch(pattern, m) for m in moves)
    for bad in ("breve/rovina", "cauto +et", "4 cm ogni 1", "veloce", "L leggero"):
        assert re.fullmatch(pattern, bad) is None
    assert re.fullmatch(t.column_cell_patterns["riparo"], "tattico") is None
    # data read from the line under the table
    line = t.footnotes[0]
    assert int(re.search(r"tattico fanteria =(\d+) cm", line).group(1)) == 12
    assert int(re.search(r"breve =movimento tattico / (\d+)", line).group(1)) == 2
    assert int(re.search(r"cauto =movimento tattico / (\d+)", line).group(1)) == 4
    assert t.data == {"tactical_move_infantry_cm": 12, "short_divisor": 2, "cautious_divisor": 4}
    assert t.footnotes[1].startswith("ET = l'unità deve effettuare un Test per evitare")
    assert len(t.footnotes) == 2


# -- osservazione ----------------------------------------------------------------------

UNIT_TEXT = {
    "carri": "Carri armati Semoventi Cingolati Camion (almeno 1/3 di sagoma visibile)",
    "bassi": "SPG basso profilo Autoblindo Jeep Automobili Artiglieria "
    "(almeno 1/3 di sagoma visibile)",
    "fanteria": "Fanteria e mortai Moto (almeno mezza base visibile)",
}
TERRAIN_TEXT = {
    ("carri", "aperto"): "Scoperto, coltivazioni, strade",
    ("carri", "copertura"): "Boschi, rovine, edifici, postazioni",
    ("bassi", "aperto"): "Scoperto, coltivazioni, strade",
    ("bassi", "copertura"): "Boschi, rovine, edifici, postazioni",
    ("bassi", "altro"): "Rocce, urbano, altri tipi",
    ("fanteria", "aperto"): "Scoperto, strade",
    ("fanteria", "copertura"): "Boschi, rovine / edifici, trincee",
    ("fanteria", "altro"): "Accidentato, coltivazioni, altri tipi",
}
STATE_TEXT = {"appostata": "appostata", "in_movimento": "in movimento", "ha_sparato": "ha sparato"}
OBS_COLS = ["ordinaria_esterno", "ordinaria_interno", "feritoia_esterno", "feritoia_interno"]
# every cell, typed from the seed: (unit, terrain, state) -> the four columns in order
OBS = {
    ("carri", "aperto", "appostata"): ("110", "110", "75", "75"),
    ("carri", "aperto", "in_movimento"): ("300", "300", "240", "240"),
    ("carri", "aperto", "ha_sparato"): ("450", "450", "360", "360"),
    ("carri", "copertura", "appostata"): ("45", "18", "30", "9"),
    ("carri", "copertura", "in_movimento"): ("135", "30", "90", "15"),
    ("carri", "copertura", "ha_sparato"): ("180", "38", "135", "22"),
    ("bassi", "aperto", "appostata"): ("75", "75", "45", "45"),
    ("bassi", "aperto", "in_movimento"): ("180", "180", "135", "135"),
    ("bassi", "aperto", "ha_sparato"): ("300", "300", "210", "210"),
    ("bassi", "copertura", "appostata"): ("30", "15", "15", "7"),
    ("bassi", "copertura", "in_movimento"): ("90", "22", "60", "11"),
    ("bassi", "copertura", "ha_sparato"): ("135", "30", "120", "15"),
    ("bassi", "altro", "appostata"): ("60", "22", "30", "15"),
    ("bassi", "altro", "in_movimento"): ("120", "60", "90", "45"),
    ("bassi", "altro", "ha_sparato"): ("225", "110", "150", "75"),
    ("fanteria", "aperto", "appostata"): ("60", "60", "30", "30"),
    ("fanteria", "aperto", "in_movimento"): ("90", "90", "50", "50"),
    ("fanteria", "aperto", "ha_sparato"): ("120", "120", "90", "90"),
    ("fanteria", "copertura", "appostata"): ("15", "9", "7", "4"),
    ("fanteria", "copertura", "in_movimento"): ("30/15", "13/9", "15/7", "9/4"),
    ("fanteria", "copertura", "ha_sparato"): ("60", "18", "30", "13"),
    ("fanteria", "altro", "appostata"): ("30", "13", "15", "9"),
    ("fanteria", "altro", "in_movimento"): ("60", "18", "30", "13"),
    ("fanteria", "altro", "ha_sparato"): ("100", "50", "60", "37"),
}


def test_osservazione_shape(manovra_table):
    t = manovra_table("osservazione")
    assert [a.key for a in t.row_axes] == ["unita", "terreno", "stato"]
    assert all(a.kind == "category" for a in t.row_axes)
    assert [c.key for c in t.columns] == OBS_COLS
    assert [c.label for c in t.columns] == [
        "ORDINARIA da esterno area cm",
        "ORDINARIA da interno area cm",
        "DA FERITOIA da esterno area cm",
        "DA FERITOIA da interno area cm",
    ]
    assert len(t.rows) == len(OBS) == 24
    assert [tuple(r.keys[a] for a in ("unita", "terreno", "stato")) for r in t.rows] == list(OBS)


def test_osservazione_every_cell(manovra_table):
    t = manovra_table("osservazione")
    for (unit, terrain, state), expected in OBS.items():
        row = t.row_where(unita=unit, terreno=terrain, stato=state)
        assert tuple(t.cell(row, k) for k in OBS_COLS) == expected, (unit, terrain, state)
        assert row.label == (
            f"{UNIT_TEXT[unit]} — {TERRAIN_TEXT[(unit, terrain)]} — {STATE_TEXT[state]}"
        )
    # corners
    first = t.row_where(unita="carri", terreno="aperto", stato="appostata")
    last = t.row_where(unita="fanteria", terreno="altro", stato="ha_sparato")
    assert t.cell(first, "ordinaria_esterno") == "110"
    assert t.cell(first, "feritoia_interno") == "75"
    assert t.cell(last, "ordinaria_esterno") == "100"
    assert t.cell(last, "feritoia_interno") == "37"


def test_osservazione_against_seed_lines(manovra_table, seed_text):
    # The seed block is garbled (shifted lines); its four trailing numbers and the state
    # before them are intact on every line, in the order of the YAML rows.
    t = manovra_table("osservazione")
    lines = block(seed_text("000"), "OSSERVAZIONE E INDIVIDUAZIONE", 2)
    assert len(lines) == len(t.rows)
    for cells, row in zip(lines, t.rows, strict=True):
        while cells and cells[-1] == "":
            cells = cells[:-1]
        assert list(row.cells) == cells[-4:]
        assert STATE_TEXT[row.keys["stato"]] == cells[-5]
        # the terrain and unit texts, where a line carries them, are the label's
        label = row.label.split(" — ")
        assert all(c in label for c in cells[:-5] if c)


def test_osservazione_no_carri_altro(manovra_table):
    t = manovra_table("osservazione")
    assert not [r for r in t.rows if (r.keys["unita"], r.keys["terreno"]) == ("carri", "altro")]
    with pytest.raises(UnknownName):
        t.row_where(unita="carri", terreno="altro", stato="appostata")
    assert {r.keys["terreno"] for r in t.rows if r.keys["unita"] == "carri"} == {
        "aperto",
        "copertura",
    }
    assert any("carri" in n.where for n in t.notes)


def _values(cell: str) -> list[int]:
    return [int(v) for v in cell.split("/")]


def test_osservazione_orderings_support_placement(manovra_table):
    # appostata <= in movimento <= ha sparato in every (unit, terrain, column); open >= altro
    # >= cover; esterno >= interno; ordinaria >= feritoia. These place the shifted lines.
    t = manovra_table("osservazione")
    groups = {(r.keys["unita"], r.keys["terreno"]) for r in t.rows}
    for unit, terrain in groups:
        for key in OBS_COLS:
            a, m, s = (
                _values(t.cell(t.row_where(unita=unit, terreno=terrain, stato=st), key))
                for st in ("appostata", "in_movimento", "ha_sparato")
            )
            assert max(a) <= min(m) and max(m) <= min(s), (unit, terrain, key)
    for unit in ("bassi", "fanteria"):
        for state in STATE_TEXT:
            for key in OBS_COLS:
                o, x, c = (
                    _values(t.cell(t.row_where(unita=unit, terreno=ter, stato=state), key))
                    for ter in ("aperto", "altro", "copertura")
                )
                assert min(o) >= max(x) >= max(c), (unit, state, key)
    for row in t.rows:
        oe, oi, fe, fi = (_values(t.cell(row, k)) for k in OBS_COLS)
        for i in range(len(oe)):
            assert oe[i] >= oi[i] and fe[i] >= fi[i] and oe[i] >= fe[i] and oi[i] >= fi[i]


def test_osservazione_split_row(manovra_table):
    t = manovra_table("osservazione")
    row = t.row_where(unita="fanteria", terreno="copertura", stato="in_movimento")
    assert row.cells == ("30/15", "13/9", "15/7", "9/4")
    assert row.data == {"split": {"first": ["boschi", "rovine"], "second": ["edifici", "trincee"]}}
    # the terrain label carries the same slash: first part woods/ruins, second buildings/trenches
    first, second = TERRAIN_TEXT[("fanteria", "copertura")].split(" / ")
    assert [w.strip().lower() for w in first.split(",")] == row.data["split"]["first"]
    assert [w.strip().lower() for w in second.split(",")] == row.data["split"]["second"]
    # only this row is split
    assert [r for r in t.rows if any("/" in c for c in r.cells)] == [row]
    assert [r for r in t.rows if r.data] == [row]
    assert t.cell_pattern == r"\d+(/\d+)?"


def test_osservazione_footnote_data(manovra_table):
    t = manovra_table("osservazione")
    assert t.footnotes == (
        "Qualsiasi unità o modello che si trovi entro 3 cm da elementi di unità di fanteria "
        "amica, non in panico, usufruisce automaticamente della stessa capacità di "
        "osservazione.",
    )
    assert int(re.search(r"entro (\d+) cm", t.footnotes[0]).group(1)) == 3
    assert t.data == {"sharing_radius_cm": 3}


# -- campo_minato ----------------------------------------------------------------------


def test_campo_minato_cells(manovra_table):
    t = manovra_table("campo_minato")
    assert [a.key for a in t.row_axes] == ["d6"]
    assert [c.key for c in t.columns] == [
        "carri",
        "autoblindo_semicingolato",
        "camion_auto_moto",
        "fanteria_artiglieria",
    ]
    assert t.cell(t.row_for("d6", 1), "carri") == "-"
    assert t.cell(t.row_for("d6", 1), "fanteria_artiglieria") == "1 morto"
    assert t.cell(t.row_for("d6", 6), "carri") == "distrutto + salvi"
    assert t.cell(t.row_for("d6", 6), "fanteria_artiglieria") == "3 morti + CT"
    assert t.cell(t.row_for("d6", 1), "autoblindo_semicingolato") == "immobilizz.+ CT"
    assert t.cell(t.row_for("d6", 1), "camion_auto_moto") == "distrutto + 2morti"
    assert t.cell(t.row_for("d6", 2), "camion_auto_moto") == "distrutto + 3morti"
    assert t.cell(t.row_for("d6", 2), "carri") == "cingolo spezzato"
    assert t.cell(t.row_for("d6", 3), "fanteria_artiglieria") == "2 morti + CT"
    assert t.cell(t.row_for("d6", 4), "autoblindo_semicingolato") == "distrutto + salvi"
    assert t.cell(t.row_for("d6", 5), "carri") == "immobilizz.+ CT"
    assert t.cell(t.row_for("d6", 5), "camion_auto_moto") == "esplode"
    assert t.cell(t.row_for("d6", 5), "autoblindo_semicingolato") == "distrutto + morti"
    assert t.cell(t.row_for("d6", 6), "autoblindo_semicingolato") == "esplode"


def test_campo_minato_whole_table(manovra_table, seed_text):
    t = manovra_table("campo_minato")
    text = seed_text("000")
    head = header(text, "EFFETTI CAMPO MINATO", 2)
    assert head[0] == "D6" == t.row_axes[0].label
    assert [c.label for c in t.columns] == head[1:]
    assert t.column_groups["bersaglio"] == header(text, "EFFETTI CAMPO MINATO", 1)[1]
    lines = block(text, "EFFETTI CAMPO MINATO", 2)
    assert [[r.keys["d6"], *r.cells] for r in t.rows] == lines
    assert t.footnotes == (
        "salvi = tutto l'equipaggio sopravvive; morti = tutto l'equipaggio muore;",
    )


def test_campo_minato_range_boundaries(manovra_table):
    t = manovra_table("campo_minato")
    for face in range(1, 7):
        assert t.row_for("d6", face).keys["d6"] == str(face)
    for bad in (0, 7, 100):
        with pytest.raises(UnknownName):
            t.row_for("d6", bad)


# -- perdite_equipaggi -----------------------------------------------------------------


def test_perdite_equipaggi(manovra_table, seed_text):
    t = manovra_table("perdite_equipaggi")
    assert [c.key for c in t.columns] == ["effetto"]
    assert [r.id for r in t.rows] == ["almeno_un_morto", "meta_morti", "un_superstite"]
    one, half, last = (t.row_by_id(i) for i in ("almeno_un_morto", "meta_morti", "un_superstite"))
    assert one.label == "1 o più morti"
    assert t.cell(one, "effetto") == (
        "Nel test iniziale non usa più il dado ma viene calcolato sempre un risultato di 1+AD+CV."
    )
    assert half.label == "50% o più morti"
    assert t.cell(half, "effetto") == (
        "Non può più compiere azioni complesse, ma solo azioni semplici "
        "(ad esempio o spara o muove)"
    )
    assert last.label == "1 solo superstite"
    assert t.cell(last, "effetto") == (
        "Non può più sparare con le armi pesanti, può sparare solo con le armi leggere."
    )
    text = seed_text("000")
    lines = block(text, "PERDITE EQUIPAGGI", 1)
    assert [[r.label, *r.cells] for r in t.rows] == lines
    assert header(text, "PERDITE EQUIPAGGI", 1) == ["PERDITE", t.column("effetto").label]
    assert t.footnotes == ("Tutti gli effetti sono cumulativi.",)
    assert t.data == {"cumulative": True}


def test_perdite_equipaggi_machine_reading(manovra_table):
    t = manovra_table("perdite_equipaggi")
    one = t.row_by_id("almeno_un_morto")
    assert one.data == {
        "trigger": {"dead_at_least": 1},
        "effect": "fixed_initial_die",
        "fixed_die_face": 1,
    }
    assert t.row_by_id("meta_morti").data == {
        "trigger": {"dead_fraction_at_least": 0.5},
        "effect": "simple_actions_only",
    }
    assert t.row_by_id("un_superstite").data == {
        "trigger": {"survivors_exactly": 1},
        "effect": "light_weapons_only",
    }
    # triggers read from the labels
    assert one.label.startswith(str(one.data["trigger"]["dead_at_least"]))
    pct = int(re.match(r"(\d+)%", t.row_by_id("meta_morti").label).group(1))
    assert pct / 100 == t.row_by_id("meta_morti").data["trigger"]["dead_fraction_at_least"]


def test_perdite_equipaggi_initial_test_is_it(manovra_table):
    # Note: "test iniziale" is IT (D6 + AD + CV); the D6 is replaced by a 1: "1+AD+CV".
    t = manovra_table("perdite_equipaggi")
    cell = t.cell(t.row_by_id("almeno_un_morto"), "effetto")
    fixed = re.search(r"risultato di (\d)\+(.+)\.$", cell)
    assert int(fixed.group(1)) == t.row_by_id("almeno_un_morto").data["fixed_die_face"]
    it = manovra_table("test").row_by_id("IT")
    assert it.data["roll"] == ["D6"]
    assert fixed.group(2).split("+") == it.data["add"]
    assert any("test iniziale" in n.where.lower() for n in t.notes)


# -- comunicazioni ---------------------------------------------------------------------


def test_comunicazioni(manovra_table, seed_text):
    t = manovra_table("comunicazioni")
    assert [c.key for c in t.columns] == ["linea_diretta", "linea_interrotta"]
    assert [r.id for r in t.rows] == ["stessa_squadra", "stesso_plotone", "stesso_plotone_radio"]
    assert t.cell(t.row_by_id("stessa_squadra"), "linea_diretta") == "12 cm"
    assert t.cell(t.row_by_id("stessa_squadra"), "linea_interrotta") == "6 cm"
    assert t.cell(t.row_by_id("stesso_plotone"), "linea_diretta") == "24 cm"
    assert t.cell(t.row_by_id("stesso_plotone"), "linea_interrotta") == "12 cm"
    assert t.cell(t.row_by_id("stesso_plotone_radio"), "linea_diretta") == "96 cm"
    assert t.cell(t.row_by_id("stesso_plotone_radio"), "linea_interrotta") == "48 cm"
    assert t.row_by_id("stesso_plotone_radio").label == (
        "Squadre o modelli dello stesso plotone con le radio"
    )
    text = seed_text("000")
    lines = block(text, "COMUNICAZIONI", 2)
    assert [[r.label, *r.cells] for r in t.rows] == lines
    assert header(text, "COMUNICAZIONI", 2)[1:] == [c.label for c in t.columns]
    assert header(text, "COMUNICAZIONI", 1)[1] == t.column_groups["distanza"]
    for row in t.rows:
        direct, interrupted = (int(c.removesuffix(" cm")) for c in row.cells)
        assert row.data == {"direct_cm": direct, "interrupted_cm": interrupted}


def test_comunicazioni_footnote_data(manovra_table):
    t = manovra_table("comunicazioni")
    (note,) = t.footnotes
    assert int(re.search(r"fino a (\d+) cm sono sempre possibili", note).group(1)) == 6
    assert int(re.search(r"trincerate la distanza massima è sempre (\d+) cm", note).group(1)) == 96
    assert t.data == {"always_possible_cm": 6, "entrenched_max_cm": 96}


# -- dispersione -----------------------------------------------------------------------

DISP_IDS = [
    "diretto_he",
    "lancio_ordigni",
    "mortai_diretto",
    "indiretto_in_campo",
    "indiretto_fuori_campo",
]


def _formula(text: str) -> str:
    return re.sub(r"\s*([+-])\s*", r" \1 ", text).strip()


def test_dispersione_cells(manovra_table, seed_text):
    t = manovra_table("dispersione")
    assert [c.key for c in t.columns] == ["descrizione"]
    assert [r.id for r in t.rows] == DISP_IDS
    first, last = t.row_by_id("diretto_he"), t.row_by_id("indiretto_fuori_campo")
    assert first.label == "Bersaglio mancato dal fuoco diretto HE"
    assert t.cell(first, "descrizione") == (
        "Il colpo esplode a D8 - AD cm nella direzione e a partire dall'estremità del modello "
        "(o dal punto del terreno) indicata dal D8 ."
    )
    assert last.label == "Dispersione fuoco indiretto fuori campo"
    assert t.cell(last, "descrizione") == (
        "Il colpo HE esplode a D10 +2D8 - AD - CV cm dal punto pianificato, in direzione "
        "dell'angolo del D8 . Risultato ≤ 0 centra il punto."
    )
    assert t.cell(t.row_by_id("mortai_diretto"), "descrizione").startswith(
        "Il colpo esplode a D8 + D6 - AD cm dal punto sul terreno mirato"
    )
    # whole table: the seed lists "case<TAB>text" lines after a blank line under the heading
    lines = block(seed_text("000"), "IMPRECISIONE E DISPERSIONE TIRO – Munizioni HE", 1)
    assert [[r.label, *r.cells] for r in t.rows] == lines
    assert t.footnotes == (
        "Se il colpo cade nell'apertura di un veicolo scoperto si procede direttamente con la "
        'tabella "EFFETTI Armi Pesanti".',
    )


def test_dispersione_data_matches_text(manovra_table):
    t = manovra_table("dispersione")
    for row in t.rows:
        cell = t.cell(row, "descrizione")
        distance = re.search(r"esplode a (?:distanza )?(.+?) cm", cell).group(1)
        assert row.data["distance"] == _formula(distance), row.id
        assert row.data["zero_hits_point"] is ("Risultato ≤ 0 centra il punto" in cell)
        # direction: "indicata dal D8" / "dell'angolo del D8" names the D8 of the distance
        direction = re.search(r"(?:indicata dal|angolo del) (D\d+)", cell).group(1)
        assert row.data["direction_die"] == direction == "D8"
        assert row.data["direction_from_distance_die"] is True
        assert re.search(rf"\d*{direction}\b", row.data["distance"])
    assert t.row_by_id("diretto_he").data["distance"] == "D8 - AD"
    assert t.row_by_id("lancio_ordigni").data["distance"] == "D8 - AD"
    # note: the seed's mortar row adds a D6
    assert t.row_by_id("mortai_diretto").data["distance"] == "D8 + D6 - AD"
    assert t.row_by_id("indiretto_in_campo").data["distance"] == "D10 + D8 - AD - CV"
    assert t.row_by_id("indiretto_fuori_campo").data["distance"] == "D10 + 2D8 - AD - CV"
    # no separate direction roll is mentioned anywhere
    assert all("lancia" not in t.cell(r, "descrizione").lower() for r in t.rows)
    assert any("direction_from_distance_die" in n.decision for n in t.notes)
    assert any(n.where == "column heading" for n in t.notes)


# -- test ------------------------------------------------------------------------------


def parse_esito(text: str) -> dict:
    """Read an ESITO POSITIVO cell such as 'D6 + AD + CV >= D10'."""
    left, op, right = re.fullmatch(r"(.+?) (>=|>) (.+)", text).groups()
    terms = [x.strip() for x in left.split("+")]
    roll = [x for x in terms if re.fullmatch(r"\d*D\d+", x)]
    result: dict = {"roll": roll, "add": [x for x in terms if x not in roll], "comparison": op}
    if right.endswith(" nemico"):
        assert [x.strip() for x in right.removesuffix(" nemico").split("+")] == terms
        result["against"] = "opposed"
    else:
        dice = [x.strip() for x in right.split("/")]
        if len(dice) == 1:
            result["against"] = dice
        else:
            result["against_choice"] = dice
    return result


TEST_IDS = ["IT", "DFR", "IFR", "SF", "CT", "PT", "ET", "CC"]


def test_test_cells(manovra_table):
    t = manovra_table("test")
    assert [c.key for c in t.columns] == ["nome", "sigla", "scopo", "descrizione", "esito"]
    assert [r.id for r in t.rows] == TEST_IDS
    it, cc = t.row_by_id("IT"), t.row_by_id("CC")
    assert t.cell(it, "nome") == it.label == "Test Iniziativa ed Efficienza"
    assert t.cell(it, "esito") == "D6 + AD + CV > D6 + AD + CV nemico"
    assert t.cell(cc, "nome") == cc.label == "Test assalto corpo a corpo"
    assert t.cell(cc, "esito") == "D6 + AD > D6 + AD nemico"
    assert t.cell(t.row_by_id("DFR"), "scopo") == (
        "Segnalare la posizione del nemico ad altra unità in campo"
    )
    assert t.cell(t.row_by_id("IFR"), "esito") == "D6 + AD + CV >= D12"
    assert t.cell(t.row_by_id("SF"), "descrizione") == "Lanciare un D6 ed un D10"
    assert t.cell(t.row_by_id("CT"), "esito") == "D6 + AD + CV >= D8"
    assert t.cell(t.row_by_id("PT"), "descrizione") == "Lanciare un D6 ed un D10/12"
    assert t.cell(t.row_by_id("PT"), "esito") == "D6 + AD >= D10 / D12"
    assert t.cell(t.row_by_id("ET"), "scopo") == (
        "Per evitare le mine, i reticolati, il travolgimento di veicoli"
    )
    assert t.cell(t.row_by_id("ET"), "esito") == "D6 + AD >= D10"
    for row in t.rows:
        assert t.cell(row, "sigla") == row.id
        assert t.cell(row, "nome") == row.label


def test_test_whole_table(manovra_table, seed_text):
    t = manovra_table("test")
    text = seed_text("000")
    assert header(text, "TEST", 1) == [c.label for c in t.columns]
    lines = block(text, "TEST", 1)
    assert [list(r.cells) for r in t.rows] == lines


def test_test_data_matches_esito(manovra_table):
    t = manovra_table("test")
    for row in t.rows:
        assert row.data == parse_esito(t.cell(row, "esito")), row.id
    assert t.row_by_id("IT").data == {
        "roll": ["D6"], "add": ["AD", "CV"], "against": "opposed", "comparison": ">",
    }  # fmt: skip
    assert t.row_by_id("DFR").data["against"] == ["D10"]
    assert t.row_by_id("IFR").data["against"] == ["D12"]
    assert t.row_by_id("SF").data["against"] == ["D10"]
    assert t.row_by_id("CT").data["against"] == ["D8"]
    assert t.row_by_id("PT").data == {
        "roll": ["D6"], "add": ["AD"], "against_choice": ["D10", "D12"], "comparison": ">=",
    }  # fmt: skip
    assert t.row_by_id("ET").data["add"] == ["AD"]
    assert t.row_by_id("ET").data["against"] == ["D10"]
    assert t.row_by_id("CC").data == {
        "roll": ["D6"], "add": ["AD"], "against": "opposed", "comparison": ">",
    }  # fmt: skip


def test_test_descrizione_names_the_dice(manovra_table):
    # DESCRIZIONE says which dice are thrown; it agrees with the machine reading.
    t = manovra_table("test")
    for row in t.rows:
        desc = t.cell(row, "descrizione")
        data = row.data
        if data.get("against") == "opposed":
            assert desc.endswith("lancia un D6")
            continue
        dice = re.fullmatch(r"Lanciare un (D\d+) ed un (D[\d/]+)", desc).groups()
        assert [dice[0]] == data["roll"]
        second = ["D" + d.removeprefix("D") for d in dice[1].split("/")]
        assert second == data.get("against", data.get("against_choice"))
