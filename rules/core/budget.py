"""A cooperative work budget for one command: measuring and listing stop past it.

A caller that serves many users (the bot's service) opens :func:`work_budget` around each
question it puts to the rules. The loops whose work a scenario or a command can make large
(the geometry of :mod:`rules.core.geometry`, the legal-action listings) call :func:`charge`
as they go; past the budget's time it raises :class:`WorkBudgetExceeded`, a
:class:`~rules.core.errors.RulesError` the player reads in their language, so no input holds
the bot for long. Without a budget (tests, the CLI, replays, the fuzzer) :func:`charge` does
nothing: a command is never refused for time there.

The budget is kept in a context variable, as :func:`rules.core.odds.odds_budget` is: each
thread that runs rules work has its own, set by the code that runs the work on it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from rules.core.errors import RulesError

# The clock is read once per this many units of work: a unit is about a microsecond (one
# edge of a polygon tested, one candidate action checked), so the deadline is seen within
# a millisecond or so, and reading the clock costs nothing measurable.
CLOCK_EVERY = 256


class WorkBudgetExceeded(RulesError):
    """The command needed more work than one command may take (the bot's budget)."""

    default_key = "error.budget.exceeded"


@dataclass(slots=True)
class _Budget:
    seconds: float
    deadline: float
    owed: int = 0  # units charged since the clock was last read


_BUDGET: ContextVar[_Budget | None] = ContextVar("work_budget", default=None)


@contextmanager
def work_budget(seconds: float | None) -> Iterator[None]:
    """Within this block, rules work past ``seconds`` raises :class:`WorkBudgetExceeded`
    (``None``: no budget). A block inside another keeps the earlier deadline if sooner."""
    outer = _BUDGET.get()
    if seconds is None:
        token = _BUDGET.set(outer)
    else:
        deadline = time.perf_counter() + seconds
        if outer is not None and outer.deadline < deadline:
            token = _BUDGET.set(outer)
        else:
            token = _BUDGET.set(_Budget(seconds, deadline))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def charge(units: int = 1) -> None:
    """Count ``units`` of work against the running budget; raise past its deadline."""
    budget = _BUDGET.get()
    if budget is None:
        return
    budget.owed += units
    if budget.owed < CLOCK_EVERY:
        return
    budget.owed = 0
    if time.perf_counter() > budget.deadline:
        raise WorkBudgetExceeded(ms=_ms(budget.seconds))


def check_budget() -> None:
    """Raise now if the running budget's deadline has passed (whatever was charged)."""
    budget = _BUDGET.get()
    if budget is not None and time.perf_counter() > budget.deadline:
        raise WorkBudgetExceeded(ms=_ms(budget.seconds))


def remaining() -> float | None:
    """Seconds left in the running budget (None: no budget; never below 0)."""
    budget = _BUDGET.get()
    if budget is None:
        return None
    return max(0.0, budget.deadline - time.perf_counter())


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
