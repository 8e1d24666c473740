"""Who chose how to be told: the players whose games the notices follower follows.

A player who never used ``/notify`` is told by the game's own mention, which the notices
need not touch: following a game none of whose players chose anything would cost every
command a read of the game after its write and a reckoning of what is owed, for nothing.
Saving settings notes the player in an index (``notice_watcher``, one record a player, in
the store's everywhere scope), which each process reads into a set at most every
``REFRESH_S`` seconds. While the set is older than that the follower follows every game and
reads it afresh, so a player who opted in on another bot process is followed within that
time; a player who opted in on this one at once.
"""

from __future__ import annotations

import time

from db.models import Scope
from db.protocol import GameStore

WATCHER = "notice_watcher"
EVERYWHERE = Scope.of_guild(0)
#: How long a process trusts its set of watchers before reading it again.
REFRESH_S = 60.0
#: The most watchers read in one listing; past it every game is followed (the set unknown).
MAX_WATCHERS = 1000


class Watchers:
    """The players with settings, as this process last read them."""

    def __init__(self) -> None:
        self.users: frozenset[int] | None = None
        self.read_at = float("-inf")

    def fresh(self) -> bool:
        """Whether the set is known and recent enough to decide by."""
        return self.users is not None and time.monotonic() - self.read_at < REFRESH_S

    def follows(self, players: frozenset[int]) -> bool:
        """Whether a game with ``players`` is followed: one of them chose how to be told,
        or the set is not known now (the follower reads it, then decides)."""
        return not self.fresh() or self.users is None or bool(players & self.users)

    async def read(self, store: GameStore) -> None:
        """Read the set again when it is stale (a listing past its bound leaves it unknown:
        every game followed)."""
        if self.fresh():
            return
        found = await store.feature_list(WATCHER, EVERYWHERE, limit=MAX_WATCHERS)
        self.users = None if len(found) >= MAX_WATCHERS else frozenset(int(r.key) for r in found)
        self.read_at = time.monotonic()

    def add(self, user: int) -> None:
        """A player of this process chose how to be told: followed from now on."""
        if self.users is not None:
            self.users = self.users | {user}


#: This process's set (one for every store it serves: a superset only costs a follow).
WATCHERS = Watchers()


async def note_watcher(store: GameStore, user: int) -> None:
    """Index a player who saved settings, and follow their games from now on."""
    await store.feature_put(WATCHER, EVERYWHERE, str(user), {}, if_absent=True)
    WATCHERS.add(user)


def forget_watchers() -> None:
    """Start this process's set afresh (tests: each on a store of its own)."""
    global WATCHERS
    WATCHERS = Watchers()


__all__ = [
    "MAX_WATCHERS",
    "REFRESH_S",
    "WATCHER",
    "WATCHERS",
    "Watchers",
    "forget_watchers",
    "note_watcher",
]
