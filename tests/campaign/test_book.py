"""Bundled campaigns (rules/campaign/book.py) and what their books make of a log
(rules/campaign/story.py): every ruleset ships a valid book of three or more linked
scenarios whose core units keep their ids; bad book files are refused line by line; the
map's holders, the next scenario and the calendar are folds/recounts of the log."""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path

import pytest

from rules.campaign.book import book_files, load_book, parse_book
from rules.campaign.events import (
    CampaignBook,
    CampaignCreated,
    CampaignDue,
    CampaignGame,
    CampaignOverdue,
    CampaignResult,
    CampaignReversal,
    event_json,
    event_of,
)
from rules.campaign.state import CampaignState, apply, replay
from rules.campaign.story import default_due, holders, next_step, overdue
from rules.campaign.text import scenario_named
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.yamlio import load_yaml
from tests.rulesets import facts

#: Units a side fields in every game of its ruleset's book (a roster entry musters as the
#: scenario unit with the same id, so these carry their losses from game to game).
CORE_UNITS = facts("BOOK_CORE_UNITS")


def _unit_ids(ruleset: str, scenario: str) -> dict[str, set[str]]:
    """Each side's unit ids as the scenario file declares them (hidden ones too)."""
    path = Path(str(resources.files(f"rules.{ruleset}") / "scenarios" / f"{scenario}.yaml"))
    data = load_yaml(path.read_text("utf-8"))

    def ids(node: object) -> set[str]:
        if isinstance(node, dict):
            found = {u["id"] for u in node.get("units") or () if isinstance(u, dict)}
            return found.union(*(ids(v) for v in node.values()))
        if isinstance(node, list):
            return set().union(*(ids(v) for v in node))
        return set()

    return {side["id"]: ids(side) for side in data["sides"]}


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_every_ruleset_ships_a_book_of_three_linked_scenarios(ruleset: str) -> None:
    books = book_files(ruleset)
    assert books, f"{ruleset} ships no campaign book"
    play = get_ruleset(ruleset).rules
    for book_id in books:
        book = load_book(ruleset, book_id)
        assert len(book.scenarios) >= 3 and set(book.title) == {"it", "en", "fr"}
        sides = None
        for step in book.scenarios:
            assert step.scenario in play.scenarios()
            document = play.setup(step.scenario)
            assert sides is None or set(play.sides(document)) == sides
            sides = set(play.sides(document))
            fielded = _unit_ids(ruleset, step.scenario)
            for side, core in CORE_UNITS[ruleset].items():
                assert core <= fielded[side], (step.scenario, side, core - fielded[side])
        assert {area.holder for area in book.areas} <= (sides or set())


BOOK = """\
id: prova
ruleset: w40k4
title: {it: Prova, en: Trial}
areas:
  - id: colle
    name: {it: Il colle}
    holder: legione
scenarios:
  - scenario: avamposto
    area: colle
  - scenario: relitto
  - scenario: fuga
"""


@pytest.mark.parametrize(
    ("text", "line", "detail"),
    [
        (BOOK.replace("  - scenario: fuga\n", ""), 9, "at least 3"),
        (BOOK.replace("area: colle", "area: mare"), None, "unknown area 'mare'"),
        (BOOK.replace("{it: Prova, en: Trial}", "{de: Probe}"), 3, "unknown language 'de'"),
        (BOOK.replace("holder: legione", "holder: legione\n    colour: red"), 8, "colour"),
        (BOOK + "spacing_days: 999\n", 13, "spacing_days"),
    ],
)
def test_a_bad_book_is_refused_with_its_line(text: str, line: int | None, detail: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_book(text, "prova")
    params = dict(refused.value.params)
    assert detail in str(params.get("detail")), params
    if line is not None:
        assert params.get("line") == line, params


def test_an_unknown_book_is_named_with_those_there_are() -> None:
    with pytest.raises(UnknownName) as refused:
        load_book("w40k4", "nessuno")
    assert "crociata_valle" in str(dict(refused.value.params)["known"])


def _opened() -> CampaignState:
    book = parse_book(BOOK, "prova")
    state = replay(
        [
            CampaignCreated(
                ruleset="w40k4", name="C", sides={"legione": "L", "predoni": "P"}, referee=1
            ),
            CampaignBook.of(book),
        ]
    )
    return state


def _result(number: int, winner: str | None, final: str = "h") -> CampaignResult:
    return CampaignResult(number=number, winner=winner, scores={}, ending="x", final_hash=final)


def test_the_map_changes_hands_with_the_results_and_back_with_a_reversal() -> None:
    state = _opened()
    assert holders(state) == {"colle": "legione"}
    assert next_step(state) is not None and next_step(state).scenario == "avamposto"  # type: ignore[union-attr]
    state = apply(state, CampaignGame(number=1, channel=10, scenario="avamposto"))
    assert next_step(state).scenario == "relitto"  # type: ignore[union-attr]
    won = apply(state, _result(1, "predoni"))
    assert holders(won) == {"colle": "predoni"}
    back = apply(won, CampaignReversal(number=1, final_hash="h"))
    assert holders(back) == {"colle": "legione"}
    drawn = apply(state, _result(1, None))
    assert holders(drawn) == {"colle": "legione"}  # a draw changes nothing


def test_a_book_comes_first_and_only_once() -> None:
    state = _opened()
    again = CampaignBook.of(parse_book(BOOK, "prova"))
    with pytest.raises(RulesError) as refused:
        apply(state, again)
    assert refused.value.key == "error.campaign.book_late"
    bad = again.model_copy(update={"areas": [again.areas[0].model_copy(update={"holder": "x"})]})
    fresh = replay(
        [CampaignCreated(ruleset="w40k4", name="C", sides={"a": "A", "b": "B"}, referee=1)]
    )
    with pytest.raises(RulesError) as refused:
        apply(fresh, bad)
    assert refused.value.key == "error.campaign.unknown_side"


def test_the_calendar_is_a_fold_of_dates_and_decisions() -> None:
    state = apply(_opened(), CampaignGame(number=1, channel=10, scenario="avamposto"))
    by = dt.date(2026, 12, 1)
    with pytest.raises(RulesError):  # no game 2
        apply(state, CampaignDue(number=2, by=by))
    with pytest.raises(RulesError) as refused:  # no date yet
        apply(state, CampaignOverdue(number=1, decision="draw"))
    assert refused.value.key == "error.campaign.no_date"
    due = apply(state, CampaignDue(number=1, by=by))
    assert overdue(due, by) == [] and overdue(due, by + dt.timedelta(days=1)) == [1]
    with pytest.raises(RulesError) as refused:  # an extension goes later
        apply(due, CampaignOverdue(number=1, decision="extend", until=by))
    assert refused.value.key == "error.campaign.bad_extension"
    later = apply(due, CampaignOverdue(number=1, decision="extend", until=by.replace(day=8)))
    assert later.calendar.due == {1: by.replace(day=8)}
    forfeit = apply(later, CampaignOverdue(number=1, decision="forfeit", side="legione"))
    assert forfeit.calendar.due == {} and forfeit.calendar.decisions[1].side == "legione"
    # The whole log replays to the same state, through its JSON.
    log = [
        CampaignCreated(
            ruleset="w40k4", name="C", sides={"legione": "L", "predoni": "P"}, referee=1
        ),
        CampaignBook.of(parse_book(BOOK, "prova")),
        CampaignGame(number=1, channel=10, scenario="avamposto"),
        CampaignDue(number=1, by=by),
        CampaignOverdue(number=1, decision="extend", until=by.replace(day=8)),
        CampaignOverdue(number=1, decision="forfeit", side="legione"),
    ]
    assert replay(event_of(event_json(e)) for e in log) == forfeit


def test_a_games_default_date_follows_the_date_of_the_game_before() -> None:
    state = apply(_opened(), CampaignGame(number=1, channel=10, scenario="avamposto"))
    today = dt.date(2026, 11, 26)
    spacing = dt.timedelta(days=state.book.spacing_days)  # type: ignore[union-attr]
    assert spacing.days > 0 and default_due(state, today) == today + spacing
    first = dt.date(2026, 12, 20)  # game 1 set well ahead with by:
    state = apply(state, CampaignDue(number=1, by=first))
    assert default_due(state, today) == first + spacing  # game 2 never due before game 1


def test_the_next_scenario_is_named_by_its_title_and_the_option_to_type() -> None:
    assert scenario_named("w40k4", "fuga", "fr") == (
        "La fuite vers la vallée (exemple), scenario:fuga"
    )
    assert scenario_named("w40k4", "fuga", "en").endswith(", scenario:fuga")
    # A ruleset from outside rules/ (no bundled titles), or an unknown id: the id alone.
    assert scenario_named("toy", "duel", "en") == "duel"
    assert scenario_named("w40k4", "nowhere", "en") == "nowhere"
