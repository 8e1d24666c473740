"""Physical dice, roll by roll: what the service needs to ask a player for one more die.

A player who rolls real dice cannot know in advance how many a command needs (a
penetration roll only follows a hit). When the faces typed with a command run out, the
service does not refuse: it keeps the command (a ``dice_prompt`` record of the game, so the
prompt survives a restart), answers with a :class:`DicePrompt`, and once the roller gives
the next face it runs the command again from the start with the faces so far plus the new
one. Procedures are deterministic given their dice, and the bot's own rolls of the first
run are replayed (:class:`rules.core.dice.ReplayingDice`), so the re-run follows the same
path and goes one die further.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.core.dice import Die, ReplayingDice, SystemDice, parse_faces
from rules.core.errors import DiceError, RulesError
from rules.core.i18n import translate
from rules.core.seatview import Seat
from rules.core.surface import Rules

#: Typed instead of faces: "I roll physical dice, ask me for each one".
ASK_EACH_DIE = frozenset({"?"})


@dataclass(frozen=True, slots=True)
class DicePrompt:
    """A die the roller owes before the command can be resolved (nothing is committed).

    ``prompt_id`` names the waiting command in the store; ``faces`` are the faces given so
    far, so the die asked is the roller's die number ``len(faces) + 1``.
    """

    prompt_id: int
    user_id: int
    side: str | None
    verb: str
    sides: int
    label: str
    faces: tuple[int, ...]

    @property
    def die(self) -> Die:
        """The die to roll."""
        return Die(self.sides)

    @property
    def position(self) -> int:
        """Which of the roller's dice this is (1 for the first)."""
        return len(self.faces) + 1


def dice_prompt_text(prompt: DicePrompt, language: str, roller: str) -> str:
    """``anna, roll a D6 for 'penetration' (1-6):`` and the faces given so far, if any."""
    text = translate(
        "bot.dice.prompt",
        language,
        roller=roller,
        die=prompt.die.name,
        label=prompt.label,
        low=1,
        high=prompt.sides,
    )
    if prompt.faces:
        so_far = translate(
            "bot.dice.so_far", language, faces=", ".join(str(face) for face in prompt.faces)
        )
        text = f"({so_far}) {text}"
    return text


def typed_faces(text: str, *, zero_reads_as_ten: bool) -> list[int]:
    """The faces a player typed with a command; ``?`` alone means none yet (ask each die)."""
    if text.strip() in ASK_EACH_DIE:
        return []
    return parse_faces(text, zero_reads_as_ten=zero_reads_as_ten)


def answered_face(
    text: str, sides: int, label: str, position: int, *, zero_reads_as_ten: bool
) -> int:
    """The face a roller gives for a prompt, checked against the die asked."""
    faces = parse_faces(str(text), zero_reads_as_ten=zero_reads_as_ten)
    if len(faces) != 1:
        raise DiceError("error.service.one_face", die=Die(sides).name)
    if not Die(sides).can_show(faces[0]):
        raise DiceError(
            "error.dice.impossible_face",
            die=Die(sides).name,
            face=faces[0],
            label=label,
            position=position,
        )
    return faces[0]


class _PaddedDice:
    """The typed faces, then the lowest (or highest) face of every further die: a probe."""

    def __init__(self, faces: Sequence[int], *, high: bool) -> None:
        self._faces = list(faces)
        self._high = high

    @property
    def by_hand(self) -> bool:
        return True

    def face(self, die: Die, label: str) -> int:
        if self._faces:
            value = self._faces.pop(0)
            if die.can_show(value):
                return value
        return die.sides if self._high else 1


def refusal_whatever_the_dice(
    rules: Rules,
    document: Mapping[str, Any],
    verb: str,
    options: Mapping[str, Any],
    seat: Seat,
    faces: Sequence[int],
    bot_faces: Sequence[int],
) -> RulesError | None:
    """The rules' refusal of a command that stopped for a die, if the dice cannot avoid it.

    Refusals name the real reason: a command the rules refuse anyway must not first ask
    the player for dice. The command is run twice more (nothing is kept), its missing
    dice all showing their lowest face, then all their highest; when both runs are
    refused for the same reason that is not about dice, that reason is the answer.
    """
    refusals: list[RulesError] = []
    for high in (False, True):
        try:
            rules.act(
                document,
                seat,
                verb,
                options,
                _PaddedDice(faces, high=high),
                ReplayingDice(bot_faces, SystemDice()),
            )
        except DiceError:
            return None
        except RulesError as error:
            refusals.append(error)
            continue
        return None
    low, high_refusal = refusals
    if (low.key, dict(low.params)) == (high_refusal.key, dict(high_refusal.params)):
        return low
    return None


__all__ = [
    "ASK_EACH_DIE",
    "DicePrompt",
    "answered_face",
    "dice_prompt_text",
    "refusal_whatever_the_dice",
    "typed_faces",
]
