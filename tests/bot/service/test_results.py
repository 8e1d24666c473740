"""The end of a game through the service, each way it ends, with scripted dice: exactly one
result event (``game_result`` on the event of the command that ended it, the store's end
after it), the result reply, the score while the game goes on, undo, and the replay."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service import (
    RESULT_ARG,
    ConfirmReply,
    GameService,
    PlayReply,
    Request,
    ResultReply,
    StatusReply,
)
from bot.service.replay import replay_game
from db.errors import VersionConflict
from db.models import VERB_ENDED
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.ruleset import get_ruleset
from rules.core.score import EndingKind, GameResult, Level
from tests.bot.service.campaign.test_commands import ScriptedDice
from tests.core.test_victory_games import _random_game
from tests.fuzz.history import live_results, result_problem

REFEREE, ANNA, BRUNO, OUTSIDER = 1, 2, 3, 99
CHANNEL = 55
PLAY = get_ruleset("w40k4").play
assert PLAY is not None


class Game:
    def __init__(self, store: Any, dice: ScriptedDice) -> None:
        self.store, self.dice = store, dice
        self.service = GameService(store, dice=dice)
        self.count = 0

    async def __call__(self, user: int, verb: str, **options: Any) -> Any:
        self.count += 1
        return await self.service.handle(
            Request(CHANNEL, user, verb, options, guild_id=7, interaction_id=f"r{self.count}")
        )

    async def refused(self, user: int, verb: str, key: str, **options: Any) -> None:
        version = (await self.store.load(CHANNEL)).version
        with pytest.raises(RulesError) as caught:
            await self(user, verb, **options)
        assert caught.value.key == key, caught.value.key
        assert (await self.store.load(CHANNEL)).version == version

    async def events(self) -> list[Any]:
        return await self.store.events(CHANNEL, after_seq=0, limit=10_000)

    async def result(self) -> GameResult | None:
        return PLAY.result((await self.store.load(CHANNEL)).document)


async def _game(store: Any, language: str = "en", **by_label: int) -> Game:
    game = Game(store, ScriptedDice(**by_label))
    await game(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto", language=language)
    await game(ANNA, "game.join", side="legione")
    await game(BRUNO, "game.join", side="predoni")
    return game


async def _one_result(game: Game) -> GameResult:
    """The invariant: the store says ended, one result event not undone, the last before
    the store's end, the final state's result; the replay gives it again."""
    record = await game.store.load(CHANNEL)
    assert record.status == "ended"
    events = await game.events()
    final = PLAY.result(record.document)
    assert result_problem(events, True, final) is None, result_problem(events, True, final)
    assert events[-1].verb == VERB_ENDED
    report = await replay_game(game.store, CHANNEL)
    assert report.matches, report.describe()
    assert report.final_result == final
    assert final is not None
    return final


async def _to_the_last_turn(game: Game) -> PlayReply:
    for _ in range(200):
        reply = await game(REFEREE, "turn.next")
        assert isinstance(reply, PlayReply)
        if reply.result is not None:
            return reply
    raise AssertionError("the game did not end")


async def test_the_last_turn_ends_the_game_with_one_result_event(store) -> None:
    game = await _game(store, extension=3)  # 3 on the D6: no extra turn
    reply = await _to_the_last_turn(game)
    result = await _one_result(game)
    assert reply.result is not None and reply.result.result == result
    assert (result.ending.kind, result.ending.turn, result.winner) == (
        EndingKind.TURN_LIMIT,
        6,
        None,
    )
    assert set(reply.ping) == {ANNA, BRUNO}  # the referee ended it: the players are told
    text = reply_text(reply)
    assert "🏁 " in text and "Winner" not in text  # a draw
    assert "Points:" in text and "Astral Legion: 1 point" in text
    # The result is shown once: not again among the notices.
    assert result.summary not in reply.notices
    await game.refused(REFEREE, "turn.next", "error.service.game_ended")
    await game.refused(ANNA, "game.concede", "error.service.game_ended")
    status = await game(ANNA, "game.status")
    assert isinstance(status, StatusReply) and status.score is None
    assert status.result is not None and status.result.result == result


async def test_the_random_extension_adds_a_turn_from_the_injected_dice(store) -> None:
    game = await _game(store, extension=4)
    await _to_the_last_turn(game)
    result = await _one_result(game)
    assert (result.ending.kind, result.ending.turn) == (EndingKind.TURN_LIMIT, 7)


async def test_sudden_death_after_a_command_writes_the_result(store) -> None:
    # A game of random legal play that ends in a wipe-out, replayed command by command
    # through the service with the very faces it rolled.
    for seed in range(60):
        played = _random_game(PLAY, "avamposto", seed)
        ended = PLAY.result(played.document)
        if ended is not None and ended.ending.kind is EndingKind.SUDDEN_DEATH:
            break
    else:
        pytest.fail("no sudden death in 60 games")
    game = await _game(store)
    seats = {"legione": ANNA, "predoni": BRUNO, None: REFEREE}
    faces = list(played.faces)
    for verb, options, side, used in played.commands:
        game.dice.queue.extend(faces[:used])
        faces = faces[used:]
        reply = await game(seats[side], verb, **options)
        assert not game.dice.queue
    assert isinstance(reply, PlayReply) and reply.result is not None
    result = await _one_result(game)
    assert result == ended
    assert result.winner is not None and result.level is not Level.DRAW


async def test_a_concession_is_asked_then_confirmed_or_withdrawn(store) -> None:
    game = await _game(store, "fr")
    version = (await store.load(CHANNEL)).version
    asked = await game(ANNA, "game.concede")
    assert isinstance(asked, ConfirmReply) and asked.private and asked.seq is None
    assert asked.confirm == {"confirm": version}
    assert asked.notices[0].key == "victory.result.decisive.concession"
    assert "maintenant\u202f:" in translate("bot.concede.ask", "fr", side="x")
    cancelled = await game(ANNA, "game.concede", cancel=True)
    assert [n.key for n in cancelled.notices] == ["bot.concede.cancelled"]
    assert (await store.load(CHANNEL)).version == version
    # A player concedes only for their own side; someone without a seat not at all.
    await game.refused(ANNA, "game.concede", "error.victory.concede_own", side="predoni")
    await game.refused(OUTSIDER, "game.concede", "error.service.join_first")
    # An answer to an older question (the game moved on since) is refused.
    await game(REFEREE, "turn.next")
    await game.refused(ANNA, "game.concede", "error.service.concede.expired", confirm=version)
    code = (await game(ANNA, "game.concede")).confirm["confirm"]
    ended = await game(ANNA, "game.concede", confirm=code)
    assert isinstance(ended, ResultReply)
    result = await _one_result(game)
    assert ended.result.result == result
    assert (result.ending.kind, result.ending.side, result.winner, result.level) == (
        EndingKind.CONCESSION,
        "legione",
        "predoni",
        Level.DECISIVE,
    )
    assert set(ended.ping) == {REFEREE, BRUNO}  # the opponent and the referee are told
    text = reply_text(ended)
    assert "Pillards" in text and "Points\u202f:" in text  # French typography kept
    # The same interaction again (a retried click) gets its answer, not a second end.
    again = await game.service.handle(
        Request(
            CHANNEL,
            ANNA,
            "game.concede",
            {"confirm": code},
            guild_id=7,
            interaction_id=f"r{game.count}",
        )
    )
    assert again.duplicate
    assert len(live_results(await game.events())) == 1


async def test_the_referee_concedes_for_a_side(store) -> None:
    game = await _game(store)
    await game.refused(REFEREE, "game.concede", "error.option.missing")
    asked = await game(REFEREE, "game.concede", side="predoni")
    assert asked.confirm["side"] == "predoni"
    ended = await game(REFEREE, "game.concede", **asked.confirm)
    assert ended.result.result.winner == "legione"
    await _one_result(game)


async def test_the_referees_decision_with_its_reason(store) -> None:
    game = await _game(store, "it")
    await game.refused(
        ANNA, "game.decide", "error.service.referee_only", result="legione", reason="x"
    )
    await game.refused(REFEREE, "game.decide", "error.option.missing", result="legione")
    await game.refused(
        REFEREE,
        "game.decide",
        "error.victory.draw_has_no_level",
        result="none",
        level="marginal",
        reason="pioggia",
    )
    await game.refused(
        REFEREE, "game.end", "error.service.end.level_without_result", level="marginal"
    )
    ended = await game(
        REFEREE, "game.decide", result="Legione Astrale", level="marginal", reason="la pioggia"
    )
    assert isinstance(ended, ResultReply)
    result = await _one_result(game)
    assert (result.ending.kind, result.winner, result.level, result.ending.reason) == (
        EndingKind.DECISION,
        "legione",
        Level.MARGINAL,
        "la pioggia",
    )
    assert "la pioggia" in reply_text(ended)


async def test_a_draw_decided_by_the_referee(store) -> None:
    game = await _game(store)
    await game(REFEREE, "game.decide", result="draw", reason="time is up")
    result = await _one_result(game)
    assert (result.winner, result.level) == (None, Level.DRAW)


async def test_plain_end_gives_the_score_as_it_stands(store) -> None:
    game = await _game(store)
    score = PLAY.score((await store.load(CHANNEL)).document)
    ended = await game(REFEREE, "game.end")
    assert isinstance(ended, ResultReply)
    result = await _one_result(game)
    assert result.ending.kind is EndingKind.DECISION
    assert result.winner == score.leader and result.score == score
    assert result.ending.reason == translate("bot.result.by_score", "en")


async def test_undoing_the_end_reopens_the_game_and_a_new_end_writes_one_result(store) -> None:
    game = await _game(store)
    await game(ANNA, "game.concede", **(await game(ANNA, "game.concede")).confirm)
    undone = await game(REFEREE, "game.undo")
    # The store's end and the concession, both undone: in play again, without a result.
    assert [n.key for n in undone.notices] == ["bot.game.undone", "bot.game.undone"]
    record = await store.load(CHANNEL)
    assert record.status != "ended" and await game.result() is None
    assert result_problem(await game.events(), False, None) is None
    await game(REFEREE, "game.decide", result="legione", reason="second thoughts")
    result = await _one_result(game)
    assert result.winner == "legione"
    assert len([e for e in await game.events() if RESULT_ARG in e.args]) == 2  # one undone


async def test_a_rewind_back_to_an_ended_state_ends_the_game_again(store) -> None:
    game = await _game(store)
    await game(REFEREE, "game.decide", result="predoni", reason="r")
    ended_at = (await store.load(CHANNEL)).version - 1  # the decision's event
    await game(REFEREE, "game.undo")
    await game(REFEREE, "turn.next")
    rewound = await game(REFEREE, "game.rewind", seq=ended_at)
    assert isinstance(rewound, StatusReply) and rewound.result is not None
    result = await _one_result(game)
    assert result.winner == "predoni"


async def test_the_end_left_unwritten_is_written_by_the_next_command(store, monkeypatch) -> None:
    """The process stops between the result event and the store's end: the state has its
    result, the next command writes the end, and no second result event is made."""
    game = await _game(store)
    real_end = store.end_game

    async def lost(*args: Any, **kwargs: Any) -> Any:
        raise VersionConflict(CHANNEL, 0, 0)

    monkeypatch.setattr(store, "end_game", lost)
    await game(REFEREE, "game.decide", result="predoni", reason="r")
    assert (await store.load(CHANNEL)).status != "ended"
    monkeypatch.setattr(store, "end_game", real_end)
    with pytest.raises(RulesError) as caught:
        await game(REFEREE, "turn.next")
    assert caught.value.key == "error.service.game_ended"
    assert (await store.load(CHANNEL)).status == "ended"
    await _one_result(game)


async def test_the_status_shows_the_score_if_the_game_ended_now(store) -> None:
    game = await _game(store, "fr")
    status = await game(ANNA, "game.status")
    assert isinstance(status, StatusReply) and status.result is None
    assert status.score is not None
    assert status.score.score == PLAY.score((await store.load(CHANNEL)).document)
    text = reply_text(status)
    assert translate("bot.result.score_title", "fr") in text
    assert "Pertes\u202f:" in text or "Points\u202f:" in text


async def test_the_list_and_the_export_show_the_result(store) -> None:
    game = await _game(store)
    await game(REFEREE, "game.decide", result="predoni", level="decisive", reason="r")
    summary = "Decisive victory for Raiders"
    listed = await game(REFEREE, "game.list")
    assert any(summary in line for line in listed.lines), listed.lines
    exported = await game(ANNA, "game.export")
    report = next(v for k, v in exported.files.items() if k.endswith(".md"))
    assert summary in (report if isinstance(report, str) else report.decode())
    # A new game archives this one.
    await game(REFEREE, "game.new", ruleset="w40k4", scenario="fuga", language="en")
    listed = await game(REFEREE, "game.list")
    assert any("archived" in line and summary in line for line in listed.lines), listed.lines
