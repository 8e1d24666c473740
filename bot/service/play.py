"""Playing: the rulesets' commands, typed dice and dice prompts, odds, free rolls.

A ruleset verb (``/move``, ``/fire``…) is resolved in one hop to the rules workers — whose
move it was, the command, what the new state offers and awaits, the picture, and the new
document prepared for the store — then committed with its event in one transaction.
Physical dice typed by the player serve only the acting side's rolls; when they run out the
command is kept (a pending roll) and the roller is asked for the next die (``dice.roll``
answers it and runs the command again, one die further: :mod:`bot.service.rolls`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from bot.commands import DIE_ANSWER
from bot.service.closing import close_game
from bot.service.errors import ServiceError, command_name, not_now
from bot.service.events import (
    ACTED_FOR_ARG,
    ACTOR_NAME_ARG,
    REFEREE_ONLY,
    SECRET_ARG,
    VERB_TYPED,
    command_event,
    event_line,
    resolutions_of,
    result_of,
    roll_event,
    secret_of,
)
from bot.service.handlers import Call, GameCall, GameHandler, Handler, Who
from bot.service.help import command_names
from bot.service.maps import channel_map, command_marks, status_caption, with_caption
from bot.service.redaction import Unseen, kept_apart, told_apart
from bot.service.replies import PlayReply, Reply, ResultView, RollReply
from bot.service.requests import (
    Request,
    int_option,
    member_side,
    players_among,
    seat_among,
)
from bot.service.rolls import DicePrompt, answered_face, refusal_whatever_the_dice, typed_faces
from bot.service.stored.dice import (
    PendingRoll,
    drop_pending_roll,
    pending_roll,
    save_pending_roll,
)
from bot.service.stored.table import TableContext, open_table
from bot.service.suggest import with_suggestions
from db.chain.prepare import PreparedEvent, prepare_event
from db.errors import GameNotFound
from db.models import NewEvent, PreparedState
from rules.core.battlefield import MapView
from rules.core.declaration import declarations
from rules.core.dice import (
    DiceSource,
    DiceTray,
    ReplayingDice,
    ScriptedDice,
    SystemDice,
    parse_faces,
)
from rules.core.errors import (
    DiceError,
    DiceNeeded,
    IllegalAction,
    InvalidInput,
    RulesError,
    UnknownName,
)
from rules.core.expression import RollResult, roll_with_odds
from rules.core.play import FollowUp, Played, StatusView, read_by
from rules.core.resolution import Outcome
from rules.core.score import GameResult
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.core.surface import Rules
from rules.core.words import id_named, spelled_in

#: A preview: the command resolved with odds, nothing rolled for real, nothing logged.
ODDS = "odds"
#: The free roll, with or without a game in the channel.
FREE_ROLL = "roll"

#: The rulesets' commands whose replies carry the picture of the table: what moves a unit
#: or fires (directly, or by indirect fire: requests and executions), as each declares.
MAP_VERBS: tuple[str, ...] = tuple(
    dict.fromkeys(v for d in declarations() for v, declared in d.verbs.items() if declared.map)
)
#: The rulesets' other commands (each ruleset takes some of them: its ``verbs()``).
RULESET_VERBS: tuple[str, ...] = tuple(
    dict.fromkeys(v for d in declarations() for v in d.verbs if v not in MAP_VERBS)
)


async def free_roll(call: Call) -> Reply:
    """``/roll 2d6+1``: free dice, logged in the channel's game when there is one.

    Counted by the log's rate limit (`bot.service.limits`: tighter without a seat). Parsing,
    rolling and the odds run on the rules thread, the odds once for every renderer
    (an expression whose odds would cost too much rolls without them, at once).
    """
    request, services = call.request, call.services
    try:
        context: TableContext | None = await open_table(call.store, request.channel_id)
    except GameNotFound:
        context = None
    record = context.record if context is not None else None
    seat = (
        seat_among(request, context.members, context.side_roles)
        if context is not None
        else SPECTATOR
    )
    services.limiter.admit(request.channel_id, request.user_id, seated=seat.seated)
    language = record.language if record is not None else services.known(request.locale)
    dice: DiceSource = services.dice
    if request.dice:
        dice = ScriptedDice(parse_faces(request.dice), by_hand=True)
    text = str(request.options.get("expression", ""))

    def roll() -> RollResult:
        result = roll_with_odds(text, DiceTray(dice))
        if isinstance(dice, ScriptedDice):
            dice.ensure_consumed()
        return result

    result = await services.off_loop(roll)
    reply = RollReply(
        language=language,
        ruleset=record.ruleset if record is not None else "",
        roll=result,
        by_hand=bool(request.dice),
    )
    if record is not None and record.status != "ended":
        committed = await call.store.commit(
            request.channel_id, record.version, record.document, roll_event(request, result)
        )
        reply.seq = committed.seq
        reply.head_hash = committed.event.hash
    return reply


async def ruleset_verb(call: GameCall) -> Reply:
    """A command of the channel's ruleset, for the asker's seat."""
    if call.request.dice and call.request.verb != ODDS:
        # Only dice typed again can replace a roll the player typed (one more read: a
        # command without typed dice keeps its two round trips).
        await _refuse_a_replaced_roll(call)
    return await play_verb(call, call.request)


async def _refuse_a_replaced_roll(call: GameCall) -> None:
    """A command waiting for a die (the last event: its typed dice) is not given again in
    place of the die: the dice typed for it stand, and the die it waits for is owed."""
    request, record = call.request, call.record
    if record.version < 1:
        return
    last = await call.store.events(request.channel_id, after_seq=record.version - 1, limit=1)
    if not last or last[0].verb != VERB_TYPED:
        return
    args = last[0].args if isinstance(last[0].args, dict) else {}
    same_unit = args.get("unit") in (None, request.options.get("unit"))
    if args.get("verb") == request.verb and same_unit:
        raise ServiceError(
            "error.service.die_owed",
            command=command_name(request.verb),
            faces=str(args.get("faces", "")),
            die=str(args.get("die", "")),
        )


async def play_verb(
    call: GameCall,
    request: Request,
    typed: list[int] | None = None,
    bot_faces: Sequence[int] = (),
) -> PlayReply:
    """Resolve a rules verb and commit it, or ask the roller for one more die.

    ``typed`` are the player's faces (parsed from ``request.dice`` when not given),
    ``bot_faces`` the bot's faces of an earlier run of the same command, replayed.
    """
    rules, seat, document, context = call.rules, call.seat, call.document, call.context
    store, services, game = call.store, call.services, call.game
    record = context.record
    reply = PlayReply(language=record.language, ruleset=record.ruleset, head_hash=record.head_hash)
    if seat.public:  # a member at no side yet
        raise ServiceError("error.service.join_first")
    odds_only = request.verb == ODDS
    if typed is None and request.dice and not odds_only:
        zero_is_ten = services.ruleset(reply.ruleset).zero_reads_as_ten
        typed = typed_faces(request.dice, zero_reads_as_ten=zero_is_ten)
    dice: DiceSource = services.dice
    # Dice belong to their roller: typed faces serve only the acting side's rolls; the
    # rolls made for another side come from the bot (recorded, for a re-run).
    bot_dice: ReplayingDice | None = None
    if typed is not None:
        dice = ScriptedDice(typed, by_hand=True)
        bot_dice = ReplayingDice(bot_faces, services.dice)

    drawn = call.table.draws_map(request.verb) and not odds_only
    hides_units = services.ruleset(reply.ruleset).hides_units
    pictures: list[MapView | None] = []
    states: list[str] = []  # the caption's first line under each picture

    preparer = getattr(store, "preparer", None)
    prepared: list[PreparedState] = []
    events: list[PreparedEvent] = []

    ending: list[GameResult] = []  # the result, when this command ends the game
    acting: list[Request] = []  # the request as played: no name hidden from the seat
    public: list[StatusView] = []  # a secret command's status, as the channel sees it
    own_side = member_side(context.members, request.user_id)

    def acted_for(waiting: str | None) -> str | None:
        # The referee playing the move of a side they did not join plays it for that side.
        return None if waiting == own_side else waiting

    def rules_pass() -> tuple[str | None, Played, _FollowUps, str | None]:
        # One hop to the rules thread for everything the rules say about this command:
        # whose move it was, the command, then what the new state offers and awaits
        # (asked of the state the command left, not validated again), whether it ended
        # the game, the picture, and the new document encoded for the store (its commit
        # then needs no hop of its own).
        view_before = game.view(REFEREE)
        waiting = view_before.awaiting
        if not odds_only and view_before.result is not None:
            raise _AlreadyOver  # its end is not in the store yet: see close_game
        # A unit hidden from the seat is, to it, a unit that does not exist. Which units
        # are hidden (read from the referee's whole status) is asked only where a unit can
        # be hidden and a name was typed: no other command masks anything.
        named = hides_units and any(isinstance(v, str) for v in request.options.values())
        unseen = Unseen.of(request.options, game.view(seat).hidden_names if named else frozenset())
        acted = replace(request, options=dict(unseen.options)) if unseen.masked else request
        acting.append(acted)
        # Read from the state the command is played on, before the command takes it over.
        marks = command_marks(view_before, acted) if drawn else ()
        try:
            result = game.act(
                seat,
                acted.verb,
                acted.options,
                SystemDice() if odds_only else dice,
                bot_dice,
            )
        except IllegalAction as error:
            # What the seat may do instead is listed here, in the same job and budget.
            raise not_now(rules, document, unseen.refusal(error), seat) from None
        except UnknownName as error:
            # A mistyped name: the closest ones this seat may see, in the same job.
            raise with_suggestions(
                unseen.refusal(error),
                rules,
                record.ruleset,
                document,
                seat,
                request.verb,
                request.options,
            ) from None
        except RulesError as error:
            unseen.refusal(error)  # it names what was typed
            raise
        if odds_only:
            return waiting, result, _FollowUps([], []), None
        # A command that ends the game (the last turn, a sudden death, a concession, the
        # referee's decision): its event carries the result, committed as the end.
        view_after = game.view(REFEREE)  # the state the command left, not read again
        ended = view_after.result
        if ended is not None:
            ending.append(ended)
        if preparer is not None:
            # Diffed against the very text this command read: no memory of documents
            # is needed for it (db.chain.prepare keeps only the few channels used last),
            # nor a parse of it (its document, the store's parse or the kept game's).
            prepared.append(
                preparer.prepare(
                    request.channel_id,
                    result.document,
                    base_text=record.document_text,
                    base_document=record.document,
                )
            )
            events.append(
                prepare_event(command_event(acted, seat, acted_for(waiting), typed, result, ended))
            )
        if drawn or ended is not None:  # the end shows the table, its objectives marked
            view = channel_map(game, reply.ruleset, reply.language)
            if view is not None and marks:
                view = view.model_copy(update={"overlays": (*view.overlays, *marks)})
            pictures.append(view)
            # The caption's first line, under a picture only (the status it reads costs as
            # much as dumping the state; a table without a battlefield has no picture).
            status = view_after.status if view is not None else None
            states.append(
                "" if status is None else status_caption(status, reply.ruleset, reply.language)
            )
        if result.secret_for is not None:  # what the channel sees of it
            public.append(game.view(SPECTATOR).status)
        # The buttons the channel is shown name no hidden unit (a hidden unit's owed
        # morale test would): the referee's, all of them, go to a secret command's giver.
        every = view_after.follow_ups
        shown = game.view(SPECTATOR).follow_ups if every else []
        return waiting, result, _FollowUps(every, shown), view_after.awaiting

    try:
        before, played, follow_ups, after = await services.off_loop(rules_pass)
    except _AlreadyOver:
        await close_game(call, record.version)
        raise ServiceError("error.service.game_ended") from None
    except DiceNeeded as needed:
        if typed is None or bot_dice is None or needed.source is not dice:
            raise  # not the player's typed faces (scripted bot dice): a plain refusal
        return await _ask_for_die(call, request, reply, needed, typed, bot_dice.faces)
    except DiceError as error:
        if typed is None or error.key != "error.dice.impossible_face":
            raise
        # A face that does not fit may only mean the rules refuse the command anyway
        # (the dice were meant for a path it never takes): then say the rules' reason.
        await services.off_loop(
            _raise_rules_refusal, rules, document, acting[0], seat, typed, bot_faces
        )
        raise
    if isinstance(dice, ScriptedDice) and not odds_only:
        dice.ensure_consumed()
    reply.resolutions = played.resolutions
    reply.notices = played.notices
    if odds_only:
        reply.odds_only = reply.private = True  # shown to the asker only
        # A preview shows what is uncertain: checks that cannot fail (a target in sight)
        # are left out, and the main roll is always kept.
        uncertain = [r for r in played.resolutions if r.odds and len(r.odds.entries) > 1]
        reply.resolutions = uncertain or played.resolutions[-1:]
        return reply
    ended = ending[0] if ending else None
    event = (
        events[0]
        if events
        else command_event(acting[0], seat, acted_for(before), typed, played, ended)
    )
    if ACTED_FOR_ARG in event.args:
        reply.acted_for = before

    def sides_now() -> Mapping[str, str]:
        # Read where a reply names a side (a secret command's notice), not for every reply.
        return rules.sides(document)

    if typed is not None:
        reply.by_hand = True
    result = await store.commit(
        request.channel_id, record.version, prepared[0] if prepared else played.document, event
    )
    reply.seq = result.seq
    reply.head_hash = result.event.hash
    if result.duplicate:
        reply.duplicate = True
        reply.resolutions = resolutions_of(result.event)
        earlier = result_of(result.event)
        if earlier is not None:
            reply.result = ResultView(earlier, rules.sides(document))
        return _kept_secret(reply, seat, result.event, request.verb, sides_now)
    reply.follow_ups = follow_ups.every
    if ended is None and game.document is played.document:
        # The handle holds the state it left, whose document is the one just stored: the
        # channel's next command takes it back rather than validate it again.
        services.kept.keep(request.channel_id, result.version, result.event.hash, game)
    if pictures and pictures[-1] is not None:
        # Under the picture, the command and its outcome as the channel may read them.
        line = event_line(
            result.event,
            reply.ruleset,
            reply.language,
            rules.sides(document),
            spelled=spelled_in(document),
        )
        reply.map_view = with_caption(pictures[-1], line, states[-1])
    if ended is not None:
        closed = await close_game(call, result.version)
        if closed is not None:
            reply.head_hash = closed.event.hash
        # The result is shown once, as the result (the rules also give it as a notice);
        # everyone at the table is told, the opponent of a concession first of all.
        reply.result = ResultView(ended, rules.sides(document))
        reply.notices = [n for n in reply.notices if n != ended.summary]
        reply.follow_ups = []
        reply.ping = [m.user_id for m in context.members if m.user_id != request.user_id]
        reply.names = _names_of(reply.ping, context.seat_names)
        return kept_apart(reply, seat)
    if after is not None and after != before:
        reply.ping = players_among(context.members, after)
    reply.names = _names_of(reply.ping, context.seat_names)
    seen = public[0] if public else None
    return _kept_secret(reply, seat, result.event, request.verb, sides_now, seen, follow_ups.shown)


def _names_of(users: Sequence[int], recorded: Mapping[int, str]) -> dict[int, str]:
    """The display names recorded for the players a reply calls on, for the front ends
    that cannot resolve a mention (the console shows "@bruno", not a number)."""
    return {user: recorded[user] for user in users if user in recorded}


def _kept_secret(
    reply: PlayReply,
    seat: Seat,
    event: Any,
    verb: str,
    sides: Callable[[], Mapping[str, str]],
    seen: StatusView | None = None,
    shown: list[FollowUp] | None = None,
) -> PlayReply:
    """A command that tells where a hidden unit is: the reply goes to its asker only, and
    the channel is shown that a hidden unit acted — with the buttons it may see
    (``shown``: the channel's; a reply no secret keeps is given them too), the pings, the
    public picture and ``seen`` (the status as the channel sees it after the command: what
    befell a unit it sees), the units it sees that the command named (a sniper's target),
    and nothing of the options, dice or outcome. A command no secret keeps may still
    carry parts a side keeps for itself (``kept_apart``)."""
    secret = secret_of(event.args)
    if secret is None:  # the channel's buttons for the channel's reply
        return kept_apart(reply, seat, shown)
    reply.resolutions, reply.notices = read_by(seat, reply.resolutions, reply.notices)
    named = {str(value) for value in event.args.values() if isinstance(value, str)}
    acted_on = [u.name for u in seen.units if u.id in named] if seen is not None else []
    notice = Outcome.of(
        "bot.log.hidden_played_on" if acted_on else "bot.log.hidden_played",
        command=command_name(verb),
        side=sides().get(secret, secret),
        units=", ".join(acted_on),
    )
    return told_apart(
        reply,
        Outcome.of("bot.log.hidden_private"),
        follow_ups=reply.follow_ups if shown is None else shown,
        notices=[notice],
        status=seen,
    )


class _FollowUps(NamedTuple):
    """The buttons after a command: ``every`` one (the referee's, and a secret command's
    giver's) and those ``shown`` in the channel (none naming a unit hidden from it)."""

    every: list[FollowUp]
    shown: list[FollowUp]


class _AlreadyOver(Exception):
    """The game's state has its result but the store has not marked it ended."""


async def _ask_for_die(
    call: GameCall,
    request: Request,
    reply: PlayReply,
    needed: DiceNeeded,
    typed: list[int],
    bot_faces: Sequence[int],
) -> PlayReply:
    """Typed faces ran out: keep the command and ask its roller for the next die.

    Nothing is committed. A command the rules refuse whatever the dice is refused now,
    with the rules' reason, rather than after the player has rolled for it.
    """
    seat, rules = call.seat, call.services.ruleset(call.record.ruleset).rules
    await call.services.off_loop(
        _raise_rules_refusal, rules, call.document, request, seat, typed, bot_faces
    )
    version = call.record.version
    secret = await _typed_in_secret(call, request, seat)
    if request.dice and typed:
        # The faces the player typed are on the record from now on, for every seat to
        # read (but a hidden unit's: its side's): the command cannot be given again with
        # other dice (`ruleset_verb`).
        version = await _record_typed(call, request, typed, needed, secret)
    pending = await save_pending_roll(
        call.store,
        PendingRoll(
            channel_id=request.channel_id,
            user_id=request.user_id,
            version=version,
            verb=request.verb,
            options=dict(request.options),
            faces=list(typed),
            bot_faces=list(bot_faces),
            die_sides=needed.sides,
            label=needed.label,
            side=seat.side,
        ),
    )
    reply.dice_prompt = DicePrompt(
        prompt_id=pending.id,
        user_id=request.user_id,
        side=seat.side,
        verb=request.verb,
        sides=needed.sides,
        label=needed.label,
        faces=tuple(typed),
    )
    # The prompt names the roll (its weapon's row): a hidden unit's is its giver's alone.
    reply.private = reply.private or secret is not None
    return reply


async def _typed_in_secret(call: GameCall, request: Request, seat: Seat) -> str | None:
    """Who alone may read the dice typed for ``request`` while it waits for a die (None:
    everyone): a command naming a unit hidden from the channel, typed by its id or its name,
    is its side's, as the command will be once it runs (the referee's typing: the
    referee's alone, the rules say whose the unit is)."""
    if not call.services.ruleset(call.record.ruleset).hides_units:
        return None
    game = call.game

    def names_a_hidden_unit() -> bool:
        hidden = game.view(SPECTATOR).hidden_names
        if not hidden:
            return False
        known = game.view(seat).labels("unit")
        typed = (v for v in request.options.values() if isinstance(v, str))
        return any(id_named(known, part) in hidden for v in typed for part in v.split(","))

    if not await call.services.off_loop(names_a_hidden_unit):
        return None
    return seat.side if seat.side is not None and not seat.referee else REFEREE_ONLY


async def _record_typed(
    call: GameCall,
    request: Request,
    typed: Sequence[int],
    needed: DiceNeeded,
    secret: str | None,
) -> int:
    """Log the dice typed for a command that waits for one more die; the new version."""
    args: dict[str, Any] = {
        "verb": request.verb,
        "command": command_name(request.verb),
        "faces": ", ".join(str(face) for face in typed),
        "die": f"D{needed.sides}",
    }
    if secret is not None:
        args[SECRET_ARG] = secret
    if request.options.get("unit") is not None:
        args["unit"] = str(request.options["unit"])
    if request.user_name:
        args[ACTOR_NAME_ARG] = request.user_name[:60]
    # No interaction id: the command's own event, once it runs, carries it.
    event = NewEvent(verb=VERB_TYPED, args=args, actor_id=request.user_id)
    record = call.record
    committed = await call.store.commit(request.channel_id, record.version, record.document, event)
    return committed.version


def _raise_rules_refusal(
    rules: Rules,
    document: Mapping[str, Any],
    request: Request,
    seat: Seat,
    typed: Sequence[int],
    bot_faces: Sequence[int],
) -> None:
    """Raise the rules' refusal of the command if no dice can avoid it (else nothing)."""
    refusal = refusal_whatever_the_dice(
        rules, document, request.verb, request.options, seat, typed, bot_faces
    )
    if isinstance(refusal, IllegalAction):
        raise not_now(rules, document, refusal, seat)
    if refusal is not None:
        raise refusal


async def answer_die(call: GameCall) -> Reply:
    """The roller gives the next face: run the waiting command again, one die further."""
    request, store, record = call.request, call.store, call.record
    prompt_id = int_option(request.options, "prompt", 0, 1, 2**62)
    pending = await pending_roll(store, request.channel_id, prompt_id)
    position = request.options.get("n")
    if pending is None or (position is not None and str(position) != str(len(pending.faces) + 1)):
        raise ServiceError("error.service.roll_gone")
    if pending.user_id != request.user_id:
        raise ServiceError("error.service.not_your_roll")
    if record.version != pending.version or record.status == "ended":
        await drop_pending_roll(store, request.channel_id, prompt_id)
        raise ServiceError("error.service.roll_expired", command=command_name(pending.verb))
    if "face" not in request.options:
        raise InvalidInput("error.service.one_face", die=f"D{pending.die_sides}")
    face = answered_face(
        str(request.options["face"]),
        pending.die_sides,
        pending.label,
        len(pending.faces) + 1,
        zero_reads_as_ten=call.services.ruleset(record.ruleset).zero_reads_as_ten,
    )
    # The prompt is answered: the re-run either commits or asks for the next die anew.
    await drop_pending_roll(store, request.channel_id, prompt_id)
    command = replace(request, verb=pending.verb, options=pending.options, dice=None)
    return await play_verb(call, command, typed=[*pending.faces, face], bot_faces=pending.bot_faces)


def not_in_ruleset(rules: Rules, verb: str, ruleset: str) -> UnknownName:
    """The refusal of a verb the channel's ruleset lacks, with the commands it has, as
    players type them (``/game …`` left out)."""
    return UnknownName(
        "error.service.not_in_ruleset",
        name=command_name(verb)[:40],
        ruleset=ruleset,
        known=", ".join(f"/{name}" for name in command_names(rules) if not name.startswith("game")),
    )


HANDLERS = (
    Handler((FREE_ROLL,), run=free_roll),
    GameHandler(
        MAP_VERBS,
        draws_map=True,
        who=Who.SEATED,
        after_end=False,
        ruleset_verb=True,
        run=ruleset_verb,
    ),
    GameHandler(
        RULESET_VERBS, who=Who.SEATED, after_end=False, ruleset_verb=True, run=ruleset_verb
    ),
    GameHandler(
        (ODDS,),
        read_only=True,
        who=Who.SEATED,
        after_end=False,
        ruleset_verb=True,
        run=ruleset_verb,
    ),
    GameHandler((DIE_ANSWER,), run=answer_die),
)

#: Verbs no feature declares go here: the channel's ruleset plays them (a verb of its
#: own) or they are refused with the commands it has.
FALLBACK = GameHandler((), who=Who.SEATED, after_end=False, ruleset_verb=True, run=ruleset_verb)

__all__ = [
    "DIE_ANSWER",
    "FALLBACK",
    "FREE_ROLL",
    "HANDLERS",
    "MAP_VERBS",
    "ODDS",
    "RULESET_VERBS",
    "answer_die",
    "free_roll",
    "not_in_ruleset",
    "play_verb",
]
