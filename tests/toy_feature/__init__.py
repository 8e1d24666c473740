"""A toy feature outside ``bot/``: a truce, plugged into the service by its folder alone.

It declares what a feature of ``bot/service/`` declares, and nothing else changes:

* a handler, ``truce.call hours:N`` (the referee): the game's sides stop for N hours (a
  record of the feature on the store's time index);
* a guard: while a truce holds, a command of the rules is refused;
* a follower: after every command that wrote to a game — a play, a history command —
  a notice naming the command and the game's version before and after it;
* a timer: a truce whose hours are up is announced in its game's channel, and lifted;
* a status part: ``/game status`` says that a truce holds, and for how many hours.

Its words are catalogue keys of its own (``toy.truce.*``): a test reads keys, not text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

from bot.service.errors import ServiceError
from bot.service.handlers import (
    Due,
    Follower,
    GameCall,
    GameHandler,
    Guard,
    Services,
    StatusPart,
    Timer,
    Who,
    Written,
)
from bot.service.replies import Reply
from bot.service.requests import int_option
from db.models import Scope
from rules.core.resolution import Outcome

FEATURE = "toy_truce"
KEY = "truce"
VERB = "truce.call"


async def call_truce(call: GameCall) -> Reply:
    """``truce.call hours:N``: no command of the rules for N hours."""
    hours = int_option(call.request.options, "hours", 1, 1, 48)
    until = datetime.now(UTC) + timedelta(hours=hours)
    scope = Scope.of_game(call.request.channel_id)
    await call.store.feature_put(FEATURE, scope, KEY, {"hours": hours}, due_at=until)
    reply = Reply(language=call.record.language, ruleset=call.record.ruleset)
    reply.notices.append(Outcome.of("toy.truce.called", hours=hours))
    return reply


async def refuse_during_truce(call: GameCall, handler: GameHandler) -> None:
    """The guard: a command of the rules waits for the truce's end."""
    if not handler.ruleset_verb:
        return
    scope = Scope.of_game(call.request.channel_id)
    if await call.store.feature_get(FEATURE, scope, KEY) is not None:
        raise ServiceError("toy.truce.holds")


async def note_the_write(written: Written) -> list[Outcome]:
    """The follower: which command wrote, and the game's version before and after it."""
    return [
        Outcome.of(
            "toy.truce.followed",
            verb=written.call.request.verb,
            before=written.before.version,
            after=written.after.version,
        )
    ]


async def truces_over(
    services: Services,
    now: datetime,
    *,
    owns_guild: Callable[[int | None], bool] | None = None,
) -> Due:
    """The timer: each truce whose hours are up, announced in its channel and lifted (the
    delete is the claim: of two processes, one posts it). ``owns_guild`` is not asked: a
    toy runs in one process, over every guild."""
    due: Due = []
    for record in await services.store.feature_due(FEATURE, now):
        if await services.store.feature_delete(FEATURE, record.scope, KEY):
            reply = Reply(language=services.language)
            reply.notices.append(Outcome.of("toy.truce.over"))
            due.append((record.scope.id, reply))
    return due


async def truce_in_status(call: GameCall, sides: Mapping[str, str]) -> list[Outcome]:
    """The status part: the truce that holds, if one does (its sides are not named: a
    truce stops them all)."""
    scope = Scope.of_game(call.request.channel_id)
    truce = await call.store.feature_get(FEATURE, scope, KEY)
    return [] if truce is None else [Outcome.of("toy.truce.holding", hours=truce.value["hours"])]


HANDLERS = (GameHandler((VERB,), who=Who.REFEREE, run=call_truce),)

REACTIONS = (
    Guard(name="toy.truce", run=refuse_during_truce),
    Follower(name="toy.followed", run=note_the_write),
    Timer(name="toy.truce_over", run=truces_over),
    StatusPart(name="toy.truce_status", run=truce_in_status),
)
