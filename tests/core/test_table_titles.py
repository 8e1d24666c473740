"""A table's title as a reader sees it: the seed's own words for a seed table; for a table
the seed does not give (w40k4's standard charts, pzgren's morale check), the reader's
language, with no "(non nel seed / not in the seed)" note in it (an English reply read
"Table «PENETRAZIONE DELLA CORAZZA (non nel seed / not in the seed)»")."""

from __future__ import annotations

import pytest

from rules.core.resolution import Outcome, Resolution, Step, TableRead
from rules.core.ruleset import get_ruleset
from rules.render import render_resolution_text

UNSEEDED = [
    ("w40k4", "penetrazione_corazza", "ARMOUR PENETRATION", "PÉNÉTRATION DU BLINDAGE"),
    ("w40k4", "tiri_per_ferire", "ROLLS TO WOUND", "JETS POUR BLESSER"),
    ("pzgren", "moral", "Morale check (rule 14.1)", "Vérification de moral (règle 14.1)"),
]


def _reading(ruleset: str, table_id: str) -> Resolution:
    table = get_ruleset(ruleset).tables[table_id]
    row = table.rows[0]
    column = table.columns[0]
    read = TableRead(table.id, table.title, table.row_label(row), column.label, "x")
    step = Step("render.step.roll", table=read)
    return Resolution(ruleset, "test", (step,), Outcome.of("render.step.roll"))


@pytest.mark.parametrize(("ruleset", "table_id", "english", "french"), UNSEEDED)
def test_a_table_not_in_the_seed_is_titled_in_the_readers_language(
    ruleset: str, table_id: str, english: str, french: str
) -> None:
    resolution = _reading(ruleset, table_id)
    # Stored and read back (the log, an export), the title keeps its languages.
    stored = Resolution.from_json(resolution.to_json())
    for shown in (resolution, stored):
        text_en = render_resolution_text(shown, "en")
        text_fr = render_resolution_text(shown, "fr")
        assert f"«{english}»" in text_en, text_en
        assert f"«\u202f{french}\u202f»" in text_fr, text_fr
        for text in (text_en, text_fr, render_resolution_text(shown, "it")):
            assert "seed" not in text and "graine" not in text, text


def test_a_seed_table_keeps_the_seeds_words() -> None:
    text = render_resolution_text(_reading("w40k4", "danni_veicoli"), "en")
    assert "«TABELLA DEI DANNI AI VEICOLI»" in text
