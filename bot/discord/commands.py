"""Helpers the cogs declare their commands with: localized options, choices, autocomplete."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from functools import cache
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.discord.translator import choice, option_description, option_name

log = logging.getLogger("bot.discord")

T = TypeVar("T")

#: Discord drops an autocomplete answer after 3 s; give up well before.
AUTOCOMPLETE_TIMEOUT = 2.0
CHOICE_LIMIT = 25
CHOICE_TEXT_LIMIT = 100

Suggester = Callable[
    [discord.Interaction[Any], str], Coroutine[Any, Any, list[app_commands.Choice[str]]]
]


def options(**stems: str) -> Callable[[T], T]:
    """Localize parameters: ``unit="unit"`` names the option through ``discord.opt.unit.name``
    and describes it through ``discord.opt.<stem>.description``.

    The stem differs from the option name when one option means different things in two
    commands (``target`` is a unit for /fire, a point on the table for /callarty).
    """

    def decorate(func: T) -> T:
        func = app_commands.describe(
            **{param: option_description(stem) for param, stem in stems.items()}
        )(func)
        return app_commands.rename(**{param: option_name(param) for param in stems})(func)

    return decorate


def choices(*values: str) -> list[app_commands.Choice[str]]:
    """Localized fixed choices for a vocabulary (ammo, facing, link, test kinds…)."""
    return [choice(value) for value in values]


@cache
def suggest(kind: str) -> Suggester:
    """The autocomplete callback for values of ``kind`` (unit, target, weapon, side…).

    It asks the service, which knows the channel's game and the user's side; it answers
    within :data:`AUTOCOMPLETE_TIMEOUT` and never raises (an empty list instead), since a
    failing autocomplete only shows a red "loading options failed" to the player.
    """

    async def complete(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        service = getattr(interaction.client, "service", None)
        if service is None or interaction.channel_id is None:
            return []
        try:
            values = await asyncio.wait_for(
                service.choices(interaction.channel_id, interaction.user.id, kind, current or ""),
                timeout=AUTOCOMPLETE_TIMEOUT,
            )
        except Exception:
            log.warning(
                "autocomplete %s failed in channel %s", kind, interaction.channel_id, exc_info=True
            )
            return []
        unique = dict.fromkeys(str(value)[:CHOICE_TEXT_LIMIT] for value in values if value)
        return [
            app_commands.Choice(name=value, value=value) for value in list(unique)[:CHOICE_LIMIT]
        ]

    complete.__name__ = f"suggest_{kind}"
    return complete


__all__ = ["AUTOCOMPLETE_TIMEOUT", "choices", "options", "suggest"]
