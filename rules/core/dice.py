"""Dice: die types, recorded rolls, and the injectable sources they come from.

Procedures never call a random generator themselves: they ask a :class:`DiceTray`, which
draws from a :class:`DiceSource` and records every roll with its die and label. The default
source is the operating system's (``secrets.SystemRandom``); a :class:`ScriptedDice` replays
given faces for tests, replays and players who roll physical dice.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any, Protocol, cast

from rules.core.errors import DiceError, DiceNeeded

MAX_SCRIPTED_FACES = 200

#: A weighted distribution the odds engine branches on: (value, probability) pairs.
Branches = tuple[tuple[Any, Fraction], ...]


@dataclass(frozen=True, slots=True, order=True)
class Die:
    """A die with ``sides`` faces numbered 1..sides."""

    sides: int

    def __post_init__(self) -> None:
        if not 2 <= self.sides <= 100:
            raise ValueError(f"unsupported die with {self.sides} sides")

    @property
    def name(self) -> str:
        """The usual notation: D6, D8, D10, D12."""
        return f"D{self.sides}"

    def can_show(self, face: int) -> bool:
        """Whether ``face`` is printed on this die."""
        return 1 <= face <= self.sides

    def __str__(self) -> str:
        return self.name


D6 = Die(6)
D8 = Die(8)
D10 = Die(10)
D12 = Die(12)

_DIE_PATTERN = re.compile(r"^[dD](\d{1,3})$")


def parse_die(text: str) -> Die:
    """Parse ``"D8"`` (any case) into a :class:`Die`."""
    match = _DIE_PATTERN.match(text.strip())
    if match is None or not 2 <= int(match.group(1)) <= 100:
        raise DiceError("error.dice.bad_die", die=text[:20])
    return Die(int(match.group(1)))


@dataclass(frozen=True, slots=True)
class Roll:
    """One die rolled: its type, the face shown, and what it was for."""

    die: Die
    face: int
    label: str
    by_hand: bool = False
    side: str | None = None


class DiceSource(Protocol):
    """Anything that can produce the face of a die."""

    def face(self, die: Die, label: str) -> int:
        """Return a face of ``die`` for the roll described by ``label``."""
        ...

    @property
    def by_hand(self) -> bool:
        """Whether the faces were entered by a player rather than drawn by the bot."""
        ...


class SystemDice:
    """Fair dice from the operating system's entropy (``secrets.SystemRandom``)."""

    def __init__(self) -> None:
        self._rng = secrets.SystemRandom()

    def face(self, die: Die, label: str) -> int:
        """Draw a face uniformly from ``die``."""
        return self._rng.randint(1, die.sides)

    @property
    def by_hand(self) -> bool:
        """System dice are never entered by hand."""
        return False


class ScriptedDice:
    """Replays given faces in order, refusing any face its die cannot show.

    Used by tests, by replays of the event log, and for physical dice typed in by players
    (``by_hand=True``), which the front ends mark as such.
    """

    def __init__(self, faces: Iterable[int], *, by_hand: bool = False) -> None:
        self._faces = list(faces)
        if len(self._faces) > MAX_SCRIPTED_FACES:
            raise DiceError("error.dice.too_many", limit=MAX_SCRIPTED_FACES)
        self._next = 0
        self._by_hand = by_hand

    @property
    def by_hand(self) -> bool:
        """Whether these faces were typed by a player."""
        return self._by_hand

    @property
    def consumed(self) -> int:
        """How many faces have been used."""
        return self._next

    @property
    def remaining(self) -> Sequence[int]:
        """Faces not used yet."""
        return self._faces[self._next :]

    def face(self, die: Die, label: str) -> int:
        """The next scripted face, checked against ``die``."""
        if self._next >= len(self._faces):
            raise DiceNeeded(die.name, die.sides, label, len(self._faces), self)
        value = self._faces[self._next]
        if not die.can_show(value):
            raise DiceError(
                "error.dice.impossible_face",
                die=die.name,
                face=value,
                label=label,
                position=self._next + 1,
            )
        self._next += 1
        return value

    def ensure_consumed(self) -> None:
        """Raise if faces were given that the procedure did not use; a step that rolled no
        die at all says so ("uses 0" would read as if some were missing)."""
        if self._next == 0 and self._faces:
            raise DiceError("error.dice.none_rolled", given=len(self._faces))
        if self._next < len(self._faces):
            raise DiceError(
                "error.dice.unused", unused=len(self._faces) - self._next, used=self._next
            )


class ReplayingDice:
    """Replays the faces of an earlier run, then draws from ``fallback``; keeps every face.

    A command stopped to ask a player for one more die is run again from the start with
    one face more. The bot's own rolls in it (another side's rolls, see
    :meth:`DiceTray.rolled_by`) must show the same faces on the re-run, or the path could
    change under the player's dice: they are recorded on the first run and replayed.
    """

    def __init__(self, replay: Iterable[int], fallback: DiceSource) -> None:
        self._replay = list(replay)
        self._fallback = fallback
        self.faces: list[int] = []

    @property
    def by_hand(self) -> bool:
        """The bot's dice, replayed or fresh, are never typed by a player."""
        return False

    def face(self, die: Die, label: str) -> int:
        """The recorded face at this position if any (checked against ``die``), else a new one."""
        position = len(self.faces)
        if position < len(self._replay) and die.can_show(self._replay[position]):
            value = self._replay[position]
        else:
            # Past the recording (or a recording that no longer fits): the path moved on.
            del self._replay[position:]
            value = self._fallback.face(die, label)
        self.faces.append(value)
        return value


_FACES_SPLIT = re.compile(r"[\s,;]+")


def parse_faces(text: str, *, zero_reads_as_ten: bool = False) -> list[int]:
    """Parse faces typed by a player (``"4, 6 10"``) into integers.

    ``zero_reads_as_ten`` serves rulesets where a d10 shows 0 for ten.
    """
    cleaned = text.strip()
    if not cleaned:
        raise DiceError("error.dice.empty")
    if len(cleaned) > 4 * MAX_SCRIPTED_FACES:
        raise DiceError("error.dice.too_many", limit=MAX_SCRIPTED_FACES)
    faces: list[int] = []
    for token in _FACES_SPLIT.split(cleaned):
        if not token:
            continue
        if not token.isascii() or not token.isdigit() or len(token) > 3:
            raise DiceError("error.dice.not_a_number", token=token[:12])
        value = int(token)
        if value == 0 and zero_reads_as_ten:
            value = 10
        faces.append(value)
    if not faces:
        raise DiceError("error.dice.empty")
    if len(faces) > MAX_SCRIPTED_FACES:
        raise DiceError("error.dice.too_many", limit=MAX_SCRIPTED_FACES)
    return faces


@dataclass(slots=True)
class DiceTray:
    """Rolls dice from a source and records every roll in order.

    Dice belong to their roller: ``source`` serves the acting command's own rolls. A roll
    that belongs to another side (an opponent's saving throw, the other side's batteries'
    IT) is made inside :meth:`rolled_by`; when ``others`` is given (the bot's own dice, set
    when a player typed physical dice), such a roll is drawn from ``others`` instead of
    spending the player's typed faces.
    """

    source: DiceSource
    rolls: list[Roll] = field(default_factory=list)
    others: DiceSource | None = None
    actor_side: str | None = None
    owner: str | None = None
    #: Inside `rolled_unseen`: the rolls are the bot's whoever typed dice.
    unseen: bool = False

    @contextmanager
    def rolled_unseen(self, side: str) -> Iterator[None]:
        """Make the rolls inside this block on behalf of ``side``, with the bot's dice
        (``others``) even when ``side`` typed its own: a roll the enemy may not know of
        (a hidden unit's) must neither spend a typed face nor ask for one, since every seat
        reads a command's typed faces and what it still waits for."""
        previous = self.unseen
        self.unseen = True
        try:
            with self.rolled_by(side):
                yield
        finally:
            self.unseen = previous

    @contextmanager
    def rolled_by(self, side: str | None) -> Iterator[None]:
        """Make the rolls inside this block on behalf of ``side`` (None: the actor)."""
        previous = self.owner
        self.owner = side
        try:
            yield
        finally:
            self.owner = previous

    def _source_now(self) -> DiceSource:
        if self.others is not None and (
            self.unseen or (self.owner is not None and self.owner != self.actor_side)
        ):
            return self.others
        return self.source

    def roll(self, die: Die, label: str) -> Roll:
        """Roll ``die`` for ``label`` and record it."""
        source = self._source_now()
        owner = self.owner if self.owner is not None else self.actor_side
        result = Roll(die, source.face(die, label), label, source.by_hand, owner)
        self.rolls.append(result)
        return result

    def roll_against(self, die: Die, label: str, at_most: int) -> Roll:
        """Roll ``die`` for a check that passes on ``at_most`` or less: a roll like any other
        in play; for the odds, two weighted branches (pass, fail) instead of one per face.

        Only for a roll whose face matters to the rules through the check alone (it is
        shown, never used again): the odds then follow one representative face per side of
        the threshold, weighted by how many faces fall there.
        """
        branching = self._odds_branching()
        if branching is None:
            return self.roll(die, label)

        def build() -> Branches:
            passing = max(0, min(at_most, die.sides))
            branches: list[tuple[int, Fraction]] = []
            if passing:
                branches.append((passing, Fraction(passing, die.sides)))
            if passing < die.sides:
                branches.append((die.sides, Fraction(die.sides - passing, die.sides)))
            return tuple(branches)

        return self._record(die, int(branching(build)), label)

    def _odds_branching(self) -> Callable[[Callable[[], Branches]], Any] | None:
        """When the odds engine enumerates: a function branching on a weighted distribution
        (given by a builder, called only when the roll is new); in play, None."""
        source = self._source_now()
        if not getattr(source, "odds_paths", False):
            return None
        built = getattr(source, "choose_built", None)
        if built is not None:
            return cast("Callable[[Callable[[], Branches]], Any]", built)
        choose = getattr(source, "choose", None)
        if choose is None:
            return None
        return lambda build: choose(build())

    def _record(self, die: Die, face: int, label: str) -> Roll:
        owner = self.owner if self.owner is not None else self.actor_side
        result = Roll(die, face, label, False, owner)
        self.rolls.append(result)
        return result

    def roll_grouped(self, die: Die, label: str, group: Callable[[int], Hashable]) -> Roll:
        """Roll ``die`` whose face matters to the rules only through ``group(face)``.

        In play, a roll like any other. For the odds, one weighted branch per group (its
        lowest face stands for it) instead of one per face: a scatter die read only as
        "hit or arrow" is two branches. :meth:`roll_against` is the two-group case.
        """
        branching = self._odds_branching()
        if branching is None:
            return self.roll(die, label)

        def build() -> Branches:
            counts: dict[Hashable, list[int]] = {}
            for face in range(1, die.sides + 1):
                entry = counts.setdefault(group(face), [face, 0])
                entry[1] += 1
            return tuple((first, Fraction(count, die.sides)) for first, count in counts.values())

        return self._record(die, int(branching(build)), label)

    def roll_all_grouped(
        self,
        dice: Sequence[Die],
        labels: Sequence[str],
        group: Callable[[tuple[int, ...]], Hashable],
        owners: Sequence[str | None] | None = None,
    ) -> tuple[Roll, ...]:
        """Roll ``dice`` in order, whose faces matter only through ``group(faces)``.

        In play, each die is rolled in turn exactly as :meth:`roll` would (``owners``, when
        given, makes die ``i`` a roll of ``owners[i]`` as in :meth:`rolled_by`; None there
        keeps the current roller). For the odds, every combination of faces is counted once
        here, outside the resolver, and the resolver branches once per distinct group: a
        test (D6 + AD ≥ D10) over pass and fail. A group of the dice's sum alone is
        cheaper with :meth:`roll_sum_grouped`. The same contract as :meth:`roll_grouped`.
        """

        def branches() -> Branches:
            counts: dict[Hashable, int] = {}
            first: dict[Hashable, tuple[int, ...]] = {}
            for faces in product(*(range(1, die.sides + 1) for die in dice)):
                key = group(faces)
                if key in counts:
                    counts[key] += 1
                else:
                    counts[key] = 1
                    first[key] = faces
            return _weighted(first, counts, dice)

        return self._roll_branching(dice, labels, owners, branches)

    def roll_sum_grouped(
        self,
        dice: Sequence[Die],
        labels: Sequence[str],
        group: Callable[[int], Hashable],
        signs: Sequence[int] | None = None,
        owners: Sequence[str | None] | None = None,
    ) -> tuple[Roll, ...]:
        """Roll ``dice`` in order, whose faces matter only through ``group`` of their sum.

        The sum is signed by ``signs`` (+1 or −1 per die; all +1 by default). For the odds,
        the distribution of the sum is convolved die by die (a D10 + 2D8 is 3 small steps,
        not 640 combinations), then grouped; otherwise as :meth:`roll_all_grouped`: a
        scatter of D8 + D6 − AD cm branches once per distinct distance.
        """
        chosen_signs = tuple(signs) if signs is not None else (1,) * len(dice)
        if len(chosen_signs) != len(dice):
            raise ValueError("one sign per die")

        def branches() -> Branches:
            # sum -> (combinations reaching it, the first faces that do)
            sums: dict[int, tuple[int, tuple[int, ...]]] = {0: (1, ())}
            for die, sign in zip(dice, chosen_signs, strict=True):
                following: dict[int, tuple[int, tuple[int, ...]]] = {}
                for total, (count, faces) in sums.items():
                    for face in range(1, die.sides + 1):
                        reached = total + sign * face
                        known = following.get(reached)
                        if known is None:
                            following[reached] = (count, (*faces, face))
                        else:
                            following[reached] = (known[0] + count, known[1])
                sums = following
            counts: dict[Hashable, int] = {}
            first: dict[Hashable, tuple[int, ...]] = {}
            for total, (count, faces) in sorted(sums.items()):
                key = group(total)
                if key in counts:
                    counts[key] += count
                else:
                    counts[key] = count
                    first[key] = faces
            return _weighted(first, counts, dice)

        return self._roll_branching(dice, labels, owners, branches)

    def _roll_branching(
        self,
        dice: Sequence[Die],
        labels: Sequence[str],
        owners: Sequence[str | None] | None,
        branches: Callable[[], Branches],
    ) -> tuple[Roll, ...]:
        """Roll ``dice`` one by one in play; for the odds, take the faces of one branch."""
        if len(labels) != len(dice) or (owners is not None and len(owners) != len(dice)):
            raise ValueError("one label (and owner) per die")
        branching = self._odds_branching()
        if branching is None:
            rolls: list[Roll] = []
            for index, (die, label) in enumerate(zip(dice, labels, strict=True)):
                side = owners[index] if owners is not None else None
                if side is None:
                    rolls.append(self.roll(die, label))
                    continue
                with self.rolled_by(side):
                    rolls.append(self.roll(die, label))
            return tuple(rolls)
        shown = cast("tuple[int, ...]", branching(branches))
        result: list[Roll] = []
        for index, (die, label, face) in enumerate(zip(dice, labels, shown, strict=True)):
            side = owners[index] if owners is not None else None
            owner = side if side is not None else self.owner
            if owner is None:
                owner = self.actor_side
            result.append(Roll(die, face, label, False, owner))
        self.rolls.extend(result)
        return tuple(result)

    def roll_unread(self, die: Die, label: str) -> Roll:
        """Roll ``die`` whose face no outcome reads (a direction shown on the table).

        In play, a roll like any other; for the odds, one branch of certainty.
        """
        return self.roll_grouped(die, label, _same_group)

    def roll_sum(
        self, die: Die, labels: Sequence[str], read: Callable[[int], Hashable] | None = None
    ) -> tuple[Roll, ...]:
        """Roll one ``die`` per label, the rules reading only the dice's sum (and, given
        ``read``, the sum only through ``read(sum)``: a row of a table).

        In play each die is rolled and recorded. For the odds, one weighted branch per
        possible sum (its weight the number of face tuples giving it, by convolution) —
        or per reading of the sum, its lowest sum standing for it — instead of one per
        tuple of faces: 4d10 are 37 branches, not 10,000. The faces recorded on a branch
        are one tuple with that sum.
        """
        branching = self._odds_branching()
        if branching is None or (len(labels) < 2 and read is None):
            return tuple(self.roll(die, label) for label in labels)

        def build() -> Branches:
            total = die.sides ** len(labels)
            counts: dict[Hashable, list[int]] = {}
            for index, count in enumerate(sum_counts(die.sides, len(labels))):
                value = len(labels) + index
                entry = counts.setdefault(value if read is None else read(value), [value, 0])
                entry[1] += count
            return tuple((first, Fraction(count, total)) for first, count in counts.values())

        chosen = int(branching(build))
        owner = self.owner if self.owner is not None else self.actor_side
        faces = faces_summing_to(chosen, die.sides, len(labels))
        made = tuple(
            Roll(die, face, label, False, owner) for face, label in zip(faces, labels, strict=True)
        )
        self.rolls.extend(made)
        return made


def _weighted(
    first: dict[Hashable, tuple[int, ...]], counts: dict[Hashable, int], dice: Sequence[Die]
) -> Branches:
    """Each group's first faces, weighted by the share of every combination in the group."""
    combinations = 1
    for die in dice:
        combinations *= die.sides
    return tuple((first[key], Fraction(count, combinations)) for key, count in counts.items())


def _same_group(face: int) -> int:
    return 0


def sum_counts(sides: int, dice: int) -> list[int]:
    """How many tuples of ``dice`` faces of a ``sides``-sided die give each sum, lowest first.

    The sum of n dice runs from n to n·sides; a running window convolves one die at a time.
    """
    counts = [1]
    for _ in range(dice):
        following = [0] * (len(counts) + sides - 1)
        window = 0
        for index in range(len(following)):
            if index < len(counts):
                window += counts[index]
            if index >= sides:
                window -= counts[index - sides]
            following[index] = window
        counts = following
    return counts


def faces_summing_to(total: int, sides: int, dice: int) -> list[int]:
    """One tuple of ``dice`` faces (1..sides) summing to ``total`` (highest faces first)."""
    if not dice <= total <= dice * sides:
        raise ValueError(f"{dice} dice of {sides} sides cannot sum to {total}")
    faces = [1] * dice
    rest = total - dice
    for index in range(dice):
        step = min(rest, sides - 1)
        faces[index] += step
        rest -= step
    return faces
