"""What the exact-odds tests compare against: the enumeration of every face of every die.

The odds engine branches a roll once per reading the rules make of it (pass/fail, a table
row, a sum); wrapping its path source in :class:`EveryFace` hides that branching, so the
same resolver walks every face — the brute force the branched odds must equal exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rules.core.dice import Die


class EveryFace:
    """A dice source hiding the odds engine's branching: every face is enumerated."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def by_hand(self) -> bool:
        """Never typed by a player."""
        return False

    def face(self, die: Die, label: str) -> int:
        """The face the wrapped enumeration gives, one path per face."""
        return int(self._inner.face(die, label))


def fractions(odds: Any) -> dict[str, Fraction]:
    """An odds result as outcome code → exact probability."""
    return {e.outcome.code: Fraction(e.numerator, e.denominator) for e in odds.entries}
