"""The bot refuses a tampered game for every command, says why and logs it; `db check`
reports exactly the games the bot refuses; every reply shows the chain head's short hash."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

import pytest

from bot.console.render_text import reply_text
from bot.discord.embeds import reply_cards
from bot.service import GAME_VERBS, GameService, Request
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.ruleset import get_ruleset
from tests.bot.service_table import ServiceTable

TAMPERED, CLEAN = 5252, 5353
REFEREE, ANNA, BRUNO = 1, 2, 3

# The edits of tests/db/chain/test_integrity.py that the brief names, on the bot's own file.
EDITS = {
    "member promoted to referee": f"UPDATE members SET role = 'referee' WHERE user_id = {ANNA} "
    f"AND channel_id = {TAMPERED}",
    "side changed": f"UPDATE members SET side = 'asse' WHERE user_id = {ANNA} "
    f"AND channel_id = {TAMPERED}",
    "deadline moved": "UPDATE records SET due_at = '2040-01-01T00:00:00.000000+00:00' "
    f"WHERE channel_id = {TAMPERED}",
    "language": f"UPDATE games SET language = 'fr' WHERE channel_id = {TAMPERED}",
    "ruleset": f"UPDATE games SET ruleset = 'pzgren' WHERE channel_id = {TAMPERED}",
    "created_at": "UPDATE games SET created_at = '2020-01-01T00:00:00.000000+00:00' "
    f"WHERE channel_id = {TAMPERED}",
}


async def _seated(service: GameService, dice, channel: int) -> ServiceTable:
    table = ServiceTable(service, dice, channel)
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(REFEREE, "game.deadline", side="alleati", hours=12)
    return table


def _edit(path: str, statement: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(statement)
    finally:
        connection.close()


def _every_command() -> list[str]:
    # /game list and /game creators are about the guild, not this channel's game: the list
    # shows the tampered game as unreadable (test_the_guild_list_marks_a_tampered_game).
    # /notify is about the player's own settings, in no game: a tampered game is not its.
    verbs = [
        v
        for v in GAME_VERBS
        if v not in ("game.new", "game.list", "game.creators") and not v.startswith("notify.")
    ]
    verbs += ["roll", "dice.confirm", "dice.dispute", "dice.roll"]
    play = get_ruleset("manovra").play
    assert play is not None
    return [*dict.fromkeys([*verbs, *play.verbs()])]


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_a_tampered_game_is_refused_for_every_command_and_logged(
    service, store, dice, edit, caplog
):
    tampered = await _seated(service, dice, TAMPERED)
    clean = await _seated(service, dice, CLEAN)
    version = (await store.load(TAMPERED)).version
    _edit(store.path, EDITS[edit])
    caplog.set_level(logging.ERROR, logger="bot.service")
    for verb in _every_command():
        for user in (REFEREE, ANNA):
            caplog.clear()
            with pytest.raises(RulesError) as caught:
                await tampered(user, verb, expression="1d6", seq=1, side="alleati", count=3)
            assert caught.value.key == "error.store.tampered_game", (verb, caught.value.key)
            for language in ("it", "en", "fr"):
                text = caught.value.localized(language)
                assert "arbitro db check" in text and "{" not in text
                # The reason too is in the reader's language.
                assert translate("bot.integrity.rows_edited", language) in text
            assert any(str(TAMPERED) in r.getMessage() for r in caplog.records), verb
    # db check reports that game and only it: what the bot refuses, and nothing else.
    problems = await store.check()
    assert problems and all(p.startswith(f"channel {TAMPERED}:") for p in problems), problems
    # The clean game plays on; the tampered one changed by no command.
    assert not (await clean(REFEREE, "game.status")).duplicate
    assert len(await store.events(TAMPERED, limit=1000)) == version


async def test_every_reply_shows_the_chain_head_after_the_command(service, store, dice):
    table = await _seated(service, dice, TAMPERED)
    for verb, options in (
        ("game.status", {}),
        ("turn.next", {}),
        ("game.log", {"count": 3}),
        ("roll", {"expression": "2d6"}),
    ):
        faces = (3, 4) if verb == "roll" else ()
        user = ANNA if verb == "turn.next" else REFEREE
        reply = await table(user, verb, faces, **options)
        head = (await store.load(TAMPERED)).head_hash
        assert head is not None and reply.head_hash == head, verb
        shown = translate("bot.chain_head", "en", hash=head[:8])
        assert f"# {shown}" in reply_text(reply).splitlines()
        assert reply_cards(reply)[-1].footer.endswith(shown)
    # The head moved with the commands that wrote.
    events = await store.events(TAMPERED, limit=1000)
    assert reply.head_hash == events[-1].hash and reply.seq == events[-1].seq


async def test_outside_a_game_there_is_no_chain_head(service, dice):
    dice.push(4)
    reply = await service.handle(
        Request(channel_id=77, user_id=1, verb="roll", options={"expression": "1d6"})
    )
    assert reply.head_hash is None
    assert "#" not in reply_text(reply)


async def test_db_check_against_the_file_game_export_attaches(service, store, dice, tmp_path):
    """The anchor players keep is the very file `/game export` attaches."""
    import argparse

    from db.tools import cli

    table = await _seated(service, dice, TAMPERED)
    saved = tmp_path / "arbitro-log.json"
    saved.write_bytes((await table(REFEREE, "game.export")).files["arbitro-log.json"])
    await table(ANNA, "turn.next")  # play goes on after the export
    await store.close()
    parser = argparse.ArgumentParser(prog="arbitro")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["db", "check", "--db", store.path, "--against", str(saved)])
    code = await asyncio.to_thread(args.handler, args)
    assert code == cli.EXIT_OK


async def test_a_tampered_game_does_not_stop_the_bot_from_starting(service, store, dice, caplog):
    """The start-up check passes: the tampered game is refused per command, the others play."""
    from bot.app.upgrade import ensure_readable

    await _seated(service, dice, TAMPERED)
    clean = await _seated(service, dice, CLEAN)
    _edit(store.path, EDITS["member promoted to referee"])
    caplog.set_level(logging.ERROR, logger="bot.app.upgrade")
    await ensure_readable(store, store.path)
    assert any(str(TAMPERED) in r.getMessage() for r in caplog.records)
    await clean(ANNA, "turn.next")


async def test_the_db_check_command_names_the_refused_game_only(service, store, dice, capsys):
    import argparse

    from db.tools import cli

    await _seated(service, dice, TAMPERED)
    await _seated(service, dice, CLEAN)
    _edit(store.path, EDITS["side changed"])
    await store.close()
    parser = argparse.ArgumentParser(prog="arbitro")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["db", "check", "--db", store.path])
    assert await asyncio.to_thread(args.handler, args) == cli.EXIT_PROBLEMS
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(f"channel {TAMPERED}:") for line in lines), lines


async def test_the_guild_list_marks_a_tampered_game(service, store, dice):
    await _seated(service, dice, TAMPERED)
    await _seated(service, dice, CLEAN)
    _edit(store.path, EDITS["member promoted to referee"])
    listing = await service.handle(Request(CLEAN, REFEREE, "game.list", {}, guild_id=7))
    unreadable = [line for line in listing.lines if f"<#{TAMPERED}>" in line]
    assert unreadable and "arbitro db check" in unreadable[0]
    assert any(f"<#{CLEAN}>" in line and "db check" not in line for line in listing.lines)


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (
            f"UPDATE states SET document = '{{\"turn\":99}}' WHERE channel_id = {TAMPERED} "
            f"AND version = (SELECT version FROM games WHERE channel_id = {TAMPERED})",
            "bot.integrity.state_edited",
        ),
        (
            f'UPDATE events SET args = \'{{"order":"first"}}\' WHERE channel_id = {TAMPERED} '
            f"AND seq = (SELECT version FROM games WHERE channel_id = {TAMPERED})",
            "bot.integrity.head_edited",
        ),
    ],
)
async def test_an_edited_state_or_latest_event_is_refused_at_load(
    service, store, dice, edit, reason
):
    table = await _seated(service, dice, TAMPERED)
    await table(ANNA, "turn.next")
    _edit(store.path, "DROP TRIGGER IF EXISTS events_no_update")
    _edit(store.path, "DROP TRIGGER IF EXISTS states_no_update")
    _edit(store.path, edit)
    with pytest.raises(RulesError) as caught:
        await table(ANNA, "game.status")
    assert caught.value.key == "error.store.tampered_game"
    for language in ("en", "fr"):
        assert translate(reason, language) in caught.value.localized(language)
    assert any(p.startswith(f"channel {TAMPERED}:") for p in await store.check())
