"""``/game``: create, join, show, log, export, undo, end a channel's game, set deadlines."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.commands import choices, options, suggest
from bot.discord.runner import run_command
from bot.discord.translator import command_description, command_name
from rules.core.i18n import LANGUAGES


class GameCog(commands.Cog):
    """The ``/game`` group."""

    game = app_commands.Group(name=command_name("game"), description=command_description("game"))

    @game.command(name=command_name("game.new"), description=command_description("game.new"))
    @options(ruleset="ruleset", scenario="scenario", file="file", language="language")
    # The ruleset is autocompleted rather than a fixed choice: the list grows with every
    # ruleset, and fixed choices with their localizations would swell the /game payload.
    @app_commands.choices(language=choices(*LANGUAGES))
    @app_commands.autocomplete(ruleset=suggest("ruleset"))
    @app_commands.autocomplete(scenario=suggest("scenario"))
    async def new(
        self,
        interaction: discord.Interaction[Any],
        ruleset: str | None = None,
        scenario: app_commands.Range[str, 1, 100] | None = None,
        file: discord.Attachment | None = None,
        language: str | None = None,
    ) -> None:
        """Start a game; the uploaded file, if any, is the scenario."""
        await run_command(
            interaction,
            "game.new",
            {"ruleset": ruleset, "scenario": scenario, "language": language},
            attachment=file,
        )

    @game.command(name=command_name("game.join"), description=command_description("game.join"))
    @options(side="side")
    @app_commands.autocomplete(side=suggest("side"))
    async def join(
        self, interaction: discord.Interaction[Any], side: app_commands.Range[str, 1, 100]
    ) -> None:
        """Join a side."""
        await run_command(interaction, "game.join", {"side": side})

    @game.command(name=command_name("game.status"), description=command_description("game.status"))
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """Show the game."""
        await run_command(interaction, "game.status", {})

    @game.command(name=command_name("game.log"), description=command_description("game.log"))
    @options(count="count")
    async def log(
        self,
        interaction: discord.Interaction[Any],
        count: app_commands.Range[int, 1, 50] | None = None,
    ) -> None:
        """Show the last events."""
        await run_command(interaction, "game.log", {"count": count})

    @game.command(name=command_name("game.export"), description=command_description("game.export"))
    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """Attach the log as JSON and as a report."""
        await run_command(interaction, "game.export", {})

    @game.command(name=command_name("game.undo"), description=command_description("game.undo"))
    async def undo(self, interaction: discord.Interaction[Any]) -> None:
        """Undo the last event (the service allows it to the referee only)."""
        await run_command(interaction, "game.undo", {})

    @game.command(name=command_name("game.end"), description=command_description("game.end"))
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End the game (referee only)."""
        await run_command(interaction, "game.end", {})

    @game.command(
        name=command_name("game.deadline"), description=command_description("game.deadline")
    )
    @options(hours="hours", side="side")
    @app_commands.autocomplete(side=suggest("side"))
    async def deadline(
        self,
        interaction: discord.Interaction[Any],
        hours: app_commands.Range[int, 0, 1440],
        side: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        """Set (or with 0 clear) a side's deadline (referee only)."""
        await run_command(interaction, "game.deadline", {"hours": hours, "side": side})


__all__ = ["GameCog"]
