"""The lock files match pyproject.toml: every dependency pinned exactly, inside its range,
with hashes; the runtime lock is the test lock's runtime part (same versions)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;\\]+)")


def pins(name: str) -> dict[str, str]:
    """``{package: version}`` of a lock file, checking each pin carries a sha256 hash."""
    text = (ROOT / name).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        match = PIN.match(block)
        if match is None:
            assert block.startswith("#") or not block.strip(), block[:80]
            continue
        assert "--hash=sha256:" in block, f"{name}: {match.group(1)} has no hash"
        found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def declared() -> tuple[list[Requirement], list[Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [Requirement(text) for text in project["dependencies"]]
    test = [Requirement(text) for text in project["optional-dependencies"]["test"]]
    return runtime, test


def test_every_declared_dependency_is_pinned_inside_its_range_with_an_upper_bound() -> None:
    runtime, test = declared()
    runtime_lock, test_lock = pins("requirements.lock"), pins("requirements-test.lock")
    for lock, requirements in ((runtime_lock, runtime), (test_lock, runtime + test)):
        for requirement in requirements:
            version = lock.get(canonicalize_name(requirement.name))
            assert version is not None, f"{requirement.name} is not in the lock: regenerate it"
            assert requirement.specifier.contains(version), (requirement, version)
            bounded = {"<", "<=", "==", "~="}
            operators = {spec.operator for spec in requirement.specifier}
            assert operators & bounded, f"{requirement} has no upper bound"


def test_the_runtime_lock_agrees_with_the_test_lock() -> None:
    runtime_lock, test_lock = pins("requirements.lock"), pins("requirements-test.lock")
    assert runtime_lock.items() <= test_lock.items()
    # The SQLite store runs on aiosqlite (db/drivers/aiosqlite_driver.py): pinned in both locks.
    assert "aiosqlite" in runtime_lock and runtime_lock["aiosqlite"] == test_lock["aiosqlite"]
