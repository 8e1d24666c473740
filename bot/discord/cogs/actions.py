"""The unit actions: ``/move``, ``/fire``, ``/odds``, ``/callarty``, ``/morale``, ``/test``,
``/assault``, and indirect fire's ``/execute`` and ``/fragments``.

The player types only what the bot cannot know (distances measured on the table, the
weapon or ammunition chosen, physical dice); the game state supplies the rest. Option
names are passed to the service unchanged: it maps them to the ruleset's commands.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.commands import choices, options, suggest
from bot.discord.runner import run_command
from bot.discord.translator import command_description, command_name

Text = app_commands.Range[str, 1, 200]
Name = app_commands.Range[str, 1, 100]
Dice = app_commands.Range[str, 1, 100]
Distance = app_commands.Range[float, 0, 10_000]
MoveDistance = app_commands.Range[float, 0, 1_000]
Models = app_commands.Range[int, 1, 20]

FIRE_OPTIONS = {
    "unit": "unit", "target": "target", "distance": "distance", "weapon": "weapon",
    "ammo": "ammo", "facing": "facing", "impact": "impact", "move_terrain": "move_terrain",
    "move_distance": "move_distance", "models": "models", "location": "location",
}
FIRE_CHOICES = {
    "ammo": choices("AP", "HE"),
    "facing": choices("front", "side", "rear"),
    "impact": choices("lt75", "gt75"),
}
FIRE_SUGGEST = {
    "unit": suggest("unit"), "target": suggest("target"), "weapon": suggest("weapon"),
    "move_terrain": suggest("terrain"),
}


class ActionsCog(commands.Cog):
    """Top-level action commands."""

    @app_commands.command(name=command_name("move"), description=command_description("move"))
    @options(unit="unit", terrain="terrain", distance="distance_move", kind="kind_move",
             via="via", conceal="conceal", dice="dice")
    @app_commands.choices(kind=choices("tattico", "breve", "cauto", "hold"))
    @app_commands.autocomplete(unit=suggest("unit"), terrain=suggest("terrain"))
    async def move(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        terrain: Name | None = None,
        distance: MoveDistance | None = None,
        kind: str | None = None,
        via: Text | None = None,
        conceal: bool | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Move a unit (its last leg's terrain becomes its terrain), or hold it in place
        (``kind: hold``, which needs neither terrain nor distance)."""
        await run_command(interaction, "move",
                          {"unit": unit, "terrain": terrain, "distance": distance, "kind": kind,
                           "via": via, "conceal": conceal}, dice=dice)

    @app_commands.command(name=command_name("fire"), description=command_description("fire"))
    @options(**FIRE_OPTIONS, dice="dice")
    @app_commands.choices(**FIRE_CHOICES)
    @app_commands.autocomplete(**FIRE_SUGGEST)
    async def fire(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name,
        distance: Distance,
        weapon: Name | None = None,
        ammo: str | None = None,
        facing: str | None = None,
        impact: str | None = None,
        move_terrain: Name | None = None,
        move_distance: MoveDistance | None = None,
        models: Models | None = None,
        location: Name | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Fire (or move and fire) at an enemy unit."""
        await run_command(interaction, "fire", {
            "unit": unit, "target": target, "distance": distance, "weapon": weapon,
            "ammo": ammo, "facing": facing, "impact": impact, "move_terrain": move_terrain,
            "move_distance": move_distance, "models": models, "location": location,
        }, dice=dice)

    @app_commands.command(name=command_name("odds"), description=command_description("odds"))
    @options(**FIRE_OPTIONS)
    @app_commands.choices(**FIRE_CHOICES)
    @app_commands.autocomplete(**FIRE_SUGGEST)
    async def odds(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name,
        distance: Distance,
        weapon: Name | None = None,
        ammo: str | None = None,
        facing: str | None = None,
        impact: str | None = None,
        move_terrain: Name | None = None,
        move_distance: MoveDistance | None = None,
        models: Models | None = None,
        location: Name | None = None,
    ) -> None:
        """The odds of a fire, shown only to the asker; nothing is rolled or recorded."""
        await run_command(interaction, "odds", {
            "unit": unit, "target": target, "distance": distance, "weapon": weapon,
            "ammo": ammo, "facing": facing, "impact": impact, "move_terrain": move_terrain,
            "move_distance": move_distance, "models": models, "location": location,
        }, private=True)

    @app_commands.command(name=command_name("callarty"),
                          description=command_description("callarty"))
    @options(unit="unit", battery="battery", target="target_point", distance="link_distance",
             link="link", sight="sight", entrenched="entrenched", dice="dice")
    @app_commands.choices(
        link=choices("stessa_squadra", "stesso_plotone", "stesso_plotone_radio", "altro_plotone"),
        sight=choices("diretta", "interrotta"),
    )
    @app_commands.autocomplete(unit=suggest("unit"), battery=suggest("battery"))
    async def callarty(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        battery: Name,
        target: Text,
        distance: Distance,
        link: str | None = None,
        sight: str | None = None,
        entrenched: bool | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Request indirect fire on a point of the table."""
        await run_command(interaction, "callarty", {
            "unit": unit, "battery": battery, "target": target, "distance": distance,
            "link": link, "sight": sight, "entrenched": entrenched,
        }, dice=dice)

    @app_commands.command(name=command_name("morale"),
                          description=command_description("morale"))
    @options(unit="unit", action="action", dice="dice")
    @app_commands.choices(action=choices("test", "recover"))
    @app_commands.autocomplete(unit=suggest("unit"))
    async def morale(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        action: str | None = None,
        dice: Dice | None = None,
    ) -> None:
        """A courage test (``test``) or the recovery from panic (``recover``)."""
        verb = "recover" if action == "recover" else "morale"
        await run_command(interaction, verb, {"unit": unit}, dice=dice)

    @app_commands.command(name=command_name("test"), description=command_description("test"))
    @options(unit="unit", kind="kind_test", opponent="opponent", dice="dice")
    @app_commands.choices(kind=choices("IT", "DFR", "IFR", "SF", "CT", "PT", "ET", "CC"))
    @app_commands.autocomplete(unit=suggest("unit"), opponent=suggest("target"))
    async def test(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        kind: str,
        opponent: Name | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Roll a test: an owed one if pending, otherwise a free one."""
        await run_command(interaction, "test",
                          {"unit": unit, "kind": kind, "opponent": opponent}, dice=dice)

    @app_commands.command(name=command_name("assault"),
                          description=command_description("assault"))
    @options(unit="unit", target="target", weapon="weapon", dice="dice")
    @app_commands.autocomplete(unit=suggest("unit"), target=suggest("target"),
                               weapon=suggest("weapon"))
    async def assault(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name,
        weapon: Name | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Assault an enemy unit."""
        await run_command(interaction, "assault",
                          {"unit": unit, "target": target, "weapon": weapon}, dice=dice)

    @app_commands.command(name=command_name("execute"),
                          description=command_description("execute"))
    @options(marker="marker", dice="dice")
    @app_commands.autocomplete(marker=suggest("marker"))
    async def execute(
        self,
        interaction: discord.Interaction[Any],
        marker: Name,
        dice: Dice | None = None,
    ) -> None:
        """Execute an indirect-fire marker (its scatter)."""
        await run_command(interaction, "execute", {"marker": marker}, dice=dice)

    @app_commands.command(name=command_name("fragments"),
                          description=command_description("fragments"))
    @options(target="target", marker="marker", dice="dice")
    @app_commands.autocomplete(target=suggest("target"), marker=suggest("marker"))
    async def fragments(
        self,
        interaction: discord.Interaction[Any],
        target: Name,
        marker: Name | None = None,
        dice: Dice | None = None,
    ) -> None:
        """HE fragments of an executed marker on a unit in the blast."""
        await run_command(interaction, "fragments", {"target": target, "marker": marker},
                          dice=dice)


__all__ = ["ActionsCog"]
