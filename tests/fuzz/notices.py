"""The fuzzers' check of the notices: every player asked for direct messages of every kind,
and after each command the notices it queued are read (and taken, as delivery would take
them). None may repeat one queued before for the same thing, and a "your move" notice
goes only to a player whose side owes now; an "ended" one only once the game has ended.
The campaign fuzzer's check (:class:`CampaignNoticeCheck`) does the same for the campaign's
kinds: an aftermath owed, a roster adjusted, a game linked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.service.notices import records
from db.models import Scope
from db.protocol import GameStore
from rules.campaign.state import CampaignState
from rules.core.i18n import LANGUAGES
from rules.core.seatview import REFEREE
from rules.core.surface import Rules
from rules.core.words import in_language


def owing(play: Rules, document: Mapping[str, Any]) -> set[str]:
    """The sides that owe something in a game in play."""
    if play.view(document, REFEREE).result is not None:
        return set()
    sides = {f.side for f in play.view(document, REFEREE).follow_ups if f.side is not None}
    awaited = play.view(document, REFEREE).awaiting
    return sides or ({awaited} if awaited is not None else set())


class NoticeCheck:
    """What a fuzzer's game queued so far, checked command by command."""

    def __init__(self, store: GameStore, guild: int, play: Rules) -> None:
        self.store, self.guild, self.rules = store, guild, play
        #: What each notice was about (kind, channel, user, the game's version).
        self.seen: set[str] = set()

    async def opt_in(self, send: Callable[..., Any], users: list[int]) -> None:
        """Each player asks for a direct message of every kind."""
        for user in users:
            await send(user, "notify.set", {"kind": "all", "via": "dm"})

    def owed_users(self, document: Mapping[str, Any], players: Mapping[str, int]) -> set[int]:
        """The players whose side owes something in ``document``."""
        document = self.rules.document_format.upgrade(document)
        return {players[side] for side in owing(self.rules, document) if side in players}

    async def after(
        self, channel: int, players: Mapping[str, int], owed_before: set[int] | None = None
    ) -> list[str]:
        """The faults of the notices queued since the last check (taken off the outbox);
        ``owed_before``: the players who owed before the command (none is told again)."""
        record = await self.store.load(channel)
        document = self.rules.document_format.upgrade(record.document)
        owed_users = self.owed_users(record.document, players)
        ended = record.status == "ended" or self.rules.view(document, REFEREE).result is not None
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


def aftermath_owed(state: CampaignState) -> set[tuple[int, str, str]]:
    """What each side may owe after the battles whose result is in, read from the state
    alone: (game, side, "roll") while its part is not rolled, (game, side, "confirm") once
    every part is and the side has not confirmed (nothing once settled or the campaign
    ended)."""
    owed: set[tuple[int, str, str]] = set()
    if state.ended:
        return owed
    for entry in state.games:
        held = state.aftermaths.get(entry.number)
        if entry.result is None or (held is not None and held.settled(list(state.sides))):
            continue
        rolled: tuple[str, ...] = ()
        if held is not None:  # rolled None: every side at once
            rolled = tuple(state.sides) if held.rolled is None else held.rolled
        unrolled = [side for side in state.sides if side not in rolled]
        owed.update((entry.number, side, "roll") for side in unrolled)
        if held is not None and not unrolled:
            owed.update(
                (entry.number, side, "confirm")
                for side in state.sides
                if side not in held.confirmed
            )
    return owed


def _names(state: CampaignState, side: str) -> set[str]:
    """A side's name as each language reads it (a notice holds it in its campaign's)."""
    return {in_language(state.sides[side], language) for language in LANGUAGES}


class CampaignNoticeCheck:
    """The notices of a fuzzed campaign: each player asks for direct messages of every kind
    as they join; after every step what was queued is taken and judged on the campaign's
    state then. None repeats one queued before; an aftermath owed goes only to a player
    whose side owes that game's roll (or its confirmation) now, a roster adjusted only to
    that side's players, a game linked only to the campaign's players, in a channel the
    campaign links."""

    def __init__(self, store: GameStore, guild: int) -> None:
        self.store, self.guild = store, guild
        self.seen: set[str] = set()
        #: How many notices of each campaign kind were judged (the run's coverage).
        self.judged: dict[str, int] = {"owed": 0, "roster": 0, "linked": 0}

    async def after(self, state: CampaignState, players: Mapping[int, str]) -> list[str]:
        """The faults of the notices queued since the last check (taken off the outbox)."""
        owed = aftermath_owed(state)
        linked = {entry.channel for entry in state.games}
        faults = []
        for queued in await self.store.feature_list(records.OUTBOX, Scope.of_guild(self.guild)):
            notice = records.Notice.of_value(queued.value)
            if queued.key in self.seen:
                faults.append(f"notice queued twice: {queued.key}")
            self.seen.add(queued.key)
            await records.claim(self.store, queued)
            if notice.kind not in self.judged:
                continue
            self.judged[notice.kind] += 1
            side = players.get(notice.user)
            what = notice.line.rsplit("_", 1)[-1]
            if side is None:
                faults.append(f"a {notice.kind} notice for u{notice.user}, who plays no side")
            elif notice.kind == "owed" and (int(notice.params["number"]), side, what) not in owed:
                faults.append(f"an aftermath's {what} told to u{notice.user}, whose side owes none")
            elif notice.kind == "roster" and notice.params.get("side") not in _names(state, side):
                faults.append(f"another side's roster told to u{notice.user}")
            elif notice.kind == "linked" and notice.channel not in linked:
                faults.append(f"a game the campaign does not link told to u{notice.user}")
        return faults


__all__ = ["CampaignNoticeCheck", "NoticeCheck", "aftermath_owed", "owing"]
