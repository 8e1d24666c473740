"""The unit actions of every ruleset: ``/move``, ``/fire``, ``/odds``, ``/callarty``,
``/morale``, ``/test``, ``/assault``, ``/execute``, ``/fragments``, ``/step``, ``/template``
and ``/combat``.

One slash command serves four rulesets, so each offers the union of the options the
rulesets accept; a player fills only what the game in the channel needs, unset options are
dropped by the service, and the ruleset validates the rest. The player types only what the
bot cannot know (distances measured on the table, choices, physical dice); the game state
supplies everything else. Fixed vocabularies are localized choices; names of units,
targets, weapons and places are autocompleted from the channel's game.
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
Count = app_commands.Range[int, 0, 100]
Modifier = app_commands.Range[int, -10, 10]

# The values each ruleset accepts, together (the ruleset in play refuses the others).
MOVE_KINDS = (
    "tattico",
    "breve",
    "cauto",
    "hold",
    "move",
    "normal",
    "deepstrike",
    "mishap",
    "normale",
    "corsa",
    "strada",
    "fuori_strada",
    "sali",
    "scendi",
)
FACINGS = ("front", "side", "rear", "fronte", "fianco", "retro")
TEST_KINDS = (
    "IT",
    "DFR",
    "IFR",
    "SF",
    "CT",
    "PT",
    "ET",
    "CC",
    "azione",
    "mirare",
    "piazzare",
    "ricaricare",
    "medicare",
    "scavare",
    "disinnescare",
    "osservare",
    "mine",
    "comando",
    "fumo",
)

FIRE_STEMS = {
    "unit": "unit",
    "target": "target",
    "distance": "distance",
    "weapon": "weapon",
    "ammo": "ammo",
    "facing": "facing",
    "impact": "impact",
    "move_terrain": "move_terrain",
    "move_distance": "move_distance",
    "models": "models",
    "location": "location",
    "hex": "hex",
    "mode": "mode",
    "opportunity": "opportunity",
    "modifiers": "modifiers",
    "cover": "cover",
    "kind": "kind_fire",
    "models_long": "models_long",
    "man": "man",
    "shooters": "shooters",
    "modifier": "modifier",
}
FIRE_CHOICES = {
    "ammo": choices("AP", "HE"),
    "facing": choices(*FACINGS),
    "impact": choices("lt75", "gt75"),
    "mode": choices("direct", "at", "singolo", "area"),
    "kind": choices("normale", "copertura"),
}
FIRE_SUGGEST = {
    "unit": suggest("unit"),
    "target": suggest("target"),
    "weapon": suggest("weapon"),
    "move_terrain": suggest("terrain"),
    "hex": suggest("hex"),
    "modifiers": suggest("modifiers"),
    "cover": suggest("cover"),
}


def _fire_options(**given: Any) -> dict[str, Any]:
    return {name: given.get(name) for name in FIRE_STEMS}


class ActionsCog(commands.Cog):
    """Top-level action commands."""

    @app_commands.command(name=command_name("move"), description=command_description("move"))
    @options(
        unit="unit",
        terrain="terrain",
        distance="distance_move",
        kind="kind_move",
        via="via",
        conceal="conceal",
        hex="hex_move",
        inside="inside",
        cover="cover_move",
        target="target_move",
        mods="mods",
        place="place",
        hidden="hidden",
        behind="behind",
        vehicle="vehicle",
        minefield="minefield",
        models="models_mine",
        dice="dice",
    )
    @app_commands.choices(kind=choices(*MOVE_KINDS))
    @app_commands.autocomplete(
        unit=suggest("unit"),
        terrain=suggest("terrain"),
        hex=suggest("hex"),
        cover=suggest("cover"),
        target=suggest("target"),
        mods=suggest("mods"),
        vehicle=suggest("unit"),
        minefield=suggest("minefield"),
    )
    async def move(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        terrain: Name | None = None,
        distance: MoveDistance | None = None,
        kind: str | None = None,
        via: Text | None = None,
        conceal: bool | None = None,
        hex: Name | None = None,
        inside: bool | None = None,
        cover: Name | None = None,
        target: Name | None = None,
        mods: Text | None = None,
        place: Text | None = None,
        hidden: bool | None = None,
        behind: bool | None = None,
        vehicle: Name | None = None,
        minefield: Name | None = None,
        models: Count | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Move a unit, or hold it in place (``kind: hold``)."""
        await run_command(
            interaction,
            "move",
            {
                "unit": unit,
                "terrain": terrain,
                "distance": distance,
                "kind": kind,
                "via": via,
                "conceal": conceal,
                "hex": hex,
                "inside": inside,
                "cover": cover,
                "target": target,
                "mods": mods,
                "place": place,
                "hidden": hidden,
                "behind": behind,
                "vehicle": vehicle,
                "minefield": minefield,
                "models": models,
            },
            dice=dice,
        )

    @app_commands.command(name=command_name("fire"), description=command_description("fire"))
    @options(**FIRE_STEMS, dice="dice")
    @app_commands.choices(**FIRE_CHOICES)
    @app_commands.autocomplete(**FIRE_SUGGEST)
    async def fire(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name | None = None,
        distance: Distance | None = None,
        weapon: Name | None = None,
        ammo: str | None = None,
        facing: str | None = None,
        impact: str | None = None,
        move_terrain: Name | None = None,
        move_distance: MoveDistance | None = None,
        models: Count | None = None,
        location: Name | None = None,
        hex: Name | None = None,
        mode: str | None = None,
        opportunity: bool | None = None,
        modifiers: Text | None = None,
        cover: Name | None = None,
        kind: str | None = None,
        models_long: Count | None = None,
        man: Count | None = None,
        shooters: Count | None = None,
        modifier: Modifier | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Fire (or move and fire) at an enemy."""
        await run_command(
            interaction,
            "fire",
            _fire_options(
                unit=unit,
                target=target,
                distance=distance,
                weapon=weapon,
                ammo=ammo,
                facing=facing,
                impact=impact,
                move_terrain=move_terrain,
                move_distance=move_distance,
                models=models,
                location=location,
                hex=hex,
                mode=mode,
                opportunity=opportunity,
                modifiers=modifiers,
                cover=cover,
                kind=kind,
                models_long=models_long,
                man=man,
                shooters=shooters,
                modifier=modifier,
            ),
            dice=dice,
        )

    @app_commands.command(name=command_name("odds"), description=command_description("odds"))
    @options(**FIRE_STEMS)
    @app_commands.choices(**FIRE_CHOICES)
    @app_commands.autocomplete(**FIRE_SUGGEST)
    async def odds(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name | None = None,
        distance: Distance | None = None,
        weapon: Name | None = None,
        ammo: str | None = None,
        facing: str | None = None,
        impact: str | None = None,
        move_terrain: Name | None = None,
        move_distance: MoveDistance | None = None,
        models: Count | None = None,
        location: Name | None = None,
        hex: Name | None = None,
        mode: str | None = None,
        opportunity: bool | None = None,
        modifiers: Text | None = None,
        cover: Name | None = None,
        kind: str | None = None,
        models_long: Count | None = None,
        man: Count | None = None,
        shooters: Count | None = None,
        modifier: Modifier | None = None,
    ) -> None:
        """The odds of a fire, shown only to the asker; nothing is rolled or recorded."""
        await run_command(
            interaction,
            "odds",
            _fire_options(
                unit=unit,
                target=target,
                distance=distance,
                weapon=weapon,
                ammo=ammo,
                facing=facing,
                impact=impact,
                move_terrain=move_terrain,
                move_distance=move_distance,
                models=models,
                location=location,
                hex=hex,
                mode=mode,
                opportunity=opportunity,
                modifiers=modifiers,
                cover=cover,
                kind=kind,
                models_long=models_long,
                man=man,
                shooters=shooters,
                modifier=modifier,
            ),
            private=True,
        )

    @app_commands.command(
        name=command_name("callarty"), description=command_description("callarty")
    )
    @options(
        unit="unit",
        battery="battery",
        target="target_point",
        distance="link_distance",
        link="link",
        sight="sight",
        entrenched="entrenched",
        dice="dice",
    )
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
        distance: Distance | None = None,
        link: str | None = None,
        sight: str | None = None,
        entrenched: bool | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Request indirect fire (or air support) on a point of the table."""
        await run_command(
            interaction,
            "callarty",
            {
                "unit": unit,
                "battery": battery,
                "target": target,
                "distance": distance,
                "link": link,
                "sight": sight,
                "entrenched": entrenched,
            },
            dice=dice,
        )

    @app_commands.command(name=command_name("morale"), description=command_description("morale"))
    @options(
        unit="unit",
        action="action",
        reason="reason",
        enemy_near="enemy_near",
        air="air",
        isolated="isolated",
        dice="dice",
    )
    @app_commands.choices(action=choices("test", "recover"))
    @app_commands.autocomplete(unit=suggest("unit"), reason=suggest("reason"))
    async def morale(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        action: str | None = None,
        reason: Name | None = None,
        enemy_near: bool | None = None,
        air: bool | None = None,
        isolated: bool | None = None,
        dice: Dice | None = None,
    ) -> None:
        """A morale test (``test``, the default) or the recovery from panic (``recover``)."""
        verb = "recover" if action == "recover" else "morale"
        extra = (
            {}
            if verb == "recover"
            else {"reason": reason, "enemy_near": enemy_near, "air": air, "isolated": isolated}
        )
        await run_command(interaction, verb, {"unit": unit, **extra}, dice=dice)

    @app_commands.command(name=command_name("test"), description=command_description("test"))
    @options(
        unit="unit",
        kind="kind_test",
        opponent="opponent",
        modifier="modifier",
        difficulty="difficulty",
        target="target_test",
        man="man",
        distance="distance",
        minefield="minefield",
        weapon="weapon",
        task="task",
        turns="turns",
        source="source",
        place="place",
        dice="dice",
    )
    @app_commands.choices(
        kind=choices(*TEST_KINDS),
        difficulty=choices("molto_facile", "facile", "normale", "difficile"),
        source=choices("bomba_mano", "lanciafumogeni_veicolo"),
    )
    @app_commands.autocomplete(
        unit=suggest("unit"),
        opponent=suggest("target"),
        minefield=suggest("minefield"),
        weapon=suggest("weapon"),
    )
    async def test(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        kind: str | None = None,
        opponent: Name | None = None,
        modifier: Modifier | None = None,
        difficulty: str | None = None,
        target: Text | None = None,
        man: Count | None = None,
        distance: Distance | None = None,
        minefield: Name | None = None,
        weapon: Name | None = None,
        task: Text | None = None,
        turns: app_commands.Range[int, 1, 10] | None = None,
        source: str | None = None,
        place: Text | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Roll a test or an action: an owed one if pending, otherwise a free one."""
        await run_command(
            interaction,
            "test",
            {
                "unit": unit,
                "kind": kind,
                "opponent": opponent,
                "modifier": modifier,
                "difficulty": difficulty,
                "target": target,
                "man": man,
                "distance": distance,
                "minefield": minefield,
                "weapon": weapon,
                "task": task,
                "turns": turns,
                "source": source,
                "place": place,
            },
            dice=dice,
        )

    @app_commands.command(name=command_name("assault"), description=command_description("assault"))
    @options(
        unit="unit",
        target="target",
        weapon="weapon",
        distance="distance",
        terrain="terrain_assault",
        dice="dice",
    )
    @app_commands.autocomplete(
        unit=suggest("unit"),
        target=suggest("target"),
        weapon=suggest("weapon"),
        terrain=suggest("terrain"),
    )
    async def assault(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name,
        weapon: Name | None = None,
        distance: Distance | None = None,
        terrain: Name | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Assault an enemy unit."""
        await run_command(
            interaction,
            "assault",
            {
                "unit": unit,
                "target": target,
                "weapon": weapon,
                "distance": distance,
                "terrain": terrain,
            },
            dice=dice,
        )

    @app_commands.command(name=command_name("execute"), description=command_description("execute"))
    @options(
        marker="marker",
        order="order_fire",
        visible="visible",
        ammo="ammo_support",
        where="where",
        dice="dice",
    )
    @app_commands.choices(
        order=choices("tiro", "effetto", "aggiusta", "fine", "mitraglia"),
        ammo=choices("he", "fumo"),
    )
    @app_commands.autocomplete(marker=suggest("marker"))
    async def execute(
        self,
        interaction: discord.Interaction[Any],
        marker: Name,
        order: str | None = None,
        visible: bool | None = None,
        ammo: str | None = None,
        where: Text | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Execute an indirect-fire or air-support marker."""
        await run_command(
            interaction,
            "execute",
            {"marker": marker, "order": order, "visible": visible, "ammo": ammo, "where": where},
            dice=dice,
        )

    @app_commands.command(
        name=command_name("fragments"), description=command_description("fragments")
    )
    @options(target="target", marker="marker", ring="ring", models="models_blast", dice="dice")
    @app_commands.choices(ring=choices("breve", "lunga"))
    @app_commands.autocomplete(target=suggest("target"), marker=suggest("marker"))
    async def fragments(
        self,
        interaction: discord.Interaction[Any],
        target: Name,
        marker: Name | None = None,
        ring: str | None = None,
        models: Count | None = None,
        dice: Dice | None = None,
    ) -> None:
        """The blast of an executed marker on a unit inside it."""
        await run_command(
            interaction,
            "fragments",
            {"target": target, "marker": marker, "ring": ring, "models": models},
            dice=dice,
        )

    @app_commands.command(name=command_name("step"), description=command_description("step"))
    @options(unit="unit_step")
    @app_commands.autocomplete(unit=suggest("unit"))
    async def step(self, interaction: discord.Interaction[Any], unit: Name) -> None:
        """Choose the unit that takes a step loss (the owner's choice)."""
        await run_command(interaction, "step", {"unit": unit})

    @app_commands.command(
        name=command_name("template"), description=command_description("template")
    )
    @options(
        unit="unit",
        target="target",
        models="models_template",
        partial="partial",
        facing="facing",
        dice="dice",
    )
    @app_commands.choices(facing=choices(*FACINGS))
    @app_commands.autocomplete(unit=suggest("unit"), target=suggest("target"))
    async def template(
        self,
        interaction: discord.Interaction[Any],
        unit: Name,
        target: Name,
        models: Count,
        partial: Count | None = None,
        facing: str | None = None,
        dice: Dice | None = None,
    ) -> None:
        """Count the models under a blast template that has scattered."""
        await run_command(
            interaction,
            "template",
            {
                "unit": unit,
                "target": target,
                "models": models,
                "partial": partial,
                "facing": facing,
            },
            dice=dice,
        )

    @app_commands.command(name=command_name("combat"), description=command_description("combat"))
    @options(unit="unit_combat", dice="dice")
    @app_commands.autocomplete(unit=suggest("unit"))
    async def combat(
        self, interaction: discord.Interaction[Any], unit: Name, dice: Dice | None = None
    ) -> None:
        """Resolve the close combat a unit is locked in."""
        await run_command(interaction, "combat", {"unit": unit}, dice=dice)


__all__ = ["ActionsCog"]
