"""Independent repeated rolls, resolved one at a time in play and composed for the odds.

A procedure whose dice repeat — each duel of a close combat, each model under a flame, each
d10 of a scatter — declares the repetition with :func:`independent`. In play it rolls the
parts one after another through the game's tray, exactly as written. When the odds engine
runs the same procedure, each distinct part is enumerated once (memoised by its inputs), the
parts are convolved, and the engine branches on the folded result's distribution instead of
on every combination of every die: 12 duels cost 2 small enumerations and a convolution, not
36¹² paths. The odds still come from the very resolver that plays.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from rules.core.caches import BoundedCache
from rules.core.dice import DiceTray
from rules.core.odds import Weight, _PathSource, convolve_counts, distribution_of

ItemT = TypeVar("ItemT", bound=Hashable)
A = TypeVar("A", bound=Hashable)


def _distribution_weight(key: tuple[Hashable, ...], value: tuple[tuple[Any, Weight], ...]) -> int:
    """About the bytes an entry takes: each value with its weight (~250 B), and the key's
    items (a fold is keyed by every part it folds)."""
    items = key[1] if len(key) > 1 and isinstance(key[1], tuple) else ()
    return 500 + 250 * len(value) + 100 * len(items)


# One part's distribution by its input, and folds of several parts; about 1 MB each.
_PARTS: BoundedCache[tuple[Hashable, Hashable], tuple[tuple[Any, Weight], ...]] = BoundedCache(
    4096, name="composed parts", max_weight=1024 * 1024, weigh=_distribution_weight
)
_FOLDED: BoundedCache[tuple[Hashable, ...], tuple[tuple[Any, Weight], ...]] = BoundedCache(
    1024, name="composed folds", max_weight=1024 * 1024, weigh=_distribution_weight
)


def independent(
    tray: DiceTray,
    items: Sequence[ItemT],
    one: Callable[[DiceTray, ItemT], Hashable],
    fold: Callable[[A, Any], A],
    initial: A,
    *,
    key: Hashable,
    stop: Callable[[A], bool] | None = None,
) -> A:
    """Fold ``one(tray, item)`` over ``items``: rolled in play, composed for the odds.

    ``one`` must depend only on its item (and roll only through the tray it is given);
    ``key`` names the procedure part so memoised parts of different procedures never mix.
    ``stop`` may end the rolls early in play; it must mark an accumulation no later part
    changes (``fold(a, t) == a`` for every ``t`` once ``stop(a)``).
    """
    choose = getattr(tray.source, "choose", None)
    if choose is None or not isinstance(tray.source, _PathSource):
        accumulated = initial
        for item in items:
            accumulated = fold(accumulated, one(tray, item))
            if stop is not None and stop(accumulated):
                break
        return accumulated

    def folded() -> tuple[tuple[Any, Weight], ...]:
        folded_key = (key, tuple(items), initial)
        distribution = _FOLDED.get(folded_key)
        if distribution is None:
            parts = [_part(key, item, one) for item in items]
            distribution = convolve_counts(parts, fold, initial, stop)
            _FOLDED.put(folded_key, distribution)
        return distribution

    # A path replaying this roll reuses the distribution it branched on (no key to hash).
    built = getattr(tray.source, "choose_built", None)
    result: A = built(folded) if built is not None else choose(folded())
    return result


def _part(
    key: Hashable, item: ItemT, one: Callable[[DiceTray, ItemT], Hashable]
) -> tuple[tuple[Any, Weight], ...]:
    cached = _PARTS.get((key, item))
    if cached is None:
        cached = distribution_of(lambda source: one(DiceTray(source), item))
        _PARTS.put((key, item), cached)
    return cached


def clear_composed_parts() -> None:
    """Forget memoised parts and folds (benchmarks measure cold odds with it)."""
    _PARTS.clear()
    _FOLDED.clear()
