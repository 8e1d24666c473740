"""bench/bench_store.py runs against the current schema (a smoke test, not a timing test).

The benchmark writes raw rows beside the store's; it broke silently once when the schema
grew. Tiny numbers here: it must finish, its baseline and filler games must be valid (the
script loads and verifies them itself), and it must print its target lines.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_store.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_store_smoke", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_store_runs_to_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script()
    started = time.perf_counter()
    bench.main(
        [
            "--commits", "4", "--commands", "4", "--games", "200,300", "--warmup", "2",
            "--pause-ms", "0", "--dir", str(tmp_path),
        ]
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    out = capsys.readouterr().out
    assert "store commit p50 / raw p50 at synchronous=FULL" in out
    assert "(target <= 3x:" in out
    assert "load+commit p50 with 300 games / with 200" in out
    assert "(target flat, <= 1.5x:" in out
    for label in (
        "SqliteStore.commit (plain doc)",
        "SqliteStore.commit (prepared)",
        "one await/statement",
        "raw sqlite3 transaction",
    ):
        assert out.count(label) == 2  # at FULL and at NORMAL
    assert elapsed < 30, f"the smoke run took {elapsed:.1f} s"
