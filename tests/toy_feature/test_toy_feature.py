"""The toy feature plugged into the service by its folder alone (``TABLE.joined``): its
handler runs, its guard vetoes, its follower follows every write (a play and ``/game undo``
alike), its timer's work comes out of ``GameService.due_reminders`` and its status part ends
``/game status``."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from bot.service import GameService, Request
from bot.service.core import TABLE
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError
from tests.fuzz.harness import SeededDice
from tests.toy_feature import HANDLERS, REACTIONS, VERB

REFEREE, ANNA, BRUNO = 1, 2, 3
CHANNEL = 41


@pytest.fixture
async def store(tmp_path):
    opened = await SqliteStore.open(str(tmp_path / "toy_feature.db"))
    yield opened
    await opened.close()


async def _table(store):
    service = GameService(
        store, dice=SeededDice(random.Random(3)), table=TABLE.joined(*HANDLERS, reactions=REACTIONS)
    )

    async def send(user: int, verb: str, **options):
        return await service.handle(Request(CHANNEL, user, verb, options))

    await send(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="asse")
    return service, send


def _followed(reply) -> list[dict]:
    return [dict(n.params) for n in reply.notices if n.key == "toy.truce.followed"]


async def test_the_follower_follows_a_play_and_an_undo(store) -> None:
    _, send = await _table(store)
    version = (await store.load(CHANNEL)).version
    played = await send(ANNA, "turn.next")
    assert _followed(played) == [{"verb": "turn.next", "before": version, "after": version + 1}]
    undone = await send(REFEREE, "game.undo")
    assert _followed(undone) == [{"verb": "game.undo", "before": version + 1, "after": version + 2}]
    # A command that only reads, or writes nothing to the game, is not followed.
    assert _followed(await send(ANNA, "game.status")) == []
    assert _followed(await send(REFEREE, VERB, hours=1)) == []


async def test_the_guard_vetoes_and_nothing_is_written(store) -> None:
    _, send = await _table(store)
    called = await send(REFEREE, VERB, hours=2)
    assert [n.key for n in called.notices] == ["toy.truce.called"]
    version = (await store.load(CHANNEL)).version
    with pytest.raises(RulesError) as refused:
        await send(ANNA, "turn.next")
    assert refused.value.key == "toy.truce.holds"
    assert (await store.load(CHANNEL)).version == version
    await send(REFEREE, "game.deadline", side="alleati", hours=5)  # no rules command: runs


async def test_the_timer_is_due_once_and_lifts_the_truce(store) -> None:
    service, send = await _table(store)
    await send(REFEREE, VERB, hours=2)
    now = datetime.now(UTC)
    assert await service.due_reminders(now) == []
    due = await service.due_reminders(now + timedelta(hours=3))
    assert [(channel, [n.key for n in reply.notices]) for channel, reply in due] == [
        (CHANNEL, ["toy.truce.over"])
    ]
    assert await service.due_reminders(now + timedelta(hours=4)) == []
    played = await send(ANNA, "turn.next")  # the truce is over
    assert _followed(played)


async def test_the_status_part_follows_the_roster_and_the_deadlines(store) -> None:
    _, send = await _table(store)
    await send(REFEREE, "game.deadline", side="alleati", hours=5)
    before = [n.key for n in (await send(ANNA, "game.status")).notices]
    assert "toy.truce.holding" not in before  # no truce, no line
    await send(REFEREE, VERB, hours=3)
    status = await send(ANNA, "game.status")
    # The core's features first (the roster, then the deadlines due), then the toy's.
    assert [n.key for n in status.notices] == [*before, "toy.truce.holding"]
    assert before[-1] == "bot.deadline.due" and before[0].startswith("bot.seats.")
    assert dict(status.notices[-1].params) == {"hours": 3}


def test_the_features_reactions_join_the_table_and_leave_it_unchanged() -> None:
    joined = TABLE.joined(*HANDLERS, reactions=REACTIONS)
    assert {r.name for r in joined.reactions} == {r.name for r in TABLE.reactions} | {
        r.name for r in REACTIONS
    }
    assert joined.handler(VERB) is HANDLERS[0] and VERB not in TABLE.verbs()
    with pytest.raises(ValueError, match="named twice"):
        joined.joined(reactions=REACTIONS[:1])
