"""Timing helpers shared by the rules benchmarks (run from bench/: `python bench/bench_x.py`)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def measure(
    run: Callable[[], object], repetitions: int, before: Callable[[], None] | None = None
) -> list[float]:
    """Time ``run`` ``repetitions`` times (µs); ``before`` runs untimed before each.

    A warm-up runs first (imports, table loads, caches), and the garbage collector is paused
    while timing so a collection does not land in one sample.
    """
    for _ in range(min(50, repetitions)):
        if before is not None:
            before()
        run()
    samples: list[float] = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repetitions):
            if before is not None:
                before()
            start = time.perf_counter_ns()
            run()
            samples.append((time.perf_counter_ns() - start) / 1000)
    finally:
        if gc_was_enabled:
            gc.enable()
    return samples


def p90(samples: list[float]) -> float:
    """The 90th percentile."""
    return statistics.quantiles(samples, n=10, method="inclusive")[-1]
