"""The Discord bot: slash commands, translator, persistent buttons, error handler, sync, reminders.

``bot.main`` builds it with :func:`build_bot` and runs it; ``arbitro sync --dry-run``
prints :func:`dry_run_payload`, the exact JSON the bot sends Discord when it syncs.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.discord.commands import build_app_commands
from bot.discord.embeds import reply_to_messages
from bot.discord.errors import report_error
from bot.discord.translator import CatalogueTranslator
from bot.discord.views import ActionButton
from bot.service import GameService
from db.protocol import GameStore

log = logging.getLogger("bot.discord")

#: Seconds a slash command waits for the service before deferring (see bot.discord.runner).
DEFER_AFTER = 1.5
REMINDER_SECONDS = 60.0
LANGUAGE_CACHE = 10_000


def intents() -> discord.Intents:
    """Slash commands and buttons need no privileged intent; ``guilds`` keeps the channel
    cache that reminders post through."""
    return discord.Intents(guilds=True)


class ArbitroTree(app_commands.CommandTree):
    """The command tree, with one error handler for every command."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        """Checks and transformers that refuse, and anything a command let through."""
        await report_error(interaction, error)


class ArbitroBot(commands.Bot):
    """Arbitro's Discord client around a :class:`GameService`."""

    def __init__(
        self,
        service: GameService,
        *,
        guild_id: int | None = None,
        defer_after: float = DEFER_AFTER,
    ) -> None:
        super().__init__(
            # No prefix commands: a mention prefix keeps commands.Bot quiet without the
            # privileged message-content intent.
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            tree_cls=ArbitroTree,
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            allowed_installs=app_commands.AppInstallationType(guild=True),
        )
        self.service = service
        self.guild_id = guild_id
        self.defer_after = defer_after
        self.languages: OrderedDict[int, str] = OrderedDict()
        self._installed = False

    def remember_language(self, channel_id: int, language: str) -> None:
        """Keep the language of a channel's game for error messages (bounded LRU)."""
        self.languages[channel_id] = language
        self.languages.move_to_end(channel_id)
        while len(self.languages) > LANGUAGE_CACHE:
            self.languages.popitem(last=False)

    async def install(self) -> None:
        """Register the commands, translator and dynamic buttons (once; no network needed).

        The commands are generated from the declaration in :mod:`bot.commands`, which the
        console reads too.
        """
        if self._installed:
            return
        self._installed = True
        for command in build_app_commands():
            self.tree.add_command(command)
        await self.tree.set_translator(CatalogueTranslator())
        self.add_dynamic_items(ActionButton)

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Sync to the development guild (instant) when one is set, else globally."""
        if self.guild_id is not None:
            guild = discord.Object(id=self.guild_id)
            self.tree.copy_global_to(guild=guild)
            return await self.tree.sync(guild=guild)
        return await self.tree.sync()

    async def setup_hook(self) -> None:
        """Install everything, sync the commands, start the reminder loop."""
        await self.install()
        try:
            synced = await self.sync_commands()
            log.info(
                "synced %d commands %s",
                len(synced),
                f"to guild {self.guild_id}" if self.guild_id else "globally",
            )
        except app_commands.CommandSyncFailure:
            raise  # the payload itself is wrong: a bug to fix, not to run with
        except discord.HTTPException:
            # Discord unreachable or rate limited: the commands synced last time still work.
            log.exception("command sync failed; running with the commands synced before")
        if not self.reminder_loop.is_running():
            self.reminder_loop.start()

    async def close(self) -> None:
        """Stop the reminder loop, then disconnect."""
        self.reminder_loop.cancel()
        await super().close()

    async def post_reminders(self) -> int:
        """Post every passed deadline in its channel, pinging the late side; the count."""
        try:
            due = await self.service.due_reminders()
        except Exception:
            log.exception("could not read the due deadlines")
            return 0
        posted = 0
        for channel_id, reply in due:
            try:
                channel = self.get_channel(channel_id) or await self.fetch_channel(channel_id)
                if not isinstance(channel, discord.abc.Messageable):
                    log.warning("reminder for channel %s: not a text channel", channel_id)
                    continue
                for payload in reply_to_messages(reply):
                    await channel.send(
                        content=payload.content or None,
                        embeds=payload.embeds,
                        allowed_mentions=payload.allowed_mentions,
                    )
                posted += 1
            except Exception:
                # One unreachable channel must not stop the others or the loop.
                log.exception("could not post the reminder in channel %s", channel_id)
        return posted

    @tasks.loop(seconds=REMINDER_SECONDS)
    async def reminder_loop(self) -> None:
        """Every minute: deadlines that passed."""
        await self.post_reminders()

    @reminder_loop.before_loop
    async def _before_reminders(self) -> None:
        await self.wait_until_ready()


def build_bot(service: GameService, *, guild_id: int | None = None) -> ArbitroBot:
    """The Discord bot for ``service``; with ``guild_id`` commands sync to that guild only."""
    return ArbitroBot(service, guild_id=guild_id)


async def translated_payload(
    bot: ArbitroBot, *, guild: discord.abc.Snowflake | None = None
) -> list[dict[str, Any]]:
    """The JSON ``tree.sync(guild=guild)`` sends, translations included (no network)."""
    await bot.install()
    tree = bot.tree
    translator = tree.translator
    commands_ = tree.get_commands(guild=guild)
    if translator is None:
        return [command.to_dict(tree) for command in commands_]
    return [await command.get_translated_payload(tree, translator) for command in commands_]


class _NoStore:
    """A store for building the command tree only: any use is a programming error."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the dry-run bot has no storage (used {name!r})")


def dummy_service() -> GameService:
    """A service that can describe commands but never touches storage."""
    return GameService(cast(GameStore, _NoStore()))


async def dry_run_payload() -> list[dict[str, Any]]:
    """The translated sync payload of a bot built offline (no token, no network)."""
    bot = build_bot(dummy_service())
    try:
        return await translated_payload(bot)
    finally:
        await bot.close()


def sync_payload(locale_aware: bool = True) -> list[dict[str, Any]]:
    """:func:`dry_run_payload` for synchronous callers (not from inside an event loop);
    without ``locale_aware`` the payload has no localizations."""

    async def build() -> list[dict[str, Any]]:
        if locale_aware:
            return await dry_run_payload()
        bot = build_bot(dummy_service())
        try:
            await bot.install()
            return [command.to_dict(bot.tree) for command in bot.tree.get_commands()]
        finally:
            await bot.close()

    return asyncio.run(build())


__all__ = [
    "ArbitroBot",
    "ArbitroTree",
    "build_bot",
    "dry_run_payload",
    "dummy_service",
    "sync_payload",
    "translated_payload",
]
