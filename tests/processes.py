"""Watching processes from the tests: whether one still runs, and its children (Linux)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether a process ``pid`` still exists (one that ended and was reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone_within(pids: set[int], limit_s: float) -> bool:
    """Wait up to ``limit_s`` for every process of ``pids`` to end; whether they did."""
    deadline = time.monotonic() + limit_s
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def children_of(pid: int) -> set[int]:
    """The processes ``pid`` started that are still running (Linux's /proc)."""
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children.update(int(child) for child in (task / "children").read_text().split())
    return children
