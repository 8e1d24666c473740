"""The `arbitro` command: one entry point for every front end.

``arbitro`` alone runs the Discord bot when ``DISCORD_TOKEN`` is set, the console table
otherwise. Settings are built here, never at import time. Every front end is imported at
the top (the import graph stays readable: tests/test_structure.py); that costs each command
a few tenths of a second at start, the healthcheck included.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.app import loop
from bot.app.health import add_arguments as add_health_arguments
from bot.app.health import run as run_health
from bot.app.lifecycle import (
    Connector,
    StartError,
    connect_to_discord,
    explain_gateway_failure,
    install_stop_handlers,
    serve,
)
from bot.app.replay_cli import register as register_replay
from bot.app.settings import SettingsError, load_settings
from bot.app.upgrade import ensure_readable
from bot.console.table import run_console
from bot.discord.client import build_bot, dry_run_payload, dummy_service
from bot.discord.offline import run_offline
from bot.render.pictures import start_pictures, stop_pictures
from bot.service import GameService
from bot.service.limits import LogLimits
from bot.web.app import signer_of, start_web
from bot.web.beside import settle_pages, web_beside
from db.errors import StoreError
from db.open import open_store
from db.tools.cli import register as register_db
from rules.cli import register as register_rules
from rules.cli import run as run_rules
from rules.core.i18n import LANGUAGES

EXIT_USAGE = 2


def _channel_id(text: str) -> int:
    """A channel id as SQLite and Discord hold them: a positive 64-bit integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:30]!r}") from None
    if not 1 <= value < 2**63:
        raise argparse.ArgumentTypeError("a channel id is between 1 and 2**63 - 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level argument parser with every subcommand registered."""

    parser = argparse.ArgumentParser(prog="arbitro", description="Arbitro, the wargame umpire.")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    console = subcommands.add_parser("console", help="the console table (no Discord needed)")
    console.add_argument(
        "--channel", type=_channel_id, default=1, help="the table's channel id (1 to 2⁶³−1)"
    )
    console.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    console.add_argument("--strict", action="store_true", help="exit 1 if a command failed")
    console.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the table's language, and a new game's (default: ARBITRO_LANGUAGE, else it)",
    )
    console.set_defaults(handler=_console)
    run = subcommands.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)")
    run.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    # Hidden: the offline gateway double (bot.discord.offline), for tests and smoke checks.
    run.add_argument("--offline", action="store_true", help=argparse.SUPPRESS)
    run.set_defaults(handler=_run)
    sync = subcommands.add_parser(
        "sync", help="sync the slash commands to Discord (only if they changed)"
    )
    sync.add_argument(
        "--dry-run",
        action="store_true",
        help="print the translated JSON payload instead of syncing (no token needed)",
    )
    sync.add_argument("--force", action="store_true", help="sync even if nothing changed")
    sync.add_argument("--db", help="the database whose sync record to use (default: ARBITRO_DB)")
    sync.set_defaults(handler=_sync)
    health = subcommands.add_parser(
        "health", help="is the running bot connected and its database answering? (exit 0/1)"
    )
    add_health_arguments(health)
    health.set_defaults(handler=run_health)
    web = subcommands.add_parser(
        "web",
        help="serve the read-only web pages alone (ARBITRO_WEB_URL, ARBITRO_WEB_SECRET)",
    )
    web.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    web.set_defaults(handler=_web)
    register_rules(subcommands)
    register_replay(register_db(subcommands, run_coroutine=loop.run))
    return parser


def _settings(args: argparse.Namespace) -> Any:

    overrides: dict[str, Any] = {}
    if getattr(args, "db", None):
        overrides["db"] = Path(args.db)
    if getattr(args, "heartbeat", None):
        overrides["heartbeat"] = Path(args.heartbeat)
    if getattr(args, "language", None):
        overrides["language"] = args.language
    return load_settings(**overrides)


def _configure_logging(settings: Any) -> None:
    logging.basicConfig(
        level=settings.log_level_number,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def _open_service(settings: Any) -> tuple[Any, Any]:

    store = await open_store(str(settings.db))
    try:
        # Refuse to serve a database holding games this version cannot read (nothing is
        # written: older documents are migrated in memory as each game is loaded).
        await ensure_readable(store, str(settings.db))
    except BaseException:
        await store.close()
        raise
    return store, GameService(
        store, language=settings.language, limits=LogLimits.from_settings(settings)
    )


def maps_beside(database: str) -> Path:
    """Where the console saves the pictures of the table: ``arbitro.maps/`` beside
    ``arbitro.db`` (in the working directory for a PostgreSQL database)."""
    if "://" in database:
        return Path("arbitro.maps")
    path = Path(database)
    return path.with_name(path.stem + ".maps")


def files_beside(database: str) -> Path:
    """Where the console saves a reply's files (exports): ``arbitro.files/`` beside
    ``arbitro.db`` (in the working directory for a PostgreSQL database)."""
    if "://" in database:
        return Path("arbitro.files")
    path = Path(database)
    return path.with_name(path.stem + ".files")


def _console(args: argparse.Namespace) -> int:

    settings = _settings(args)

    async def go() -> int:
        store, service = await _open_service(settings)
        pages = await web_beside(settings, store)
        try:
            start_pictures(settings.picture_workers)
            return await run_console(
                service,
                channel_id=args.channel,
                strict=args.strict,
                maps_dir=maps_beside(str(settings.db)),
                language=settings.language,
                files_dir=files_beside(str(settings.db)),
            )
        finally:
            if pages is not None:
                await pages.stop()
            await stop_pictures()
            await store.close()

    return loop.run(go())


def _run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if settings.discord_token is None and not args.offline:
        sys.stderr.write("arbitro run: set DISCORD_TOKEN (or use `arbitro console`)\n")
        return EXIT_USAGE
    _configure_logging(settings)

    connect: Connector
    if args.offline:
        connect = run_offline
    else:
        connect = connect_to_discord(settings.discord_token.get_secret_value())
    try:
        return loop.run(serve(settings, connect))
    except StartError as error:
        sys.stderr.write(f"arbitro run: {error}\n")
        return error.exit_status
    finally:
        # Everything is closed by now. Spare the interpreter's final garbage collection
        # over discord.py's and pydantic's objects: it took about half a second of the
        # 2 s a container stop allows (measured on a loaded 2-core machine).
        gc.freeze()


def _web(args: argparse.Namespace) -> int:
    """``arbitro web``: the pages alone, for deployments with several bot processes (each
    reads the same store; the bots give the links with the same secret)."""
    settings = _settings(args)
    signer = signer_of(settings)
    if signer is None:
        sys.stderr.write("arbitro web: set ARBITRO_WEB_URL and ARBITRO_WEB_SECRET\n")
        return EXIT_USAGE
    _configure_logging(settings)

    async def go() -> int:
        stop = asyncio.Event()
        handled = install_stop_handlers(asyncio.get_running_loop(), stop)
        store = await open_store(str(settings.db))
        try:
            await ensure_readable(store, str(settings.db))
            settle_pages()
            server = await start_web(
                store, signer, settings.web_host, settings.web_port, settings.language
            )
            try:
                await stop.wait()
            finally:
                await server.stop()
        finally:
            await store.close()
            for number in handled:
                asyncio.get_running_loop().remove_signal_handler(number)
        return 0

    return loop.run(go())


def _sync(args: argparse.Namespace) -> int:

    if args.dry_run:
        payload = loop.run(dry_run_payload())
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    settings = _settings(args)
    if settings.discord_token is None:
        sys.stderr.write("arbitro sync: set DISCORD_TOKEN (or use --dry-run)\n")
        return EXIT_USAGE
    _configure_logging(settings)

    async def go() -> Any:
        bot = build_bot(
            dummy_service(),
            guild_id=settings.guild,
            sync_state=settings.sync_state_path,
            serving=False,
        )
        try:
            await bot.login(settings.discord_token.get_secret_value())
            return await bot.sync_commands_if_changed(force=args.force)
        finally:
            await bot.close()

    try:
        outcome = loop.run(go())
    except Exception as error:
        failure = explain_gateway_failure(error)
        sys.stderr.write(f"arbitro sync: {failure}\n")
        return failure.exit_status
    if outcome.synced:
        print(f"synced {outcome.commands} commands {outcome.target} ({outcome.digest[:12]})")
    else:
        print(
            f"commands unchanged since the last sync {outcome.target} "
            f"({outcome.digest[:12]}); --force syncs anyway"
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `arbitro` command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    if args.command is None:
        try:
            token = _settings(args).discord_token
        except SettingsError as error:
            sys.stderr.write(f"arbitro: {error}\n")
            return EXIT_USAGE
        args = parser.parse_args(["run" if token else "console"])
    if args.command == "rules":
        return run_rules(args)

    try:
        return int(args.handler(args))
    except (SettingsError, loop.EventLoopChoiceError) as error:
        sys.stderr.write(f"arbitro: {error}\n")
        return EXIT_USAGE
    except StoreError as error:
        sys.stderr.write(f"arbitro: {error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
