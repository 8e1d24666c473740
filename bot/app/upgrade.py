"""The start-up check: every game in progress must be readable by this version.

Before the console serves anyone, each game that has not ended is loaded (its history
verified against its hash chain, once: db/chain/verify.py), its document migrated to the current
format (in memory) and validated by its state model. If one cannot be read by this version
(a newer format, a document the model rejects, a ruleset that no longer exists), the
program refuses to start with one line naming every such game and why — rather than
failing later, game by game, in front of the players. A game that was tampered with or
whose rows are damaged is set apart instead: logged, refused to whoever uses its channel,
named by ``arbitro db check``; the other games play on. A database file SQLite cannot read
stops the start (`DamagedFile`). The check writes nothing: documents reach the current
format only through their games' next normal commits, so a database is never half
migrated.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from db.errors import CorruptRecord, DamagedFile, StoreError
from db.protocol import GameStore
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UnreadableGame:
    """A game in progress this version cannot play, and why."""

    channel_id: int
    ruleset: str
    reason: str

    def describe(self) -> str:
        """``channel 42 (manovra): why``."""
        return f"channel {self.channel_id} ({self.ruleset}): {self.reason}"


class UnreadableGames(StoreError):
    """The database holds games in progress that this version cannot read."""

    key = "store.unreadable_games"
    template = (
        "{path}: {count} game(s) in progress cannot be read by this version of Arbitro, "
        "nothing was changed — {games}. Run the version that saved them, or restore a "
        "backup (docs/storage.md, 'Upgrading')"
    )

    def __init__(self, path: str, games: list[UnreadableGame]) -> None:
        super().__init__(
            path=path, count=len(games), games="; ".join(game.describe() for game in games)
        )
        self.games = games


async def unreadable_games(store: GameStore) -> list[UnreadableGame]:
    """Every game not ended whose document does not migrate and validate, by channel."""
    found: list[UnreadableGame] = []
    for summary in await store.all_games():
        if summary.status == "ended" or summary.is_campaign:
            continue  # a campaign's state is no ruleset's document (bot/service/campaign/)
        try:
            record = await store.load(summary.channel_id)
            rules = get_ruleset(record.ruleset).rules
            # Migrated, then read by the ruleset (its result): a state it cannot read is
            # refused (error.corrupt_state).
            rules.view(rules.document_format.upgrade(record.document), REFEREE).result  # noqa: B018
        except RulesError as error:
            found.append(UnreadableGame(summary.channel_id, summary.ruleset, error.localized("en")))
        except DamagedFile:
            raise  # the file itself: nothing in it can be served (one line, exit status 2)
        except CorruptRecord as error:
            # Tampered (TamperedGame, ChainBroken) or damaged (its version or its state
            # unreadable): not a reason to stop serving every other game. The bot refuses
            # this one, with a message, to whoever uses it, and `arbitro db check` names it.
            log.error("game set apart until restored: %s", error)
        except StoreError as error:
            found.append(UnreadableGame(summary.channel_id, summary.ruleset, str(error)))
    return found


async def ensure_readable(store: GameStore, path: str) -> None:
    """Raise :class:`UnreadableGames` unless every game in progress can be played."""
    found = await unreadable_games(store)
    if found:
        raise UnreadableGames(path, found)


__all__ = ["UnreadableGame", "UnreadableGames", "ensure_readable", "unreadable_games"]
