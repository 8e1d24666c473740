"""One log line per PostgreSQL outage, not a traceback per reconnection attempt.

asyncpg's pool keeps its floor of connections (``min_size``) with a background task that,
while the server is down, tries again and again (after 1 s, 2 s, 4 s … up to every 60 s)
and logs each failure at WARNING on the ``asyncpg.pool`` logger *with its traceback*. With
no logging configured (the console, the command line) Python prints such a record on
stderr through its last-resort handler: a screen of traceback per attempt, for as long as
the outage lasts, while every command correctly answers "storage unavailable".

`OutageLog` stands in for those records: a filter on the ``asyncpg.pool`` logger turns the
first failure of an outage into one WARNING line of ours (logger ``db.drivers.postgres``, the
server and the reason in one line) and drops the rest; a command that fails to reach the
server counts as the same outage. The first operation that succeeds again ends the outage
with one INFO line, so the next outage is reported again.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("db.drivers.postgres")

#: The message asyncpg's pool logs (with a traceback) at each failed reconnection.
POOL_RETRY_MESSAGE = "Failed to restore the pool connection floor"


def _one_line(error: BaseException | None) -> str:
    if error is None:
        return "no answer"
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class OutageLog(logging.Filter):
    """Whether PostgreSQL is known to be down, logging each change once."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._since: float | None = None
        self.where = "PostgreSQL"

    @property
    def down(self) -> bool:
        """True from the first failure of an outage until something succeeds again."""
        return self._since is not None

    def failed(self, error: BaseException | None) -> None:
        """The server could not be reached: one WARNING line if that starts an outage."""
        with self._lock:
            if self._since is not None:
                return
            self._since = time.monotonic()
        log.warning(
            "%s does not answer (%s): commands answer 'storage unavailable' and the "
            "connections are retried until it does",
            self.where,
            _one_line(error),
        )

    def answered(self) -> None:
        """An operation succeeded: one INFO line if that ends an outage."""
        if self._since is None:  # the usual case, without the lock
            return
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            log.info("%s answers again (after %.0f s)", self.where, time.monotonic() - since)

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop asyncpg's traceback of a failed reconnection, counting it as the outage."""
        if record.getMessage().startswith(POOL_RETRY_MESSAGE):
            self.failed(record.exc_info[1] if record.exc_info else None)
            return False
        return True


#: The process's one outage log, on asyncpg's pool logger (installed by `watch_pool`).
OUTAGES = OutageLog()


def watch_pool(where: str) -> OutageLog:
    """Install `OUTAGES` on asyncpg's pool logger (once) and name the server it reports."""
    OUTAGES.where = f"PostgreSQL at {where}"
    pool_log = logging.getLogger("asyncpg.pool")
    if OUTAGES not in pool_log.filters:
        pool_log.addFilter(OUTAGES)
    return OUTAGES


__all__ = ["OUTAGES", "POOL_RETRY_MESSAGE", "OutageLog", "watch_pool"]
