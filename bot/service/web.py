"""The web pages' feature: ``/game web`` and ``/campaign web`` (a personal signed link,
answered privately; the referee's spectator link, posted).

A link says only who its reader is (`bot.service.links`); what a page shows them is read
when it is served (`bot.service.pages`, which composes the features' reads). This module
imports no other feature: it reads the asker's seat from the command's table, and a
campaign's referee and sides from the campaign's stored state.
"""

from __future__ import annotations

from bot.service.errors import ServiceError
from bot.service.handlers import Call, Handler
from bot.service.links import Kind, LinkSigner, link_signer
from bot.service.replies import Reply, TextReply
from bot.service.requests import seat_among
from bot.service.stored.campaign import campaign_of
from rules.core.i18n import translate


def _signer() -> LinkSigner:
    signer = link_signer()
    if signer is None:
        raise ServiceError("error.web.off")
    return signer


async def game_link(call: Call) -> Reply:
    """``/game web [spectator]``: the asker's link to the game's page (privately); the
    referee's ``spectator:true`` gives the link anyone may read, posted in the channel."""
    request = call.request
    context = await call.open()
    record = context.record
    if record.is_campaign:
        raise ServiceError("error.campaign.here", name=str(record.document.get("name", "")))
    seat = seat_among(request, context.members, context.side_roles)
    return _link_reply(call, "game", record.language, seat.referee, not seat.seated)


async def campaign_link(call: Call) -> Reply:
    """``/campaign web [spectator]``: the same for the campaign of this channel."""
    record, state = await campaign_of(call.store, call.request.channel_id)
    user = call.request.user_id
    referee = state.referee == user
    return _link_reply(
        call, "campaign", record.language, referee, not referee and state.side_of(user) is None
    )


def _link_reply(call: Call, kind: Kind, language: str, referee: bool, unseated: bool) -> Reply:
    request = call.request
    signer = _signer()
    spectator = bool(request.options.get("spectator"))
    if spectator and not referee:
        raise ServiceError("error.service.referee_only")
    link = signer.link(kind, request.channel_id, None if spectator else request.user_id)
    reply = TextReply(language=language, private=not spectator)
    reply.lines_title = "discord.embed.web"
    key = "bot.web.spectator_link" if spectator else "bot.web.link"
    reply.lines.append(translate(key, language, url=signer.url(link), n=signer.days))
    if unseated and not spectator:
        reply.lines.append(translate("bot.web.unseated", language))
    return reply


HANDLERS = (
    Handler(("game.web",), read_only=True, run=game_link),
    Handler(("campaign.web",), read_only=True, run=campaign_link),
)


__all__ = ["HANDLERS", "campaign_link", "game_link"]
