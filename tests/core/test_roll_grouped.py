"""Grouped rolls and integer convolution: the odds they give equal those of every face
(brute force) exactly, and in play they roll exactly as plain rolls do."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.dice import D6, D8, D10, DiceTray, Die, Roll, ScriptedDice
from rules.core.errors import UnknownName
from rules.core.odds import convolve, convolve_counts, enumerate_odds
from rules.core.resolution import Odds, Outcome
from rules.core.tables import Table
from tests.core.every_face import EveryFace, fractions


def _same_odds(run: Callable[[DiceTray], Outcome]) -> tuple[Odds, Odds]:
    grouped = enumerate_odds(lambda source: run(DiceTray(source)), 10**6)
    every = enumerate_odds(lambda source: run(DiceTray(EveryFace(source))), 10**6)
    assert grouped.exact and every.exact
    assert fractions(grouped) == fractions(every)
    assert sum(fractions(grouped).values()) == 1
    return grouped, every


dice_lists = st.lists(st.sampled_from([D6, D8, D10, Die(4), Die(12)]), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(dice=dice_lists, modulus=st.integers(1, 7), offset=st.integers(-12, 12))
def test_roll_all_grouped_gives_the_odds_of_every_face(
    dice: list[Die], modulus: int, offset: int
) -> None:
    def group(faces: tuple[int, ...]) -> Hashable:
        return (faces[0] + offset) % modulus, sum(faces) > offset

    def run(tray: DiceTray) -> Outcome:
        rolls = tray.roll_all_grouped(dice, [f"d{i}" for i in range(len(dice))], group)
        # Then a second roll, so grouped branches carry on into plain ones.
        extra = tray.roll(D6, "after").face
        key, high = group(tuple(roll.face for roll in rolls))
        return Outcome.of("r", rest=int(str(key)), high=int(high), even=int(extra % 2 == 0))

    grouped, every = _same_odds(run)
    assert grouped.paths <= every.paths


@settings(max_examples=40, deadline=None)
@given(
    dice=dice_lists,
    signs=st.lists(st.sampled_from([1, -1]), min_size=3, max_size=3),
    fixed=st.integers(-10, 10),
    width=st.integers(1, 5),
)
def test_roll_sum_grouped_gives_the_odds_of_every_face(
    dice: list[Die], signs: list[int], fixed: int, width: int
) -> None:
    chosen = signs[: len(dice)]

    def bucket(total: int) -> Hashable:
        return max(total + fixed, 0) // width

    def run(tray: DiceTray) -> Outcome:
        rolls = tray.roll_sum_grouped(dice, ["x"] * len(dice), bucket, chosen)
        total = sum(sign * roll.face for sign, roll in zip(chosen, rolls, strict=True))
        return Outcome.of("landed", bucket=int(str(bucket(total))))

    _same_odds(run)


@settings(max_examples=30, deadline=None)
@given(threshold=st.integers(-2, 12), die=st.sampled_from([D6, D8, D10]))
def test_roll_grouped_as_a_threshold_is_two_branches(threshold: int, die: Die) -> None:
    def run(tray: DiceTray) -> Outcome:
        roll = tray.roll_grouped(die, "check", lambda face: face >= threshold)
        return Outcome.of("pass" if roll.face >= threshold else "fail")

    grouped, _ = _same_odds(run)
    assert grouped.paths <= 2


def test_in_play_grouped_rolls_roll_every_die_in_order_with_their_owners() -> None:
    others = ScriptedDice([2])
    tray = DiceTray(ScriptedDice([5, 3, 6, 1, 4]), others=others, actor_side="axis")
    first = tray.roll_all_grouped([D6, D8], ["a", "b"], lambda faces: sum(faces) > 7)
    second = tray.roll_sum_grouped([D10, D6], ["c", "d"], lambda total: total, [1, -1])
    third = tray.roll_all_grouped(
        [D6, D6], ["mine", "theirs"], lambda faces: faces[0] > faces[1], ["axis", "allies"]
    )
    assert [roll.face for roll in (*first, *second, *third)] == [5, 3, 6, 1, 4, 2]
    assert [roll.label for roll in first + second] == ["a", "b", "c", "d"]
    # The other side's die came from the bot's dice, not the actor's typed faces.
    assert third[1] == Roll(D6, 2, "theirs", False, "allies")
    assert third[0].side == "axis"
    assert tray.rolls == [*first, *second, *third]


def test_a_grouped_rolls_branches_are_built_once_per_node() -> None:
    built = {"n": 0}

    def group(face: int) -> Hashable:
        built["n"] += 1
        return face > 3

    def run(source: Any) -> Outcome:
        tray = DiceTray(source)
        tray.roll_grouped(D6, "first", group)
        return Outcome.of("x", n=tray.roll(D8, "second").face)

    odds = enumerate_odds(run)
    assert odds.exact and odds.paths == 2 * 8
    assert built["n"] == 6  # once, for the six faces: the 15 other paths replay it


parts_strategy = st.lists(
    st.lists(st.integers(1, 5), min_size=1, max_size=4).map(
        lambda counts: tuple(
            (value, Fraction(count, sum(counts))) for value, count in enumerate(counts)
        )
    ),
    min_size=0,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(parts=parts_strategy, cap=st.integers(1, 8))
def test_convolve_counts_equals_convolve_exactly(
    parts: list[tuple[tuple[int, Fraction], ...]], cap: int
) -> None:
    def fold(total: int, value: int) -> int:
        return min(total + value, cap)

    def stop(total: int) -> bool:
        return total >= cap

    for halt in (None, stop):
        assert dict(convolve_counts(parts, fold, 0, halt)) == dict(convolve(parts, fold, 0, halt))


def test_convolve_counts_with_floating_parts_falls_back_to_convolve() -> None:
    parts = [((0, 0.5), (1, 0.5))] * 3
    assert convolve_counts(parts, lambda a, b: a + b, 0) == convolve(parts, lambda a, b: a + b, 0)


@pytest.mark.parametrize("value", [0, 1, 5, 11, 40])
def test_memoised_row_and_column_lookups_answer_as_the_first_time(value: int) -> None:
    table = Table.model_validate(
        {
            "id": "toy",
            "title": "toy",
            "seed": "s",
            "seed_table": "toy",
            "row_axes": [{"key": "d", "label": "d"}],
            "columns": [
                {"key": "a", "label": "1-10", "range": "1-10"},
                {"key": "b", "label": "11+", "range": "11+"},
            ],
            "rows": [
                {"keys": {"d": "1-5"}, "cells": ["x", "y"]},
                {"keys": {"d": "6+"}, "cells": ["z", "w"]},
            ],
        }
    )
    for _ in range(2):
        if value >= 1:
            assert table.row_for("d", value) is table.rows[0 if value <= 5 else 1]
            assert table.column_for(value) is table.columns[0 if value <= 10 else 1]
        else:
            with pytest.raises(UnknownName) as refused:
                table.row_for("d", value)
            assert refused.value.key == "error.table.no_row"
