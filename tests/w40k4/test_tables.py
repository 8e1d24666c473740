"""Every w40k4 table against the seed text (001): corners, spread, whole tables, notes.

Tables marked not in the seed (the standard charts the seed names without giving) are
checked against the standard rule they encode.
"""

from __future__ import annotations

import pytest

from rules.cli import format_table
from rules.core.ruleset import get_ruleset
from rules.w40k4 import lookups
from rules.w40k4.model import Allowance, Damage, DangerRule, Speed
from rules.w40k4.tables import TABLES_DIR, load_tables

SEED_TABLES = [
    "sequenza_turno",
    "sequenza_tiro",
    "fase_assalto",
    "tiri_per_colpire",
    "tiri_riserve",
    "terreni_accidentati",
    "controlli_morale",
    "tiri_copertura",
    "tipi_armi",
    "fase_combattimento",
    "incidenti_attacco_profondita",
    "danni_veicoli",
    "movimento_tiro_veicoli",
    "altri_tipi_armi",
]
NOT_IN_SEED = [
    "tiri_per_ferire",
    "tiri_armatura",
    "corpo_a_corpo",
    "penetrazione_corazza",
    "dado_deviazione",
    "meccaniche_standard",
]


def lines(seed: str) -> list[str]:
    return seed.split("\n")


def block(seed: str, heading: str, skip: int = 1) -> list[list[str]]:
    """The tab-split lines under ``heading`` after a blank line and ``skip`` header lines."""
    text = lines(seed)
    start = text.index(heading)
    assert text[start + 1] == ""
    rows: list[list[str]] = []
    for line in text[start + 2 + skip :]:
        if not line.strip():
            break
        rows.append(line.split("\t"))
    return rows


def header(seed: str, heading: str) -> list[str]:
    text = lines(seed)
    return text[text.index(heading) + 2].split("\t")


def after_block(seed: str, heading: str) -> list[str]:
    """The non-empty lines after a table's block (its footnotes), up to the next heading."""
    text = lines(seed)
    start = text.index(heading) + 2
    while text[start].strip():
        start += 1
    found = []
    for line in text[start:]:
        if line.startswith("*"):
            found.append(line)
        elif line.strip():
            break
    return found


# -- all tables ----------------------------------------------------------------------------


def test_every_table_file_is_covered():
    assert sorted(p.stem for p in TABLES_DIR.glob("*.yaml")) == sorted(SEED_TABLES + NOT_IN_SEED)
    assert len(SEED_TABLES) == 14  # every table and list of the seed


@pytest.mark.parametrize("table_id", SEED_TABLES + NOT_IN_SEED)
def test_loads_and_cites_the_seed(w40k_table, seed, table_id):
    t = w40k_table(table_id)
    assert t.id == table_id
    assert t.seed == "001_772b98ed090d40a6.txt"
    assert t.seed_table in lines(seed), t.seed_table
    for footnote in t.footnotes:
        assert footnote in lines(seed), footnote
    assert t.notes, "every table records its transcription decisions"


@pytest.mark.parametrize("table_id", NOT_IN_SEED)
def test_not_in_seed_tables_say_so(w40k_table, table_id):
    t = w40k_table(table_id)
    assert t.data["not_in_seed"] is True
    # Its title is the reader's, in each language; that it is not the seed's is said by its
    # data, its description and its notes, never in the title every reader sees.
    assert set(t.title.translations) == {"it", "en", "fr"}
    for language in ("it", "en", "fr"):
        title = t.title.in_language(language)
        assert "seed" not in title and "/" not in title, title
    assert t.title.in_language("en") != t.title.in_language("it")
    assert (t.description or "").startswith("NOT IN THE SEED")
    assert any("NOT IN THE SEED" in note.where for note in t.notes)


@pytest.mark.parametrize("table_id", SEED_TABLES)
def test_seed_tables_are_not_marked(w40k_table, table_id):
    t = w40k_table(table_id)
    assert "not_in_seed" not in t.data
    assert "not in the seed" not in t.title
    assert not t.title.translations  # the seed's own words


def test_the_cli_listing_marks_the_standard_tables(capsys):
    from rules.cli import main

    assert main(["table", "w40k4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 20
    marked = [line.split("\t")[0] for line in out if "not in the seed" in line]
    assert sorted(marked) == sorted(NOT_IN_SEED)


def test_every_table_prints(seed):
    for table in get_ruleset("w40k4").tables:
        text = format_table(table)
        assert table.title in text and "seed: 001_772b98ed090d40a6.txt" in text


# -- numbered lists ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table_id", "heading"),
    [
        ("sequenza_turno", "SEQUENZA DEL TURNO"),
        ("sequenza_tiro", "SEQUENZA DI TIRO"),
        ("fase_assalto", "FASE D'ASSALTO"),
        ("fase_combattimento", "LA FASE DI COMBATTIMENTO"),
    ],
)
def test_numbered_lists_whole(w40k_table, seed, table_id, heading):
    t = w40k_table(table_id)
    listed = [" ".join(parts) for parts in block(seed, heading, skip=0)]
    assert [f"{row.label} {row.cells[0]}" for row in t.rows] == listed


def test_turn_sequence_names_the_phases(w40k_table):
    t = w40k_table("sequenza_turno")
    assert [row.id for row in t.rows] == ["movement", "shooting", "assault"]
    assert t.cell(t.row_by_id("assault"), "fase") == "Fase d'Assalto"


# -- TIRI PER COLPIRE (TIRO) -------------------------------------------------------------------


def test_to_hit_whole_table(w40k_table, seed):
    t = w40k_table("tiri_per_colpire")
    assert header(seed, "TIRI PER COLPIRE (TIRO)") == ["AB", "D6"]
    assert [axis.label for axis in t.row_axes] == ["AB"] and t.columns[0].label == "D6"
    assert [[row.keys["ab"], *row.cells] for row in t.rows] == block(
        seed, "TIRI PER COLPIRE (TIRO)"
    )


def test_to_hit_corners_and_beyond():
    assert lookups.to_hit_score(1)[0] == 6
    assert lookups.to_hit_score(3)[0] == 4
    assert lookups.to_hit_score(5)[0] == 2
    # not in the seed: BS 6+ keeps the last score
    for bs in range(6, 11):
        score, read = lookups.to_hit_score(bs)
        assert score == 2 and read.cell == "2" and read.row.startswith(str(bs))


# -- TIRI PER LE RISERVE --------------------------------------------------------------------


def test_reserves_whole_table(w40k_table, seed):
    t = w40k_table("tiri_riserve")
    assert header(seed, "TIRI PER LE RISERVE") == ["Turno", "D6"]
    assert [[row.keys["turno"], *row.cells] for row in t.rows] == block(seed, "TIRI PER LE RISERVE")
    assert [row.data["arrives"] for row in t.rows] == [
        "never",
        "roll",
        "roll",
        "roll",
        "automatic",
    ]
    assert [row.data.get("score") for row in t.rows] == [None, 4, 3, 2, None]


def test_reserves_open_band():
    t = load_tables()["tiri_riserve"]
    assert t.row_for("turno", 5).cells == ("auto.",)
    assert t.row_for("turno", 12).cells == ("auto.",)
    assert t.row_for("turno", 1).cells == ("-",)


# -- TERRENI ACCIDENTATI -------------------------------------------------------------------


def test_difficult_terrain_whole_table(w40k_table, seed):
    heading = "TERRENI ACCIDENTATI - EFFETTI SUL MOVIMENTO"
    t = w40k_table("terreni_accidentati")
    head = header(seed, heading)
    assert head[1:] == [c.label for c in t.columns]
    assert [[row.label, *row.cells] for row in t.rows] == block(seed, heading)
    assert after_block(seed, heading) == list(t.footnotes)


def test_difficult_terrain_parsed():
    expected = {
        "fanteria": (True, DangerRule.IF_DANGEROUS),
        "moto": (False, DangerRule.ALWAYS),
        "jetbike": (False, DangerRule.START_END),
        "creature_mostruose": (True, DangerRule.IF_DANGEROUS),
        "fanteria_volante": (False, DangerRule.START_END),
        "artiglieria": (True, DangerRule.WEAPON_ONLY),
        "bestie_cavalleria": (True, DangerRule.IF_DANGEROUS),
        "veicoli_camminatori": (True, DangerRule.IF_DANGEROUS),
        "veicoli_agrav": (False, DangerRule.START_END),
        "veicoli_altro": (False, DangerRule.ALWAYS),
    }
    for unit_type, (slowed, rule) in expected.items():
        assert lookups.terrain_rules(unit_type)[:2] == (slowed, rule), unit_type


# -- CONTROLLI DI MORALE --------------------------------------------------------------------


def test_morale_paragraphs(w40k_table, seed):
    t = w40k_table("controlli_morale")
    text = lines(seed)
    start = text.index("CONTROLLI DI MORALE")
    paragraphs = [line for line in text[start + 1 : start + 7] if line.strip()]
    assert [row.cells[0] for row in t.rows] == paragraphs
    assert t.row_by_id("losses").data["fraction"] == 0.25
    assert t.row_by_id("combat").data["modifier_per_casualty"] == -1
    assert t.row_by_id("tank_shock").data["timing"] == "immediate"


# -- TIRI COPERTURA ----------------------------------------------------------------------------


def test_cover_whole_table(w40k_table, seed):
    t = w40k_table("tiri_copertura")
    assert header(seed, "TIRI COPERTURA") == ["Tipo di copertura", "TS"]
    assert [[row.label, *row.cells] for row in t.rows] == block(seed, "TIRI COPERTURA")
    assert [row.data["save"] for row in t.rows] == [6, 5, 4, 3]


def test_cover_aliases_cover_every_item():
    t = load_tables()["tiri_copertura"]
    for row in t.rows:
        items = [item.strip() for item in (row.label or "").split(",") if item.strip() != "..."]
        aliases = row.data["aliases"]
        assert len(items) == len(aliases), row.id
    assert lookups.cover_save("rovine")[0] == 4
    assert lookups.cover_save("unita")[0] == 4
    assert lookups.cover_save("griglie")[0] == 6
    assert lookups.cover_save("staccionate")[0] == 5
    assert lookups.cover_save("Fortificazioni")[0] == 3
    assert lookups.cover_save("nessuna") == (None, None, None)


# -- RIASSUNTO DEI VARI TIPI DI ARMI -------------------------------------------------------


def test_weapon_types_whole_table(w40k_table, seed):
    heading = "RIASSUNTO DEI VARI TIPI DI ARMI"
    t = w40k_table("tipi_armi")
    assert header(seed, heading)[1:] == [c.label for c in t.columns]
    assert [[row.label, *row.cells] for row in t.rows] == block(seed, heading)
    assert after_block(seed, heading) == list(t.footnotes)


def test_weapon_types_data():
    assert lookups.weapon_rules("pistola")["fixed_shots"] == 1
    assert lookups.weapon_rules("pistola")["assault_after"] is True
    assert lookups.weapon_rules("pistola")["extra_close_combat_weapon"] is True
    rapid = lookups.weapon_rules("raffica")
    assert rapid["rapid_fire"] == {
        "short_range": 12,
        "short_shots": 2,
        "long_shots": 1,
        "long_needs_stationary": True,
    }
    assert rapid["assault_after"] is False
    assert lookups.weapon_rules("assalto")["move_and_fire"] is True
    assert lookups.weapon_rules("pesante")["move_and_fire"] is False
    assert lookups.weapon_rules("pesante")["assault_after"] is False


# -- INCIDENTI - ATTACCO IN PROFONDITÀ --------------------------------------------------------


def test_mishap_whole_table(w40k_table, seed):
    heading = "INCIDENTI - ATTACCO IN PROFONDITÀ"
    t = w40k_table("incidenti_attacco_profondita")
    assert header(seed, heading) == ["1D6", "Effetto"]
    assert [[row.keys["d6"], *row.cells] for row in t.rows] == block(seed, heading)
    assert [row.data["effect"] for row in t.rows] == ["destroyed", "misplaced", "delayed"]


# -- TABELLA DEI DANNI AI VEICOLI -----------------------------------------------------------


def test_vehicle_damage_whole_table(w40k_table, seed):
    heading = "TABELLA DEI DANNI AI VEICOLI"
    t = w40k_table("danni_veicoli")
    assert header(seed, heading) == ["1D6", "Effetto", "Modificatori", ""]
    assert [c.label for c in t.columns] == ["Effetto", "Modificatori", ""]
    assert [[row.keys["d6"], *row.cells] for row in t.rows] == block(seed, heading)
    assert after_block(seed, heading) == list(t.footnotes)


def test_vehicle_damage_parsed():
    tables = load_tables()
    t = tables["danni_veicoli"]
    effects = [tables.parsed(t, row, t.column("effetto")) for row in t.rows]
    assert effects == list(Damage)
    assert [d.severity for d in Damage] == [1, 2, 3, 4, 5, 6]
    modifiers = {
        row.data["modifier"]["key"]: row.data["modifier"]["value"]
        for row in t.rows
        if "modifier" in row.data
    }
    assert modifiers == {"glancing": -2, "ap_none": -1, "ap1": 1, "open_topped": 1}


# -- MOVIMENTO E TIRO DEI VEICOLI -----------------------------------------------------------


def test_vehicle_fire_whole_table(w40k_table, seed):
    heading = "MOVIMENTO E TIRO DEI VEICOLI"
    t = w40k_table("movimento_tiro_veicoli")
    assert header(seed, heading) == ["", *[c.label for c in t.columns]]
    assert [[row.label, *row.cells] for row in t.rows] == block(seed, heading)
    assert after_block(seed, heading) == list(t.footnotes)


def test_vehicle_fire_parsed():
    a = Allowance
    expected = {
        "tutti": [a.ALL, a.ONE_MAIN, a.NONE, a.NOT_ALLOWED],
        "veloci": [a.ALL, a.ALL, a.ONE_MAIN, a.NONE],
        "camminatori": [a.ALL, a.ALL, a.NOT_ALLOWED, a.NOT_ALLOWED],
    }
    for row, allowances in expected.items():
        assert [lookups.vehicle_allowance(row, s)[0] for s in Speed] == allowances


def test_vehicle_speeds_not_in_seed():
    assert lookups.vehicle_speed(0, "tutti") is Speed.STAZIONARIO
    assert lookups.vehicle_speed(6, "tutti") is Speed.COMBATTIMENTO
    assert lookups.vehicle_speed(6.5, "tutti") is Speed.MANOVRA
    assert lookups.vehicle_speed(12, "tutti") is Speed.MANOVRA
    assert lookups.vehicle_speed(13, "tutti") is None  # not fast: no flat out ("-")
    assert lookups.vehicle_speed(24, "veloci") is Speed.TAVOLETTA
    assert lookups.vehicle_speed(25, "veloci") is None
    assert lookups.vehicle_speed(7, "camminatori") is None


# -- ALTRI TIPI DI ARMI COMUNI --------------------------------------------------------------


def test_templates_whole_table(w40k_table, seed):
    t = w40k_table("altri_tipi_armi")
    text = lines(seed)
    start = text.index("ALTRI TIPI DI ARMI COMUNI")
    printed = [line.split("\t") for line in text[start + 2 : start + 5]]
    assert [[row.label, *row.cells] for row in t.rows] == printed
    assert lookups.template_rules("sagoma")["ignores_cover"] is True
    assert lookups.template_rules("area")["inches"] == 3
    assert lookups.template_rules("artiglieria")["inches"] == 5
    assert lookups.template_rules("artiglieria")["barrage_ignores_bs"] is True


# -- NOT IN THE SEED: the standard charts -----------------------------------------------------


def test_to_wound_chart_is_the_standard_one():
    for s in range(1, 11):
        for t in range(1, 11):
            need = 4 - (s - t)
            expected = None if need > 6 else max(2, need)
            assert lookups.wound_score(s, t)[0] == expected, (s, t)


def test_to_wound_corners():
    assert lookups.wound_score(4, 4) == (4, lookups.wound_score(4, 4)[1])
    assert lookups.wound_score(1, 1)[1].cell == "4+"
    assert lookups.wound_score(1, 4)[1].cell == "-"
    assert lookups.wound_score(3, 5)[1].cell == "6+"
    assert lookups.wound_score(10, 1)[1].cell == "2+"
    assert lookups.wound_score(10, 10)[1].cell == "4+"
    assert lookups.instant_death(8, 4) and not lookups.instant_death(7, 4)


def test_armour_chart_is_the_standard_one():
    for ap in (None, 1, 2, 3, 4, 5, 6):
        for sv in range(2, 7):
            denied = ap is not None and ap <= sv
            assert lookups.armour_save(ap, sv)[0] == (None if denied else sv), (ap, sv)


def test_close_combat_chart_is_the_standard_one():
    for ws in range(1, 11):
        for other in range(1, 11):
            expected = 3 if ws > other else 5 if other > 2 * ws else 4
            assert lookups.ws_score(ws, other)[0] == expected, (ws, other)


def test_penetration_and_scatter_die_rows(w40k_table):
    t = w40k_table("penetrazione_corazza")
    assert [row.data["comparison"] for row in t.rows] == [">", "=", "<"]
    die = w40k_table("dado_deviazione")
    assert [row.keys["d6"] for row in die.rows] == ["1-2", "3-6"]
    assert [row.data["hit"] for row in die.rows] == [True, False]
    assert die.data["direction_die"] == "D12"


def test_standard_mechanics_rows(w40k_table):
    t = w40k_table("meccaniche_standard")
    assert lookups.standard("disciplina")["double_one_passes"] is True
    assert lookups.standard("fuga")["caught_if"] == ">="
    assert lookups.standard("armi_difensive")["max_strength"] == 4
    assert lookups.standard("velocita_veicoli") == {
        "stazionario": 0,
        "combattimento": 6,
        "manovra": 12,
        "tavoletta": 24,
    }
    assert len(t.rows) == 16
