"""The timer: the notices due, each claimed once across bot processes, as replies.

For each notice due, the player's settings decide (:func:`~.policy.route`): held until
their quiet hours end, folded into their digest, dropped (a game muted since), or sent as
a direct message — at most one of a kind per period, the rest folded into the digest. A
notice is claimed before it is built (its record deleted at the revision read: one process
wins), so a process that dies between claim and post loses it rather than anyone sending
it twice. Digests due go out the same way, one message for all the games they gathered.

Delivery itself is the front end's: the replies are :class:`DirectReply`; one the
player's messages refuse awaits its ``refused``, which records the block and answers the
mention the game's channel gets instead (told once why).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial

from bot.service.handlers import Due, Services
from bot.service.links import Kind, page_url
from bot.service.notices import records
from bot.service.notices.deadline_notices import queue_deadline_notices
from bot.service.notices.policy import Action, quiet_until, route
from bot.service.notices.records import Notice
from bot.service.replies import DirectReply, Reply
from db.protocol import GameStore
from rules.core.resolution import Outcome

#: At most one direct message of a kind per player in this period (minutes, from the
#: environment: ``ARBITRO_NOTICE_PERIOD_MINUTES``); the rest wait for the digest.
DEFAULT_PERIOD = timedelta(hours=1)


def direct_period() -> timedelta:
    """The period of the limit of one direct message per kind (the environment's, else an
    hour)."""
    raw = os.environ.get("ARBITRO_NOTICE_PERIOD_MINUTES", "")
    return timedelta(minutes=int(raw)) if raw.isdigit() else DEFAULT_PERIOD


def outcome_of(notice: Notice, *, personal: bool = True) -> Outcome:
    """A notice's line, with its game's title and link: to the game's web page, signed for
    the notice's one reader, when the pages are on and only that reader sees the line
    (``personal``: a direct message, the inbox), else to its channel."""
    params = dict(notice.params)
    kind: Kind = "campaign" if notice.page == "campaign" else "game"
    page = page_url(kind, notice.channel, notice.user)
    if personal and page is not None:
        params["link"] = page
    return Outcome.of(notice.line or f"bot.notice.{notice.kind}", title=notice.title, **params)


async def _refused(store: GameStore, notices: Sequence[Notice]) -> Reply:
    """A direct message the player's settings refused: the block recorded, and the mention
    the game's channel gets instead (the first time, with why)."""
    first = notices[0]
    told = await records.record_block(store, first.guild, first.user)
    reply = Reply(language=first.language, ping=[first.user])
    # Posted in the game's channel: the channel's link, never the player's own page.
    reply.notices = [outcome_of(n, personal=False) for n in notices]
    if told:
        reply.notices.append(Outcome.of("bot.notice.blocked"))
    return reply


def _direct(store: GameStore, notices: Sequence[Notice], *, digest: bool = False) -> DirectReply:
    first = notices[0]
    reply = DirectReply(
        language=first.language, user=first.user, refused=partial(_refused, store, notices)
    )
    if digest:
        reply.notices.append(Outcome.of("bot.notice.digest", n=len(notices)))
    reply.notices += [outcome_of(n) for n in notices]
    return reply


async def due_notices(
    services: Services,
    now: datetime,
    *,
    owns_guild: Callable[[int | None], bool] | None = None,
) -> Due:
    """The direct messages due at ``now`` (notices and digests), each claimed once; the
    deadline notices owed at ``now`` queued first."""
    store, period = services.store, direct_period()
    await queue_deadline_notices(services, now, owns_guild)
    out: Due = []
    for record in await records.due(store, now):
        notice = Notice.of_value(record.value)
        if owns_guild is not None and not owns_guild(notice.guild):
            continue
        settings = await records.settings_of(store, notice.guild, notice.user)
        decision = route(settings, notice.kind, notice.channel, now, None, period)
        if decision.action is Action.LATER and decision.until is not None:
            await records.hold(store, record, decision.until)
            continue
        if not await records.claim(store, record):
            continue  # another process has it
        if decision.action is Action.DIGEST:
            await records.fold(store, notice, now)
        elif decision.action is Action.SEND:
            if await records.take_direct(store, notice.user, notice.kind, now, period):
                out.append((notice.channel, _direct(store, [notice])))
            else:
                await records.fold(store, notice, now)
    for record in await records.due_digests(store, now):
        items = records.digest_items(record)
        if not items or (owns_guild is not None and not owns_guild(items[0].guild)):
            continue
        first = items[0]
        settings = await records.settings_of(store, first.guild, first.user)
        until = quiet_until(settings, now)
        if until is not None:
            await records.hold(store, record, until)
        elif await records.claim(store, record):
            out.append((items[0].channel, _direct(store, items, digest=True)))
    return out


__all__ = ["DEFAULT_PERIOD", "direct_period", "due_notices", "outcome_of"]
