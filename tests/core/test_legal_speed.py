"""The faster listings list exactly what the straightforward ones did.

The follow-up buttons ask only for the owed actions (manovra ``owed_actions``, linea_gotica
``legal_of_verbs``), and the hot parts of ``legal_actions`` were restructured (pzgren's
move destinations, linea_gotica's fire checks) so the rules pass of one command stays
within a few ms. On states reached by seeded random legal play of every bundled scenario,
each must give the same list as the straightforward reference kept here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, Seat
from rules.core.surface import Rules
from tests.fuzz.harness import SeededDice
from tests.fuzz.harness import fill_options as fill

COMMANDS = 250


def _play(ruleset: str) -> Rules:
    play: Rules | None = get_ruleset(ruleset).rules
    assert play is not None
    return play


def _next(
    play: Rules,
    document: Any,
    actions: list[LegalAction],
    rng: random.Random,
    dice: SeededDice,
    *,
    owed_first: float,
) -> Any:
    """The document after one random legal action (an owed one with ``owed_first``
    probability when any is owed); the same document if the rules refuse it."""
    owed = [a for a in actions if a.owed]
    action = rng.choice(owed if owed and rng.random() < owed_first else actions)
    try:
        return play.act(
            document, Seat.of(action.side), action.verb, fill(action, rng), dice
        ).document
    except RulesError:
        return document


def random_states(ruleset: str, seed: int, commands: int = COMMANDS) -> Iterator[Any]:
    """The state after each command of seeded random legal games of every bundled scenario
    (owed actions first, as the follow-up buttons would have them played)."""
    play = _play(ruleset)
    for scenario in play.scenarios():
        rng = random.Random(seed)
        dice = SeededDice(rng)
        document: Any = play.setup(scenario)
        for _ in range(commands):
            yield play._load_state(document)  # type: ignore[attr-defined]  # a copy of its own
            actions = play.view(document, REFEREE).every_legal
            if not actions:
                break
            document = _next(play, document, actions, rng, dice, owed_first=0.8)


@pytest.mark.parametrize("seed", [1, 2])
def test_manovra_owed_actions_are_the_owed_legal_actions(seed: int) -> None:
    from rules.manovra import legal

    seen = 0
    for state in random_states("manovra", seed):
        every = legal.legal_actions(state)
        assert legal.owed_actions(state) == [a for a in every if a.owed]
        seen += bool(legal.owed_actions(state))
    assert seen, "no owed action met: the test proves nothing"


@pytest.mark.parametrize("seed", [1, 2])
def test_linea_gotica_legal_of_verbs_is_the_filtered_listing(seed: int) -> None:
    from rules.linea_gotica import legal

    seen: set[str] = set()
    for state in random_states("linea_gotica", seed):
        every = legal.legal_actions(state)
        verbs = {a.verb for a in every}
        seen |= verbs
        for wanted in [*({v} for v in verbs), {"morale", "turn.next", "execute"}, {"execute"}]:
            assert legal.legal_of_verbs(state, wanted) == [a for a in every if a.verb in wanted]
    assert {"morale", "turn.next", "fire", "move"} <= seen


def _key(action: LegalAction) -> tuple[object, ...]:
    return (action.verb, action.side, sorted(action.options.items()), action.free, action.owed)


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_follow_ups_are_owed_legal_actions(ruleset: str) -> None:
    """Every follow-up button is an action the listing offers (owed or not)."""
    play = _play(ruleset)
    for scenario in play.scenarios():
        rng = random.Random(3)
        dice = SeededDice(rng)
        document: Any = play.setup(scenario)
        for _ in range(120):
            actions = play.view(document, REFEREE).every_legal
            for follow in play.view(document, REFEREE).follow_ups:
                assert any(
                    a.verb == follow.verb
                    and all(
                        str(a.options.get(name, value)) == str(value)
                        for name, value in follow.options.items()
                    )
                    for a in actions
                ), (follow, [_key(a) for a in actions])
            if not actions:
                break
            document = _next(play, document, actions, rng, dice, owed_first=1.0)


@pytest.mark.parametrize("seed", [1, 2])
def test_linea_gotica_remembered_sight_changes_no_listing(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing remembers each line of sight it measured; without, the same list."""
    import contextlib

    from rules.linea_gotica import field, legal

    states = [s for s in random_states("linea_gotica", seed) if s.field is not None]
    assert states, "no battlefield scenario: the test proves nothing"
    remembered = [legal.legal_actions(s) for s in states]
    monkeypatch.setattr(field, "remembered_sight", contextlib.nullcontext)
    assert [legal.legal_actions(s) for s in states] == remembered


def _reference_move_destinations(state: Any, unit: Any) -> list[str]:
    """pzgren's move destinations as first written: check_move of every hex in reach, each
    asking the state for the units in that hex."""
    from rules.pzgren import turn as g
    from rules.pzgren.field import Hex, distance

    if unit.air:
        return []
    found: list[str] = []
    here, reach = unit.position, unit.movement
    for q in range(max(0, here.q - reach), min(state.columns, here.q + reach + 1)):
        for r in range(max(0, here.r - reach), min(state.rows, here.r + reach + 1)):
            where = Hex(q, r)
            if distance(here, where) > reach:
                continue
            try:
                g.check_move(state, unit, where)
            except RulesError:
                continue
            found.append(str(where))
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pzgren_move_destinations_match_the_reference(seed: int) -> None:
    from rules.pzgren import legal

    compared = 0
    for state in random_states("pzgren", seed, commands=400):
        occupancy = state.occupancy()
        for unit in state.units.values():
            if not unit.alive:
                continue
            assert occupancy.get(unit.hex, []) == state.units_in(unit.hex) or unit.air
            expected = _reference_move_destinations(state, unit)
            assert legal.move_destinations(state, unit) == expected
            assert legal.move_destinations(state, unit, occupancy) == expected
            compared += bool(expected)
    assert compared > 100
