"""w40k4 breakdowns name the table row that was read (issue 26 item 12), as manovra's and
linea_gotica's do: "Table «…», row …, column …: «…»" on every step whose score or rule
comes from a table."""

from __future__ import annotations

from functools import cache

import pytest

from rules.core.dice import DiceTray
from rules.core.odds import enumerate_odds
from rules.core.resolution import Resolution
from rules.render import render_resolution_text
from rules.w40k4.procedures import PROCEDURES
from tests.core.every_face import EveryFace
from tests.w40k4.test_procedures import EXAMPLES

#: Steps that read no table: distances and scatter rolled as plain dice sums, automatic
#: hits of weapons without a template, a wound no save can stop, a measurement.
NO_TABLE = frozenset(
    {
        "w40k4.step.scatter_distance",
        "w40k4.step.auto_hits",
        "w40k4.step.no_save",
        "w40k4.step.measured",
    }
)


@cache
def resolutions(name: str) -> tuple[Resolution, ...]:
    """Every resolution of every face of every example input of one procedure."""
    procedure = PROCEDURES[name]
    found: list[Resolution] = []
    for data in EXAMPLES[name]:
        parsed = procedure.parse_input(data)

        def run(source, parsed=parsed):  # type: ignore[no-untyped-def]
            resolution = procedure.resolver(parsed, DiceTray(EveryFace(source)))
            found.append(resolution)
            return resolution.outcome

        enumerate_odds(run, 300)
    return tuple(found)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_step_names_the_table_row_it_read(name: str):
    unnamed = {
        step.key
        for resolution in resolutions(name)
        for step in resolution.steps
        if step.table is None and step.key not in NO_TABLE
    }
    assert unnamed == set()


@pytest.mark.parametrize(
    ("name", "title", "row"),
    [
        ("close_combat", "LA FASE DI COMBATTIMENTO", "2."),
        ("escape", "STANDARD MECHANICS", "Sfuggire ai nemici"),
        ("leadership", "STANDARD MECHANICS", "Test di Disciplina (morale)"),
        ("shooting", "TIRI PER COLPIRE", "4"),
    ],
)
def test_the_breakdown_names_table_row_and_column(name: str, title: str, row: str):
    texts = [render_resolution_text(r, "en") for r in resolutions(name)]
    assert any(f"Table «{title}" in text and f"row {row}, column " in text for text in texts)
