"""Localized rendering of a :class:`Resolution`, shared by the CLI, the console and Discord.

:func:`describe` turns a resolution into plain localized pieces (title, one line per step,
effects, odds); the console prints them as text, the Discord adapter lays them out as an
embed. Nothing here knows about either front end.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core.dice import Roll
from rules.core.i18n import has_key, translate
from rules.core.resolution import Effect, EffectKind, Outcome, Resolution, Step

MAX_ODDS_LINES = 12


@dataclass(frozen=True, slots=True)
class Described:
    """A resolution as localized text pieces."""

    title: str
    outcome: str
    steps: tuple[str, ...]
    effects: tuple[str, ...]
    odds: tuple[str, ...]
    by_hand: bool


def value_text(ruleset: str, value: str | int, language: str) -> str:
    """A parameter value localized through `<ruleset>.values.*` where the catalogue has it."""
    if isinstance(value, int):
        return str(value)
    parts = []
    for part in value.split("+"):
        key = f"{ruleset}.values.{part}"
        parts.append(translate(key, language) if has_key(key, "it") else part)
    return " + ".join(parts)


def outcome_text(ruleset: str, outcome: Outcome, language: str) -> str:
    """The localized sentence for an outcome, with its parameters localized too."""
    params = {name: value_text(ruleset, value, language) for name, value in outcome.params}
    for name in ("status", "n", "location", "cm", "cover"):
        params.setdefault(name, "")
    text = translate(outcome.key, language, **params)
    return " ".join(text.split())


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


def _step_line(ruleset: str, step: Step, language: str, mixed: bool = False) -> str:
    params = {name: value_text(ruleset, value, language) for name, value in step.params}
    name = " ".join(translate(step.key, language, **params).split())
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
        pieces.append(f"= {step.total}")
    elif step.total is not None:
        pieces.append(str(step.total))
    if step.threshold is not None:
        threshold_params = {k: v for k, v in step.threshold.params}
        label = (
            translate(step.threshold.key, language, **threshold_params)
            if step.threshold.key
            else ""
        )
        pieces.append(f"{step.threshold.comparison.value} {step.threshold.value} ({label})")
    line = f"{name}: {' '.join(pieces)}" if pieces else name
    if step.table is not None:
        table = step.table
        line += (
            f" — {translate('render.table', language)} «{table.title}», "
            f"{translate('render.row', language)} {table.row}, "
            f"{translate('render.column', language)} {table.column}: «{table.cell}»"
        )
    if step.outcome is not None:
        line += f" → {outcome_text(ruleset, step.outcome, language)}"
    return line


def effect_text(ruleset: str, effect: Effect, language: str) -> str:
    """One state effect as a short localized phrase."""
    target = f"[{effect.target}] " if effect.target else ""
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
        if resolution.odds.exact:
            odds = tuple(
                f"{outcome_text(ruleset, entry.outcome, language)}: {entry.probability:.1%}"
                for entry in resolution.odds.entries[:MAX_ODDS_LINES]
            )
        else:
            odds = (translate("render.odds_inexact", language, paths=resolution.odds.paths),)
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
    )


def render_resolution_text(resolution: Resolution, language: str = "it") -> str:
    """The whole breakdown as plain text (console table and CLI)."""
    described = describe(resolution, language)
    lines = [
        f"== {described.title} ==",
        *described.steps,
        f"{translate('render.outcome', language)}: {described.outcome}",
    ]
    if described.by_hand:
        lines.append(f"({translate('render.by_hand', language)})")
    if described.effects:
        lines.append(f"{translate('render.effects', language)}: " + "; ".join(described.effects))
    if described.odds:
        lines.append(f"{translate('render.odds', language)}: " + " · ".join(described.odds))
    return "\n".join(lines)
