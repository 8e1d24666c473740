"""A channel's games over time: archiving the ended one, listing a guild's games.

A channel holds one game at a time. When its game has ended, ``/game new`` archives it (its
history moves to the store's archive, compact — events, snapshots and patches — in one
transaction) and starts the new one;
``/game list`` shows the guild's games, in play and archived; ``/game export archive:N``
exports an archived one as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from db.errors import GameNotFound, StoreError
from db.models import ArchivedGame, GameRecord, GameSummary
from db.protocol import GameStore
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.play import GamePlay
from rules.core.ruleset import get_ruleset

log = logging.getLogger(__name__)

#: A listing shows at most this many games of each kind (Discord's message limits).
MAX_LISTED = 20


async def archive_if_ended(store: GameStore, channel_id: int) -> ArchivedGame | None:
    """Archive the channel's game if it has ended; None when there was no game.

    A game still in play is left alone (creating a new one will be refused for it).
    """
    try:
        record = await store.load(channel_id)
    except GameNotFound:
        return None
    if record.status != "ended":
        return None
    # The store reads the history page by page and keeps it compact (db.archive).
    return await store.archive_game(channel_id, title=_title(record))


def _title(record: GameRecord) -> str:
    return str(record.document.get("title", ""))[:200]


def channel_label(channel_id: int, in_guild: bool) -> str:
    """A channel as Discord shows a mention, or as the console names it."""
    return f"<#{channel_id}>" if in_guild else f"#{channel_id}"


async def list_lines(
    store: GameStore, guild_id: int | None, language: str, in_guild: bool
) -> list[str]:
    """The guild's games in play (channel, ruleset, title, turn, whose move) and archived."""
    lines: list[str] = []
    playing = [g for g in await store.list_games(guild_id) if g.status != "ended"]
    ended = [g for g in await store.list_games(guild_id) if g.status == "ended"]
    for game in playing[:MAX_LISTED]:
        lines.append(await _playing_line(store, game, language, in_guild))
    for game in ended[:MAX_LISTED]:
        lines.append(
            translate(
                "bot.games.ended_here",
                language,
                channel=channel_label(game.channel_id, in_guild),
                ruleset=game.ruleset,
            )
        )
    archived: Sequence[ArchivedGame] = await store.archived_games(guild_id)
    for entry in archived[:MAX_LISTED]:
        lines.append(
            translate(
                "bot.games.archived",
                language,
                id=entry.id,
                channel=channel_label(entry.channel_id, in_guild),
                ruleset=entry.ruleset,
                title=entry.title or "—",
                ended=entry.ended_at.strftime("%Y-%m-%d"),
                events=entry.version,
            )
        )
    if not lines:
        lines.append(translate("bot.games.none", language))
    return lines


async def _playing_line(
    store: GameStore, game: GameSummary, language: str, in_guild: bool
) -> str:
    channel = channel_label(game.channel_id, in_guild)
    try:
        record = await store.load(game.channel_id)
        play: GamePlay | None = get_ruleset(record.ruleset).play
        if play is None:
            raise GameNotFound(game.channel_id)
        document = play.load_document(record.document)
        view = play.status(document)
        side = view.sides.get(view.awaiting or "", view.awaiting or "—")
        return translate(
            "bot.games.playing",
            language,
            channel=channel,
            ruleset=game.ruleset,
            title=view.title or "—",
            turn=view.turn,
            side=side,
        )
    except (RulesError, StoreError):  # a listing names what it cannot read, and goes on
        log.warning("game list: channel %s cannot be read", game.channel_id, exc_info=True)
        return translate("bot.games.unreadable", language, channel=channel, ruleset=game.ruleset)


def archived_title(bundle: dict[str, Any]) -> str:
    """The title of an archived game, read from its last state (when kept)."""
    states = bundle.get("states") or []
    if states and isinstance(states[-1], dict):
        document = states[-1].get("document") or {}
        if isinstance(document, dict):
            return str(document.get("title", ""))
    return ""
