"""The bot's answer to a tampered or damaged game: the store's reason, in the reader's language.

The store's integrity errors carry an English ``detail`` (for logs and `arbitro db check`):

* `db.errors.TamperedGame` — the current state, the latest event or the rows beside the
  chain (members, deadlines, settings) were edited; its reasons are fixed
  (`db.chain.integrity`);
* `db.errors.ChainBroken` — a version of the history fails the chain (`db.chain.verify`): an
  edited snapshot, patch or event, named by its event number; its reasons are fixed too;
* any other `db.errors.CorruptRecord` — a row of the game cannot be read at all (its
  version or its state damaged): the game is set apart, the detail shown as the store
  wrote it;
* `db.errors.DamagedFile` — the database file itself.

Players read the first two as ``error.store.tampered_game`` with the reason translated
(an unknown reason is shown as the store wrote it), the third as
``error.store.damaged_game``, the last as ``error.store.damaged_file``.
"""

from __future__ import annotations

from db.chain import verify as chain
from db.chain.integrity import HEAD_EDITED, HEAD_MISSING, ROWS_EDITED, ROWS_UNSEALED, STATE_EDITED
from db.errors import ChainBroken, CorruptRecord, DamagedFile, StoreError, TamperedGame
from rules.core.errors import RulesError
from rules.core.i18n import translate

_DETAIL_KEYS = {
    ROWS_EDITED: "bot.integrity.rows_edited",
    ROWS_UNSEALED: "bot.integrity.rows_unsealed",
    STATE_EDITED: "bot.integrity.state_edited",
    HEAD_EDITED: "bot.integrity.head_edited",
    HEAD_MISSING: "bot.integrity.head_missing",
}

#: The chain's fixed reasons (db.chain.verify, and the same texts from an export's own checks).
REASON_KEYS = {
    chain.EVENT_MISSING: "bot.integrity.reason.event_missing",
    chain.EVENT_MISNUMBERED: "bot.integrity.reason.event_misnumbered",
    chain.EVENT_UNLINKED: "bot.integrity.reason.event_unlinked",
    chain.EVENT_EDITED: "bot.integrity.reason.event_edited",
    chain.EVENT_UNREADABLE: "bot.integrity.reason.event_unreadable",
    chain.STATE_EDITED: "bot.integrity.reason.state_edited",
    chain.STATE_UNREADABLE: "bot.integrity.reason.state_unreadable",
    chain.FULL_MISSING: "bot.integrity.reason.full_missing",
    chain.PATCH_MISSING: "bot.integrity.reason.patch_missing",
    chain.ROWS_BEYOND: "bot.integrity.reason.rows_beyond",
    chain.NOT_AS_VERIFIED: "bot.integrity.reason.not_as_verified",
    chain.LOG_SHORTENED: "bot.integrity.reason.log_shortened",
}
#: An export's own check of a patch that does not fit says which one in its detail.
_UNREADABLE_STATE = "a stored state cannot be read"


def _reason(reason: str, language: str) -> str:
    key = REASON_KEYS.get(reason)
    if key is None and reason.startswith(_UNREADABLE_STATE):
        key = REASON_KEYS[chain.STATE_UNREADABLE]
    return reason if key is None else translate(key, language)


class TamperedRefusal(RulesError):
    """Refusal of a tampered game (``error.store.tampered_game``), its reason localized
    when the store's reason is one the catalogues know; a broken chain names its event."""

    def localized(self, language: str) -> str:
        """The message in ``language``, with the reason translated too."""
        params = dict(self.params)
        detail = str(params.get("detail", ""))
        if "seq" in params:
            params["detail"] = translate(
                "bot.integrity.chain_broken",
                language,
                seq=params["seq"],
                reason=_reason(detail, language),
            )
        elif detail in _DETAIL_KEYS:
            params["detail"] = translate(_DETAIL_KEYS[detail], language)
        return translate(self.key, language, **params)


def tampered_refusal(error: TamperedGame | ChainBroken) -> TamperedRefusal:
    """The refusal the service raises for a command on a tampered game."""
    params = {name: str(value) for name, value in error.params.items() if value is not None}
    if isinstance(error, ChainBroken):
        params["seq"] = str(error.seq)
    return TamperedRefusal("error.store.tampered_game", **params)


def refusal_of(error: StoreError) -> RulesError | None:
    """The player-facing refusal of an integrity error (None: not one)."""
    if isinstance(error, TamperedGame | ChainBroken):
        return tampered_refusal(error)
    if isinstance(error, DamagedFile):
        return RulesError("error.store.damaged_file")
    if isinstance(error, CorruptRecord):
        return RulesError("error.store.damaged_game", detail=error.detail)
    return None


__all__ = ["REASON_KEYS", "TamperedRefusal", "refusal_of", "tampered_refusal"]
