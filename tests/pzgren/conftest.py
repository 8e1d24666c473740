"""Fixtures for the pzgren ruleset's tests (the service fixtures come from tests/bot)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.tables import Table, load_table
from tests.bot.conftest import QueuedDice, dice, service, store

__all__ = ["QueuedDice", "dice", "service", "store"]

TABLES = Path(__file__).resolve().parents[2] / "rules" / "pzgren" / "tables"


@pytest.fixture(scope="session")
def pzgren_table():
    """Load one pzgren table YAML by its id (file name without .yaml), validated."""

    def load(table_id: str) -> Table:
        return load_table(TABLES / f"{table_id}.yaml")

    return load


@pytest.fixture(scope="session")
def seed(seed_text) -> str:
    """The French seed 003."""
    return seed_text("003")
