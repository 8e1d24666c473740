"""Bounded caches: least recently used first out, by number of entries and by weight.

Odds, composed parts, cells read and shapes measured are cached by input, and inputs come
from players and uploaded scenarios: any stream of them must fit in bounded memory. Every
`BoundedCache` holds at most ``capacity`` entries and, given a ``weigh``, at most
``max_weight`` (about bytes: ``weigh`` estimates an entry cheaply, from the number of
outcomes it holds, not by walking it). Each registers itself by name (`bounded_caches`),
so a test can fill every one past its bounds and the memory benchmark can report them.

Thread-safe: the service's worker threads may share them.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_REGISTRY: weakref.WeakSet[BoundedCache[Hashable, object]] = weakref.WeakSet()


class BoundedCache(Generic[K, V]):
    """A least-recently-used cache bounded by entries and, optionally, by weight."""

    def __init__(
        self,
        capacity: int,
        *,
        name: str = "",
        max_weight: int | None = None,
        weigh: Callable[[K, V], int] | None = None,
    ) -> None:
        if max_weight is not None and weigh is None:
            raise ValueError("a weight bound needs a weigh function")
        self.name = name or f"cache-{id(self):x}"
        self.capacity = capacity
        self.max_weight = max_weight
        self._weigh = weigh
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        _REGISTRY.add(self)  # type: ignore[arg-type]

    def get(self, key: K) -> V | None:
        """The cached value, refreshed as most recently used, or ``None``."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: K, value: V) -> None:
        """Store a value, evicting the least recently used beyond the bounds (a value
        heavier than the whole weight bound is not kept at all)."""
        weight = self._weigh(key, value) if self._weigh is not None else 0
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            if self.max_weight is not None and weight > self.max_weight:
                return
            self._items[key] = (value, weight)
            self._weight += weight
            while len(self._items) > self.capacity or (
                self.max_weight is not None and self._weight > self.max_weight
            ):
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    @property
    def weight(self) -> int:
        """The weight of the entries kept (0 without a weigh function)."""
        return self._weight

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._weight = 0


def bounded_caches() -> list[BoundedCache[Hashable, object]]:
    """Every bounded cache alive, by name."""
    return sorted(_REGISTRY, key=lambda cache: cache.name)


__all__ = ["BoundedCache", "bounded_caches"]
