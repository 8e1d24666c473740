"""The web page's log lines (bot/service/web.py): remembered by event and reader, so a
new event puts one line in words, and never shown to a reader another may read alone."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.service import web
from bot.service.events import SECRET_ARG, Reader
from db.models import EventRecord

SIDES = {"alleati": "Allies", "tedeschi": "Germans"}
NAMES = {1: "referee"}
OWN, ENEMY, REFEREE = Reader(side="tedeschi"), Reader(side="alleati"), Reader(referee=True)


def hidden_move(seq: int, hash_: str = "h") -> EventRecord:
    args = {SECRET_ARG: "tedeschi", "unit": "cecchino", "to": "the farmhouse"}
    return EventRecord(
        7, seq, None, 1, "move", args, [], [], seq, "s", None, datetime.now(UTC), "p", hash_
    )


def lines(events: list[EventRecord], reader: Reader) -> list[str]:
    entries = web._log_entries(events, "linea_gotica", "en", SIDES, reader, NAMES)
    return [entry.line for entry in entries]


def test_each_reader_reads_the_line_their_seat_may_read_in_any_order() -> None:
    web.forget_log_lines()
    events = [hidden_move(1)]
    for _ in range(2):  # the second time from memory
        for reader in (OWN, ENEMY, REFEREE):
            shown = lines(events, reader)[0]
            assert ("cecchino" in shown) is (reader is not ENEMY), (reader, shown)


def test_a_new_event_puts_only_its_own_line_in_words(monkeypatch) -> None:
    web.forget_log_lines()
    worded: list[int] = []
    real = web.event_line

    def counting(event, *arguments):
        worded.append(event.seq)
        return real(event, *arguments)

    monkeypatch.setattr(web, "event_line", counting)
    page = [hidden_move(seq) for seq in range(1, 6)]
    lines(page, OWN)
    lines([*page, hidden_move(6)], OWN)
    assert worded == [1, 2, 3, 4, 5, 6]
    # An event rewritten under the same number (another hash) is worded again.
    lines([hidden_move(6, hash_="other")], OWN)
    assert worded[-1] == 6 and len(worded) == 7
