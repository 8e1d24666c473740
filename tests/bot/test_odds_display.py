"""The odds as players read them: on the console and in Discord's embeds, in two languages.

The outcomes that matter with the remainder, no label twice, no 0.0% line, a certain
outcome once as certain, one summary per volley.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from bot.console.render_text import reply_text
from bot.discord.embeds import reply_cards
from bot.service import PlayReply
from rules.core.resolution import Odds, OddsEntry, Outcome, Resolution, Step
from rules.render import MAX_ODDS_LINES, describe_reply, odds_lines

RULESET = "w40k4"
PERCENT = re.compile(r"(\d+[.,]\d)\u202f?%")


def odds(*chances: tuple[Outcome, Fraction]) -> Odds:
    assert sum(chance for _, chance in chances) == 1
    return Odds(
        tuple(OddsEntry(outcome, c.numerator, c.denominator) for outcome, c in chances),
        paths=len(chances),
    )


def scattered(inches: int) -> Outcome:
    return Outcome.of("w40k4.scatter.scattered", inches=inches)


def on_target(clock: int) -> Outcome:
    # The sentence does not show ``clock``: two codes, one label.
    return Outcome.of("w40k4.scatter.on_target", clock=clock)


def resolution(chances: Odds, procedure: str = "shooting") -> Resolution:
    step = Step(key="w40k4.step.scatter_die")
    return Resolution(RULESET, procedure, (step,), scattered(1), odds=chances)


def total(lines: tuple[str, ...]) -> Fraction:
    found = (p.replace(",", ".") for line in lines for p in PERCENT.findall(line))
    return sum((Fraction(p) / 100 for p in found), Fraction(0))


def adds_up(lines: tuple[str, ...]) -> bool:
    """The shown percentages add up to 100%, give or take each line's rounding."""
    return abs(total(lines) - 1) <= Fraction(len(lines), 2000)


LANGUAGES = [("en", "other", "certain"), ("it", "altro", "sicuro"), ("fr", "autre", "certain")]


def shown(number: str, language: str) -> str:
    """``number`` percent as ``language`` writes it: 41.7%, 41,7%, 41,7\u202f%."""
    if language == "en":
        return f"{number}%"
    return number.replace(".", ",") + ("\u202f%" if language == "fr" else "%")


def label_end(language: str) -> str:
    return "\u202f: " if language == "fr" else ": "


@pytest.mark.parametrize(("language", "other", "certain"), LANGUAGES)
def test_the_likeliest_outcomes_and_the_remainder(language, other, certain):
    twelve = odds(*((scattered(n), Fraction(1, 12)) for n in range(1, 13)))
    lines = odds_lines(RULESET, (twelve,), language)
    assert len(lines) == MAX_ODDS_LINES
    assert lines[-1] == f"{other}{label_end(language)}{shown('41.7', language)}"  # 5 of 12 summed
    assert adds_up(lines)


@pytest.mark.parametrize(("language", "other", "certain"), LANGUAGES)
def test_labels_that_read_the_same_are_one_line(language, other, certain):
    lines = odds_lines(
        RULESET,
        (
            odds(
                (on_target(1), Fraction(1, 4)),
                (on_target(2), Fraction(1, 4)),
                (scattered(3), Fraction(1, 2)),
            ),
        ),
        language,
    )
    assert len(lines) == 2 and len(set(line.split(":")[0] for line in lines)) == 2
    assert all(line.endswith(label_end(language) + shown("50.0", language)) for line in lines)


@pytest.mark.parametrize(("language", "other", "certain"), LANGUAGES)
def test_no_line_shows_zero_percent(language, other, certain):
    tiny = Fraction(1, 10_000)
    lines = odds_lines(
        RULESET,
        (odds((scattered(1), 1 - 2 * tiny), (scattered(2), tiny), (scattered(3), tiny)),),
        language,
    )
    assert not any(re.search(r"(?<![\d.,])0[.,]0\u202f?%", line) for line in lines)
    assert lines == (lines[0], f"{other}{label_end(language)}<{shown('0.1', language)}")
    assert lines[0].endswith(f"{label_end(language)}>{shown('99.9', language)}")


@pytest.mark.parametrize(("language", "other", "certain"), LANGUAGES)
def test_a_certain_outcome_is_shown_once_as_certain(language, other, certain):
    sure = odds((on_target(1), Fraction(1, 2)), (on_target(2), Fraction(1, 2)))
    (line,) = odds_lines(RULESET, (sure,), language)
    assert line.startswith(f"{certain}{label_end(language)}") and "%" not in line


def test_a_volley_shows_one_summary_on_its_last_shot():
    shot = odds((scattered(1), Fraction(3, 10)), (scattered(2), Fraction(7, 10)))
    reply = [resolution(shot) for _ in range(8)]
    described = describe_reply(reply, "en")
    assert [d.odds_folded for d in described] == [True] * 7 + [False]
    assert described[-1].odds_title == "Odds (each of these 8)"
    assert described[-1].odds == odds_lines(RULESET, (shot,), "en")
    # Shots with different odds (a rifle and a pistol, two sides of a combat) keep theirs;
    # each distinct block is shown once, on the last roll that has it.
    other_shot = odds((scattered(1), Fraction(1, 10)), (scattered(2), Fraction(9, 10)))
    mixed = describe_reply(
        [resolution(shot), resolution(other_shot), resolution(shot), resolution(other_shot)],
        "it",
    )
    assert [d.odds_folded for d in mixed] == [True, True, False, False]
    assert [d.odds_title for d in mixed[2:]] == ["Probabilità (ciascuno di questi 2)"] * 2
    assert [line.rsplit(": ", 1)[1] for line in mixed[-1].odds] == ["90,0%", "10,0%"]
    # Different procedures keep their own odds.
    alone = describe_reply([resolution(shot, "a"), resolution(shot, "b")], "en")
    assert [d.odds_title for d in alone] == ["Odds", "Odds"]


@pytest.mark.parametrize(
    ("language", "title", "volley"),
    [
        ("en", "Odds", "Odds (each of these 8)"),
        ("it", "Probabilità", "Probabilità (ciascuno di questi 8)"),
    ],
)
def test_both_renderers_show_a_volley_once(language, title, volley):
    shot = odds(
        (on_target(1), Fraction(1, 4)),
        (on_target(2), Fraction(1, 4)),
        *((scattered(n), Fraction(1, 20)) for n in range(1, 11)),
    )
    reply = PlayReply(language=language, ruleset=RULESET, resolutions=[resolution(shot)] * 8)
    label = odds_lines(RULESET, (shot,), language)[0].split(":")[0]

    text = reply_text(reply)
    assert text.count(f"{volley}: ") == 1 and f"\n{title}: " not in text
    assert text.count(f"{label}: {shown('50.0', language)}") == 1  # merged, once for the volley
    assert not re.search(r"(?<![\d.,])0[.,]0%", text)

    cards = reply_cards(reply)
    odds_sections = [s for card in cards for s in card.sections if s.name.startswith(title)]
    assert [s.name for s in odds_sections] == [volley]
    (section,) = odds_sections
    assert section.lines[0] == f"{label}: {shown('50.0', language)}"
    assert len(section.lines) == MAX_ODDS_LINES
    assert section.lines[-1].endswith(": " + shown("20.0", language))
    assert adds_up(tuple(section.lines))


@pytest.mark.parametrize(("language", "certain"), [("en", "certain"), ("fr", "certain")])
def test_odds_only_replies_show_the_volley_once(language, certain):
    sure = odds((on_target(1), Fraction(1)))
    reply = PlayReply(
        language=language, ruleset=RULESET, resolutions=[resolution(sure)] * 3, odds_only=True
    )
    assert reply_text(reply).count(f"{certain}") == 1
    cards = reply_cards(reply)
    assert len(cards) == 1
    assert next(line for s in cards[0].sections for line in s.lines).startswith(certain)
