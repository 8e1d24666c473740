"""Every rule line of a seed is accounted for: its ruleset's concordance (``rules/<key>/
concordance.yaml``, the format in docs/architecture.md, "Concordance") names, for each line
that states an order, a permission, a limit, a modifier or a number, where the code applies it
and the test that checks it — or why it is an interpretation or does not apply. Lines that
state nothing (titles, column headers) are listed as ``headings``.

Fails when a non-blank line of the seed is in no entry and no heading, when a cited module or
table does not exist, or when a cited test is not in its file (read with ``ast``).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.ruleset import KNOWN_RULESETS
from rules.core.yamlio import load_yaml

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "docs" / "seeds"
#: The rulesets whose concordance must exist (the others may add theirs).
REQUIRED = ("w40k4", "linea_gotica", "pzgren", "manovra")


class Entry(BaseModel):
    """Seed lines stating one rule, and where it lives."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lines: tuple[int, ...] = Field(min_length=1)
    states: Literal["order", "permission", "limit", "modifier", "number", "table"]
    code: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    interpretation: str | None = None
    not_applicable: str | None = None

    @model_validator(mode="after")
    def _accounted(self) -> Entry:
        if self.not_applicable is not None:
            if self.code or self.tests or self.interpretation:
                raise ValueError(f"lines {self.lines}: not applicable, yet implemented")
        elif not (self.code and self.tests):
            raise ValueError(f"lines {self.lines}: name the code and the test (or why not)")
        return self


class Concordance(BaseModel):
    """A seed, line by line, against the code and the tests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruleset: str
    seed: str
    headings: tuple[int, ...]
    entries: tuple[Entry, ...] = Field(min_length=1)


def concordance_path(key: str) -> Path:
    return ROOT / "rules" / key / "concordance.yaml"


def _load(key: str) -> Concordance:
    return Concordance.model_validate(load_yaml(concordance_path(key).read_text(encoding="utf-8")))


@cache
def _test_ids(path: Path) -> frozenset[str]:
    """The test node ids of a file: ``name`` and ``Class::name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return frozenset(n for n in found if n.split("::")[-1].startswith("test"))


def _rule_lines(seed: Path) -> set[int]:
    if not seed.is_file():
        return set()
    text = seed.read_text(encoding="utf-8").splitlines()
    return {number for number, line in enumerate(text, start=1) if line.strip()}


def problems(concordance: Concordance, root: Path = ROOT) -> list[str]:
    """Every way the concordance fails its seed, its code and its tests (none: it holds)."""
    found: list[str] = []
    seed = root / "docs" / "seeds" / concordance.seed
    rule_lines = _rule_lines(seed)
    covered = {n for entry in concordance.entries for n in entry.lines}
    headings = set(concordance.headings)
    if headings & covered:
        found.append(f"headings that are also rules: {sorted(headings & covered)}")
    if (covered | headings) - rule_lines:
        found.append(f"blank or missing lines cited: {sorted((covered | headings) - rule_lines)}")
    if rule_lines - covered - headings:
        found.append(f"lines in no entry and no heading: {sorted(rule_lines - covered - headings)}")
    for entry in concordance.entries:
        found += [f"lines {entry.lines}: no {m}" for m in entry.code if not (root / m).is_file()]
        for test in entry.tests:
            file, _, name = test.partition("::")
            if not (root / file).is_file() or name not in _test_ids(root / file):
                found.append(f"lines {entry.lines}: no test {test}")
    return found


WITH_CONCORDANCE = [key for key in KNOWN_RULESETS if concordance_path(key).is_file()]


@pytest.mark.parametrize("key", REQUIRED)
def test_the_required_rulesets_have_a_concordance(key: str) -> None:
    assert key in KNOWN_RULESETS and concordance_path(key).is_file()


@pytest.mark.parametrize("key", WITH_CONCORDANCE)
def test_every_line_of_the_seed_is_accounted_for_in_code_and_tests(key: str) -> None:
    concordance = _load(key)
    assert concordance.ruleset == key
    assert problems(concordance) == []


def test_a_line_left_out_a_missing_module_or_test_fails(tmp_path: Path) -> None:
    (tmp_path / "docs" / "seeds").mkdir(parents=True)
    (tmp_path / "docs" / "seeds" / "toy.txt").write_text("TITLE\n\nMove 6\nFire 2\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text("def test_move():\n    assert True\n")
    (tmp_path / "rules.py").write_text("")
    entry = {"lines": [3], "states": "number", "code": ["rules.py"]}
    concordance = Concordance.model_validate(
        {
            "ruleset": "toy",
            "seed": "toy.txt",
            "headings": [1],
            "entries": [
                {**entry, "tests": ["tests/test_toy.py::test_move"]},
                {**entry, "lines": [3], "tests": ["tests/test_toy.py::test_fire"]},
                {**entry, "code": ["gone.py"], "tests": ["tests/test_toy.py::test_move"]},
            ],
        }
    )
    assert problems(concordance, tmp_path) == [
        "lines in no entry and no heading: [4]",
        "lines (3,): no test tests/test_toy.py::test_fire",
        "lines (3,): no gone.py",
    ]
    assert (
        problems(
            concordance.model_copy(update={"entries": concordance.entries[:1], "headings": (1, 4)}),
            tmp_path,
        )
        == []
    )
