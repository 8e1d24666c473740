"""The games played lately, kept validated from one command to the next (write-through).

A command validates its game's document into a state once (`GameCall.game`, a `Loaded`
handle) and plays on it in place; after the command the handle holds the state it left,
whose document is the one committed. The next command on that channel would validate
that very document again. So a command that committed the document its handle played
keeps the handle here, keyed by the head its commit wrote (version and hash), and the next
command takes it back when the game it reads from the store stands on that head: no
validation, and the views the reply computed (whose move, the buttons) already made; the
store, given its document (`held`), does not parse the text it keeps of that head either.

Safe by its key: the head's hash vouches for the whole history up to it, the state
included, so a game whose head is the kept one has the kept document; any other write
(another process, an undo, a rewind, the game's end, a write that is not a play) moves the
head and the handle is never used again. A handle is taken out while a command uses it and
given back only by a command that committed what it played (`keep`) or only read
(`GameService`): a refusal, a failure, a conflict leave it out, so no command can find a
state another one half changed. At most `MAX_KEPT` games, the least recently kept first out.
Used on the event loop only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from db.models import GameRecord, HeldDocument
from rules.core.surface import Loaded

#: Games kept: each a validated state with its views, 40–150 KB for the bundled scenarios
#: (tracemalloc), and its document; a channel past the bound only validates again.
MAX_KEPT = 128


@dataclass(frozen=True, slots=True)
class _Kept:
    version: int
    head_hash: str
    game: Loaded


class KeptGames:
    """The validated games of the channels played lately, by channel (see the module)."""

    def __init__(self, limit: int = MAX_KEPT) -> None:
        self._kept: OrderedDict[int, _Kept] = OrderedDict()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._kept)

    def held(self, channel_id: int) -> HeldDocument | None:
        """The kept game's document and head, for the store's read of the channel: on that
        head it serves this document rather than parse its own (`GameStore.open_command`)."""
        kept = self._kept.get(channel_id)
        if kept is None:
            return None
        document = kept.game.document
        return HeldDocument(
            kept.version,
            kept.head_hash,
            document if isinstance(document, dict) else dict(document),
        )

    def take(self, record: GameRecord) -> Loaded | None:
        """The channel's kept game if it stands on ``record``'s head (the game as just
        read from the store), taken out either way: a command uses it alone."""
        kept = self._kept.pop(record.channel_id, None)
        if kept is None or (kept.version, kept.head_hash) != (record.version, record.head_hash):
            return None
        return kept.game

    def keep(self, channel_id: int, version: int, head_hash: str | None, game: Loaded) -> None:
        """Keep ``game``, whose document is the one stored at ``version`` with ``head_hash``."""
        self._kept.pop(channel_id, None)
        if head_hash is None:
            return
        self._kept[channel_id] = _Kept(version, head_hash, game)
        while len(self._kept) > self._limit:
            self._kept.popitem(last=False)

    def drop(self, channel_id: int) -> None:
        """Forget the channel's game."""
        self._kept.pop(channel_id, None)


__all__ = ["MAX_KEPT", "KeptGames"]
