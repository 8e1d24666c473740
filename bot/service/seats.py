"""Who sits where: seat changes, the referee's hand-over and take-over, the roster.

Every seat change is written to the members table and logged in the game's chain as a
``seat.*`` event (the document unchanged), so ``/game log`` and the export tell who joined,
left, was reseated or became referee, and when. ``/game undo`` and ``/takeback`` never
undo a seat change: the referee changes a seat back with another seat command.

``/game join`` and ``/game leave`` are the players'; ``/seat assign|remove|bind`` and
``/game referee`` the referee's; ``/game takeover`` a channel manager's, once the referee is
gone.

A seat is taken by consent: the first player of an empty side joins freely, but joining a
side that has players is a request (``seat.request``) that the referee or one of the side's
players approves (``/seat approve user:``, ``seat.approve``; ``/seat assign`` seats anyone
too); ``/seat approve`` of someone who asked nothing invites them (``seat.invite``), and
their ``/game join`` of that side is then immediate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from bot.service.errors import ServiceError
from bot.service.events import (
    SEAT_APPROVE,
    SEAT_ASSIGN,
    SEAT_BIND,
    SEAT_INVITE,
    SEAT_JOIN,
    SEAT_LEAVE,
    SEAT_REFEREE,
    SEAT_REMOVE,
    SEAT_REQUEST,
    seat_event,
)
from bot.service.handlers import GameCall, GameHandler, StatusPart, Who
from bot.service.replies import Reply
from bot.service.requests import int_option, member_side, role_option, side_named
from bot.service.stored.seat_names import note_seat_name
from bot.service.stored.seats import (
    Consent,
    bind_side,
    consent_of,
    drop_consent,
    held_side_of,
    note_consent,
    note_held_side,
)
from db.models import Document, EventRecord, Member
from rules.core.resolution import Outcome

#: A referee who has given no command for this long is gone: a member who may manage the
#: channel (Discord's Manage Channels) may take the game over.
TAKEOVER_AFTER = timedelta(hours=72)


def mention(user_id: int) -> str:
    """A member as Discord shows a mention (the console puts the seat's name instead)."""
    return f"<@{user_id}>"


async def roster_notices(call: GameCall, sides: Mapping[str, str]) -> list[Outcome]:
    """The roster for ``/game status`` (a status part): the referee(s), then each side and
    its players, then the seats pending (requests and invitations), as read with it."""
    context = call.context
    members, side_roles, pending = context.members, context.side_roles, context.pending_seats
    notices = []
    referees = [mention(m.user_id) for m in members if m.role == "referee"]
    if referees:
        notices.append(Outcome.of("bot.seats.referee", players=", ".join(referees)))
    bound = dict(side_roles)
    for side, name in sides.items():
        players = [mention(m.user_id) for m in members if m.role == "player" and m.side == side]
        if side in bound:
            players.append(f"<@&{bound[side]}>")
        notices.append(
            Outcome.of(
                "bot.seats.side",
                side=name,
                players=", ".join(players) if players else "—",
            )
        )
    for consent in pending:
        notices.append(
            Outcome.of(
                f"bot.seats.pending_{consent.kind}",
                user=mention(consent.user),
                side=sides.get(consent.side, consent.side),
            )
        )
    return notices


def _occupied(call: GameCall, side: str) -> bool:
    """Whether ``side`` has players already (seated, or bound to a role)."""
    members = call.context.members
    seated = any(m.role == "player" and m.side == side for m in members)
    return seated or any(bound == side for bound, _ in call.context.side_roles)


def referee_gone(referees: Sequence[Member], events: Sequence[EventRecord], now: datetime) -> bool:
    """Whether no referee has acted for :data:`TAKEOVER_AFTER` (or the game has none)."""
    ids = {m.user_id for m in referees}
    if not ids:
        return True
    last = max(
        (e.created_at for e in events if e.actor_id in ids),
        default=min((m.joined_at for m in referees), default=now),
    )
    return now - last >= TAKEOVER_AFTER


def _reply(call: GameCall, head_hash: str | None = None) -> Reply:
    """The reply to a seat command, carrying the chain's head after it (``head_hash``, the
    seat event's hash, when the command logged one)."""
    record = call.record
    head = head_hash or record.head_hash
    return Reply(language=record.language, ruleset=record.ruleset, head_hash=head)


async def _note_name(call: GameCall) -> None:
    """Record the asker's display name for the seat they take."""
    request = call.request
    await note_seat_name(
        call.store, request.channel_id, request.user_id, request.user_name, call.context.seat_names
    )


async def _log_seat(call: GameCall, verb: str, **args: Any) -> str:
    """Log a seat change in the game's chain (the document unchanged): the log and the
    export tell who sat where, and when. Returns the chain's new head (the reply shows it)."""
    request = call.request
    record = await call.store.load(request.channel_id)
    event = seat_event(request, verb, **args)
    preparer = getattr(call.store, "preparer", None)
    text = record.document_text
    # The document unchanged: committed as the verified text just read, not encoded and
    # diffed again on a worker thread (db.chain.prepare.CommitPreparer.unchanged).
    document: Document = (
        record.document
        if preparer is None or text is None
        else preparer.unchanged(request.channel_id, text)
    )
    committed = await call.store.commit(request.channel_id, record.version, document, event)
    return committed.event.hash


async def join(call: GameCall) -> Reply:
    """``/game join side:S``: a seat on a side (the referee keeps refereeing)."""
    request, seat = call.request, call.seat
    if not seat.seated:  # anyone may join: the log's rate limit applies
        call.services.limiter.admit(request.channel_id, request.user_id, seated=False, join=True)
    reply = _reply(call)
    sides = call.rules.sides(call.document)
    side = side_named(sides, request.options.get("side"))
    kept = seat.side
    if kept is None and not seat.referee:  # a player who left keeps the side they held
        kept = await held_side_of(call.store, request.channel_id, request.user_id)
    if kept is not None and kept != side:
        # A side is kept once joined: changing sides mid-game is the referee's call.
        raise ServiceError("error.service.side_kept", side=sides.get(kept, kept))
    role: Literal["referee", "player"] = "referee" if seat.referee else "player"
    # A referee's side is their membership's (their seat is the referee's).
    current = member_side(call.context.members, request.user_id) if seat.referee else seat.side
    if current == side:  # already there: nothing to log
        reply.notices.append(Outcome.of("bot.game.joined", side=sides[side]))
        return reply
    if role == "player" and _occupied(call, side):
        pending = await consent_of(call.store, request.channel_id, request.user_id)
        if pending is None or pending.kind != "invite" or pending.side != side:
            # A side with players takes no one they did not accept: a request to approve.
            await note_consent(
                call.store, request.channel_id, Consent(request.user_id, side, "request")
            )
            reply.head_hash = await _log_seat(call, SEAT_REQUEST, side=side)
            reply.notices.append(Outcome.of("bot.seats.requested", side=sides[side]))
            return reply
        await drop_consent(call.store, request.channel_id, request.user_id)
    await call.store.add_member(request.channel_id, request.user_id, side=side, role=role)
    if role == "player":
        await note_held_side(call.store, request.channel_id, request.user_id, side)
    await _note_name(call)
    reply.head_hash = await _log_seat(call, SEAT_JOIN, user=request.user_id, side=side)
    reply.notices.append(Outcome.of("bot.game.joined", side=sides[side]))
    return reply


async def leave(call: GameCall) -> Reply:
    """``/game leave``: a player gives up their seat (the referee cannot: a game needs one)."""
    request, seat = call.request, call.seat
    if seat.referee:
        raise ServiceError("error.service.referee_stays")
    if not seat.seated:
        raise ServiceError("error.service.join_first")
    await call.store.remove_member(request.channel_id, request.user_id)
    head = await _log_seat(call, SEAT_LEAVE, user=request.user_id)
    sides = call.rules.sides(call.document)
    reply = _reply(call, head)
    reply.notices.append(
        Outcome.of("bot.game.left", side=sides.get(seat.side or "", seat.side or "—"))
    )
    return reply


async def take_over(call: GameCall) -> Reply:
    """``/game takeover``: a member who manages the channel, and plays no side, becomes the
    referee of a game whose referee is gone (no command for :data:`TAKEOVER_AFTER`)."""
    request, store = call.request, call.store
    channel = request.channel_id
    if not request.manages_channel:
        raise ServiceError("error.service.seats.not_manager")
    if call.seat.side is not None and not call.seat.referee:
        # The referee reads every hidden unit and decides: not a side's player's seat.
        sides = call.rules.sides(call.document)
        side = call.seat.side
        raise ServiceError("error.service.seats.takeover_player", side=sides.get(side, side))
    referees = [m for m in call.context.members if m.role == "referee"]
    recent = await store.events(channel, after_seq=max(0, call.record.version - 200), limit=200)
    if call.seat.referee or not referee_gone(referees, recent, datetime.now(UTC)):
        raise ServiceError(
            "error.service.seats.referee_here", hours=int(TAKEOVER_AFTER.total_seconds()) // 3600
        )
    for member in referees:
        await store.add_member(channel, member.user_id, side=None, role="player")
    await store.add_member(channel, request.user_id, side=None, role="referee")
    await _note_name(call)
    head = await _log_seat(call, SEAT_REFEREE, user=request.user_id)
    reply = _reply(call, head)
    reply.notices.append(Outcome.of("bot.seats.took_over", user=mention(request.user_id)))
    return reply


async def bind(call: GameCall) -> Reply:
    """``/seat bind side:S role:@R``: whoever has the role plays the side (no role: unbound)."""
    request = call.request
    sides = call.rules.sides(call.document)
    bound = side_named(sides, request.options.get("side"))
    role_id = role_option(request.options)
    await bind_side(call.store, request.channel_id, bound, role_id)
    head = await _log_seat(call, SEAT_BIND, side=bound, role=role_id)
    reply = _reply(call, head)
    reply.notices.append(
        Outcome.of("bot.seats.bound", side=sides[bound], role=f"<@&{role_id}>")
        if role_id is not None
        else Outcome.of("bot.seats.unbound", side=sides[bound])
    )
    return reply


def _user(call: GameCall) -> int:
    return int_option(call.request.options, "user", 0, 1, 2**63 - 1)


async def hand_over(call: GameCall) -> Reply:
    """``/game referee user:@U``: the referee hands the game over (and becomes a player)."""
    request, store = call.request, call.store
    user = _user(call)
    if user == request.user_id:
        raise ServiceError("error.service.seats.same_referee")
    await store.add_member(request.channel_id, user, side=None, role="referee")
    await store.add_member(request.channel_id, request.user_id, side=None, role="player")
    head = await _log_seat(call, SEAT_REFEREE, user=user)
    reply = _reply(call, head)
    reply.notices.append(Outcome.of("bot.seats.handed_over", user=mention(user)))
    return reply


async def remove(call: GameCall) -> Reply:
    """``/seat remove user:@U``: the referee takes a player's seat away."""
    user = _user(call)
    if not await call.store.remove_member(call.request.channel_id, user):
        raise ServiceError("error.service.seats.not_seated", user=mention(user))
    head = await _log_seat(call, SEAT_REMOVE, user=user)
    reply = _reply(call, head)
    reply.notices.append(Outcome.of("bot.seats.removed", user=mention(user)))
    return reply


async def assign(call: GameCall) -> Reply:
    """``/seat assign user:@U side:S``: the referee seats (or reseats) a player."""
    request = call.request
    sides = call.rules.sides(call.document)
    user = _user(call)
    side = side_named(sides, request.options.get("side"))
    await call.store.add_member(request.channel_id, user, side=side, role="player")
    await note_held_side(call.store, request.channel_id, user, side)
    head = await _log_seat(call, SEAT_ASSIGN, user=user, side=side)
    reply = _reply(call, head)
    reply.notices.append(Outcome.of("bot.seats.assigned", user=mention(user), side=sides[side]))
    return reply


async def approve(call: GameCall) -> Reply:
    """``/seat approve user:@U [side:]`` (the referee or a side's player): seat a member
    who asked for a side, or invite one who did not (their ``/game join`` is then
    immediate). A player approves or invites for their own side only."""
    request, seat, store = call.request, call.seat, call.store
    sides = call.rules.sides(call.document)
    user = _user(call)
    pending = await consent_of(store, request.channel_id, user)
    reply = _reply(call)
    if pending is not None and pending.kind == "request":
        _may_seat(call, pending.side)
        await store.add_member(request.channel_id, user, side=pending.side, role="player")
        await note_held_side(store, request.channel_id, user, pending.side)
        await drop_consent(store, request.channel_id, user)
        reply.head_hash = await _log_seat(call, SEAT_APPROVE, user=user, side=pending.side)
        reply.notices.append(
            Outcome.of("bot.seats.assigned", user=mention(user), side=sides[pending.side])
        )
        return reply
    wanted = request.options.get("side")
    if wanted is None and seat.side is not None:
        wanted = seat.side
    if wanted is None:
        raise ServiceError("error.service.seats.invite_side")
    side = side_named(sides, wanted)
    _may_seat(call, side)
    await note_consent(store, request.channel_id, Consent(user, side, "invite"))
    reply.head_hash = await _log_seat(call, SEAT_INVITE, user=user, side=side)
    reply.notices.append(Outcome.of("bot.seats.invited", user=mention(user), side=sides[side]))
    return reply


def _may_seat(call: GameCall, side: str) -> None:
    """The referee seats on any side; a player on their own side only."""
    seat = call.seat
    if not seat.referee and seat.side != side:
        sides = call.rules.sides(call.document)
        raise ServiceError("error.service.seats.not_your_side", side=sides.get(side, side))


HANDLERS = (
    GameHandler(("game.join",), after_end=False, seats="asker", run=join),
    GameHandler(("game.leave",), after_end=False, run=leave),
    GameHandler(("game.referee",), who=Who.REFEREE, after_end=False, run=hand_over),
    GameHandler(("game.takeover",), after_end=False, run=take_over),
    GameHandler(("seat.assign",), who=Who.REFEREE, after_end=False, seats="member", run=assign),
    GameHandler(("seat.approve",), who=Who.SEATED, after_end=False, seats="member", run=approve),
    GameHandler(("seat.remove",), who=Who.REFEREE, after_end=False, run=remove),
    GameHandler(("seat.bind",), who=Who.REFEREE, after_end=False, run=bind),
)

#: ``/game status`` lists the roster (before the deadlines: the table's order).
REACTIONS = (StatusPart(name="seats.roster", run=roster_notices),)
