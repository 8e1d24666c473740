"""The pictures of a reply, for both front ends: the table's map shown with it, the
campaign's map attached beside an export's files; drawn in a process of their own (the
pool of :mod:`bot.render.pool`, ``ARBITRO_PICTURE_WORKERS``), never fatal."""

from __future__ import annotations

import dataclasses
import logging
import os

from bot.render.campaign_map import campaign_map_png
from bot.render.map import render_map
from bot.render.pool import PicturePool
from bot.service.replies import FilesReply, Reply, picture_of

log = logging.getLogger(__name__)

#: The attachment's name (Discord's embed refers to it as ``attachment://map.png``).
MAP_FILE = "map.png"
#: The campaign map's file, attached beside ``/campaign export``'s report and log.
CAMPAIGN_MAP_FILE = "campaign-map.png"

#: The pool every picture of this process is drawn in (one per process, started on first use).
_pool = PicturePool()


def picture_pool() -> PicturePool:
    """The pool the pictures of this process are drawn in."""
    return _pool


def start_pictures(workers: int) -> None:
    """Draw the pictures in ``workers`` processes (0: on a thread), started now: a front
    end calls it at start-up so its first picture does not wait for the workers."""
    global _pool
    if workers != _pool.workers:
        _pool.shutdown()
        _pool = PicturePool(workers)
    _pool.warm(worker_pid)


async def stop_pictures() -> None:
    """End the pictures' workers (a front end stopping); no process is left behind."""
    await _pool.stop()


def worker_pid() -> int:
    """The process running this (a worker's when called through the pool): warming the
    workers imports this module there, and with it the drawing code."""
    return os.getpid()


async def reply_picture(reply: Reply) -> bytes | None:
    """The reply's map as PNG bytes; None when it has none or the drawing failed.

    Rendering takes tens of milliseconds of CPU (over a second for the largest maps): a
    worker process does it, so other channels' commands never wait for it. A failure is
    logged and the reply goes without its picture (the command itself is done).
    """
    view, public = picture_of(reply)
    if view is None:
        return None
    try:
        return await _pool.run(render_map, view, reply.language, public=public)
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
        files[CAMPAIGN_MAP_FILE] = await _pool.run(campaign_map_png, view)
    except Exception:
        log.exception("could not draw the campaign map of %r", view.title)
    return dataclasses.replace(reply, files=files, campaign_map=None)


__all__ = [
    "CAMPAIGN_MAP_FILE",
    "MAP_FILE",
    "picture_pool",
    "reply_picture",
    "start_pictures",
    "stop_pictures",
    "with_drawings",
    "worker_pid",
]
