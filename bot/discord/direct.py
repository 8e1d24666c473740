"""Direct messages: a :class:`DirectReply` sent to its player, and what happens when their
messages refuse the bot.

Discord answers a direct message to a member whose messages are closed to the bot with a
403 whose code is 50007. The reply's ``refused`` then records the block in the service and
gives what is posted instead (in the game's channel, or to the asker of ``/notify test``);
any other failure is the caller's to log.
"""

from __future__ import annotations

import logging

import discord

from bot.discord.embeds import reply_to_messages
from bot.discord.outgoing import NO_MENTIONS
from bot.service.replies import DirectReply, Reply

log = logging.getLogger("bot.discord")

#: Discord's code for "Cannot send messages to this user".
CANNOT_MESSAGE_USER = 50007


async def send_direct(client: discord.Client, reply: DirectReply) -> Reply | None:
    """Send ``reply`` to its player; what to show instead when their messages refuse the
    bot (the block recorded), else ``reply.arrived`` (None for a timer's notice)."""
    try:
        user = client.get_user(reply.user) or await client.fetch_user(reply.user)
        for payload in reply_to_messages(reply):
            await user.send(
                content=payload.content or None,
                embeds=payload.embeds,
                allowed_mentions=NO_MENTIONS,
            )
    except discord.Forbidden as error:
        if error.code != CANNOT_MESSAGE_USER or reply.refused is None:
            raise
        log.info("user %s refuses direct messages", reply.user)
        return await reply.refused()
    return reply.arrived


__all__ = ["CANNOT_MESSAGE_USER", "send_direct"]
