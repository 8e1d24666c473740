"""The listener: what a command or a timer declared notable, told as each player chose.

A feature declares what its write made owed or happen as data on its reply
(``Reply.notable``: the campaign an aftermath or a confirmation owed, its next game linked,
a roster adjusted; the deadlines a reminder), and the notices hear it here without knowing
who declared it, nor the declaring feature them. For each player it concerns who chose how
to be told (`watchers`, then their saved settings; the others keep the feature's own
message as it is): the reply stops pinging a player who chose a direct message only,
nothing, or muted that game, and pings one who chose a mention; a notice is queued for
those who chose a direct message. Each notable thing is queued for once (a marker in its
game's records, the one the deadline notices take: `deadline_notices`), so a reply heard
twice, on two processes, or a deadline seen first by the notices' timer, is told once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from bot.service.handlers import Services
from bot.service.notices import records, watchers
from bot.service.notices.follow import link_of
from bot.service.notices.pings import ping, unping
from bot.service.notices.policy import mentioned, wants_direct
from bot.service.notices.records import Notice
from bot.service.replies import Notable, Reply


async def hear(services: Services, reply: Reply) -> None:
    """Adjust whom ``reply`` pings and queue the direct messages its notable things owe."""
    store = services.store
    concerned = frozenset(user for notable in reply.notable for user in notable.users)
    if not concerned:
        return
    await watchers.WATCHERS.read(store)
    if not watchers.WATCHERS.follows(concerned):
        return
    for notable in reply.notable:
        direct: list[int] = []
        for user in notable.users:
            settings = await records.stored_settings(store, notable.guild, user)
            if settings is None:
                continue  # never chose: the feature's own message, as it is
            if mentioned(settings, notable.kind, notable.channel):
                ping(reply, user)
            else:
                unping(reply, user)
            if wants_direct(settings, notable.kind, notable.channel):
                direct.append(user)
        if direct:
            await _queue(services, reply, notable, direct)


async def _queue(services: Services, reply: Reply, notable: Notable, users: list[int]) -> None:
    store = services.store
    marker = f"{notable.kind}:{notable.about}"
    if not await records.first_look(store, notable.channel, marker):
        return  # queued already, by an earlier hearing or another process
    moment = datetime.now(UTC)
    keys = [f"{marker}:{user}" for user in users]
    for key, user in zip(keys, users, strict=True):
        await records.queue(store, key, _notice(notable, user), moment)
    # Each leads to the message that told of it once posted, if posted in its channel.
    reply.on_posted.append(partial(records.relink, store, notable.guild, keys))


def _notice(notable: Notable, user: int) -> Notice:
    return Notice(
        user=user,
        kind=notable.kind,
        channel=notable.channel,
        guild=notable.guild,
        title=notable.title[:200] or f"#{notable.channel}",
        language=notable.language,
        params={"link": link_of(notable.guild, notable.channel), **notable.params},
        page=notable.page,
        line=notable.line,
    )


__all__ = ["hear"]
