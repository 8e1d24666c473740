"""How often someone may add to a channel's log: free rolls and joins, per user and channel.

``/roll`` needs no seat and ``/game join`` is how a stranger gets one, so both are open to
anyone who can type in the channel, and each adds an event to the game's log (and a roll
computes its odds). A club needs two things from a limit: a seated player rolling a lot
during a game is normal and must never notice it; a stranger flooding the log must be
stopped early, with a clear answer saying when they may try again.

So the limits are sliding windows (``window_s`` seconds), counted per channel:

* someone without a seat: ``seatless_per_user`` commands per window, and all of them
  together ``seatless_per_channel`` (a crowd of fresh accounts is stopped too);
* a seated player (or the referee): ``seated_per_user`` rolls per window, a budget a real
  game never reaches;
* ``/game join`` by someone without a seat: ``joins_per_user`` per window, and
  ``joins_per_channel`` for all of them together, counted apart from the rolls: a crowd of
  spectators rolling never keeps a player from taking their seat.

The count is by user and channel, never by interaction: a retried interaction is answered
with its first result before it reaches the limit (and is not counted again), and a new
interaction id is a new command. A refused command is not counted, so the answer's wait is
exact. The limiter lives in the service, so the Discord bot and the console share it.
Memory is bounded: windows that emptied are dropped, and at most ``max_keys`` windows are
kept (least recently used first out).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules.core.errors import RulesError

#: The commands a limit counts: what anyone can log without being seated.
LIMITED_VERBS = frozenset({"roll", "game.join"})


class TooMany(RulesError):
    """A command refused by a rate limit; ``wait`` (seconds) says when to try again."""

    default_key = "error.service.limit.spectator"

    @property
    def wait(self) -> int:
        """Whole seconds until the command would be accepted."""
        return int(self.params.get("wait", 0))


@dataclass(frozen=True, slots=True)
class LogLimits:
    """The rate limits (``bot.app.settings``: ``ARBITRO_ROLL_*``); 0 turns a limit off."""

    window_s: float = 60.0
    seatless_per_user: int = 10
    seatless_per_channel: int = 30
    seated_per_user: int = 120
    joins_per_user: int = 5
    joins_per_channel: int = 20

    @classmethod
    def from_settings(cls, settings: Any) -> LogLimits:
        """The limits a `bot.app.settings.Settings` asks for."""
        return cls(
            window_s=float(settings.roll_window),
            seatless_per_user=int(settings.roll_limit),
            seatless_per_channel=int(settings.roll_limit_channel),
            seated_per_user=int(settings.roll_limit_seated),
        )


#: No limit at all (benchmarks and tests that flood a log on purpose).
UNLIMITED = LogLimits(
    seatless_per_user=0,
    seatless_per_channel=0,
    seated_per_user=0,
    joins_per_user=0,
    joins_per_channel=0,
)

_Key = tuple[str, int, int]


class LogLimiter:
    """Sliding-window counters of logged commands; not thread-safe (the event loop's)."""

    def __init__(
        self,
        limits: LogLimits | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        self.limits = limits or LogLimits()
        self._clock = clock
        self._max_keys = max_keys
        self._windows: OrderedDict[_Key, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._windows)

    def admit(self, channel_id: int, user_id: int, *, seated: bool, join: bool = False) -> None:
        """Count one command of ``user_id`` in ``channel_id``, or raise `TooMany`;
        ``join``: a ``/game join``, counted in windows of its own.

        Every limit that applies is checked before any is counted: a command refused by
        the channel's limit does not use up the user's own.
        """
        limits = self.limits
        now = self._clock()
        checks: list[tuple[_Key, int, str]] = []
        if join:
            checks.append((("join", channel_id, user_id), limits.joins_per_user, "join"))
            checks.append(
                (("join_channel", channel_id, 0), limits.joins_per_channel, "join_channel")
            )
        elif seated:
            checks.append((("seated", channel_id, user_id), limits.seated_per_user, "seated"))
        else:
            checks.append(
                (("seatless", channel_id, user_id), limits.seatless_per_user, "spectator")
            )
            checks.append((("channel", channel_id, 0), limits.seatless_per_channel, "channel"))
        for key, limit, kind in checks:
            if limit <= 0:
                continue
            window = self._window(key, now)
            if len(window) >= limit:
                wait = max(1, math.ceil(window[0] + limits.window_s - now))
                raise TooMany(
                    f"error.service.limit.{kind}",
                    limit=limit,
                    window=int(limits.window_s),
                    wait=wait,
                )
        for key, limit, _ in checks:
            if limit > 0:
                self._window(key, now).append(now)
        self._trim(now)

    def _window(self, key: _Key, now: float) -> deque[float]:
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = deque()
        else:
            self._windows.move_to_end(key)
        horizon = now - self.limits.window_s
        while window and window[0] <= horizon:
            window.popleft()
        return window

    def _trim(self, now: float) -> None:
        """Forget the windows whose commands all left them (least recently used first, so
        they are at the front), and the least recently used past ``max_keys``."""
        horizon = now - self.limits.window_s
        windows = self._windows
        while windows:
            oldest = next(iter(windows.values()))
            if oldest and oldest[-1] > horizon and len(windows) <= self._max_keys:
                break
            windows.popitem(last=False)


__all__ = ["LIMITED_VERBS", "UNLIMITED", "LogLimiter", "LogLimits", "TooMany"]
