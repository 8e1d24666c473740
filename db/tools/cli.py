"""``arbitro db …``: migrate, back up, check, export and copy the game database.

The database is a SQLite file path (or ``sqlite:///path``) or a ``postgresql://`` URL.

Every command reports a failure as one line on stderr and exit status 2, never a
traceback. ``check`` exits 1 when it ran but found problems.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TextIO

from db import migrations, migrations_pg
from db.chain.export import copy_file, export_game
from db.drivers.sqlite import DEFAULT_DB_PATH, backup_file
from db.errors import GameNotFound, StoreError
from db.open import describe, is_postgres_url, open_store, sqlite_path
from db.tools.anchor import compare_with_export, read_exported_chain
from db.tools.copy import CopiedGame, copy_games

DB_PATH_ENV = "ARBITRO_DB"

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_ERROR = 2

Handler = Callable[[argparse.Namespace], int]
#: What runs a command's coroutine to its end: the process's event loop, which the layer
#: above storage chooses (``arbitro`` passes `bot.app.loop.run`; alone, asyncio's).
CoroutineRunner = Callable[[Coroutine[Any, Any, int]], int]
#: A check a layer above storage adds to ``db check``: the problems it finds in the store.
ExtraCheck = Callable[[Any], Awaitable[list[str]]]


def default_db_path() -> str:
    """The database file: ``$ARBITRO_DB`` if set, else ``arbitro.db`` here."""
    return os.environ.get(DB_PATH_ENV) or DEFAULT_DB_PATH


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    *,
    run_coroutine: CoroutineRunner = asyncio.run,
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add the ``db`` command and its subcommands to the ``arbitro`` parser; their
    coroutines run through ``run_coroutine`` (:func:`run_safely`).

    Returns the ``db`` subcommands, so layers above storage can add theirs (the bot adds
    ``replay``, which needs the rules that ``db/`` must not import).
    """
    db_parser = subparsers.add_parser(
        "db", help="manage the game database", description="Manage the game database."
    )
    db_parser.set_defaults(handler=_usage(db_parser), run_coroutine=run_coroutine)
    actions = db_parser.add_subparsers(dest="db_command", metavar="ACTION")

    migrate = actions.add_parser("migrate", help="create the database or bring it up to date")
    add_db_option(migrate)
    migrate.set_defaults(handler=run_migrate)

    backup = actions.add_parser("backup", help="copy the live database to a new file")
    backup.add_argument("path", metavar="PATH", help="the backup file to create")
    add_db_option(backup)
    backup.set_defaults(handler=run_backup)

    check = actions.add_parser(
        "check", help="verify file integrity and every game's event hash chain"
    )
    check.add_argument(
        "--against",
        metavar="EXPORT",
        help="also compare with a saved export (JSON of /game export or db export): "
        "reports removed last events and rewritten history",
    )
    add_db_option(check)
    check.set_defaults(handler=run_check)

    export = actions.add_parser("export", help="write a game's events and states as JSON")
    export.add_argument("channel_id", metavar="CHANNEL_ID", type=int, help="the game's channel")
    export.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_db_option(export)
    export.set_defaults(handler=run_export)

    copy = actions.add_parser(
        "copy",
        help="copy every game to another database (e.g. SQLite to PostgreSQL), verified",
        description="Copy every game with its events, states, members and deadlines from "
        "SOURCE to DEST (file paths or postgresql:// URLs); each game's hash chain is "
        "verified before leaving and after arriving. DEST is created and migrated if "
        "needed and must not already hold a game in any of SOURCE's channels.",
    )
    copy.add_argument("source", metavar="SOURCE", help="the database to copy from")
    copy.add_argument("dest", metavar="DEST", help="the database to copy into")
    copy.set_defaults(handler=run_copy)
    return actions


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="DB",
        default=None,
        help=f"database file or postgresql:// URL (default: ${DB_PATH_ENV} or {DEFAULT_DB_PATH})",
    )


def _usage(parser: argparse.ArgumentParser) -> Handler:
    def show_usage(args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return EXIT_ERROR

    return show_usage


def db_path(args: argparse.Namespace) -> str:
    path: str | None = getattr(args, "db", None)
    return path or default_db_path()


def _fail(message: str, stream: TextIO | None = None) -> int:
    print(f"arbitro db: error: {message}", file=stream or sys.stderr)
    return EXIT_ERROR


def run_safely(
    work: Callable[[], int | Coroutine[Any, Any, int]], args: argparse.Namespace
) -> int:
    """Run a command (sync or async: its coroutine through the runner :func:`register` was
    given); failures become one line on stderr and status 2."""
    try:
        outcome = work()
        if isinstance(outcome, int):
            return outcome
        run_coroutine: CoroutineRunner = args.run_coroutine
        return run_coroutine(outcome)
    except StoreError as error:
        return _fail(str(error))
    except sqlite3.Error as error:
        return _fail(f"database error: {error}")
    except OSError as error:
        if error.filename is not None and error.strerror:
            return _fail(f"{error.filename}: {error.strerror}")
        return _fail(str(error))
    except KeyboardInterrupt:
        return _fail("interrupted")


def run_migrate(args: argparse.Namespace) -> int:
    """``arbitro db migrate``: create or upgrade the database; print its schema version."""
    path = db_path(args)

    async def work() -> int:
        async with await open_store(path, create=True, migrate=True) as store:
            version = await store.schema_version()
        print(f"{describe(path)}: schema version {version} (latest {_latest(path)})")
        return EXIT_OK

    return run_safely(work, args)


def run_backup(args: argparse.Namespace) -> int:
    """``arbitro db backup PATH``: online copy through SQLite's backup API."""
    path = db_path(args)
    target: str = args.path

    if is_postgres_url(path):
        return _fail(
            f"{describe(path)}: back up PostgreSQL with pg_dump (`pg_dump --format=custom "
            "--file=arbitro.dump DBNAME`, restore with pg_restore), or make a verified "
            f"SQLite copy with `arbitro db copy URL {target}`"
        )

    # Synchronous and schema-agnostic: a file not yet migrated can be backed up too.
    def work() -> int:
        backup_file(sqlite_path(path), target)
        print(f"{path}: backed up to {target}")
        return EXIT_OK

    return run_safely(work, args)


def run_check(args: argparse.Namespace, *, more: ExtraCheck | None = None) -> int:
    """``arbitro db check [--against EXPORT]``: integrity, foreign keys, versions, hash
    chains, the checksum of members/deadlines/settings, and optionally a saved export.
    ``more``: the checks a layer above storage adds (the bot's: campaigns), run on the
    open store once the store's own have run."""
    path = db_path(args)
    against: str | None = getattr(args, "against", None)

    async def work() -> int:
        exported = None
        if against is not None:
            try:
                raw = await asyncio.to_thread(Path(against).read_bytes)
                exported = read_exported_chain(json.loads(raw))
            except (ValueError, RecursionError) as error:  # JSON errors are ValueErrors
                return _fail(f"{against}: not an Arbitro export ({error})")
        async with await open_store(path, create=False, migrate=False) as store:
            problems = await store.check()
            if more is not None:
                problems += await more(store)
            games = await store.count_games()
            if exported is not None:
                stored = await _stored_chain(store, exported.channel_id)
                problems += compare_with_export(exported, stored)
        for problem in problems:
            print(problem)
        if problems:
            where = describe(path)
            print(f"{where}: {len(problems)} problem(s) in {games} game(s)", file=sys.stderr)
            return EXIT_PROBLEMS
        print(f"{describe(path)}: ok ({games} game(s) checked)")
        return EXIT_OK

    return run_safely(work, args)


async def _stored_chain(store: Any, channel_id: int) -> dict[int, str] | None:
    """Every stored event's hash by sequence number (None: no such game), page by page."""
    chain: dict[int, str] = {}
    try:
        while True:
            page = await store.events(channel_id, after_seq=max(chain, default=0), limit=1000)
            if not page:
                return chain
            chain.update((event.seq, event.hash) for event in page)
    except GameNotFound:
        return None


def run_export(args: argparse.Namespace) -> int:
    """``arbitro db export CHANNEL_ID``: the verified game history as JSON, every state.

    Written as it is read (`db.chain.export`: a page of events and one document in memory), to
    ``FILE.partial`` renamed at the end; for standard output, to a temporary file first, so
    a game that fails verification prints nothing but the error.
    """
    path = db_path(args)
    channel_id: int = args.channel_id
    out: str | None = args.out

    async def work() -> int:
        async with await open_store(path, create=False, migrate=False) as store:
            if out is not None:
                summary = await export_game(store, channel_id, Path(out), keep="all")
                print(f"channel {channel_id}: {summary.events} events written to {out}")
                return EXIT_OK
            with tempfile.TemporaryDirectory(prefix="arbitro-export-") as spool:
                written = Path(spool) / "export.json"
                await export_game(store, channel_id, written, keep="all")
                await asyncio.to_thread(copy_file, written, sys.stdout.buffer)
                await asyncio.to_thread(sys.stdout.buffer.flush)
        return EXIT_OK

    return run_safely(work, args)


def run_copy(args: argparse.Namespace) -> int:
    """``arbitro db copy SOURCE DEST``: every game, verified before and after."""
    source_url: str = args.source
    dest_url: str = args.dest

    def report(game: CopiedGame) -> None:
        print(f"channel {game.channel_id}: {game.events} events, head {game.head_hash[:12]}")

    async def work() -> int:
        async with (
            await open_store(source_url, create=False, migrate=False) as source,
            await open_store(dest_url, create=True, migrate=True) as dest,
        ):
            copied = await copy_games(source, dest, progress=report)
        events = sum(game.events for game in copied)
        print(
            f"{describe(source_url)} -> {describe(dest_url)}: {len(copied)} game(s), "
            f"{events} event(s) copied and verified"
        )
        return EXIT_OK

    return run_safely(work, args)


def _latest(path: str) -> int:
    if is_postgres_url(path):
        return migrations_pg.latest_version()
    return migrations.latest_version()


def main(argv: list[str] | None = None) -> int:
    """Run ``db`` subcommands standalone (``python -m db.tools.cli migrate``)."""
    parser = argparse.ArgumentParser(prog="arbitro")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["db", *(sys.argv[1:] if argv is None else argv)])
    handler: Any = args.handler
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
