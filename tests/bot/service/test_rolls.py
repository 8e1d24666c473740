"""Reading the faces a roller gives: typed with a command, or one at a time for a prompt."""

from __future__ import annotations

import pytest

from bot.service.rolls import DicePrompt, answered_face, dice_prompt_text, typed_faces
from rules.core.errors import DiceError


def test_a_question_mark_asks_for_every_die():
    assert typed_faces(" ? ", zero_reads_as_ten=False) == []
    assert typed_faces("4, 0", zero_reads_as_ten=True) == [4, 10]
    with pytest.raises(DiceError):
        typed_faces("??", zero_reads_as_ten=False)


def test_an_answer_is_one_face_the_die_can_show():
    assert answered_face("7", 12, "penetration", 2, zero_reads_as_ten=False) == 7
    assert answered_face("0", 10, "IT", 1, zero_reads_as_ten=True) == 10  # linea_gotica's d10
    with pytest.raises(DiceError) as caught:
        answered_face("0", 10, "IT", 1, zero_reads_as_ten=False)
    assert caught.value.key == "error.dice.impossible_face"
    with pytest.raises(DiceError) as caught:
        answered_face("7", 6, "save", 3, zero_reads_as_ten=False)
    assert caught.value.params == {"die": "D6", "face": 7, "label": "save", "position": 3}
    with pytest.raises(DiceError) as caught:
        answered_face("3 4", 6, "save", 1, zero_reads_as_ten=False)
    assert caught.value.key == "error.service.one_face"
    with pytest.raises(DiceError):
        answered_face("six", 6, "save", 1, zero_reads_as_ten=False)


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_the_prompt_says_who_rolls_which_die_for_what(language):
    first = DicePrompt(1, 2, "alleati", "fire", 6, "penetrazione", ())
    text = dice_prompt_text(first, language, "@anna")
    assert "@anna" in text and "D6" in text and "penetrazione" in text and "1-6" in text
    later = DicePrompt(1, 2, "alleati", "fire", 10, "effetti", (7, 12))
    assert later.position == 3 and "7, 12" in dice_prompt_text(later, language, "@anna")
