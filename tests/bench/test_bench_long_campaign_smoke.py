"""bench/bench_long_campaign.py runs to the end on tiny numbers (a smoke test, not a timing
test): it builds its long log, opens it each way, measures an adjustment's bytes, exports a
campaign and prints each figure."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_long_campaign.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_long_campaign_smoke", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_long_campaign_runs_to_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _load_script()
    options = argparse.Namespace(
        events=300, kb=2, export_events=40, rounds=1, seed=1, dir=str(tmp_path), adjusts=5
    )
    asyncio.run(bench.main(options))
    out = capsys.readouterr().out
    assert "events, states in background" in out and "whole history, one read" in out
    assert "bytes stored per adjustment" in out
    assert "/campaign export of 40 events:" in out
