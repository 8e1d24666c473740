"""Hostile, huge and inconsistent scenario files: a clear, line-precise refusal, never a crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.errors import InvalidInput
from rules.core.scenario import MAX_SCENARIO_BYTES
from rules.linea_gotica.scenario import parse_scenario as parse_gotica
from rules.manovra.scenario import parse_scenario as parse_manovra
from rules.pzgren.scenario import parse_scenario as parse_pzgren
from rules.w40k4.scenario import parse_scenario as parse_w40k4

PARSERS = (parse_manovra, parse_pzgren, parse_w40k4, parse_gotica)

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
