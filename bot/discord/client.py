"""The Discord bot: slash commands, translator, persistent buttons, error handler, sync, reminders.

``bot.app.lifecycle`` builds it with :func:`build_bot` and runs it; ``arbitro sync --dry-run``
prints :func:`dry_run_payload`, the exact JSON the bot sends Discord when it syncs.

Syncing only on change: Discord rate-limits command syncs and discord.py advises syncing
only when the commands changed. With a ``sync_state`` file the bot hashes the payload it
would send (:func:`payload_hash`, the hash tests/bot/command_payload.sha256 pins) and syncs
only when it differs from the hash recorded after the last successful sync to the same
application and target (global, or one development guild).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.app import loop
from bot.discord.commands import build_app_commands
from bot.discord.direct import send_direct
from bot.discord.embeds import reply_to_messages
from bot.discord.errors import report_error
from bot.discord.outgoing import NO_MENTIONS
from bot.discord.runner import run_button
from bot.discord.translator import CatalogueTranslator
from bot.discord.views import ActionButton, DieFaceButton
from bot.service import GameService
from bot.service.replies import DirectReply, Reply
from db.protocol import GameStore
from rules.core.errors import InvalidInput

log = logging.getLogger("bot.discord")

#: Seconds a slash command waits for the service before deferring (see bot.discord.runner).
DEFER_AFTER = 1.5
REMINDER_SECONDS = 60.0
LANGUAGE_CACHE = 10_000


#: What the bot needs in a game channel (the invite URL's ``permissions``;
#: docs/self-hosting.md): find the channel and post reminders as embeds, also in threads, and
#: attach the export files. Nothing else: no history, no mass mentions, no moderation.
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
)
#: The OAuth2 scopes of the invite URL.
INVITE_SCOPES = ("bot", "applications.commands")


def invite_url(application_id: int) -> str:
    """The URL that adds the bot to a server with exactly the permissions it needs."""
    return discord.utils.oauth_url(
        application_id, permissions=REQUIRED_PERMISSIONS, scopes=INVITE_SCOPES
    )


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


def payload_hash(payload: list[dict[str, Any]]) -> str:
    """SHA-256 of the command payload as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CommandSyncState:
    """The payload hash last synced to each application and target, in a small JSON file."""

    def __init__(self, path: Path) -> None:
        """Keep the record in ``path`` (created on the first sync)."""
        self.path = path

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # never synced, or unreadable: syncing again is the safe answer
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def last(self, key: str) -> str | None:
        """The hash recorded for ``key``, if any."""
        return self._read().get(key)

    def record(self, key: str, digest: str) -> None:
        """Record ``digest`` for ``key`` (write to a temporary file, then rename)."""
        data = self._read()
        data[key] = digest
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, self.path)


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    """What :meth:`ArbitroBot.sync_commands_if_changed` did."""

    synced: bool
    target: str
    digest: str
    commands: int


@dataclass(frozen=True, slots=True)
class GatewayStatus:
    """The gateway connection as the heartbeat file records it."""

    latency_ms: float | None
    offline: bool = False


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord routes a guild's events to (its documented formula)."""
    return (guild_id >> 22) % shard_count


class ArbitroBot(commands.AutoShardedBot):
    """Arbitro's Discord client around a :class:`GameService`.

    Sharded: one process runs every shard by default (Discord's recommended count), or
    ``shard_ids`` of ``shard_count`` when several processes split the guilds (they then
    share a PostgreSQL store, docs/postgres.md). Each process answers the interactions
    Discord routes to its shards, posts the reminders of its guilds only, and one of them
    (``sync_commands``; by default the one running shard 0) syncs the command payload,
    only when it changed.
    """

    def __init__(
        self,
        service: GameService,
        *,
        guild_id: int | None = None,
        defer_after: float = DEFER_AFTER,
        sync_state: Path | None = None,
        serving: bool = True,
        shard_count: int | None = None,
        shard_ids: list[int] | None = None,
        sync_commands: bool | None = None,
    ) -> None:
        if shard_ids is not None and shard_count is None:
            raise ValueError("shard_ids need shard_count")
        if (
            shard_ids is not None
            and shard_count is not None
            and (
                not shard_ids
                or len(set(shard_ids)) != len(shard_ids)
                or not all(0 <= shard < shard_count for shard in shard_ids)
            )
        ):
            raise ValueError(f"shard_ids must be distinct numbers from 0 to {shard_count - 1}")
        # Arbitro never joins voice: silence discord.py's start-up warnings about it.
        for flag in ("warn_nacl", "warn_dave"):
            if hasattr(discord.VoiceClient, flag):
                setattr(discord.VoiceClient, flag, False)
        # discord.py types shard_ids as a list; None (every shard) is passed by leaving it out.
        sharding: dict[str, Any] = {} if shard_ids is None else {"shard_ids": shard_ids}
        super().__init__(
            shard_count=shard_count,
            **sharding,
            # No prefix commands: a mention prefix keeps commands.Bot quiet without the
            # privileged message-content intent.
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            tree_cls=ArbitroTree,
            # No ping unless a message names its users (`bot.discord.outgoing`).
            allowed_mentions=NO_MENTIONS,
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            allowed_installs=app_commands.AppInstallationType(guild=True),
        )
        self.service = service
        self.guild_id = guild_id
        self.defer_after = defer_after
        self.languages: OrderedDict[int, str] = OrderedDict()
        self._installed = False
        self.sync_state = CommandSyncState(sync_state) if sync_state is not None else None
        #: False for a bot built only to sync commands: no sync at login, no reminders.
        self.serving = serving
        # By default the process running shard 0 (or every shard) syncs the commands.
        self.sync_enabled = (
            (shard_ids is None or 0 in shard_ids) if sync_commands is None else sync_commands
        )
        self._logged_in = False
        #: True between READY (or RESUMED) and a disconnect; set by the offline double too.
        self.gateway_connected = False
        self.offline = False
        #: False once shutdown began: new commands are refused, running ones finish.
        self.accepting = True
        self._running_commands = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.closed = asyncio.Event()

    # ---- commands in flight and shutdown -------------------------------------------------

    def check_accepting(self) -> None:
        """Refuse a new command once shutdown began (a polite, translated refusal)."""
        if not self.accepting:
            raise InvalidInput("discord.error.shutting_down")

    @contextlib.contextmanager
    def command_in_flight(self) -> Iterator[None]:
        """Count a running command, so shutdown can wait for it."""
        self._running_commands += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._running_commands -= 1
            if self._running_commands == 0:
                self._idle.set()

    @property
    def running_commands(self) -> int:
        """How many commands are being carried out now."""
        return self._running_commands

    async def drain(self, grace: float) -> int:
        """Stop accepting commands and wait up to ``grace`` seconds for the running ones
        to finish; return how many are still running."""
        self.accepting = False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace)
        return self._running_commands

    # ---- the gateway, for the heartbeat --------------------------------------------------

    async def on_ready(self) -> None:
        """READY: connected (again) with a fresh session."""
        self.gateway_connected = True
        log.info("connected to Discord as %s (event loop: %s)", self.user, loop.running_loop_name())

    async def on_resumed(self) -> None:
        """RESUMED: the same session is back after a short disconnect."""
        self.gateway_connected = True

    async def on_disconnect(self) -> None:
        """The gateway connection dropped; discord.py reconnects by itself."""
        self.gateway_connected = False

    def gateway_status(self) -> GatewayStatus | None:
        """The connection's state when connected and not closing, else None."""
        if self.offline:
            return GatewayStatus(latency_ms=0.0, offline=True) if self.accepting else None
        if not self.gateway_connected or self.is_closed() or not self.is_ready():
            return None
        latency = self.latency
        return GatewayStatus(latency_ms=latency * 1000 if math.isfinite(latency) else None)

    async def run_button(
        self, interaction: discord.Interaction[Any], button: ActionButton | DieFaceButton
    ) -> None:
        """Run a clicked button's verb (`bot.discord.views.ButtonHost`)."""
        await run_button(interaction, button)

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
        self.add_dynamic_items(ActionButton, DieFaceButton)

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Sync to the development guild (instant) when one is set, else globally."""
        if self.guild_id is not None:
            guild = discord.Object(id=self.guild_id)
            self.tree.copy_global_to(guild=guild)
            return await self.tree.sync(guild=guild)
        return await self.tree.sync()

    def _sync_target(self) -> tuple[discord.Object | None, str]:
        if self.guild_id is None:
            return None, "globally"
        return discord.Object(id=self.guild_id), f"to guild {self.guild_id}"

    async def sync_commands_if_changed(self, *, force: bool = False) -> SyncOutcome:
        """Sync when the payload differs from the one last synced (always with ``force``
        or without a sync state file); record its hash after a successful sync."""
        guild, target = self._sync_target()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = await translated_payload(self, guild=guild)
        digest = payload_hash(payload)
        key = f"application {self.application_id}, " + ("global" if guild is None else target)
        state = self.sync_state
        if not force and state is not None and state.last(key) == digest:
            log.info("commands unchanged since the last sync %s (%s)", target, digest[:12])
            return SyncOutcome(False, target, digest, len(payload))
        synced = await self.sync_commands()
        if state is not None:
            try:
                state.record(key, digest)
            except OSError as error:  # the sync worked; the next start syncs once more
                log.warning("could not record the command sync in %s: %s", state.path, error)
        log.info("synced %d commands %s (%s)", len(synced), target, digest[:12])
        return SyncOutcome(True, target, digest, len(synced))

    def owns_guild(self, guild_id: int | None) -> bool:
        """Whether this process's shards hold ``guild_id`` (games outside a guild: shard 0)."""
        if self.shard_ids is None or self.shard_count is None:
            return True
        shard = 0 if guild_id is None else shard_of(guild_id, self.shard_count)
        return shard in self.shard_ids

    async def login(self, token: str) -> None:
        """Log in (the sharded client's event queue is made here; see `close`)."""
        self._logged_in = True
        await super().login(token)

    async def setup_hook(self) -> None:
        """Install everything, sync the commands if they changed (one process of several:
        ``sync_enabled``), start the reminder loop."""
        await self.install()
        if not self.serving:
            return
        try:
            if self.sync_enabled:
                await self.sync_commands_if_changed()
            else:
                log.info("command sync left to the process running shard 0")
        except app_commands.CommandSyncFailure:
            raise  # the payload itself is wrong: a bug to fix, not to run with
        except discord.HTTPException:
            # Discord unreachable or rate limited: the commands synced last time still work.
            log.exception("command sync failed; running with the commands synced before")
        if not self.reminder_loop.is_running():
            self.reminder_loop.start()

    async def close(self) -> None:
        """Stop the reminder loop, then disconnect."""
        self.accepting = False
        self.reminder_loop.cancel()
        try:
            if self._logged_in:
                await super().close()
            else:
                # Never logged in (a dry run): discord.py's sharded close expects the event
                # queue its login creates; the plain client close releases what exists.
                await discord.Client.close(self)
        finally:
            self.gateway_connected = False
            self.closed.set()

    async def post_reminders(self) -> int:
        """Post every passed deadline in its channel, pinging the late side; the count."""
        try:
            due = await self.service.due_reminders(owns_guild=self.owns_guild)
        except Exception:
            log.exception("could not read the due deadlines")
            return 0
        posted = 0
        for channel_id, due_reply in due:
            try:
                # A direct message goes to its player; the channel gets what their closed
                # messages leave instead (the mention, told once why).
                reply = await self._direct(due_reply)
                if reply is None:
                    posted += 1
                    continue
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

    async def _direct(self, reply: Reply) -> Reply | None:
        """A timer's direct message sent: None, or what the channel is posted instead."""
        return await send_direct(self, reply) if isinstance(reply, DirectReply) else reply

    @tasks.loop(seconds=REMINDER_SECONDS)
    async def reminder_loop(self) -> None:
        """Every minute: deadlines that passed."""
        await self.post_reminders()

    @reminder_loop.before_loop
    async def _before_reminders(self) -> None:
        await self.wait_until_ready()


def build_bot(
    service: GameService,
    *,
    guild_id: int | None = None,
    sync_state: Path | None = None,
    serving: bool = True,
    shard_count: int | None = None,
    shard_ids: list[int] | None = None,
    sync_commands: bool | None = None,
) -> ArbitroBot:
    """The Discord bot for ``service``; with ``guild_id`` commands sync to that guild only;
    with ``sync_state`` they sync only when changed (see the module docstring);
    ``shard_count``/``shard_ids`` split the guilds between processes (see `ArbitroBot`)."""
    return ArbitroBot(
        service,
        guild_id=guild_id,
        sync_state=sync_state,
        serving=serving,
        shard_count=shard_count,
        shard_ids=shard_ids,
        sync_commands=sync_commands,
    )


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

    return loop.run(build())


__all__ = [
    "INVITE_SCOPES",
    "REQUIRED_PERMISSIONS",
    "ArbitroBot",
    "ArbitroTree",
    "CommandSyncState",
    "GatewayStatus",
    "SyncOutcome",
    "build_bot",
    "dry_run_payload",
    "dummy_service",
    "invite_url",
    "payload_hash",
    "sync_payload",
    "translated_payload",
]
