"""Notices: players told where they are (docs/notices.md).

A feature that only reacts, plus its ``/notify`` commands: a follower queues a notice when
what a player's side owes changes (:mod:`.follow`), a listener when another feature's reply
declares something notable for a player (:mod:`.listen`), a timer delivers the due ones, each
claimed once across bot processes (:mod:`.deliver`), the players' choices decide where
each goes (:mod:`.policy`, pure), and its records live on the store's generic feature
records (:mod:`.records`). It imports no other feature.
"""

from __future__ import annotations

from bot.service.handlers import Follower, Listener, Timer
from bot.service.notices import watchers
from bot.service.notices.commands import HANDLERS
from bot.service.notices.deliver import due_notices
from bot.service.notices.follow import follow
from bot.service.notices.listen import hear
from bot.service.stored.table import TableContext


def _has_watchers(context: TableContext) -> bool:
    """A game one of whose players chose how to be told (`watchers`): the others are told
    by the game's own mention, which needs no follower (a referee alone is told nothing)."""
    players = frozenset(m.user_id for m in context.members if m.role == "player")
    return bool(players) and watchers.WATCHERS.follows(players)


REACTIONS = (
    Follower(name="notices.follow", of=_has_watchers, run=follow),
    Timer(name="notices.deliver", run=due_notices),
    Listener(name="notices.hear", run=hear),
)

__all__ = ["HANDLERS", "REACTIONS"]
