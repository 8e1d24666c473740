"""linea_gotica legal actions: the listing's contract, played to the scenario's end.

A pure loop (until tests/fuzz plays every ruleset through the service): from the bundled
scenario, repeatedly pick a random listed action, fill its free options at random, apply it
for its side with seeded dice; every listed action must be accepted, and while the game has
not ended some seat must have an action.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from rules.core.errors import RulesError
from rules.core.legal import LegalAction, owed
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.linea_gotica import field as gotica_field
from rules.linea_gotica.surface import PLAY
from tests.fuzz.harness import SeededDice
from tests.linea_gotica.conftest import gotica_text_without_field, gotica_without_field

MAX_COMMANDS = 3000


def fill(action: LegalAction, rng: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = dict(action.options)
    for spec in action.free:
        if not spec.required and rng.random() < 0.5:
            continue
        if spec.choices:
            options[spec.name] = rng.choice(spec.choices)
        else:
            assert spec.low is not None and spec.high is not None
            options[spec.name] = rng.randint(spec.low, spec.high)
    return options


def play_one_game(seed: int, field: bool = True) -> tuple[dict[str, Any], int]:
    rng = random.Random(seed)
    dice = SeededDice(rng)
    if field:
        document = PLAY.setup("esempio_gotica_campo")
    else:
        document = PLAY.setup(None, gotica_text_without_field())
    commands = 0
    while not PLAY.view(document, REFEREE).status.ended:
        actions = PLAY.view(document, REFEREE).every_legal
        assert actions, f"dead end at turn {document['turn']}, phase {document['phase']}"
        owed = [a for a in actions if a.owed]
        # Mostly give what is owed or end the step; sometimes try anything listed.
        pool = actions if rng.random() < 0.8 or not owed else owed
        action = rng.choice(pool)
        options = fill(action, rng)
        try:
            played = PLAY.act(document, Seat.of(action.side), action.verb, options, dice)
        except RulesError as error:
            pytest.fail(
                f"seed {seed}: listed {action.verb} {options} for {action.side} refused: "
                f"{error.key} {error.params}"
            )
        document = played.document
        commands += 1
        assert commands < MAX_COMMANDS, f"seed {seed}: no end after {commands} commands"
    return document, commands


@pytest.mark.parametrize("field", [True, False], ids=["battlefield", "typed"])
@pytest.mark.parametrize("seed", range(6))
def test_random_legal_play_reaches_the_end(seed, field):
    document, commands = play_one_game(seed, field)
    assert document["ended"] and document["turn"] == document["max_turns"]
    assert commands > 50


def test_owed_things_are_tagged_and_block_turn_next():
    document = PLAY.setup(None, gotica_text_without_field())
    start = PLAY.view(document, REFEREE).every_legal
    assert {(a.verb, a.side, a.owed) for a in start} == {
        ("turn.next", "alleati", True),
        ("turn.next", "tedeschi", True),
    }


# The listing for particular states, and every listed action accepted there.


def _esempio():  # type: ignore[no-untyped-def]
    from rules.linea_gotica import turn as g
    from rules.linea_gotica.scenario import load_bundled
    from tests.linea_gotica.test_game import Game

    del load_bundled
    return Game(g.new_game(gotica_without_field()))


def _extremes(action: LegalAction) -> list[dict[str, Any]]:
    """The action's options with each free option at its ends (and optional ones left out)."""
    variants: list[dict[str, Any]] = [dict(action.options)]
    for spec in action.free:
        values: list[Any] = (
            [spec.choices[0], spec.choices[-1]] if spec.choices else [spec.low, spec.high]
        )
        grown = [{**v, spec.name: value} for v in variants for value in values]
        variants = grown + (variants if not spec.required else [])
    return variants


def _every_listed_action_is_accepted(state) -> None:  # type: ignore[no-untyped-def]
    from rules.linea_gotica import turn as g
    from rules.linea_gotica.commands import build_command
    from rules.linea_gotica.legal import legal_actions

    rng = random.Random(5)
    for action in legal_actions(state):
        for options in _extremes(action):
            command = build_command(action.verb, options)
            try:
                g.apply(state, command, SeededDice(rng), actor_side=action.side)
            except RulesError as error:
                pytest.fail(f"listed {action.verb} {options} for {action.side}: {error.key}")


def _listed(state) -> set[tuple[str, str | None, str | None, str | None]]:  # type: ignore[no-untyped-def]
    from rules.linea_gotica.legal import legal_actions

    return {(a.verb, a.side, a.unit, a.target) for a in legal_actions(state)}


def test_the_winner_chooses_the_order_and_nothing_else_is_listed():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.CHOICE, first="alleati")
    (choice,) = legal_actions(game.state)
    assert (choice.verb, choice.side, choice.owed) == ("turn.next", "alleati", True)
    assert choice.free[0].choices == ("first", "second")
    _every_listed_action_is_accepted(game.state)


def test_movement_lists_the_movers_moves_and_the_other_sides_opportunity_fire():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.MOVEMENT, first="alleati")
    legal = legal_actions(game.state)
    moves = [a for a in legal if a.verb == "move"]
    assert moves and {a.side for a in moves} == {"alleati"}
    assert {a.unit for a in moves} == {
        u.id for u in game.state.units.values() if u.side == "alleati"
    }
    foot = {a.options["kind"]: a.free[0] for a in moves if a.unit == "squadra_1"}
    assert set(foot) == {"cauto", "normale", "corsa"}
    assert foot["cauto"].high < foot["normale"].high < foot["corsa"].high
    # Nobody has moved yet: no opportunity fire for the Germans, who may not end the step.
    assert not [a for a in legal if a.side == "tedeschi"]
    _every_listed_action_is_accepted(game.state)
    game("move", "alleati", (), unit="squadra_1", kind="normale", distance=10)
    opportunity = [a for a in legal_actions(game.state) if a.verb == "fire"]
    assert opportunity and {a.side for a in opportunity} == {"tedeschi"}
    assert {a.target for a in opportunity} == {"squadra_1"}
    assert ("move", "alleati", "squadra_1", None) not in _listed(game.state)
    _every_listed_action_is_accepted(game.state)


def test_the_fire_phase_lists_only_the_class_now_acting_and_no_hidden_target():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.model import QUALITY_ORDER
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.FIRE, first="alleati")
    quality = QUALITY_ORDER[game.state.fire_class]
    legal = legal_actions(game.state)
    acting = {a.unit for a in legal if a.verb in ("fire", "test", "callarty") and a.unit}
    assert acting and all(game.unit(u).quality is quality for u in acting)
    hidden = {"mg_casolare", "cecchino"}
    for action in legal:
        if action.side == "alleati":
            assert not hidden & set(map(str, action.options.values()))
            assert not any(hidden & set(spec.choices) for spec in action.free)
    fire = [a for a in legal if a.verb == "fire"]
    assert all(a.free[0].name == "distance" and a.free[0].low == 1 for a in fire)
    _every_listed_action_is_accepted(game.state)
    # Later classes, step by step: each listing is accepted there too.
    for _ in range(3):
        for side in [s for s in game.state.sides if s not in game.state.done]:
            game("turn.next", side)
        if game.state.phase is not Phase.FIRE:
            break
        _every_listed_action_is_accepted(game.state)


def test_an_owed_morale_test_is_owed_by_its_side_and_blocks_its_turn_next():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import PendingMorale, Phase

    game = _esempio()
    game.to_phase(Phase.FIRE, first="alleati")
    while game.state.fire_class < 1:  # Veterani: the Gruppe acts
        for side in [s for s in game.state.sides if s not in game.state.done]:
            game("turn.next", side)
    game.state.pending.append(PendingMorale(unit="gruppe", figure=1, reasons=["x"]))
    legal = legal_actions(game.state)
    owed = [a for a in legal if a.owed]
    assert [(a.verb, a.side, a.unit) for a in owed] == [("morale", "tedeschi", "gruppe")]
    assert ("turn.next", "tedeschi", None, None) not in _listed(game.state)
    # Within its class results are simultaneous: the Gruppe still fires in it.
    assert [a for a in legal if a.unit == "gruppe" and a.verb == "fire"]
    _every_listed_action_is_accepted(game.state)


def test_observation_is_listed_by_terrain_element_never_by_hidden_unit():
    """Found by review: observation was listed naming the hidden unit to the side that
    cannot see it. The side names a terrain element of the table instead."""
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.OBSERVE_MOVE, first="alleati")
    allied = [a for a in legal_actions(game.state) if a.side == "alleati" and a.verb == "test"]
    places = {str(a.options["place"]) for a in allied}
    assert set(game.state.places) <= places and "fienile" in places
    assert all("target" not in a.options for a in allied)
    _every_listed_action_is_accepted(game.state)
    # Nothing hides in the barn: nothing is seen, no die is rolled, the attempt is spent.
    applied = game("test", "alleati", (), unit="squadra_1", kind="osservare", place="fienile")
    assert not applied.resolutions and applied.notices[0].key == "linea_gotica.observe.nothing"
    assert "fienile" not in {
        a.options.get("place") for a in legal_actions(game.state) if a.side == "alleati"
    }
    game.refused(
        "error.linea_gotica.observed_already",
        "test",
        "alleati",
        unit="bazooka",
        kind="osservare",
        place="fienile",
    )
    # The farmhouse hides the MG: a 1 spots it.
    applied = game("test", "alleati", (1,), unit="squadra_1", kind="osservare", place="casolare")
    assert [r.outcome.key for r in applied.resolutions] == ["linea_gotica.observe.seen"]
    assert not game.unit("mg_casolare").hidden and game.unit("cecchino").hidden


def test_place_autocomplete_gives_no_hidden_place_away():
    document = PLAY.setup(None, gotica_text_without_field())
    document["places"] = []  # a game without named terrain (an older document)
    assert PLAY.view(document, Seat.of("alleati")).names("place", legal_first=False) == ["siepe"]
    assert set(PLAY.view(document, Seat.of("tedeschi")).names("place", legal_first=False)) == {
        "siepe",
        "casolare",
        "campanile",
    }
    assert set(PLAY.view(document, REFEREE).names("place", legal_first=False)) == {
        "siepe",
        "casolare",
        "campanile",
    }


def _test_scenario_game():  # type: ignore[no-untyped-def]
    from rules.linea_gotica import turn as g
    from rules.linea_gotica.scenario import parse_scenario
    from tests.linea_gotica.test_game import SCENARIO, Game

    return Game(g.new_game(parse_scenario(SCENARIO)))


def test_anti_aircraft_fire_is_listed_at_an_enemy_aircraft():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _test_scenario_game()
    game.to_phase(Phase.FIRE)
    game("callarty", "blu", [6], unit="osservatore", battery="aereo", target="strada")
    marker = game.state.missions[0].id
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.MOVEMENT)  # the Blues move, their aircraft over the table
    aa = [a for a in legal_actions(game.state) if a.verb == "fire" and a.target == marker]
    assert [(a.side, a.unit, a.options["weapon"]) for a in aa] == [("rossi", "flak", "flak")]
    _every_listed_action_is_accepted(game.state)


@pytest.mark.parametrize("seed", range(4))
def test_random_legal_play_of_the_test_scenario_reaches_its_end(seed):
    """The tests' scenario has an aircraft, a battery, mines, AA and vehicles."""
    from rules.linea_gotica import turn as g
    from rules.linea_gotica.commands import build_command
    from rules.linea_gotica.legal import legal_actions

    rng = random.Random(seed)
    state = _test_scenario_game().state
    for _ in range(MAX_COMMANDS):
        if state.ended:
            break
        actions = legal_actions(state)
        assert actions, f"dead end at turn {state.turn}, phase {state.phase}"
        owed = [a for a in actions if a.owed]
        action = rng.choice(actions if rng.random() < 0.8 or not owed else owed)
        options = fill(action, rng)
        try:
            state = g.apply(
                state, build_command(action.verb, options), SeededDice(rng), actor_side=action.side
            ).state
        except RulesError as error:
            pytest.fail(f"seed {seed}: listed {action.verb} {options} refused: {error.key}")
    assert state.ended


def test_a_squad_may_get_on_a_tank_and_then_only_get_off():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.MOVEMENT, first="alleati")
    boarding = [a for a in legal_actions(game.state) if a.options.get("kind") == "sali"]
    assert boarding and {a.options["vehicle"] for a in boarding} == {"sherman"}
    (squad,) = [a for a in boarding if a.unit == "osservatori"]
    _every_listed_action_is_accepted(game.state)
    game("move", "alleati", (), **{**squad.options, "distance": 5})
    assert game.unit("osservatori").riding == "sherman"
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.MOVEMENT, first="alleati")
    own = [a for a in legal_actions(game.state) if a.unit == "osservatori"]
    assert [(a.verb, a.options["kind"]) for a in own] == [("move", "scendi")]
    _every_listed_action_is_accepted(game.state)


def test_a_task_of_several_turns_may_be_started_and_is_then_only_continued():
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.FIRE, first="alleati")
    while game.state.fire_class < 1:  # Veterani: the rifle squad acts
        for side in [s for s in game.state.sides if s not in game.state.done]:
            game("turn.next", side)
    (start,) = [
        a
        for a in legal_actions(game.state)
        if a.unit == "squadra_1" and a.options.get("kind") == "azione"
    ]
    assert [spec.name for spec in start.free] == ["difficulty", "turns"]
    game("test", "alleati", (), unit="squadra_1", kind="azione", turns=2)
    assert game.unit("squadra_1").task is not None
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.FIRE, first="alleati")
    while game.state.fire_class < 1:
        for side in [s for s in game.state.sides if s not in game.state.done]:
            game("turn.next", side)
    (going_on,) = [
        a
        for a in legal_actions(game.state)
        if a.unit == "squadra_1" and a.options.get("kind") == "azione"
    ]
    assert not going_on.free
    _every_listed_action_is_accepted(game.state)


def test_covering_fire_may_fall_on_any_named_terrain_element():
    """A farmhouse suspected of hiding an MG may be covered without the MG being listed."""
    from rules.linea_gotica.legal import legal_actions
    from rules.linea_gotica.state import Phase

    game = _esempio()
    game.to_phase(Phase.COVERING, first="alleati")
    covering = [
        a
        for a in legal_actions(game.state)
        if a.verb == "fire" and a.options.get("kind") == "copertura" and "mode" not in a.options
    ]
    assert {a.target for a in covering} == set(game.state.places)
    assert {a.side for a in covering} == {"alleati"}
    _every_listed_action_is_accepted(game.state)


def _random_play(seed: int, steps: int) -> Iterator[dict[str, Any]]:
    """The documents of a random game of the bundled battlefield scenario, step by step."""
    rng = random.Random(seed)
    dice = SeededDice(rng)
    document = PLAY.setup("esempio_gotica_campo")
    for _ in range(steps):
        yield document
        actions = PLAY.view(document, REFEREE).every_legal
        if not actions:
            return
        owed_now = [a for a in actions if a.owed]
        action = rng.choice(owed_now if owed_now and rng.random() < 0.5 else actions)
        with contextlib.suppress(RulesError):
            document = PLAY.act(
                document, Seat.of(action.side), action.verb, fill(action, rng), dice
            ).document


@pytest.mark.parametrize("seed", [3, 14])
def test_what_is_owed_is_read_from_the_prompts_and_is_what_the_whole_listing_owes(seed):
    # linea_gotica declares owed_in_prompts: its status reads what is owed from the prompts.
    for document in _random_play(seed, 150):
        whole = owed(PLAY.view(document, REFEREE).every_legal)
        assert PLAY.view(document, SPECTATOR).owed == whole, document["phase"]


def test_the_status_lists_what_is_owed_without_measuring_a_line_of_sight(monkeypatch):
    # On the largest table the limits accept, listing every fire at every target only to
    # find none owed took the whole work budget of each /game status.
    measured = [0]
    line_of_sight = gotica_field.line_of_sight

    def counted(*args: Any) -> Any:
        measured[0] += 1
        return line_of_sight(*args)

    monkeypatch.setattr(gotica_field, "line_of_sight", counted)
    firing = next(
        document
        for document in _random_play(5, 400)
        if any(a.verb == "fire" for a in PLAY.view(document, REFEREE).every_legal)
    )
    measured[0] = 0
    view = PLAY.view(firing, SPECTATOR)
    shown = (view.status, view.owed, view.follow_ups, view.awaiting)  # what a status reads
    assert measured[0] == 0, shown
    assert PLAY.view(firing, REFEREE).every_legal and measured[0] > 0
