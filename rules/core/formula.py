"""Tiny dice formulas read from table data: ``"D10 + 2D8 - AD - CV"``.

A formula is a sum of signed terms: dice (``D8``, ``2D8``), integers, and named values
(``AD``, ``CV``) supplied by the caller. Tables store formulas; procedures evaluate them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.core.dice import Die

_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)[dD](\d+)|(\d+)|([A-Za-z_]+))\s*")


@dataclass(frozen=True, slots=True)
class Term:
    """One signed term: ``count`` dice of ``die``, a constant, or a named value."""

    sign: int
    die: Die | None = None
    count: int = 0
    constant: int = 0
    name: str | None = None


def parse_formula(text: str) -> tuple[Term, ...]:
    """Parse a formula; raises ValueError on anything else."""
    terms: list[Term] = []
    position = 0
    while position < len(text):
        match = _TERM.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"bad formula {text!r} at {position}")
        sign = -1 if match.group(1) == "-" else 1
        if not terms and match.group(1) is None:
            sign = 1
        elif terms and match.group(1) is None:
            raise ValueError(f"missing operator in {text!r}")
        if match.group(3) is not None:
            terms.append(Term(sign, Die(int(match.group(3))), int(match.group(2) or 1)))
        elif match.group(4) is not None:
            terms.append(Term(sign, constant=int(match.group(4))))
        else:
            terms.append(Term(sign, name=match.group(5).upper()))
        position = match.end()
    if not terms:
        raise ValueError("empty formula")
    return tuple(terms)
