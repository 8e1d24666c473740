"""Migrations of linea_gotica game documents, oldest first.

To change the state model: bump ``version`` and add the migration from the previous
format (a pure function of the document; docs/storage.md, "How to change a state model").
"""

from __future__ import annotations

from typing import Any

from rules.core.migrations import DocumentFormat, add_format_field, add_full_strength

FORMAT = DocumentFormat("linea_gotica", version=8)

# 1 → 2: release 0.1.0 saved no format field; the state is otherwise unchanged.
FORMAT.migration(1)(add_format_field)


@FORMAT.migration(2)
def _covering_soldiers(document: dict[str, Any]) -> dict[str, Any]:
    """Format 2 → 3 (issue 11): covering fire spends only the soldiers who fire it.

    ``covered_by`` lists them per unit; a game saved before had none recorded, and a unit
    that declared covering fire then had its whole squad spent (``activity``), as before.
    """
    for unit in document.get("units", {}).values():
        unit.setdefault("covered_by", [])
    return document


@FORMAT.migration(3)
def _named_terrain(document: dict[str, Any]) -> dict[str, Any]:
    """Format 3 → 4 (issue 11): the table's named terrain elements (the scenario's ``terrain``,
    which observation and covering fire name). A game saved before named none: its sides
    name the places of the units they can see, as before."""
    document.setdefault("places", [])
    return document


@FORMAT.migration(4)
def _battlefield(document: dict[str, Any]) -> dict[str, Any]:
    """Format 4 → 5 (issue 16): the battlefield, the units' positions and the last action's
    marks. A game saved before has no battlefield: it plays on with typed distances."""
    document.setdefault("field", None)
    document.setdefault("positions", {})
    document.setdefault("marks", [])
    for mission in document.get("missions", []):
        mission.setdefault("aim", None)
        mission.setdefault("landed", None)
    for unit in document.get("units", {}).values():
        unit.setdefault("squad", None)
    for minefield in document.get("minefields", {}).values():
        minefield.setdefault("shape", None)
    for blast in document.get("blasts", []):
        blast.setdefault("center", None)
        blast.setdefault("resolved", [])
    return document


@FORMAT.migration(5)
def _victory(document: dict[str, Any]) -> dict[str, Any]:
    """Format 5 → 6 (issue 25): victory conditions and the result.

    Games saved before had none: their score is empty, and a game that reaches its turn
    limit ends in a draw (a game already over keeps no result).
    """
    empty: dict[str, Any] = {"conditions": None, "held": {}, "extra_turns": 0, "result": None}
    document.setdefault("victory", empty)  # an older document has none
    return document


# 6 → 7: a unit a campaign musters reduced records its full strength (older games
# began every unit whole).
FORMAT.migration(6)(add_full_strength)


@FORMAT.migration(7)
def _concealing(document: dict[str, Any]) -> dict[str, Any]:
    """Format 7 → 8: the sides that have hidden a unit (every fire class step waits for
    them), and the units the last action's lines and arrows are of.

    A game saved before knew neither: its concealing sides are those with a unit hidden now,
    and its lines and arrows are of the units standing at their ends (the picture hid them
    from whoever may not see one of those, as before)."""
    units = document.get("units", {})
    document.setdefault(
        "concealing", list(dict.fromkeys(u["side"] for u in units.values() if u.get("hidden")))
    )
    ends = [
        (point["x"], point["y"])
        for mark in document.get("marks", [])
        if mark.get("kind") in ("line_of_fire", "arrow")
        for point in mark.get("points", [])
    ]
    document.setdefault(
        "marks_of",
        [
            unit_id
            for unit_id, at in document.get("positions", {}).items()
            if (at["x"], at["y"]) in ends
        ],
    )
    return document
