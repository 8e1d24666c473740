"""Localized rendering of a :class:`Resolution`, shared by the CLI, the console and Discord.

:func:`describe` turns a resolution into plain localized pieces (title, one line per step,
effects, odds); the console prints them as text, the Discord adapter lays them out as an
embed. Nothing here knows about either front end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.core.dice import Roll
from rules.core.i18n import (
    DEFAULT_LANGUAGE,
    catalogue,
    collapse_spaces,
    colon,
    has_key,
    percent,
    placeholders,
    quoted,
    semicolon,
    translate,
)
from rules.core.resolution import (
    Effect,
    EffectKind,
    Odds,
    Outcome,
    Resolution,
    Step,
    TableRead,
)
from rules.core.words import Words, in_language, named_again

#: Odds lines at most, the "other" line included: the likeliest outcomes are named, the
#: rest is summed up in one remainder line.
MAX_ODDS_LINES = 8


@dataclass(frozen=True, slots=True)
class Described:
    """A resolution as localized text pieces."""

    title: str
    outcome: str
    steps: tuple[str, ...]
    effects: tuple[str, ...]
    odds: tuple[str, ...]
    by_hand: bool
    #: The heading of the odds ("Odds", or "Odds, each of the 8" for a volley's summary).
    odds_title: str = ""
    #: The odds are summed up on a later resolution of the same kind in the reply.
    odds_folded: bool = False


def value_text(ruleset: str, value: str | int, language: str) -> str:
    """A parameter value localized through `<ruleset>.values.*` where the catalogue has it.

    Statuses are words of the catalogue, joined by ``+`` ("pinned+suppressed"), each with
    what it is about after a colon ("weapon_destroyed:mitragliatrice"). Any other text (a
    name, a time "16:18 UTC", a Discord timestamp "<t:1700000000:f>") is shown as it is:
    taking its colons and pluses for a status's would break it ("16: 18 UTC").
    """
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Words):  # a scenario's name, in the reader's language
        return value.in_language(language)
    parts = [part.partition(":") for part in value.split("+")]
    if not any(has_key(f"{ruleset}.values.{word}", "it") for word, _, _ in parts):
        return value
    texts = []
    for word, separator, detail in parts:
        key = f"{ruleset}.values.{word}"
        text = translate(key, language) if has_key(key, "it") else word
        texts.append(f"{text}{colon(language)} {detail}" if separator else text)
    return " + ".join(texts)


def worded_key(outcome: Outcome) -> str:
    """The key of the text that words ``outcome``: its own, or ``<key>.no_<params>`` when
    the outcome lacks parameters its text names and the catalogue words it without them.

    An outcome's optional counts and statuses are left out when nothing is there
    (``manovra.heavy.effect`` with no casualties): "turret: weapon destroyed" reads right,
    where one text for every case read "turret: weapon destroyed 1" with them. The variant
    for every missing parameter (``no_n_status``) comes before the one for each
    (``no_n``, ``no_status``)."""
    template = catalogue(DEFAULT_LANGUAGE).get(outcome.key)
    if template is None:
        return outcome.key
    present = {name for name, _ in outcome.params}
    missing = sorted(placeholders(template) - present)
    if not missing:
        return outcome.key
    for suffix in ("_".join(missing), *missing):
        if has_key(f"{outcome.key}.no_{suffix}"):
            return f"{outcome.key}.no_{suffix}"
    return outcome.key


def outcome_text(ruleset: str, outcome: Outcome, language: str, names: Iterable[str] = ()) -> str:
    """The localized sentence for an outcome, with its parameters localized too: one that
    spells a name of ``names`` (a game's sides: a stored outcome keeps them as plain text)
    in that name's words for ``language``."""
    params = {
        name: value_text(ruleset, named_again(value, names) if names else value, language)
        if isinstance(value, str)
        else value_text(ruleset, value, language)
        for name, value in outcome.params
    }
    for name in ("status", "n", "location", "cm", "cover"):
        params.setdefault(name, "")
    return collapse_spaces(translate(worded_key(outcome), language, **params))


def roll_mark(roll: Roll, mixed: bool, language: str) -> str:
    """`` (rolled by the bot)`` after a bot's roll in a resolution that also has typed dice.

    Dice belong to their roller: where a player typed faces and the bot rolled for another
    side in the same resolution, the bot's faces are not shown as entered by hand.
    """
    if mixed and not roll.by_hand:
        return f" ({translate('render.bot_roll', language)})"
    return ""


def mixed_dice(resolution: Resolution) -> bool:
    """Whether a resolution holds both typed faces and the bot's rolls."""
    hands = {roll.by_hand for roll in resolution.rolls}
    return hands == {True, False}


def signed_text(value: int) -> str:
    """A number as players read it in print: a negative one with the minus sign (U+2212),
    as the modifiers before it are written, not a hyphen."""
    return f"−{abs(value)}" if value < 0 else str(value)


def channel_label(channel_id: int, in_guild: bool) -> str:
    """A channel as Discord shows a mention, or as the console names it."""
    return f"<#{channel_id}>" if in_guild else f"#{channel_id}"


def _step_line(ruleset: str, step: Step, language: str, mixed: bool = False) -> str:
    params = {name: value_text(ruleset, value, language) for name, value in step.params}
    name = collapse_spaces(translate(step.key, language, **params))
    pieces: list[str] = []
    if step.rolls:
        pieces.append(
            " ".join(
                f"{roll.die.name}={roll.face}{roll_mark(roll, mixed, language)}"
                for roll in step.rolls
            )
        )
    for modifier in step.modifiers:
        label = translate(modifier.key, language)
        pieces.append(f"{'+' if modifier.value >= 0 else '−'}{abs(modifier.value)} {label}")
    if step.total is not None and (step.rolls or step.modifiers):
        pieces.append(f"= {signed_text(step.total)}")
    elif step.total is not None:
        pieces.append(signed_text(step.total))
    if step.threshold is not None:
        threshold_params = {k: v for k, v in step.threshold.params}
        label = (
            translate(step.threshold.key, language, **threshold_params)
            if step.threshold.key
            else ""
        )
        pieces.append(
            f"{step.threshold.comparison.value} {signed_text(step.threshold.value)} ({label})"
        )
    line = f"{name}{colon(language)} {' '.join(pieces)}" if pieces else name
    if step.table is not None:
        line += f" — {table_reading(step.table, language)}"
    if step.outcome is not None:
        line += f" → {outcome_text(ruleset, step.outcome, language)}"
    return line


def table_reading(table: TableRead, language: str) -> str:
    """``Table «Fire», row 7, column rifle: «2»``: the table cell a step read."""
    title = in_language(table.title, language)  # a table the seed does not give: translated
    return (
        f"{translate('render.table', language)} {quoted(title, language)}, "
        f"{translate('render.row', language)} {table.row}, "
        f"{translate('render.column', language)} {table.column}{colon(language)} "
        f"{quoted(table.cell, language)}"
    )


def effect_text(ruleset: str, effect: Effect, language: str) -> str:
    """One state effect as a short localized phrase, after the name of what it falls on
    ("Dévastateurs, 1 tué"); an effect stored before effects carried names shows its
    target's id."""
    target = ""
    if effect.name is not None:
        target = f"{value_text(ruleset, effect.name, language)}, "
    elif effect.target:
        target = f"[{effect.target}] "
    if effect.kind is EffectKind.CASUALTIES:
        if effect.amount is None:
            return target + translate("render.all_casualties", language)
        return target + translate("render.casualties", language, n=effect.amount)
    if effect.kind is EffectKind.TEST_OWED:
        return target + translate("render.test_owed", language, test=effect.key)
    status = value_text(ruleset, effect.key, language)
    key = {
        EffectKind.STATUS: "render.status",
        EffectKind.CLEAR_STATUS: "render.clear_status",
        EffectKind.MOVEMENT: "render.movement",
        EffectKind.MARKER: "render.marker",
        EffectKind.DAMAGE: "render.status",
    }[effect.kind]
    return target + translate(key, language, status=status)


def describe(resolution: Resolution, language: str) -> Described:
    """Localize every part of a resolution."""
    ruleset = resolution.ruleset
    mixed = mixed_dice(resolution)
    steps = tuple(
        f"{index}. {_step_line(ruleset, step, language, mixed)}"
        for index, step in enumerate(resolution.steps, start=1)
    )
    effects = tuple(
        effect_text(ruleset, effect, language)
        for effect in resolution.effects
        if not (effect.kind is EffectKind.STATUS and effect.key == "cover")
    )
    odds: tuple[str, ...] = ()
    if resolution.odds is not None:
        odds = odds_lines(ruleset, (resolution.odds,), language)
    title = translate(f"{ruleset}.procedure.{resolution.procedure}", language)
    if title == f"{ruleset}.procedure.{resolution.procedure}":
        title = resolution.procedure.replace("_", " ")
    return Described(
        title=title,
        outcome=outcome_text(ruleset, resolution.outcome, language),
        steps=steps,
        effects=effects,
        odds=odds,
        by_hand=any(roll.by_hand for roll in resolution.rolls),
        odds_title=translate("render.odds", language),
    )


def _percent(probability: Fraction, language: str) -> str:
    """``probability`` as a percentage in ``language``; never "100.0%" when it is not
    certain (a certain outcome has its own line), never "0.0%" when it is possible."""
    if probability < 1 and round(float(probability) * 100, 1) >= 100:
        return percent(99.9, language, prefix=">")
    if probability > 0 and round(float(probability) * 100, 1) <= 0:
        return percent(0.1, language, prefix="<")
    return percent(float(probability) * 100, language)


def _shows_as_zero(probability: Fraction) -> bool:
    return round(float(probability) * 100, 1) <= 0


def odds_lines(ruleset: str, odds: Sequence[Odds], language: str) -> tuple[str, ...]:
    """The odds of one roll, or the average per roll of several of the same kind, as lines.

    Outcomes whose sentences read the same are one line (their chances summed); outcomes
    that would show 0.0% and those beyond :data:`MAX_ODDS_LINES` are summed in a last
    "other" line, so the lines always add up to 100%; a certain outcome is one "certain"
    line. Several rolls give each outcome's average chance per roll (exactly each roll's
    odds when they are all the same).
    """
    if not odds:
        return ()
    if not all(single.exact for single in odds):
        paths = max(single.paths for single in odds)
        return (translate("render.odds_inexact", language, paths=paths),)
    chances: dict[str, Fraction] = {}
    for single in odds:
        for entry in single.entries:
            label = outcome_text(ruleset, entry.outcome, language)
            share = Fraction(entry.numerator, entry.denominator) / len(odds)
            chances[label] = chances.get(label, Fraction(0)) + share
    # Likeliest first; equal chances keep the order the odds gave them.
    ranked = sorted(chances.items(), key=lambda item: -item[1])
    if len(ranked) == 1 and ranked[0][1] == 1:
        return (translate("render.odds_certain", language, outcome=ranked[0][0]),)
    visible = [(label, chance) for label, chance in ranked if not _shows_as_zero(chance)]
    shown = visible if len(visible) <= MAX_ODDS_LINES else visible[: MAX_ODDS_LINES - 1]
    lines = [f"{label}{colon(language)} {_percent(chance, language)}" for label, chance in shown]
    rest = 1 - sum((chance for _, chance in shown), Fraction(0))
    if rest > 0:
        lines.append(translate("render.odds_other", language, p=_percent(rest, language)))
    return tuple(lines)


def describe_reply(resolutions: Sequence[Resolution], language: str) -> list[Described]:
    """Every resolution of one reply, each distinct odds block shown once.

    A command that resolves several rolls of one procedure with the same odds (the shots
    of a volley, each model's save) shows those odds once, on the last of them, headed
    "each of these N": eight identical blocks would only bury the results. Rolls whose odds
    differ (a rifle and a pistol in one volley, the two sides of a close combat) keep their
    own block: an average of different rolls' odds would describe no roll that was made.
    """
    described = [describe(resolution, language) for resolution in resolutions]
    groups: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
    for index, (resolution, one) in enumerate(zip(resolutions, described, strict=True)):
        if one.odds:
            key = (resolution.ruleset, resolution.procedure, one.odds)
            groups.setdefault(key, []).append(index)
    for indexes in groups.values():
        if len(indexes) < 2:
            continue
        for index in indexes[:-1]:
            described[index] = replace(described[index], odds=(), odds_folded=True)
        last = indexes[-1]
        described[last] = replace(
            described[last], odds_title=translate("render.odds_each", language, n=len(indexes))
        )
    return described


def render_resolution_text(resolution: Resolution, language: str = "it") -> str:
    """The whole breakdown as plain text (console table and CLI)."""
    return render_described_text(describe(resolution, language), language)


def render_described_text(described: Described, language: str) -> str:
    """A described resolution as plain text."""
    lines = [
        f"== {described.title} ==",
        *described.steps,
        f"{translate('render.outcome', language)}{colon(language)} {described.outcome}",
    ]
    if described.by_hand:
        lines.append(f"({translate('render.by_hand', language)})")
    if described.effects:
        lines.append(
            f"{translate('render.effects', language)}{colon(language)} "
            + f"{semicolon(language)} ".join(described.effects)
        )
    if described.odds:
        lines.append(f"{described.odds_title}{colon(language)} " + " · ".join(described.odds))
    return "\n".join(lines)
