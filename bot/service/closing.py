"""A game's closing: the store's end written right after the event that ended it.

A step of the service shared by every feature whose command may end a game (a command of
the rules, a concession or a decision, an undo or a rewind back to an ended state), so none
of them reaches into another for it. It is not a feature: it declares no verb.
"""

from __future__ import annotations

import logging

from bot.service.handlers import GameCall
from db.errors import GameEnded, VersionConflict
from db.models import CommitResult

log = logging.getLogger(__name__)


async def close_game(call: GameCall, version: int) -> CommitResult | None:
    """Mark the game ended in the store, right after the event that ended it (its result
    event, at ``version``): the store ends a game with an event of its own (``game.ended``,
    the state unchanged), the one write that turns its status to ended.

    Two writes, not one: the store's ``commit`` cannot end a game. Should the second never
    happen (the process stopped between them, another process wrote first), the game's
    state still holds its result and its result event is logged once; the next command on
    it, or ``/game end``, writes the end then (see docs/architecture.md, "The result").
    """
    request = call.request
    try:
        return await call.store.end_game(
            request.channel_id, expected_version=version, actor_id=request.user_id
        )
    except (VersionConflict, GameEnded):
        log.warning(
            "channel %s: the end after event %s is left to the next command",
            request.channel_id,
            version,
        )
        return None


__all__ = ["close_game"]
