"""What every message the bot sends to Discord goes through: its limits, no stray ping,
and names that stay names.

* Lengths: Discord refuses a message whose content passes 2,000 characters (an error
  naming a few hundred long point names reached 11,523); :func:`clip` cuts a text to a
  limit with a visible "…". The embeds are cut to theirs in `bot.discord.embeds`.
* Mentions: every message is sent with explicit allowed mentions — none, or the users the
  bot means to ping (whose move it is, whose deadline passed): never everyone nor a role.
  `@everyone` and `@here` typed into a scenario, a name or an option are broken as well,
  so they do not even read as a ping.
* Names players and scenarios write (a scenario's title, a side's, a unit's, a reason) are
  shown as typed: their markdown is escaped and their links do not link.

Lengths are counted in UTF-16 code units, never less than the code points, so the limits
hold whichever of the two Discord counts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import discord

from rules.core.play import StatusView
from rules.core.resolution import Outcome, Resolution
from rules.core.words import Words

CONTENT_LIMIT = 2000
ELLIPSIS = "…"
_ZERO_WIDTH = "\u200b"

#: No ping at all: the default of the client and of every message that names no user.
NO_MENTIONS = discord.AllowedMentions(everyone=False, users=False, roles=False, replied_user=False)

#: The parameters of a catalogue text that carry a name someone wrote.
NAME_PARAMS = frozenset(
    {
        "title",
        "name",
        "side",
        "sides",
        "unit",
        "units",
        "target",
        "reason",
        "scenario",
        "winner",
        "loser",
        "group",
        "platoon",
        "vehicle",
        "player",
    }
)

_MASS_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)
_MENTION = re.compile(r"<(@[!&]?|#)(\d+)>")
_LINK = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(//)")
_MASKED_LINK = re.compile(r"\]\(")


def size(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (an upper bound of its code points)."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` (UTF-16 units) with a final "…"; unchanged if it fits."""
    if size(text) <= limit:
        return text
    kept: list[str] = []
    used = size(ELLIPSIS)
    for char in text:
        width = size(char)
        if used + width > limit:
            break
        kept.append(char)
        used += width
    return "".join(kept) + ELLIPSIS


def unlinked(text: str) -> str:
    """``text`` with no mass mention nor link that works: ``@everyone`` and ``@here``
    broken by a zero-width space, as are ``http://…`` and masked links ``[x](…)``
    (a mention of a user or a role the bot wrote itself is kept)."""
    text = _MASS_MENTION.sub(lambda m: "@" + _ZERO_WIDTH + m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1) + ":" + _ZERO_WIDTH + m.group(2), text)
    return _MASKED_LINK.sub("]" + _ZERO_WIDTH + "(", text)


def safe_name(text: str) -> str:
    """A name someone wrote, shown as typed: markdown escaped, no link, no mention (a
    scenario's name in three languages keeps them, each shown as typed)."""
    if isinstance(text, Words) and text.translations:
        languages = {language: _as_typed(words) for language, words in text.translations.items()}
        return Words(_as_typed(text), languages)
    return _as_typed(text)


def _as_typed(text: str) -> str:
    text = discord.utils.escape_markdown(text, ignore_links=False)
    text = _MENTION.sub(lambda m: "<" + _ZERO_WIDTH + m.group(1) + m.group(2) + ">", text)
    return unlinked(text)


def content(text: str) -> str:
    """The content of a message: within Discord's 2,000 characters, no mass mention."""
    return clip(unlinked(text), CONTENT_LIMIT)


def _safe_params(params: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
    return tuple(
        (name, safe_name(value) if name in NAME_PARAMS and isinstance(value, str) else value)
        for name, value in params
    )


def safe_outcome(outcome: Outcome) -> Outcome:
    """An outcome whose name parameters are shown as typed (`safe_name`)."""
    if not any(name in NAME_PARAMS and isinstance(v, str) for name, v in outcome.params):
        return outcome
    return replace(outcome, params=_safe_params(outcome.params))


def safe_resolution(resolution: Resolution) -> Resolution:
    """A resolution whose outcome, steps and effects show the names in their parameters as
    typed: a breakdown names units ("Result M1 for <unit>"), and a scenario writes them."""
    steps = tuple(
        replace(
            step,
            outcome=None if step.outcome is None else safe_outcome(step.outcome),
            params=_safe_params(step.params),
        )
        for step in resolution.steps
    )
    effects = tuple(
        replace(
            e,
            params=_safe_params(e.params),
            name=None if e.name is None else safe_name(e.name),
        )
        for e in resolution.effects
    )
    outcome = safe_outcome(resolution.outcome)
    return replace(resolution, outcome=outcome, steps=steps, effects=effects)


def safe_status(status: StatusView) -> StatusView:
    """A status whose title, sides, groups and unit names are shown as typed."""
    sides: Mapping[str, str] = {k: safe_name(v) for k, v in status.sides.items()}
    units = tuple(
        replace(unit, name=safe_name(unit.name), group=safe_name(unit.group))
        for unit in status.units
    )
    return replace(
        status,
        title=safe_name(status.title),
        sides=sides,
        units=units,
        notes=tuple(safe_outcome(note) for note in status.notes),
    )


def with_mentions(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a send: its content within the limits, its allowed
    mentions explicit (none unless the caller named users)."""
    if kwargs.get("content"):
        kwargs["content"] = clip(str(kwargs["content"]), CONTENT_LIMIT)
    kwargs.setdefault("allowed_mentions", NO_MENTIONS)
    return kwargs


__all__ = [
    "CONTENT_LIMIT",
    "ELLIPSIS",
    "NAME_PARAMS",
    "NO_MENTIONS",
    "clip",
    "content",
    "safe_name",
    "safe_outcome",
    "safe_resolution",
    "safe_status",
    "size",
    "unlinked",
    "with_mentions",
]
