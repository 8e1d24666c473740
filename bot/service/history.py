"""History: undo, take-back, rewind, dice checks and re-rolls. Never rewritten, only added to.

* ``/game undo`` (referee): the store's undo of the latest event.
* ``/takeback``: a player takes back their own last command, while it is the game's latest
  event and rolled no die (once a die is rolled or someone else has acted, it stands).
* ``/game rewind seq:N`` (referee): one new event that restores the state event N left;
  everything after it is undone at once, and stays in the log.
* ``/dice confirm|dispute seq:N``: another player confirms or disputes dice typed by hand.
* ``/dice reroll seq:N`` (referee, for a roll a player disputed): from the state before
  event N, its command runs again with fresh dice, then the commands given after it run
  again with their recorded dice; where one no longer applies the re-run stops and says
  so. The result is one new event carrying the fresh dice, which a replay re-runs the same
  way (:func:`bot.service.replay.rerun`), so ``arbitro db replay`` still verifies the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

from bot.service.closing import close_game
from bot.service.errors import ServiceError
from bot.service.events import (
    ACTOR_SIDE_ARG,
    REFEREE_ONLY,
    SECRET_ARG,
    VERB_CONFIRM,
    VERB_DISPUTE,
    VERB_REROLL,
    VERB_REWIND,
    VERB_ROLL,
    plain_event,
    recorded_rolls,
    secret_among,
    with_result,
)
from bot.service.handlers import REPLAY_BUDGET_S, GameCall, GameHandler, Who
from bot.service.redaction import kept_apart, told_apart
from bot.service.replay import Rerun, is_play_event, later_commands, rerun
from bot.service.replies import PlayReply, Reply, ResultView, StatusReply
from bot.service.requests import int_option
from db.models import VERB_ENDED, EventRecord, NewEvent
from rules.core.play import StatusView
from rules.core.resolution import Outcome
from rules.core.score import GameResult
from rules.core.seatview import REFEREE, SPECTATOR
from rules.core.surface import Rules

VERB_TAKEBACK = "takeback"
VERB_UNDO_COMMAND = "game.undo"
_R = TypeVar("_R", bound=Reply)
#: Events read at once while looking for a re-roll's later commands.
PAGE = 1000


def takeback_refusal(latest: EventRecord, user_id: int, rules: Rules) -> str | None:
    """Why the asker may not take back the game's latest event (None: they may).

    The asker's own roll (a free ``/roll`` or a command whose dice were rolled) is refused
    for what it is: rolls stand, only the referee's ``/game undo`` removes them."""
    own = latest.actor_id == user_id
    if own and (latest.verb == VERB_ROLL or (latest.dice and is_play_event(latest, rules))):
        return "error.service.takeback.rolls_stand"
    if not is_play_event(latest, rules) or not own:
        return "error.service.takeback.not_yours"
    return None


def _reply(call: GameCall, kind: type[_R]) -> _R:
    record = call.record
    return kind(language=record.language, ruleset=record.ruleset, head_hash=record.head_hash)


async def _status_of(call: GameCall, document: Mapping[str, Any]) -> StatusView:
    """The status the channel reads (a history command's reply is posted there): the
    spectator's, not the referee's without the hidden units, whose notes name what the
    rules keep from a side (a hidden unit's owed morale, every side's missions)."""
    rules = call.rules
    return await call.services.off_loop(lambda: rules.view(document, SPECTATOR).status)


async def undo(call: GameCall) -> Reply:
    """``/game undo``: the referee undoes the game's latest event.

    Undoing the end of a game undoes the command that ended it too (its result event):
    the store's end (``game.ended``) follows that event, and a state with a result is
    over whatever the store says. The game is then in play again, without a result.
    """
    request, store, rules = call.request, call.store, call.rules
    channel = request.channel_id
    reply = _reply(call, StatusReply)
    result = await store.undo(
        channel,
        expected_version=call.record.version,
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )
    undone = await store.load(channel)
    document = rules.document_format.upgrade(undone.document)
    if result.event.args.get("undone_verb") == VERB_ENDED and await call.services.off_loop(
        lambda: rules.view(document, REFEREE).result is not None
    ):
        reply.notices.append(Outcome.of("bot.game.undone", seq=result.event.undoes_seq or 0))
        result = await store.undo(
            channel, expected_version=undone.version, actor_id=request.user_id
        )
        undone = await store.load(channel)
        document = rules.document_format.upgrade(undone.document)
    reply.head_hash = result.event.hash
    reply.notices.append(Outcome.of("bot.game.undone", seq=result.event.undoes_seq or 0))
    reply.status = await _status_of(call, document)
    return reply


async def take_back(call: GameCall) -> Reply:
    """``/takeback``: the asker's own last command, if nothing has followed it."""
    request, store, version = call.request, call.store, call.record.version
    channel = request.channel_id
    reply = _reply(call, StatusReply)
    latest = await store.events(channel, after_seq=version - 1, limit=1)
    refusal = takeback_refusal(latest[0], request.user_id, call.rules) if latest else "x"
    if refusal is not None:
        raise ServiceError(refusal if latest else "error.service.takeback.not_yours")
    result = await store.undo(
        channel,
        expected_version=version,
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )
    reply.notices.append(Outcome.of("bot.game.taken_back", seq=latest[0].seq))
    reply.seq, reply.head_hash = result.seq, result.event.hash
    taken_back = (await store.load(channel)).document
    reply.status = await _status_of(call, taken_back)
    return reply


async def rewind(call: GameCall) -> Reply:
    """``/game rewind seq:N``: the state event N left, restored as one new event."""
    request, store, version = call.request, call.store, call.record.version
    channel = request.channel_id
    reply = _reply(call, StatusReply)
    seq = int_option(request.options, "seq", 0, 1, max(1, version - 1))
    earlier = await store.state_at(channel, seq)
    rules, now = call.rules, call.document
    document = rules.document_format.upgrade(earlier.document)
    over, ended = await call.services.off_loop(
        lambda: (
            rules.view(now, REFEREE).result is not None,
            rules.view(document, REFEREE).result,
        )
    )
    if over:
        await _refuse_over(call)
    # Back to the state of a game that had ended (its end undone since): it ends again,
    # and this event carries its result (docs/architecture.md, "The result").
    event = with_result(plain_event(request, VERB_REWIND, seq=seq), ended)
    result = await store.commit(channel, version, earlier.document, event)
    reply.notices.append(Outcome.of("bot.game.rewound", seq=seq, undone=version - seq))
    reply.seq, reply.head_hash = result.seq, result.event.hash
    reply.status = await _status_of(call, document)
    if ended is not None:
        closed = await close_game(call, result.version)
        if closed is not None:
            reply.head_hash = closed.event.hash
        reply.status = replace(reply.status, ended=True, awaiting=None)
        reply.result = ResultView(ended, rules.sides(document))
    return reply


async def _refuse_over(call: GameCall) -> None:
    """Refuse a history command on a game whose state has its result though the store was
    not told: the end is written first (:func:`bot.service.closing.close_game`)."""
    await close_game(call, call.record.version)
    raise ServiceError("error.service.game_ended")


async def reroll(call: GameCall) -> Reply:
    """``/dice reroll seq:N``: a disputed roll rolled again, the later commands re-run."""
    request, store, version = call.request, call.store, call.record.version
    rules = call.rules
    channel = request.channel_id
    reply = _reply(call, PlayReply)
    seq = int_option(request.options, "seq", 0, 1, version)
    # The events from the disputed one on, page by page, and the one state before it:
    # never the whole log with every state.
    events: list[EventRecord] = []
    while True:
        page = await store.events(
            channel, after_seq=events[-1].seq if events else seq - 1, limit=PAGE
        )
        events += page
        if len(page) < PAGE:
            break
    target = next((e for e in events if e.seq == seq), None)
    disputed = any(e.verb == VERB_DISPUTE and e.args.get("seq") == seq for e in events)
    if target is None or not target.dice or not disputed:
        raise ServiceError("error.service.reroll.not_disputed", seq=seq)
    if not is_play_event(target, rules):
        # A free /roll typed by hand may be disputed, but it is no command of the rules
        # to run again: the rules would answer "unknown command 'roll'".
        raise ServiceError("error.service.reroll.free_roll", seq=seq)
    try:
        later = later_commands(events, seq, rules)
    except ValueError:
        raise ServiceError("error.service.reroll.history", seq=seq) from None
    before = rules.document_format.upgrade((await store.state_at(channel, seq - 1)).document)
    members = list(call.context.members)
    dice = call.services.dice

    now = call.document

    def run_again() -> tuple[Rerun, GameResult | None] | None:
        if rules.view(now, REFEREE).result is not None:
            return None  # over already: refused below
        again = rerun(rules, before, target, dice, later, members)
        return again, rules.view(again.document, REFEREE).result

    # The re-run may end the game (a roll now wipes a side out): its event is then the
    # result event, and the game's end follows it.
    ran = await call.services.on_workers(channel, run_again, budget_s=REPLAY_BUDGET_S)
    if ran is None:
        await _refuse_over(call)
        raise AssertionError("unreachable")
    outcome, ended = ran
    args: dict[str, Any] = {
        "seq": seq,
        "replayed": outcome.replayed,
        "stopped_at": outcome.stopped_at,
    }
    # It ran a hidden unit's command again: the log and the exports read it as they read
    # that command (its side and the referee; both sides' secrets: the referee alone).
    secret = secret_among(outcome.secret_sides)
    if secret is not None:
        args[SECRET_ARG] = secret
    event = NewEvent(
        verb=VERB_REROLL,
        args=args,
        dice=recorded_rolls(outcome.rolls, outcome.resolutions),
        resolution=[res.to_json() for res in outcome.resolutions],
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )
    result = await store.commit(channel, version, outcome.document, with_result(event, ended))
    reply.resolutions = outcome.resolutions
    reply.notices.append(Outcome.of("bot.dice.rerolled", seq=seq, replayed=outcome.replayed))
    if outcome.stopped_at is not None:
        reply.notices.append(
            Outcome.of("bot.dice.reroll_stopped", seq=outcome.stopped_at, reason=outcome.reason)
        )
    reply.seq, reply.head_hash = result.seq, result.event.hash
    reply.status = await _status_of(call, rules.document_format.upgrade(outcome.document))
    if ended is not None:
        closed = await close_game(call, result.version)
        if closed is not None:
            reply.head_hash = closed.event.hash
        reply.status = replace(reply.status, ended=True, awaiting=None)
        reply.result = ResultView(ended, rules.sides(outcome.document))
        reply.notices = [n for n in reply.notices if n != ended.summary]
    if secret is not None:
        _rerolled_in_secret(reply, seq, secret, rules.sides(outcome.document))
        return reply
    # A re-run's rolls a side keeps for itself (a hidden squad's new leader) are its own.
    return kept_apart(reply, call.seat)


def _rerolled_in_secret(reply: PlayReply, seq: int, secret: str, sides: Mapping[str, str]) -> None:
    """A re-roll that ran a hidden unit's command again: the whole reply goes to the referee
    alone, and the channel is told that a hidden unit's command was rolled again, with the
    state as it may read it (the status lists no hidden unit) and the result, if any."""
    public_notice = (
        Outcome.of("bot.dice.rerolled_hidden_referee", seq=seq)
        if secret == REFEREE_ONLY
        else Outcome.of("bot.dice.rerolled_hidden", seq=seq, side=sides.get(secret, secret))
    )
    told_apart(
        reply,
        Outcome.of("bot.dice.rerolled_private"),
        status=reply.status,
        result=reply.result,
        notices=[public_notice],
    )


async def check_dice(call: GameCall) -> Reply:
    """``/dice confirm|dispute seq:N``: dice typed by hand, confirmed or disputed by
    anyone seated but their roller and the other players of the roller's side (the
    opponent checks them; the referee may check their own)."""
    request, seat = call.request, call.seat
    reply = _reply(call, Reply)
    seq = int_option(request.options, "seq", 0, 1, 10**9)
    events = await call.store.events(request.channel_id, after_seq=seq - 1, limit=1)
    if not events or events[0].seq != seq or not events[0].args.get("by_hand"):
        raise ServiceError("error.service.no_hand_dice", seq=seq)
    if not seat.seated:
        raise ServiceError("error.service.join_first")
    if not seat.referee and events[0].actor_id == request.user_id:
        raise ServiceError("error.service.own_dice")
    # A team-mate's confirmation would settle the side's own dice for it (dice the
    # referee typed for a side are a neutral hand's: either side may check them).
    typed_by = events[0].args.get(ACTOR_SIDE_ARG)
    if not seat.referee and seat.side is not None and typed_by == seat.side:
        sides = call.rules.sides(call.document)
        raise ServiceError("error.service.own_side_dice", side=sides.get(seat.side, seat.side))
    event = plain_event(request, request.verb, seq=seq)
    result = await call.store.commit(
        request.channel_id, call.record.version, dict(call.document), event
    )
    key = "bot.dice.confirmed" if request.verb == VERB_CONFIRM else "bot.dice.disputed"
    reply.notices.append(Outcome.of(key, seq=seq))
    reply.seq = result.seq
    reply.head_hash = result.event.hash
    return reply


# Each may take the game back before its end: the guards of what was built on its result
# (a campaign's) may refuse it. The deadlines and the campaign follow each, as any write.
HANDLERS = (
    GameHandler((VERB_UNDO_COMMAND,), who=Who.REFEREE, reopens=True, run=undo),
    GameHandler((VERB_TAKEBACK,), after_end=False, reopens=True, run=take_back),
    GameHandler((VERB_REWIND,), who=Who.REFEREE, after_end=False, reopens=True, run=rewind),
    GameHandler((VERB_REROLL,), who=Who.REFEREE, after_end=False, reopens=True, run=reroll),
    # Who may check is decided inside: an unknown roll is refused before the seat is.
    GameHandler((VERB_CONFIRM, VERB_DISPUTE), run=check_dice),
)

__all__ = ["HANDLERS", "takeback_refusal"]
