"""A small seeded whole-game fuzz run in the default test command (bench/fuzz.py runs long)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import bundled_games, fuzz

SEEDS = (1, 2)


@pytest.mark.parametrize(("ruleset", "scenario"), bundled_games())
@pytest.mark.parametrize("seed", SEEDS)
async def test_a_bundled_scenario_plays_to_its_end(
    ruleset: str, scenario: str, seed: int, tmp_path: Path
) -> None:
    run = await fuzz(ruleset, scenario, seed, tmp_path)
    assert not run.failures, "\n".join(run.failures)
    assert run.ended, f"{ruleset}/{scenario} seed {seed} stopped at turn {run.turns} unended"
    assert run.commands > 0
