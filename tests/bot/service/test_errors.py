"""The service's refusals: what the seat may do instead, or whom the game waits for."""

from __future__ import annotations

from bot.service.errors import commands_hint, not_now
from rules.core.errors import IllegalAction
from rules.core.legal import LegalAction
from rules.core.ruleset import get_ruleset
from rules.core.seatview import Seat
from rules.core.words import Words


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


def test_what_a_seat_may_do_names_its_units_in_the_readers_language() -> None:
    """'You may now: /move (squadra_tattica, devastatori, …)' showed players units' ids."""
    for key, side, language, shown, ids in (
        ("w40k4", "legione", "en", "/move (Tactical Squad, Devastators, ", "squadra_tattica"),
        ("w40k4", "legione", "fr", "/move (Escouade tactique, Dévastateurs, ", "devastatori"),
        ("pzgren", "us", "fr", "/move (1re section de fusiliers, ", "us_rifle_1"),
    ):
        rules = get_ruleset(key).rules
        refusal = not_now(
            rules, rules.setup(), IllegalAction("error.service.game_ended"), Seat(side)
        )
        text = refusal.localized(language)
        assert shown in text and ids not in text, text


def test_a_name_two_units_share_is_followed_by_each_ones_id() -> None:
    actions = [
        LegalAction("move", "us", {"unit": "truck_1"}),
        LegalAction("move", "us", {"unit": "truck_2"}),
        LegalAction("move", "us", {"unit": "jeep"}),
    ]
    names = {"truck_1": Words("Camion", {"en": "Truck"}), "truck_2": "Truck", "jeep": "Jeep"}
    assert commands_hint(actions, language="en", names=names) == (
        "/move (Truck [truck_1], Truck [truck_2], Jeep)"
    )
    assert commands_hint(actions, language="it", names=names) == ("/move (Camion, Truck, Jeep)")


def test_a_refusal_that_names_whom_the_game_waits_for_does_not_say_it_twice() -> None:
    ruleset = get_ruleset("linea_gotica")
    document = ruleset.rules.setup("gotica_retroguardia")
    sides = ruleset.rules.sides(document)
    cause = IllegalAction(
        "error.linea_gotica.step_done", side=sides["alleati"], waiting=sides["tedeschi"]
    )
    refusal = not_now(ruleset.rules, document, cause, Seat(joined=True))
    # Both sides owe their initiative: the hint would name both, the reason one; here the
    # seat may do nothing and the game waits for both, so the hint is kept.
    assert "Nothing is yours" in refusal.localized("en")
    waits = type(refusal)(cause, [], sides["tedeschi"])  # the game waits for the Germans alone
    assert waits.localized("en") == ("This step is already ended for Allies: waiting for Germans.")
