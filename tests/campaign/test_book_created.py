"""A campaign's book travels in its created event, and logs that opened it by a later
``campaign.book`` event (before the book joined the created event) still replay to the
same campaign."""

from __future__ import annotations

import pytest

from rules.campaign.book import load_book
from rules.campaign.events import (
    CampaignBook,
    CampaignCreated,
    CampaignJoined,
    event_json,
    event_of,
)
from rules.campaign.state import apply, replay, start
from rules.core.errors import RulesError

SIDES = {"legione": "Legione Astrale", "predoni": "Predoni"}


def _book() -> CampaignBook:
    return CampaignBook.of(load_book("w40k4", "crociata_valle"))


def test_the_book_in_the_created_event_is_the_book_opened_after_it() -> None:
    created = CampaignCreated(ruleset="w40k4", name="Valle", sides=SIDES, referee=1)
    old = replay([created, _book(), CampaignJoined(side="legione", user=2)])
    new_created = created.model_copy(update={"book": _book()})
    new = replay([new_created, CampaignJoined(side="legione", user=2)])
    assert new == old and new.book == _book()
    # The event survives its JSON, and an old created event (no "book") still reads.
    assert event_of(event_json(new_created)) == new_created
    old_json = event_json(created)
    assert "book" not in old_json or old_json["book"] is None
    assert event_of({k: v for k, v in old_json.items() if k != "book"}) == created


def test_a_second_book_is_refused_after_one_in_the_created_event() -> None:
    state = start(
        CampaignCreated(ruleset="w40k4", name="Valle", sides=SIDES, referee=1, book=_book())
    )
    with pytest.raises(RulesError) as refused:
        apply(state, _book())
    assert refused.value.key == "error.campaign.book_late"


def test_a_book_whose_map_names_an_unknown_side_is_refused_at_creation() -> None:
    with pytest.raises(RulesError):
        start(
            CampaignCreated(
                ruleset="w40k4", name="Valle", sides={"a": "A", "b": "B"}, referee=1, book=_book()
            )
        )
