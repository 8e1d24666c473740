"""A game's result and its score as localized text, laid out once for every front end.

The console prints it, the after-action report writes it, Discord's result embed puts its
sections in fields: the one-line summary, who won and how, the referee's reason, then the
breakdown — each objective and who holds it, each side's losses, the exits — and the
points. Everything is read from the typed values (:class:`~rules.core.score.GameResult`,
:class:`~rules.core.score.Score`) in the game's language; names that come from a scenario
or a player (sides, objectives, a reason) go through ``escape`` (Discord escapes markdown).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rules.core.i18n import collapse_spaces, translate
from rules.core.resolution import Outcome
from rules.core.score import EndingKind, GameResult, Level, LineKind, Score
from rules.core.words import in_language, named_again
from rules.render import value_text, worded_key

Escape = Callable[[str], str]

#: The sections of a breakdown, in order: what each kind of line counts.
_SECTIONS = (
    (LineKind.OBJECTIVE, "bot.result.objectives"),
    (LineKind.LOSSES, "bot.result.losses"),
    (LineKind.EXITS, "bot.result.exits"),
)


def _same(text: str) -> str:
    return text


@dataclass
class ResultText:
    """A result or a score as text: a heading, lines, and named sections of lines."""

    heading: str
    language: str
    lines: list[str] = field(default_factory=list)
    sections: list[tuple[str, list[str]]] = field(default_factory=list)

    def plain(self, bullet: str = "•") -> list[str]:
        """Everything as lines of plain text (the console, the report)."""
        out = [self.heading, *self.lines]
        for name, lines in self.sections:
            out.append(translate("bot.result.section", self.language, name=name))
            out += [f"  {bullet} {line}" for line in lines]
        return out


def outcome_line(
    ruleset: str,
    outcome: Outcome,
    language: str,
    escape: Escape = _same,
    sides: Mapping[str, str] | None = None,
) -> str:
    """An outcome as a sentence, its parameters (names from a scenario or a player)
    escaped for where it is shown; a parameter spelling one of ``sides``' names (stored as
    plain text) in the reader's language."""
    names = () if sides is None else sides.values()
    params = {
        name: escape(value_text(ruleset, named_again(value, names), language))
        if isinstance(value, str)
        else value
        for name, value in outcome.params
    }
    # Runs of plain spaces (left by an empty parameter) collapse; French's narrow no-break
    # spaces stay.
    return collapse_spaces(translate(worded_key(outcome), language, **params))


def result_text(
    result: GameResult,
    sides: Mapping[str, str],
    ruleset: str,
    language: str,
    escape: Escape = _same,
) -> ResultText:
    """The result of an ended game: its summary, the winner and the level, the referee's
    reason, the breakdown of its final score and the points."""
    summary = outcome_line(ruleset, result.summary, language, escape, sides)
    text = ResultText(f"🏁 {summary}", language)
    if result.winner is None:
        text.lines.append(translate("bot.result.draw", language))
    else:
        text.lines.append(
            translate(
                "bot.result.winner",
                language,
                side=escape(in_language(sides.get(result.winner, result.winner), language)),
                level=translate(f"bot.result.level.{result.level.value}", language),
            )
        )
    if result.ending.kind is EndingKind.DECISION and result.ending.reason:
        text.lines.append(
            translate("bot.result.reason", language, reason=escape(result.ending.reason))
        )
    text.sections = breakdown(result.score, sides, ruleset, language, escape)
    return text


def score_text(
    score: Score,
    sides: Mapping[str, str],
    ruleset: str,
    language: str,
    escape: Escape = _same,
) -> ResultText:
    """The score "if the game ended now": who is ahead and by how much, and the breakdown
    (as its reader may count it: :meth:`rules.core.seatview.SeatView.score`)."""
    text = ResultText(translate("bot.result.score_title", language), language)
    if score.empty:
        text.lines.append(translate("bot.result.no_conditions", language))
        return text
    if score.leader is not None and score.level is not Level.DRAW:
        text.lines.append(
            translate(
                "bot.result.ahead",
                language,
                side=escape(in_language(sides.get(score.leader, score.leader), language)),
                margin=score.margin,
                level=translate(f"bot.result.level.{score.level.value}", language),
            )
        )
    else:
        text.lines.append(translate("bot.result.even", language))
    text.sections = breakdown(score, sides, ruleset, language, escape)
    return text


def breakdown(
    score: Score,
    sides: Mapping[str, str],
    ruleset: str,
    language: str,
    escape: Escape = _same,
) -> list[tuple[str, list[str]]]:
    """The score's lines by kind (objectives, losses, exits), then each side's points."""
    sections: list[tuple[str, list[str]]] = []
    for kind, key in _SECTIONS:
        lines = [
            outcome_line(ruleset, line.text, language, escape, sides)
            for line in score.lines
            if line.kind is kind
        ]
        if lines:
            sections.append((translate(key, language), lines))
    if score.lines:
        points = [
            translate(
                "bot.result.total",
                language,
                side=escape(in_language(sides.get(side, side), language)),
                points=score.total(side),
            )
            for side in score.sides
        ]
        sections.append((translate("bot.result.points", language), points))
    return sections


__all__ = ["ResultText", "breakdown", "outcome_line", "result_text", "score_text"]
