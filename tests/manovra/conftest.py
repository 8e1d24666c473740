"""Fixtures for the manovra ruleset's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.tables import Table, load_table

TABLES = Path(__file__).resolve().parents[2] / "rules" / "manovra" / "tables"


@pytest.fixture(scope="session")
def manovra_table():
    """Load one manovra table YAML by its id (file name without .yaml), validated."""

    def load(table_id: str) -> Table:
        return load_table(TABLES / f"{table_id}.yaml")

    return load
