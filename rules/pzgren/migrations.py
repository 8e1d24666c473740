"""Migrations of pzgren game documents, oldest first.

To change the state model: bump ``version`` and add the migration from the previous
format (a pure function of the document; docs/storage.md, "How to change a state model").
"""

from __future__ import annotations

from typing import Any

from rules.core.migrations import DocumentFormat, add_format_field, add_full_strength

FORMAT = DocumentFormat("pzgren", version=4)

# 1 → 2: release 0.1.0 saved no format field; the state is otherwise unchanged.
FORMAT.migration(1)(add_format_field)


@FORMAT.migration(2)
def _victory(document: dict[str, Any]) -> dict[str, Any]:
    """Format 2 → 3 (issue 25): victory conditions and the result.

    Games saved before had none: their score is empty, and a game that reaches its turn
    limit ends in a draw (one that ended with a side destroyed, or already over, keeps no
    result).
    """
    empty: dict[str, Any] = {"conditions": None, "held": {}, "extra_turns": 0, "result": None}
    document.setdefault("victory", empty)  # an older document has none
    return document


# 3 → 4: a unit a campaign musters reduced records its full strength (older games
# began every unit whole).
FORMAT.migration(3)(add_full_strength)
