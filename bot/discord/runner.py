"""A command's path through Discord: interaction → Request → service → messages.

Slash commands and buttons both end here, so both get the same request, the same error
handling and the same rendering. Nothing here knows a rule.

Answering in time without leaking errors: Discord fixes whether the first message of an
interaction is public or ephemeral when the bot first answers it — a public "thinking…"
defer makes the next message public, errors included. So a slash command waits for the
service up to ``bot.defer_after`` seconds (1.5 by default, well inside the 3 s Discord
allows) and answers directly: results publicly, refusals ephemerally. Only a slower call
is deferred; if that one then fails, the thinking message turns into a one-line public
notice and the error itself follows ephemerally. ``defer_after = 0`` defers first,
always. ``/odds`` is private and deferred at once. Buttons are deferred at once as an
invisible "update" of their message (no thinking message to leak through).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import discord

from bot.discord.direct import send_direct
from bot.discord.embeds import MessagePayload, reply_to_messages
from bot.discord.errors import PENDING, describe_interaction, report_error
from bot.discord.outgoing import with_mentions
from bot.discord.translator import LOCALES
from bot.discord.views import ActionButton, DieFaceButton, view_after_click
from bot.render.campaign_report import with_report
from bot.render.pictures import reply_picture, with_drawings
from bot.service import MAX_SCENARIO_BYTES, GameService, Request
from bot.service.export import discard
from bot.service.replies import DirectReply, Reply, spool_of
from rules.core.errors import InvalidInput, RulesError

log = logging.getLogger("bot.discord")


class CommandHost(Protocol):
    """What the runner needs of the bot that received an interaction (the Arbitro bot,
    `bot.discord.client.ArbitroBot`, which imports this module: it is named here by what
    it does, not imported)."""

    service: GameService
    defer_after: float

    def check_accepting(self) -> None:
        """Refuse a new command once shutdown began."""

    def command_in_flight(self) -> contextlib.AbstractContextManager[None]:
        """Count a running command, so shutdown can wait for it."""

    def remember_language(self, channel_id: int, language: str) -> None:
        """Keep the language of a channel's game for error messages."""


def bot_of(interaction: discord.Interaction[Any]) -> CommandHost:
    """The Arbitro bot that received ``interaction``."""
    return cast(CommandHost, interaction.client)


def build_request(
    interaction: discord.Interaction[Any],
    verb: str,
    options: Mapping[str, Any],
    *,
    channel_id: int | None = None,
    dice: str | None = None,
    attachment: str | None = None,
    attachment_name: str | None = None,
) -> Request:
    """The service request for ``verb``: only the options the user actually gave."""
    channel = channel_id if channel_id is not None else interaction.channel_id
    if channel is None:  # Discord always sends one for commands; never guess a game
        raise InvalidInput("discord.error.no_channel")
    return Request(
        channel_id=channel,
        guild_id=interaction.guild_id,
        user_id=interaction.user.id,
        user_name=str(interaction.user),
        verb=verb,
        options={name: value for name, value in options.items() if value is not None},
        dice=dice or None,
        interaction_id=str(interaction.id),
        attachment=attachment,
        attachment_name=attachment_name,
        locale=LOCALES.get(interaction.locale),
        # Resolved in this channel: may the asker take over a game whose referee is gone?
        manages_channel=bool(interaction.permissions.manage_channels),
        manages_guild=bool(interaction.permissions.manage_guild),
        role_ids=tuple(role.id for role in getattr(interaction.user, "roles", ())),
    )


async def read_attachment(file: discord.Attachment) -> str:
    """An uploaded scenario as text: size-checked before download, UTF-8 decoded."""
    if file.size > MAX_SCENARIO_BYTES:
        raise InvalidInput(
            "discord.error.file_too_big", file=file.filename[:60], limit=MAX_SCENARIO_BYTES
        )
    data = await file.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput("discord.error.not_utf8", file=file.filename[:60]) from None


async def _defer(interaction: discord.Interaction[Any], *, private: bool) -> None:
    if interaction.response.is_done():
        return
    try:
        await interaction.response.defer(thinking=True, ephemeral=private)
        interaction.extras[PENDING] = "private" if private else "public"
    except discord.HTTPException:
        log.warning("defer failed: %s", describe_interaction(interaction), exc_info=True)


async def send_payloads(
    interaction: discord.Interaction[Any],
    payloads: Sequence[MessagePayload],
    *,
    private: bool = False,
) -> int | None:
    """Send messages as the interaction's response, then as follow-ups (never twice): the
    id of the first one sent (None when Discord did not say)."""
    first: int | None = None
    for payload in payloads:
        kwargs: dict[str, Any] = {
            "embeds": payload.embeds,
            "allowed_mentions": payload.allowed_mentions,
            "ephemeral": private,
        }
        if payload.content:
            kwargs["content"] = payload.content
        if payload.files:
            kwargs["files"] = payload.discord_files()
        if payload.view is not None:
            kwargs["view"] = payload.view
        kwargs = with_mentions(kwargs)
        sent: int | None
        if not interaction.response.is_done():
            sent = (await interaction.response.send_message(**kwargs)).message_id
        else:
            # The first follow-up after a "thinking…" defer completes that message.
            interaction.extras.pop(PENDING, None)
            message = await interaction.followup.send(**kwargs)
            sent = None if message is None else message.id
        first = sent if first is None else first
    return first


async def send_reply(
    interaction: discord.Interaction[Any],
    reply: Reply,
    channel_id: int,
    *,
    private: bool = False,
) -> None:
    """Send a reply: its messages, with its picture and its buttons.

    A reply that tells what the enemy may not see (``reply.public`` set: a hidden unit's
    move) goes in two parts: first what the channel may see, publicly (the picture, the
    buttons, the pings), then the whole reply to its asker alone, without buttons (the
    seats that owe a roll press the public ones).
    """
    if isinstance(reply, DirectReply):  # /notify test: sent, then whether it arrived
        answer = await send_direct(interaction.client, reply)
        if answer is not None:
            await send_payloads(interaction, reply_to_messages(answer), private=True)
        return
    reply = await with_drawings(await with_report(reply))
    public = reply.public
    if public is not None and not private:
        picture = await reply_picture(public)
        shown = await send_payloads(
            interaction, reply_to_messages(public, channel_id=channel_id, picture=picture)
        )
        await send_payloads(interaction, reply_to_messages(reply), private=True)
        await _posted(interaction, reply, shown)
        return
    picture = await reply_picture(reply)
    private = private or reply.private
    shown = await send_payloads(
        interaction,
        reply_to_messages(reply, channel_id=channel_id, picture=picture),
        private=private,
    )
    if not private:
        await _posted(interaction, reply, shown)


async def _posted(
    interaction: discord.Interaction[Any], reply: Reply, message_id: int | None
) -> None:
    """Tell what waits for it (``reply.on_posted``) where the channel's message is: its
    jump URL. A failure there is logged: the message is posted."""
    guild, channel = interaction.guild_id, interaction.channel_id
    if message_id is None or guild is None or channel is None:
        return
    url = f"https://discord.com/channels/{guild}/{channel}/{message_id}"
    for hook in reply.on_posted:
        try:
            await hook(channel, url)
        except Exception:  # the notice keeps the channel's link
            log.exception("channel %s: a posted reply's hook failed", interaction.channel_id)


def _remember(interaction: discord.Interaction[Any], request: Request, reply: Reply) -> None:
    bot_of(interaction).remember_language(request.channel_id, reply.language)


async def run_command(
    interaction: discord.Interaction[Any],
    verb: str,
    options: Mapping[str, Any],
    *,
    dice: str | None = None,
    attachment: discord.Attachment | None = None,
    private: bool = False,
) -> None:
    """Run one slash command end to end; every failure ends as an ephemeral message.

    Once shutdown began the command is refused; one already running is waited for.
    """
    bot = bot_of(interaction)
    context = {"verb": verb, "options": dict(options), "dice": dice}
    try:
        bot.check_accepting()
    except RulesError as error:
        await report_error(interaction, error, context=context)
        return
    with bot.command_in_flight():
        await _run_command(interaction, verb, options, dice, attachment, private, context)


async def _run_command(
    interaction: discord.Interaction[Any],
    verb: str,
    options: Mapping[str, Any],
    dice: str | None,
    attachment: discord.Attachment | None,
    private: bool,
    context: dict[str, Any],
) -> None:
    bot = bot_of(interaction)

    async def work() -> tuple[Request, Reply]:
        text = await read_attachment(attachment) if attachment is not None else None
        request = build_request(
            interaction,
            verb,
            options,
            dice=dice,
            attachment=text,
            attachment_name=None if attachment is None else attachment.filename,
        )
        return request, await bot.service.handle(request)

    task = asyncio.create_task(work())
    try:
        if private or bot.defer_after <= 0:
            await _defer(interaction, private=private)
        else:
            done, _ = await asyncio.wait({task}, timeout=bot.defer_after)
            if not done:
                await _defer(interaction, private=False)
        request, reply = await task
    except Exception as error:
        await report_error(interaction, error, context=context)
        return
    _remember(interaction, request, reply)
    try:
        await send_reply(interaction, reply, request.channel_id, private=private)
    except Exception as error:
        # The command is committed; only its display failed (Discord refused a message).
        await report_error(interaction, error, context=context)
    finally:
        # A large export's files were sent from disk: the spool goes once they are.
        await asyncio.to_thread(discard, spool_of(reply))


async def run_button(
    interaction: discord.Interaction[Any], button: ActionButton | DieFaceButton
) -> None:
    """Run a button's verb for whoever clicked it; disable the button once it worked."""
    bot = bot_of(interaction)
    context = {"verb": button.verb, "options": button.options, "button": True}
    try:
        bot.check_accepting()
    except RulesError as error:
        await report_error(interaction, error, context=context)
        return
    with bot.command_in_flight():
        await _run_button(interaction, button, context)


async def _run_button(
    interaction: discord.Interaction[Any],
    button: ActionButton | DieFaceButton,
    context: dict[str, Any],
) -> None:
    bot = bot_of(interaction)
    try:
        if not interaction.response.is_done():
            await interaction.response.defer()
        request = build_request(
            interaction, button.verb, button.options, channel_id=button.channel_id
        )
        reply = await bot.service.handle(request)
    except Exception as error:
        await report_error(interaction, error, context=context)
        return
    _remember(interaction, request, reply)
    try:
        await send_reply(interaction, reply, request.channel_id)
    except Exception as error:
        await report_error(interaction, error, context=context)
        return
    try:
        view = view_after_click(interaction.message, button)
        if view is not None:
            await interaction.edit_original_response(view=view)
    except discord.HTTPException:
        # Only cosmetic: the action is done and shown; the old button stays clickable and
        # the service refuses or repeats it as the rules say.
        log.warning(
            "could not disable a used button: %s", describe_interaction(interaction), exc_info=True
        )


__all__ = [
    "CommandHost",
    "bot_of",
    "build_request",
    "read_attachment",
    "run_button",
    "run_command",
    "send_payloads",
    "send_reply",
]
