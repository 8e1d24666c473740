"""``rules/`` is pure: no Discord, database, asyncio or network import, statically or at runtime."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import rules

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"

FORBIDDEN = (
    "discord",
    "aiosqlite",
    "sqlite3",
    "asyncio",
    "socket",
    "http",
    "urllib",
    "requests",
    "db",
    "bot",
)


def _modules() -> list[str]:
    names = [
        info.name
        for info in pkgutil.walk_packages(rules.__path__, "rules.")
        if info.name != "rules.__main__"  # runs the CLI on import
    ]
    return sorted(names)


def _files() -> list[Path]:
    return sorted(RULES_DIR.rglob("*.py"))


def _top(name: str) -> str:
    return name.split(".")[0]


def test_walk_finds_the_rules_modules():
    names = _modules()
    expected = {"rules.core.dice", "rules.core.odds", "rules.manovra.procedures.fire", "rules.cli"}
    assert expected <= set(names)
    # every .py file under rules/ is reached by the walk (except __main__)
    walked = {name.replace(".", "/") for name in names}
    for path in _files():
        relative = path.relative_to(ROOT).with_suffix("").as_posix()
        relative = relative.removesuffix("/__init__")
        if relative != "rules/__main__":
            assert relative in walked | {"rules"}, relative


@pytest.mark.parametrize("name", _modules())
def test_every_module_imports(name: str):
    importlib.import_module(name)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_forbidden_import_in_the_source(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _top(alias.name) in FORBIDDEN]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and _top(node.module) in FORBIDDEN:
                found.append(node.module)
        elif isinstance(node, ast.Call):
            # importlib.import_module("discord") / __import__("db") with a literal name
            func = node.func
            called = getattr(func, "attr", None) or getattr(func, "id", None)
            if called in ("import_module", "__import__") and node.args:
                first = node.args[0]
                if (
                    isinstance(first, ast.Constant)
                    and isinstance(first.value, str)
                    and _top(first.value) in FORBIDDEN
                ):
                    found.append(first.value)
    assert found == [], f"{path}: forbidden imports {found}"


_PROBE = """
import json, sys
baseline = set(sys.modules)
{imports}
print(json.dumps(sorted(sys.modules)))
"""

# What the rules core's own dependencies load (pydantic pulls importlib.metadata → email →
# socket; pathlib pulls urllib.parse): not the rules' doing.
_BASELINE_IMPORTS = """
import pathlib, secrets, yaml, pydantic
class _M(pydantic.BaseModel):
    x: int = 1
_M(x=2).model_dump_json()
"""

_RULES_IMPORTS = """
import rules.manovra, rules.core.dice, rules.core.odds, rules.core.procedures
import rules.core.tables, rules.core.ruleset, rules.core.i18n, rules.cli, rules.render
from rules.core.dice import ScriptedDice
from rules.manovra import PROCEDURES
p = PROCEDURES["heavy_fire"]
data = p.parse_input({"band": "efficace", "ad": 1, "target": "carro", "calibre_mm": 75,
                      "armour": {"scafo": 5}})
p.resolve(data, ScriptedDice([4, 7, 3]))
rules.core.ruleset.get_ruleset("manovra").tables
"""


def _loaded(imports: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(imports=imports)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def test_importing_and_using_the_rules_loads_no_forbidden_module():
    baseline = {m for m in _loaded(_BASELINE_IMPORTS) if _top(m) in FORBIDDEN}
    loaded = _loaded(_RULES_IMPORTS)
    assert "rules.manovra" in loaded
    forbidden = {m for m in loaded if _top(m) in FORBIDDEN}
    # never, whatever the dependencies do
    never = {"discord", "aiosqlite", "sqlite3", "asyncio", "requests", "db", "bot", "http"}
    assert {m for m in forbidden if _top(m) in never} == set()
    # and nothing beyond what the rules' own dependencies already pull in
    assert forbidden - baseline == set()
