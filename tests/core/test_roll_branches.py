"""Rolls read only through a group of faces, not at all, or only through their sum branch
on those for the odds (DiceTray.roll_grouped, roll_unread, roll_sum): the odds must be
exactly those of rolling every face, and play must roll and record every die as before."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.dice import D6, D10, DiceTray, Die, ScriptedDice, faces_summing_to, sum_counts
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.core.resolution import Outcome
from rules.core.ruleset import get_ruleset
from tests.core.every_face import EveryFace, fractions


def _both(run: Any) -> tuple[dict[str, Fraction], dict[str, Fraction], int, int]:
    branched = enumerate_odds(lambda source: run(DiceTray(source)), 10**6)
    every = enumerate_odds(lambda source: run(DiceTray(EveryFace(source))), 10**6)
    assert branched.exact and every.exact
    return fractions(branched), fractions(every), branched.paths, every.paths


@settings(max_examples=60, deadline=None)
@given(
    sides=st.integers(2, 12),
    dice=st.integers(1, 4),
    modulus=st.integers(1, 7),
    cut=st.integers(0, 30),
)
def test_a_sums_branches_give_the_odds_of_every_face(
    sides: int, dice: int, modulus: int, cut: int
) -> None:
    die = Die(sides)

    def run(tray: DiceTray) -> Outcome:
        rolls = tray.roll_sum(die, [f"#{i}" for i in range(dice)])
        assert all(die.can_show(roll.face) for roll in rolls) and len(rolls) == dice
        total = sum(roll.face for roll in rolls)
        # A second roll after the sum, so the branches must carry on like any path.
        extra = tray.roll(D6, "after").face if total > cut else 0
        return Outcome.of("x", r=total % modulus, high=total > cut, extra=extra % 2)

    branched, every, paths, brute = _both(run)
    assert branched == every
    assert sum(branched.values()) == 1
    assert paths <= brute


@settings(max_examples=60, deadline=None)
@given(sides=st.integers(2, 12), groups=st.integers(1, 5), cut=st.integers(0, 12))
def test_grouped_and_unread_rolls_give_the_odds_of_every_face(
    sides: int, groups: int, cut: int
) -> None:
    die = Die(sides)

    def run(tray: DiceTray) -> Outcome:
        shown = tray.roll_unread(D10, "direction")
        assert D10.can_show(shown.face)
        first = tray.roll_grouped(die, "grouped", lambda face: face % groups)
        second = tray.roll_grouped(die, "again", lambda face: face > cut)
        return Outcome.of("x", a=first.face % groups, b=second.face > cut)

    branched, every, _, _ = _both(run)
    assert branched == every


def test_sum_counts_and_faces() -> None:
    assert sum_counts(6, 2) == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    assert sum(sum_counts(10, 4)) == 10**4 and len(sum_counts(10, 4)) == 37
    for total in range(4, 41):
        faces = faces_summing_to(total, 10, 4)
        assert sum(faces) == total and all(1 <= face <= 10 for face in faces)
    with pytest.raises(ValueError):
        faces_summing_to(41, 10, 4)


def test_play_rolls_and_records_every_die() -> None:
    tray = DiceTray(ScriptedDice([3, 5, 2, 7]))
    rolls = tray.roll_sum(D10, ["a", "b", "c"])
    assert [roll.face for roll in rolls] == [3, 5, 2]
    assert tray.roll_grouped(D10, "g", lambda face: face > 5).face == 7
    assert [roll.label for roll in tray.rolls] == ["a", "b", "c", "g"]


PROCEDURES = [
    ("w40k4", "deep_strike", {}),
    *[
        ("w40k4", "blast_scatter", {"template": t, "bs": bs, "barrage": b})
        for t in ("area", "artiglieria")
        for bs in (1, 4, 10)
        for b in (False, True)
    ],
    *[("linea_gotica", "scatter_distance", {"dice": n}) for n in (1, 2, 3)],
    # A weapon destroyed at random: the draw and its rerolls composed as one part.
    *[
        (
            "linea_gotica",
            "damage",
            {
                "spec": {"penetration": "cannone_40", "flank": True},
                "target": {"kind": kind, "weapons": n, "turret": n % 2 == 0},
            },
        )
        for kind in ("carro_armato", "blindato")
        for n in (2, 3, 4, 6)
    ],
    (
        "linea_gotica",
        "direct_fire",
        {
            "quality": "elite",
            "weapon": "cannone_77",
            "distance_cm": 5.0,
            "calibre_mm": 120,
            "target": {"kind": "carro_armato", "weapons": 5},
        },
    ),
]


@pytest.mark.parametrize(("ruleset", "name", "data"), PROCEDURES)
def test_procedures_odds_equal_every_face(ruleset: str, name: str, data: dict[str, Any]) -> None:
    procedure = get_ruleset(ruleset).procedure(name)
    parsed = procedure.parse_input(data)
    clear_odds_cache()
    branched = procedure.odds(parsed)
    every = enumerate_odds(
        lambda source: procedure.resolver(parsed, DiceTray(EveryFace(source))).outcome, 10**6
    )
    assert branched.exact and every.exact
    assert fractions(branched) == fractions(every)
    assert branched.paths <= every.paths
