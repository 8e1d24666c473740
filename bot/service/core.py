"""The service core: typed requests in, replies out. No Discord here, and no rule.

For every request: take the channel's lock, find the verb's handler in the table, read the
game with the command (one round trip: the game, the seats, and whether this interaction
was already answered), check what the handler declares (the game's end, who may call it),
and run it between the features' reactions: the guards that may refuse it first, the
followers once it has committed, then the listeners of what it declared notable. A write
that lost a race with another bot process runs again on the new state; a retried
interaction gets its original answer. The features
themselves (playing, seats, the game's life, history, deadlines, views, campaigns) live in
their own modules, each declaring its handlers and reactions (:mod:`bot.service.handlers`);
``docs/architecture.md`` shows the layout.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from bot.commands import CommandSpec
from bot.service import (
    campaign,
    deadlines,
    history,
    lifecycle,
    notices,
    play,
    results,
    seats,
    views,
    web,
)
from bot.service.channel_locks import ChannelLocks
from bot.service.errors import ServiceError
from bot.service.events import resolutions_of, result_of
from bot.service.handlers import (
    REQUEST_CHANNEL,
    Call,
    Due,
    GameCall,
    GameHandler,
    Handler,
    HandlerTable,
    Services,
    Who,
    Written,
)
from bot.service.integrity import refusal_of
from bot.service.limits import LogLimiter, LogLimits
from bot.service.replies import PlayReply, Reply, ResultView
from bot.service.requests import Request, seat_among
from bot.service.stored.seat_names import note_seat_name
from bot.service.stored.table import open_table
from bot.service.workers import DEFAULT_WORKERS, ChannelWorkers
from db.errors import GameNotFound, StoreError, VersionConflict
from db.models import EventRecord, GameRecord
from db.protocol import GameStore
from rules.core.dice import DiceSource, SystemDice
from rules.core.errors import InvalidInput
from rules.core.i18n import LANGUAGES
from rules.core.resolution import Outcome
from rules.core.seatview import SPECTATOR, Seat

log = logging.getLogger("bot.service")

#: Every handler and reaction of every feature. A new feature adds its module's ``HANDLERS``
#: (and ``REACTIONS``) here.
TABLE = HandlerTable(
    *lifecycle.HANDLERS,
    *results.HANDLERS,
    *seats.HANDLERS,
    *views.HANDLERS,
    *history.HANDLERS,
    *deadlines.HANDLERS,
    *campaign.HANDLERS,
    *web.HANDLERS,
    *notices.HANDLERS,
    *play.HANDLERS,
    fallback=play.FALLBACK,
    # The notices first: their timer sees a deadline before its reminder is claimed; the
    # roster's status part before the deadlines'.
    reactions=(*notices.REACTIONS, *seats.REACTIONS, *deadlines.REACTIONS, *campaign.REACTIONS),
)

#: The service's own verbs (not a ruleset's), the free roll aside.
GAME_VERBS = tuple(
    verb
    for verb in TABLE.verbs()
    if not TABLE.handler(verb).ruleset_verb and verb != play.FREE_ROLL
)

#: Longest text of one option, and most options in one request.
MAX_OPTION_TEXT = 200
MAX_OPTIONS = 30
# Runs of a command whose write lost a race with another bot process (see _answer).
CONFLICT_ATTEMPTS = 12
CONFLICT_BACKOFF_S = 0.005
CONFLICT_BACKOFF_MAX_S = 0.25


class GameService:
    """Runs commands for every channel against a store."""

    def __init__(
        self,
        store: GameStore,
        dice: DiceSource | None = None,
        *,
        language: str = "it",
        workers: int = DEFAULT_WORKERS,
        limits: LogLimits | LogLimiter | None = None,
        table: HandlerTable = TABLE,
    ) -> None:
        """``language``: the language of a game created without one, and of answers outside
        any game to an asker whose own language is unknown (``ARBITRO_LANGUAGE``);
        ``workers``: the threads rules work runs on (bot.service.workers); ``limits``: how often
        anyone may add to a channel's log (`bot.service.limits`; a limiter is used as it is, with
        its own clock); ``table``: the handlers (every feature's, by default)."""
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: one of {', '.join(LANGUAGES)}")
        self._store = store
        # Every question to the rules runs off the event loop, on a few threads, one job
        # per channel at a time (bot.service.workers): a slow channel holds neither the loop nor
        # another channel's commands and reads. Free rolls and joins are rate limited per
        # user and channel, shared by every front end.
        self._services = Services(
            store,
            dice or SystemDice(),
            language,
            limits if isinstance(limits, LogLimiter) else LogLimiter(limits),
            ChannelWorkers(workers),
        )
        self._table = table
        # A channel's commands one at a time; a lock lives while commands hold or await it.
        self._locks = ChannelLocks()
        # Timing only (retry jitter), never dice: a private generator, seeded by the OS.
        self._jitter = random.Random()

    @property
    def default_language(self) -> str:
        """The language of a game created without one, and of answers to an asker whose
        own language is unknown."""
        return self._services.language

    async def handle(self, request: Request) -> Reply:
        """Run one request; raise :class:`RulesError` (user-safe) to refuse it."""
        if len(request.options) > MAX_OPTIONS or any(
            isinstance(v, str) and len(v) > MAX_OPTION_TEXT for v in request.options.values()
        ):
            raise InvalidInput("error.service.option_too_long", limit=MAX_OPTION_TEXT)
        # Front ends send every option of a shared command; the unset ones mean nothing.
        given = {k: v for k, v in request.options.items() if v is not None and v != ""}
        if len(given) != len(request.options):
            request = replace(request, options=given)
        async with self._locks.hold(request.channel_id):
            channel = REQUEST_CHANNEL.set(request.channel_id)
            try:
                return await self._answer(request)
            except VersionConflict:
                raise ServiceError("error.service.conflict") from None
            except GameNotFound:
                raise ServiceError("error.service.no_game") from None
            except StoreError as error:
                refusal = refusal_of(error)
                if refusal is not None:
                    # A tampered or damaged game is set apart: refused, the others play on.
                    log.error(
                        "refused %s in channel %s: %s", request.verb, request.channel_id, error
                    )
                    raise refusal from None
                key = f"error.{error.key}"
                raise ServiceError(key, **{k: str(v) for k, v in error.params.items()}) from None
            finally:
                REQUEST_CHANNEL.reset(channel)

    async def _answer(self, request: Request) -> Reply:
        """Dispatch, re-checking the command on the new state when another process won.

        The channel lock serializes a channel's commands within this process; another bot
        process (a second shard or host on a shared PostgreSQL) can still commit between
        our read and our write. The store's version guard then refuses ours and nothing was
        written, so the command simply runs again on the new state (or finds that its
        interaction was answered meanwhile). Only a channel contended past every attempt
        reaches the player as a conflict.
        """
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            try:
                return await self._dispatch(request)
            except VersionConflict:
                if attempt == CONFLICT_ATTEMPTS:
                    raise
                # Jitter so two processes that collided do not collide again in lockstep.
                # Exponential (capped): a channel hammered by several processes settles.
                ceiling = min(CONFLICT_BACKOFF_MAX_S, CONFLICT_BACKOFF_S * 2**attempt)
                await asyncio.sleep(self._jitter.uniform(0, ceiling))
        raise AssertionError("unreachable")

    async def _dispatch(self, request: Request) -> Reply:
        """Run the verb's handler as it declares: without the game, or on the game read
        with the command (after the checks of its end and of who may call it)."""
        handler = self._table.handler(request.verb)
        if isinstance(handler, Handler):
            return await self._without_game(handler, request)
        # One round trip before any rule runs: the game, whether this interaction was
        # already answered (a retry gets its original result), and the seats.
        kept_games = self._services.kept
        context = await open_table(
            self._store,
            request.channel_id,
            None if handler.read_only else request.interaction_id,
            held=kept_games.held(request.channel_id),
        )
        record = context.record
        # Taken out whatever follows: only a command that ends well gives it back.
        kept = kept_games.take(record)
        if context.earlier is not None:
            return _earlier_reply(request, context.earlier, record)
        if record.is_campaign:
            # A campaign's channel holds its log, not a game: its games have their own.
            raise ServiceError("error.campaign.here", name=str(record.document.get("name", "")))
        rules = self._services.rules(record.ruleset)
        seat = seat_among(request, context.members, context.side_roles)
        # Documents saved by an older release are migrated here, in memory; the next commit
        # stores the current format. A document newer than the code is refused, clearly.
        document = rules.document_format.upgrade(record.document)
        if handler.ruleset_verb and request.verb not in rules.verbs():
            # Answered with the commands this ruleset does have, as players type them.
            raise play.not_in_ruleset(rules, request.verb, record.ruleset)
        if not handler.after_end and record.status == "ended":
            raise ServiceError("error.service.game_ended")
        _check_seat(handler.who, seat)
        call = GameCall(
            request, self._services, self._table, context, rules, document, seat, kept
        )
        for guard in self._table.guards:
            await guard.run(call, handler)
        if not handler.read_only and seat.seated:
            # A seat assigned by someone else gets its holder's name at their first command
            # (before it runs: a command may end or delete the game).
            await note_seat_name(
                self._store,
                request.channel_id,
                request.user_id,
                request.user_name,
                context.seat_names,
            )
        try:
            reply = await handler.run(call)
        except BaseException:
            await self._release_guards(call, handler)
            raise
        if handler.read_only:
            # The game as read, still the store's head: the next command need not validate
            # it again (a command that wrote keeps its own, `play.play_verb`).
            kept_games.keep(request.channel_id, record.version, record.head_hash, call.game)
        else:
            reply.notices.extend(await self._follow(call, handler, reply))
            await self._hear(reply, request.verb)
        return reply

    async def _release_guards(self, call: GameCall, handler: GameHandler) -> None:
        """Give back what the guards took for a command whose handler failed (a claim held
        for a follower that will not run). A failing release is logged: what it held
        expires on its own, and the command's own error is the one to answer."""
        for guard in self._table.guards:
            if guard.release is None:
                continue
            try:
                await guard.release(call, handler)
            except Exception:
                log.exception(
                    "channel %s: %s kept what it held for /%s",
                    call.request.channel_id,
                    guard.name,
                    call.request.verb,
                )

    async def _follow(self, call: GameCall, handler: GameHandler, reply: Reply) -> list[Outcome]:
        """Run the followers of a command that committed to the game, whatever its feature
        (a play, a history command, a decision…): the notices they add to its reply.

        The game after the command is read once, and only when a follower wants this game
        (its ``of``); nothing committed (same version) means nothing to follow. A failing
        follower is logged: the command has committed and stands."""
        followers = [f for f in self._table.followers if f.of(call.context)]
        if not followers:
            return []
        try:
            after = await self._store.load(call.request.channel_id)
        except StoreError:
            log.exception(
                "channel %s: the game after /%s unread", call.request.channel_id, call.request.verb
            )
            return []
        if after.version == call.record.version:
            return []
        written = Written(call, handler, reply, after)
        notices: list[Outcome] = []
        for follower in followers:
            try:
                notices.extend(await follower.run(written))
            except Exception:  # the command stands; the follower catches up on a later one
                log.exception(
                    "channel %s: %s did not follow /%s",
                    call.request.channel_id,
                    follower.name,
                    call.request.verb,
                )
        return notices

    async def _without_game(self, handler: Handler, request: Request) -> Reply:
        if handler.who is Who.MANAGERS:
            if request.guild_id is None:
                raise ServiceError("error.service.creators.no_server")
            if not request.manages_guild:
                raise ServiceError("error.service.creators.managers_only")
        if not handler.read_only and request.interaction_id is not None:
            # A retried interaction gets its original result, before any rule looks at
            # the state it changed.
            event = await self._store.event_by_interaction(request.interaction_id)
            if event is not None:
                record = await self._store.load(request.channel_id)
                return _earlier_reply(request, event, record)
        reply = await handler.run(Call(request, self._services, self._table))
        if not handler.read_only:
            await self._hear(reply, request.verb)
        return reply

    async def _hear(self, reply: Reply, what: str) -> None:
        """Let the listeners hear what ``reply`` declares notable (a command's, once it
        committed and its followers ran; a timer's, before it is posted). A failing
        listener is logged: what was written stands."""
        if not reply.notable:
            return
        for listener in self._table.listeners:
            try:
                await listener.run(self._services, reply)
            except Exception:  # a notice lost, never the command
                log.exception("%s did not hear %s", listener.name, what)

    # -- what the front ends ask besides commands ------------------------------------------

    async def language(self, channel_id: int) -> str | None:
        """The language of the channel's game (None when there is none or it cannot be read)."""
        return await self._services.game_language(channel_id)

    async def commands(self, channel_id: int) -> list[CommandSpec]:
        """The channel's commands as its ruleset declares them (`views.commands_of`)."""
        return await views.commands_of(self._services, channel_id)

    async def choices(self, channel_id: int, user_id: int, kind: str, typed: str) -> list[str]:
        """Autocomplete values from the channel's state (at most 25)."""
        return await views.choices(self._services, channel_id, user_id, kind, typed)

    async def due_reminders(
        self,
        now: datetime | None = None,
        *,
        owns_guild: Callable[[int | None], bool] | None = None,
    ) -> Due:
        """What the features' timers find due at ``now`` (games' deadlines, campaigns'
        dates…): replies to post, each claimed once across bot processes. A failing timer
        is logged and the others still run."""
        moment = now or datetime.now(UTC)
        replies: Due = []
        for timer in self._table.timers:
            try:
                replies += await timer.run(self._services, moment, owns_guild=owns_guild)
            except Exception:  # the next round tries again; the other timers' work goes out
                log.exception("timer %s failed", timer.name)
        for _, reply in replies:
            await self._hear(reply, "a reminder")
        return replies


def _check_seat(who: Who, seat: Seat) -> None:
    """Refuse a seat the handler does not admit."""
    if who is Who.SEATED and not seat.seated:
        raise ServiceError("error.service.join_first")
    if who is Who.REFEREE and not seat.referee:
        raise ServiceError("error.service.referee_only")


def _earlier_reply(request: Request, event: EventRecord, record: GameRecord) -> PlayReply:
    """The answer a retried interaction gets: what its event recorded."""
    if event.channel_id != request.channel_id:
        raise ServiceError("error.service.conflict")
    reply = PlayReply(language=record.language, ruleset=record.ruleset, duplicate=True)
    reply.seq = event.seq
    reply.head_hash = record.head_hash
    # Its asker is not known here and the answer may go to the channel: what every seat
    # may read (a side reads the rest in its log).
    reply.resolutions = resolutions_of(event, SPECTATOR)
    ended = result_of(event)
    if ended is not None:  # the command that ended the game: its result again
        rules = Services.ruleset(record.ruleset).rules
        reply.result = ResultView(ended, rules.sides(record.document))
    return reply


__all__ = ["GAME_VERBS", "TABLE", "GameService"]
