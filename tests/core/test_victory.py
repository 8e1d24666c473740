"""Victory conditions: the scoring over a neutral Battle (objectives held, contested, empty;
losses at each threshold; exits; levels at their boundaries), sudden death, the turn
limit's random extension and its odds, a concession, the referee's decision, and the JSON
round trips of Score and GameResult."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import ending
from rules.core.battlefield import Battlefield, Point
from rules.core.dice import DiceTray, ScriptedDice
from rules.core.ending import VictoryRecord
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import Applied
from rules.core.score import (
    Battle,
    EndingKind,
    GameResult,
    Level,
    Piece,
    Score,
    compute_score,
    level_of,
)
from rules.core.victory import Dialect, LevelsSpec, VictoryConditions

DIALECT = Dialect("manovra", strength="models", radius=10.0, depth=10.0)
HEX_DIALECT = Dialect("pzgren", strength="steps", hexes=True)
SIDES = {"a": "Alfa", "b": "Bravo"}
FIELD = Battlefield.model_validate(
    {
        "width_cm": 100,
        "height_cm": 60,
        "open_terrain": "open",
        "areas": [
            {
                "id": "farm",
                "name": "Farm",
                "terrain": "building",
                "shape": {
                    "kind": "polygon",
                    "points": [
                        {"x": 40, "y": 40},
                        {"x": 60, "y": 40},
                        {"x": 60, "y": 55},
                        {"x": 40, "y": 55},
                    ],
                },
            }
        ],
        "points": {"bridge": {"x": 20, "y": 30}},
    }
)


def piece(
    unit: str,
    side: str,
    x: float | None = None,
    y: float | None = None,
    *,
    strength: int = 10,
    initial: int = 10,
    may_score: bool = True,
    broken: bool = False,
    fighting: bool = True,
    hex_: str | None = None,
) -> Piece:
    alive = strength > 0
    return Piece(
        id=unit,
        side=side,
        in_play=alive,
        may_score=may_score and alive,
        strength=strength,
        initial=initial,
        at=None if x is None or y is None else Point(x=x, y=y),
        hex=hex_,
        fighting=fighting,
        broken=broken,
    )


def battle(*pieces: Piece, turn: int = 1, hexes: bool = False) -> Battle:
    if hexes:
        return Battle(HEX_DIALECT, SIDES, turn, pieces, map_size=(10, 8))
    return Battle(DIALECT, SIDES, turn, pieces, FIELD)


def conditions(**data: Any) -> VictoryConditions:
    return VictoryConditions.model_validate(data)


OBJECTIVES = conditions(
    objectives=[
        {"id": "farm", "name": "Farm", "area": "farm", "points": 3},
        {"id": "bridge", "name": "Bridge", "point": "bridge", "points": 2},
    ]
)


# --- objectives -----------------------------------------------------------------------


def test_an_objective_is_held_by_a_lone_side_and_scores_its_points():
    score = compute_score(OBJECTIVES, battle(piece("a1", "a", 50, 45), piece("b1", "b", 90, 5)))
    farm = score.lines[0]
    assert (farm.side, farm.points) == ("a", 3)
    assert farm.text.key == "victory.line.objective.held"
    assert score.total("a") == 3 and score.leader == "a"


def test_an_objective_with_both_sides_there_is_contested_and_scores_nothing():
    score = compute_score(OBJECTIVES, battle(piece("a1", "a", 50, 45), piece("b1", "b", 45, 50)))
    farm = score.lines[0]
    assert (farm.side, farm.points, farm.text.key) == (None, 0, "victory.line.objective.contested")


def test_an_empty_objective_scores_nothing():
    score = compute_score(OBJECTIVES, battle(piece("a1", "a", 90, 5)))
    assert [line.text.key for line in score.lines] == ["victory.line.objective.empty"] * 2
    assert score.totals == (("a", 0), ("b", 0)) and score.level is Level.DRAW


def test_a_point_objective_is_held_within_its_radius_and_not_beyond():
    near = compute_score(OBJECTIVES, battle(piece("a1", "a", 29.9, 30)))
    far = compute_score(OBJECTIVES, battle(piece("a1", "a", 30.1, 30)))
    assert near.lines[1].side == "a" and far.lines[1].side is None


def test_a_unit_that_may_not_score_holds_nothing_but_still_contests():
    pinned = piece("a1", "a", 50, 45, may_score=False)
    assert compute_score(OBJECTIVES, battle(pinned)).lines[0].side is None
    contested = compute_score(OBJECTIVES, battle(pinned, piece("b1", "b", 50, 50)))
    assert contested.lines[0].text.key == "victory.line.objective.contested"
    anyone = conditions(
        objectives=[{"id": "f", "name": "F", "area": "farm", "scoring_only": False}]
    )
    assert compute_score(anyone, battle(pinned)).lines[0].side == "a"


def test_an_objective_only_some_sides_may_score():
    only_b = conditions(objectives=[{"id": "f", "name": "F", "area": "farm", "sides": ["b"]}])
    assert compute_score(only_b, battle(piece("a1", "a", 50, 45))).lines[0].side is None
    assert compute_score(only_b, battle(piece("b1", "b", 50, 45))).lines[0].side == "b"


def test_hex_objectives():
    hexes = conditions(objectives=[{"id": "v", "name": "V", "hexes": ["3,4", "3,5"], "points": 2}])
    held = compute_score(hexes, battle(piece("a1", "a", hex_="3,5"), hexes=True))
    assert held.total("a") == 2
    contested = compute_score(
        hexes, battle(piece("a1", "a", hex_="3,4"), piece("b1", "b", hex_="3,5"), hexes=True)
    )
    assert contested.lines[0].side is None


# --- losses ------------------------------------------------------------------------------

LOSSES = conditions(
    losses=[{"side": "b", "destroyed": 3, "below_half": 1, "share": 50, "share_points": 5}]
)


@pytest.mark.parametrize(
    ("strengths", "points"),
    [
        ((10, 10), 0),  # nothing lost
        ((5, 10), 0),  # exactly half: not below half, 25 % lost
        ((4, 10), 1),  # below half, 30 % lost
        ((0, 10), 3),  # destroyed, 50 % of the force lost: + 5
    ],
)
def test_losses_at_each_threshold(strengths: tuple[int, int], points: int):
    pieces = [piece(f"b{i}", "b", strength=s) for i, s in enumerate(strengths)]
    line = compute_score(LOSSES, battle(*pieces)).lines[0]
    share = 5 if sum(10 - s for s in strengths) * 2 >= 20 else 0
    assert (line.side, line.points) == ("a", points + share)
    assert line.text.key == "victory.line.losses.models"


def test_the_share_is_counted_over_the_whole_force():
    line = compute_score(
        LOSSES, battle(piece("b1", "b", strength=2), piece("b2", "b", strength=8))
    ).lines[0]
    assert line.text.param("percent") == 50 and line.points == 1 + 5


# --- exits -------------------------------------------------------------------------------


def test_units_at_their_edge_count_as_exits():
    exits = conditions(exits=[{"side": "a", "edge": "north", "points": 2}])
    at_edge = piece("a1", "a", 10, 51)  # within 10 cm of y = 60
    short = piece("a2", "a", 10, 49)
    enemy = piece("b1", "b", 10, 59)
    line = compute_score(exits, battle(at_edge, short, enemy)).lines[0]
    assert (line.side, line.points, line.text.param("units")) == ("a", 2, 1)
    assert line.text.key == "victory.line.exits.north"


def test_exits_on_a_hex_map_are_the_edge_row():
    exits = conditions(exits=[{"side": "a", "edge": "east", "points": 1}])
    line = compute_score(
        exits, battle(piece("a1", "a", hex_="9,3"), piece("a2", "a", hex_="8,3"), hexes=True)
    ).lines[0]
    assert line.points == 1


# --- levels -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("margin", "level"),
    [
        (0, Level.DRAW),
        (1, Level.DRAW),
        (2, Level.MARGINAL),
        (5, Level.MARGINAL),
        (6, Level.DECISIVE),
    ],
)
def test_levels_at_their_boundaries(margin: int, level: Level):
    assert level_of(margin, LevelsSpec(marginal=2, decisive=6)) is level


def test_without_levels_any_lead_wins_marginally():
    assert level_of(1, None) is Level.MARGINAL and level_of(0, None) is Level.DRAW


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=10), min_size=1, max_size=6),
    st.lists(st.integers(min_value=0, max_value=10), min_size=1, max_size=6),
)
def test_totals_are_the_sum_of_the_lines_and_the_leader_leads(
    a_strengths: list[int], b_strengths: list[int]
):
    rules = conditions(
        losses=[
            {"side": "a", "destroyed": 2, "below_half": 1},
            {"side": "b", "destroyed": 2, "below_half": 1, "share": 40, "share_points": 3},
        ],
        levels={"marginal": 2, "decisive": 5},
    )
    pieces = [piece(f"a{i}", "a", strength=s) for i, s in enumerate(a_strengths)]
    pieces += [piece(f"b{i}", "b", strength=s) for i, s in enumerate(b_strengths)]
    score = compute_score(rules, battle(*pieces))
    for side in SIDES:
        assert score.total(side) == sum(line.points for line in score.lines if line.side == side)
    assert score.margin == abs(score.total("a") - score.total("b"))
    assert score.level is level_of(score.margin, rules.levels)
    if score.leader is not None:
        assert score.total(score.leader) == max(score.total("a"), score.total("b"))
    assert Score.from_json(score.to_json()) == score


# --- the game's end: a small state -------------------------------------------------------


class FakeState:
    """The fields of a ruleset state that victory reads, over a fixed battle."""

    ruleset = "manovra"

    def __init__(self, rules: VictoryConditions | None, *pieces: Piece, max_turns: int = 3):
        self.turn = 1
        self.max_turns = max_turns
        self.ended = False
        self.sides = dict(SIDES)
        self.victory = VictoryRecord(conditions=rules)
        self.pieces = list(pieces)

    def battle(self) -> Battle:
        return battle(*self.pieces, turn=self.turn)


def battle_of(state: FakeState) -> Battle:
    return state.battle()


def applied(state: FakeState, faces: tuple[int, ...] = ()) -> Applied[Any]:
    result: Applied[Any] = Applied(state, tray=DiceTray(ScriptedDice(faces)))  # type: ignore[type-var]
    return result


def test_sudden_death_when_a_side_is_wiped_out():
    rules = conditions(sudden_death=[{"kind": "wiped_out"}])
    state = FakeState(rules, piece("a1", "a"), piece("b1", "b", strength=0))
    assert ending.settle(state, battle_of, applied(state))
    result = state.victory.result
    assert state.ended and result is not None
    assert (result.winner, result.level, result.ending.kind) == (
        "a",
        Level.DECISIVE,
        EndingKind.SUDDEN_DEATH,
    )
    assert result.ending.condition == "wiped_out" and result.ending.side == "b"
    assert result.summary.key == "victory.result.decisive.sudden_death_wiped_out"


def test_sudden_death_when_every_unit_of_a_side_is_broken():
    rules = conditions(sudden_death=[{"kind": "broken", "side": "b", "level": "marginal"}])
    state = FakeState(rules, piece("a1", "a", broken=True), piece("b1", "b", broken=True))
    assert ending.settle(state, battle_of, applied(state))
    assert state.victory.result is not None and state.victory.result.level is Level.MARGINAL
    calm = FakeState(rules, piece("b1", "b", broken=True), piece("b2", "b"))
    assert not ending.settle(calm, battle_of, applied(calm)) and not calm.ended


def test_off_table_units_do_not_hold_off_a_break():
    rules = conditions(sudden_death=[{"kind": "broken"}])
    state = FakeState(
        rules, piece("a1", "a"), piece("b1", "b", broken=True), piece("guns", "b", fighting=False)
    )
    assert ending.settle(state, battle_of, applied(state))


def test_both_sides_falling_at_once_is_a_draw():
    rules = conditions(sudden_death=[{"kind": "wiped_out"}])
    state = FakeState(rules, piece("a1", "a", strength=0), piece("b1", "b", strength=0))
    assert ending.settle(state, battle_of, applied(state))
    assert state.victory.result is not None and state.victory.result.winner is None


def test_an_objective_taken_at_a_turns_end_ends_the_game():
    rules = conditions(
        objectives=[{"id": "farm", "name": "Farm", "area": "farm"}],
        sudden_death=[{"kind": "objective", "objective": "farm", "side": "a"}],
    )
    state = FakeState(rules, piece("a1", "a", 50, 45))
    assert ending.turn_over(state, battle_of, applied(state))
    result = state.victory.result
    assert result is not None and result.ending.condition == "objective:farm"
    assert result.summary.code.startswith("victory.result.decisive.sudden_death_objective(")
    assert result.summary.param("objective") == "Farm"


def test_objectives_scored_at_stated_turns_are_recorded_each_turn():
    rules = conditions(
        objectives=[{"id": "farm", "name": "Farm", "area": "farm", "points": 2, "turns": [1, 2]}]
    )
    state = FakeState(rules, piece("a1", "a", 50, 45))
    ending.turn_over(state, battle_of, applied(state))
    state.turn = 2
    state.pieces = [piece("a1", "a", 90, 5)]
    ending.turn_over(state, battle_of, applied(state))
    score = ending.score_of(state, state.battle())
    assert [(line.turn, line.side) for line in score.lines] == [(1, "a"), (2, None)]
    assert score.total("a") == 2 and score.lines[0].text.key == "victory.line.objective.held_at"


def test_the_turn_limit_ends_the_game_by_the_score():
    rules = conditions(objectives=[{"id": "farm", "name": "Farm", "area": "farm", "points": 3}])
    state = FakeState(rules, piece("a1", "a", 50, 45), max_turns=1)
    assert ending.last_turn(state, applied(state))
    result = ending.finish(state, battle_of, applied(state))
    assert (result.winner, result.level, result.ending.kind) == (
        "a",
        Level.MARGINAL,
        EndingKind.TURN_LIMIT,
    )
    assert result.score.total("a") == 3


def test_a_game_without_conditions_ends_in_a_draw():
    state = FakeState(None, piece("a1", "a"), max_turns=1)
    result = ending.finish(state, battle_of, applied(state))
    assert result.winner is None and result.level is Level.DRAW and result.score.empty
    assert result.summary.key == "victory.result.draw.turn_limit"


EXTENDED = conditions(end={"extension": {"die": "D6", "at_least": 4, "turns": 2}})


@pytest.mark.parametrize(("face", "goes_on"), [(3, False), (4, True), (6, True)])
def test_the_random_extension_adds_a_turn_on_its_face(face: int, goes_on: bool):
    state = FakeState(EXTENDED, piece("a1", "a"), max_turns=1)
    result = applied(state, (face,))
    assert ending.last_turn(state, result) is not goes_on
    resolution = result.resolutions[0]
    assert resolution.procedure == "extension" and resolution.rolls[0].face == face
    assert resolution.outcome.key == (
        "victory.extension.continues" if goes_on else "victory.extension.ends"
    )
    assert state.max_turns == (2 if goes_on else 1)


def test_the_random_extension_has_its_exact_odds_and_a_limit():
    state = FakeState(EXTENDED, piece("a1", "a"), max_turns=1)
    result = applied(state, (5,))
    ending.last_turn(state, result)
    odds = result.resolutions[0].odds
    assert odds is not None and odds.exact
    entries = {e.outcome.key: Fraction(e.numerator, e.denominator) for e in odds.entries}
    assert entries == {
        "victory.extension.continues": Fraction(1, 2),
        "victory.extension.ends": Fraction(1, 2),
    }
    state.turn = 2
    second = applied(state, (6,))
    assert not ending.last_turn(state, second) and state.max_turns == 3
    state.turn = 3
    third = applied(state, ())
    assert ending.last_turn(state, third) and third.resolutions == []  # two turns at most


# --- concession and the referee's decision --------------------------------------------------


def test_a_side_concedes_for_itself_and_loses_decisively():
    state = FakeState(OBJECTIVES, piece("a1", "a"), piece("b1", "b"))
    result = ending.apply_verb(state, battle_of, "game.concede", {}, "b", applied(state))
    assert (result.winner, result.level, result.ending.kind, result.ending.side) == (
        "a",
        Level.DECISIVE,
        EndingKind.CONCESSION,
        "b",
    )
    assert state.ended
    with pytest.raises(IllegalAction) as refused:
        ending.apply_verb(state, battle_of, "game.concede", {}, "a", applied(state))
    assert refused.value.key == "error.victory.game_over"


def test_a_side_may_not_concede_for_the_other():
    state = FakeState(None, piece("a1", "a"))
    with pytest.raises(IllegalAction) as refused:
        ending.apply_verb(state, battle_of, "game.concede", {"side": "b"}, "a", applied(state))
    assert refused.value.key == "error.victory.concede_own" and not state.ended
    result = ending.apply_verb(
        state, battle_of, "game.concede", {"side": "Bravo"}, None, applied(state)
    )
    assert result.winner == "a"


def test_the_referee_decides_a_winner_a_level_and_a_reason():
    state = FakeState(OBJECTIVES, piece("a1", "a", 50, 45))
    options = {"winner": "b", "level": "decisive", "reason": "the bridge was blown"}
    result = ending.apply_verb(state, battle_of, "game.decide", options, None, applied(state))
    assert (result.winner, result.level, result.ending.reason) == (
        "b",
        Level.DECISIVE,
        "the bridge was blown",
    )
    assert result.summary.key == "victory.result.decisive.decision"
    assert result.score.total("a") == 3  # the score is still shown


def test_the_referee_may_declare_a_draw():
    state = FakeState(None, piece("a1", "a"))
    options = {"winner": "none", "reason": "time is up at the club"}
    result = ending.apply_verb(state, battle_of, "game.decide", options, None, applied(state))
    assert result.winner is None and result.level is Level.DRAW


@pytest.mark.parametrize(
    ("options", "actor", "key"),
    [
        ({"winner": "a", "reason": "x"}, "a", "error.victory.referee_only"),
        ({"winner": "a"}, None, "error.option.missing"),
        ({"winner": "c", "reason": "x"}, None, "error.victory.unknown_side"),
        ({"winner": "a", "level": "draw", "reason": "x"}, None, "error.option.not_a_choice"),
        (
            {"winner": "none", "level": "decisive", "reason": "x"},
            None,
            "error.victory.draw_has_no_level",
        ),
        ({"winner": "a", "reason": "x" * 201}, None, "error.option.too_long"),
        ({"winner": "a", "reason": "x", "colour": "red"}, None, "error.unknown_option"),
    ],
)
def test_bad_decisions_are_refused(options: dict[str, str], actor: str | None, key: str):
    state = FakeState(None, piece("a1", "a"))
    with pytest.raises((IllegalAction, InvalidInput)) as refused:
        ending.apply_verb(state, battle_of, "game.decide", options, actor, applied(state))
    assert refused.value.key == key and not state.ended


def test_a_result_round_trips_through_json():
    state = FakeState(OBJECTIVES, piece("a1", "a", 50, 45), piece("b1", "b", strength=3))
    options = {"winner": "a", "level": "marginal", "reason": "agreed"}
    result = ending.apply_verb(state, battle_of, "game.decide", options, None, applied(state))
    data = result.to_json()
    assert GameResult.from_json(json.loads(json.dumps(data))) == result
    assert data["ending"]["kind"] == "decision" and data["winner"] == "a"
