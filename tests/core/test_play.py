"""A loaded game (``rules.load(document)``): its document validated once for its views and
the command played on it, in place — no deep copy — and nothing of it kept elsewhere."""

from __future__ import annotations

import random
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from rules.core.errors import RulesError
from rules.core.play import DocumentRules, StaleView
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from tests.fuzz.harness import SeededDice, fill_options


def _rules(ruleset: str) -> DocumentRules:
    rules = get_ruleset(ruleset).rules
    assert isinstance(rules, DocumentRules)
    return rules


@dataclass(frozen=True)
class Command:
    """A command the rules accept on ``document`` with dice seeded by ``seed``."""

    document: Mapping[str, Any]
    seat: Seat
    verb: str
    options: Mapping[str, Any]
    seed: float

    def dice(self) -> SeededDice:
        return SeededDice(random.Random(self.seed))


def _accepted(rules: DocumentRules, steps: int, seed: int) -> Command:
    """A command accepted after ``steps`` random legal ones from the first scenario."""
    rng = random.Random(seed)
    document: Mapping[str, Any] = rules.setup()
    for _ in range(500):
        actions = [a for a in rules.view(document, REFEREE).every_legal if a.verb != "odds"]
        action = rng.choice(actions)
        command = Command(
            document, Seat.of(action.side), action.verb, fill_options(action, rng), rng.random()
        )
        try:
            played = rules.act(
                document, command.seat, command.verb, command.options, command.dice()
            )
        except RulesError:
            continue
        if steps == 0:
            return command
        steps -= 1
        document = played.document
    raise AssertionError(f"{rules.ruleset}: no command accepted")


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_a_command_and_the_views_around_it_read_the_document_once(ruleset, counted) -> None:
    rules = _rules(ruleset)
    command = _accepted(rules, steps=4, seed=3)
    counted.update(validated=0, deep_copied=0)
    game = rules.load(command.document)
    waiting = game.view(REFEREE).awaiting  # whose move it was
    hidden = game.view(command.seat).hidden_names  # what the seat may not name
    played = game.act(command.seat, command.verb, command.options, command.dice())
    assert game.document is played.document  # the handle is now of the state it left
    after = game.view(REFEREE)
    shown = (after.follow_ups, after.awaiting, after.result, game.view(SPECTATOR).status)
    assert counted == {"validated": 1, "deep_copied": 0}, (waiting, hidden, shown)


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_the_handle_shows_the_state_its_command_left(ruleset) -> None:
    rules = _rules(ruleset)
    command = _accepted(rules, steps=2, seed=7)
    game = rules.load(command.document)
    played = game.act(command.seat, command.verb, command.options, command.dice())
    assert game.document is played.document
    assert game.view(REFEREE).status == rules.view(played.document, REFEREE).status
    assert game.view(REFEREE).every_legal == rules.view(played.document, REFEREE).every_legal
    assert rules.canonical(played.document) == played.document


def test_a_refused_command_leaves_the_handle_on_its_document(counted) -> None:
    rules = _rules("manovra")
    document = rules.setup("esempio_normandia")
    game = rules.load(document)
    status = game.view(REFEREE).status
    with pytest.raises(RulesError):
        game.act(REFEREE, "move", {"unit": "nobody"}, SeededDice(random.Random(1)))
    assert game.document is document
    # What the refused command may have half-changed is thrown away: the document is read
    # again (once), and shows what it showed.
    counted.update(validated=0)
    assert game.view(REFEREE).status == status
    assert counted["validated"] == 1


def test_a_view_read_after_a_command_on_its_state_is_refused() -> None:
    rules = _rules("manovra")
    command = _accepted(rules, steps=1, seed=5)
    game = rules.load(command.document)
    before = game.view(REFEREE)
    waiting = before.awaiting  # read before the command: kept
    game.act(command.seat, command.verb, command.options, command.dice())
    assert before.awaiting == waiting
    with pytest.raises(StaleView):
        before.status  # noqa: B018  # never read before: the state it would read has changed


def test_a_name_the_referee_types_is_read_without_the_hidden_units(monkeypatch) -> None:
    """A unit typed by its name is read as its id among the units the seat may know of: the
    referee may know of every one, and no status is read to find which are hidden from it;
    a side's seat reads them (the referee's status and its own)."""
    rules = _rules("manovra")
    state = rules._load_state(rules.setup())
    unit = next(iter(state.units.values()))
    options = {"unit": str(unit.name), "target": "nowhere"}
    read: list[Seat] = []
    seat_status = type(rules).seat_status

    def counted(self: DocumentRules, state: Any, seat: Seat) -> Any:
        read.append(seat)
        return seat_status(self, state, seat)

    monkeypatch.setattr(type(rules), "seat_status", counted)
    assert rules.by_id(state, REFEREE, "fire", options) == {**options, "unit": unit.id}
    assert read == []
    side = Seat.of(unit.side)
    assert rules.by_id(state, side, "fire", options) == {**options, "unit": unit.id}
    assert read == [REFEREE, side]


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_the_marks_of_a_command_read_its_names_only_where_the_ruleset_draws_some(
    ruleset, monkeypatch
) -> None:
    """A command's marks read its typed names as ids (a name that is no unit's costs two
    statuses) only for a ruleset that draws marks; the others draw none and read nothing."""
    rules = _rules(ruleset)
    read: list[str] = []
    by_id = DocumentRules.by_id

    def counted(self: DocumentRules, *args: Any) -> Mapping[str, Any]:
        read.append(args[2])  # state, seat, verb, options
        return by_id(self, *args)

    monkeypatch.setattr(DocumentRules, "by_id", counted)
    marks = rules.view(rules.setup(), REFEREE).marks("fire", {"unit": "nobody", "target": "x"})
    draws = type(rules).action_overlays is not DocumentRules.action_overlays
    assert read == (["fire"] if draws else []) and (draws or marks == ())


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_a_handle_its_views_and_its_states_go_with_their_last_reference(
    ruleset, monkeypatch, no_cycle_collector
) -> None:
    # A handle in a reference cycle would leave its whole state (thousands of objects on a
    # large map) to the cycle collector, whose full passes hold the interpreter for tens of
    # milliseconds: every other channel's command waits for them.
    rules = _rules(ruleset)
    command = _accepted(rules, steps=2, seed=11)
    states: list[weakref.ref[Any]] = []
    validate = DocumentRules._load_state

    def kept_validate(self: DocumentRules, document: Mapping[str, Any]) -> Any:
        state = validate(self, document)
        states.append(weakref.ref(state))
        return state

    monkeypatch.setattr(DocumentRules, "_load_state", kept_validate)
    game = rules.load(command.document)
    before = game.view(REFEREE)
    shown = (before.status, before.every_legal, game.view(command.seat).hidden_names)
    game.act(command.seat, command.verb, command.options, command.dice())
    after = game.view(REFEREE)
    shown += (after.status, after.follow_ups)
    refused = rules.load(command.document)
    with pytest.raises(RulesError):
        refused.act(REFEREE, "move", {"unit": "nobody"}, command.dice())
    handles = [weakref.ref(held) for held in (game, before, after, refused)]
    del game, before, after, refused
    assert states and shown
    assert [ref() for ref in handles + states] == [None] * (len(handles) + len(states))
