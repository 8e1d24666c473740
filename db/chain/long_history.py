"""A long history verified on first touch: its event chain at once, its states in the
background.

The first time a process touches a game whose log is longer than `LONG_HISTORY`, the
operation that touched it waits only for its **event chain**: every event read back
(`EVENT_PAGE` a read, each its own short read), hashed again from its stored texts and
linked from the genesis up to the head (`db.chain.verify.verify_events`, on a worker thread
between reads). The head's own state is checked against the head event by the operation's
read as for any game (`db.core.games`), so nothing it uses is unverified. The process then
remembers the head as verified and the operation goes on.

The **states** of the history (every version rebuilt from its whole document and patches
and hashed against its event, the rows beyond the head: `db.chain.verify.verify_page`) are checked
right after, in a task of their own, `VERIFY_PAGE` versions a read with the hashing on a
worker thread between reads, one game at a time: other channels, and this game's own
commands, are served meanwhile. A failure there refuses the game exactly as a failure in
the foreground does: `VerifiedChains.refuse` with the `ChainBroken` naming the first bad
version, at the head this process then holds, so every later operation on the game raises
it; and once the refusal expires, the game is verified whole in the foreground again
(states included), as before this module, so a tampered history is never served between
two background checks.
An old version read meanwhile (`state_at`, undo) is checked on its own span as ever
(`db.core.verify.state_text`).

A history of at most `LONG_HISTORY` versions is verified whole inside the operation's own
read (`db.core.verify.verified_up_to`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from db.chain.hashing import GENESIS_HASH
from db.chain.verify import (
    EVENT_EDITED,
    ROWS_BEYOND,
    VerifiedChains,
    VerifiedHead,
    stamp_text,
    verify_events,
    verify_page,
)
from db.core import verify
from db.core.steps import Step
from db.errors import ChainBroken, StoreError

log = logging.getLogger(__name__)

#: A history longer than this is verified page by page, outside the command's transaction;
#: a shorter one inside it, as part of its first read.
LONG_HISTORY = 256
#: Versions per page of the states' check: the events, the patches and the few whole
#: documents among them are what one read holds.
VERIFY_PAGE = 64
#: Events per page of the event chain's check (events only: a page is a few hundred KB).
EVENT_PAGE = 512

#: Runs a read operation of the core for a channel (`db.store.CoreStore._run`).
Reader = Callable[[Callable[[], Step[Any]], int], Awaitable[Any]]


class LongHistories:
    """The first-touch verification of a store's long histories, and its background checks.

    ``read`` runs one read operation for a channel; ``chains`` is the store's memory of the
    heads this process verified.
    """

    def __init__(self, chains: VerifiedChains, read: Reader) -> None:
        self._chains = chains
        self._read = read
        self._checks: dict[int, asyncio.Task[None]] = {}
        # channel -> the game (its creation time) whose states failed a background check:
        # that game is verified whole in the foreground from then on.
        self._failed: dict[int, str] = {}
        # One background check at a time: a restart touching many long games queues their
        # checks instead of filling the worker threads the other channels' commands use.
        self._one_at_a_time: asyncio.Lock | None = None

    async def verify(self, channel_id: int) -> None:
        """Make the channel's head verified before an operation uses it, if its history
        is long and this process has not verified it (`ChainBroken` otherwise)."""
        chains = self._chains
        if chains.head(channel_id) is not None:
            return
        head: VerifiedHead = await self._read(partial(verify.chain_head, channel_id), channel_id)
        if head.seq <= LONG_HISTORY:
            return  # verified inside the operation's own read, as ever
        refused = chains.refusal(channel_id, head)
        if refused is not None:
            raise refused
        in_background = self._failed.get(channel_id) != head.game
        try:
            if in_background:
                anchors = await self._verify_events(channel_id, head)
            else:
                anchors = await self.verify_whole(channel_id, head)
        except ChainBroken as error:
            if await self._same_game(channel_id, head):
                chains.refuse(channel_id, head, error)
                raise
            return  # the game went (deleted, archived) while it was read: nothing to say
        chains.remember(channel_id, head, anchors)
        if in_background:
            self._start(channel_id, head)
        else:
            self._failed.pop(channel_id, None)  # its rows were restored

    async def checked(self) -> None:
        """Wait for the background checks under way (start-up checks, tests)."""
        while self._checks:
            await asyncio.gather(*self._checks.values(), return_exceptions=True)

    async def stop(self) -> None:
        """Cancel the background checks (the store is closing): their games stay verified
        only as far as they got, and are verified again by the next process."""
        tasks = list(self._checks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def verify_whole(self, channel_id: int, head: VerifiedHead) -> dict[int, str]:
        """Every event and every state up to ``head``, page by page (`db.chain.verify.verify_page`);
        the anchor events' hashes verified on the way."""
        snapshots: dict[int, str] = {}
        start: tuple[str, Any] | None = None
        for first in range(1, head.seq + 1, VERIFY_PAGE):
            last = min(first + VERIFY_PAGE - 1, head.seq)
            events, full, patches, beyond, now, salt = await self._read(
                partial(verify.page_rows, channel_id, first, last, head.seq), channel_id
            )
            start = await asyncio.to_thread(
                partial(
                    verify_page,
                    channel_id,
                    first=first,
                    last=last,
                    head=now,  # the version whose whole document the game keeps now
                    events=events,
                    full=full,
                    patches=patches,
                    timestamp=stamp_text,
                    start=start,
                    snapshots=snapshots,
                    salt=salt,
                )
            )
            if beyond:
                raise ChainBroken(channel_id, now, ROWS_BEYOND)
        return snapshots

    async def _verify_events(self, channel_id: int, head: VerifiedHead) -> dict[int, str]:
        """Every event up to ``head`` hashed and linked from the genesis, page by page."""
        snapshots: dict[int, str] = {}
        previous = GENESIS_HASH
        for first in range(1, head.seq + 1, EVENT_PAGE):
            last = min(first + EVENT_PAGE - 1, head.seq)
            events, salt = await self._read(
                partial(verify.event_page, channel_id, first, last), channel_id
            )
            previous = await asyncio.to_thread(
                partial(
                    verify_events,
                    channel_id,
                    first=first,
                    last=last,
                    events=events,
                    timestamp=stamp_text,
                    previous=previous,
                    snapshots=snapshots,
                    salt=salt,
                )
            )
        if previous != head.hash:  # the head event changed between the reads
            raise ChainBroken(channel_id, head.seq, EVENT_EDITED)
        return snapshots

    def _start(self, channel_id: int, head: VerifiedHead) -> None:
        if channel_id in self._checks:
            return
        task = asyncio.get_running_loop().create_task(self._check_states(channel_id, head))
        self._checks[channel_id] = task
        task.add_done_callback(partial(self._finished, channel_id))

    def _finished(self, channel_id: int, task: asyncio.Task[None]) -> None:
        if self._checks.get(channel_id) is task:
            del self._checks[channel_id]

    async def _check_states(self, channel_id: int, head: VerifiedHead) -> None:
        """The background half: every state up to ``head``; a failure refuses the game."""
        if self._one_at_a_time is None:
            self._one_at_a_time = asyncio.Lock()
        try:
            async with self._one_at_a_time:
                await self.verify_whole(channel_id, head)
        except ChainBroken as error:
            if not await self._same_game(channel_id, head):
                return
            self._failed[channel_id] = head.game
            # The head this process holds now (its own commits may have moved it since).
            current = self._chains.head(channel_id)
            refused = current if current is not None and current.game == head.game else head
            self._chains.refuse(channel_id, refused, error)
            log.warning("channel %s: its history fails verification: %s", channel_id, error)
        except StoreError as error:
            # Not checked (the store closing, the database unreachable): verified again on
            # next use.
            self._chains.forget(channel_id)
            log.warning("channel %s: history check interrupted: %s", channel_id, error)
        except Exception:
            self._chains.forget(channel_id)
            log.exception("channel %s: history check failed unexpectedly", channel_id)

    async def _same_game(self, channel_id: int, head: VerifiedHead) -> bool:
        """Whether the channel still holds the game ``head`` is the head of."""
        try:
            now = await self._read(partial(verify.chain_head, channel_id), channel_id)
        except StoreError:
            return False
        return bool(now.game == head.game and now.seq >= head.seq)


__all__ = ["EVENT_PAGE", "LONG_HISTORY", "VERIFY_PAGE", "LongHistories"]
