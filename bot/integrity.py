"""The bot's answer to a tampered game: the store's reason, in the reader's language.

`db.errors.TamperedGame` carries an English ``detail`` (for logs and `arbitro db check`).
The reasons the checksum of members, deadlines and settings gives are fixed
(`db.integrity.ROWS_EDITED`, `db.integrity.ROWS_UNSEALED`): players read them translated;
any other reason (the chain's own checks) is shown as the store wrote it.
"""

from __future__ import annotations

from bot.service import ServiceError
from db.errors import TamperedGame
from db.integrity import HEAD_EDITED, HEAD_MISSING, ROWS_EDITED, ROWS_UNSEALED, STATE_EDITED
from rules.core.i18n import translate

_DETAIL_KEYS = {
    ROWS_EDITED: "bot.integrity.rows_edited",
    ROWS_UNSEALED: "bot.integrity.rows_unsealed",
    STATE_EDITED: "bot.integrity.state_edited",
    HEAD_EDITED: "bot.integrity.head_edited",
    HEAD_MISSING: "bot.integrity.head_missing",
}


class TamperedRefusal(ServiceError):
    """Refusal of a tampered game (``error.store.tampered_game``), its reason localized
    when the store's reason is one the catalogues know."""

    def localized(self, language: str) -> str:
        """The message in ``language``, with the reason translated too."""
        params = dict(self.params)
        key = _DETAIL_KEYS.get(str(params.get("detail", "")))
        if key is not None:
            params["detail"] = translate(key, language)
        return translate(self.key, language, **params)


def tampered_refusal(error: TamperedGame) -> TamperedRefusal:
    """The refusal the service raises for a command on a tampered game."""
    return TamperedRefusal(
        f"error.{error.key}", **{name: str(value) for name, value in error.params.items()}
    )
