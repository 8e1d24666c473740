"""The picture of a reply, for both front ends: rendered off the event loop, never fatal."""

from __future__ import annotations

import asyncio
import logging

from bot.render.map import render_map
from bot.service.replies import Reply, picture_of

log = logging.getLogger(__name__)

#: The attachment's name (Discord's embed refers to it as ``attachment://map.png``).
MAP_FILE = "map.png"


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


__all__ = ["MAP_FILE", "reply_picture"]
