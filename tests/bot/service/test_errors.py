"""The service's refusals: what the seat may do instead, or whom the game waits for."""

from __future__ import annotations

from bot.service.errors import not_now
from rules.core.errors import IllegalAction
from rules.core.ruleset import get_ruleset
from rules.core.seatview import Seat


def test_whom_a_game_waits_for_is_named_in_the_readers_language() -> None:
    """A linea_gotica game's start: both sides owe their initiative, and a member at no side
    may do nothing; the refusal names both sides in each language it is read in (they were
    joined into one Italian text)."""
    ruleset = get_ruleset("linea_gotica")
    document = ruleset.rules.setup("gotica_retroguardia")
    refusal = not_now(
        ruleset.rules, document, IllegalAction("error.service.game_ended"), Seat(joined=True)
    )
    assert "waiting for Allies, Germans" in refusal.localized("en")
    assert "Alleati, Tedeschi" in refusal.localized("it")
    assert "Alliés, Allemands" in refusal.localized("fr")
