"""Upgrading a live database: the games 0.1.0 saved (tests/fixtures/release-0.1.0.db) open,
migrate and replay on this version; forged history is found at its event and a replayed
state can be adopted; a document from a newer release is refused before anything runs."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.app.main import main
from bot.app.upgrade import UnreadableGames, ensure_readable, unreadable_games
from bot.service import ACTOR_SIDE_ARG, GameService, Request
from bot.service.replay import (
    VERB_REPLAYED,
    RecordedDice,
    ReplayMismatch,
    adopt_replayed,
    replay_game,
)
from db.chain.hashing import canonical_json
from db.drivers.sqlite import SqliteStore
from db.models import NewEvent
from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.migrations import FORMAT_KEY, document_format
from rules.core.ruleset import get_ruleset
from tests.bot.conftest import QueuedDice
from tests.db.helpers import on_store
from tests.fixtures import make_release_fixture as release

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "release-0.1.0.db"
REFEREE, ANNA, BRUNO = release.REFEREE, release.ANNA, release.BRUNO
ACTIVE = [channel for channel in release.CHANNELS if channel != 1005]

# One more command per game in progress, as its players would send next: (user, verb, options).
NEXT_COMMAND: dict[int, tuple[int, str, dict[str, Any]]] = {
    1001: (BRUNO, "move", {"unit": "panzer_iv", "kind": "hold"}),
    1002: (ANNA, "turn.next", {}),
    1003: (ANNA, "turn.next", {}),
    1004: (ANNA, "turn.next", {}),
}


@pytest.fixture()
def release_db(tmp_path: Path) -> Path:
    """A copy of the 0.1.0 database (the fixture itself is never opened for writing)."""
    copy = tmp_path / "arbitro.db"
    shutil.copyfile(FIXTURE, copy)
    return copy


@pytest.fixture()
async def release_store(release_db: Path):
    opened = await SqliteStore.open(release_db, create=False)
    yield opened
    await opened.close()


def _play(ruleset: str) -> Any:
    return get_ruleset(ruleset).play


async def test_the_fixture_is_what_0_1_0_wrote(release_store):
    games = await release_store.all_games()
    assert {game.channel_id: game.ruleset for game in games} == release.CHANNELS
    assert {game.ruleset for game in games} == {"manovra", "pzgren", "w40k4", "linea_gotica"}
    for game in games:
        bundle = await release_store.export(game.channel_id)
        assert all(FORMAT_KEY not in state.document for state in bundle.states)
        verbs = {event.verb for event in bundle.events}
        assert all(ACTOR_SIDE_ARG not in event.args for event in bundle.events)
        if game.channel_id == 1005:
            assert game.status == "ended"
    verbs = set()
    for channel in release.CHANNELS:
        verbs |= {event.verb for event in (await release_store.export(channel)).events}
    assert {"undo", "dice.confirm", "dice.dispute", "game.ended"} <= verbs


async def test_every_stored_state_migrates_to_what_the_model_dumps(release_store):
    for game in await release_store.all_games():
        play = _play(game.ruleset)
        current = document_format(game.ruleset).version
        assert current >= 2
        for state in (await release_store.export(game.channel_id)).states:
            migrated = play.load_document(state.document)
            assert migrated[FORMAT_KEY] == current
            assert FORMAT_KEY not in state.document  # migrating never changes the caller's
            validated = play.load_document(state.document, validate=True)
            assert canonical_json(validated) == canonical_json(migrated)


async def test_fixture_games_open_show_status_and_take_their_next_command(release_store):
    await ensure_readable(release_store, "release")  # the start-up check passes
    dice = QueuedDice()
    service = GameService(release_store, dice=dice)
    for channel in release.CHANNELS:
        reply = await service.handle(Request(channel, BRUNO, "game.status"))
        assert reply.status is not None and reply.status.units
    for channel, (user, verb, options) in NEXT_COMMAND.items():
        before = await release_store.load(channel)
        reply = await service.handle(
            Request(channel, user, verb, options, interaction_id=f"next-{channel}")
        )
        after = await release_store.load(channel)
        assert reply.seq == after.version == before.version + 1
        # The first commit after the upgrade stores the current format.
        assert after.document[FORMAT_KEY] == document_format(after.ruleset).version
        assert FORMAT_KEY not in before.document
        status = await service.handle(Request(channel, BRUNO, "game.status"))
        assert status.status is not None
        # Undo restores a document 0.1.0 wrote; it is migrated again when loaded.
        await service.handle(
            Request(channel, REFEREE, "game.undo", interaction_id=f"undo-{channel}")
        )
        restored = await release_store.load(channel)
        assert canonical_json(restored.document) == canonical_json(before.document)
        await service.handle(Request(channel, BRUNO, "game.status"))
        assert (await replay_game(release_store, channel)).matches
    assert await release_store.check() == []


async def test_every_fixture_game_replays_to_its_stored_states(release_store):
    for channel in release.CHANNELS:
        report = await replay_game(release_store, channel)
        assert report.matches, report.describe()
        assert report.describe().endswith(": ok")
        stored = await release_store.load(channel)
        play = _play(stored.ruleset)
        assert canonical_json(report.final_document) == canonical_json(
            play.load_document(stored.document)
        )
        assert report.final_status == stored.status


async def test_games_played_by_this_version_record_seats_and_every_roll(tmp_path):
    """The fixture's own scripts, run by this version: new events replay without members."""
    path = tmp_path / "new.db"
    await release.build(path)
    async with await SqliteStore.open(path, create=False) as store:
        for channel in release.CHANNELS:
            events = (await store.export(channel)).events
            plays = [e for e in events if e.verb not in ("game.created", "undo", "game.ended")]
            plays = [e for e in plays if not e.verb.startswith(("dice.", "seat."))]
            assert plays and all(ACTOR_SIDE_ARG in e.args for e in plays)
            by_hand = [e for e in plays if e.args.get("by_hand")]
            for event in by_hand:
                # Typed faces are the actor's; another side's rolls are the bot's.
                assert event.dice and any(roll["by_hand"] for roll in event.dice)
                assert all(
                    roll["by_hand"] == (roll["side"] in (event.args[ACTOR_SIDE_ARG], None))
                    for roll in event.dice
                )
            report = await replay_game(store, channel)
            assert report.matches, report.describe()
        # Without the members table the seats still come from the events.
        await on_store(store, "DELETE FROM members", "none")
        for channel in release.CHANNELS:
            assert (await replay_game(store, channel)).matches


async def _forge(store: SqliteStore, channel: int) -> tuple[int, dict[str, Any]]:
    """Commit a real ``turn.next`` of w40k4 whose stored document was altered (as a buggy
    release would have), then one honest command; return the forged seq and its real doc."""
    record = await store.load(channel)
    play = _play(record.ruleset)
    honest = play.apply(record.document, "turn.next", {}, ScriptedDice([]), "legione").document
    forged = {**honest, "counter": honest["counter"] + 40}
    result = await store.commit(
        channel,
        record.version,
        forged,
        NewEvent("turn.next", args={ACTOR_SIDE_ARG: "legione"}, actor_id=ANNA),
    )
    service = GameService(store, dice=QueuedDice())
    await service.handle(Request(channel, BRUNO, "game.status"))
    return result.seq, honest


async def test_a_forged_state_diverges_at_its_event_and_the_replay_can_be_adopted(release_store):
    channel = 1003
    seq, honest = await _forge(release_store, channel)
    dice = QueuedDice()
    dice.push(3, 3, 3, 3, 3, 3)  # the band's owed morale test (what it rolls is not checked)
    service = GameService(release_store, dice=dice)
    await service.handle(Request(channel, BRUNO, "morale", {"unit": "banda"}, interaction_id="a"))

    report = await replay_game(release_store, channel)
    assert not report.matches and report.adoptable
    assert (report.divergence.seq, report.divergence.verb) == (seq, "turn.next")
    assert report.divergence.reason == "state differs"
    assert report.divergence.differences == (
        f"counter: stored {honest['counter'] + 40}, replayed {honest['counter']}",
    )
    assert f"diverges at event {seq} (turn.next): state differs — counter:" in report.describe()

    adopted = await adopt_replayed(release_store, report, actor_id=REFEREE)
    assert adopted.event.verb == VERB_REPLAYED
    assert adopted.event.args["diverged_at"] == seq
    assert await release_store.check() == []  # the hash chain covers the adoption
    current = await release_store.load(channel)
    assert current.version == report.version + 1
    assert canonical_json(current.document) == canonical_json(report.final_document)
    assert current.document["counter"] == honest["counter"]

    again = await replay_game(release_store, channel)
    assert again.matches and again.adopted == ((seq, adopted.seq),)
    assert again.describe().endswith(f"ok (diverged at event {seq} adopted at {adopted.seq})")
    with pytest.raises(ValueError):
        await adopt_replayed(release_store, again)


async def test_a_command_the_rules_refuse_stops_the_replay(release_store):
    channel = 1002
    record = await release_store.load(channel)
    await release_store.commit(
        channel,
        record.version,
        record.document,
        NewEvent("move", args={"unit": "no_such_unit", "hex": "1,1", ACTOR_SIDE_ARG: "us"}),
    )
    report = await replay_game(release_store, channel)
    assert report.divergence.seq == record.version + 1
    assert report.divergence.reason.startswith("refused: ")
    assert report.final_document is None and not report.adoptable


async def test_a_replay_that_rolls_other_dice_than_recorded_diverges(release_store):
    channel = 1001
    fire = next(e for e in (await release_store.export(channel)).events if e.verb == "fire")
    before = (await release_store.state_at(channel, fire.seq - 1)).document
    options = {key: value for key, value in fire.args.items() if key != "by_hand"}
    play = _play("manovra")
    exact = RecordedDice(fire.dice, by_hand=False)
    play.apply(before, "fire", options, exact, "alleati")
    assert exact.unused == 0
    one_too_many = RecordedDice([*fire.dice, {"die": "D6", "face": 1}], by_hand=False)
    play.apply(before, "fire", options, one_too_many, "alleati")
    assert one_too_many.unused == 1
    other_die = "D20" if fire.dice[0]["die"] != "D20" else "D6"
    wrong = RecordedDice([{**fire.dice[0], "die": other_die}], by_hand=False)
    with pytest.raises(ReplayMismatch, match=f"the log has a {other_die}"):
        play.apply(before, "fire", options, wrong, "alleati")


async def _write_future_document(path: Path, channel: int) -> int:
    async with await SqliteStore.open(path, create=False) as store:
        record = await store.load(channel)
        future = {**record.document, FORMAT_KEY: 99, "a_field_from_the_future": True}
        await store.commit(channel, record.version, future, NewEvent("turn.next", actor_id=ANNA))
        return record.version + 1


async def _versions(path: Path) -> dict[int, int]:
    async with await SqliteStore.open(path, create=False) as store:
        return {game.channel_id: game.version for game in await store.all_games()}


async def test_a_document_from_a_newer_release_is_refused_naming_the_game(release_db):
    future_seq = await _write_future_document(release_db, 1002)
    before = await _versions(release_db)
    async with await SqliteStore.open(release_db, create=False) as store:
        found = await unreadable_games(store)
        assert [(game.channel_id, game.ruleset) for game in found] == [(1002, "pzgren")]
        current = document_format("pzgren").version
        assert "format 99" in found[0].reason and f"reads up to {current}" in found[0].reason
        with pytest.raises(UnreadableGames) as caught:
            await ensure_readable(store, str(release_db))
        message = str(caught.value)
        assert "channel 1002 (pzgren)" in message and "nothing was changed" in message
        assert str(release_db) in message and "\n" not in message
        # A command on that game is refused with the localized message, not a traceback.
        service = GameService(store, dice=QueuedDice())
        with pytest.raises(RulesError) as refused:
            await service.handle(Request(1002, ANNA, "game.status"))
        assert refused.value.key == "error.document.too_new"
        assert "99" in refused.value.localized("fr")
        assert await service.choices(1002, ANNA, "unit", "") == []
        assert await service.choices(1001, ANNA, "unit", "") != []
        # Replay names the event whose stored state this version cannot read.
        report = await replay_game(store, 1002)
        assert report.divergence.seq == future_seq
        assert report.divergence.reason.startswith("stored state unreadable: ")
    assert await _versions(release_db) == before  # nothing written


def test_the_console_refuses_to_start_on_an_unreadable_game(release_db, capsys, monkeypatch):
    asyncio.run(_write_future_document(release_db, 1004))
    before = asyncio.run(_versions(release_db))
    monkeypatch.setattr("sys.stdin", _Lines("/game status\n"))
    assert main(["console", "--db", str(release_db), "--channel", "1004"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0
    assert "channel 1004 (linea_gotica)" in error and "format 99" in error
    assert asyncio.run(_versions(release_db)) == before


def test_the_console_plays_on_the_release_database(release_db, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", _Lines("/game status\n"))
    assert main(["console", "--db", str(release_db), "--channel", "1001", "--strict"]) == 0
    assert "Panzer IV" in capsys.readouterr().out


class _Lines:
    """A piped standard input."""

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines(keepends=True)

    def isatty(self) -> bool:
        return False

    def __iter__(self):
        return iter(self._lines)

    def readline(self) -> str:
        return self._lines.pop(0) if self._lines else ""


def test_db_replay_command(release_db, capsys):
    db = ["--db", str(release_db)]
    # `db replay` insists on the current schema, like every db tool: migrate first.
    assert main(["db", "migrate", *db]) == 0
    capsys.readouterr()
    assert main(["db", "replay", *db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == [
        "channel 1001 (manovra, 17 events): ok",
        "channel 1002 (pzgren, 14 events): ok",
        "channel 1003 (w40k4, 12 events): ok",
        "channel 1004 (linea_gotica, 16 events): ok",
        "channel 1005 (manovra, 3 events): ok",
    ]
    assert out[5].endswith("5 game(s) replayed, 0 diverging")

    async def forge() -> int:
        async with await SqliteStore.open(release_db, create=False) as store:
            seq, _ = await _forge(store, 1003)
            return seq

    seq = asyncio.run(forge())
    assert main(["db", "replay", "--channel", "1003", *db]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(f"channel 1003 (w40k4, {seq} events): diverges at event {seq}")

    assert main(["db", "replay", "--channel", "1003", "--adopt", *db]) == 0
    assert f"adopted as event {seq + 1}" in capsys.readouterr().out
    assert main(["db", "check", *db]) == 0
    assert main(["db", "replay", *db]) == 0
    assert f"ok (diverged at event {seq} adopted at {seq + 1})" in capsys.readouterr().out

    assert main(["db", "replay", "--channel", "4", *db]) == 2
    assert "no game here" in capsys.readouterr().err


def test_db_replay_reports_a_tampered_state(release_db, capsys):
    connection = sqlite3.connect(release_db)
    try:
        connection.execute("DROP TRIGGER states_no_update")
        connection.execute(
            "UPDATE states SET document = json_set(document, '$.turn', 9) "
            "WHERE channel_id = 1001 AND version = 5"
        )
        connection.commit()
    finally:
        connection.close()
    assert main(["db", "migrate", "--db", str(release_db)]) == 0
    capsys.readouterr()
    assert main(["db", "replay", "--db", str(release_db)]) == 1
    out = capsys.readouterr().out
    assert "channel 1001: cannot replay:" in out and "event 5" in out
    assert "channel 1002 (pzgren, 14 events): ok" in out
    assert "1 diverging" in out
