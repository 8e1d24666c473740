"""Legal actions of w40k4: listed actions are accepted, owed ones block, games reach their end."""

from __future__ import annotations

import pytest

from rules.w40k4.play import PLAY
from tests.core.legal_loop import play_random_game


@pytest.mark.parametrize("seed", range(4))
def test_random_legal_games_reach_the_scenarios_end(seed: int) -> None:
    log = play_random_game(PLAY, "avamposto", seed)
    assert log.ended
    assert log.verbs.get("fire", 0) > 0 and log.verbs.get("move", 0) > 0
