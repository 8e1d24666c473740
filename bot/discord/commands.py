"""The slash commands, generated from the one declaration in :mod:`bot.commands`.

discord.py reads a command's options from its callback's signature. Each command here gets
a generated callback whose ``__signature__`` lists the declared options with their types
(``Range`` for bounds), then the declared descriptions, localized names, choices and
autocomplete callbacks are attached exactly as the decorators would. The callback only
turns the values into a request (:func:`bot.commands.invocation`) and hands it to
:func:`bot.discord.runner.run_command`: no rule is decided here.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine
from functools import lru_cache
from typing import Any

import discord
from discord import app_commands

from bot.commands import COMMANDS, CommandSpec, OptionSpec, OptionType, invocation
from bot.discord.runner import run_command
from bot.discord.translator import (
    choice,
    command_description,
    command_name,
    option_description,
    option_name,
)

log = logging.getLogger("bot.discord")

#: Discord drops an autocomplete answer after 3 s; give up well before.
AUTOCOMPLETE_TIMEOUT = 2.0
CHOICE_LIMIT = 25
#: The autocomplete kind of /game new's scenario (narrowed to the ruleset chosen beside it).
SCENARIO = "scenario"
BOOK = "book"
CHOICE_TEXT_LIMIT = 100

Suggester = Callable[
    [discord.Interaction[Any], str], Coroutine[Any, Any, list[app_commands.Choice[str]]]
]
Callback = Callable[..., Coroutine[Any, Any, None]]


@lru_cache(maxsize=64)  # by kind of value: a handful
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
        wanted = kind
        if kind in (SCENARIO, BOOK):
            # The scenarios (campaign books) of the ruleset already chosen in the same command.
            chosen = getattr(interaction.namespace, "ruleset", None)
            wanted = f"{kind}:{chosen}" if isinstance(chosen, str) and chosen else kind
        try:
            values = await asyncio.wait_for(
                service.choices(interaction.channel_id, interaction.user.id, wanted, current or ""),
                timeout=AUTOCOMPLETE_TIMEOUT,
            )
        except Exception:
            log.warning(
                "autocomplete %s failed in channel %s", kind, interaction.channel_id, exc_info=True
            )
            return []
        # A value by what the reader is shown of it (a unit by its name), else as it is.
        shown: dict[str, str] = {}
        for value in values:
            if value:
                label = getattr(value, "label", "") or str(value)
                shown.setdefault(str(value)[:CHOICE_TEXT_LIMIT], label[:CHOICE_TEXT_LIMIT])
        listed = list(shown.items())[:CHOICE_LIMIT]
        return [app_commands.Choice(name=name, value=value) for value, name in listed]

    complete.__name__ = f"suggest_{kind}"
    return complete


def annotation(option: OptionSpec) -> Any:
    """The type discord.py reads for ``option`` (its Discord option type and bounds)."""
    if option.type is OptionType.ATTACHMENT:
        return discord.Attachment
    if option.type is OptionType.USER:
        return discord.Member
    if option.type is OptionType.ROLE:
        return discord.Role
    if option.type is OptionType.CHANNEL:
        return discord.TextChannel
    if option.type is OptionType.BOOLEAN:
        return bool
    base: type = {OptionType.INTEGER: int, OptionType.NUMBER: float}.get(option.type, str)
    if option.low is None or option.high is None:
        return base
    low: float = option.low
    high: float = option.high
    if base is not float:
        low, high = int(low), int(high)
    return app_commands.Range[base, low, high]


def signature(command: CommandSpec) -> inspect.Signature:
    """``(interaction, <required options>, <optional options> = None)``."""
    parameters = [
        inspect.Parameter(
            "interaction",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=discord.Interaction,
        )
    ]
    ordered = sorted(command.options, key=lambda option: not option.required)
    for option in ordered:
        kind = annotation(option)
        parameters.append(
            inspect.Parameter(
                option.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=kind if option.required else kind | None,
                default=inspect.Parameter.empty if option.required else None,
            )
        )
    return inspect.Signature(parameters)


def callback(command: CommandSpec) -> Callback:
    """The generated callback: the declared options in, one service request out."""

    async def run(interaction: discord.Interaction[Any], **values: Any) -> None:
        # A member option reaches the service as the member's id (the service knows no
        # Discord objects); a mention of it is what the log and the replies show.
        values = {
            name: value.id
            if isinstance(value, discord.abc.User | discord.Role | discord.abc.GuildChannel)
            else value
            for name, value in values.items()
        }
        call = invocation(command, values)
        await run_command(
            interaction,
            call.verb,
            call.options,
            dice=call.dice,
            attachment=call.file,
            private=command.private
            or (command.private_when is not None and bool(values.get(command.private_when))),
        )

    function_name = command.path.replace(".", "_")
    run.__name__ = run.__qualname__ = function_name
    run.__signature__ = signature(command)  # type: ignore[attr-defined]
    described: Callback = app_commands.describe(
        **{o.name: option_description(o.description) for o in command.options}
    )(run)
    described = app_commands.rename(**{o.name: option_name(o.name) for o in command.options})(
        described
    )
    fixed = {
        o.name: [choice(value, label) for value, label in zip(o.choices, o.labels, strict=True)]
        for o in command.options
        if o.choices
    }
    if fixed:
        described = app_commands.choices(**fixed)(described)
    completed = {
        o.name: suggest(o.autocomplete) for o in command.options if o.autocomplete is not None
    }
    if completed:
        described = app_commands.autocomplete(**completed)(described)
    return described


def app_command(
    command: CommandSpec, parent: app_commands.Group | None = None
) -> app_commands.Command[Any, ..., None]:
    """The Discord command for one declared command."""
    return app_commands.Command(
        name=command_name(command.path),
        description=command_description(command.path),
        callback=callback(command),
        parent=parent,
    )


def build_app_commands(
    commands: tuple[CommandSpec, ...] = COMMANDS,
) -> list[app_commands.Command[Any, ..., None] | app_commands.Group]:
    """Every declared command, group commands inside their group, in declared order."""
    top: dict[str, app_commands.Command[Any, ..., None] | app_commands.Group] = {}
    for command in commands:
        words = command.words
        if len(words) == 1:
            top[command.path] = app_command(command)
            continue
        group = top.get(words[0])
        if group is None:
            group = app_commands.Group(
                name=command_name(words[0]), description=command_description(words[0])
            )
            top[words[0]] = group
        assert isinstance(group, app_commands.Group)
        group.add_command(app_command(command, parent=group))
    return list(top.values())


__all__ = [
    "AUTOCOMPLETE_TIMEOUT",
    "annotation",
    "build_app_commands",
    "callback",
    "signature",
    "suggest",
]
