"""WAL checkpoints on a thread of their own, off the commit path.

In WAL mode a commit appends pages to the ``-wal`` file; a *checkpoint* copies them back
into the database file and syncs it. SQLite runs one inside whichever COMMIT pushes the WAL
past ``wal_autocheckpoint`` pages (1,000 by default), so about one command in 150 paid a
checkpoint of several milliseconds on top of its own fsync, and with group commit every
caller of that group did: the tail of the command path. Here the store's writer only
checkpoints as a backstop (`BACKSTOP_PAGES`, should this thread fall behind), and this
thread copies the WAL in the background (``PRAGMA wal_checkpoint(PASSIVE)``, which never
blocks the writer nor waits for readers), at most once per `INTERVAL_S` after a write.

Durability is unchanged: a commit is durable once its WAL frames are synced, whoever copies
them later; a crash in the middle of a checkpoint is recovered by SQLite from the WAL.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

#: The writer's own automatic checkpoint, kept only as a backstop (about 40 MB of WAL).
BACKSTOP_PAGES = 10_000

#: At most one background checkpoint per this many seconds (each one copies what the
#: commits of that time appended).
INTERVAL_S = 0.1

_names = itertools.count(1)


class Checkpointer:
    """A daemon thread with its own connection that checkpoints the WAL after writes."""

    def __init__(self, path: str, *, busy_timeout_ms: int, interval_s: float = INTERVAL_S):
        """Start the thread for the database file at ``path`` (WAL mode already set)."""
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._interval_s = interval_s
        self._written = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._serve, name=f"arbitro-checkpoint-{next(_names)}", daemon=True
        )
        self._thread.start()

    def wrote(self) -> None:
        """Note that a transaction was committed (any thread; cheap)."""
        self._written.set()

    def close(self) -> None:
        """Stop the thread and close its connection (before the writer's: the last
        connection to close is the one that checkpoints fully and removes the WAL)."""
        self._stopping.set()
        self._written.set()
        self._thread.join(timeout=5.0)

    def _serve(self) -> None:
        try:
            connection = sqlite3.connect(
                self._path,
                isolation_level=None,
                timeout=self._busy_timeout_ms / 1000,
                uri=self._path.startswith("file:"),
            )
        except sqlite3.Error as error:  # the writer's own backstop still checkpoints
            log.warning("WAL checkpoints stay with the writer: %s", error)
            return
        try:
            while not self._stopping.is_set():
                self._written.wait()
                if self._stopping.is_set():
                    break
                self._written.clear()
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as error:  # busy, I/O: the next write tries again
                    log.debug("background WAL checkpoint failed: %s", error)
                self._stopping.wait(self._interval_s)
        finally:
            with contextlib.suppress(sqlite3.Error):
                connection.close()


__all__ = ["BACKSTOP_PAGES", "INTERVAL_S", "Checkpointer"]
