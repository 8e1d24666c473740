"""The pictures of a reply, for both front ends: the table's map shown with it, the
campaign's map attached beside an export's files; drawn off the event loop, never fatal."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from bot.render.campaign_map import campaign_map_png
from bot.render.map import render_map
from bot.service.replies import FilesReply, Reply, picture_of

log = logging.getLogger(__name__)

#: The attachment's name (Discord's embed refers to it as ``attachment://map.png``).
MAP_FILE = "map.png"
#: The campaign map's file, attached beside ``/campaign export``'s report and log.
CAMPAIGN_MAP_FILE = "campaign-map.png"


async def reply_picture(reply: Reply) -> bytes | None:
    """The reply's map as PNG bytes; None when it has none or the drawing failed.

    Rendering takes tens of milliseconds of CPU: a worker thread does it, so the event
    loop keeps serving other channels. A failure is logged and the reply goes without
    its picture (the command itself is done).
    """
    view, public = picture_of(reply)
    if view is None:
        return None
    try:
        return await asyncio.to_thread(render_map, view, reply.language, public=public)
    except Exception:
        log.exception("could not draw the map of %r", view.title)
        return None


async def with_drawings(reply: Reply) -> Reply:
    """The reply with the pictures its files come with drawn and added to them: the
    campaign's map (``/campaign export``) from its data. The reply as it is when it carries
    none; without the picture when the drawing failed (logged: the files still go)."""
    if not isinstance(reply, FilesReply) or reply.campaign_map is None:
        return reply
    view = reply.campaign_map
    files = dict(reply.files)
    try:
        files[CAMPAIGN_MAP_FILE] = await asyncio.to_thread(campaign_map_png, view)
    except Exception:
        log.exception("could not draw the campaign map of %r", view.title)
    return dataclasses.replace(reply, files=files, campaign_map=None)


__all__ = ["CAMPAIGN_MAP_FILE", "MAP_FILE", "reply_picture", "with_drawings"]
