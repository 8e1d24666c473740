"""Notices: players told where they are (docs/notices.md).

A feature that only reacts, plus its ``/notify`` commands: a follower queues a notice when
what a player's side owes changes (:mod:`.follow`), a timer delivers the due ones, each
claimed once across bot processes (:mod:`.deliver`), the players' choices decide where
each goes (:mod:`.policy`, pure), and its records live on the store's generic feature
records (:mod:`.records`). It imports no other feature.
"""

from __future__ import annotations

from bot.service.handlers import Follower, Timer
from bot.service.notices.commands import HANDLERS
from bot.service.notices.deliver import due_notices
from bot.service.notices.follow import follow
from bot.service.stored.table import TableContext


def _has_players(context: TableContext) -> bool:
    """A game with players may owe one a notice (a referee alone is told nothing)."""
    return any(member.role == "player" for member in context.members)


REACTIONS = (
    Follower(name="notices.follow", of=_has_players, run=follow),
    Timer(name="notices.deliver", run=due_notices),
)

__all__ = ["HANDLERS", "REACTIONS"]
