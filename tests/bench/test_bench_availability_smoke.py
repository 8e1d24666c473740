"""bench/bench_availability.py runs to the end (a smoke test, not a timing test).

One round on manovra's two cases: issue 23's upload is refused at once, the largest
accepted scenario is played, every command a player sends is timed, and the healthy
channel's figures are printed beside them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_availability.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_availability_smoke", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_availability_runs_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script()
    bench.main(["--rounds", "1", "--rulesets", "manovra"])
    out = capsys.readouterr().out
    assert "issue 23 (480 units)" in out and "too many units on side asse (480" in out
    assert "largest accepted" in out and ": played (" in out
    for command in ("/game status", "/fire (refused)", "/move (out of reach)", "/game map"):
        assert command in out
    assert "autocomplete target" in out and "healthy channel:" in out
    assert "targets: every hostile answer within 1,000 ms" in out
