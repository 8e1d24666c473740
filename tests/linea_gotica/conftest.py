"""Fixtures for the linea_gotica ruleset's tests (the service ones reuse tests/bot's)."""

from __future__ import annotations

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
