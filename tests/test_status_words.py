"""Every word a status view shows is localized: played at random through each ruleset's
legal actions, every unit status has its ``<ruleset>.values.*`` entry in it, en and fr."""

from __future__ import annotations

import random

import pytest

from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.core.i18n import has_key
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, Seat
from rules.render import value_text
from tests.fuzz.harness import fill_options


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_every_status_word_is_translated(ruleset: str) -> None:
    play = get_ruleset(ruleset).rules
    assert play is not None
    untranslated: set[tuple[str, str]] = set()
    for seed in range(4):
        rng = random.Random(seed)  # the test's own generator
        document = play.setup(None)
        for _ in range(300):
            view = play.view(document, REFEREE).status
            for unit in view.units:
                for word in unit.statuses:
                    head = word.partition(":")[0]
                    for language in ("it", "en", "fr"):
                        if not has_key(f"{ruleset}.values.{head}", language):
                            untranslated.add((word, language))
            if view.ended:
                break
            actions = [a for a in play.view(document, REFEREE).every_legal if a.verb != "odds"]
            if not actions:
                break
            action = rng.choice([a for a in actions if a.owed] or actions)
            try:
                options = fill_options(action, rng)
                document = play.act(
                    document, Seat.of(action.side), action.verb, options, SystemDice()
                ).document
            except RulesError:
                pass
    assert not untranslated, sorted(untranslated)


def test_a_status_with_a_detail_keeps_it() -> None:
    assert value_text("w40k4", "weapon_destroyed:mitragliatrice", "en") == (
        "weapon destroyed: mitragliatrice"
    )
