"""Open the store a database URL names: SQLite (the default) or PostgreSQL.

``ARBITRO_DB`` (or ``--db``) holds either a file path / ``sqlite:///path`` (the embedded
store, one file) or ``postgresql://user@host/dbname`` (the server store, for several bot
processes or hosts). Everything above `db/` opens its store through `open_store`.
"""

from __future__ import annotations

from db.drivers.postgres import PostgresStore, redact
from db.drivers.sqlite import SqliteStore

SQLITE_PREFIX = "sqlite:///"


def is_postgres_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_path(url: str) -> str:
    """The file path of a SQLite URL or plain path (``sqlite:///games.db`` → ``games.db``).

    As in SQLAlchemy, ``sqlite:///relative.db`` is relative and ``sqlite:////abs.db``
    absolute.
    """
    return url[len(SQLITE_PREFIX) :] if url.startswith(SQLITE_PREFIX) else url


def describe(url: str) -> str:
    """The database for messages: the path, or the URL without its password."""
    if is_postgres_url(url):
        return redact(url)
    return sqlite_path(url)


async def open_store(
    url: str, *, create: bool = True, migrate: bool = True, checkpoints: bool = True
) -> SqliteStore | PostgresStore:
    """Open the store ``url`` names, creating and migrating by default.

    ``create=False`` refuses a missing SQLite file or a PostgreSQL database without an
    Arbitro schema; ``migrate=False`` refuses an out-of-date schema; ``checkpoints=False``
    leaves a SQLite file's WAL checkpoints to the process that writes it (a reader beside
    it: `SqliteStore.open`; PostgreSQL has none to leave).
    """
    if is_postgres_url(url):
        return await PostgresStore.open(url, create=create, migrate=migrate)
    return await SqliteStore.open(
        sqlite_path(url), create=create, migrate=migrate, checkpoints=checkpoints
    )
