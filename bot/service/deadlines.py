"""Deadlines that follow the turn (play by post).

A deadline belongs to a side that owes something: when that side no longer owes (it acted and
the move passed on), its deadline goes; with a game pace, a side that comes to owe gets
``pace`` hours, re-armed each time it acts and still owes. A reminder goes out when a quarter
of the time is left, and another at expiry, each pinging only the owing side's players and
each claimed once across bot processes; each declares those players (``Reply.notable``), so
a player who chose to be told otherwise than by a mention is, by whoever listens.

``/game deadline`` sets (or clears) one side's deadline, ``/game pace`` the hours each owed
action gets. Two reactions (:data:`REACTIONS`): after every command that wrote to a game with
deadlines or a pace — a play, a decision, and the history commands (undo, take-back, rewind,
re-roll) alike — :func:`follow_what_is_owed` moves the deadlines to the sides that owe now;
the timer :func:`due_reminders` builds the reminders the front ends post. The pure functions
decide, the handlers read and write the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.commands import DIE_ANSWER
from bot.service.handlers import (
    Follower,
    GameCall,
    GameHandler,
    Services,
    StatusPart,
    Timer,
    Who,
    Written,
)
from bot.service.replies import Notable, Reply
from bot.service.requests import int_option, players_among, side_named
from bot.service.stored import deadlines as stored
from bot.service.stored.deadlines import Deadline
from bot.service.stored.table import TableContext
from db.models import format_timestamp
from rules.core.play import FollowUp
from rules.core.resolution import Outcome
from rules.core.seatview import REFEREE
from rules.core.words import in_language, stored_title

#: The longest deadline or pace, in hours (60 days).
MAX_DEADLINE_HOURS = 24 * 60


def owing_sides(follow_ups: Iterable[FollowUp], awaiting: str | None) -> set[str]:
    """The sides that owe something now: those with a roll or action owed, else the mover."""
    owing = {f.side for f in follow_ups if f.side is not None}
    if not owing and awaiting is not None:
        owing = {awaiting}
    return owing


@dataclass
class DeadlinePlan:
    """What changes after a command: deadlines to set (side → due) and sides to clear."""

    set: dict[str, datetime] = field(default_factory=dict)
    clear: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.set or self.clear)


def plan_for(
    deadlines: Sequence[Deadline],
    owing: set[str],
    actor_side: str | None,
    pace_hours: int | None,
    now: datetime,
) -> DeadlinePlan:
    """The deadline changes once a command has moved the game on.

    A side that no longer owes loses its deadline. With a pace, a side that owes and has no
    deadline gets one, and the side that just acted and still owes gets a fresh one (each
    owed action has the pace's hours).
    """
    plan = DeadlinePlan()
    current = {d.side: d for d in deadlines}
    for side in current:
        if side not in owing:
            plan.clear.append(side)
    if pace_hours:
        due = now + timedelta(hours=pace_hours)
        for side in sorted(owing):
            if side not in current or side == actor_side:
                plan.set[side] = due
    return plan


def when_text(due: datetime, *, discord: bool) -> str:
    """A moment as players read it: Discord timestamps (each reader's own time zone, and
    a relative "in 3 hours") in Discord, plain UTC at the console."""
    if discord:
        stamp = int(due.timestamp())
        return f"<t:{stamp}:f> (<t:{stamp}:R>)"
    return due.strftime("%Y-%m-%d %H:%M UTC")


def _has_deadlines(context: TableContext) -> bool:
    """Whether a game's deadlines may move: it has some, or a pace."""
    return bool(context.deadlines or context.pace_hours)


async def follow_what_is_owed(written: Written) -> list[Outcome]:
    """Deadlines follow what is owed after any command that wrote to the game: cleared for
    a side that no longer owes (every side, once the game has its result); with a pace, set
    for a side that comes to owe, and re-armed for the side that acted if it still owes.

    The side that acted is the player's, or the side the referee acted for (the one awaited
    before), in a command of the rules or a die answered; a history command, a decision or
    a seat change is no one's action and re-arms nothing."""
    call = written.call
    rules, seat, before = call.rules, call.seat, call.document
    acted = written.handler.ruleset_verb or call.request.verb == DIE_ANSWER

    # What is owed after the write, worked out once for every follower that asks.
    now = await written.owing_after()
    owing = set(now.sides)
    actor: str | None = None
    if acted and not now.ended:
        if not seat.referee:
            actor = seat.side
        else:  # the referee acted for the side the turn awaited
            actor = await call.services.off_loop(lambda: rules.view(before, REFEREE).awaiting)
    context = call.context
    plan = plan_for(context.deadlines, owing, actor, context.pace_hours, datetime.now(UTC))
    channel_id = call.request.channel_id
    for side in plan.clear:
        await stored.clear_deadline(call.store, channel_id, side)
    for side, due in plan.set.items():
        await stored.set_deadline(call.store, channel_id, side, due)
    return []


async def due_notices(call: GameCall, sides: Mapping[str, str]) -> list[Outcome]:
    """``/game status`` (a status part): each side's deadline, when it has one, as read
    with it."""
    discord = call.request.guild_id is not None
    return [
        Outcome.of(
            "bot.deadline.due",
            side=sides.get(deadline.side, deadline.side),
            when=when_text(deadline.due_at, discord=discord),
        )
        for deadline in call.context.deadlines
    ]


async def set_deadline(call: GameCall) -> Reply:
    """``/game deadline hours:N [side:S]``: the side (the one to move by default) must act
    within N hours; 0 clears its deadline."""
    request, rules, document = call.request, call.rules, call.document
    reply = _reply(call)
    hours = int_option(request.options, "hours", 24, 0, MAX_DEADLINE_HOURS)
    sides = rules.sides(document)
    wanted = request.options.get("side") or rules.view(document, REFEREE).awaiting
    side = side_named(sides, wanted)  # a side's id or its name in any language
    if hours == 0:
        await stored.clear_deadline(call.store, request.channel_id, side)
        reply.notices.append(Outcome.of("bot.deadline.cleared", side=sides[side]))
        return reply
    due = datetime.now(UTC) + timedelta(hours=hours)
    await stored.set_deadline(call.store, request.channel_id, side, due)
    reply.notices.append(
        Outcome.of(
            "bot.deadline.set",
            side=sides[side],
            hours=hours,
            when=when_text(due, discord=request.guild_id is not None),
        )
    )
    return reply


async def set_pace(call: GameCall) -> Reply:
    """``/game pace hours:N``: every owed action gets N hours (0: no pace)."""
    request, rules, document = call.request, call.rules, call.document
    reply = _reply(call)
    hours = int_option(request.options, "hours", 24, 0, MAX_DEADLINE_HOURS)
    await stored.set_pace(call.store, request.channel_id, hours or None)
    if not hours:
        reply.notices.append(Outcome.of("bot.deadline.pace_off"))
        return reply
    reply.notices.append(Outcome.of("bot.deadline.pace", hours=hours))

    # The sides owing now get their time at once, not at their next command.
    def owing_now() -> set[str]:
        view = rules.view(document, REFEREE)
        return owing_sides(view.follow_ups, view.awaiting)

    owing = await call.services.off_loop(owing_now)
    due = datetime.now(UTC) + timedelta(hours=hours)
    sides = rules.sides(document)
    for side in sorted(owing):
        await stored.set_deadline(call.store, request.channel_id, side, due)
        reply.notices.append(
            Outcome.of(
                "bot.deadline.due",
                side=sides.get(side, side),
                when=when_text(due, discord=request.guild_id is not None),
            )
        )
    return reply


def _reply(call: GameCall) -> Reply:
    record = call.record
    return Reply(language=record.language, ruleset=record.ruleset, head_hash=record.head_hash)


async def due_reminders(
    services: Services,
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
    store = services.store
    moment = now or datetime.now(UTC)
    replies = []
    for deadline, record in await stored.owed_reminders(store, moment, owns_guild):
        expired = deadline.due_at <= moment
        if expired:
            claimed = await stored.mark_reminded(store, deadline)
        else:
            claimed = await stored.claim_warning(
                store, deadline.channel_id, deadline.side, deadline.due_at
            )
        if not claimed:
            continue  # Claimed by another process (or the deadline moved meanwhile).
        sides = services.rules(record.ruleset).sides(record.document)
        reply = Reply(language=record.language, ruleset=record.ruleset)
        reply.notices.append(
            Outcome.of(
                "bot.deadline.passed" if expired else "bot.deadline.soon",
                side=sides.get(deadline.side, deadline.side),
                when=when_text(deadline.due_at, discord=record.guild_id is not None),
            )
        )
        reply.ping = players_among(await store.members(deadline.channel_id), deadline.side)
        # Who is told how is the players' choice (whoever listens): declared, not decided.
        reply.notable.append(
            Notable(
                kind="deadline_passed" if expired else "deadline_soon",
                users=tuple(reply.ping),
                channel=deadline.channel_id,
                guild=record.guild_id,
                title=in_language(stored_title(record.document), record.language),
                language=record.language,
                about=f"{deadline.channel_id}:{deadline.side}:{format_timestamp(deadline.due_at)}",
                params={"side": sides.get(deadline.side, deadline.side)},
            )
        )
        replies.append((deadline.channel_id, reply))
    return replies


HANDLERS = (
    GameHandler(("game.deadline",), who=Who.REFEREE, run=set_deadline),
    GameHandler(("game.pace",), who=Who.REFEREE, run=set_pace),
)

REACTIONS = (
    Follower(name="deadlines.follow", of=_has_deadlines, run=follow_what_is_owed),
    Timer(name="deadlines.reminders", run=due_reminders),
    StatusPart(name="deadlines.due", run=due_notices),
)
