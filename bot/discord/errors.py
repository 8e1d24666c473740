"""The one place where a failure becomes a message: always ephemeral, never twice.

Rules errors (refusals a player caused: not your unit, wrong phase, bad dice) are shown
as they are, in the game's language; Discord-side refusals (a check, a value the
transformer cannot read) get a short localized sentence; anything else is a bug: it is
logged with its context and the user gets a polite apology. Nothing escapes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from bot.discord.outgoing import NO_MENTIONS, content
from bot.discord.translator import LOCALES
from rules.core.errors import RulesError
from rules.core.i18n import DEFAULT_LANGUAGE, translate

log = logging.getLogger("bot.discord")

#: interaction.extras key: "public" or "private" while a deferred "thinking…" original
#: waits for its first message (which Discord shows with the defer's visibility).
PENDING = "arbitro_pending"


def interaction_language(interaction: discord.Interaction[Any]) -> str:
    """The game's language when this bot has seen the channel's game, else the user's, else
    the bot's own (``ARBITRO_LANGUAGE``)."""
    known: Mapping[int, str] = getattr(interaction.client, "languages", {})
    if interaction.channel_id is not None and interaction.channel_id in known:
        return known[interaction.channel_id]
    service = getattr(interaction.client, "service", None)
    fallback = getattr(service, "default_language", DEFAULT_LANGUAGE)
    return LOCALES.get(interaction.locale) or fallback


def unwrap(error: BaseException) -> BaseException:
    """The error a command raised, without discord.py's invoke wrappers."""
    while isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return error


def user_message(error: BaseException, language: str) -> tuple[str, bool]:
    """The text to show for ``error`` and whether it is expected (False: a bug to log)."""
    error = unwrap(error)
    if isinstance(error, RulesError):
        return error.localized(language), True
    if isinstance(error, app_commands.TransformerError):
        return translate("discord.error.transform", language, value=str(error.value)[:100]), True
    if isinstance(error, app_commands.CheckFailure):
        return translate("discord.error.check", language), True
    return translate("discord.error.unexpected", language), False


def describe_interaction(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """What to log about an interaction: command, channel, user, options."""
    command = interaction.command
    data: Mapping[str, Any] = interaction.data or {}
    return {
        "command": getattr(command, "qualified_name", None) or data.get("custom_id"),
        "channel": interaction.channel_id,
        "guild": interaction.guild_id,
        "user": interaction.user.id if interaction.user else None,
        "options": dict(interaction.namespace.__dict__) if command is not None else {},
    }


async def send_private(interaction: discord.Interaction[Any], text: str) -> None:
    """Send ``text`` only to the user, whatever state the interaction response is in.

    Before any response: an ephemeral response. After a public "thinking…" defer, whose
    first message Discord would show to everyone: that message becomes a one-line public
    notice and the details follow ephemerally. Otherwise: an ephemeral follow-up.
    """
    # Within Discord's 2,000 characters (an error may repeat long names a player typed),
    # and no ping: the refusal is the asker's alone.
    text = content(text)
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        if interaction.extras.pop(PENDING, None) == "public":
            language = interaction_language(interaction)
            await interaction.edit_original_response(
                content=translate("discord.error.see_private", language),
                allowed_mentions=NO_MENTIONS,
            )
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException:
        # The interaction expired or Discord refused: nothing more can reach the user.
        log.warning(
            "could not deliver an error message: %s",
            describe_interaction(interaction),
            exc_info=True,
        )


async def _learn_language(interaction: discord.Interaction[Any]) -> None:
    """After a restart the bot has not seen the channel's game yet: ask the service once."""
    client = interaction.client
    known: Mapping[int, str] = getattr(client, "languages", {})
    service = getattr(client, "service", None)
    remember = getattr(client, "remember_language", None)
    channel = interaction.channel_id
    if channel is None or channel in known or service is None or remember is None:
        return
    language = await service.language(channel)
    if language is not None:
        remember(channel, language)


async def report_error(
    interaction: discord.Interaction[Any],
    error: BaseException,
    *,
    context: Mapping[str, Any] | None = None,
) -> None:
    """Show ``error`` to the user (ephemerally, once) and log it when it is a bug."""
    try:
        await _learn_language(interaction)
        language = interaction_language(interaction)
        text, expected = user_message(error, language)
        if not expected:
            details = {**describe_interaction(interaction), **(context or {})}
            log.error(
                "unexpected error in %s: %s",
                details.get("command"),
                details,
                exc_info=unwrap(error),
            )
        await send_private(interaction, text)
    except Exception:  # the error path itself must never raise into discord.py
        log.exception("error while reporting an error")


__all__ = [
    "PENDING",
    "describe_interaction",
    "interaction_language",
    "report_error",
    "send_private",
    "unwrap",
    "user_message",
]
