"""Bundled campaigns, the after-action report and the time between games, through the
service on both store backends: ``/campaign new book:`` logs the book, ``/campaign game``
without a scenario takes the book's next, the map's areas change hands with the results
(``/campaign status`` shows them); ``/campaign export`` gives the report and the log;
``by:`` dates a game, its reminder goes out once across two processes, the referee is told
when it passes and decides (``/campaign overdue``), a forfeit entering the result."""

from __future__ import annotations

import datetime as dt
import importlib
import json
from io import BytesIO
from typing import Any

import pytest
from PIL import Image

from bot.console.render_text import reply_text
from bot.render import campaign_map as drawn
from bot.render.campaign_report import with_report
from bot.service import GameService
from bot.service.campaign import calendar
from bot.service.campaign.adopt import PENDING, STALE_AFTER
from bot.service.export import discard
from db.models import Scope
from rules.campaign.events import event_of
from rules.campaign.state import replay, standings
from rules.campaign.story import holders
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    OUTSIDER,
    REFEREE,
    SECOND,
    THIRD,
    ScriptedDice,
    Table,
    settle,
)

TODAY = dt.date(2026, 11, 26)


class Clock:
    """The date the campaign's calendar reads (tests move it)."""

    def __init__(self) -> None:
        self.date = TODAY


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moving = Clock()
    monkeypatch.setattr(calendar, "today", lambda: moving.date)
    return moving


async def _book_campaign(store: Any) -> Table:
    table = Table(store)
    created = await table(
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        ruleset="w40k4",
        name="Valle",
        language="en",
        book="crociata_valle",
    )
    assert [n.key for n in created.notices] == ["bot.campaign.created", "bot.campaign.book.opened"]
    await table.seat(ANNA, "legione")
    await table.seat(BRUNO, "predoni")
    return table


def _assert_replay(events: list[Any], document: dict[str, Any]) -> None:
    assert replay(event_of(e.args["campaign"]) for e in events).to_json() == document


async def test_a_book_campaign_follows_its_scenarios_and_its_map(any_store: Any) -> None:
    table = await _book_campaign(any_store)
    state = await table.campaign()
    assert state.book is not None and state.book.book == "crociata_valle"
    assert holders(state) == {"avamposto": "legione", "colline": "predoni", "valle": "predoni"}
    # No scenario: the book's next, dated by the book's spacing (7 days).
    linked = await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)
    assert "(avamposto_campo)" in reply_text(linked)
    assert "should be played by 2026-12-03" in reply_text(linked)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    state = await table.campaign()
    assert holders(state)["avamposto"] == "predoni"  # the outpost changed hands
    settled = await settle(table, 1, by_players=True)  # its aftermath, before the next game
    assert "the next game may start" in reply_text(settled)
    second = await table(CAMPAIGN, REFEREE, "campaign.game", channel=SECOND, by="2026-12-20")
    assert "(relitto)" in reply_text(second)
    assert "by 2026-12-20" in reply_text(second)
    status = reply_text(await table(CAMPAIGN, ANNA, "campaign.status"))
    assert "The outpost: held by Raiders" in status
    assert "The wreck's hills: held by Raiders, fought for now" in status
    assert "Game 2 is due by 2026-12-20." in status
    assert "Next scenario: The escape to the valley (example), scenario:fuga" in status
    await table(SECOND, REFEREE, "game.decide", result="legione", reason="ok")
    await settle(table, 2, by_players=False)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=THIRD)
    # Game 3 in play: the book's scenarios are all linked, not all played.
    in_play = "error.campaign.book_in_play"
    await table.refused(CAMPAIGN, REFEREE, "campaign.game", in_play, channel=9)
    await table(THIRD, REFEREE, "game.decide", result="none", reason="night")
    state = await table.campaign()
    assert [g.scenario for g in state.games] == ["avamposto_campo", "relitto", "fuga"]
    assert holders(state) == {"avamposto": "predoni", "colline": "legione", "valle": "predoni"}
    # Every scenario played (and game 3's aftermath settled): the next game needs one named.
    last = reply_text(await settle(table, 3, by_players=False))
    assert "the book «The crusade of the valley» is complete" in last
    assert "next game" not in last
    await table.refused(CAMPAIGN, REFEREE, "campaign.game", "error.campaign.book_done", channel=9)
    _assert_replay(await table.campaign_events(), (await any_store.load(CAMPAIGN)).document)

    # The after-action report and the log as files.
    exported = await with_report(await table(CAMPAIGN, OUTSIDER, "campaign.export"))
    report = exported.files["campaign-report.md"].decode()
    discard(exported.spool)  # the files are bytes: the spool goes
    data = json.loads(exported.files["campaign-log.json"])
    head = (await any_store.load(CAMPAIGN)).head_hash
    assert data["head_hash"] == head and f"Head hash of the campaign's log: {head}" in report
    assert len(data["events"]) == len(await table.campaign_events())
    for number, channel in ((1, FIRST), (2, SECOND), (3, THIRD)):
        final = (await any_store.load(channel)).head_hash
        assert f"final hash of its log {final}" in report, number
    assert "1. avamposto_campo — fought for: The outpost" in report
    assert "- The wreck's hills: held by Astral Legion" in report
    assert "the campaign follows «The crusade of the valley»" in report


async def test_a_bad_book_or_date_is_refused_and_writes_nothing(any_store: Any) -> None:
    first = Table(any_store)
    await first.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        "error.campaign.unknown_book",
        ruleset="w40k4",
        name="X",
        book="nessuno",
    )
    await first.refused(  # a book of another ruleset
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        "error.campaign.unknown_book",
        ruleset="manovra",
        name="X",
        book="crociata_valle",
    )
    table = await _book_campaign(any_store)
    for by, key in (
        ("tomorrow", "error.campaign.bad_date"),
        ("2026-11-20", "error.campaign.date_range"),
        ("2031-01-01", "error.campaign.date_range"),
    ):
        await table.refused(CAMPAIGN, REFEREE, "campaign.game", key, channel=FIRST, by=by)
    await table(77, REFEREE, "campaign.new", ruleset="w40k4", name="Plain", language="en")
    await table.refused(77, REFEREE, "campaign.game", "error.campaign.scenario_needed", channel=78)


async def test_a_games_date_reminds_once_then_the_referee_decides(
    any_store: Any, clock: Clock
) -> None:
    table = await _book_campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST, by="2026-12-01")
    other = GameService(any_store, dice=ScriptedDice())  # a second bot process
    early = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
    assert await table.service.due_reminders(early) == []
    eve = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    stale = await any_store.feature_due(calendar.DUE, eve)  # what a racing process read
    reminders = await table.service.due_reminders(eve)
    assert await other.due_reminders(eve) == []  # claimed once, across processes
    # A process that read the record before the claim loses the compare-and-set.
    real_due = any_store.feature_due

    async def as_read_before(feature: str, before: Any, **kwargs: Any) -> Any:
        return stale if feature == calendar.DUE else await real_due(feature, before, **kwargs)

    any_store.feature_due = as_read_before
    try:
        assert await other.due_reminders(eve) == []
    finally:
        del any_store.feature_due
    assert [(channel, sorted(reply.ping)) for channel, reply in reminders] == [
        (FIRST, [ANNA, BRUNO])
    ]
    assert "should be played by 2026-12-01" in reply_text(reminders[0][1])
    # Not past its date yet: no forfeit.
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.overdue",
        "error.campaign.not_overdue",
        game=1,
        decision="forfeit:legione",
    )
    passed = dt.datetime(2026, 12, 2, 1, tzinfo=dt.UTC)
    told = await other.due_reminders(passed)
    assert await table.service.due_reminders(passed) == []
    assert [(channel, reply.ping) for channel, reply in told] == [(CAMPAIGN, [REFEREE])]
    assert "/campaign overdue" in reply_text(told[0][1])
    # The referee decides, past the date: an extension first, then a forfeit.
    clock.date = dt.date(2026, 12, 2)

    async def decide(**options: Any) -> Any:
        return await table(CAMPAIGN, REFEREE, "campaign.overdue", **options)

    await table.refused(
        CAMPAIGN, ANNA, "campaign.overdue", "error.campaign.referee_only", game=1, decision="draw"
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.overdue",
        "error.campaign.bad_decision",
        game=1,
        decision="coin",
    )
    extended = await decide(game=1, decision="extend:2026-12-09")
    assert "now due by 2026-12-09" in reply_text(extended)
    clock.date = dt.date(2026, 12, 10)
    forfeit = await decide(game=1, decision="forfeit:Legione Astrale")
    assert "forfeited by Astral Legion" in reply_text(forfeit)
    state = await table.campaign()
    result = state.game(1).result  # type: ignore[union-attr]
    assert result is not None and result.winner == "predoni"
    assert result.final_hash == (await any_store.load(FIRST)).head_hash
    assert (await any_store.load(FIRST)).status == "ended"  # the game's own log says so
    assert standings(state)[0].side == "predoni"
    assert state.calendar.decisions[1].decision == "forfeit" and state.calendar.due == {}
    _assert_replay(await table.campaign_events(), (await any_store.load(CAMPAIGN)).document)
    # Settled: nothing more is reminded.
    assert await table.service.due_reminders(dt.datetime(2027, 1, 1, tzinfo=dt.UTC)) == []


async def test_a_game_created_but_not_logged_is_adopted(
    any_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stopped between a linked game's creation and its ``campaign.game`` event:
    the game names the campaign, the campaign does not list it; ``/campaign status`` says it
    is being listed and writes nothing; once its claim is stale the campaign's timer adopts
    it with a logged event, said in the campaign's channel, and the next game takes the
    next number."""
    from bot.service.campaign import linking

    table = await _book_campaign(any_store)
    real = linking.log_requested

    async def stopped(*args: Any, **kwargs: Any) -> Any:
        if args[3].type == "campaign.game":
            raise SystemExit("the process stops here")
        return await real(*args, **kwargs)

    monkeypatch.setattr(linking, "log_requested", stopped)
    with pytest.raises(SystemExit):
        await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)
    monkeypatch.setattr(linking, "log_requested", real)
    assert (await table.campaign()).games == []  # the orphan: a game, not listed
    assert (await any_store.load(FIRST)).status == "active"
    claims = await any_store.feature_list(PENDING, Scope.of_game(CAMPAIGN))
    before = await table._versions()
    status = await table(CAMPAIGN, ANNA, "campaign.status")
    assert [n.key for n in status.notices] == ["bot.campaign.pending_link"]
    assert "Game 1 (avamposto_campo) was created and is being listed" in reply_text(status)
    assert await table._versions() == before  # status writes nothing
    assert await any_store.feature_list(PENDING, Scope.of_game(CAMPAIGN)) == claims
    assert await table.service.due_reminders() == []  # not stale yet: a command at work
    later = dt.datetime.now(dt.UTC) + STALE_AFTER + dt.timedelta(seconds=1)
    posted = await table.service.due_reminders(later)
    assert [(where, [n.key for n in r.notices]) for where, r in posted] == [
        (CAMPAIGN, ["bot.campaign.adopted"])
    ]
    state = await table.campaign()
    assert [(g.number, g.channel, g.scenario) for g in state.games] == [
        (1, FIRST, "avamposto_campo")
    ]
    assert await table.service.due_reminders(later) == []  # once
    again = await table(CAMPAIGN, ANNA, "campaign.status")
    assert again.notices == []
    # The adopted game holds the units it fields, as a listed one does (its claim carried
    # them): the book's next scenario, the same units, has nobody to field meanwhile.
    assert state.game(1).fielded  # type: ignore[union-attr]
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.game", "error.campaign.side_held", channel=SECOND
    )
    # The adopted game's result enters the campaign as any linked game's does; once its
    # aftermath is settled its units take the field again.
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="ok")
    assert (await table.campaign()).game(1).result is not None  # type: ignore[union-attr]
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=SECOND)
    assert [g.number for g in (await table.campaign()).games] == [1, 2]
    _assert_replay(await table.campaign_events(), (await any_store.load(CAMPAIGN)).document)


async def test_status_says_a_result_not_entered_yet_and_writes_nothing(
    any_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stopped between a linked game's end and its campaign's event: ``/campaign
    status`` says the result is being entered and writes nothing; the campaign's next
    write command enters it."""
    followed = importlib.import_module("bot.service.campaign.follow")
    table = await _book_campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)

    async def stopped(*args: Any) -> list[Any]:
        return []  # the process stops before the campaign follows

    monkeypatch.setattr(followed, "follow", stopped)
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="ok")
    monkeypatch.undo()
    before = await table._versions()
    status = await table(CAMPAIGN, ANNA, "campaign.status")
    assert [n.key for n in status.notices] == ["bot.campaign.pending_entry"]
    assert "Game 1 ended: its result is being entered in the campaign." in reply_text(status)
    assert await table._versions() == before  # nothing written, whatever is pending
    assert (await table.campaign()).game(1).result is None  # type: ignore[union-attr]
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)  # catches up first
    assert (await table.campaign()).game(1).result is not None  # type: ignore[union-attr]
    assert (await table(CAMPAIGN, ANNA, "campaign.status")).notices == []


async def test_the_book_option_suggests_the_chosen_rulesets_books(any_store: Any) -> None:
    service = GameService(any_store)
    assert await service.choices(CAMPAIGN, REFEREE, "book:pzgren", "") == ["ardennes_1944"]
    every = await service.choices(CAMPAIGN, REFEREE, "book", "")
    assert set(every) == {"ardennes_1944", "crociata_valle", "passo_giogo", "strada_saint_lo"}
    assert await service.choices(CAMPAIGN, REFEREE, "book", "valle") == ["crociata_valle"]


async def test_the_export_draws_the_map_coloured_by_holder(any_store: Any) -> None:
    """The map's picture: one box per area filled with its holder's colour; the area a game
    in play is fought for outlined; it follows a result (the area changed hands)."""
    table = await _book_campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST)
    before = await table(CAMPAIGN, ANNA, "campaign.export")
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    after = await table(CAMPAIGN, ANNA, "campaign.export")
    # The service gives the map as data; the front ends draw it (bot.render.campaign_map).
    assert "campaign-map.png" not in before.files
    pictures = [drawn.campaign_map_png(r.campaign_map) for r in (before, after)]
    first, second = (_box_colours(picture) for picture in pictures)
    # Three areas: the outpost (Legione's at the start, then the raiders'), the hills and
    # the valley (the raiders' throughout).
    assert len(first) == 3 and first[1] == first[2] == second[1] == second[2]
    assert first[0] != second[0] and second[0] == second[1]
    assert _outlined(pictures[0], 0)  # fought for while in play
    assert not _outlined(pictures[1], 0)
    for exported in (before, after):
        discard(exported.spool)  # the report's events wait there for a front end


def _box_colours(png: bytes) -> list[Any]:
    image = Image.open(BytesIO(png)).convert("RGB")
    return [image.getpixel((int(x0 + 8), int(y0 + 60))) for x0, y0, _, _ in drawn.box_layout(3)]


def _outlined(png: bytes, index: int) -> bool:
    image = Image.open(BytesIO(png)).convert("RGB")
    x0, y0, x1, _ = drawn.box_layout(3)[index]
    return image.getpixel((int((x0 + x1) / 2), int(y0 - 3))) == drawn.CONTESTED


def test_the_map_fills_its_width_whatever_the_number_of_areas() -> None:
    """Three areas stand in three columns across the picture (not four with one empty);
    five in rows of three and two, the short row centred."""
    for count in range(1, 13):
        boxes = drawn.box_layout(count)
        left = min(box[0] for box in boxes)
        right = max(box[2] for box in boxes)
        assert left == drawn.MARGIN and right == drawn.WIDTH - drawn.MARGIN, count
    five = drawn.box_layout(5)
    assert len({box[1] for box in five}) == 2
    first_row_middle = (five[0][0] + five[2][2]) / 2
    assert abs((five[3][0] + five[4][2]) / 2 - first_row_middle) < 1


async def test_a_decision_whose_game_did_not_end_ends_it_when_asked_again(
    any_store: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await _book_campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=FIRST, by="2026-12-01")
    clock.date = dt.date(2026, 12, 5)
    real = calendar._end_game

    async def stopped(*args: Any, **kwargs: Any) -> None:
        raise SystemExit("the process stops here")

    monkeypatch.setattr(calendar, "_end_game", stopped)
    with pytest.raises(SystemExit):
        await table(CAMPAIGN, REFEREE, "campaign.overdue", game=1, decision="draw")
    monkeypatch.setattr(calendar, "_end_game", real)
    state = await table.campaign()
    assert state.calendar.decisions[1].decision == "draw" and state.game(1).result is None  # type: ignore[union-attr]
    again = await table(CAMPAIGN, REFEREE, "campaign.overdue", game=1, decision="draw")
    assert "declared a draw" in reply_text(again)
    state = await table.campaign()
    result = state.game(1).result  # type: ignore[union-attr]
    assert result is not None and result.winner is None
    assert len([e for e in await table.campaign_events() if e.verb == "campaign.overdue"]) == 1
    _assert_replay(await table.campaign_events(), (await any_store.load(CAMPAIGN)).document)
