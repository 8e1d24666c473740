"""Catalogue plurals: ``{n|one|many}`` agrees with the number, per language."""

from __future__ import annotations

from rules.core.i18n import placeholders, translate


def test_plural_forms_agree_with_the_number() -> None:
    assert translate("bot.game.exported", "en", events=1) == "Exported 1 event."
    assert translate("bot.game.exported", "en", events=3) == "Exported 3 events."
    assert translate("bot.game.exported", "it", events=1) == "Esportato 1 evento."
    assert translate("bot.deadline.set", "it", side="Asse", hours=1, when="x") == (
        "Lo schieramento Asse ha 1 ora per muovere: fino al x."
    )
    # French reads zero as singular.
    assert translate("bot.game.exported", "fr", events=0) == "0 événement exporté."
    assert translate("bot.game.exported", "fr", events=2) == "2 événements exportés."


def test_a_plural_form_counts_as_its_number_placeholder() -> None:
    assert placeholders("{n} {n|die|dice} for {label}") == {"n", "label"}


def test_a_non_number_takes_the_plural_and_never_fails() -> None:
    assert translate("bot.game.exported", "en", events="many") == "Exported many events."
