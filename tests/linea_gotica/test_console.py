"""The console table plays linea_gotica with Discord's commands and option names."""

from __future__ import annotations

import io
import json

from bot.console.table import Console
from bot.service.events import VERB_REPLAYED
from db.models import NewEvent
from rules.core.i18n import colon

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


async def test_the_initiative_names_the_sides_in_the_games_language(service, dice):
    # The rolls and the odds read "Allies"/"Germans" (in French "Alliés"/"Allemands"),
    # not the sides' ids ("alleati", "tedeschi") the procedure works on.
    for language, first, second in (("en", "Allies", "Germans"), ("fr", "Alliés", "Allemands")):
        dice.push(8, 3)
        out = io.StringIO()
        channel = 81 if language == "en" else 82
        console = Console(service, out, channel_id=channel)
        await console.run(
            [
                f"/game new ruleset:linea_gotica scenario:esempio_gotica language:{language}",
                "/as anna",
                "/game join side:alleati",
                "/as bruno",
                "/game join side:tedeschi",
                "/as anna",
                "/turn next",
                "/game log count:3",
            ],
            interactive=False,
        )
        rolled = out.getvalue().split("/turn next")[1]
        assert f"Initiative{colon(language)} {first}{colon(language)} D10=8" in rolled, rolled
        assert f"{second}" in rolled and "alleati" not in rolled and "tedeschi" not in rolled
        logged = out.getvalue().split("/game log count:3")[1]
        assert first in logged and "alleati" not in logged, logged


async def test_a_player_called_on_is_named_as_seated_by_a_later_console(service, dice):
    # The seats were taken in one console session; a second one (a new process: it knows
    # none of the names typed in the first) calls on the player by the name recorded with
    # the seat, not by a number.
    first = Console(service, io.StringIO(), channel_id=83)
    await first.run(
        [
            "/game new ruleset:linea_gotica scenario:esempio_gotica language:en",
            "/as anna",
            "/game join side:alleati",
            "/as bruno",
            "/game join side:tedeschi",
        ],
        interactive=False,
    )
    dice.push(8, 3)  # the Allies win the initiative: anna chooses who moves first
    out = io.StringIO()
    later = Console(service, out, channel_id=83)
    await later.run(["/as bruno", "/turn next"], interactive=False)
    assert "Your move: @anna" in out.getvalue(), out.getvalue()


async def _console_after_leaders_fell(service, store, out: io.StringIO, channel: int) -> Console:
    """esempio_gotica_campo at the console, anna at the Allies, bruno at the Germans, then
    the leaders of the Allies' first squad and of the hidden MG dead (a state the referee
    adopted): the next ``/turn next`` rolls for both new leaders."""
    console = Console(service, out, channel_id=channel)
    setup = [
        "/game new ruleset:linea_gotica scenario:esempio_gotica_campo language:en",
        "/as anna",
        "/game join side:alleati",
        "/as bruno",
        "/game join side:tedeschi",
    ]
    assert await console.run(setup, interactive=False) == 0
    record = await store.load(channel)
    document = json.loads(json.dumps(record.document))
    for unit in ("squadra_1", "mg_casolare"):
        document["units"][unit]["figures"][0]["dead"] = True
    await store.commit(channel, record.version, document, NewEvent(VERB_REPLAYED))
    return console


async def test_the_console_shows_a_hidden_squads_new_leader_to_its_side_alone(service, dice, store):
    for channel, player, told in ((81, "anna", False), (82, "bruno", True)):
        out = io.StringIO()
        console = await _console_after_leaders_fell(service, store, out, channel)
        dice.push(1, 1, 8, 3)  # both new leaders (the MG first: by id), then the initiative
        start = len(out.getvalue())
        assert await console.run([f"/as {player}", "/turn next"], interactive=False) == 0
        text = out.getvalue()[start:]
        assert "1st Rifle Squad: soldier 2 takes command" in text
        assert ("Farmhouse MG 42: soldier 2 takes command" in text) is told, text
        assert ("MG 42" in text) is told
