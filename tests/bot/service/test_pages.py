"""The web page's log lines (bot/service/pages.py): remembered by event and reader, so a
new event puts one line in words, and never shown to a reader another may read alone."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.service import pages
from bot.service.events import SECRET_ARG
from db.models import EventRecord
from rules.core.seatview import Seat

SIDES = {"alleati": "Allies", "tedeschi": "Germans"}
NAMES = {1: "referee"}
OWN, ENEMY, REFEREE = Seat(side="tedeschi"), Seat(side="alleati"), Seat(referee=True)


def hidden_move(seq: int, hash_: str = "h") -> EventRecord:
    args = {SECRET_ARG: "tedeschi", "unit": "cecchino", "to": "the farmhouse"}
    return EventRecord(
        7, seq, None, 1, "move", args, [], [], seq, "s", None, datetime.now(UTC), "p", hash_
    )


def lines(events: list[EventRecord], reader: Seat) -> list[str]:
    entries = pages._log_entries(events, "linea_gotica", "en", SIDES, reader, NAMES)
    return [entry.line for entry in entries]


def test_each_reader_reads_the_line_their_seat_may_read_in_any_order() -> None:
    pages.forget_log_lines()
    events = [hidden_move(1)]
    for _ in range(2):  # the second time from memory
        for reader in (OWN, ENEMY, REFEREE):
            shown = lines(events, reader)[0]
            assert ("cecchino" in shown) is (reader is not ENEMY), (reader, shown)


def test_a_new_event_puts_only_its_own_line_in_words(monkeypatch) -> None:
    pages.forget_log_lines()
    worded: list[int] = []
    real = pages.event_line

    def counting(event, *arguments):
        worded.append(event.seq)
        return real(event, *arguments)

    monkeypatch.setattr(pages, "event_line", counting)
    page = [hidden_move(seq) for seq in range(1, 6)]
    lines(page, OWN)
    lines([*page, hidden_move(6)], OWN)
    assert worded == [1, 2, 3, 4, 5, 6]
    # An event rewritten under the same number (another hash) is worded again.
    lines([hidden_move(6, hash_="other")], OWN)
    assert worded[-1] == 6 and len(worded) == 7
