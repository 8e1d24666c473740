"""The game's end by a decision: a side's concession, the referee's result, ``/game end``.

* ``/game concede [side]`` — a seated player concedes for their side (the referee names the
  side). The bot asks first, privately (:class:`ConfirmReply`): the result the concession
  would give, and how to confirm (``confirm:<code>``, a button in Discord) or withdraw
  (``cancel:true``). The code is the game's version when asked: a confirmation given after
  the game has moved on is refused, so an old button cannot end a game it never saw.
* ``/game end result:S [level:L] reason:R`` (``game.decide``) — the referee's decision:
  a winner (a side, or ``none``/``draw``), its level, and the reason, logged.
* ``/game end [reason:R]`` — the game ends with the result the rules compute at that
  moment: the score as it stands names the winner and the level, as at the turn limit. It
  is logged as the referee's decision with that winner (``game.decide``), its reason the
  one given or "ended by the referee on the score as it stood".

Each is a command of the rules (:mod:`rules.core.ending`) played as the handler table plays
a ruleset's verb (its ``fallback``, found in the table: this feature names no other): its
event carries the result and is committed as the game's end, like any command that ends the
game (``docs/architecture.md``, "The result").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.service.closing import close_game
from bot.service.errors import ServiceError
from bot.service.handlers import GameCall, GameHandler, Who
from bot.service.replies import ConfirmReply, PlayReply, Reply, ResultReply, ResultView
from bot.service.requests import int_option
from rules.core.ending import CONCEDE, DECIDE, NO_WINNER
from rules.core.errors import InvalidInput
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.score import GameResult, Level, Score
from rules.core.seatview import REFEREE

#: The verb plain ``/game end`` sends (``game.decide`` once given a result).
END = "game.end"
#: What a referee may type for "no winner".
DRAW_WORDS = frozenset({NO_WINNER, "draw"})
_TRUE_TEXTS = frozenset({"true", "1", "yes"})


def _flag(value: Any) -> bool:
    """A yes/no option as a slash command (a bool) or a button (its text) sends it."""
    return value is True or str(value).strip().lower() in _TRUE_TEXTS


async def concede(call: GameCall) -> Reply:
    """``/game concede [side] [confirm:<code>] [cancel:true]``."""
    request, record = call.request, call.record
    options = request.options
    if _flag(options.get("cancel")):
        reply = Reply(language=record.language, ruleset=record.ruleset, private=True)
        reply.notices.append(Outcome.of("bot.concede.cancelled"))
        return reply
    rules_options = {"side": options["side"]} if options.get("side") else {}
    if options.get("confirm") is None:
        return await _ask_to_concede(call, rules_options)
    code = int_option(options, "confirm", 0, 1, 2**53)
    if code != record.version:
        raise ServiceError("error.service.concede.expired")
    played = await _play(call, CONCEDE, rules_options)
    return _result_reply(played)


async def _ask_to_concede(call: GameCall, rules_options: dict[str, Any]) -> Reply:
    """The question before a concession: the result it would give (the rules' own answer,
    refusals included: another side's concession, an unknown side), and how to answer."""
    document, seat, record = call.document, call.seat, call.record
    rules, dice = call.services.ruleset(record.ruleset).rules, call.services.dice

    def preview() -> GameResult | None:
        # Nothing is rolled for a concession and nothing is committed here.
        game = rules.load(document)
        game.act(seat, CONCEDE, rules_options, dice)
        return game.view(seat).result

    result = await call.services.off_loop(preview)
    if result is None or result.ending.side is None:  # every concession names its side
        raise AssertionError("a concession without its result")
    side = result.ending.side
    names = rules.sides(document)
    # The side by its id: short enough for a button, whatever the side's name.
    confirm: dict[str, Any] = {"confirm": record.version}
    if "side" in rules_options:
        confirm["side"] = side
    reply = ConfirmReply(
        language=record.language,
        ruleset=record.ruleset,
        head_hash=record.head_hash,
        private=True,
        question=Outcome.of("bot.concede.ask", side=names.get(side, side)),
        verb=CONCEDE,
        confirm=confirm,
        cancel={"cancel": "true"},
        confirm_label="discord.button.concede",
        cancel_label="discord.button.keep_playing",
        typed=Outcome.of(
            "bot.concede.how",
            code=record.version,
            side=f" side:{side}" if "side" in rules_options else "",
        ),
    )
    reply.notices.append(result.summary)
    return reply


async def decide(call: GameCall) -> Reply:
    """``/game end result:S [level:L] reason:R``: the referee's decision."""
    request = call.request
    options = request.options
    winner = str(options.get("result", "")).strip()
    rules_options: dict[str, Any] = {
        "winner": NO_WINNER if winner.lower() in DRAW_WORDS else winner
    }
    for name in ("level", "reason"):
        if options.get(name):
            rules_options[name] = options[name]
    played = await _play(call, DECIDE, rules_options)
    return _result_reply(played)


async def end_game(call: GameCall) -> Reply:
    """``/game end [reason:R]``: the game ends with the result the rules compute now."""
    request, record, rules, document = call.request, call.record, call.rules, call.document
    options = request.options
    if options.get("level"):
        raise InvalidInput("error.service.end.level_without_result")

    def score_and_result() -> tuple[Score, GameResult | None]:
        view = call.game.view(REFEREE)  # the state the decision is then played on
        return view.score, view.result

    score, existing = await call.services.off_loop(score_and_result)
    if existing is not None:
        # The state has its result already, the store was not told (its end was never
        # written after the result event, or a release before results ended the game):
        # the end is written now, with the result it has.
        ended = await close_game(call, record.version)
        if ended is None:
            raise ServiceError("error.service.conflict")
        return ResultReply(
            language=record.language,
            ruleset=record.ruleset,
            head_hash=ended.event.hash,
            seq=ended.seq,
            result=ResultView(existing, rules.sides(document)),
        )
    reason = str(options.get("reason") or "") or translate("bot.result.by_score", record.language)
    rules_options: dict[str, Any] = {"winner": score.leader or NO_WINNER, "reason": reason}
    if score.leader is not None and score.level is not Level.DRAW:
        rules_options["level"] = score.level.value
    played = await _play(call, DECIDE, rules_options)
    return _result_reply(played)


async def _play(call: GameCall, verb: str, rules_options: dict[str, Any]) -> Reply:
    """Play ``verb`` of the rules with ``rules_options`` for the asker's seat, as any verb
    of the ruleset is played (the table's fallback: resolved, committed, the game closed
    when it ends)."""
    request = replace(call.request, verb=verb, options=rules_options)
    return await call.table.fallback.run(call.asking(request))


def _result_reply(played: Reply) -> Reply:
    """The reply of a command that ended the game: its result and the final picture (a
    retried interaction gets what its first answer recorded)."""
    if not isinstance(played, PlayReply) or played.result is None:
        return played
    return ResultReply(
        language=played.language,
        ruleset=played.ruleset,
        notices=played.notices,
        ping=played.ping,
        names=played.names,
        seq=played.seq,
        head_hash=played.head_hash,
        duplicate=played.duplicate,
        result=played.result,
        map_view=played.map_view,
    )


HANDLERS = (
    GameHandler((CONCEDE,), who=Who.SEATED, after_end=False, ruleset_verb=True, run=concede),
    GameHandler((DECIDE,), who=Who.REFEREE, after_end=False, ruleset_verb=True, run=decide),
    GameHandler((END,), who=Who.REFEREE, after_end=False, run=end_game),
)

__all__ = ["END", "HANDLERS", "concede", "decide", "end_game"]
