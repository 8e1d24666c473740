"""The event schema: what the service writes in a game's chain, and how it is read back.

Every command that changes a game is one event (``db.models.NewEvent``): its verb, its args
(the command's options plus the keys below), every die rolled, and the resolutions shown.
Replay (:mod:`bot.service.replay`), the log and the export read events with the names here,
so a key or a verb is spelled in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.service.errors import command_name
from bot.service.requests import Request
from db.models import VERB_UNDO, EventRecord, NewEvent
from rules.core.dice import Roll
from rules.core.expression import RollResult
from rules.core.i18n import has_key, semicolon, translate
from rules.core.play import Played
from rules.core.resolution import Resolution
from rules.core.score import GameResult
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.core.words import in_language
from rules.render import outcome_text

# Keys the service adds to a play event's args beside the command's options: the referee
# acting for a side, dice typed by hand, and the seat the command was applied for (absent
# from events of 0.1.0, which replay reads from the members table instead).
ACTED_FOR_ARG = "acted_for"
BY_HAND_ARG = "by_hand"
ACTOR_SIDE_ARG = "actor_side"
ACTOR_NAME_ARG = "actor_name"
#: The result of the game (``GameResult.to_json``), on the event of the command that ended
#: it: the result event. Committed with the state it ended, in one transaction, as the
#: game's status turns to ended: a game has a result event exactly when it has ended
#: (an undo of that event undoes the end with it; see docs/architecture.md, "The result").
RESULT_ARG = "game_result"
#: The side that alone (with the referee) may read the command: it says where a unit hidden
#: from the enemy went (``Played.secret_for``, in ``rules/core/play.py``).
SECRET_ARG = "secret_for"
#: The value of ``SECRET_ARG`` for what only the referee may read: an event telling secrets
#: of both sides (a re-roll that re-ran hidden units' commands of each). No side id can take
#: it (ids start with a letter or a digit), so no side reads it.
REFEREE_ONLY = "@referee"
EVENT_ARGS = frozenset(
    {ACTED_FOR_ARG, BY_HAND_ARG, ACTOR_SIDE_ARG, ACTOR_NAME_ARG, RESULT_ARG, SECRET_ARG}
)
#: The args a reader who may not see a secret command still reads: who played it, for
#: which side, and that it is secret.
PUBLIC_ARGS = EVENT_ARGS


def may_read(seat: Seat, args: Any) -> bool:
    """Whether ``seat`` may read the options, dice and outcome of the event with these
    ``args``: the referee reads everything, the channel (the spectator's seat) and a side
    whatever is not another side's secret."""
    secret = secret_of(args)
    if secret is None or seat.referee:
        return True
    return secret != REFEREE_ONLY and secret == seat.side


def part_readable(seat: Seat, part: Any) -> bool:
    """Whether ``seat`` may read a part of an event it may read — a stored resolution or
    die (a mapping) — that may be a side's own (``SECRET_ARG`` on it: a hidden squad's
    roll for a new leader in a public ``/turn next``)."""
    return seat.may_read(secret_of(part))


def secret_among(sides: Iterable[str | None]) -> str | None:
    """The ``SECRET_ARG`` of an event telling the secrets of these sides (None among them:
    nothing secret): None, the one side, or ``REFEREE_ONLY`` when they are several."""
    secret = {side for side in sides if side}
    if not secret:
        return None
    return secret.pop() if len(secret) == 1 else REFEREE_ONLY


def secret_of(args: Any) -> str | None:
    """The side that alone may read the event with these ``args`` (None: everyone)."""
    secret = args.get(SECRET_ARG) if isinstance(args, Mapping) else None
    return str(secret) if secret else None


#: A free ``/roll``, logged in the channel's game (the document unchanged).
VERB_ROLL = "roll"
#: Dice typed for a command that then waited for one more die: on the record from the
#: moment they were given (the document unchanged; the command is logged once it runs).
VERB_TYPED = "dice.typed"
#: Dice typed by hand, confirmed or disputed by another player (the document unchanged).
VERB_CONFIRM = "dice.confirm"
VERB_DISPUTE = "dice.dispute"
#: The state of an earlier event, restored (``/game rewind``).
VERB_REWIND = "game.rewind"
#: A disputed roll rolled again, the later commands re-run (``/dice reroll``).
VERB_REROLL = "dice.reroll"
#: A replayed state adopted after a rules fix (``arbitro db replay --adopt``).
VERB_REPLAYED = "game.replayed"

# Seat changes (the document unchanged): who joined, left, was seated or became referee.
SEAT_JOIN = "seat.join"
SEAT_LEAVE = "seat.leave"
SEAT_ASSIGN = "seat.assign"
SEAT_REMOVE = "seat.remove"
SEAT_REFEREE = "seat.referee"
SEAT_BIND = "seat.bind"
#: Seats by consent: a request for a side that has players, its approval, an invitation.
SEAT_REQUEST = "seat.request"
SEAT_APPROVE = "seat.approve"
SEAT_INVITE = "seat.invite"

#: Events that leave the document as it was: confirmations, free /roll dice, adoptions
#: (and every ``seat.*`` event).
SAME_DOCUMENT_VERBS = frozenset({VERB_CONFIRM, VERB_DISPUTE, VERB_ROLL, VERB_REPLAYED, VERB_TYPED})
#: Events that change history rather than play: a re-roll cannot reach across them.
HISTORY_VERBS = frozenset({VERB_UNDO, VERB_REWIND, VERB_REROLL, VERB_REPLAYED})


def recorded_roll(roll: Roll) -> dict[str, Any]:
    """A die as a play event records it: what replay needs to roll it again."""
    return {
        "die": roll.die.name,
        "face": roll.face,
        "label": roll.label,
        "by_hand": roll.by_hand,
        "side": roll.side,
    }


def command_event(
    request: Request,
    seat: Seat,
    acted_for: str | None,
    typed: list[int] | None,
    played: Played,
    result: GameResult | None = None,
) -> NewEvent:
    """The event a played command is logged as.

    ``acted_for`` is the side whose move it was (recorded when the referee played it for
    that side; the caller gives None when it is the side the referee joined); ``typed``
    the player's own faces, if any; ``result`` the game's result when this command ended
    it.
    """
    args: dict[str, Any] = {k: v for k, v in request.options.items() if v is not None}
    if seat.referee and acted_for is not None:
        args[ACTED_FOR_ARG] = acted_for
    if typed is not None:
        args[BY_HAND_ARG] = True
    # Enough to replay the command without the members table: the side it was played
    # for, and every die the tray rolled in order (not only those a resolution shows),
    # each marked typed by the player (by_hand) or the bot's, and the side it was for.
    args[ACTOR_SIDE_ARG] = seat.side
    if played.secret_for is not None:
        args[SECRET_ARG] = played.secret_for
    if request.user_name:
        args[ACTOR_NAME_ARG] = request.user_name[:60]  # the log names people, not ids
    if result is not None:
        args[RESULT_ARG] = result.to_json()
    return NewEvent(
        verb=request.verb,
        args=args,
        dice=recorded_rolls(played.rolls, played.resolutions),
        resolution=[res.to_json() for res in played.resolutions],
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )


def recorded_rolls(
    rolls: Sequence[Roll], resolutions: Sequence[Resolution]
) -> list[dict[str, Any]]:
    """Every die of a command as its event records them, in the order rolled (replay rolls
    them again so): those of a resolution only a side may read marked as that side's
    (``SECRET_ARG``), which a seat's export leaves out."""
    kept = {
        id(roll): resolution.secret_for
        for resolution in resolutions
        if resolution.secret_for is not None
        for roll in resolution.rolls
    }
    recorded = [recorded_roll(roll) for roll in rolls]
    return [
        die if id(roll) not in kept else {**die, SECRET_ARG: kept[id(roll)]}
        for roll, die in zip(rolls, recorded, strict=True)
    ]


def roll_event(request: Request, result: RollResult) -> NewEvent:
    """The event a free ``/roll`` is logged as in the channel's game."""
    args: dict[str, Any] = {
        "expression": result.expression.notation,
        "total": result.total,
        "by_hand": bool(request.dice),
    }
    if request.user_name:
        args[ACTOR_NAME_ARG] = request.user_name[:60]
    return NewEvent(
        verb=VERB_ROLL,
        args=args,
        dice=[
            {"die": r.die.name, "face": r.face, "label": r.label, "by_hand": r.by_hand}
            for r in result.rolls
        ],
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )


def plain_event(request: Request, verb: str, **args: Any) -> NewEvent:
    """An event with no dice and no resolution (a dice check, a rewind, a seat change),
    naming who made it as the log shows people."""
    if request.user_name:
        args.setdefault(ACTOR_NAME_ARG, request.user_name[:60])
    return NewEvent(
        verb=verb, args=args, actor_id=request.user_id, interaction_id=request.interaction_id
    )


def seat_event(request: Request, verb: str, **args: Any) -> NewEvent:
    """A seat change as the chain logs it: the log and the export tell who sat where."""
    return plain_event(request, verb, **args)


def with_result(event: NewEvent, result: GameResult | None) -> NewEvent:
    """``event`` carrying the game's result (unchanged without one): the event of a
    history command (a rewind, a re-roll) whose state ends the game."""
    if result is None:
        return event
    return replace(event, args={**event.args, RESULT_ARG: result.to_json()})


def result_of(event: Any) -> GameResult | None:
    """The result an event recorded (None: it did not end the game, or its record cannot
    be read)."""
    args = event.args if isinstance(event.args, dict) else {}
    data = args.get(RESULT_ARG)
    if not isinstance(data, dict):
        return None
    try:
        return GameResult.from_json(data)
    except ValueError:  # pydantic's ValidationError: a record this release cannot read
        return None


def resolutions_of(event: EventRecord, reader: Seat = REFEREE) -> list[Resolution]:
    """The resolutions an event recorded that ``reader`` may read (what a retried
    interaction is shown again, a page's dice): none of a command it may not read, none a
    side keeps for itself but its own."""
    if not may_read(reader, event.args):
        return []
    return [
        Resolution.from_json(item)
        for item in event.resolution or []
        if isinstance(item, dict) and part_readable(reader, item)
    ]


def event_line(
    event: Any,
    ruleset: str,
    language: str,
    sides: Mapping[str, str],
    reader: Seat = SPECTATOR,
    spelled: Iterable[str] = (),
) -> str:
    """One line of the story: ``#7 anna — /fire unit:squadra_1 … → 2 casualties``.

    Who (the display name the event recorded, else a mention), what (the command as typed,
    or the game event in words), and the outcome in the game's language. A command the
    ``reader`` may not read (a hidden unit's move, for anyone but its side and the
    referee) is told without its options or outcome: only who played which command.
    ``spelled``: the game's names in several languages besides its sides' (its units',
    `rules.core.words.spelled_in`), which an outcome kept as plain text names in
    ``language``.
    """
    args = event.args if isinstance(event.args, dict) else {}
    who = str(args.get(ACTOR_NAME_ARG) or (f"<@{event.actor_id}>" if event.actor_id else "—"))
    secret = secret_of(args)
    if secret is not None and not may_read(reader, args):
        if secret == REFEREE_ONLY:
            hidden = translate("bot.log.hidden_referee", language)
        else:
            hidden = translate("bot.log.hidden", language, side=sides.get(secret, secret))
        return f"#{event.seq} {who} — {command_name(event.verb)} {hidden}"
    key = f"bot.log.verb.{event.verb}"
    if has_key(key, language) or has_key(key):
        params = _text_args(args)
        side = params.get("side")
        if side is not None and side in sides:  # "joined Allies", not the side's id
            params["side"] = in_language(sides[side], language)
        if event.undoes_seq:
            params["seq"] = str(event.undoes_seq)
        what = translate(key, language, **params)
    else:
        shown = {k: v for k, v in args.items() if k not in EVENT_ARGS}
        what = command_name(event.verb) + "".join(f" {k}:{v}" for k, v in shown.items())
    names = [*sides.values(), *spelled]
    outcomes = []
    for item in event.resolution or []:
        if isinstance(item, dict) and "outcome" in item and part_readable(reader, item):
            try:
                resolution = Resolution.from_json(item)
            except (ValueError, TypeError, KeyError):
                continue
            outcomes.append(
                outcome_text(resolution.ruleset or ruleset, resolution.outcome, language, names)
            )
    result = result_of(event)
    if result is not None:  # the command that ended the game: its result closes the line
        outcomes.append(outcome_text(ruleset, result.summary, language, names))
    line = f"#{event.seq} {who} — {what}"
    acted_for = args.get(ACTED_FOR_ARG)
    if acted_for:
        side = sides.get(str(acted_for), str(acted_for))
        line += " " + translate("bot.acted_for", language, side=side)
    if outcomes:
        line += " → " + f"{semicolon(language)} ".join(dict.fromkeys(outcomes))
    return line


def _text_args(args: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in args.items() if isinstance(v, str | int | float)}


__all__ = [
    "ACTED_FOR_ARG",
    "ACTOR_NAME_ARG",
    "ACTOR_SIDE_ARG",
    "BY_HAND_ARG",
    "EVENT_ARGS",
    "HISTORY_VERBS",
    "PUBLIC_ARGS",
    "REFEREE_ONLY",
    "RESULT_ARG",
    "SAME_DOCUMENT_VERBS",
    "SEAT_APPROVE",
    "SEAT_ASSIGN",
    "SEAT_BIND",
    "SEAT_INVITE",
    "SEAT_JOIN",
    "SEAT_LEAVE",
    "SEAT_REFEREE",
    "SEAT_REMOVE",
    "SEAT_REQUEST",
    "SECRET_ARG",
    "VERB_CONFIRM",
    "VERB_DISPUTE",
    "VERB_REPLAYED",
    "VERB_REROLL",
    "VERB_REWIND",
    "VERB_ROLL",
    "VERB_TYPED",
    "command_event",
    "event_line",
    "may_read",
    "part_readable",
    "people",
    "plain_event",
    "plain_mentions",
    "recorded_roll",
    "recorded_rolls",
    "resolutions_of",
    "result_of",
    "roll_event",
    "seat_event",
    "secret_among",
    "secret_of",
    "with_result",
]


#: A Discord mention in a line of text, as the service writes them.
_MENTION = re.compile(r"<@!?(\d+)>")
#: A channel mention, as the service writes them inside a server.
_CHANNEL = re.compile(r"<#(\d+)>")


def people(events: Sequence[EventRecord]) -> dict[int, str]:
    """The display names the events recorded for their actors (a page names people as
    they were named when they played: a Discord id means nothing on the web)."""
    return {
        event.actor_id: str(event.args[ACTOR_NAME_ARG])
        for event in events
        if event.actor_id and isinstance(event.args, dict) and event.args.get(ACTOR_NAME_ARG)
    }


def plain_mentions(text: str, names: Mapping[int, str]) -> str:
    """``text`` with Discord's mentions of people and channels as a page shows them."""
    text = _MENTION.sub(lambda m: names.get(int(m.group(1))) or f"@{m.group(1)}", text)
    return _CHANNEL.sub(lambda m: f"#{m.group(1)}", text)
