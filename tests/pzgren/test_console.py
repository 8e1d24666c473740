"""The console table plays pzgren: a piped script with the verbs the console knows."""

from __future__ import annotations

import io
import re

from bot.console.table import Console

SCRIPT = """\
/game new ruleset:pzgren scenario:exemple_ardennes language:en
/as anna
/game join side:us
/as bruno
/game join side:de
/as anna
/odds unit:us_m10 target:de_panther
/move unit:us_rifle_1 hex:4,3
/as bruno
/fire unit:de_pzgren_1 hex:4,3 opportunity:true dice:1,1
/fire unit:de_hmg hex:4,3
/as anna
/morale unit:us_rifle_1 dice:3,3
/as bruno
/fire unit:de_panther target:us_m10 dice:6,6
/as anna
/morale unit:us_rifle_1 action:recover dice:2,2
/move unit:us_rifle_2 kind:hold
/as bruno
/move unit:de_hmg kind:hold
/as anna
/turn next
/turn
"""


async def test_a_console_script(service):
    out = io.StringIO()
    console = Console(service, out, channel_id=77)
    errors = await console.run(SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert errors == 2, text  # fire while a morale check is owed; a rally after acting
    assert "» Game created: Ardennes, December 1944 (example) (Americans, Germans)." in text
    assert (
        "Odds — Anti-tank fire (TABLE DE TIR ANTI-CHARS): No effect: 58.3% · The target loses"
        " a step (1 left) and checks morale M2: 33.3% · Target eliminated: 8.3%"
    ) in text
    assert "» Unit 1st Rifle Platoon moves to 4,3 (2 hexes)" in text
    assert (
        "2. Column 7 → 11: +1 opportunity fire = 1 — Table «TABLE DE TIR DIRECT», row 2,"
        " column 11: «X»"
    ) in text
    assert "→ Morale check M2 for 1st Rifle Platoon: /morale unit:us_rifle_1" in text
    assert (
        "! Not now: Americans must first check the morale of 1st Rifle Platoon (/morale)." in text
    )
    assert "1. Morale check M2: D6=3 D6=3 +2 M# = 8 <= 7 (morale)" in text
    assert "Outcome: Morale failed: disrupted" in text
    assert "Outcome: Target eliminated" in text and "» Unit M10 Tank Destroyer is eliminated" in text
    assert "! Unit 1st Rifle Platoon has already acted this turn." in text
    assert "» Unit MG 42 Zug holds" in text
    assert "» Pass by Americans" in text
    status = text.split("/turn\n")[-1]
    assert "Turn 1 — alternating activations, Germans to act" in status
    # Columns as wide as the longest name shown (the Germans' "1. Zug Panzergrenadiere").
    assert re.search(r"us_rifle_1 +1st Rifle Platoon +1/2  4,3  \[disrupted\] ✓", status)
    assert re.search(r"us_m10 +M10 Tank Destroyer +0/2  4,2  \[eliminated\]", status)


STEP_SCRIPT = """\
/game new ruleset:pzgren scenario:exemple_ardennes language:en
/as anna
/game join side:us
/as bruno
/game join side:de
/as anna
/move unit:us_rifle_1 hex:4,3
/as bruno
/fire unit:de_pzgren_1 hex:4,3 opportunity:true dice:1,1
/as anna
/morale unit:us_rifle_1 action:test dice:3,3
/as bruno
/move unit:de_pzgren_2 kind:hold
/as anna
/fire unit:us_rifle_2,us_mortar hex:6,3 dice:1,1
/as bruno
/turn next
/step unit:de_hmg
/morale unit:de_pzgren_1 dice:4,2
/as arbitro
/turn next
/as anna
/turn next
/morale unit:us_rifle_1 action:recover dice:2,2
/turn
"""


async def test_a_console_script_assigns_a_step_loss_and_rallies(service):
    """An X with a choice: the owner picks the step loss with /step, then the turn goes on;
    /morale action:recover (Discord's option) rallies in turn 2."""
    out = io.StringIO()
    console = Console(service, out, channel_id=78)
    errors = await console.run(STEP_SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    assert errors == 1, text  # /turn next while the step loss is owed
    assert "→ One step loss to MG 42 Zug (1 to assign in 6,3): /step unit:de_hmg" in text
    assert (
        "[bruno] /turn next\n! Not now: Germans must first assign 1 step loss in 6,3"
        " (/step)." in text
    )
    assert "[bruno] /step unit:de_hmg\n» Unit MG 42 Zug is eliminated" in text
    assert "» Turn 2: first to activate, Americans" in text
    rally = text.split("action:recover dice:2,2")[1]
    assert "Outcome: Unit rallied: in good order" in rally
    assert re.search(r"us_rifle_1 +1st Rifle Platoon +1/2  4,3", rally)
