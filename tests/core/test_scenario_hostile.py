"""Hostile, huge and inconsistent scenario files: a clear, line-precise refusal, never a crash."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.errors import InvalidInput
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.scenario import MAX_SCENARIO_BYTES
from rules.manovra.scenario import parse_scenario as parse_manovra
from rules.w40k4.scenario import parse_scenario as parse_w40k4

Parse = Callable[[str, str], Any]


def _bundled(key: str) -> tuple[Parse, str]:
    """The ruleset's scenario parser and its first bundled scenario (a path under rules/)."""
    play = get_ruleset(key).play
    return play.scenario.parse_scenario, f"{key}/scenarios/{play.scenarios()[0]}.yaml"


#: Every ruleset the registry knows: a new one is fuzzed by its folder alone.
BUNDLED = {key: _bundled(key) for key in KNOWN_RULESETS}
PARSERS = tuple(parse for parse, _ in BUNDLED.values())

HOSTILE = {
    "deep flow nesting": ("[" * 3000 + "]" * 3000, "error.scenario.too_deep", 1),
    "deep block nesting": (
        "".join("  " * i + "a:\n" for i in range(60)) + "  " * 60 + "b: 1\n",
        "error.scenario.too_deep",
        25,
    ),
    "a 5,000-digit integer": ("turns: " + "9" * 5000, "error.scenario.long_value", 1),
    "a 100-digit integer": ("turns: " + "9" * 100, "error.scenario.number", 1),
    "a 100,000-item list": (
        "x: [" + ",".join(["1"] * 100_000) + "]",
        "error.scenario.too_many",
        1,
    ),
    "a duplicate key": ("id: a\ntitle: x\ntitle: y\n", "error.scenario.duplicate", 3),
    "an alias bomb": ("a: &a [1, 1]\nb: [*a, *a]\n", "error.scenario.alias", 1),
    "a NUL byte": ("id: a\x00", "error.scenario.yaml", None),
    "a tab indent": ("a:\n\t- b\n", "error.scenario.yaml_line", None),
    "not a mapping": ("- 1\n- 2\n", "error.scenario.invalid", None),
    "empty": ("", "error.scenario.invalid", None),
}


@pytest.mark.parametrize("parse", PARSERS)
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_files_are_refused_clearly(parse, case: str) -> None:
    text, key, line = HOSTILE[case]
    with pytest.raises(InvalidInput) as caught:
        parse(text, "upload.yaml")
    assert caught.value.key.startswith(key), (case, caught.value.key)
    if line is not None:
        assert caught.value.params["line"] == line, case
    for language in ("it", "en", "fr"):
        message = caught.value.localized(language)
        assert "upload.yaml" in message and "error." not in message, message


def test_the_size_limit_counts_bytes_not_characters() -> None:
    text = "title: " + "é" * (MAX_SCENARIO_BYTES // 2)  # fewer characters than the limit
    assert len(text) < MAX_SCENARIO_BYTES < len(text.encode())
    with pytest.raises(InvalidInput) as caught:
        parse_manovra(text, "big.yaml")
    assert caught.value.key == "error.scenario.too_big"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_are_a_result_or_a_clear_error(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    for parse in PARSERS:
        try:
            parse(text, "fuzz.yaml")
        except InvalidInput as error:
            assert error.localized("en")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_bundled_scenarios_never_crash(data: st.DataObject) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "rules"
    for parse, path in (
        (parse_manovra, root / "manovra/scenarios/esempio_normandia.yaml"),
        (parse_w40k4, root / "w40k4/scenarios/avamposto.yaml"),
    ):
        lines = path.read_text(encoding="utf-8").splitlines()
        index = data.draw(st.integers(0, len(lines) - 1))
        replacement = data.draw(st.text(max_size=30))
        lines[index] = replacement
        try:
            parse("\n".join(lines), "mutated.yaml")
        except InvalidInput as error:
            assert error.localized("fr")


# ---- thousands of mutations of every ruleset's bundled scenario -------------------------

MUTATIONS_PER_RULESET = 1000
JUNK_SCALARS = (
    "-1",
    "0",
    "99999999999999999999",
    "1e999",
    ".nan",
    "~",
    "[]",
    "{}",
    "'",
    '"',
    "&a",
    "*a",
    "!!python/object:os.system",
    "é" * 300,
    "- x",
    ": :",
    "|",
    ">",
    "%YAML 9.9",
    "\t",
)


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits: of bytes, of lines, or of a scalar value."""
    for _ in range(rng.randint(1, 3)):
        how = rng.randrange(6)
        if how == 0:  # bytes: flip, insert or drop a few, decoded as an upload would be
            data = bytearray(text.encode("utf-8"))
            for _ in range(rng.randint(1, 8)):
                at = rng.randrange(max(1, len(data)))
                choice = rng.randrange(3)
                if choice == 0 and data:
                    data[at % len(data)] = rng.randrange(256)
                elif choice == 1:
                    data.insert(at, rng.randrange(256))
                elif data:
                    del data[at % len(data)]
            text = data.decode("utf-8", errors="replace")
            continue
        lines = text.split("\n")
        at = rng.randrange(len(lines))
        if how == 1:
            lines[at] = "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(0, 30)))
        elif how == 2:
            del lines[at]
        elif how == 3:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif how == 4:
            lines[at] = rng.choice(("  ", "", "- ", "    ")) + lines[at].lstrip(
                " " if rng.random() < 0.5 else ""
            )
        else:
            key, colon, _ = lines[at].partition(":")
            if colon:
                lines[at] = f"{key}: {rng.choice(JUNK_SCALARS)}"
            else:
                lines = lines[: at + 1]  # truncated file
        text = "\n".join(lines)
    return text


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(BUNDLED))
def test_thousands_of_mutated_bundled_scenarios_are_a_game_or_a_clear_error(ruleset: str) -> None:
    parse, relative = BUNDLED[ruleset]
    original = (Path(__file__).resolve().parents[2] / "rules" / relative).read_text("utf-8")
    parse(original, "bundled.yaml")  # the unmutated file is valid
    rng = random.Random(f"scenario-{ruleset}")  # the test's own generator
    refused = 0
    for _ in range(MUTATIONS_PER_RULESET):
        mutated = mutate(original, rng)
        try:
            parse(mutated, "mutated.yaml")
        except InvalidInput as error:
            refused += 1
            for language in ("it", "en", "fr"):
                message = error.localized(language)
                assert "mutated.yaml" in message and "error." not in message, message
    # Most mutations break the file: the refusals, not the acceptances, were exercised.
    assert refused > MUTATIONS_PER_RULESET // 3


@pytest.mark.parametrize("ruleset", sorted(BUNDLED))
@pytest.mark.parametrize(
    "bad", ["Squadra\\n» Game 1: settled.", "Squadra\\u202e", "Squ\\u200badra", "\\x1b[31mred"]
)
def test_an_uploaded_name_is_one_line_of_plain_text(ruleset: str, bad: str) -> None:
    """A scenario's unit or title holding a line break, an ANSI escape, a bidi override or a
    zero-width character is refused with its line (it would print fake bot lines, or reach
    the console terminal), as a roster file's names are."""
    parse, path = BUNDLED[ruleset]
    text = (Path(__file__).resolve().parents[2] / "rules" / path).read_text("utf-8")
    first = next(line for line in text.splitlines() if line.lstrip().startswith("name:"))
    indent = first[: len(first) - len(first.lstrip())]
    broken = text.replace(first, f'{indent}name: "{bad}"', 1)
    with pytest.raises(InvalidInput) as refused:
        parse(broken, "upload.yaml")
    assert "U+" in refused.value.localized("en")
