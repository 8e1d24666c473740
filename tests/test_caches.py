"""Every cache is bounded: filled past its bounds, it keeps within them.

Caches are keyed by what players and uploaded scenarios send, so any stream of inputs must
fit: every `BoundedCache` (by entries and, where its values vary in size, by weight),
every ``functools`` cache of a function with arguments (a ``maxsize``), the documents the
store keeps for its next patch, the service's channel locks and the log's rate limiter.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

import pytest
from PIL import Image

import bot
import db
import rules
from bot.service.channel_locks import ChannelLocks
from db.chain.head_cache import MAX_BYTES, MAX_ENTRIES, HeadCache
from db.chain.patch import ParsedDocuments
from rules.core.caches import BoundedCache, bounded_caches
from rules.core.resolution import Odds, OddsEntry, Outcome
from tests.db.helpers import command_context, verified_head

PACKAGES = (rules, bot, db)


def _modules() -> list[Any]:
    found = []
    for package in PACKAGES:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            found.append(importlib.import_module(info.name))
    return found


MODULES = _modules()

#: Keys and values shaped as each weighed cache's own (the weight is read from them).
_ODDS = Odds(tuple(OddsEntry(Outcome.of(f"outcome.{n}", n=n), 1, 64) for n in range(64)), paths=64)
SAMPLES: dict[str, Callable[[int], tuple[Hashable, object]]] = {
    "odds": lambda n: (("manovra", "test", "x" * 500 + str(n)), _ODDS),
    "w40k4 composed odds": lambda n: (("shooting", "y" * 200 + str(n)), _ODDS),
    "composed parts": lambda n: (("part", n), tuple((k, Fraction(1, 64)) for k in range(64))),
    "composed folds": lambda n: (
        ("fold", tuple(range(20)), n),
        tuple((k, Fraction(1, 64)) for k in range(64)),
    ),
    "map lettering": lambda n: ((f"word {n}", 12, "la"), (Image.new("L", (120, 40)), 0, 0)),
}


def test_every_bounded_cache_keeps_within_its_bounds_when_filled_past_them() -> None:
    caches = bounded_caches()
    names = {cache.name for cache in caches}
    assert {
        "odds", "composed parts", "composed folds", "w40k4 composed odds",
        "pzgren fire columns", "manovra grenade shots", "manovra cells read",
        "shape boxes", "map lettering",
    } <= names, names  # fmt: skip
    for cache in caches:
        sample = SAMPLES.get(cache.name)
        if cache.max_weight is not None:
            assert sample is not None, f"{cache.name}: add a sample to fill it with"
        saved = list(cache._items.items())
        try:
            for n in range(cache.capacity + 100):
                key, value = sample(n) if sample is not None else (("fill", n), object())
                cache.put(key, value)  # type: ignore[arg-type]
                assert len(cache) <= cache.capacity, cache.name
                if cache.max_weight is not None:
                    assert cache.weight <= cache.max_weight, cache.name
            if cache.max_weight is not None:  # the weight bound bit before the count did
                assert len(cache) < cache.capacity, cache.name
        finally:
            cache.clear()
            for key, (value, _) in saved:
                cache.put(key, value)


def test_functools_caches_of_functions_with_arguments_have_a_size() -> None:
    unbounded = []
    for module in MODULES:
        for name, value in vars(module).items():
            if not hasattr(value, "cache_parameters") or value.__module__ != module.__name__:
                continue
            if (
                value.cache_parameters()["maxsize"] is None
                and inspect.signature(value.__wrapped__).parameters
            ):
                unbounded.append(f"{module.__name__}.{name}")
    assert unbounded == []


def test_a_bounded_cache_drops_the_least_recent_by_weight_and_refuses_a_giant() -> None:
    cache: BoundedCache[str, str] = BoundedCache(
        100, name="test weights", max_weight=10, weigh=lambda key, value: len(value)
    )
    cache.put("a", "xxxx")
    cache.put("b", "xxxx")
    assert cache.get("a") == "xxxx"  # a is now the most recent
    cache.put("c", "xxxx")  # 12 > 10: b goes
    assert cache.get("b") is None and cache.weight == 8
    cache.put("giant", "x" * 11)
    assert cache.get("giant") is None and cache.weight == 8
    cache.put("a", "x")  # replacing an entry replaces its weight
    assert cache.weight == 5
    with pytest.raises(ValueError):
        BoundedCache(1, max_weight=1)


def test_a_bounded_cache_is_shared_by_threads() -> None:
    cache: BoundedCache[int, int] = BoundedCache(
        50, name="test threads", max_weight=400, weigh=lambda key, value: 10
    )
    errors: list[BaseException] = []

    def hammer(offset: int) -> None:
        try:
            for n in range(5000):
                cache.put((n * 7 + offset) % 300, n)
                cache.get((n * 3) % 300)
        except BaseException as error:  # pragma: no cover - what the test looks for
            errors.append(error)

    threads = [threading.Thread(target=hammer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(cache) <= 40 and cache.weight == 10 * len(cache)


def test_the_documents_kept_for_patches_are_bounded() -> None:
    memory = ParsedDocuments()
    text = '{"x":"' + "y" * 12_000 + '"}'
    for channel in range(1000):
        memory.keep(channel, text + str(channel), {"x": "y"})
    kept, characters, parsed = memory.size
    assert kept <= 64 and characters <= 1024 * 1024 and parsed <= 8
    memory.keep(5000, "z" * (2 * 1024 * 1024), None)  # larger than the bound: not kept
    assert memory.latest(5000) is None


def test_the_heads_the_store_keeps_between_commands_are_bounded() -> None:
    cache = HeadCache()
    text = "y" * (MAX_BYTES // 100)  # one object: the bound counts each entry's text
    for channel in range(MAX_ENTRIES * 2):
        cache.put(cache.reading(channel), command_context(channel, 1, text), verified_head(1), 0)
        assert len(cache) <= MAX_ENTRIES and cache.size_bytes <= MAX_BYTES
    assert len(cache) == 100
    for channel in range(MAX_ENTRIES * 2):
        cache.put(cache.reading(channel), command_context(channel, 1, "{}"), verified_head(1), 0)
    assert len(cache) == MAX_ENTRIES


async def test_channel_locks_are_dropped_once_released() -> None:
    locks = ChannelLocks()
    order: list[str] = []

    async def command(channel: int, name: str) -> None:
        async with locks.hold(channel):
            order.append(name)
            await asyncio.sleep(0)

    await asyncio.gather(*(command(channel % 300, str(channel)) for channel in range(1000)))
    assert len(order) == 1000 and len(locks) == 0
    waiting = asyncio.create_task(command(1, "late"))
    async with locks.hold(1):
        await asyncio.sleep(0)
        assert len(locks) == 1
    await waiting
    assert len(locks) == 0
    cancelled = asyncio.create_task(command(2, "never"))
    async with locks.hold(2):
        await asyncio.sleep(0)
        cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert len(locks) == 0
