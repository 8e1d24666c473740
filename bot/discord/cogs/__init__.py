"""The slash commands, grouped by area. Each command only builds a request and hands it to
:func:`bot.discord.runner.run_command`: no rule is decided here."""

from __future__ import annotations

from bot.discord.cogs.actions import ActionsCog
from bot.discord.cogs.game import GameCog
from bot.discord.cogs.turn import TurnCog

COGS = (GameCog, TurnCog, ActionsCog)

__all__ = ["COGS", "ActionsCog", "GameCog", "TurnCog"]
