"""A channel's ended game moved to the store's archive, so that a new game (``/game new``)
or a campaign's (``/campaign new``, ``/campaign game``) may take the channel."""

from __future__ import annotations

from db.errors import GameNotFound
from db.models import ArchivedGame, GameRecord
from db.protocol import GameStore
from rules.core.words import in_language, stored_title


async def archive_if_ended(store: GameStore, channel_id: int) -> ArchivedGame | None:
    """Archive the channel's game if it has ended; None when there was no game.

    A game still in play is left alone (creating a new one will be refused for it).
    """
    try:
        record = await store.load(channel_id)
    except GameNotFound:
        return None
    if record.status != "ended" or record.is_campaign:
        # A campaign's log stays in its channel, ended or not (/campaign status lists it).
        return None
    # The store reads the history page by page and keeps it compact (db.chain.archive).
    return await store.archive_game(channel_id, title=_title(record))


def _title(record: GameRecord) -> str:
    # The store keeps one line of text: the title in the game's language.
    return in_language(stored_title(record.document), record.language)[:200]


__all__ = ["archive_if_ended"]
