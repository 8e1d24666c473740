"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The repository keeps its own copy of the rule documents: a fresh clone tests alone.
SEEDS = ROOT / "docs" / "seeds"


@pytest.fixture(scope="session")
def seed_text():
    """Read a seed file by its prefix ("000", "001", "003", "004")."""

    def read(prefix: str) -> str:
        matches = sorted(SEEDS.glob(f"{prefix}_*.txt"))
        if not matches:
            pytest.fail(f"seed {prefix} not found under {SEEDS}")
        return matches[0].read_text(encoding="utf-8")

    return read
