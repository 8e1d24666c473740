"""The handler table: each verb's handler and what it declares.

A feature module (``bot/service/play.py``, ``seats.py``…) declares its handlers in a tuple
``HANDLERS``; :mod:`bot.service.core` joins them in one :class:`HandlerTable` and its
dispatcher reads the declarations instead of branching on verbs:

* ``read_only`` — never commits: no lookup of an earlier answer to a retried interaction;
* ``draws_map`` — the reply carries the picture of the table (what moves or fires);
* ``who`` — who may call it: anyone, a seated member, the referee, the server's managers;
* ``after_end`` — whether it runs once the game has ended;
* ``ruleset_verb`` — a command of the channel's ruleset (refused if the ruleset lacks it).

A :class:`Handler` runs without the channel's game (help, listing, a new game, a free
roll); a :class:`GameHandler` gets the game read with the command, in one round trip
(:class:`GameCall`). Both reach the shared facilities through :class:`Services`: the store,
the dice, the log's rate limits, and the rules workers bounded by the work budget.

Beside its ``HANDLERS`` a feature may declare ``REACTIONS``, which the core runs for every
command whatever its feature, so no feature is called by name from the core or another
feature:

* :class:`Guard` — runs before a game command's handler and may refuse it (it raises);
* :class:`Follower` — runs after every command that committed to a game (the history
  commands included), with the game before and after it; returns notices for the reply;
* :class:`Timer` — periodic due work (reminders), run by ``GameService.due_reminders``;
* :class:`Listener` — hears what a command or a timer declared notable
  (``Reply.notable``: what it made owed or happen, for whom), whatever its feature;
* :class:`StatusPart` — lines a feature adds to ``/game status`` of a game in play (the
  roster, the deadlines due), read by the status from the table, never by name.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import InitVar, dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar

from bot.service.kept_games import KeptGames
from bot.service.limits import LogLimiter
from bot.service.replies import Reply
from bot.service.requests import Request
from bot.service.stored.table import TableContext, open_table
from bot.service.workers import ChannelWorkers
from db.errors import StoreError
from db.models import GameRecord
from db.protocol import GameStore
from rules.core.budget import work_budget
from rules.core.dice import DiceSource
from rules.core.i18n import LANGUAGES
from rules.core.odds import odds_budget
from rules.core.resolution import Outcome
from rules.core.ruleset import Ruleset, get_ruleset
from rules.core.seatview import REFEREE, Seat
from rules.core.surface import Loaded, Rules

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
# that channel's turn on the workers (bot.service.workers).
REQUEST_CHANNEL: ContextVar[int | None] = ContextVar("request_channel", default=None)


class Who(enum.Enum):
    """Who may call a handler (checked before it runs, after the game's end)."""

    ANYONE = "anyone"
    #: A member with a seat (a player or the referee): else ``error.service.join_first``.
    SEATED = "seated"
    #: The game's referee: else ``error.service.referee_only``.
    REFEREE = "referee"
    #: A manager of the server (Discord's Manage Server), in a server.
    MANAGERS = "managers"


class Services:
    """What every handler may use: the store, the dice, the log's rate limits, the default
    language, the rules workers (each question bounded by the work budget) and the games
    kept validated between commands (`bot.service.kept_games`)."""

    def __init__(
        self,
        store: GameStore,
        dice: DiceSource,
        language: str,
        limiter: LogLimiter,
        workers: ChannelWorkers,
    ) -> None:
        self.store = store
        self.dice = dice
        self.language = language
        self.limiter = limiter
        self._workers = workers
        self.kept = KeptGames()

    def known(self, *candidates: str | None) -> str:
        """The first of ``candidates`` that is a language of the catalogues, else the
        service's own."""
        return next((c for c in candidates if c in LANGUAGES), self.language)

    @staticmethod
    def ruleset(key: str) -> Ruleset:
        """The ruleset called ``key`` (every lookup of the service goes through here)."""
        return get_ruleset(key)

    def rules(self, ruleset: str) -> Rules:
        """The rules of ``ruleset``: ``setup``, ``view``, ``act`` and their declared facts
        (an unknown ruleset is refused by its lookup)."""
        return self.ruleset(ruleset).rules

    async def on_workers(
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

    async def off_loop(self, work: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run rules work for the request being handled, in its channel's turn."""
        return await self.on_workers(REQUEST_CHANNEL.get(), lambda: work(*args, **kwargs))

    async def game_language(self, channel_id: int) -> str | None:
        """The language of the channel's game (None when there is none or it cannot be
        read)."""
        try:
            return (await self.store.load(channel_id)).language
        except StoreError:
            return None


@dataclass(frozen=True, slots=True)
class Call:
    """A request on its way through a handler, with the service's facilities."""

    request: Request
    services: Services
    table: HandlerTable

    @property
    def store(self) -> GameStore:
        """The store (a shortcut)."""
        return self.services.store

    async def open(self) -> TableContext:
        """The channel's game and seats, read as a read-only command reads them (for the
        handlers that run without the game but may need it: the log, an export)."""
        return await open_table(self.services.store, self.request.channel_id)


@dataclass(frozen=True, slots=True)
class GameCall(Call):
    """A request on the channel's game: what was read with it, the rules, the document
    (migrated to the current format, in memory) and the asker's seat."""

    context: TableContext
    rules: Rules
    document: Mapping[str, Any]
    seat: Seat
    #: The document read once for this call (validated when first viewed, on the rules
    #: thread): a command's view of the game before it, the command and what follows share
    #: its one state.
    game: Loaded = field(init=False, repr=False, compare=False)
    #: The game already validated, kept from the channel's last command
    #: (`bot.service.kept_games`): its document is ``document``.
    kept: InitVar[Loaded | None] = None

    def __post_init__(self, kept: Loaded | None) -> None:
        game = kept if kept is not None else self.rules.load(self.document)
        object.__setattr__(self, "game", game)

    @property
    def record(self) -> GameRecord:
        """The game as read with the command."""
        return self.context.record

    def asking(self, request: Request) -> GameCall:
        """The same call for another request on the same game (a verb played on the
        asker's behalf, as ``/game end`` plays ``game.decide``): the game already loaded
        for it is kept, so the document is still validated once."""
        other = replace(self, request=request)
        object.__setattr__(other, "game", self.game)
        return other


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a handler declares, read by the dispatcher."""

    verbs: tuple[str, ...]
    read_only: bool = False
    draws_map: bool = False
    who: Who = Who.ANYONE
    after_end: bool = True
    ruleset_verb: bool = False
    #: It may take the game back before its end (undo, take-back, rewind, re-roll): what
    #: was built on the game's result may veto it (a :class:`Guard`).
    reopens: bool = False
    #: It seats a member at a side: ``"asker"`` takes a side itself (a join), ``"member"``
    #: seats or invites another. What holds the sides elsewhere (a campaign's players) may
    #: veto it (a :class:`Guard`).
    seats: Literal["asker", "member"] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Handler(Declaration):
    """A handler that runs without the channel's game."""

    run: Callable[[Call], Awaitable[Reply]]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameHandler(Declaration):
    """A handler that runs on the channel's game, read with the command."""

    run: Callable[[GameCall], Awaitable[Reply]]


AnyHandler = Handler | GameHandler


# -- reactions: what a feature does around every command ----------------------------------


@dataclass(frozen=True, slots=True)
class Owing:
    """What a game's sides owe: those with a roll or an action owed, else the side the
    turn awaits; none once the game has its result (``ended``)."""

    sides: frozenset[str]
    awaited: str | None
    ended: bool


def owing_in(rules: Rules, record: GameRecord, document: Mapping[str, Any]) -> Owing:
    """What is owed in ``document`` (rules work: run it off the event loop)."""
    if record.status == "ended":
        return Owing(frozenset(), None, True)
    view = rules.view(document, REFEREE)
    if view.result is not None:
        return Owing(frozenset(), None, True)
    awaited = view.awaiting
    sides = frozenset(f.side for f in view.follow_ups if f.side is not None)
    return Owing(sides or frozenset({awaited} if awaited is not None else ()), awaited, False)


@dataclass(frozen=True, slots=True)
class Written:
    """What a follower reacts to: a command that committed to the channel's game.

    ``call`` is the command as it ran (the request, the seat, the rules, the document and
    the sealed records read before it: deadlines, pace, the campaign link…), ``handler``
    what it declares, ``reply`` its answer so far, ``after`` the game as it left it."""

    call: GameCall
    handler: GameHandler
    reply: Reply
    after: GameRecord
    #: What is owed before and after, worked out once for every follower that asks.
    _owing: dict[str, Owing] = field(default_factory=dict, repr=False, compare=False)

    @property
    def before(self) -> GameRecord:
        """The game as the command read it."""
        return self.call.record

    async def owing_after(self) -> Owing:
        """What is owed once the command was written (computed once per command)."""
        if "after" not in self._owing:
            rules, after = self.call.rules, self.after

            def work() -> Owing:
                return owing_in(rules, after, rules.document_format.upgrade(after.document))

            self._owing["after"] = await self.call.services.off_loop(work)
        return self._owing["after"]

    async def owing_before(self) -> Owing:
        """What was owed when the command read the game (computed once per command)."""
        if "before" not in self._owing:
            call = self.call
            self._owing["before"] = await self.call.services.off_loop(
                owing_in, call.rules, call.record, call.document
            )
        return self._owing["before"]


def every_game(_: TableContext) -> bool:
    """A follower's ``of``: it follows every game."""
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class Follower:
    """Runs after every command that committed to a game ``of`` admits (a predicate on
    the command's context, so a game no follower wants costs no extra read); returns
    notices added to the reply. A follower's failure is logged, the command stands."""

    name: str
    run: Callable[[Written], Awaitable[Sequence[Outcome]]]
    of: Callable[[TableContext], bool] = every_game


@dataclass(frozen=True, slots=True, kw_only=True)
class Guard:
    """Runs before a game command's handler (after the checks of the game's end and of
    the seat): raises a ``RulesError`` to refuse the command, which then changes nothing.

    ``release`` gives back what a guard that let the command through took for it (a
    claim) when the handler then fails: a refused command leaves nothing held."""

    name: str
    run: Callable[[GameCall, GameHandler], Awaitable[None]]
    release: Callable[[GameCall, GameHandler], Awaitable[None]] | None = None


#: What a timer returns: replies to post, each in its channel.
Due = list[tuple[int, Reply]]


class TimerRun(Protocol):
    """A timer's work: what is due at ``now`` in the guilds ``owns_guild`` admits (all
    when None), each item claimed once across bot processes."""

    def __call__(
        self,
        services: Services,
        now: datetime,
        *,
        owns_guild: Callable[[int | None], bool] | None,
    ) -> Awaitable[Due]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Timer:
    """Periodic due work (reminders, overdue games), run by ``GameService.due_reminders``."""

    name: str
    run: TimerRun


@dataclass(frozen=True, slots=True, kw_only=True)
class Listener:
    """Hears the notable things a reply declares (``Reply.notable``): after every command
    that committed (with or without a game, once the followers ran, so what they declared
    is heard too) and for every timer's reply, before it is posted. It may change whom the
    reply pings; it returns nothing. A listener's failure is logged, the command stands."""

    name: str
    run: Callable[[Services, Reply], Awaitable[None]]


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusPart:
    """Lines a feature adds to ``/game status`` (``/turn status``) of a game in play, after
    what the rules show, in the order of the table's reactions. ``run`` gets the status's
    call and the game's sides (id to name); what the command read with the game (its
    context: the members, the sealed records) costs no extra round trip."""

    name: str
    run: Callable[[GameCall, Mapping[str, str]], Awaitable[Sequence[Outcome]]]


Reaction = Follower | Guard | Timer | Listener | StatusPart


class HandlerTable:
    """Every verb's handler, each verb exactly once; ``fallback`` takes the verbs no
    feature declares (a ruleset's own verb, or a mistyped one it will refuse);
    ``reactions`` every feature's guards, followers, timers, listeners and status parts,
    run for every command."""

    def __init__(
        self, *handlers: AnyHandler, fallback: GameHandler, reactions: Iterable[Reaction] = ()
    ) -> None:
        by_verb: dict[str, AnyHandler] = {}
        for handler in handlers:
            for verb in handler.verbs:
                if verb in by_verb:
                    raise ValueError(f"verb {verb!r} has two handlers")
                by_verb[verb] = handler
        self._by_verb: Mapping[str, AnyHandler] = by_verb
        self.fallback = fallback
        self.reactions: tuple[Reaction, ...] = tuple(reactions)
        names = [reaction.name for reaction in self.reactions]
        if len(set(names)) != len(names):
            raise ValueError(f"reactions named twice: {sorted(names)}")
        self.guards = tuple(r for r in self.reactions if isinstance(r, Guard))
        self.followers = tuple(r for r in self.reactions if isinstance(r, Follower))
        self.timers = tuple(r for r in self.reactions if isinstance(r, Timer))
        self.listeners = tuple(r for r in self.reactions if isinstance(r, Listener))
        self.status_parts = tuple(r for r in self.reactions if isinstance(r, StatusPart))

    def joined(self, *handlers: AnyHandler, reactions: Iterable[Reaction] = ()) -> HandlerTable:
        """This table with a feature's handlers and reactions added (its verbs new)."""
        return HandlerTable(
            *self, *handlers, fallback=self.fallback, reactions=(*self.reactions, *reactions)
        )

    def __iter__(self) -> Iterator[AnyHandler]:
        return iter(dict.fromkeys(self._by_verb.values()))

    def handler(self, verb: str) -> AnyHandler:
        """The handler of ``verb`` (the fallback for a verb no feature declares)."""
        return self._by_verb.get(verb, self.fallback)

    def verbs(self) -> tuple[str, ...]:
        """Every declared verb, in declaration order."""
        return tuple(self._by_verb)

    def draws_map(self, verb: str) -> bool:
        """Whether ``verb``'s reply carries the picture of the table."""
        return self.handler(verb).draws_map


__all__ = [
    "ODDS_BUDGET_S",
    "REPLAY_BUDGET_S",
    "REQUEST_CHANNEL",
    "WORK_BUDGET_S",
    "AnyHandler",
    "Call",
    "Declaration",
    "Due",
    "Follower",
    "GameCall",
    "GameHandler",
    "Guard",
    "Handler",
    "HandlerTable",
    "Listener",
    "Reaction",
    "Services",
    "StatusPart",
    "Timer",
    "TimerRun",
    "Who",
    "Written",
    "every_game",
]
