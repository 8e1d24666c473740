"""The console table plays linea_gotica with Discord's commands and option names."""

from __future__ import annotations

import io

from bot.console.table import Console

SCRIPT = [
    "/game new ruleset:linea_gotica scenario:esempio_gotica language:en",
    "/as anna",
    "/game join side:alleati",
    "/as bruno",
    "/game join side:tedeschi",
    "/as anna",
    "/turn next dice:8",  # anna rolls the Allies' die; the bot rolls the Germans' (3)
    "/turn next order:first",
    "/turn next",
    "/as bruno",
    "/turn next",
    "/as anna",
    "/turn next",
    "/as bruno",
    "/turn next",
    "/as anna",
    "/turn next",
    "/as bruno",
    "/turn next",
    "/as anna",
    "/morale unit:squadra_1 action:test reason:avanzare enemy_near:true dice:3,4,5,6,7,2,1,3",
    "/morale unit:squadra_1 action:recover",
]


async def test_a_console_script_uses_discords_options(service, dice):
    dice.push(3)  # the Germans' initiative die: theirs, not anna's typed dice
    out = io.StringIO()
    console = Console(service, out, channel_id=80)
    errors = await console.run(SCRIPT, interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    assert errors == 1, text  # linea_gotica has no recovery verb: the rules say so
    # The initiative's follow-ups are shown as the console command to type.
    assert "→ I move first: /turn next order:first" in text
    assert "» Turn 1: Fire and actions" in text
    morale = text.split("reason:avanzare")[1]
    assert morale.count("== Morale ==") == 8
    assert morale.count("Outcome: Morale passed") == 8
    # Eight soldiers, the same odds: shown once.
    assert morale.count("Odds") == 1
    assert "Odds (each of these 8): Morale passed: 90.0% · Shocked: 6.0%" in morale
    assert "! /morale action:recover is not a command of linea_gotica" in morale
