"""Between games (issue 27, item 7): the date each game should be played by, the reminder
before it, the referee told when it passes, and the referee's decision (logged).

``/campaign game … by:YYYY-MM-DD`` (else the book's spacing) logs ``campaign.due``. A
record of the campaign (``campaign_due``, keyed by the game's number) sits on the store's
time index: first at the day before the date (the players of the game are reminded in its
channel), then at the day after it (the referee is told in the campaign's channel). Each
stage is claimed with a compare-and-set on the record's revision, so of bot processes
racing for it one posts it, once. ``/campaign overdue game: decision:`` logs
``campaign.overdue``: ``extend:<date>`` moves the date, ``forfeit:<side>`` and ``draw``
end the game by the referee's decision in its channel (its log says so), and its result
enters the campaign as any game's does.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from typing import Any

from bot.service.campaign.follow import catch_up
from bot.service.campaign.ledger import (
    language_of,
    load_campaign,
    log_event,
    log_requested,
    referee_only,
)
from bot.service.errors import ServiceError
from bot.service.handlers import Call, GameCall, GameHandler, Services
from bot.service.replies import Reply
from bot.service.requests import Request, int_option, seat_among
from bot.service.stored.table import open_table
from db.errors import GameNotFound, StoreError
from db.models import GameRecord, Scope
from rules.campaign.book import MAX_DUE_DAYS
from rules.campaign.events import CampaignDue, CampaignOverdue
from rules.campaign.state import MAX_GAMES, CampaignState
from rules.campaign.story import default_due
from rules.core.ending import DECIDE, NO_WINNER
from rules.core.errors import InvalidInput
from rules.core.resolution import Outcome
from rules.core.words import joined
from rules.render import channel_label

log = logging.getLogger(__name__)

#: The campaign's record of a game's date on the store's time index.
DUE = "campaign_due"
WARNING = "warning"
OVERDUE = "overdue"
DONE = "done"


def today() -> dt.date:
    """Today's date (UTC): the one moment this module reads the clock."""
    return dt.datetime.now(dt.UTC).date()


def parse_date(text: str, option: str, *, after: dt.date) -> dt.date:
    """A date typed ``YYYY-MM-DD``, later than ``after`` and within :data:`MAX_DUE_DAYS`."""
    try:
        date = dt.date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput("error.campaign.bad_date", option=option, value=text[:20]) from None
    if not after < date <= after + dt.timedelta(days=MAX_DUE_DAYS):
        raise InvalidInput(
            "error.campaign.date_range", option=option, after=after.isoformat(), days=MAX_DUE_DAYS
        )
    return date


def due_wanted(state: CampaignState, options: Mapping[str, Any]) -> dt.date | None:
    """The date ``/campaign game`` sets: ``by:``, else the book's spacing, else none."""
    now = today()
    typed = str(options.get("by") or "")
    return (
        parse_date(typed, "by", after=now - dt.timedelta(days=1))
        if typed
        else default_due(state, now)
    )


def _moment(date: dt.date, days: int) -> dt.datetime:
    return dt.datetime.combine(date + dt.timedelta(days=days), dt.time(), tzinfo=dt.UTC)


async def _arm(services: Services, campaign: int, number: int, channel: int, by: dt.date) -> None:
    """Put the game's date on the time index: its reminder owed the day before."""
    value = {"number": number, "channel": channel, "by": by.isoformat(), "stage": WARNING}
    await services.store.feature_put(
        DUE, Scope.of_game(campaign), str(number), value, due_at=_moment(by, -1)
    )


async def set_due(
    call: Call, record: GameRecord, state: CampaignState, number: int, by: dt.date | None
) -> Outcome | None:
    """Log that game ``number`` should be played by ``by`` and arm its reminders."""
    if by is None:
        return None
    request = call.request
    await log_event(
        call.services,
        record,
        state,
        CampaignDue(number=number, by=by),
        actor_id=request.user_id,
        actor_name=request.user_name,
        interaction_id=None if request.interaction_id is None else f"{request.interaction_id}/due",
    )
    entry = state.game(number)
    if entry is not None:
        await _arm(call.services, record.channel_id, number, entry.channel, by)
    return Outcome.of("bot.campaign.due.set", number=number, by=by.isoformat())


# -- /campaign overdue --------------------------------------------------------------------------


async def overdue_decision(call: Call) -> Reply:
    """``/campaign overdue game:N decision:extend:<date>|forfeit:<side>|draw`` (the referee)."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    referee_only(call, state)
    number = int_option(request.options, "game", 0, 1, MAX_GAMES)
    entry = state.game(number)
    if entry is None or entry.result is not None:
        raise ServiceError("error.campaign.not_playing", number=number)
    decided = state.calendar.decisions.get(number)
    if decided is not None and decided.decision != "extend":
        # Decided, but the game's end did not follow (a process stopped, a conflict): the
        # decision logged stands, the game ends by it now.
        return await _settle_decision(call, record, state, decided, seq=None)
    by = state.calendar.due.get(number)
    if by is None:
        raise ServiceError("error.campaign.no_date", number=number)
    now = today()
    kind, _, argument = str(request.options.get("decision") or "").strip().partition(":")
    event: CampaignOverdue
    if kind == "extend":
        until = parse_date(argument, "decision", after=max(by, now - dt.timedelta(days=1)))
        event = CampaignOverdue(number=number, decision="extend", until=until)
    elif kind in ("forfeit", "draw"):
        if by >= now:
            raise ServiceError("error.campaign.not_overdue", number=number, by=by.isoformat())
        side = _side(state, argument) if kind == "forfeit" else None
        event = CampaignOverdue(number=number, decision=kind, side=side)
    else:
        raise InvalidInput("error.campaign.bad_decision", value=kind[:20])
    state, seq = await log_requested(call, record, state, event)
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    if event.until is not None:
        await _arm(services, record.channel_id, number, entry.channel, event.until)
        reply.notices.append(
            Outcome.of("bot.campaign.due.extended", number=number, by=event.until.isoformat())
        )
        return reply
    return await _settle_decision(call, record, state, event, seq=seq)


async def _settle_decision(
    call: Call, record: GameRecord, state: CampaignState, event: CampaignOverdue, seq: int | None
) -> Reply:
    """A forfeit or a draw: the game ends by the referee's decision in its own log, and its
    result enters the campaign as any end's does."""
    services, number = call.services, event.number
    entry = state.game(number)
    if entry is None:
        raise ServiceError("error.campaign.not_playing", number=number)
    await services.store.feature_delete(DUE, Scope.of_game(record.channel_id), str(number))
    winner = None if event.side is None else next(s for s in state.sides if s != event.side)
    await _end_game(call, entry.channel, state.referee, winner, event.decision)
    record = await services.store.load(record.channel_id)
    await catch_up(services, record, state)
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    reply.notices.append(
        Outcome.of(
            "bot.campaign.due.forfeit" if event.side else "bot.campaign.due.draw",
            number=number,
            side=state.sides.get(event.side or "", ""),
        )
    )
    return reply


def _side(state: CampaignState, wanted: str) -> str:
    for side, label in state.sides.items():
        if wanted.strip().casefold() in (side.casefold(), label.casefold()):
            return side
    raise InvalidInput(
        "error.campaign.unknown_side", side=wanted[:40], known=joined(state.sides.values())
    )


async def _end_game(
    call: Call, channel: int, referee: int, winner: str | None, decision: str
) -> None:
    """End the linked game by the referee's decision, in its own log (a game ended
    meanwhile is left as it is: its own result enters the campaign)."""
    services = call.services
    context = await open_table(services.store, channel)
    record = context.record
    if record.status == "ended" or record.is_campaign:
        return
    rules = services.rules(record.ruleset)
    request = Request(
        channel,
        referee,
        DECIDE,
        options={"result": winner or NO_WINNER, "reason": f"campaign: {decision}"},
        guild_id=call.request.guild_id,
        user_name=call.request.user_name,
        interaction_id=None
        if call.request.interaction_id is None
        else f"{call.request.interaction_id}/end",
    )
    seat = seat_among(request, context.members, context.side_roles)
    document = rules.document_format.upgrade(record.document)
    game_call = GameCall(request, services, call.table, context, rules, document, seat)
    # The results feature's handler, found in the handler table like any command's.
    decide = call.table.handler(DECIDE)
    if not isinstance(decide, GameHandler):
        raise TypeError(f"{DECIDE} is not a game command")
    await decide.run(game_call)


# -- reminders ------------------------------------------------------------------------------------


async def campaign_reminders(
    services: Services,
    now: dt.datetime,
    *,
    owns_guild: Callable[[int | None], bool] | None = None,
) -> list[tuple[int, Reply]]:
    """The reminders of games' dates due at ``now``: the day before, to the game's players
    in its channel; the day after, to the referee in the campaign's channel. Each claimed
    once across processes (a compare-and-set on the record's revision)."""
    store = services.store
    replies: list[tuple[int, Reply]] = []
    for found in await store.feature_due(DUE, now):
        value = found.value
        campaign = found.scope.id
        try:
            record, state = await load_campaign(services, campaign)
            number, by = int(value["number"]), dt.date.fromisoformat(str(value["by"]))
        except (ServiceError, StoreError, GameNotFound, ValueError, KeyError):
            log.warning("campaign %s: a game's date cannot be read", campaign, exc_info=True)
            continue
        if owns_guild is not None and not owns_guild(record.guild_id):
            continue
        entry = state.game(number)
        current = entry is not None and entry.result is None and state.calendar.due.get(number)
        stage = str(value.get("stage"))
        later = {**value, "stage": OVERDUE if stage == WARNING else DONE}
        claimed = await store.feature_put(
            DUE,
            found.scope,
            found.key,
            later,
            due_at=_moment(by, 1) if stage == WARNING and current == by else None,
            expected_revision=found.revision,
        )
        if claimed is None or entry is None or current != by:
            continue  # another process took it, or the game settled or moved its date
        language = language_of(record)
        reply = Reply(language=language, ruleset=state.ruleset)
        if stage == WARNING:
            reply.notices.append(
                Outcome.of("bot.campaign.due.soon", number=number, name=state.name, by=str(by))
            )
            reply.ping = [u for users in state.players.values() for u in users]
            replies.append((entry.channel, reply))
        else:
            reply.notices.append(
                Outcome.of(
                    "bot.campaign.due.passed",
                    number=number,
                    by=str(by),
                    channel=channel_label(entry.channel, record.guild_id is not None),
                )
            )
            reply.ping = [state.referee]
            replies.append((campaign, reply))
    return replies


__all__ = ["campaign_reminders", "due_wanted", "overdue_decision", "parse_date", "set_due"]
