"""The registry's `Ruleset`: every field typed, the play derived from the three calls."""

from __future__ import annotations

import dataclasses
import typing

from rules.core.play import DocumentPlay
from rules.core.ruleset import Ruleset, get_ruleset, known_rulesets
from rules.core.surface import SurfacePlay
from tests.toy_ruleset import RULESET as TOY_RULESET


def _mentions_any(hint: object) -> bool:
    if hint is typing.Any:
        return True
    return any(_mentions_any(argument) for argument in typing.get_args(hint))


def test_no_field_of_a_ruleset_is_any() -> None:
    hints = typing.get_type_hints(Ruleset)
    loose = [
        f.name
        for f in dataclasses.fields(Ruleset)
        if f.name != "procedures" and _mentions_any(hints[f.name])
    ]
    assert loose == []


def test_a_bundled_ruleset_plays_through_its_own_document_play() -> None:
    for key in known_rulesets():
        ruleset = get_ruleset(key)
        assert isinstance(ruleset.rules, DocumentPlay)
        assert ruleset.play is ruleset.rules


def test_a_ruleset_of_three_calls_is_asked_the_wider_questions_through_an_adapter() -> None:
    assert isinstance(TOY_RULESET.play, SurfacePlay)
    assert TOY_RULESET.play.rules is TOY_RULESET.rules
