"""Settling the heap at start-up (bot/app/warmup.py): what is loaded is frozen, and the
youngest generation is collected seldom enough that a command's short-lived objects, freed
by their reference counts, do not start a collection."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.app.warmup import settle_heap


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection, with the collector's settings restored after."""
    thresholds = gc.get_threshold()
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def _a_command_s_worth_of_objects() -> None:
    # A state's worth of containers alive together, then freed together (as a command's
    # validated state and dumped document are).
    state = [{"unit": index} for index in range(4_000)]
    del state


def test_a_settled_heap_starts_no_collection_for_a_command_s_objects(collections) -> None:
    gc.set_threshold(700, 10, 10)  # Python's default
    _a_command_s_worth_of_objects()
    assert collections  # the default collects several times meanwhile
    settle_heap()
    assert gc.get_freeze_count() > 0
    collections.clear()
    _a_command_s_worth_of_objects()
    assert collections == []
