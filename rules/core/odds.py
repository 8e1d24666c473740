"""Exact odds by enumerating every combination of the dice a resolver uses.

The resolver itself is run once per path through its dice (depth-first, like an
odometer): a path that stops rolling early (a miss needs no penetration roll) is one leaf
weighted by the dice it used. There is no second formula to keep in step with the rules.
The work is bounded by ``limit`` runs, and results are cached by the caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from math import gcd
from typing import Any, TypeVar

from rules.core.budget import remaining
from rules.core.dice import Die
from rules.core.resolution import Odds, OddsEntry, Outcome

# ~40 µs a resolver run: 5,000 paths bound a cold enumeration to about 0.2 s. Procedures
# whose dice repeat (duels, models, attacks) compose instead (DiceTray.independent), so
# their paths stay few whatever the input.
DEFAULT_PATH_LIMIT = 5_000
# A wall-clock safety net for one enumeration, set by a caller that serves many users (the
# bot's service); None (the default) keeps odds deterministic for tests and the CLI.
_BUDGET: ContextVar[float | None] = ContextVar("odds_budget", default=None)


def current_odds_budget() -> float | None:
    """The seconds an enumeration may take in this context (None: no budget)."""
    return _BUDGET.get()


@contextmanager
def odds_budget(seconds: float | None) -> Iterator[None]:
    """Within this block an enumeration past ``seconds`` gives up (no odds, never a stall)."""
    token = _BUDGET.set(seconds)
    try:
        yield
    finally:
        _BUDGET.reset(token)


# Composed distributions stay exact fractions up to this many independent parts; beyond,
# they are summed in floating point (relative error below 1e-12, far under what is shown).
EXACT_PARTS_LIMIT = 40

Weight = Fraction | float


class _PathSource:
    """Replays a path of choices and extends it with the first choice at each new roll.

    A roll is either a die (``options[i]`` is its number of sides, each face weighing
    1/sides) or a weighted choice among a composed distribution's values (``options[i]`` is
    a tuple of ``(value, weight)``), asked through :meth:`choose`.
    """

    __slots__ = ("choices", "options", "position")

    def __init__(self, choices: list[int], options: list[int | tuple[tuple[Any, Weight], ...]]):
        self.choices = choices
        self.options = options
        self.position = 0

    #: Marks the odds enumerator's source (DiceTray.roll_against branches on it).
    odds_paths = True

    @property
    def by_hand(self) -> bool:
        return False

    def face(self, die: Die, label: str) -> int:
        index = self.position
        self.position = index + 1
        if index < len(self.choices):
            if self.options[index] != die.sides:
                # A resolver must ask for the same dice given the same earlier faces.
                raise RuntimeError(f"non-deterministic resolver at roll {index + 1} ({label})")
            return self.choices[index] + 1
        self.choices.append(0)
        self.options.append(die.sides)
        return 1

    def choose(self, distribution: tuple[tuple[Any, Weight], ...]) -> Any:
        """Branch on a composed distribution: one path per value, weighted."""
        index = self.position
        self.position = index + 1
        if index < len(self.choices):
            return distribution[self.choices[index]][0]
        self.choices.append(0)
        self.options.append(distribution)
        return distribution[0][0]

    def choose_built(self, build: Callable[[], tuple[tuple[Any, Weight], ...]]) -> Any:
        """:meth:`choose`, the distribution built by ``build`` only when this roll is new.

        Every path replays the rolls before its last new one: replays read the distribution
        kept from the first time instead of building it again.
        """
        index = self.position
        if index < len(self.choices):
            option = self.options[index]
            if isinstance(option, int):
                raise RuntimeError(f"non-deterministic resolver at roll {index + 1}")
            self.position = index + 1
            return option[self.choices[index]][0]
        return self.choose(build())


def _width(option: int | tuple[tuple[Any, Weight], ...]) -> int:
    return option if isinstance(option, int) else len(option)


def _walk(
    run: Callable[[_PathSource], Hashable], limit: int, budget_s: float | None = None
) -> tuple[dict[Any, Weight], int]:
    """Every path of ``run`` with its weight, summed by result.

    Returns ({}, paths) past ``limit`` paths or ``budget_s`` seconds: a safety net, so no
    input can hold the caller for long (composition keeps real inputs far below both).
    """
    deadline = None if budget_s is None else time.perf_counter() + budget_s
    choices: list[int] = []
    options: list[int | tuple[tuple[Any, Weight], ...]] = []
    # result -> {denominator: count} for plain dice paths (integer sums, one division at the
    # end) and result -> weight for paths through composed distributions.
    plain: dict[Any, dict[int, int]] = {}
    weighted: dict[Any, Weight] = {}
    paths = 0
    while True:
        source = _PathSource(choices, options)
        result = run(source)
        del choices[source.position :]
        del options[source.position :]
        denominator = 1
        weight: Weight | None = None
        for option, choice in zip(options, choices, strict=True):
            if isinstance(option, int):
                denominator *= option
            else:
                weight = option[choice][1] if weight is None else weight * option[choice][1]
        if weight is None:
            bucket = plain.setdefault(result, {})
            bucket[denominator] = bucket.get(denominator, 0) + 1
        else:
            # Fractions are slow: skip dividing by 1 and adding to nothing.
            if denominator != 1:
                weight = weight / denominator
            previous = weighted.get(result)
            weighted[result] = weight if previous is None else previous + weight
        paths += 1
        while choices and choices[-1] == _width(options[-1]) - 1:
            choices.pop()
            options.pop()
        if not choices:
            break
        if paths >= limit:
            return {}, paths
        if deadline is not None and not paths % 64 and time.perf_counter() > deadline:
            return {}, paths
        choices[-1] += 1
    totals: dict[Any, Weight] = dict(weighted)
    for result, bucket in plain.items():
        exact = sum((Fraction(count, den) for den, count in bucket.items()), Fraction(0))
        totals[result] = totals.get(result, 0) + exact
    return totals, paths


def enumerate_odds(
    run: Callable[[_PathSource], Outcome],
    limit: int = DEFAULT_PATH_LIMIT,
    budget_s: float | None = None,
) -> Odds:
    """Run ``run`` over every dice path and return the outcome distribution.

    ``run`` receives a dice source and returns the outcome. If more than ``limit`` paths
    or ``budget_s`` seconds would be needed, returns inexact (empty) odds instead of stalling.
    """
    seconds = budget_s if budget_s is not None else _BUDGET.get()
    # Within a command's work budget, odds give up (none shown) before the command would.
    left = remaining()
    if left is not None:
        seconds = left if seconds is None else min(seconds, left)
    totals, paths = _walk(run, limit, seconds)
    if not totals:
        return Odds((), paths, exact=False)
    entries = []
    for outcome, total in totals.items():
        if not isinstance(total, Fraction):
            total = Fraction(total).limit_denominator(10**15)
        if total:
            entries.append(OddsEntry(outcome, total.numerator, total.denominator))
    entries.sort(key=lambda entry: (-entry.numerator / entry.denominator, entry.outcome.code))
    return Odds(tuple(entries), paths, exact=True)


def distribution_of(
    run: Callable[[_PathSource], Hashable], limit: int = DEFAULT_PATH_LIMIT
) -> tuple[tuple[Any, Weight], ...]:
    """The distribution of whatever ``run`` returns over every dice path (most likely first).

    Raises ``OverflowError`` past ``limit`` paths: a part of a composition must be small.
    """
    totals, paths = _walk(run, limit)
    if not totals:
        raise OverflowError(f"a composed part needs more than {limit} paths ({paths})")
    return tuple(sorted(totals.items(), key=lambda item: -float(item[1])))


A = TypeVar("A", bound=Hashable)


def convolve(
    parts: Sequence[tuple[tuple[Any, Weight], ...]],
    fold: Callable[[A, Any], A],
    initial: A,
    stop: Callable[[A], bool] | None = None,
) -> tuple[tuple[A, Weight], ...]:
    """The distribution of folding independent parts, each given by its distribution.

    ``stop`` marks absorbing accumulations (no later part changes them): they carry on
    unchanged, as the real roll stops there.
    """
    exact = len(parts) <= EXACT_PARTS_LIMIT
    current: dict[A, Weight] = {initial: Fraction(1) if exact else 1.0}
    for part in parts:
        if not exact:
            part = tuple((value, float(weight)) for value, weight in part)
        following: dict[A, Weight] = {}
        for accumulated, chance in current.items():
            if stop is not None and stop(accumulated):
                following[accumulated] = following.get(accumulated, 0) + chance
                continue
            for value, weight in part:
                folded = fold(accumulated, value)
                following[folded] = following.get(folded, 0) + chance * weight
        current = following
    return tuple(sorted(current.items(), key=lambda item: -float(item[1])))


def convolve_counts(
    parts: Sequence[tuple[tuple[Any, Weight], ...]],
    fold: Callable[[A, Any], A],
    initial: A,
    stop: Callable[[A], bool] | None = None,
) -> tuple[tuple[A, Weight], ...]:
    """:func:`convolve`, exact and faster: each part's weights are scaled to integers over
    its common denominator, the folding multiplies and adds plain integers, and one
    division per result ends it (Fraction arithmetic at every step costs ~20× more).

    Beyond :data:`EXACT_PARTS_LIMIT` parts, or with a part already in floating point, the
    same as :func:`convolve`.
    """
    if len(parts) > EXACT_PARTS_LIMIT or any(
        not isinstance(weight, Fraction) for part in parts for _, weight in part
    ):
        return convolve(parts, fold, initial, stop)
    current: dict[A, int] = {initial: 1}
    scale = 1
    for part in parts:
        denominator = 1
        for _, weight in part:
            assert isinstance(weight, Fraction)
            denominator = denominator * weight.denominator // gcd(denominator, weight.denominator)
        counts = [
            (value, weight.numerator * (denominator // weight.denominator))
            for value, weight in part
            if isinstance(weight, Fraction)
        ]
        following: dict[A, int] = {}
        for accumulated, count in current.items():
            if stop is not None and stop(accumulated):
                # Absorbed: it stays as it is whatever this part shows.
                following[accumulated] = following.get(accumulated, 0) + count * denominator
                continue
            for value, times in counts:
                folded = fold(accumulated, value)
                following[folded] = following.get(folded, 0) + count * times
        current = following
        scale *= denominator
    return tuple(
        sorted(
            ((value, Fraction(count, scale)) for value, count in current.items()),
            key=lambda item: -float(item[1]),
        )
    )
