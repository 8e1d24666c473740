"""Migrations of manovra game documents, oldest first.

To change the state model: bump ``version`` and add the migration from the previous
format (a pure function of the document; docs/storage.md, "How to change a state model").
"""

from __future__ import annotations

from typing import Any

from rules.core.migrations import DocumentFormat, add_format_field, add_full_strength

FORMAT = DocumentFormat("manovra", version=7)

# 1 → 2: release 0.1.0 saved no format field; the state is otherwise unchanged.
FORMAT.migration(1)(add_format_field)


@FORMAT.migration(2)
def _requests_and_bursts(document: dict[str, Any]) -> dict[str, Any]:
    """Format 2 → 3 (issue 11): step-2 bookkeeping, HE bursts, the blasts of IF markers.

    ``requests_done`` and ``requested`` matter during step 2 only: a game saved then
    counts the units that placed a marker as having requested (failed requests were not
    recorded). An executed marker had fired at least one round; no burst was recorded.
    """
    in_requests = document.get("step") == 2
    markers = document.get("markers", [])
    document["requests_done"] = []
    document["requested"] = (
        list(dict.fromkeys(m["requested_by"] for m in markers)) if in_requests else []
    )
    document["bursts"] = []
    for marker in markers:
        marker["shots"] = 1 if marker.get("executed") else 0
        marker["fragment_hits"] = []
    return document


@FORMAT.migration(3)
def _battlefield(document: dict[str, Any]) -> dict[str, Any]:
    """Format 3 → 4 (issue 16): the battlefield the bot measures on, unit positions, aimed
    and landing points of IF markers, the last action drawn on the map.

    Games saved before had no battlefield: players keep stating distances and terrain.
    """
    document["battlefield"] = None
    document["last_action"] = None
    for unit in document.get("units", {}).values():
        unit["position"] = None
    for marker in document.get("markers", []):
        marker["aim"] = None
        marker["landings"] = []
    return document


@FORMAT.migration(4)
def _victory(document: dict[str, Any]) -> dict[str, Any]:
    """Format 4 → 5 (issue 25): victory conditions and the result.

    Games saved before had none: their score is empty, and a game that reaches its turn
    limit ends in a draw (a game already over keeps no result).
    """
    empty: dict[str, Any] = {"conditions": None, "held": {}, "extra_turns": 0, "result": None}
    document.setdefault("victory", empty)  # an older document has none
    return document


@FORMAT.migration(5)
def _transports(document: dict[str, Any]) -> dict[str, Any]:
    """Format 5 → 6 (seed 000 lines 9-10): transports and what they carry or tow.

    Games saved before had no transport: no unit carries another or rides in one.
    """
    for unit in document.get("units", {}).values():
        unit.setdefault("carries", 0)
        unit.setdefault("aboard", None)
    return document


# 6 → 7: a unit a campaign musters reduced records its full strength (older games
# began every unit whole).
FORMAT.migration(6)(add_full_strength)
