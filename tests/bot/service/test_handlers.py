"""The handler table: every command a front end declares has exactly one handler, and every
handler answers a declared command; the dispatcher reads what handlers declare."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.commands import BUTTON_COMMANDS, COMMANDS, DIE_ANSWER
from bot.service import GAME_VERBS, TABLE, Request, ServiceError
from bot.service.handlers import GameHandler, Handler, HandlerTable, Who
from bot.service.play import FALLBACK, MAP_VERBS
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset

CHANNEL = 31


def _declared_verbs() -> list[str]:
    """Every verb a front end sends: each command's (a routed one's every verb), and the
    answer to a die asked for."""
    return [verb for c in (*COMMANDS, *BUTTON_COMMANDS) for verb in c.verbs()] + [DIE_ANSWER]


def test_every_declared_command_has_exactly_one_handler_and_every_handler_a_command():
    declared = set(_declared_verbs())
    handled = Counter(verb for handler in TABLE for verb in handler.verbs)
    assert [verb for verb, times in handled.items() if times > 1] == []
    assert set(handled) == declared, (
        f"commands without a handler: {sorted(declared - set(handled))}; "
        f"handlers without a command: {sorted(set(handled) - declared)}"
    )
    for verb in declared:
        assert TABLE.handler(verb) is not FALLBACK, verb


def test_every_verb_of_every_ruleset_is_a_declared_ruleset_verb():
    for key in KNOWN_RULESETS:
        play = get_ruleset(key).rules
        assert play is not None
        for verb in play.verbs():
            assert TABLE.handler(verb).ruleset_verb, (key, verb)
            assert TABLE.handler(verb) is not FALLBACK, (key, verb)


def test_the_declarations_say_what_the_verb_lists_said():
    assert (
        {v for v in TABLE.verbs() if TABLE.draws_map(v)}
        == set(MAP_VERBS)
        == {
            "move",
            "fire",
            "callarty",
            "execute",
            "template",
            "embark",
            "disembark",
            "hook",
            "unhook",
        }
    )
    read_only = {v for v in TABLE.verbs() if TABLE.handler(v).read_only}
    assert read_only == {
        "game.status",
        "turn.status",
        "game.log",
        "game.export",
        "game.list",
        "help",
        "rules.table",
        "odds",
        "game.map",
        "campaign.status",
        "campaign.log",
        "campaign.export",
        "game.web",
        "campaign.web",
        "notify.show",
        "notify.test",
    }
    assert "roll" not in GAME_VERBS and "dice.roll" in GAME_VERBS and "move" not in GAME_VERBS
    assert TABLE.handler("game.creators").who is Who.MANAGERS
    assert isinstance(TABLE.handler("game.new"), Handler)
    assert isinstance(TABLE.handler("game.status"), GameHandler)


def test_a_verb_declared_twice_is_refused():
    async def run(call: object) -> object:
        raise AssertionError

    with pytest.raises(ValueError, match="two handlers"):
        HandlerTable(
            GameHandler(("a",), run=run),  # type: ignore[arg-type]
            Handler(("a",), run=run),  # type: ignore[arg-type]
            fallback=FALLBACK,
        )


async def test_a_game_handler_declared_for_the_referee_refuses_a_player(service):
    await service.handle(Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia"}))
    await service.handle(Request(CHANNEL, 2, "game.join", {"side": "alleati"}))
    assert TABLE.handler("game.pace").who is Who.REFEREE
    with pytest.raises(ServiceError) as refused:
        await service.handle(Request(CHANNEL, 2, "game.pace", {"hours": 4}))
    assert refused.value.key == "error.service.referee_only"


async def test_a_handler_that_only_reads_runs_on_an_ended_game_one_that_plays_does_not(service):
    await service.handle(Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia"}))
    await service.handle(Request(CHANNEL, 1, "game.end"))
    status = await service.handle(Request(CHANNEL, 1, "game.status"))
    assert status.status is not None and status.status.ended
    with pytest.raises(ServiceError) as refused:
        await service.handle(Request(CHANNEL, 1, "turn.next"))
    assert refused.value.key == "error.service.game_ended"
