"""A seat's export (bot/service/export.py, ``Redaction``): the parts of an event the reader
may not read — a resolution or a die a side keeps for itself — are left out; the event is
marked ``redacted`` only in an unsalted record, whose events' hashes a reader checks."""

from __future__ import annotations

from typing import Any

from bot.service.events import PUBLIC_ARGS, SECRET_ARG, may_read, part_readable
from bot.service.export import Redaction
from rules.core.seatview import Seat

ENEMY, OWNER = Seat("alleati"), Seat("tedeschi")


def _redaction(reader: Seat) -> Redaction:
    return Redaction(
        reader=str(reader.side),
        withheld=lambda args: not may_read(reader, args),
        kept_args=PUBLIC_ARGS,
        part_withheld=lambda part: not part_readable(reader, part),
    )


def _next_turn() -> dict[str, Any]:
    """A ``/turn next`` whose first roll, and its die, are the Germans' own."""
    return {
        "verb": "turn.next",
        "args": {"actor_side": "alleati"},
        "dice": [{"die": "D10", "face": 1, SECRET_ARG: "tedeschi"}, {"die": "D10", "face": 8}],
        "resolution": [{"outcome_code": "passed", SECRET_ARG: "tedeschi"}, {"outcome_code": "won"}],
        "hash": "h",
    }


def test_a_part_a_side_keeps_is_left_out_of_the_others_export() -> None:
    event = _next_turn()
    salted = _redaction(ENEMY).event(event, salted=True)
    assert salted["dice"] == [{"die": "D10", "face": 8}]
    assert salted["resolution"] == [{"outcome_code": "won"}]
    assert "redacted" not in salted and salted["args"] == event["args"]
    # In an unsalted record its hash no longer checks: it is marked, only linked.
    assert _redaction(ENEMY).event(event, salted=False)["redacted"] is True
    assert _redaction(OWNER).event(event, salted=False) is event
