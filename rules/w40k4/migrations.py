"""Migrations of w40k4 game documents, oldest first.

To change the state model: bump ``version`` and add the migration from the previous
format (a pure function of the document; docs/storage.md, "How to change a state model").
"""

from __future__ import annotations

from typing import Any

from rules.core.migrations import DocumentFormat, add_format_field, add_full_strength

FORMAT = DocumentFormat("w40k4", version=5)

# 1 → 2: release 0.1.0 saved no format field; the state is otherwise unchanged.
FORMAT.migration(1)(add_format_field)


@FORMAT.migration(2)
def _battlefield(document: dict[str, Any]) -> dict[str, Any]:
    """Format 2 → 3 (issue 16): the battlefield the bot measures on, each unit's point on it
    and the last action the map shows. A game saved before had no battlefield: players keep
    typing distances, units have no point and there is nothing to draw."""
    document.setdefault("battlefield", None)
    document.setdefault("last", None)
    for unit in document.get("units", {}).values():
        unit.setdefault("at", None)
    return document


@FORMAT.migration(3)
def _victory(document: dict[str, Any]) -> dict[str, Any]:
    """Format 3 → 4 (issue 25): victory conditions and the result.

    Games saved before had none: their score is empty, and a game that reaches its turn
    limit ends in a draw (a game already over keeps no result).
    """
    empty: dict[str, Any] = {"conditions": None, "held": {}, "extra_turns": 0, "result": None}
    document.setdefault("victory", empty)  # an older document has none
    return document


# 4 → 5: a unit a campaign musters reduced records its full strength (older games
# began every unit whole).
FORMAT.migration(4)(add_full_strength)
