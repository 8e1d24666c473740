"""Fixtures for the w40k4 tests: its tables, the seed's blocks, and the service fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.tables import Table, load_table
from tests.bot.conftest import dice, service, store  # noqa: F401  (fixtures reused)

TABLES = Path(__file__).resolve().parents[2] / "rules" / "w40k4" / "tables"


@pytest.fixture(scope="session")
def w40k_table():
    """Load one w40k4 table YAML by its id (file name without .yaml), validated."""

    def load(table_id: str) -> Table:
        return load_table(TABLES / f"{table_id}.yaml")

    return load


@pytest.fixture(scope="session")
def seed(seed_text) -> str:
    """The text of seed 001."""
    return seed_text("001")
