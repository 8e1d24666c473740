"""The follower: after every command that wrote to a game, who is newly owed a notice.

It compares what each side owes before and after the write (the game as the command read
it, and as it left it): the players of a side that owes now and did not before get a
"your move" notice; when the write ended the game, every player gets an "ended" one. A
command that changes nothing owed queues nothing, so a notice follows a change, never a
command. Each notice is keyed by what it is about (the game's chain head after the write),
so nothing queues it twice. The game's own message pings whoever it pings; a player who
chose direct messages only, nothing, or muted the game is taken off that ping.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import partial

from bot.service.handlers import Written
from bot.service.notices import records, watchers
from bot.service.notices.pings import unping
from bot.service.notices.policy import mentioned, wants_direct
from bot.service.notices.records import Notice
from db.models import GameRecord, Member
from rules.core.resolution import Outcome
from rules.core.words import in_language, stored_title


def link_of(guild_id: int | None, channel_id: int) -> str:
    """Where a notice leads: the game's channel (a jump link in a server)."""
    if guild_id is None:
        return f"#{channel_id}"
    return f"https://discord.com/channels/{guild_id}/{channel_id}"


def title_of(record: GameRecord) -> str:
    """The game's title, as its scenario names it in the game's language (the notice's)."""
    title = in_language(stored_title(record.document), record.language)
    return title[:200] or f"#{record.channel_id}"


def notice_for(record: GameRecord, user: int, kind: str, **params: str) -> Notice:
    """A notice of ``kind`` about the game ``record`` for ``user``."""
    return Notice(
        user=user,
        kind=kind,
        channel=record.channel_id,
        guild=record.guild_id,
        title=title_of(record),
        language=record.language,
        params={"link": link_of(record.guild_id, record.channel_id), **params},
    )


def _players(members: Iterable[Member], sides: set[str]) -> list[tuple[int, str]]:
    return sorted((m.user_id, m.side) for m in members if m.role == "player" and m.side in sides)


async def follow(written: Written) -> list[Outcome]:
    """Queue the notices a write owes: "your move" to the players of each side that
    newly owes, "ended" to every player when it ended the game. What is owed after the
    write is worked out once for every follower (`Written.owing_after`); what was owed
    before only when a side owes now."""
    call = written.call
    rules = call.rules
    await watchers.WATCHERS.read(call.store)  # the set was stale: decide by a fresh one
    seated = frozenset(m.user_id for m in call.context.members if m.role == "player")
    if not watchers.WATCHERS.follows(seated):
        return []
    now = await written.owing_after()
    was_over = call.record.status == "ended"
    if now.ended and not was_over:
        sides = set(rules.sides(call.document))
        await _queue(written, _players(call.context.members, sides), "ended")
        return []
    if not now.sides:
        return []
    newly = set(now.sides - (await written.owing_before()).sides)
    if newly:
        names = rules.sides(call.document)
        players = _players(call.context.members, newly)
        await _queue(written, players, "your_move", names)
    return []


async def _queue(
    written: Written,
    players: list[tuple[int, str]],
    kind: str,
    names: Mapping[str, str] | None = None,
) -> None:
    store, after = written.call.store, written.after
    moment = datetime.now(UTC)
    queued: list[str] = []
    for user, side in players:
        settings = await records.settings_of(store, after.guild_id, user)
        if not mentioned(settings, kind, after.channel_id):
            unping(written.reply, user)
        if not wants_direct(settings, kind, after.channel_id):
            continue
        # The side in the game's language: a notice keeps plain text.
        params = {"side": in_language(names.get(side, side), after.language)} if names else {}
        notice = notice_for(after, user, kind, **params)
        # The chain's head names this write of this game: a version alone would come
        # again when another game is played in the same channel.
        written_as = after.head_hash or f"v{after.version}"
        key = f"{kind}:{after.channel_id}:{written_as}:{user}"
        if await records.queue(store, key, notice, moment):
            queued.append(key)
    if queued:  # each leads to the message that told of it, once it is posted
        written.reply.on_posted.append(partial(records.relink, store, after.guild_id, queued))


__all__ = ["follow", "link_of", "notice_for", "title_of"]
