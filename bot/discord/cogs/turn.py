"""``/turn`` (the turn sequence) and ``/manoeuvre`` (declarations and tokens)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.commands import choices, options, suggest
from bot.discord.runner import run_command
from bot.discord.translator import command_description, command_name


class TurnCog(commands.Cog):
    """The ``/turn`` and ``/manoeuvre`` groups."""

    turn = app_commands.Group(name=command_name("turn"), description=command_description("turn"))
    manoeuvre = app_commands.Group(
        name=command_name("manoeuvre"), description=command_description("manoeuvre")
    )

    @turn.command(name=command_name("turn.status"), description=command_description("turn.status"))
    async def turn_status(self, interaction: discord.Interaction[Any]) -> None:
        """Show the turn, phase and whose move it is."""
        await run_command(interaction, "turn.status", {})

    @turn.command(name=command_name("turn.next"), description=command_description("turn.next"))
    @options(order="order_turn")
    @app_commands.choices(order=choices("first", "second"))
    async def turn_next(
        self, interaction: discord.Interaction[Any], order: str | None = None
    ) -> None:
        """Advance the turn sequence (``order``: the initiative winner moves first or second)."""
        await run_command(interaction, "turn.next", {"order": order})

    @manoeuvre.command(
        name=command_name("manoeuvre.declare"), description=command_description("manoeuvre.declare")
    )
    @options(platoon="platoon")
    @app_commands.autocomplete(platoon=suggest("platoon"))
    async def declare(
        self, interaction: discord.Interaction[Any], platoon: app_commands.Range[str, 1, 100]
    ) -> None:
        """Declare the platoon that manoeuvres."""
        await run_command(interaction, "manoeuvre.declare", {"platoon": platoon})

    @manoeuvre.command(
        name=command_name("manoeuvre.pass"), description=command_description("manoeuvre.pass")
    )
    async def pass_token(self, interaction: discord.Interaction[Any]) -> None:
        """Hand over a manoeuvre token."""
        await run_command(interaction, "manoeuvre.pass", {})


__all__ = ["TurnCog"]
