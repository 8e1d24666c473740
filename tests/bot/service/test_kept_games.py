"""The games kept validated between commands (`bot.service.kept_games`): a command takes
the state the channel's last command left only when the store's head is the one it wrote,
so a head moved by another process, an undo or a refused command is read again."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

import pytest

from bot.service import GameService
from bot.service.kept_games import KeptGames
from db.drivers.sqlite import SqliteStore
from db.models import GameRecord
from rules.core.ruleset import get_ruleset
from tests.bot.service_table import ServiceTable

CHANNEL = 4646
REFEREE, ANNA, BRUNO = 1, 2, 3
#: Manovra's third step waits for a platoon's declaration: /turn next is refused there.
DECLARE_FIRST = "error.manovra.declaration_owed"


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _at_step_two(table: ServiceTable) -> None:
    """A manovra game at its second step, its state kept by the service."""
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")


async def _step(store: SqliteStore) -> int:
    return int((await store.load(CHANNEL)).document["step"])


async def test_a_head_another_process_moved_is_read_again(
    table, store, dice, tmp_path, counted
) -> None:
    await _at_step_two(table)
    other = await SqliteStore.open(str(tmp_path / "arbitro.db"))  # another bot process
    try:
        elsewhere = ServiceTable(GameService(other, dice=dice), dice, CHANNEL)
        elsewhere.counter = 100  # interaction ids of its own
        await elsewhere(ANNA, "turn.next")  # step 3, where a declaration comes first
    finally:
        await other.close()
    counted.update(validated=0)
    # On the state this process kept (step 2) the command would pass; on the store's it
    # may not.
    await table.refused(ANNA, "turn.next", DECLARE_FIRST)
    assert counted["validated"] >= 1
    assert await _step(store) == 3


async def test_an_undone_command_leaves_no_kept_state(table, store, counted) -> None:
    await _at_step_two(table)
    await table(ANNA, "turn.next")  # step 3, kept
    await table(REFEREE, "game.undo")  # step 2 again
    counted.update(validated=0)
    await table(ANNA, "turn.next")  # played on step 2, not on the kept step 3
    assert counted["validated"] == 1
    assert await _step(store) == 3


async def test_a_refused_command_leaves_no_kept_state(table, store, counted) -> None:
    await _at_step_two(table)
    await table(ANNA, "turn.next")  # step 3, kept
    await table.refused(ANNA, "turn.next", DECLARE_FIRST)  # played on the kept state
    counted.update(validated=0)
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")
    assert counted["validated"] == 1  # the refused command's state is not used again
    assert await _step(store) == 3


async def test_a_status_keeps_the_game_for_the_next_command(table, counted) -> None:
    await _at_step_two(table)
    counted.update(validated=0)
    await table(ANNA, "game.status")
    await table(ANNA, "turn.next")
    assert counted["validated"] == 0


def _record(version: int, head_hash: str, channel: int = CHANNEL) -> GameRecord:
    now = datetime(2026, 11, 29, tzinfo=UTC)
    return GameRecord(channel, 7, "manovra", "en", "active", version, {}, now, now, head_hash)


def test_a_kept_game_is_taken_once_and_only_on_its_head() -> None:
    rules = get_ruleset("manovra").rules
    kept = KeptGames(limit=2)
    game = rules.load(rules.setup())
    kept.keep(CHANNEL, 3, "c" * 64, game)
    assert kept.take(_record(3, "d" * 64)) is None  # another head: dropped
    assert kept.take(_record(3, "c" * 64)) is None
    kept.keep(CHANNEL, 3, "c" * 64, game)
    assert kept.take(_record(3, "c" * 64)) is game
    assert kept.take(_record(3, "c" * 64)) is None  # taken out while in use
    for channel in (1, 2, 3):
        kept.keep(channel, 1, "a" * 64, game)
    assert len(kept) == 2
    assert kept.take(_record(1, "a" * 64, channel=1)) is None  # the least recent went
    assert kept.take(_record(1, "a" * 64, channel=3)) is game


async def test_the_store_does_not_parse_the_head_whose_state_is_kept(table, monkeypatch) -> None:
    store_module = importlib.import_module("db.store")
    parse = store_module.parse_kept
    parsed: list[str] = []
    monkeypatch.setattr(store_module, "parse_kept", lambda text: parsed.append(text) or parse(text))
    await _at_step_two(table)
    parsed.clear()
    await table(ANNA, "turn.next")
    await table(ANNA, "game.status")
    assert parsed == []
