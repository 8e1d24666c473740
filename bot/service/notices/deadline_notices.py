"""Deadline notices for the players who asked for them by direct message.

The deadlines' own reminders go to the game's channel. For a player who chose a direct
message for "deadline near" or "deadline passed", the notices' timer looks at the same
deadlines (their records, `bot.service.stored.deadlines`) before the reminders are claimed
— the notices' timer runs first in every round, on the same moment — and queues one notice
per player, per deadline and kind: its key names the deadline's due time, so a round that
sees it again, or another process, queues nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.service.handlers import Services
from bot.service.notices import records
from bot.service.notices.follow import notice_for
from bot.service.notices.policy import stamp, wants_direct
from bot.service.stored import deadlines as stored
from rules.core.words import in_language


async def queue_deadline_notices(
    services: Services, now: datetime, owns_guild: Callable[[int | None], bool] | None
) -> None:
    """Queue the deadline notices owed at ``now`` to players who want them directly."""
    store = services.store
    for deadline, record in await stored.owed_reminders(store, now, owns_guild):
        kind = "deadline_passed" if deadline.due_at <= now else "deadline_soon"
        marker = f"{kind}:{deadline.channel_id}:{deadline.side}:{stamp(deadline.due_at)}"
        if not await records.first_look(store, deadline.channel_id, marker):
            continue  # seen already, by this round's predecessor or another process
        members = await store.members(deadline.channel_id)
        names = services.rules(record.ruleset).sides(record.document)
        for member in members:
            if member.role != "player" or member.side != deadline.side:
                continue
            settings = await records.settings_of(store, record.guild_id, member.user_id)
            if not wants_direct(settings, kind, deadline.channel_id):
                continue
            # In the game's language: a notice keeps plain text.
            side = in_language(names.get(deadline.side, deadline.side), record.language)
            notice = notice_for(record, member.user_id, kind, side=side)
            await records.queue(store, f"{marker}:{member.user_id}", notice, now)


__all__ = ["queue_deadline_notices"]
