"""No uploaded scenario or command holds the bot (issue 23, item 4).

The event loop keeps ticking while the rules work (refusals and autocomplete list legal
actions off it), a slow channel holds no other channel's reads or commands, work past the
budget is answered within a second, and a hostile upload is answered at once.
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from threading import Event
from typing import Any

import pytest

from bot.service import GameService, NotNow, Request
from bot.service.errors import HINT_BUDGET_S
from bot.service.handlers import WORK_BUDGET_S
from bot.service.views import CHOICES_ORDER_BUDGET_S
from bot.service.workers import ChannelWorkers
from rules.core.budget import WorkBudgetExceeded, charge
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset

REFEREE = 1
SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "bench_availability.py"
PLAY = get_ruleset("manovra").rules
PLAY_TYPE = type(PLAY)


@pytest.fixture()
def service(store) -> GameService:
    return GameService(store)  # the bot's own dice: these commands are refused or roll freely


async def _new(service: GameService, *channels: int) -> None:
    for channel in channels:
        await service.handle(
            Request(channel, REFEREE, "game.new", {"scenario": "esempio_normandia_campo"})
        )


class Heartbeat:
    """A coroutine ticking every 10 ms: the longest gap says how long the loop was held."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last)
            last = now

    def __enter__(self) -> Heartbeat:
        # As the bot does once it has started (bot/app/warmup.py): what the test process holds
        # (every earlier test's leftovers) is frozen, or a full collection triggered by any
        # thread would hold the loop for a tenth of a second whatever the service does.
        gc.collect()
        gc.freeze()
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        gc.unfreeze()


def _slowed(seconds: float, original: Callable[..., Any]) -> Callable[..., Any]:
    def slow(self: Any, *args: Any, **kwargs: Any) -> Any:
        time.sleep(seconds)  # a listing that takes long (a big table), outside the budget
        return original(self, *args, **kwargs)

    return slow


async def test_a_refusal_lists_what_the_seat_may_do_off_the_event_loop(service, monkeypatch):
    await _new(service, 1)
    monkeypatch.setattr(PLAY_TYPE, "legal_actions", _slowed(0.4, PLAY_TYPE.legal_actions))
    with Heartbeat() as beat:
        with pytest.raises(NotNow) as caught:  # /fire at the requests step: not now
            await service.handle(
                Request(1, REFEREE, "fire", {"unit": "squadra_1", "target": "gruppe_1"})
            )
        await asyncio.sleep(0.02)
    assert caught.value.may, "the refusal lists what the seat may do"
    assert beat.longest < 0.2, f"the event loop was held {beat.longest:.2f} s"


async def test_autocomplete_asks_the_rules_off_the_event_loop(service, monkeypatch):
    await _new(service, 1)
    monkeypatch.setattr(PLAY_TYPE, "legal_actions", _slowed(0.4, PLAY_TYPE.legal_actions))
    with Heartbeat() as beat:
        names = await service.choices(1, REFEREE, "unit", "")
        await asyncio.sleep(0.02)
    assert "squadra_1" in names
    assert beat.longest < 0.2, f"the event loop was held {beat.longest:.2f} s"


@pytest.fixture()
def first_call_blocks(monkeypatch) -> Iterator[Callable[[str], tuple[Event, Event]]]:
    """Make the first call of a method of manovra's rules block (on its worker thread)
    until released."""
    releases: list[threading.Event] = []

    def block(method: str) -> tuple[threading.Event, threading.Event]:
        original = getattr(PLAY_TYPE, method)
        entered, release = threading.Event(), threading.Event()
        releases.append(release)
        first = [True]

        def blocking(self: Any, *args: Any, **kwargs: Any) -> Any:
            if first[0]:
                first[0] = False
                entered.set()
                assert release.wait(10), "never released"
            return original(self, *args, **kwargs)

        monkeypatch.setattr(PLAY_TYPE, method, blocking)
        return entered, release

    yield block
    for release in releases:
        release.set()


async def test_a_slow_status_does_not_hold_another_channels_status(service, first_call_blocks):
    await _new(service, 1, 2)
    entered, release = first_call_blocks("legal_actions")
    slow = asyncio.create_task(service.handle(Request(1, REFEREE, "game.status", {})))
    assert await asyncio.to_thread(entered.wait, 10)
    other = await asyncio.wait_for(
        service.handle(Request(2, REFEREE, "game.status", {})), timeout=5
    )
    assert other.status is not None and not slow.done()
    release.set()
    assert (await slow).status is not None


async def test_a_slow_command_does_not_hold_another_channels_command(service, first_call_blocks):
    await _new(service, 1, 2)
    entered, release = first_call_blocks("play_on")
    slow = asyncio.create_task(service.handle(Request(1, REFEREE, "turn.next", {})))
    assert await asyncio.to_thread(entered.wait, 10)
    other = await asyncio.wait_for(service.handle(Request(2, REFEREE, "turn.next", {})), timeout=5)
    assert other.seq is not None and not slow.done()
    release.set()
    assert (await slow).seq is not None


def _endless(self: Any, *args: Any, **kwargs: Any) -> Any:
    while True:  # rules work that never ends: only the budget stops it
        charge(64)


async def _within(seconds: float, work: Any) -> Any:
    started = time.perf_counter()
    try:
        return await work
    finally:
        assert time.perf_counter() - started < seconds, "not answered in time"


async def test_a_command_past_the_budget_is_refused_within_a_second(service, monkeypatch):
    await _new(service, 1)
    monkeypatch.setattr(PLAY_TYPE, "play_on", _endless)
    with pytest.raises(RulesError) as caught:
        await _within(1.0, service.handle(Request(1, REFEREE, "turn.next", {})))
    assert caught.value.key == "error.budget.exceeded"
    assert "500 ms" in caught.value.localized("en")


async def test_listings_past_the_budget_still_answer_within_a_second(service, monkeypatch):
    await _new(service, 1)
    monkeypatch.setattr(PLAY_TYPE, "legal_actions", _endless)
    monkeypatch.setattr(PLAY_TYPE, "prompts", lambda self, state: [])
    status = await _within(1.0, service.handle(Request(1, REFEREE, "game.status", {})))
    assert status.status is not None and status.owed == []
    assert "bot.status.over_budget" in [n.key for n in status.notices]
    # A refusal keeps the rules' reason, without the list it could not make.
    with pytest.raises(RulesError) as caught:
        await _within(
            1.0,
            service.handle(
                Request(1, REFEREE, "fire", {"unit": "squadra_1", "target": "gruppe_1"})
            ),
        )
    assert caught.value.key != "error.budget.exceeded" and not getattr(caught.value, "may", [])
    names = await _within(1.0, service.choices(1, REFEREE, "unit", ""))
    assert "squadra_1" in names


def _endless_noting(budgets: list[int]) -> Callable[..., Any]:
    """An endless listing that notes the budget (in ms) that stopped it."""

    def endless(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            _endless(self)
        except WorkBudgetExceeded as stopped:
            budgets.append(int(stopped.params["ms"]))
            raise

    return endless


async def test_what_a_refusal_offers_instead_has_a_budget_of_its_own(service, monkeypatch):
    """The list after a refusal is a courtesy: on the largest battlefields it measured every
    line of sight for the command's whole budget (half a second) only to be dropped."""
    await _new(service, 1)
    budgets: list[int] = []
    monkeypatch.setattr(PLAY_TYPE, "legal_actions", _endless_noting(budgets))
    with pytest.raises(RulesError) as caught:
        await service.handle(
            Request(1, REFEREE, "fire", {"unit": "squadra_1", "target": "gruppe_1"})
        )
    assert not getattr(caught.value, "may", [])  # the rules' reason alone
    assert budgets == [round(HINT_BUDGET_S * 1000)]
    assert HINT_BUDGET_S < WORK_BUDGET_S / 2


async def test_autocomplete_orders_its_names_within_a_budget_of_its_own(service, monkeypatch):
    await _new(service, 1)
    budgets: list[int] = []
    monkeypatch.setattr(PLAY_TYPE, "legal_actions", _endless_noting(budgets))
    names = await service.choices(1, REFEREE, "unit", "")
    assert "squadra_1" in names  # unordered, past the budget
    assert budgets == [round(CHOICES_ORDER_BUDGET_S * 1000)]
    assert CHOICES_ORDER_BUDGET_S < WORK_BUDGET_S / 2


async def test_a_480_unit_upload_is_answered_at_once(service):
    spec = importlib.util.spec_from_file_location("bench_availability_service", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = bench.manovra(1, 480, 6, 200, 0)  # 480 one-model enemy units, six 200-corner areas
    with Heartbeat() as beat, pytest.raises(RulesError) as caught:
        await _within(
            2.0,
            service.handle(
                Request(9, REFEREE, "game.new", {"ruleset": "manovra"}, attachment=text)
            ),
        )
    assert caught.value.key == "error.scenario.limit.units_per_side"
    assert caught.value.localized("en").startswith("scenario.yaml, line ")
    assert beat.longest < 0.2, f"the event loop was held {beat.longest:.2f} s"


async def test_one_job_per_channel_at_a_time_even_when_its_caller_gives_up():
    workers = ChannelWorkers(workers=3)
    running: dict[str, int] = {"a": 0, "b": 0}
    most = {"a": 0, "b": 0}
    lock = threading.Lock()

    def job(key: str) -> str:
        with lock:
            running[key] += 1
            most[key] = max(most[key], running[key])
        time.sleep(0.05)
        with lock:
            running[key] -= 1
        return key

    first = asyncio.create_task(workers.run("a", lambda: job("a")))
    await asyncio.sleep(0.01)
    first.cancel()  # the caller gives up: the job still holds channel a's turn
    results = await asyncio.gather(
        *(workers.run(key, lambda key=key: job(key)) for key in ("a", "b", "a", "b")),
    )
    assert results == ["a", "b", "a", "b"]
    assert most == {"a": 1, "b": 1}
    # Two channels run side by side: channel a's job waits for channel b's to start.
    b_started = threading.Event()

    def wait_for_b() -> str:
        assert b_started.wait(5), "channel b waited behind channel a"
        return "a"

    def start_b() -> str:
        b_started.set()
        return "b"

    assert await asyncio.gather(workers.run("a", wait_for_b), workers.run("b", start_b)) == [
        "a",
        "b",
    ]
    assert workers.channels == 0
    workers.shutdown()
