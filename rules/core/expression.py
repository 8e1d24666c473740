"""Free dice rolls (``/roll 2d6+1``, ``4d6kh3``, ``d%``): parse, roll, and the exact odds.

The grammar is small and every input is bounded, so no expression can make the bot work for
long: at most :data:`MAX_TERMS` terms, :data:`MAX_DICE` dice in all, dice of 2 to 100 sides,
modifiers up to ±10,000. A parsed :class:`DiceExpression` rolls through the same
:class:`~rules.core.dice.DiceTray` as the rules (so typed physical dice work too) into a
:class:`RollResult`; :func:`roll_with_odds` adds the exact chance of rolling at least as much,
computed once (the bot does it on its rules thread) and only read by the renderers. The odds
of an expression whose exact distribution would cost more than :data:`MAX_ODDS_WORK` steps
(:func:`odds_work`: every convolution, within and between terms, and the kept-dice walk
with its sorting) are not computed at all: the roll says so instead.

    expression := term (("+" | "-") term)*
    term       := integer | [count] "d" (sides | "%") [("kh" | "kl" | "k") keep]
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb

from rules.core.dice import DiceTray, Die, Roll
from rules.core.errors import InvalidInput
from rules.core.i18n import percent, translate
from rules.core.odds import current_odds_budget

MAX_LENGTH = 80
MAX_TERMS = 10
MAX_DICE = 100
MAX_MODIFIER = 10_000
# Steps the exact odds of one /roll may take (under 0.1 s; `odds_work`): beyond, the roll
# shows no odds. A step is one dictionary update of a convolution or of the kept-dice walk
# (measured: 40-100 ns each).
MAX_ODDS_WORK = 1_000_000

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
        estimated first (:func:`odds_work`) and capped (:data:`MAX_ODDS_WORK`), so ``/roll
        100d100`` or ``99d3kh50`` answers at once, without odds.
        """
        counts = self._counts()
        if counts is None:
            return None
        denominator = self.outcomes()
        return {value: Fraction(count, denominator) for value, count in counts.items()}

    def outcomes(self) -> int:
        """How many equally likely rolls there are: the product of every die's sides."""
        total = 1
        for term in self.terms:
            total *= term.sides**term.count
        return total

    def chance_at_least(self, total: int) -> Fraction | None:
        """P(total ≥ ``total``), exact, or None when the odds would cost too much."""
        counts = self._counts()
        if counts is None:
            return None
        favourable = sum(count for value, count in counts.items() if value >= total)
        return Fraction(favourable, self.outcomes())

    def _counts(self) -> dict[int, int] | None:
        """Total → how many of the equally likely rolls give it (None: too costly)."""
        if odds_work(self) > MAX_ODDS_WORK:
            return None
        # A safety net behind the estimate: past the caller's odds budget, give up.
        budget = current_odds_budget()
        deadline = None if budget is None else time.perf_counter() + budget
        counts: dict[int, int] = {self.modifier: 1}
        for term in self.terms:
            term_counts = _term_counts(term, deadline)
            if term_counts is None:
                return None
            counts = _convolve(counts, term_counts)
        return counts


@dataclass(frozen=True, slots=True)
class RolledTerm:
    """One term as rolled: its dice, which were kept, and its signed subtotal."""

    term: DiceTerm
    rolls: tuple[Roll, ...]
    kept: tuple[bool, ...]
    subtotal: int


@dataclass(frozen=True, slots=True)
class RollResult:
    """A rolled expression: every die, the total, and the chance of doing at least as well.

    ``chance`` is P(total ≥ this total) once computed (:func:`roll_with_odds`);
    ``odds_skipped`` says the odds were not computed because they would cost too much.
    Renderers read both and compute nothing.
    """

    expression: DiceExpression
    terms: tuple[RolledTerm, ...]
    total: int
    chance: Fraction | None = None
    odds_skipped: bool = False

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every die rolled, in order."""
        return tuple(roll for term in self.terms for roll in term.rolls)

    def at_least(self) -> Fraction | None:
        """P(total ≥ this total): how lucky the roll was (None when too costly).

        Computes it (use :func:`roll_with_odds` to compute it once and keep it)."""
        return self.expression.chance_at_least(self.total)

    def with_odds(self) -> RollResult:
        """The same roll carrying its chance (or the mark that it was too costly)."""
        chance = self.at_least()
        return replace(self, chance=chance, odds_skipped=chance is None)


def roll_with_odds(text: str, tray: DiceTray) -> RollResult:
    """Parse ``text``, roll it through ``tray`` and compute its odds: the whole of a
    ``/roll``, in one call (for the bot's rules thread)."""
    return parse_expression(text).roll(tray).with_odds()


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


def _span(term: DiceTerm) -> int:
    """How many distinct totals a term can give."""
    kept = term.count if term.keep is None else term.keep
    return kept * (term.sides - 1) + 1


#: What one step of the kept-dice walk costs, in steps of a plain convolution.
_KEPT_STEP = 4


def _term_work(term: DiceTerm) -> int:
    """The steps of a term's own distribution, as `_term_counts` computes it."""
    count, sides = term.count, term.sides
    if term.keep is None or term.keep == count:
        # One die at a time: the running sum of i dice has i·(sides-1)+1 values.
        return sum((i * (sides - 1) + 1) * sides for i in range(count))
    # The kept walk (`_kept_counts`), face by face: after j faces, the states with u dice
    # placed have min(u, keep) kept faces out of j values (at most min(u, keep)·(j-1)+1
    # sums); each state tries every number of the remaining dice on the next face.
    keep = term.keep
    work = count + 1  # the first face, from the empty state
    for placed in range(1, sides - 1):
        work += sum(
            (min(used, keep) * (placed - 1) + 1) * (count - used + 1) for used in range(count + 1)
        )
    # The last face takes every die left: one step per state, then the totals. A step of
    # this walk (a tuple key, a big-integer product) costs about four of a plain sum's.
    last = sum(min(used, keep) * (sides - 2) + 1 for used in range(count + 1))
    return _KEPT_STEP * (work + 2 * last)


def odds_work(expression: DiceExpression) -> int:
    """About how many steps the exact distribution of ``expression`` costs.

    Each term's own distribution (`_term_work`), plus the convolution of the running total
    with each term (the product of their numbers of values), plus the counting of the
    totals: an upper estimate of the work `DiceExpression.distribution` does.
    """
    work = 0
    span = 1
    for term in expression.terms:
        work += _term_work(term)
        work += span * _span(term)
        span += _span(term) - 1
    return work + span


def _term_counts(term: DiceTerm, deadline: float | None = None) -> dict[int, int] | None:
    """Outcome → number of the ``sides ** count`` equally likely rolls giving it (None if
    ``deadline``, a `time.perf_counter` instant, passes first)."""
    one = dict.fromkeys(range(1, term.sides + 1), 1)
    total: dict[int, int] | None
    if term.keep is None or term.keep == term.count:
        total = {0: 1}
        for _ in range(term.count):
            if deadline is not None and time.perf_counter() > deadline:
                return None
            total = _convolve(total, one)
    else:
        total = _kept_counts(term, deadline)
        if total is None:
            return None
    return {term.sign * value: count for value, count in total.items()}


def _kept_counts(term: DiceTerm, deadline: float | None = None) -> dict[int, int] | None:
    """Keep-highest/lowest, by order statistics: the faces from the best one down.

    How many dice show each face is chosen face by face (``comb(left, m)`` ways to pick
    which of the dice left show it); the first ``keep`` dice met, best faces first, are the
    kept ones. A state is (dice placed, sum kept) whatever the faces behind it, so
    ``99d3kh50`` walks a few thousand states, not every multiset of 50 kept faces.
    """
    count, keep = term.count, term.keep or term.count
    faces = list(range(1, term.sides + 1)) if term.keep_lowest else list(range(term.sides, 0, -1))
    ways_to_pick = [[comb(left, m) for m in range(left + 1)] for left in range(count + 1)]
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for index, face in enumerate(faces):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        last = index == len(faces) - 1
        following: dict[tuple[int, int], int] = {}
        for (placed, kept_sum), ways in states.items():
            left = count - placed
            room = max(0, keep - placed)
            for shown in (left,) if last else range(left + 1):
                key = (placed + shown, kept_sum + min(shown, room) * face)
                following[key] = following.get(key, 0) + ways * ways_to_pick[left][shown]
        states = following
    totals: dict[int, int] = {}
    for (_, kept_sum), ways in states.items():
        totals[kept_sum] = totals.get(kept_sum, 0) + ways
    return totals


def render_roll(result: RollResult, language: str) -> str:
    """``2d6+1 → 9`` with each die (dropped ones struck through) and the chance of as much
    (as computed by :func:`roll_with_odds`: nothing is computed here)."""
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
    if result.chance is not None:
        chance = percent(float(result.chance) * 100, language)
        lines.append(translate("render.roll_odds", language, total=result.total, chance=chance))
    elif result.odds_skipped:
        lines.append(translate("render.roll_no_odds", language))
    return "\n".join(lines)
