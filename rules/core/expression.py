"""Free dice rolls (``/roll 2d6+1``, ``4d6kh3``, ``d%``): parse, roll, and the exact odds.

The grammar is small and every input is bounded, so no expression can make the bot work for
long: at most :data:`MAX_TERMS` terms, :data:`MAX_DICE` dice in all, dice of 2 to 100 sides,
modifiers up to ±10,000. A parsed :class:`DiceExpression` rolls through the same
:class:`~rules.core.dice.DiceTray` as the rules (so typed physical dice work too) into a
:class:`RollResult` that front ends render; the distribution of the total is exact.

    expression := term (("+" | "-") term)*
    term       := integer | [count] "d" (sides | "%") [("kh" | "kl" | "k") keep]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from rules.core.dice import DiceTray, Die, Roll
from rules.core.errors import InvalidInput

MAX_LENGTH = 80
MAX_TERMS = 10
MAX_DICE = 100
MAX_MODIFIER = 10_000
# Steps the exact odds of one /roll may take (about 0.1 s): beyond, the roll shows no odds.
MAX_ODDS_WORK = 400_000

_TOKEN = re.compile(r"\s*([+-])?\s*(?:(\d{0,3})d(\d{1,3}|%)(?:(kh|kl|k)(\d{1,3}))?|(\d{1,5}))\s*")


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``count`` dice of ``sides``, keeping the ``keep`` highest (or lowest), with a sign."""

    sign: int
    count: int
    sides: int
    keep: int | None = None
    keep_lowest: bool = False

    @property
    def notation(self) -> str:
        """The term as written canonically: ``4d6kh3``."""
        keep = "" if self.keep is None else ("kl" if self.keep_lowest else "kh") + str(self.keep)
        return f"{self.count}d{self.sides}{keep}"


@dataclass(frozen=True, slots=True)
class DiceExpression:
    """A parsed roll: dice terms and a flat modifier."""

    terms: tuple[DiceTerm, ...]
    modifier: int

    @property
    def notation(self) -> str:
        """The canonical notation: ``2d6+1``."""
        parts = []
        for index, term in enumerate(self.terms):
            sign = "-" if term.sign < 0 else ("+" if index else "")
            parts.append(sign + term.notation)
        if self.modifier:
            parts.append(f"{self.modifier:+d}")
        return "".join(parts) or "0"

    def roll(self, tray: DiceTray) -> RollResult:
        """Roll every die through ``tray`` and add up."""
        rolled = []
        total = self.modifier
        for term in self.terms:
            die = Die(term.sides)
            faces = tuple(tray.roll(die, term.notation) for _ in range(term.count))
            kept = _kept(term, [roll.face for roll in faces])
            subtotal = sum(
                face for face, keep in zip((r.face for r in faces), kept, strict=True) if keep
            )
            total += term.sign * subtotal
            rolled.append(RolledTerm(term, faces, kept, term.sign * subtotal))
        return RollResult(self, tuple(rolled), total)

    def distribution(self) -> dict[int, Fraction] | None:
        """The exact distribution of the total, or None when it would cost too much.

        Sums are integer convolutions; keep-highest/lowest walks the kept faces. The work is
        estimated first and capped (:data:`MAX_ODDS_WORK`), so ``/roll 100d100`` answers at
        once, without odds.
        """
        if sum(_work(term) for term in self.terms) > MAX_ODDS_WORK:
            return None
        counts: dict[int, int] = {self.modifier: 1}
        denominator = 1
        for term in self.terms:
            term_counts = _term_counts(term)
            counts = _convolve(counts, term_counts)
            denominator *= term.sides**term.count
        return {value: Fraction(count, denominator) for value, count in counts.items()}


@dataclass(frozen=True, slots=True)
class RolledTerm:
    """One term as rolled: its dice, which were kept, and its signed subtotal."""

    term: DiceTerm
    rolls: tuple[Roll, ...]
    kept: tuple[bool, ...]
    subtotal: int


@dataclass(frozen=True, slots=True)
class RollResult:
    """A rolled expression: every die, the total, and the chance of doing at least as well."""

    expression: DiceExpression
    terms: tuple[RolledTerm, ...]
    total: int

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every die rolled, in order."""
        return tuple(roll for term in self.terms for roll in term.rolls)

    def at_least(self) -> Fraction | None:
        """P(total ≥ this total): how lucky the roll was (None when not computed)."""
        distribution = self.expression.distribution()
        if distribution is None:
            return None
        return sum((p for value, p in distribution.items() if value >= self.total), Fraction(0))


def parse_expression(text: str) -> DiceExpression:
    """Parse ``2d6+1``; a clear, localized error for anything else."""
    cleaned = text.strip().lower().replace(" ", "")
    if not cleaned or len(cleaned) > MAX_LENGTH:
        raise InvalidInput("error.roll.syntax", text=text[:40], limit=MAX_LENGTH)
    terms: list[DiceTerm] = []
    modifier = 0
    position = 0
    dice = 0
    count_terms = 0
    while position < len(cleaned):
        match = _TOKEN.match(cleaned, position)
        if match is None or match.end() == position or (count_terms and not match.group(1)):
            raise InvalidInput("error.roll.syntax", text=text[:40], limit=MAX_LENGTH)
        position = match.end()
        count_terms += 1
        if count_terms > MAX_TERMS:
            raise InvalidInput("error.roll.too_many_terms", limit=MAX_TERMS)
        sign = -1 if match.group(1) == "-" else 1
        if match.group(6) is not None:
            modifier += sign * int(match.group(6))
            if abs(modifier) > MAX_MODIFIER:
                raise InvalidInput("error.roll.modifier", limit=MAX_MODIFIER)
            continue
        count = int(match.group(2) or 1)
        sides = 100 if match.group(3) == "%" else int(match.group(3))
        if not 2 <= sides <= 100:
            raise InvalidInput("error.roll.sides", sides=sides)
        if count < 1:
            raise InvalidInput("error.roll.syntax", text=text[:40], limit=MAX_LENGTH)
        dice += count
        if dice > MAX_DICE:
            raise InvalidInput("error.roll.too_many_dice", limit=MAX_DICE)
        keep = int(match.group(5)) if match.group(4) else None
        if keep is not None and not 1 <= keep <= count:
            raise InvalidInput("error.roll.keep", keep=keep, count=count)
        terms.append(DiceTerm(sign, count, sides, keep, match.group(4) == "kl"))
    return DiceExpression(tuple(terms), modifier)


def _kept(term: DiceTerm, faces: list[int]) -> tuple[bool, ...]:
    if term.keep is None:
        return (True,) * len(faces)
    order = sorted(range(len(faces)), key=lambda i: (faces[i], i), reverse=not term.keep_lowest)
    chosen = set(order[: term.keep])
    return tuple(index in chosen for index in range(len(faces)))


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def _work(term: DiceTerm) -> int:
    """About how many steps the exact distribution of a term costs."""
    if term.keep is None or term.keep == term.count:
        return term.count * term.count * term.sides * term.sides // 2
    states = comb(term.sides + term.keep - 1, term.keep)
    return term.count * states * term.sides


def _term_counts(term: DiceTerm) -> dict[int, int]:
    """Outcome → number of the ``sides ** count`` equally likely rolls giving it."""
    one = dict.fromkeys(range(1, term.sides + 1), 1)
    if term.keep is None or term.keep == term.count:
        total: dict[int, int] = {0: 1}
        for _ in range(term.count):
            total = _convolve(total, one)
    else:
        total = _kept_counts(term)
    return {term.sign * value: count for value, count in total.items()}


def _kept_counts(term: DiceTerm) -> dict[int, int]:
    """Keep-highest/lowest: a walk over the sorted kept faces (state: the kept multiset).

    Each die in turn updates the best ``keep`` faces so far; only the kept faces matter,
    so the states stay few for the usual rolls (4d6kh3: 56 states).
    """
    states: dict[tuple[int, ...], int] = {(): 1}
    for _ in range(term.count):
        following: dict[tuple[int, ...], int] = {}
        for kept, count in states.items():
            for face in range(1, term.sides + 1):
                key = tuple(sorted((*kept, face), reverse=not term.keep_lowest)[: term.keep])
                following[key] = following.get(key, 0) + count
        states = following
    totals: dict[int, int] = {}
    for kept, count in states.items():
        totals[sum(kept)] = totals.get(sum(kept), 0) + count
    return totals


def render_roll(result: RollResult, language: str) -> str:
    """``2d6+1 → 9`` with each die (dropped ones struck through) and the chance of as much."""
    from rules.core.i18n import translate

    parts = []
    for rolled in result.terms:
        faces = ", ".join(
            str(roll.face) if keep else f"~~{roll.face}~~"
            for roll, keep in zip(rolled.rolls, rolled.kept, strict=True)
        )
        parts.append(f"{rolled.term.notation} [{faces}] = {rolled.subtotal}")
    if result.expression.modifier:
        parts.append(f"{result.expression.modifier:+d}")
    head = translate(
        "render.roll", language, notation=result.expression.notation, total=result.total
    )
    lines = [head, " · ".join(parts)]
    chance = result.at_least()
    if chance is not None:
        percent = f"{float(chance) * 100:.1f} %"
        lines.append(translate("render.roll_odds", language, total=result.total, chance=percent))
    return "\n".join(lines)
