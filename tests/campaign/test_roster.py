"""The roster values: their checks, availability, history cap and hash."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rules.campaign.roster import (
    MAX_HISTORY,
    HistoryLine,
    Roster,
    RosterEntry,
    Status,
    rosters_hash,
)


def entry(**changes: object) -> RosterEntry:
    data: dict[str, object] = {"id": "squadra_1", "name": "1ª squadra", "strength": 8, "full": 10}
    data.update(changes)
    return RosterEntry.model_validate(data)


def test_an_entry_is_fielded_when_fit_or_recovered_by_then() -> None:
    assert entry().available(1)
    recovering = entry(status="recovering", until=3)
    assert not recovering.available(2)
    assert recovering.available(3)
    assert not entry(status="dead").available(5)
    assert not entry(strength=0).available(1)


@pytest.mark.parametrize(
    "changes",
    [
        {"strength": 11},
        {"status": "recovering"},
        {"until": 2},
        {"id": "two words"},
        {"full": 0},
        {"casualties": -1},
    ],
)
def test_an_inconsistent_entry_is_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        entry(**changes)


def test_history_keeps_the_latest_lines() -> None:
    current = entry()
    for game in range(MAX_HISTORY + 5):
        current = current.noted(HistoryLine(game=game, what="roster.fought"))
    assert len(current.history) == MAX_HISTORY
    assert current.history[-1].game == MAX_HISTORY + 4


def test_a_roster_lists_a_unit_once_and_replaces_by_id() -> None:
    with pytest.raises(ValidationError):
        Roster(side="alleati", entries=(entry(), entry()))
    roster = Roster(side="alleati", entries=(entry(),))
    wounded = roster.replaced(entry(strength=3))
    assert wounded.entry("squadra_1") == entry(strength=3)
    assert len(roster.replaced(entry(id="squadra_2")).entries) == 2


def test_the_hash_changes_with_any_entry_and_not_with_side_order() -> None:
    a = {"a": Roster(side="a", entries=(entry(),)), "b": Roster(side="b")}
    b = {"b": Roster(side="b"), "a": Roster(side="a", entries=(entry(),))}
    assert rosters_hash(a) == rosters_hash(b)
    changed = {**a, "a": Roster(side="a", entries=(entry(status=Status.DEAD),))}
    assert rosters_hash(changed) != rosters_hash(a)
