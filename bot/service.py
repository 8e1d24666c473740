"""The application core: typed requests in, replies out. No Discord here.

For every request: take the channel's lock, load the game, check who may do what (the
creator of a game is its referee; players join a side and act only with its units; the
referee may do anything, and acting for a side is marked in the log), resolve through the
ruleset, commit state and event in one transaction with the interaction id, and return a
:class:`Reply` that says what to render, whom to ping, and which buttons to offer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator, Callable, Hashable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, TypeVar

from bot.channel_locks import ChannelLocks
from bot.commands import COMMANDS, OptionType
from bot.deadlines import (
    WARNING_HORIZON,
    follow_the_turn,
    owing_sides,
    warning_due,
    when_text,
)
from bot.export import FileContent, export_files
from bot.games import archive_if_ended, list_lines
from bot.help import command_names, help_lines
from bot.integrity import refusal_of
from bot.limits import LogLimiter, LogLimits
from bot.rolls import DicePrompt, answered_face, refusal_whatever_the_dice, typed_faces
from bot.seats import (
    SEAT_ASSIGN,
    SEAT_BIND,
    SEAT_JOIN,
    SEAT_LEAVE,
    SEAT_REFEREE,
    SEAT_REMOVE,
    TAKEOVER_AFTER,
    mention,
    referee_gone,
    roster_notices,
)
from bot.workers import DEFAULT_WORKERS, ChannelWorkers
from db.archive import read_archive
from db.errors import GameNotFound, StoreError, VersionConflict
from db.export import history_pages
from db.history import ExportHead, StoredVersion
from db.models import (
    CommandContext,
    EventRecord,
    GameRecord,
    Member,
    NewEvent,
    PendingRoll,
    PreparedState,
)
from db.prepare import PreparedEvent, prepare_event
from db.protocol import GameStore
from rules.cli import format_table
from rules.core.battlefield import MapView, Overlay
from rules.core.budget import WorkBudgetExceeded, work_budget
from rules.core.dice import (
    DiceSource,
    DiceTray,
    ReplayingDice,
    Roll,
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
from rules.core.i18n import LANGUAGES, has_key, translate
from rules.core.legal import LegalAction, for_seat, owed, values_of
from rules.core.odds import odds_budget
from rules.core.play import FollowUp, GamePlay, Played, StatusView
from rules.core.resolution import Outcome, Resolution
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.render import outcome_text, value_text

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: A resolution whose odds take longer than this posts without them rather than wait.
ODDS_BUDGET_S = 1.0
#: The rules work one question of a command may take (measuring, listing legal actions,
#: resolving): past it the command is refused (error.budget.exceeded) rather than hold
#: its channel. Odds give up first (the command posts without them). Well under a second,
#: so every answer comes within one with its store round trips.
WORK_BUDGET_S = 0.5
#: A re-roll replays the commands after the re-rolled one: its budget covers a long game.
REPLAY_BUDGET_S = 4 * WORK_BUDGET_S

# The channel of the request being handled: rules work asked for while handling it takes
# that channel's turn on the workers (bot.workers).
_REQUEST_CHANNEL: ContextVar[int | None] = ContextVar("request_channel", default=None)

MAX_OPTION_TEXT = 200
MAX_SCENARIO_BYTES = 256 * 1024  # bytes, as rules.core.scenario counts them
MAX_LOG = 50
# Runs of a command whose write lost a race with another bot process (see _answer).
CONFLICT_ATTEMPTS = 12
CONFLICT_BACKOFF_S = 0.005
CONFLICT_BACKOFF_MAX_S = 0.25
MAX_DEADLINE_HOURS = 24 * 60

# Keys the service adds to a play event's args beside the command's options: the referee
# acting for a side, dice typed by hand, and the seat the command was applied for (absent
# from events of 0.1.0, which replay reads from the members table instead).
ACTED_FOR_ARG = "acted_for"
BY_HAND_ARG = "by_hand"
ACTOR_SIDE_ARG = "actor_side"
ACTOR_NAME_ARG = "actor_name"
EVENT_ARGS = frozenset({ACTED_FOR_ARG, BY_HAND_ARG, ACTOR_SIDE_ARG, ACTOR_NAME_ARG})

GAME_VERBS = (
    "game.new",
    "game.join",
    "game.leave",
    "game.status",
    "game.log",
    "game.export",
    "game.list",
    "game.undo",
    "game.end",
    "game.deadline",
    "game.pace",
    "help",
    "rules.table",
    "turn.status",
    "dice.confirm",
    "dice.dispute",
    "dice.roll",
    "dice.reroll",
    "takeback",
    "game.rewind",
    "game.referee",
    "game.takeover",
    "seat.assign",
    "seat.remove",
    "seat.bind",
    "game.creators",
    "game.map",
)

#: Commands whose replies carry the picture of the table, where the game has one: what
#: moves a unit or fires (directly, or by indirect fire: requests and executions).
MAP_VERBS = frozenset({"move", "fire", "callarty", "execute", "template"})


# Verbs that never commit: nothing to find again when they are retried.
_READ_ONLY_VERBS = frozenset(
    {
        "game.status",
        "turn.status",
        "game.log",
        "game.export",
        "game.list",
        "help",
        "rules.table",
        "odds",
        "game.map",
    }
)


@dataclass(frozen=True, slots=True)
class Request:
    """One command from a front end."""

    channel_id: int
    user_id: int
    verb: str
    options: Mapping[str, Any] = field(default_factory=dict)
    guild_id: int | None = None
    dice: str | None = None
    interaction_id: str | None = None
    attachment: str | None = None
    user_name: str = ""
    #: The asker's language (their Discord locale), for answers outside any game.
    locale: str | None = None
    #: The asker may manage this channel (Discord's Manage Channels): may take over a game
    #: whose referee is gone.
    manages_channel: bool = False
    #: The asker may manage the server (Discord's Manage Server): sets who creates games.
    manages_guild: bool = False
    #: The asker's Discord roles (a side may be bound to one).
    role_ids: tuple[int, ...] = ()


@dataclass
class Reply:
    """What a front end shows after a request."""

    language: str
    resolutions: list[Resolution] = field(default_factory=list)
    notices: list[Outcome] = field(default_factory=list)
    status: StatusView | None = None
    follow_ups: list[FollowUp] = field(default_factory=list)
    ping: list[int] = field(default_factory=list)
    #: Files to attach (or save, at the console): bytes, or a spooled file's path.
    files: dict[str, FileContent] = field(default_factory=dict)
    #: The directory holding the spooled files: the front end removes it once they are
    #: sent or saved (`bot.export.discard`).
    spool: Path | None = None
    lines: list[str] = field(default_factory=list)
    #: The catalogue key naming ``lines`` (the log, the help, a table…) and whether they are
    #: laid out in columns (a seed table: shown in a fixed-width block).
    lines_title: str = "discord.embed.log"
    preformatted: bool = False
    by_hand: bool = False
    odds_only: bool = False
    seq: int | None = None
    ruleset: str = ""
    acted_for: str | None = None
    duplicate: bool = False
    owed: list[LegalAction] = field(default_factory=list)
    roll: RollResult | None = None
    #: The players of each side that owes something (status replies name them).
    owed_by: dict[str, list[int]] = field(default_factory=dict)
    dice_prompt: DicePrompt | None = None
    #: The hash of the game's chain head after the command (shown short under the reply).
    head_hash: str | None = None
    #: The table to draw under the reply (front ends render it off the event loop, and post
    #: the reply without it if that fails); None where the game has no battlefield.
    map_view: MapView | None = None
    #: Whether ``map_view`` is the channel's picture (no hidden unit may show) or the
    #: asker's own view (shown to the asker only: ``private``).
    map_public: bool = True
    #: The reply is shown to the asker only (``/map mine:true``).
    private: bool = False


class ServiceError(RulesError):
    """A request the service refuses (permissions, no game, storage conflicts)."""

    default_key = "error.service"


class NotNow(IllegalAction):
    """A rules refusal, followed by what the seat may do now (from the legal actions)."""

    def __init__(self, cause: RulesError, may: list[LegalAction], waiting_for: str) -> None:
        self.cause = cause
        self.may = may
        self.waiting_for = waiting_for
        super().__init__(cause.key, **cause.params)

    def localized(self, language: str) -> str:
        """The rules' reason, then the seat's legal commands (or whom the game waits for)."""
        reason = self.cause.localized(language)
        if self.may:
            hint = translate("error.service.you_may", language, actions=commands_hint(self.may))
        else:
            hint = translate("error.service.waiting_for", language, side=self.waiting_for)
        return f"{reason} {hint}"


def command_name(verb: str) -> str:
    """A service verb as the player types it: ``turn.next`` → ``/turn next``,
    ``recover`` → ``/morale action:recover`` (read from the one command declaration)."""
    from bot.commands import command_line

    return command_line(verb, {})


def commands_hint(actions: list[LegalAction], limit: int = 6) -> str:
    """``/move (a, b), /fire (a), /turn next``: verbs with their units, short."""
    by_verb: dict[str, list[str]] = {}
    for action in actions:
        units = by_verb.setdefault(action.verb, [])
        if action.unit is not None and action.unit not in units:
            units.append(action.unit)
    parts = []
    for verb, units in list(by_verb.items())[:limit]:
        shown = ", ".join(units[:4]) + (", …" if len(units) > 4 else "")
        parts.append(f"{command_name(verb)} ({shown})" if units else command_name(verb))
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Seat:
    """Who the requester is in this game."""

    role: Literal["referee", "player", "none"]
    side: str | None


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
    ) -> None:
        """``language``: the language of a game created without one, and of answers outside
        any game to an asker whose own language is unknown (``ARBITRO_LANGUAGE``);
        ``workers``: the threads rules work runs on (bot.workers); ``limits``: how often
        anyone may add to a channel's log (`bot.limits`; a limiter is used as it is, with
        its own clock)."""
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: one of {', '.join(LANGUAGES)}")
        self._store = store
        # Free rolls and joins, per user and channel: shared by every front end.
        self._limiter = limits if isinstance(limits, LogLimiter) else LogLimiter(limits)
        self._dice = dice or SystemDice()
        self._language = language
        # A channel's commands one at a time; a lock lives while commands hold or await it.
        self._locks = ChannelLocks()
        # Timing only (retry jitter), never dice: a private generator, seeded by the OS.
        self._jitter = random.Random()
        # Every question to the rules runs off the event loop, on a few threads, one job
        # per channel at a time (bot.workers): a slow channel holds neither the loop nor
        # another channel's commands and reads.
        self._workers = ChannelWorkers(workers)

    async def _on_workers(
        self,
        channel: Hashable | None,
        work: Callable[[], _T],
        *,
        budget_s: float = WORK_BUDGET_S,
    ) -> _T:
        """Run rules work on the workers in ``channel``'s turn (None: a turn of its own),
        bounded by the work budget and its odds by :data:`ODDS_BUDGET_S`."""

        def bounded() -> _T:
            with work_budget(budget_s), odds_budget(ODDS_BUDGET_S):
                return work()

        return await self._workers.run(object() if channel is None else channel, bounded)

    async def _off_loop(self, work: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run rules work for the request being handled, in its channel's turn."""
        return await self._on_workers(_REQUEST_CHANNEL.get(), lambda: work(*args, **kwargs))

    async def _read_off_loop(self, work: Callable[[], _T]) -> _T:
        """Run a read-only question to the rules (the same workers and budget)."""
        return await self._off_loop(work)

    @property
    def default_language(self) -> str:
        """The language of a game created without one, and of answers to an asker whose
        own language is unknown."""
        return self._language

    def _known(self, *candidates: str | None) -> str:
        """The first of ``candidates`` that is a language of the catalogues, else the
        service's own."""
        return next((c for c in candidates if c in LANGUAGES), self._language)

    async def handle(self, request: Request) -> Reply:
        """Run one request; raise :class:`RulesError` (user-safe) to refuse it."""
        if len(request.options) > 30 or any(
            isinstance(v, str) and len(v) > MAX_OPTION_TEXT for v in request.options.values()
        ):
            raise InvalidInput("error.service.option_too_long", limit=MAX_OPTION_TEXT)
        # Front ends send every option of a shared command; the unset ones mean nothing.
        given = {k: v for k, v in request.options.items() if v is not None and v != ""}
        if len(given) != len(request.options):
            request = replace(request, options=given)
        async with self._locks.hold(request.channel_id):
            channel = _REQUEST_CHANNEL.set(request.channel_id)
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
                _REQUEST_CHANNEL.reset(channel)

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

    async def _earlier_answer(self, request: Request) -> Reply | None:
        """A retried interaction gets its original result, before any rule looks at the
        state it changed (a retried /callarty would otherwise find its battery busy)."""
        if request.interaction_id is None or request.verb in _READ_ONLY_VERBS:
            return None
        event = await self._store.event_by_interaction(request.interaction_id)
        if event is None:
            return None
        return self._earlier_reply(request, event, await self._store.load(request.channel_id))

    @staticmethod
    def _earlier_reply(request: Request, event: EventRecord, record: GameRecord) -> Reply:
        if event.channel_id != request.channel_id:
            raise ServiceError("error.service.conflict")
        reply = Reply(language=record.language, ruleset=record.ruleset, duplicate=True)
        reply.seq = event.seq
        reply.head_hash = record.head_hash
        reply.resolutions = [
            Resolution.from_json(item) for item in event.resolution or [] if isinstance(item, dict)
        ]
        return reply

    async def _dispatch(self, request: Request) -> Reply:
        verb = request.verb
        if verb == "game.list":
            return await self._list(request)
        if verb == "game.creators":
            return await self._creators(request)
        if verb in ("help", "rules.table"):
            return await self._help(request)
        if verb == "game.export" and request.options.get("archive") is not None:
            return await self._export_archived(request)
        if verb in ("game.new", "roll"):
            earlier = await self._earlier_answer(request)
            if earlier is not None:
                return earlier
            if verb == "game.new":
                return await self._new_game(request)
            return await self._free_roll(request)
        # One round trip before any rule runs: the game, whether this interaction was
        # already answered (a retry gets its original result), and the seats.
        context = await self._store.open_command(
            request.channel_id,
            None if verb in _READ_ONLY_VERBS else request.interaction_id,
        )
        record = context.record
        if context.earlier is not None:
            return self._earlier_reply(request, context.earlier, record)
        play = self._play(record.ruleset)
        seat = self._seat_among(request, context.members, context.side_roles)
        reply = Reply(language=record.language, ruleset=record.ruleset)
        reply.head_hash = record.head_hash
        if verb == "game.log":
            return await self._log(request, reply)
        if verb == "game.export":
            return await self._export(request, reply, record)
        # Documents saved by an older release are migrated here, in memory; the next commit
        # stores the current format. A document newer than the code is refused, clearly.
        document = play.load_document(record.document)
        if verb in ("game.join", "game.leave") and record.status == "ended":
            raise ServiceError("error.service.game_ended")
        if verb == "game.join":
            if seat.role == "none":  # anyone may join: the log's rate limit applies
                self._limiter.admit(request.channel_id, request.user_id, seated=False)
            return await self._join(request, play, document, seat, reply)
        if verb == "game.leave":
            return await self._leave(request, play, document, seat, reply)
        if verb in ("seat.assign", "seat.remove", "seat.bind", "game.referee", "game.takeover"):
            if record.status == "ended":
                raise ServiceError("error.service.game_ended")
            return await self._seats(request, play, document, seat, reply, context)
        if verb in ("game.status", "turn.status"):
            ended = record.status == "ended"

            listed = [True]

            def look() -> tuple[StatusView, list[FollowUp], list[LegalAction], MapView | None]:
                # Off the loop, in one pass: listing legal actions can take milliseconds.
                view = public_status(play.status(document))
                picture = with_caption(
                    channel_map(play, document, reply.ruleset, reply.language),
                    "",
                    status_caption(view, reply.ruleset, reply.language),
                )
                if ended:
                    return view, [], [], picture
                try:
                    follow = play.follow_ups(document)
                    return view, follow, owed(play.legal_actions(document)), picture
                except WorkBudgetExceeded:
                    # The state is still shown: only what is owed could not be listed.
                    listed[0] = False
                    return view, [], [], picture

            reply.status, reply.follow_ups, reply.owed, reply.map_view = (
                await self._read_off_loop(look)
            )
            if not listed[0]:
                reply.notices.append(Outcome.of("bot.status.over_budget"))
            if ended:  # ended by the referee: nobody is to move any more
                reply.status = replace(reply.status, ended=True, awaiting=None)
                return reply
            for side in dict.fromkeys(a.side for a in reply.owed if a.side is not None):
                reply.owed_by[side] = _players_among(context.members, side)
            sides = play.sides(document)
            reply.notices += roster_notices(context.members, sides, context.side_roles)
            for deadline in context.deadlines:
                reply.notices.append(
                    Outcome.of(
                        "bot.deadline.due",
                        side=sides.get(deadline.side, deadline.side),
                        when=when_text(deadline.due_at, discord=request.guild_id is not None),
                    )
                )
            return reply
        if verb == "game.map":
            return await self._map(request, play, document, seat, reply)
        if verb in ("game.undo", "game.end", "game.deadline", "game.pace"):
            if seat.role != "referee":
                raise ServiceError("error.service.referee_only")
            return await self._referee(request, play, record.version, document, reply)
        if verb in ("takeback", "game.rewind", "dice.reroll"):
            if record.status == "ended":
                raise ServiceError("error.service.game_ended")
            if verb != "takeback" and seat.role != "referee":
                raise ServiceError("error.service.referee_only")
            return await self._history(request, play, record.version, document, reply, context)
        if verb in ("dice.confirm", "dice.dispute"):
            return await self._dice_check(request, seat, record.version, document, reply)
        if verb == "dice.roll":
            return await self._answer_roll(
                request, play, seat, record, document, reply, context=context
            )
        if verb not in play.verbs():
            # Answered with the commands this ruleset does have, as players type them.
            raise UnknownName(
                "error.service.not_in_ruleset",
                name=command_name(verb)[:40],
                ruleset=record.ruleset,
                known=", ".join(
                    f"/{name}" for name in command_names(play) if not name.startswith("game")
                ),
            )
        if record.status == "ended":
            raise ServiceError("error.service.game_ended")
        if seat.role == "none":
            raise ServiceError("error.service.join_first")
        return await self._play_verb(
            request, play, seat, record.version, document, reply, context=context
        )

    @staticmethod
    def _play(ruleset: str) -> GamePlay:
        play: GamePlay | None = get_ruleset(ruleset).play
        if play is None:
            raise ServiceError("error.service.not_playable", ruleset=ruleset)
        return play

    async def _free_roll(self, request: Request) -> Reply:
        """``/roll 2d6+1``: free dice, logged in the channel's game when there is one.

        Counted by the log's rate limit (`bot.limits`: tighter without a seat). Parsing,
        rolling and the odds run on the rules thread, the odds once for every renderer
        (an expression whose odds would cost too much rolls without them, at once).
        """
        try:
            context: CommandContext | None = await self._store.open_command(request.channel_id)
        except GameNotFound:
            context = None
        record = context.record if context is not None else None
        seat = (
            self._seat_among(request, context.members, context.side_roles)
            if context is not None
            else Seat("none", None)
        )
        self._limiter.admit(request.channel_id, request.user_id, seated=seat.role != "none")
        language = record.language if record is not None else self._known(request.locale)
        dice: DiceSource = self._dice
        if request.dice:
            dice = ScriptedDice(parse_faces(request.dice), by_hand=True)
        text = str(request.options.get("expression", ""))

        def roll() -> RollResult:
            result = roll_with_odds(text, DiceTray(dice))
            if isinstance(dice, ScriptedDice):
                dice.ensure_consumed()
            return result

        result = await self._off_loop(roll)
        reply = Reply(language=language, ruleset=record.ruleset if record is not None else "")
        reply.roll = result
        reply.by_hand = bool(request.dice)
        if record is not None and record.status != "ended":
            event = NewEvent(
                verb="roll",
                args={
                    "expression": result.expression.notation,
                    "total": result.total,
                    "by_hand": bool(request.dice),
                },
                dice=[
                    {"die": r.die.name, "face": r.face, "label": r.label, "by_hand": r.by_hand}
                    for r in result.rolls
                ],
                actor_id=request.user_id,
                interaction_id=request.interaction_id,
            )
            committed = await self._store.commit(
                request.channel_id, record.version, record.document, event
            )
            reply.seq = committed.seq
            reply.head_hash = committed.event.hash
        return reply

    async def _seat(self, request: Request) -> Seat:
        return self._seat_among(request, await self._store.members(request.channel_id))

    @staticmethod
    def _seat_among(
        request: Request,
        members: Sequence[Member],
        side_roles: Sequence[tuple[str, int]] = (),
    ) -> Seat:
        for member in members:
            if member.user_id == request.user_id:
                return Seat(member.role, member.side)
        # Not seated by name: a side bound to one of the asker's roles seats them.
        for side, role in side_roles:
            if role in request.role_ids:
                return Seat("player", side)
        return Seat("none", None)

    # -- game management ------------------------------------------------------------------

    async def _new_game(self, request: Request) -> Reply:
        options = request.options
        ruleset = str(options.get("ruleset") or KNOWN_RULESETS[0])
        language = str(options.get("language") or self._language)
        if language not in LANGUAGES:
            raise InvalidInput(
                "error.service.bad_language", language=language[:10], known=", ".join(LANGUAGES)
            )
        play = self._play(get_ruleset(ruleset).key)
        if (
            request.attachment is not None
            and len(request.attachment.encode("utf-8", "surrogatepass")) > MAX_SCENARIO_BYTES
        ):
            raise InvalidInput("error.service.scenario_too_big", limit=MAX_SCENARIO_BYTES)
        scenario = options.get("scenario")
        if request.attachment is None and scenario and str(scenario) not in play.scenarios():
            raise UnknownName(
                "error.unknown_scenario", name=str(scenario)[:40], known=", ".join(play.scenarios())
            )
        # Parsing an uploaded file is bounded (rules.core.scenario's limits) but not instant:
        # off the event loop, within the work budget.
        document = await self._off_loop(
            play.new_game, str(scenario) if scenario else None, request.attachment
        )
        if request.guild_id is not None and not request.manages_guild:
            needed = await self._store.creator_role(request.guild_id)
            if needed is not None and needed not in request.role_ids:
                raise ServiceError("error.service.creators.role_needed", role=f"<@&{needed}>")
        # The channel's ended game, if any, moves to the archive (still listed and
        # exportable); a game still in play makes create_game refuse below.
        archived = await archive_if_ended(self._store, request.channel_id)
        created = await self._store.create_game(
            request.channel_id,
            guild_id=request.guild_id,
            ruleset=ruleset,
            language=language,
            document=document,
            status="active",
            actor_id=request.user_id,
            interaction_id=request.interaction_id,
            referee_id=request.user_id,
        )
        reply = Reply(language=language, ruleset=ruleset, head_hash=created.head_hash)
        if archived is not None:
            reply.notices.append(Outcome.of("bot.games.archived_previous", id=archived.id))
        reply.notices.append(
            Outcome.of(
                "bot.game.created",
                title=str(document.get("title", "")),
                sides=", ".join(play.sides(document).values()),
            )
        )

        def look() -> tuple[StatusView, MapView | None]:
            view = public_status(play.status(document))
            caption = status_caption(view, ruleset, language)
            return view, with_caption(channel_map(play, document, ruleset, language), "", caption)

        reply.status, reply.map_view = await self._read_off_loop(look)
        return reply

    async def _creators(self, request: Request) -> Reply:
        """``/game creators role:@R``: only members with the role may create games here
        (without a role: anyone again). For the server's managers."""
        if request.guild_id is None:
            raise ServiceError("error.service.creators.no_server")
        if not request.manages_guild:
            raise ServiceError("error.service.creators.managers_only")
        role_id = _role_option(request.options)
        await self._store.set_creator_role(request.guild_id, role_id)
        reply = Reply(language=self._known(request.locale))
        reply.notices.append(
            Outcome.of("bot.games.creators", role=f"<@&{role_id}>")
            if role_id is not None
            else Outcome.of("bot.games.creators_anyone")
        )
        return reply

    async def _help(self, request: Request) -> Reply:
        """``/help [command]`` and ``/rules table:ID``, for the channel's ruleset if a game is
        here (any game, ended too), else for every command / the ruleset named."""
        try:
            record: GameRecord | None = await self._store.load(request.channel_id)
        except GameNotFound:
            record = None
        language = self._known(record.language if record else None, request.locale)
        play = self._play(record.ruleset) if record is not None else None
        reply = Reply(language=language, ruleset=record.ruleset if record is not None else "")
        if request.verb == "help":
            reply.lines_title = "discord.embed.help"
            reply.lines = help_lines(language, str(request.options.get("command") or ""), play)
            return reply
        ruleset_key = str(request.options.get("ruleset") or reply.ruleset or KNOWN_RULESETS[0])
        ruleset = get_ruleset(ruleset_key)
        tables = ruleset.tables
        wanted = str(request.options.get("table") or "")
        reply.lines_title = "discord.embed.table"
        if not wanted:
            reply.lines = [f"{table.id} — {table.title}" for table in tables]
            return reply
        if wanted not in tables:
            raise UnknownName(
                "error.unknown_table",
                name=wanted[:40],
                known=", ".join(table.id for table in tables),
            )
        reply.preformatted = True
        reply.lines = format_table(tables[wanted]).splitlines()
        return reply

    async def _list(self, request: Request) -> Reply:
        """``/game list``: the guild's games, in play and archived."""
        language = self._known(await self.language(request.channel_id), request.locale)
        reply = Reply(language=language)
        reply.lines = await list_lines(
            self._store, request.guild_id, language, in_guild=request.guild_id is not None
        )
        return reply

    async def _join(
        self,
        request: Request,
        play: GamePlay,
        document: Mapping[str, Any],
        seat: Seat,
        reply: Reply,
    ) -> Reply:
        sides = play.sides(document)
        side = _side_named(sides, request.options.get("side"))
        if seat.role == "player" and seat.side is not None and seat.side != side:
            # A side is kept once joined: changing sides mid-game is the referee's call.
            raise ServiceError("error.service.side_kept", side=sides.get(seat.side, seat.side))
        role: Literal["referee", "player"] = "referee" if seat.role == "referee" else "player"
        if seat.side == side and seat.role == role:  # already there: nothing to log
            reply.notices.append(Outcome.of("bot.game.joined", side=sides[side]))
            return reply
        await self._store.add_member(request.channel_id, request.user_id, side=side, role=role)
        await self._log_seat(request, document, SEAT_JOIN, user=request.user_id, side=side)
        reply.notices.append(Outcome.of("bot.game.joined", side=sides[side]))
        return reply

    async def _log_seat(
        self, request: Request, document: Mapping[str, Any], verb: str, **args: Any
    ) -> None:
        """Log a seat change in the game's chain (the document unchanged): the log and the
        export tell who sat where, and when."""
        record = await self._store.load(request.channel_id)
        if request.user_name:
            args[ACTOR_NAME_ARG] = request.user_name[:60]
        event = NewEvent(
            verb=verb, args=args, actor_id=request.user_id, interaction_id=request.interaction_id
        )
        await self._store.commit(request.channel_id, record.version, record.document, event)

    async def _seats(
        self,
        request: Request,
        play: GamePlay,
        document: Mapping[str, Any],
        seat: Seat,
        reply: Reply,
        context: CommandContext,
    ) -> Reply:
        """The referee seats, reseats or removes a player, or hands the game over; a member
        who manages the channel takes over a game whose referee is gone."""
        channel = request.channel_id
        sides = play.sides(document)
        if request.verb == "game.takeover":
            if not request.manages_channel:
                raise ServiceError("error.service.seats.not_manager")
            referees = [m for m in context.members if m.role == "referee"]
            recent = await self._store.events(
                channel, after_seq=max(0, context.record.version - 200), limit=200
            )
            if seat.role == "referee" or not referee_gone(referees, recent, datetime.now(UTC)):
                raise ServiceError(
                    "error.service.seats.referee_here", hours=int(TAKEOVER_AFTER.total_seconds())
                    // 3600
                )
            for member in referees:
                await self._store.add_member(channel, member.user_id, side=None, role="player")
            await self._store.add_member(channel, request.user_id, side=None, role="referee")
            await self._log_seat(request, document, SEAT_REFEREE, user=request.user_id)
            reply.notices.append(Outcome.of("bot.seats.took_over", user=mention(request.user_id)))
            return reply
        if seat.role != "referee":
            raise ServiceError("error.service.referee_only")
        if request.verb == "seat.bind":
            bound = _side_named(sides, request.options.get("side"))
            role_id = _role_option(request.options)
            await self._store.bind_side(channel, bound, role_id)
            await self._log_seat(request, document, SEAT_BIND, side=bound, role=role_id)
            reply.notices.append(
                Outcome.of("bot.seats.bound", side=sides[bound], role=f"<@&{role_id}>")
                if role_id is not None
                else Outcome.of("bot.seats.unbound", side=sides[bound])
            )
            return reply
        user = _int_option(request.options, "user", 0, 1, 2**63 - 1)
        if request.verb == "game.referee":
            if user == request.user_id:
                raise ServiceError("error.service.seats.same_referee")
            await self._store.add_member(channel, user, side=None, role="referee")
            await self._store.add_member(channel, request.user_id, side=None, role="player")
            await self._log_seat(request, document, SEAT_REFEREE, user=user)
            reply.notices.append(Outcome.of("bot.seats.handed_over", user=mention(user)))
            return reply
        if request.verb == "seat.remove":
            if not await self._store.remove_member(channel, user):
                raise ServiceError("error.service.seats.not_seated", user=mention(user))
            await self._log_seat(request, document, SEAT_REMOVE, user=user)
            reply.notices.append(Outcome.of("bot.seats.removed", user=mention(user)))
            return reply
        side = _side_named(sides, request.options.get("side"))
        await self._store.add_member(channel, user, side=side, role="player")
        await self._log_seat(request, document, SEAT_ASSIGN, user=user, side=side)
        reply.notices.append(Outcome.of("bot.seats.assigned", user=mention(user), side=sides[side]))
        return reply

    async def _leave(
        self,
        request: Request,
        play: GamePlay,
        document: Mapping[str, Any],
        seat: Seat,
        reply: Reply,
    ) -> Reply:
        """``/game leave``: a player gives up their seat (the referee cannot: a game needs one)."""
        if seat.role == "referee":
            raise ServiceError("error.service.referee_stays")
        if seat.role == "none":
            raise ServiceError("error.service.join_first")
        await self._store.remove_member(request.channel_id, request.user_id)
        await self._log_seat(request, document, SEAT_LEAVE, user=request.user_id)
        sides = play.sides(document)
        reply.notices.append(
            Outcome.of("bot.game.left", side=sides.get(seat.side or "", seat.side or "—"))
        )
        return reply

    async def _map(
        self,
        request: Request,
        play: GamePlay,
        document: Mapping[str, Any],
        seat: Seat,
        reply: Reply,
    ) -> Reply:
        """``/map``: the table as the channel sees it; ``/map mine:true``: the asker's own
        view (their side's hidden units too; the referee's shows everything), privately."""
        mine = bool(request.options.get("mine"))
        if mine and seat.role == "none":
            raise ServiceError("error.service.join_first")
        viewer = None if seat.role == "referee" else seat.side

        def look() -> MapView | None:
            caption = status_caption(play.status(document), reply.ruleset, reply.language)
            if not mine:
                return with_caption(
                    channel_map(play, document, reply.ruleset, reply.language), "", caption
                )
            view = play.map_view(document, viewer, public=False, language=reply.language)
            if view is None:
                return None
            return with_caption(localized_map(view, reply.ruleset, reply.language), "", caption)

        reply.map_view = await self._read_off_loop(look)
        reply.map_public = not mine
        reply.private = mine
        if reply.map_view is None:
            reply.notices.append(Outcome.of("bot.map.none"))
        return reply

    async def _log(self, request: Request, reply: Reply) -> Reply:
        count = _int_option(request.options, "count", 10, 1, MAX_LOG)
        record = await self._store.load(request.channel_id)
        sides = self._play(record.ruleset).sides(record.document)
        first = max(0, record.version - count)
        for event in await self._store.events(request.channel_id, after_seq=first, limit=count):
            reply.lines.append(event_line(event, reply.ruleset, reply.language, sides))
        return reply

    async def _export(self, request: Request, reply: Reply, record: GameRecord) -> Reply:
        """``/game export``: the verifiable JSON and the after-action report, written page
        by page on worker threads (bounded memory; other channels' commands run between
        the pages: `bot.export`)."""
        sides = self._play(record.ruleset).sides(record.document)
        head = await self._store.export_head(request.channel_id)
        pages = history_pages(self._store, request.channel_id, head.version)
        return await self._export_reply(request, reply, head, pages, sides)

    async def _export_archived(self, request: Request) -> Reply:
        """``/game export archive:N``: an archived game of this guild, as it was exported,
        read from the archive in chunks."""
        archive_id = _int_option(request.options, "archive", 0, 1, 2**62)
        head, pages = await read_archive(self._store, archive_id)
        game = head.game
        if game.get("guild_id") != request.guild_id:
            raise ServiceError("error.store.archive_not_found", archive_id=archive_id)
        reply = Reply(language=str(game.get("language", "it")), ruleset=str(game.get("ruleset")))
        document = await asyncio.to_thread(json.loads, head.current[1])
        sides = dict(document.get("sides") or {}) if isinstance(document, dict) else {}
        return await self._export_reply(request, reply, head, pages, sides)

    async def _export_reply(
        self,
        request: Request,
        reply: Reply,
        head: ExportHead,
        pages: AsyncIterator[list[StoredVersion]],
        sides: Mapping[str, str],
    ) -> Reply:
        title = translate(
            "bot.report.title",
            reply.language,
            ruleset=str(head.game.get("ruleset", reply.ruleset)),
            channel=head.game.get("channel_id", request.channel_id),
        )
        ruleset, language = reply.ruleset, reply.language
        exported = await export_files(
            head,
            pages,
            title=title,
            language=language,
            line_of=lambda event: event_line(event, ruleset, language, sides),
        )
        reply.files.update(exported.files)
        reply.spool = exported.spool
        reply.notices.append(Outcome.of("bot.game.exported", events=exported.events))
        return reply

    async def _referee(
        self,
        request: Request,
        play: GamePlay,
        version: int,
        document: Mapping[str, Any],
        reply: Reply,
    ) -> Reply:
        if request.verb == "game.undo":
            result = await self._store.undo(
                request.channel_id,
                expected_version=version,
                actor_id=request.user_id,
                interaction_id=request.interaction_id,
            )
            reply.head_hash = result.event.hash
            reply.notices.append(Outcome.of("bot.game.undone", seq=result.event.undoes_seq or 0))
            undone = (await self._store.load(request.channel_id)).document
            reply.status = await self._off_loop(lambda: public_status(play.status(undone)))
        elif request.verb == "game.end":
            ended = await self._store.end_game(
                request.channel_id,
                expected_version=version,
                actor_id=request.user_id,
                interaction_id=request.interaction_id,
            )
            reply.head_hash = ended.event.hash
            reply.notices.append(Outcome.of("bot.game.ended"))
        elif request.verb == "game.pace":
            hours = _int_option(request.options, "hours", 24, 0, MAX_DEADLINE_HOURS)
            await self._store.set_pace(request.channel_id, hours or None)
            if hours:
                reply.notices.append(Outcome.of("bot.deadline.pace", hours=hours))
                # The sides owing now get their time at once, not at their next command.
                owing = await self._off_loop(
                    lambda: owing_sides(play.follow_ups(document), play.awaiting(document))
                )
                due = datetime.now(UTC) + timedelta(hours=hours)
                sides = play.sides(document)
                for side in sorted(owing):
                    await self._store.set_deadline(request.channel_id, side, due)
                    reply.notices.append(
                        Outcome.of(
                            "bot.deadline.due",
                            side=sides.get(side, side),
                            when=when_text(due, discord=request.guild_id is not None),
                        )
                    )
            else:
                reply.notices.append(Outcome.of("bot.deadline.pace_off"))
        else:
            hours = _int_option(request.options, "hours", 24, 0, MAX_DEADLINE_HOURS)
            sides = play.sides(document)
            side = str(request.options.get("side") or play.awaiting(document) or "")
            if side not in sides:
                raise UnknownName(
                    "error.service.unknown_side", name=side[:40], known=", ".join(sides)
                )
            if hours == 0:
                await self._store.clear_deadline(request.channel_id, side)
                reply.notices.append(Outcome.of("bot.deadline.cleared", side=sides[side]))
            else:
                due = datetime.now(UTC) + timedelta(hours=hours)
                await self._store.set_deadline(request.channel_id, side, due)
                reply.notices.append(
                    Outcome.of(
                        "bot.deadline.set",
                        side=sides[side],
                        hours=hours,
                        when=when_text(due, discord=request.guild_id is not None),
                    )
                )
        return reply

    async def _history(
        self,
        request: Request,
        play: GamePlay,
        version: int,
        document: Mapping[str, Any],
        reply: Reply,
        context: CommandContext,
    ) -> Reply:
        """``/takeback``, ``/game rewind seq:N`` and ``/dice reroll seq:N`` (bot.rewind)."""
        from bot.rewind import (
            VERB_REROLL,
            VERB_REWIND,
            is_play_event,
            later_commands,
            rerun,
            takeback_refusal,
        )

        channel = request.channel_id
        if request.verb == "takeback":
            latest = await self._store.events(channel, after_seq=version - 1, limit=1)
            refusal = takeback_refusal(latest[0], request.user_id, play) if latest else "x"
            if refusal is not None:
                raise ServiceError(refusal if latest else "error.service.takeback.not_yours")
            result = await self._store.undo(
                channel,
                expected_version=version,
                actor_id=request.user_id,
                interaction_id=request.interaction_id,
            )
            reply.notices.append(Outcome.of("bot.game.taken_back", seq=latest[0].seq))
            reply.seq, reply.head_hash = result.seq, result.event.hash
            taken_back = (await self._store.load(channel)).document
            reply.status = await self._off_loop(lambda: public_status(play.status(taken_back)))
            return reply
        latest = version if request.verb == VERB_REROLL else max(1, version - 1)
        seq = _int_option(request.options, "seq", 0, 1, latest)
        if request.verb == VERB_REWIND:
            earlier = await self._store.state_at(channel, seq)
            event = NewEvent(
                verb=VERB_REWIND,
                args={"seq": seq},
                actor_id=request.user_id,
                interaction_id=request.interaction_id,
            )
            result = await self._store.commit(channel, version, earlier.document, event)
            reply.notices.append(Outcome.of("bot.game.rewound", seq=seq, undone=version - seq))
            reply.seq, reply.head_hash = result.seq, result.event.hash
            reply.status = await self._off_loop(
                lambda: public_status(play.status(play.load_document(earlier.document)))
            )
            return reply
        # The events from the disputed one on, page by page, and the one state before it:
        # never the whole log with every state.
        events: list[EventRecord] = []
        while True:
            page = await self._store.events(
                channel, after_seq=events[-1].seq if events else seq - 1, limit=1000
            )
            events += page
            if len(page) < 1000:
                break
        target = next((e for e in events if e.seq == seq), None)
        disputed = any(e.verb == "dice.dispute" and e.args.get("seq") == seq for e in events)
        if target is None or not target.dice or not disputed:
            raise ServiceError("error.service.reroll.not_disputed", seq=seq)
        if not is_play_event(target, play):
            # A free /roll typed by hand may be disputed, but it is no command of the rules
            # to run again: the rules would answer "unknown command 'roll'".
            raise ServiceError("error.service.reroll.free_roll", seq=seq)
        try:
            later = later_commands(events, seq, play)
        except ValueError:
            raise ServiceError("error.service.reroll.history", seq=seq) from None
        before = play.load_document((await self._store.state_at(channel, seq - 1)).document)
        members = list(context.members)
        outcome = await self._on_workers(
            channel,
            lambda: rerun(play, before, target, self._dice, later, members),
            budget_s=REPLAY_BUDGET_S,
        )
        event = NewEvent(
            verb=VERB_REROLL,
            args={"seq": seq, "replayed": outcome.replayed, "stopped_at": outcome.stopped_at},
            dice=[recorded_roll(roll) for roll in outcome.rolls],
            resolution=[res.to_json() for res in outcome.resolutions],
            actor_id=request.user_id,
            interaction_id=request.interaction_id,
        )
        result = await self._store.commit(channel, version, outcome.document, event)
        reply.resolutions = outcome.resolutions
        reply.notices.append(Outcome.of("bot.dice.rerolled", seq=seq, replayed=outcome.replayed))
        if outcome.stopped_at is not None:
            reply.notices.append(
                Outcome.of("bot.dice.reroll_stopped", seq=outcome.stopped_at, reason=outcome.reason)
            )
        reply.seq, reply.head_hash = result.seq, result.event.hash
        reply.status = await self._off_loop(
            lambda: public_status(play.status(play.load_document(outcome.document)))
        )
        return reply

    async def _dice_check(
        self, request: Request, seat: Seat, version: int, document: Mapping[str, Any], reply: Reply
    ) -> Reply:
        seq = _int_option(request.options, "seq", 0, 1, 10**9)
        events = await self._store.events(request.channel_id, after_seq=seq - 1, limit=1)
        if not events or events[0].seq != seq or not events[0].args.get("by_hand"):
            raise ServiceError("error.service.no_hand_dice", seq=seq)
        if seat.role == "none":
            raise ServiceError("error.service.join_first")
        if seat.role != "referee" and events[0].actor_id == request.user_id:
            raise ServiceError("error.service.own_dice")
        event = NewEvent(
            verb=request.verb,
            args={"seq": seq},
            actor_id=request.user_id,
            interaction_id=request.interaction_id,
        )
        result = await self._store.commit(request.channel_id, version, dict(document), event)
        key = "bot.dice.confirmed" if request.verb == "dice.confirm" else "bot.dice.disputed"
        reply.notices.append(Outcome.of(key, seq=seq))
        reply.seq = result.seq
        reply.head_hash = result.event.hash
        return reply

    # -- playing ----------------------------------------------------------------------------

    async def _play_verb(
        self,
        request: Request,
        play: GamePlay,
        seat: Seat,
        version: int,
        document: Mapping[str, Any],
        reply: Reply,
        typed: list[int] | None = None,
        bot_faces: Sequence[int] = (),
        *,
        context: CommandContext | None = None,
    ) -> Reply:
        """Resolve a rules verb and commit it, or ask the roller for one more die.

        ``typed`` are the player's faces (parsed from ``request.dice`` when not given),
        ``bot_faces`` the bot's faces of an earlier run of the same command, replayed.
        ``context`` is what was read with the game (seats to ping, deadlines to move on).
        """
        actor_side = None if seat.role == "referee" else seat.side
        if seat.role == "player" and seat.side is None:
            raise ServiceError("error.service.join_first")
        odds_only = request.verb == "odds"
        if typed is None and request.dice and not odds_only:
            zero_is_ten = get_ruleset(reply.ruleset).zero_reads_as_ten
            typed = typed_faces(request.dice, zero_reads_as_ten=zero_is_ten)
        dice: DiceSource = self._dice
        # Dice belong to their roller: typed faces serve only the acting side's rolls; the
        # rolls made for another side come from the bot (recorded, for a re-run).
        bot_dice: ReplayingDice | None = None
        if typed is not None:
            dice = ScriptedDice(typed, by_hand=True)
            bot_dice = ReplayingDice(bot_faces, self._dice)

        drawn = request.verb in MAP_VERBS and not odds_only
        pictures: list[MapView | None] = []
        states: list[str] = []  # the caption's first line under each picture

        preparer = getattr(self._store, "preparer", None)
        prepared: list[PreparedState] = []
        events: list[PreparedEvent] = []

        def rules_pass() -> tuple[str | None, Played, list[FollowUp], str | None]:
            # One hop to the rules thread for everything the rules say about this command:
            # whose move it was, the command, then what the new state offers and awaits
            # (asked of the state the command left, not validated again), the picture, and
            # the new document encoded for the store (its commit then needs no hop of its own).
            waiting = play.awaiting(document)
            # Read from the state the command is played on, before apply takes it over.
            marks = command_marks(play, document, request) if drawn else ()
            try:
                result = play.apply(
                    document,
                    request.verb,
                    request.options,
                    SystemDice() if odds_only else dice,
                    actor_side,
                    other_dice=bot_dice,
                )
            except IllegalAction as error:
                # What the seat may do instead is listed here, in the same job and budget.
                raise self._not_now(play, document, error, actor_side) from None
            if odds_only:
                return waiting, result, [], None
            if preparer is not None:
                # Diffed against the very text this command read: no memory of documents
                # is needed for it (db.prepare keeps only the few channels used last).
                base = context.record.document_text if context is not None else None
                prepared.append(
                    preparer.prepare(request.channel_id, result.document, base_text=base)
                )
                events.append(
                    prepare_event(command_event(request, seat, waiting, typed, result))
                )
            if drawn:
                view = channel_map(play, result.document, reply.ruleset, reply.language)
                if view is not None and marks:
                    view = view.model_copy(update={"overlays": (*view.overlays, *marks)})
                pictures.append(view)
                states.append(
                    status_caption(play.status(result.document), reply.ruleset, reply.language)
                )
            return waiting, result, play.follow_ups(result.document), play.awaiting(result.document)

        try:
            before, played, follow_ups, after = await self._off_loop(rules_pass)
        except DiceNeeded as needed:
            if typed is None or bot_dice is None or needed.source is not dice:
                raise  # not the player's typed faces (scripted bot dice): a plain refusal
            return await self._ask_for_die(
                request, play, seat, version, document, reply, needed, typed, bot_dice.faces
            )
        except DiceError as error:
            if typed is None or error.key != "error.dice.impossible_face":
                raise
            # A face that does not fit may only mean the rules refuse the command anyway
            # (the dice were meant for a path it never takes): then say the rules' reason.
            await self._off_loop(
                self._raise_rules_refusal, play, document, request, actor_side, typed, bot_faces
            )
            raise
        if isinstance(dice, ScriptedDice) and not odds_only:
            dice.ensure_consumed()
        reply.resolutions = played.resolutions
        reply.notices = played.notices
        if odds_only:
            reply.odds_only = True
            # A preview shows what is uncertain: checks that cannot fail (a target in sight)
            # are left out, and the main roll is always kept.
            uncertain = [r for r in played.resolutions if r.odds and len(r.odds.entries) > 1]
            reply.resolutions = uncertain or played.resolutions[-1:]
            return reply
        event = events[0] if events else command_event(request, seat, before, typed, played)
        if ACTED_FOR_ARG in event.args:
            reply.acted_for = before
        if typed is not None:
            reply.by_hand = True
        result = await self._store.commit(
            request.channel_id, version, prepared[0] if prepared else played.document, event
        )
        reply.seq = result.seq
        reply.head_hash = result.event.hash
        if result.duplicate:
            reply.duplicate = True
            reply.resolutions = [
                Resolution.from_json(item)
                for item in result.event.resolution or []
                if isinstance(item, dict)
            ]
            return reply
        reply.follow_ups = follow_ups
        if pictures and pictures[-1] is not None:
            # Under the picture, the command and its outcome as the log tells them.
            line = event_line(result.event, reply.ruleset, reply.language, play.sides(document))
            reply.map_view = with_caption(pictures[-1], line, states[-1])
        if after is not None and after != before:
            reply.ping = (
                _players_among(context.members, after)
                if context is not None
                else await self._players_of(request.channel_id, after)
            )
        if context is not None and (context.deadlines or context.pace_hours):
            await self._follow_the_turn(
                request.channel_id,
                context,
                owing_sides(follow_ups, after),
                actor_side if actor_side is not None else before,
            )
        return reply

    async def _follow_the_turn(
        self, channel_id: int, context: CommandContext, owing: set[str], actor: str | None
    ) -> None:
        """Deadlines follow what is owed: cleared when a side no longer owes; with a pace,
        set for a side that comes to owe and re-armed for the side that acted."""
        plan = follow_the_turn(
            context.deadlines, owing, actor, context.pace_hours, datetime.now(UTC)
        )
        for side in plan.clear:
            await self._store.clear_deadline(channel_id, side)
        for side, due in plan.set.items():
            await self._store.set_deadline(channel_id, side, due)

    async def _ask_for_die(
        self,
        request: Request,
        play: GamePlay,
        seat: Seat,
        version: int,
        document: Mapping[str, Any],
        reply: Reply,
        needed: DiceNeeded,
        typed: list[int],
        bot_faces: Sequence[int],
    ) -> Reply:
        """Typed faces ran out: keep the command and ask its roller for the next die.

        Nothing is committed. A command the rules refuse whatever the dice is refused now,
        with the rules' reason, rather than after the player has rolled for it.
        """
        actor_side = None if seat.role == "referee" else seat.side
        await self._off_loop(
            self._raise_rules_refusal, play, document, request, actor_side, typed, bot_faces
        )
        pending = await self._store.save_pending_roll(
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
                side=actor_side,
            )
        )
        reply.dice_prompt = DicePrompt(
            prompt_id=pending.id,
            user_id=request.user_id,
            side=actor_side,
            verb=request.verb,
            sides=needed.sides,
            label=needed.label,
            faces=tuple(typed),
        )
        return reply

    def _raise_rules_refusal(
        self,
        play: GamePlay,
        document: Mapping[str, Any],
        request: Request,
        actor_side: str | None,
        typed: Sequence[int],
        bot_faces: Sequence[int],
    ) -> None:
        """Raise the rules' refusal of the command if no dice can avoid it (else nothing)."""
        refusal = refusal_whatever_the_dice(
            play, document, request.verb, request.options, actor_side, typed, bot_faces
        )
        if isinstance(refusal, IllegalAction):
            raise self._not_now(play, document, refusal, actor_side)
        if refusal is not None:
            raise refusal

    async def _answer_roll(
        self,
        request: Request,
        play: GamePlay,
        seat: Seat,
        record: GameRecord,
        document: Mapping[str, Any],
        reply: Reply,
        *,
        context: CommandContext | None = None,
    ) -> Reply:
        """The roller gives the next face: run the waiting command again, one die further."""
        prompt_id = _int_option(request.options, "prompt", 0, 1, 2**62)
        pending = await self._store.pending_roll(request.channel_id, prompt_id)
        position = request.options.get("n")
        if pending is None or (
            position is not None and str(position) != str(len(pending.faces) + 1)
        ):
            raise ServiceError("error.service.roll_gone")
        if pending.user_id != request.user_id:
            raise ServiceError("error.service.not_your_roll")
        if record.version != pending.version or record.status == "ended":
            await self._store.drop_pending_roll(request.channel_id, prompt_id)
            raise ServiceError("error.service.roll_expired", command=command_name(pending.verb))
        if "face" not in request.options:
            raise InvalidInput("error.service.one_face", die=f"D{pending.die_sides}")
        face = answered_face(
            str(request.options["face"]),
            pending.die_sides,
            pending.label,
            len(pending.faces) + 1,
            zero_reads_as_ten=get_ruleset(reply.ruleset).zero_reads_as_ten,
        )
        # The prompt is answered: the re-run either commits or asks for the next die anew.
        await self._store.drop_pending_roll(request.channel_id, prompt_id)
        command = replace(request, verb=pending.verb, options=pending.options, dice=None)
        return await self._play_verb(
            command,
            play,
            seat,
            record.version,
            document,
            reply,
            typed=[*pending.faces, face],
            bot_faces=pending.bot_faces,
            context=context,
        )

    @staticmethod
    def _not_now(
        play: GamePlay, document: Mapping[str, Any], error: IllegalAction, side: str | None
    ) -> IllegalAction:
        """The refusal with what the seat may do instead, read from the legal actions."""
        try:
            actions = play.legal_actions(document)
        except RulesError:
            return error
        mine = [a for a in for_seat(actions, side) if a.verb != "odds"]
        awaiting = play.awaiting(document)
        sides = play.sides(document)
        waiting_for = ", ".join(
            dict.fromkeys(sides.get(a.side, a.side) for a in owed(actions) if a.side)
        ) or sides.get(awaiting or "", awaiting or "—")
        return NotNow(error, mine, waiting_for)

    async def _players_of(self, channel_id: int, side: str) -> list[int]:
        return _players_among(await self._store.members(channel_id), side)

    # -- autocomplete and reminders ---------------------------------------------------------

    async def language(self, channel_id: int) -> str | None:
        """The language of the channel's game (None when there is none or it cannot be read)."""
        try:
            return (await self._store.load(channel_id)).language
        except StoreError:
            return None

    async def choices(self, channel_id: int, user_id: int, kind: str, typed: str) -> list[str]:
        """Autocomplete values from the channel's state (at most 25)."""
        if kind.startswith("extra:"):
            return await self._extra_choices(channel_id, kind.partition(":")[2], typed)
        if kind in ("command", "table"):
            try:
                found: GameRecord | None = await self._store.load(channel_id)
            except StoreError:
                found = None
            if kind == "command":
                names = command_names(self._play(found.ruleset) if found is not None else None)
            else:
                key = found.ruleset if found is not None else KNOWN_RULESETS[0]
                names = [table.id for table in get_ruleset(key).tables]
            return [n for n in names if typed.lower() in n.lower()][:25]
        if kind == "ruleset":
            return [key for key in KNOWN_RULESETS if typed.lower() in key.lower()][:25]
        if kind == "scenario":
            names = [
                scenario
                for key in KNOWN_RULESETS
                if get_ruleset(key).play is not None
                for scenario in get_ruleset(key).play.scenarios()
            ]
            return [n for n in names if typed.lower() in n.lower()][:25]
        try:
            record = await self._store.load(channel_id)
        except (GameNotFound, StoreError):
            return []
        play = self._play(record.ruleset)
        if kind == "side":
            names = list(play.sides(record.document))
        else:
            seat = await self._seat(Request(channel_id, user_id, "choices"))
            side = None if seat.role == "referee" else seat.side
            document = record.document

            def lookup() -> list[str]:
                names = play.choices(document, kind, side)
                try:
                    # What the seat may use now comes first: the same answer the rules give.
                    legal = values_of(for_seat(play.legal_actions(document), side), kind)
                except WorkBudgetExceeded:
                    return names  # past the budget: the names, unordered
                return [*legal, *(n for n in names if n not in legal)]

            try:
                names = await self._on_workers(channel_id, lookup)
            except RulesError:  # a document this version cannot read: the command will say so
                return []
        return [n for n in names if typed.lower() in n.lower()][:25]

    async def _extra_choices(self, channel_id: int, verb: str, typed: str) -> list[str]:
        """Autocomplete of ``extra``: the next ``name:value`` token among the options the
        channel's ruleset takes for this command (every extra outside a game)."""
        command = next((c for c in COMMANDS if c.verb == verb and c.extras), None)
        if command is None:
            return []
        try:
            record: GameRecord | None = await self._store.load(channel_id)
        except StoreError:
            record = None
        play = self._play(record.ruleset) if record is not None else None
        taken = set(play.options_of(verb)) if play is not None else None
        done = typed.split()
        current = "" if not typed or typed.endswith(" ") else done.pop()
        used = {token.partition(":")[0] for token in done}
        candidates = []
        for option in command.extras:
            if option.name in used or (taken is not None and option.name not in taken):
                continue
            boolean = option.type is OptionType.BOOLEAN
            values = option.choices or (("true", "false") if boolean else ("",))
            candidates += [f"{option.name}:{value}" for value in values]
        prefix = " ".join(done)
        found = [c for c in candidates if c.lower().startswith(current.lower())]
        found += [c for c in candidates if current.lower() in c.lower() and c not in found]
        return [f"{prefix} {c}".strip()[:100] for c in found][:25]

    async def due_reminders(
        self,
        now: datetime | None = None,
        *,
        owns_guild: Callable[[int | None], bool] | None = None,
    ) -> list[tuple[int, Reply]]:
        """Deadlines that passed: a reply pinging the late side's players, once each.

        With several bot processes, ``owns_guild`` keeps each to its own guilds (its
        shards), and each reminder is claimed with the store's compare-and-set
        (``mark_reminded``) before it is built: of processes racing for one deadline, one
        gets it. Claiming first means a process that dies between claim and post loses
        that reminder rather than anyone posting it twice.
        """
        moment = now or datetime.now(UTC)
        replies = []
        for deadline in await self._store.due_deadlines(moment + WARNING_HORIZON):
            expired = deadline.due_at <= moment
            if not expired and not warning_due(deadline, moment):
                continue
            try:
                record = await self._store.load(deadline.channel_id)
            except StoreError:
                continue
            if owns_guild is not None and not owns_guild(record.guild_id):
                continue
            if expired:
                claimed = await self._store.mark_reminded(
                    deadline.channel_id, deadline.side, deadline.due_at
                )
            else:
                claimed = await self._store.claim_warning(
                    deadline.channel_id, deadline.side, deadline.due_at
                )
            if not claimed:
                continue  # Claimed by another process (or the deadline moved meanwhile).
            sides = self._play(record.ruleset).sides(record.document)
            reply = Reply(language=record.language, ruleset=record.ruleset)
            reply.notices.append(
                Outcome.of(
                    "bot.deadline.passed" if expired else "bot.deadline.soon",
                    side=sides.get(deadline.side, deadline.side),
                    when=when_text(deadline.due_at, discord=record.guild_id is not None),
                )
            )
            reply.ping = await self._players_of(deadline.channel_id, deadline.side)
            replies.append((deadline.channel_id, reply))
        return replies


def public_status(view: StatusView) -> StatusView:
    """The status as the channel may read it: units the ruleset hides are not listed."""
    if not any(unit.hidden for unit in view.units):
        return view
    return replace(view, units=tuple(unit for unit in view.units if not unit.hidden))


def localized_map(view: MapView, ruleset: str, language: str) -> MapView:
    """Status words and hex labels in the game's language (a ruleset may give its value
    words, ``eliminated``; words already localized are left as they are)."""
    counters = tuple(
        c.model_copy(update={"statuses": tuple(_word(ruleset, s, language) for s in c.statuses)})
        if c.statuses
        else c
        for c in view.counters
    )
    grid = view.grid
    if grid is not None:
        hexes = tuple(
            h.model_copy(update={"label": _word(ruleset, h.label, language)})
            if h.label
            else h
            for h in grid.hexes
        )
        grid = grid.model_copy(update={"hexes": hexes})
    return view.model_copy(update={"counters": counters, "grid": grid})


def _word(ruleset: str, word: str, language: str) -> str:
    # value_text reads "a+b" as two value words: a hex that is woods and entrenched.
    return value_text(ruleset, word, language).replace(" + ", ", ")


def status_caption(view: StatusView, ruleset: str, language: str) -> str:
    """``Turn 2 — activations — to move: …``: the line under a picture of the table."""
    return translate(
        "bot.status.header",
        language,
        turn=view.turn,
        phase=outcome_text(ruleset, view.phase, language),
        side=view.sides.get(view.awaiting or "", "—"),
    )


def with_caption(view: MapView | None, action: str, state: str = "") -> MapView | None:
    """The view with the caption every ruleset's picture carries, in one style: the state of
    the game (``Turn 2 — activations — to move: …``), then the last action — the ruleset's
    own sentence for it when it writes one, else ``action`` (the log's line for the command
    just played) — each on a line of its own."""
    if view is None:
        return view
    lines = [line for line in (state, view.caption or action) if line]
    return view.model_copy(update={"caption": "\n".join(lines)})


def command_event(
    request: Request,
    seat: Seat,
    acted_for: str | None,
    typed: list[int] | None,
    played: Played,
) -> NewEvent:
    """The event a played command is logged as.

    ``acted_for`` is the side whose move it was (recorded when the referee played it for
    that side); ``typed`` the player's own faces, if any.
    """
    actor_side = None if seat.role == "referee" else seat.side
    args: dict[str, Any] = {k: v for k, v in request.options.items() if v is not None}
    if seat.role == "referee" and acted_for is not None and acted_for != seat.side:
        args[ACTED_FOR_ARG] = acted_for
    if typed is not None:
        args[BY_HAND_ARG] = True
    # Enough to replay the command without the members table: the side it was played
    # for, and every die the tray rolled in order (not only those a resolution shows),
    # each marked typed by the player (by_hand) or the bot's, and the side it was for.
    args[ACTOR_SIDE_ARG] = actor_side
    if request.user_name:
        args[ACTOR_NAME_ARG] = request.user_name[:60]  # the log names people, not ids
    return NewEvent(
        verb=request.verb,
        args=args,
        dice=[recorded_roll(roll) for roll in played.rolls],
        resolution=[res.to_json() for res in played.resolutions],
        actor_id=request.user_id,
        interaction_id=request.interaction_id,
    )


def command_marks(
    play: GamePlay, document: Mapping[str, Any], request: Request
) -> tuple[Overlay, ...]:
    """The marks a command draws on its reply's picture (none if the ruleset fails: the
    command itself must not)."""
    try:
        return play.action_overlays(document, request.verb, request.options)
    except Exception:
        log.exception("action_overlays failed (%s)", request.verb)
        return ()


def channel_map(
    play: GamePlay, document: Mapping[str, Any], ruleset: str, language: str
) -> MapView | None:
    """The picture for the channel (None without a battlefield, or if the ruleset fails
    to draw it: the reply goes without it). Never a hidden unit, whatever the ruleset put
    in its public view."""
    try:
        view = play.map_view(document, None, public=True, language=language)
    except WorkBudgetExceeded:
        log.warning("map_view past the work budget (%s): no picture", ruleset)
        return None
    except Exception:  # a picture must never cost the command its reply
        log.exception("map_view failed (%s)", ruleset)
        return None
    if view is None:
        return None
    if any(c.hidden for c in view.counters):
        log.error("%s put hidden units in its public map view: left out", ruleset)
        view = view.model_copy(
            update={"counters": tuple(c for c in view.counters if not c.hidden)}
        )
    return localized_map(view, ruleset, language)


def _side_named(sides: Mapping[str, str], wanted: object) -> str:
    """The side a player named (its id or its name), or a clear error listing them."""
    text = str(wanted or "")
    side = next((s for s, name in sides.items() if text in (s, name)), None)
    if side is None:
        raise UnknownName("error.service.unknown_side", name=text[:40], known=", ".join(sides))
    return side


def _role_option(options: Mapping[str, Any]) -> int | None:
    """A Discord role given as an option (None when not given)."""
    if options.get("role") is None:
        return None
    return _int_option(options, "role", 0, 1, 2**63 - 1)


def _players_among(members: Sequence[Member], side: str) -> list[int]:
    """The players seated on ``side`` (not the referee)."""
    return [m.user_id for m in members if m.side == side and m.role == "player"]


def recorded_roll(roll: Roll) -> dict[str, Any]:
    """A die as a play event records it: what replay needs to roll it again."""
    return {
        "die": roll.die.name,
        "face": roll.face,
        "label": roll.label,
        "by_hand": roll.by_hand,
        "side": roll.side,
    }


def event_line(event: Any, ruleset: str, language: str, sides: Mapping[str, str]) -> str:
    """One line of the story: ``#7 anna — /fire unit:squadra_1 … → 2 casualties``.

    Who (the display name the event recorded, else a mention), what (the command as typed,
    or the game event in words), and the outcome in the game's language.
    """
    args = event.args if isinstance(event.args, dict) else {}
    who = str(args.get(ACTOR_NAME_ARG) or (f"<@{event.actor_id}>" if event.actor_id else "—"))
    key = f"bot.log.verb.{event.verb}"
    if has_key(key, language) or has_key(key):
        params = _text_args(args)
        if event.undoes_seq:
            params["seq"] = str(event.undoes_seq)
        what = translate(key, language, **params)
    else:
        shown = {k: v for k, v in args.items() if k not in EVENT_ARGS}
        what = command_name(event.verb) + "".join(f" {k}:{v}" for k, v in shown.items())
    outcomes = []
    for item in event.resolution or []:
        if isinstance(item, dict) and "outcome" in item:
            try:
                resolution = Resolution.from_json(item)
            except (ValueError, TypeError, KeyError):
                continue
            outcomes.append(
                outcome_text(resolution.ruleset or ruleset, resolution.outcome, language)
            )
    line = f"#{event.seq} {who} — {what}"
    acted_for = args.get(ACTED_FOR_ARG)
    if acted_for:
        side = sides.get(str(acted_for), str(acted_for))
        line += " " + translate("bot.acted_for", language, side=side)
    if outcomes:
        line += " → " + "; ".join(dict.fromkeys(outcomes))
    return line


def _text_args(args: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in args.items() if isinstance(v, str | int | float)}


def _int_option(options: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = options.get(name, default)
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput(
            "error.service.not_a_number", option=name, value=str(value)[:20]
        ) from None
    if not low <= number <= high:
        raise InvalidInput("error.service.out_of_bounds", option=name, low=low, high=high)
    return number


__all__ = [
    "ACTOR_SIDE_ARG",
    "EVENT_ARGS",
    "GAME_VERBS",
    "GameService",
    "IllegalAction",
    "Reply",
    "Request",
    "ServiceError",
    "recorded_roll",
]
