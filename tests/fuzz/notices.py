"""The fuzzers' check of the notices: every player asked for direct messages of every kind,
and after each command the notices it queued are read (and taken, as delivery would take
them). None may repeat one queued before for the same thing, and a "your move" notice
goes only to a player whose side owes now; an "ended" one only once the game has ended."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.service.notices import records
from db.models import Scope
from db.protocol import GameStore
from rules.core.play import GamePlay


def owing(play: GamePlay, document: Mapping[str, Any]) -> set[str]:
    """The sides that owe something in a game in play."""
    if play.result(document) is not None:
        return set()
    sides = {f.side for f in play.follow_ups(document) if f.side is not None}
    awaited = play.awaiting(document)
    return sides or ({awaited} if awaited is not None else set())


class NoticeCheck:
    """What a fuzzer's game queued so far, checked command by command."""

    def __init__(self, store: GameStore, guild: int, play: GamePlay) -> None:
        self.store, self.guild, self.play = store, guild, play
        #: What each notice was about (kind, channel, user, the game's version).
        self.seen: set[str] = set()

    async def opt_in(self, send: Callable[..., Any], users: list[int]) -> None:
        """Each player asks for a direct message of every kind."""
        for user in users:
            await send(user, "notify.set", {"kind": "all", "via": "dm"})

    def owed_users(self, document: Mapping[str, Any], players: Mapping[str, int]) -> set[int]:
        """The players whose side owes something in ``document``."""
        document = self.play.load_document(document)
        return {players[side] for side in owing(self.play, document) if side in players}

    async def after(
        self, channel: int, players: Mapping[str, int], owed_before: set[int] | None = None
    ) -> list[str]:
        """The faults of the notices queued since the last check (taken off the outbox);
        ``owed_before``: the players who owed before the command (none is told again)."""
        record = await self.store.load(channel)
        document = self.play.load_document(record.document)
        owed_users = self.owed_users(record.document, players)
        ended = record.status == "ended" or self.play.result(document) is not None
        faults = []
        for queued in await self.store.feature_list(records.OUTBOX, Scope.of_guild(self.guild)):
            notice = records.Notice.of_value(queued.value)
            if notice.channel != channel:
                continue
            if queued.key in self.seen:
                faults.append(f"notice queued twice: {queued.key}")
            self.seen.add(queued.key)
            if notice.kind == "your_move" and notice.user not in owed_users:
                faults.append(f"a notice for u{notice.user}, whose side owes nothing")
            if notice.kind == "your_move" and notice.user in (owed_before or ()):
                faults.append(f"u{notice.user} told again while their side still owed")
            if notice.kind == "ended" and not ended:
                faults.append(f"an end told to u{notice.user} while the game goes on")
            await records.claim(self.store, queued)
        return faults


__all__ = ["NoticeCheck", "owing"]
