"""Fixtures for the linea_gotica ruleset's tests (the service ones reuse tests/bot's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.core.tables import Table, load_table
from tests.bot.conftest import QueuedDice, dice, service, store

__all__ = ["QueuedDice", "dice", "service", "store"]

TABLES = Path(__file__).resolve().parents[2] / "rules" / "linea_gotica" / "tables"


@pytest.fixture(scope="session")
def lg_table():
    """Load one linea_gotica table YAML by its id, validated."""

    def load(table_id: str) -> Table:
        return load_table(TABLES / f"{table_id}.yaml")

    return load


@pytest.fixture(scope="session")
def seed(seed_text) -> str:
    """The linea_gotica seed (004)."""
    return seed_text("004")


BUNDLED = Path(__file__).resolve().parents[2] / "rules" / "linea_gotica" / "scenarios"


def gotica_text_without_field() -> str:
    """The bundled scenario's YAML without its battlefield: the game as it was played before
    issue 16 (typed distances and terrain), which most rules tests exercise."""
    text = (BUNDLED / "esempio_gotica.yaml").read_text(encoding="utf-8")
    text = re.sub(r",\n\s+shape: \{.*\}\}\n", "}\n", text)  # the minefield's outline
    return text.split("\n# The table (issue 16)")[0].split("\nbattlefield:")[0] + "\n"


def gotica_without_field():
    """The bundled scenario, parsed, without its battlefield."""
    from rules.linea_gotica.scenario import parse_scenario

    return parse_scenario(gotica_text_without_field(), "esempio_gotica.yaml")
