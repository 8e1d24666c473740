"""The `arbitro` command: one entry point for every front end.

``arbitro`` alone runs the Discord bot when ``DISCORD_TOKEN`` is set, the console table
otherwise. Settings are built here, never at import time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level argument parser with every subcommand registered."""
    from bot.replay_cli import register as register_replay
    from db.cli import register as register_db
    from rules.cli import register as register_rules

    parser = argparse.ArgumentParser(prog="arbitro", description="Arbitro, the wargame umpire.")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    console = subcommands.add_parser("console", help="the console table (no Discord needed)")
    console.add_argument("--channel", type=int, default=1, help="the table's channel id")
    console.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    console.add_argument("--strict", action="store_true", help="exit 1 if a command failed")
    console.set_defaults(handler=_console)
    run = subcommands.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)")
    run.add_argument("--db", help="SQLite file (default: ARBITRO_DB or arbitro.db)")
    run.set_defaults(handler=_run)
    sync = subcommands.add_parser("sync", help="the slash commands sent to Discord")
    sync.add_argument(
        "--dry-run",
        action="store_true",
        required=True,
        help="print the translated JSON payload instead of syncing",
    )
    sync.set_defaults(handler=_sync)
    register_rules(subcommands)
    register_replay(register_db(subcommands))
    return parser


def _settings(args: argparse.Namespace) -> Any:
    from bot.settings import Settings

    settings = Settings()
    if getattr(args, "db", None):
        settings = settings.model_copy(update={"db": args.db})
    return settings


async def _open_service(settings: Any) -> tuple[Any, Any]:
    from bot.service import GameService
    from bot.upgrade import ensure_readable
    from db.sqlite import SqliteStore

    store = await SqliteStore.open(str(settings.db))
    try:
        # Refuse to serve a database holding games this version cannot read (nothing is
        # written: older documents are migrated in memory as each game is loaded).
        await ensure_readable(store, str(settings.db))
    except BaseException:
        await store.close()
        raise
    return store, GameService(store)


def _console(args: argparse.Namespace) -> int:
    from bot.console import run_console

    settings = _settings(args)

    async def go() -> int:
        store, service = await _open_service(settings)
        try:
            return await run_console(service, channel_id=args.channel, strict=args.strict)
        finally:
            await store.close()

    return asyncio.run(go())


def _run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if settings.discord_token is None:
        sys.stderr.write("arbitro run: set DISCORD_TOKEN (or use `arbitro console`)\n")
        return EXIT_USAGE
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from bot.discord.client import build_bot

    async def go() -> int:
        store, service = await _open_service(settings)
        try:
            bot = build_bot(service, guild_id=settings.guild)
            async with bot:
                await bot.start(settings.discord_token.get_secret_value())
        finally:
            await store.close()
        return 0

    return asyncio.run(go())


def _sync(args: argparse.Namespace) -> int:
    from bot.discord.client import dry_run_payload

    payload = asyncio.run(dry_run_payload())
    print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `arbitro` command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run" if _settings(args).discord_token else "console"])
    if args.command == "rules":
        from rules.cli import run as run_rules

        return run_rules(args)
    from db.errors import StoreError

    try:
        return int(args.handler(args))
    except StoreError as error:
        sys.stderr.write(f"arbitro: {error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
