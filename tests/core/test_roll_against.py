"""A check's roll branches in two for the odds (pass, fail) instead of one branch per face:
the odds must be exactly those of rolling every face."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceTray
from rules.core.errors import RulesError
from rules.core.procedures import clear_odds_cache
from rules.linea_gotica import PROCEDURES
from tests.linea_gotica.test_properties import STRATEGIES


def _odds(data: Any) -> Any:
    clear_odds_cache()
    return PROCEDURES["direct_fire"].odds(data)


@settings(max_examples=40, deadline=None)
@given(data=st.booleans().flatmap(STRATEGIES["direct_fire"]))
def test_a_checks_two_branches_give_the_odds_of_every_face(data: dict[str, Any]) -> None:
    procedure = PROCEDURES["direct_fire"]
    try:
        parsed = procedure.parse_input(data)
        composed = _odds(parsed)
    except RulesError:
        return
    original = DiceTray.roll_against
    DiceTray.roll_against = lambda self, die, label, _at_most: self.roll(die, label)  # type: ignore
    try:
        every_face = _odds(parsed)
    finally:
        DiceTray.roll_against = original  # type: ignore[method-assign]
        clear_odds_cache()
    assert composed.entries == every_face.entries
