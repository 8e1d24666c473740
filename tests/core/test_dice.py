"""Dice: scripted faces, parsing typed faces, recording every roll, the system source."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.dice import (
    D6,
    D8,
    D10,
    D12,
    MAX_SCRIPTED_FACES,
    DiceTray,
    Die,
    ReplayingDice,
    ScriptedDice,
    SystemDice,
    parse_die,
    parse_faces,
)
from rules.core.errors import DiceError, DiceNeeded, RulesError


def dice_error(function: Any, *args: Any) -> DiceError:
    """The DiceError ``function(*args)`` raises."""
    with pytest.raises(DiceError) as caught:
        function(*args)
    return caught.value


# -- ScriptedDice ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "face"),
    [(D8, 9), (D8, 0), (D6, 7), (D6, 0), (D10, 11), (D12, 13), (D12, -1), (D10, 0)],
)
def test_scripted_dice_refuse_a_face_the_die_cannot_show(die: Die, face: int):
    dice = ScriptedDice([face])
    with pytest.raises(DiceError) as caught:
        dice.face(die, "to hit")
    error = caught.value
    assert error.key == "error.dice.impossible_face"
    assert error.params["die"] == die.name
    assert error.params["face"] == face
    assert error.params["position"] == 1
    for language in ("it", "en", "fr"):
        message = error.localized(language)
        assert die.name in message, (language, message)
        assert str(face) in message, (language, message)
        assert "to hit" in message
        assert "{" not in message, message
    # the Italian text is the exception's own message
    assert str(error) == error.localized("it")
    # the refused face is not consumed
    assert dice.consumed == 0
    assert list(dice.remaining) == [face]


def test_impossible_face_messages_differ_by_language():
    error = dice_error(ScriptedDice([9]).face, D8, "CT")
    texts = {language: error.localized(language) for language in ("it", "en", "fr")}
    assert len(set(texts.values())) == 3
    assert "non può" in texts["it"]
    assert "cannot" in texts["en"]
    assert "ne peut pas" in texts["fr"]


def test_impossible_face_reports_its_position_in_the_script():
    dice = ScriptedDice([3, 5, 9])
    assert dice.face(D6, "a") == 3
    assert dice.face(D8, "b") == 5
    error = dice_error(dice.face, D8, "c")
    assert error.params["position"] == 3
    assert "3" in error.localized("en")


@pytest.mark.parametrize("die", [D6, D8, D10, D12])
def test_every_face_of_a_die_is_accepted(die: Die):
    faces = list(range(1, die.sides + 1))
    dice = ScriptedDice(faces)
    assert [dice.face(die, "x") for _ in faces] == faces
    dice.ensure_consumed()


def test_exhausted_script():
    dice = ScriptedDice([4])
    assert dice.face(D6, "first") == 4
    error = dice_error(dice.face, D10, "second")
    assert error.key == "error.dice.exhausted"
    assert error.params == {"die": "D10", "label": "second", "given": 1}
    for language in ("it", "en", "fr"):
        assert "D10" in error.localized(language)


def test_empty_script_is_exhausted_at_once():
    error = dice_error(ScriptedDice([]).face, D6, "x")
    assert error.key == "error.dice.exhausted"
    assert error.params["given"] == 0


def test_ensure_consumed_with_leftovers():
    dice = ScriptedDice([1, 2, 3])
    dice.face(D6, "one")
    error = dice_error(dice.ensure_consumed)
    assert error.key == "error.dice.unused"
    assert error.params == {"unused": 2, "used": 1}
    assert list(dice.remaining) == [2, 3]


def test_dice_given_to_a_step_that_rolls_none_are_refused_as_such():
    """'1 die too many: the procedure uses 0' read as if dice were missing somewhere."""
    error = dice_error(ScriptedDice([3, 4]).ensure_consumed)
    assert error.key == "error.dice.none_rolled"
    assert error.params == {"given": 2}
    assert "rolls no dice" in error.localized("en")


def test_ensure_consumed_when_all_used():
    dice = ScriptedDice([2, 8])
    dice.face(D6, "a")
    dice.face(D8, "b")
    dice.ensure_consumed()
    assert dice.consumed == 2
    assert list(dice.remaining) == []


def test_too_many_scripted_faces():
    ScriptedDice([1] * MAX_SCRIPTED_FACES)
    error = dice_error(ScriptedDice, [1] * (MAX_SCRIPTED_FACES + 1))
    assert error.key == "error.dice.too_many"
    assert error.params["limit"] == MAX_SCRIPTED_FACES


def test_by_hand_flag_reaches_the_recorded_rolls():
    tray = DiceTray(ScriptedDice([5], by_hand=True))
    assert tray.roll(D6, "typed").by_hand is True
    tray = DiceTray(ScriptedDice([5]))
    assert tray.roll(D6, "scripted").by_hand is False
    assert SystemDice().by_hand is False


# -- parse_faces -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces"),
    [
        ("4", [4]),
        ("4 6 10", [4, 6, 10]),
        ("4,6,10", [4, 6, 10]),
        ("4, 6 ,10", [4, 6, 10]),
        ("  4;6\t10\n2 ", [4, 6, 10, 2]),
        ("4,,6", [4, 6]),
        ("12 1", [12, 1]),
    ],
)
def test_parse_faces_separators(text: str, faces: list[int]):
    assert parse_faces(text) == faces


def test_zero_reads_as_ten_only_when_asked():
    assert parse_faces("0 3", zero_reads_as_ten=True) == [10, 3]
    assert parse_faces("10 3", zero_reads_as_ten=True) == [10, 3]
    # without the option a 0 stays 0 ... and no die can show it
    assert parse_faces("0 3") == [0, 3]
    with pytest.raises(DiceError) as caught:
        ScriptedDice(parse_faces("0")).face(D10, "x")
    assert caught.value.key == "error.dice.impossible_face"
    # with it, the 0 of a d10 is a legal ten
    assert ScriptedDice(parse_faces("0", zero_reads_as_ten=True)).face(D10, "x") == 10


@pytest.mark.parametrize("token", ["x", "4a", "-1", "1.5", "D6", "٣", "１", "1000", "+3", "½"])
def test_parse_faces_rejects_junk(token: str):
    error = dice_error(parse_faces, f"2 {token} 3")
    assert error.key == "error.dice.not_a_number"
    assert error.params["token"] == token[:12]
    for language in ("it", "en", "fr"):
        assert token[:12] in error.localized(language)


def test_parse_faces_truncates_a_long_junk_token_in_its_message():
    error = dice_error(parse_faces, "abcdefghijklmnopqrstuvwxyz")
    assert error.params["token"] == "abcdefghijkl"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_parse_faces_empty(text: str):
    error = dice_error(parse_faces, text)
    assert error.key == "error.dice.empty"


@pytest.mark.parametrize("text", [",", " , ; ", ",,,"])
def test_parse_faces_only_separators_is_empty(text: str):
    error = dice_error(parse_faces, text)
    assert error.key == "error.dice.empty"


def test_parse_faces_too_many():
    assert len(parse_faces(" ".join(["1"] * MAX_SCRIPTED_FACES))) == MAX_SCRIPTED_FACES
    error = dice_error(parse_faces, " ".join(["1"] * (MAX_SCRIPTED_FACES + 1)))
    assert error.key == "error.dice.too_many"
    # a very long text is refused before it is split
    error = dice_error(parse_faces, "1" + " " * 5000 + "2")
    assert error.key == "error.dice.too_many"


# -- parse_die ---------------------------------------------------------------------------


def test_parse_die():
    assert parse_die("D8") == D8
    assert parse_die(" d12 ") == D12
    for bad in ("8", "D1", "D101", "DX", "2D6", ""):
        error = dice_error(parse_die, bad)
        assert error.key == "error.dice.bad_die"


def test_die_names_and_faces():
    assert [die.name for die in (D6, D8, D10, D12)] == ["D6", "D8", "D10", "D12"]
    assert str(D10) == "D10"
    assert D8.can_show(8) and not D8.can_show(9) and not D8.can_show(0)
    with pytest.raises(ValueError):
        Die(1)


# -- DiceTray ----------------------------------------------------------------------------


def test_tray_records_every_roll_in_order():
    tray = DiceTray(ScriptedDice([3, 7, 10, 12, 1]))
    plan = [(D6, "CT — D6"), (D8, "CT — D8"), (D10, "to hit"), (D12, "breve"), (D6, "mine")]
    rolls = [tray.roll(die, label) for die, label in plan]
    assert [(r.die, r.face, r.label) for r in tray.rolls] == [
        (D6, 3, "CT — D6"),
        (D8, 7, "CT — D8"),
        (D10, 10, "to hit"),
        (D12, 12, "breve"),
        (D6, 1, "mine"),
    ]
    assert rolls == tray.rolls


def test_tray_records_nothing_for_a_refused_face():
    tray = DiceTray(ScriptedDice([2, 9]))
    tray.roll(D6, "ok")
    with pytest.raises(DiceError):
        tray.roll(D8, "bad")
    assert [(r.die, r.face) for r in tray.rolls] == [(D6, 2)]


# -- SystemDice --------------------------------------------------------------------------


def test_system_dice_use_the_operating_system_generator():
    dice = SystemDice()
    assert type(dice._rng) is secrets.SystemRandom


@pytest.mark.parametrize("die", [D6, D8, D10, D12, Die(2), Die(100)])
def test_system_dice_faces_stay_on_the_die(die: Die):
    dice = SystemDice()
    faces = [dice.face(die, "x") for _ in range(4000)]
    assert min(faces) >= 1
    assert max(faces) <= die.sides
    if die.sides <= 12:
        # 4000 draws: every face shows up (P(miss) < 12 · (11/12)^4000, negligible)
        assert set(faces) == set(range(1, die.sides + 1))


# -- property: scripted dice never fail in an unexpected way -------------------------------


@settings(max_examples=300, deadline=None)
@given(
    faces=st.lists(st.integers(min_value=-(10**6), max_value=10**6), max_size=250),
    dice=st.lists(st.sampled_from([D6, D8, D10, D12]), max_size=20),
)
def test_any_faces_script_fine_or_raise_dice_error(faces: list[int], dice: list[Die]):
    try:
        source = ScriptedDice(faces)
        tray = DiceTray(source)
        for index, die in enumerate(dice):
            roll = tray.roll(die, f"#{index}")
            assert roll.face == faces[index]
            assert 1 <= roll.face <= die.sides
        source.ensure_consumed()
    except DiceError as error:
        assert isinstance(error, RulesError)
        for language in ("it", "en", "fr"):
            assert error.localized(language)
        return
    assert len(faces) == len(dice)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_typed_text_parses_or_raises_dice_error(text: str):
    for zero in (False, True):
        try:
            faces = parse_faces(text, zero_reads_as_ten=zero)
        except DiceError:
            continue
        assert all(isinstance(face, int) and 0 <= face <= 999 for face in faces)
        if zero:
            assert 0 not in faces


def test_running_out_says_which_die_is_needed_and_whose_dice_ran_out():
    typed = ScriptedDice([7], by_hand=True)
    typed.face(D12, "to hit")
    error = dice_error(typed.face, D10, "effects")
    assert isinstance(error, DiceNeeded)
    assert (error.die_name, error.sides, error.label, error.given) == ("D10", 10, "effects", 1)
    assert error.source is typed


def test_recorded_dice_replay_the_first_run_then_draw_fresh():
    first = ReplayingDice([], ScriptedDice([2, 5]))
    assert [first.face(D6, "save"), first.face(D8, "scatter")] == [2, 5]
    assert first.faces == [2, 5] and not first.by_hand
    # The re-run replays them without drawing, then draws for what follows.
    again = ReplayingDice(first.faces, ScriptedDice([3]))
    assert [again.face(D6, "save"), again.face(D8, "scatter"), again.face(D6, "more")] == [2, 5, 3]
    assert again.faces == [2, 5, 3]
    # A recorded face the die asked for cannot show means the path changed: draw anew.
    moved = ReplayingDice([8, 1], ScriptedDice([4, 6]))
    assert [moved.face(D6, "save"), moved.face(D6, "next")] == [4, 6]


def test_a_roll_for_another_side_comes_from_the_others_dice():
    typed = ScriptedDice([5, 6], by_hand=True)
    bot = ReplayingDice([], ScriptedDice([2]))
    tray = DiceTray(typed, others=bot, actor_side="rossi")
    tray.roll(D6, "to hit")
    with tray.rolled_by("blu"):
        tray.roll(D6, "save")
    tray.roll(D6, "damage")
    assert [(r.label, r.face, r.by_hand, r.side) for r in tray.rolls] == [
        ("to hit", 5, True, "rossi"),
        ("save", 2, False, "blu"),
        ("damage", 6, True, "rossi"),
    ]
