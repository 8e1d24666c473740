"""The command path: how many trips to the database and to the rules a command costs.

Pinned so a change that adds a round trip (or validates a document again) is noticed:
a committed command reads once (game, retry, seats together), runs the rules once, and
writes once.
"""

from __future__ import annotations

import pytest

from bot.service import GameService, Request
from bot.service.notices import watchers
from db.drivers.sqlite import SqliteStore
from rules.core.ruleset import get_ruleset

REFEREE = 1


class CountingStore:
    """The real store, counting every call the service makes to it."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str):
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        async def counted(*args, **kwargs):
            self.calls.append(name)
            return await attribute(*args, **kwargs)

        return counted


@pytest.fixture()
def counting(store: SqliteStore) -> CountingStore:
    return CountingStore(store)


async def test_a_committed_command_reads_once_and_writes_once(counting, monkeypatch) -> None:
    service = GameService(counting)  # type: ignore[arg-type]
    await service.handle(
        Request(5, REFEREE, "game.new", {"scenario": "esempio_normandia"}, interaction_id="n")
    )
    await service.handle(Request(5, 2, "game.join", {"side": "alleati"}, interaction_id="j"))
    play = get_ruleset("manovra").rules
    validations: list[int] = []
    original = type(play)._load_state

    def counted_load(self, document):
        validations.append(1)
        return original(self, document)

    monkeypatch.setattr(type(play), "_load_state", counted_load)
    version = (await counting._store.load(5)).version
    # This process knows who chose how to be told (nobody here): no game is followed for it.
    await watchers.WATCHERS.read(counting._store)
    counting.calls.clear()
    reply = await service.handle(Request(5, REFEREE, "turn.next", {}, interaction_id="t1"))
    assert reply.seq == version + 1
    assert counting.calls == ["open_command", "commit"]
    assert len(validations) == 1  # the document is validated once per command

    counting.calls.clear()
    retried = await service.handle(Request(5, REFEREE, "turn.next", {}, interaction_id="t1"))
    assert retried.duplicate and retried.seq == version + 1
    assert counting.calls == ["open_command"]  # answered before any rule runs

    counting.calls.clear()
    status = await service.handle(Request(5, 2, "game.status", {}))
    assert status.status is not None
    assert counting.calls == ["open_command"]
