"""Through the service: a game whose history was edited (version 1, a patch, an event's
dice in the middle) is refused for every command with the first bad event named,
in the reader's language; an edit made while the bot runs is refused by every command
that reads that part of the history (undo, rewind, re-roll, export); a tampered archive
is not exported; `db check` names the same event; the other games play on."""

from __future__ import annotations

import logging
import random
import sqlite3
from typing import Any

import pytest

from bot.service import GameService, Request
from bot.service.integrity import REASON_KEYS
from db.chain import verify as chain
from db.chain.archive import bundle_of, encode_bundle
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError
from rules.core.i18n import has_key, translate
from tests.bot.service.test_integrity import ANNA, BRUNO, REFEREE, _every_command, _seated
from tests.db.helpers import drop_append_only_guards
from tests.fuzz.harness import SeededDice

TAMPERED, CLEAN = 6161, 6262
TURNS = 20  # versions 1..23: patches everywhere after 1
# (No snapshot but version 1 in so few versions: their patches stay under half a document,
# db.chain.patch.snapshot_due. An edited snapshot is refused by the store whatever calls it:
# tests/db/chain/test_verify.py and test_long_history.py.)

# Each edit as someone with write access to the file types it, and its first bad event.
EDITS = {
    "version 1's document": (
        "UPDATE states SET document = json_set(document, '$.forged', 1) "
        f"WHERE channel_id = {TAMPERED} AND version = 1",
        1,
    ),
    "a patch in the middle": (
        f"UPDATE patches SET patch = '[]' WHERE channel_id = {TAMPERED} AND version = 10",
        10,
    ),
    "an event's dice in the middle": (
        f"UPDATE events SET dice = '[6]' WHERE channel_id = {TAMPERED} AND seq = 12",
        12,
    ),
}


def _edit(path: str, *statements: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        drop_append_only_guards(connection)
        for statement in statements:
            connection.execute(statement)
    finally:
        connection.close()


async def _played(service: GameService, dice: Any, channel: int) -> Any:
    table = await _seated(service, dice, channel)
    for _ in range(TURNS):
        await table(REFEREE, "turn.next")
    return table


def _names_event(error: RulesError, seq: int, reason: str) -> None:
    assert error.key == "error.store.tampered_game", error.key
    for language in ("it", "en", "fr"):
        text = error.localized(language)
        expected = translate(
            "bot.integrity.chain_broken",
            language,
            seq=seq,
            reason=translate(REASON_KEYS[reason], language),
        )
        assert expected in text and "arbitro db check" in text, text
        assert "{" not in text


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_an_edited_history_is_refused_for_every_command_naming_the_first_bad_event(
    service, store, dice, edit, caplog
):
    await _played(service, dice, TAMPERED)
    await _played(service, dice, CLEAN)
    statement, first_bad = EDITS[edit]
    await store.close()
    _edit(store.path, statement)
    # The bot starts again: the first command of each game verifies its whole history.
    restarted = await SqliteStore.open(store.path)
    try:
        again = GameService(restarted, dice=dice)
        caplog.set_level(logging.ERROR, logger="bot.service")
        reason = (
            chain.EVENT_EDITED if edit == "an event's dice in the middle" else chain.STATE_EDITED
        )
        for verb in _every_command():
            for user in (REFEREE, ANNA):
                caplog.clear()
                with pytest.raises(RulesError) as caught:
                    await again.handle(
                        Request(
                            TAMPERED,
                            user,
                            verb,
                            {"expression": "1d6", "seq": 2, "side": "alleati", "count": 3},
                            guild_id=7,
                        )
                    )
                _names_event(caught.value, first_bad, reason)
                assert any(str(TAMPERED) in r.getMessage() for r in caplog.records), verb
        problems = await restarted.check()
        assert problems and all(p.startswith(f"channel {TAMPERED}:") for p in problems)
        assert f"at event {first_bad} " in problems[0]
        reply = await again.handle(Request(CLEAN, REFEREE, "turn.next", {}, guild_id=7))
        assert reply.seq == 3 + TURNS + 1
    finally:
        await restarted.close()
    async with await SqliteStore.open(store.path) as after:
        assert len(await after.events(CLEAN, limit=1000)) == 3 + TURNS + 1
        versions = {game.channel_id: game.version for game in await after.all_games()}
        assert versions[TAMPERED] == 3 + TURNS  # nothing was played on top of it


async def _disputed_game(store: SqliteStore) -> tuple[Any, int]:
    """A manovra game where Bruno disputes Anna's hand-rolled artillery call, then play."""
    service = GameService(store, dice=SeededDice(random.Random(5)))
    counter = iter(range(10**6))

    async def send(user: int, verb: str, dice: str | None = None, **options: Any) -> Any:
        return await service.handle(
            Request(TAMPERED, user, verb, options, dice=dice, interaction_id=f"i{next(counter)}")
        )

    await send(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="asse")
    await send(ANNA, "turn.next")
    call = await send(
        ANNA,
        "callarty",
        dice="6,3",
        unit="comando_plotone",
        battery="batteria_105",
        target="north wood",
        distance=20,
        link="stesso_plotone_radio",
    )
    await send(BRUNO, "dice.dispute", seq=call.seq)
    for _ in range(16):
        await send(REFEREE, "turn.next")
    return send, call.seq


async def test_an_edit_made_while_the_bot_runs_is_refused_where_it_is_read(store):
    """The game was verified as it was played; an edit made afterwards cannot be used:
    rewind, undo, re-roll and export read the edited part and refuse, naming it."""
    send, _called = await _disputed_game(store)
    head = (await store.load(TAMPERED)).version
    assert head > 16
    _edit(
        store.path,
        f"UPDATE patches SET patch = '[]' WHERE channel_id = {TAMPERED} AND version = {head - 1}",
    )
    refusals = {
        "game.undo": {},  # restores version head - 1, rebuilt through the edited patch
        "game.rewind": {"seq": head - 1},
        # (A re-roll reads the events after the disputed one, each checked against its hash,
        # and the state before it; it replays the commands and reads no later state, so this
        # edit is not in what it reads: docs/integrity.md, "Edits made while the bot runs".)
        "game.export": {},
    }
    for verb, options in refusals.items():
        with pytest.raises(RulesError) as caught:
            await send(REFEREE, verb, **options)
        _names_event(caught.value, head - 1, chain.STATE_EDITED)
    assert (await store.load(TAMPERED)).version == head  # nothing played on top


async def test_a_tampered_archive_is_not_exported_and_db_check_names_it(service, store, dice):
    table = await _played(service, dice, TAMPERED)
    await table(REFEREE, "game.end")
    clean = await _played(service, dice, CLEAN)
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")  # archives
    archive = (await store.archived_games(7))[0]
    exported = await table(REFEREE, "game.export", archive=archive.id)
    assert "arbitro-log.json" in exported.files
    # Someone rewrites a die of event 12 inside the archived bundle.
    bundle = bundle_of(await _archived_blob(store.path, archive.id))
    bundle["events"][11]["dice"] = [6]
    _edit(
        store.path,
        f"UPDATE archived_games SET bundle = X'{encode_bundle(bundle).hex()}' "
        f"WHERE id = {archive.id}",
    )
    with pytest.raises(RulesError) as caught:
        await table(REFEREE, "game.export", archive=archive.id)
    _names_event(caught.value, 12, chain.EVENT_EDITED)
    problems = await store.check()
    assert problems == [
        f"archive {archive.id} (channel {TAMPERED}): event 12 fails verification "
        f"({chain.EVENT_EDITED})"
    ]
    await clean(REFEREE, "turn.next")  # the games in play are not affected


async def _archived_blob(path: str, archive_id: int) -> bytes:
    connection = sqlite3.connect(path)
    try:
        return bytes(
            connection.execute(
                "SELECT bundle FROM archived_games WHERE id = ?", (archive_id,)
            ).fetchone()[0]
        )
    finally:
        connection.close()


def test_every_reason_of_the_chain_is_translated():
    assert set(REASON_KEYS) == set(chain.REASONS)
    for key in REASON_KEYS.values():
        for language in ("it", "en", "fr"):
            assert has_key(key, language), (key, language)
    for key in ("error.store.damaged_game", "error.store.damaged_file"):
        for language in ("it", "en", "fr"):
            assert has_key(key, language), (key, language)
