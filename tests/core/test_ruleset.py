"""The registry's `Ruleset`: every field typed, its play the three calls."""

from __future__ import annotations

import dataclasses
import typing

from rules.core.play import DocumentRules
from rules.core.ruleset import Ruleset, get_ruleset, known_rulesets
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
        assert isinstance(ruleset.rules, DocumentRules)


def test_a_ruleset_of_three_calls_needs_no_base_class() -> None:
    assert not isinstance(TOY_RULESET.rules, DocumentRules)
    assert not hasattr(TOY_RULESET, "play")  # the wider interface is gone
