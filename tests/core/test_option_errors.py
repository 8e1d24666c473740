"""Validation errors name the option players type, in the game's language."""

from __future__ import annotations

import pytest

from rules.core.errors import InvalidInput
from rules.manovra.commands import build_command as manovra
from rules.w40k4.commands import build_command as w40k4


@pytest.mark.parametrize(
    ("build", "verb", "options", "key", "option"),
    [
        # distance may be left out (a battlefield measures it): a missing target is named
        (manovra, "fire", {"unit": "a", "distance": 3}, "error.option.missing", "target"),
        (
            manovra,
            "fire",
            {"unit": "a", "target": "b", "distance": "x"},
            "error.option.not_a_number",
            "distance",
        ),
        (
            manovra,
            "fire",
            {"unit": "a", "target": "b", "distance": 10**6},
            "error.option.too_big",
            "distance",
        ),
        (w40k4, "move", {"unit": "a", "distance": -3}, "error.option.too_small", "distance"),
    ],
)
def test_the_option_typed_is_named(build, verb, options, key, option) -> None:
    with pytest.raises(InvalidInput) as caught:
        build(verb, options)
    assert caught.value.key == key and caught.value.params["option"] == option
    texts = {language: caught.value.localized(language) for language in ("it", "en", "fr")}
    assert all(option in text and "_cm" not in text for text in texts.values()), texts
    assert len(set(texts.values())) == 3  # three languages, three texts
