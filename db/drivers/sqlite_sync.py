"""Step functions on a plain ``sqlite3`` connection: the synchronous SQLite driver.

For what blocks anyway: opening a file (inspecting it, switching it to WAL, migrating it:
`db.drivers.sqlite` does that on a worker thread with a connection of its own before it opens its
aiosqlite connection), the command line's backups, and tests that poke at a file. The
operations are the core's (`db.core`), the same the store runs on aiosqlite; the SQLite-only
part of the audit (the file's own integrity and its foreign keys) is here too.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from db.core.audit import audit
from db.core.dialect import SQLITE
from db.core.steps import Control, Query, Step, Transaction, drive_sync, rows_answer
from db.errors import DamagedFile

_T = TypeVar("_T")

#: `PRAGMA integrity_check` lines about a row's values, not the file's structure.
_ROW_CONSTRAINTS = ("CHECK constraint failed", "NULL value in")

_BEGIN = {Control.BEGIN_WRITE: "BEGIN IMMEDIATE", Control.BEGIN_READ: "BEGIN"}


def execute(connection: sqlite3.Connection) -> Callable[[Query], Any]:
    """Answer one query on ``connection``."""

    def answer(query: Query) -> Any:
        sql = SQLITE.text(query)
        if query.many:
            connection.executemany(sql, query.params)
            return None
        cursor = connection.execute(sql, tuple(query.params))
        if query.fetch == "count":
            return cursor.rowcount
        if query.fetch == "none":
            return None
        return rows_answer(cursor.fetchall(), query.fetch)

    return answer


def _rollback(connection: sqlite3.Connection) -> None:
    if connection.in_transaction:
        # The original error matters more than a failed rollback (e.g. on a dead disk).
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")


def run(connection: sqlite3.Connection, steps: Step[_T], transaction: Transaction = "none") -> _T:
    """Run a step function on an autocommit connection (``isolation_level=None``),
    in the transaction asked for; rolled back if it raises."""

    def control(request: Control) -> None:
        if request in _BEGIN:
            connection.execute(_BEGIN[request])
        elif request is Control.COMMIT:
            connection.execute("COMMIT")
        else:
            _rollback(connection)

    outer = connection.in_transaction  # a caller's own transaction is the caller's
    try:
        if transaction != "none":
            control(Control.BEGIN_WRITE if transaction == "write" else Control.BEGIN_READ)
        result = drive_sync(steps, execute(connection), control)
        if transaction != "none":
            connection.execute("COMMIT")
        return result
    except BaseException:
        if transaction != "none" or not outer:
            _rollback(connection)
        raise


def sqlite_audit(path: str) -> Step[list[str]]:
    """The file's own integrity and foreign keys, then every game (`db.core.audit`).

    A damaged file is `DamagedFile`, one line: nothing in it can be trusted. A row that
    breaks a CHECK or NOT NULL constraint was written with the constraints switched off (a
    tamperer): it is reported and the game's own checks name that game.
    """
    try:
        damage = [str(row[0]) for row in (yield Query("PRAGMA integrity_check", (), "rows"))]
    except sqlite3.DatabaseError as error:
        # Damage bad enough that SQLite cannot even walk the file.
        raise DamagedFile(path, str(error)) from error
    damage = [line for line in damage if line != "ok"]
    broken = [line for line in damage if not line.startswith(_ROW_CONSTRAINTS)]
    if broken:
        more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
        raise DamagedFile(path, f"{broken[0]}{more}")
    problems = [f"integrity: {line}" for line in damage]
    problems += [
        f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]}"
        for row in (yield Query("PRAGMA foreign_key_check", (), "rows"))
    ]
    yield Control.BEGIN_READ
    problems += yield from audit(jsonb=False)
    yield Control.COMMIT
    return problems


def find_problems(connection: sqlite3.Connection, path: str = "") -> list[str]:
    """Audit a whole database on a plain connection; every problem is one line naming the
    channel (see `sqlite_audit`). Synchronous."""
    return run(connection, sqlite_audit(path))


def backup_database(source: sqlite3.Connection, target_path: str | os.PathLike[str]) -> None:
    """Copy a live database to ``target_path`` with SQLite's online backup API.

    The copy is written beside the target and renamed into place, so a crash mid-backup
    never leaves a truncated file under the requested name. Refuses to overwrite.
    """
    target = Path(target_path)
    if target.exists():
        raise FileExistsError(f"{target}: already exists; choose a new backup file")
    partial_path = target.with_name(target.name + ".partial")
    partial_path.unlink(missing_ok=True)
    copy = sqlite3.connect(partial_path)
    try:
        source.backup(copy)
        # The copy is a standalone file: no -wal beside it to forget when moving it around.
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        copy.close()
    os.replace(partial_path, target)
    fsync_directory(target.parent)


def fsync_directory(directory: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def existing_file_uri(path: str) -> str:
    """An SQLite URI that opens ``path`` only if it already exists."""
    return Path(path).absolute().as_uri() + "?mode=rw"


__all__ = [
    "backup_database",
    "execute",
    "existing_file_uri",
    "find_problems",
    "fsync_directory",
    "run",
    "sqlite_audit",
]
