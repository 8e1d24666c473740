"""Hardening of the command path: retried interactions, one-transaction game creation,
numbers that overflow, uploaded scenario limits."""

from __future__ import annotations

import pytest

from bot.service import Request
from db.core import games as games_module
from rules.core.errors import RulesError
from tests.bot.service_table import ServiceTable

CHANNEL = 5151
REFEREE, ANNA, BRUNO = 1, 2, 3


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _setup(table: ServiceTable) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")


async def test_a_retried_interaction_gets_its_original_result_before_any_rule_runs(table, store):
    await _setup(table)
    await table(ANNA, "turn.next")
    options = {
        "unit": "comando_plotone",
        "battery": "batteria_105",
        "target": "north wood",
        "distance": 20,
        "link": "stesso_plotone_radio",
    }
    first = await table(ANNA, "callarty", (6, 3), interaction="retry-me", **options)
    version = (await store.load(CHANNEL)).version
    # The battery is now busy: re-checking the rules would refuse. The retry must not.
    again = await table(ANNA, "callarty", interaction="retry-me", **options)
    assert again.duplicate and again.seq == first.seq
    assert [r.outcome.code for r in again.resolutions] == [
        r.outcome.code for r in first.resolutions
    ]
    assert (await store.load(CHANNEL)).version == version


async def test_a_retried_game_new_answers_without_a_second_game(table, store):
    first = await table(REFEREE, "game.new", scenario="esempio_normandia", interaction="n1")
    assert not first.duplicate
    again = await table(REFEREE, "game.new", scenario="esempio_normandia", interaction="n1")
    assert again.duplicate
    assert (await store.load(CHANNEL)).version == 1


async def test_game_new_is_one_transaction_with_its_referee(service, store, monkeypatch):
    original = games_module.reseal

    def crash_after_the_writes(channel_id):
        yield from original(channel_id)
        raise RuntimeError("power cut after the game, its event and its referee were written")

    monkeypatch.setattr(games_module, "reseal", crash_after_the_writes)
    with pytest.raises(RuntimeError):
        await service.handle(
            Request(CHANNEL, REFEREE, "game.new", {"scenario": "esempio_normandia"})
        )
    monkeypatch.setattr(games_module, "reseal", original)
    # Nothing half-made: the channel is free, and a new game gets its referee.
    await service.handle(Request(CHANNEL, REFEREE, "game.new", {"scenario": "esempio_normandia"}))
    members = await store.members(CHANNEL)
    assert [(m.user_id, m.role) for m in members] == [(REFEREE, "referee")]


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 10**30, "1e999"])
async def test_numbers_that_overflow_are_refused_clearly(table, value):
    await _setup(table)
    with pytest.raises(RulesError) as caught:
        await table(REFEREE, "game.log", count=value)
    assert caught.value.key in ("error.service.not_a_number", "error.service.out_of_bounds")
    assert caught.value.localized("fr")


async def test_an_uploaded_scenario_is_measured_in_bytes(service):
    text = "title: " + "é" * 140_000  # 140,007 characters, 280,007 bytes
    with pytest.raises(RulesError) as caught:
        await service.handle(Request(CHANNEL, REFEREE, "game.new", {}, attachment=text))
    assert caught.value.key == "error.service.scenario_too_big"


async def test_a_hostile_uploaded_scenario_is_a_line_precise_refusal(service):
    with pytest.raises(RulesError) as caught:
        await service.handle(
            Request(CHANNEL, REFEREE, "game.new", {}, attachment="title: a\ntitle: b\n")
        )
    assert caught.value.key == "error.scenario.duplicate"
    assert "line 2" in caught.value.localized("en")


async def test_a_slow_resolution_does_not_hold_other_channels(service, store, monkeypatch):
    """The rules run off the event loop: while one channel's command is still resolving
    (cold odds, say), another channel's status is answered."""
    import asyncio
    import threading

    from rules.core.ruleset import get_ruleset

    await service.handle(Request(1, REFEREE, "game.new", {"scenario": "esempio_normandia"}))
    await service.handle(Request(2, REFEREE, "game.new", {"scenario": "esempio_normandia"}))
    play = get_ruleset("manovra").rules
    release = threading.Event()
    entered = threading.Event()
    original = type(play).play_on

    def slow_apply(self, *args, **kwargs):
        entered.set()
        assert release.wait(10), "never released"
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(play), "play_on", slow_apply)
    slow = asyncio.create_task(service.handle(Request(1, REFEREE, "turn.next", {})))
    # The slow command is inside the rules (on their thread) before the other one starts.
    assert await asyncio.to_thread(entered.wait, 10)
    status = await asyncio.wait_for(
        service.handle(Request(2, REFEREE, "game.status", {})), timeout=5
    )
    assert status.status is not None and not slow.done()
    release.set()
    await slow


def test_hints_name_commands_as_players_type_them():
    from bot.service import commands_hint
    from rules.core.legal import LegalAction

    hint = commands_hint(
        [
            LegalAction("recover", "alleati", {"unit": "sherman_1"}),
            LegalAction("manoeuvre.declare", "alleati", {"platoon": "carri"}),
            LegalAction("turn.next", "alleati"),
        ]
    )
    assert hint == "/morale action:recover (sherman_1), /manoeuvre declare, /turn next"
