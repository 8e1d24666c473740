"""Whom a reply's message pings, as the players chose: a mention taken off for a player who
chose a direct message only, nothing, or muted the game; one added for a player who chose a
mention of a kind the feature's own message does not ping for."""

from __future__ import annotations

from bot.service.replies import Reply


def unping(reply: Reply, user: int) -> None:
    """``reply`` (and what the channel is shown of it) no longer pings ``user``."""
    for shown in (reply, reply.public):
        if shown is not None and user in shown.ping:
            shown.ping = [u for u in shown.ping if u != user]


def ping(reply: Reply, user: int) -> None:
    """What the channel is shown of ``reply`` pings ``user`` too."""
    shown = reply.public or reply
    if user not in shown.ping:
        shown.ping = [*shown.ping, user]


__all__ = ["ping", "unping"]
