"""The console table plays w40k4 with Discord's commands; dice are typed in the script.

An assault, a close combat (/combat), the loser's morale (/morale action:test) and a blast
template that must be placed (/template) are played by the players alone in
tests/w40k4/test_console_script.py, where each side rolls its own dice.
"""

from __future__ import annotations

import io
import re

from bot.console.table import Console

SCRIPT = """\
/game new ruleset:w40k4 scenario:avamposto language:en
/as anna
/game join side:legione
/as bruno
/game join side:predoni
/as anna
/move unit:squadra_tattica distance:6 terrain:difficult cover:rovine dice:3,5
/move unit:mezzo_corazzato distance:10 target:banda
/fire unit:squadra_tattica target:banda distance:10
/turn next
/odds unit:squadra_tattica target:motopredoni distance:10 weapon:pistola
/fire unit:squadra_tattica target:motopredoni distance:10 weapon:pistola dice:4,5
/turn next
/as bruno
/morale unit:motopredoni dice:3,3
/as anna
/test unit:devastatori modifier:-1 dice:6,1
/turn
"""


async def test_a_console_script_plays_w40k4(service, dice):
    # Dice belong to their roller: the tank-shocked and falling-back Predoni and the
    # pistol's target roll their own dice, made by the bot (queued here, in order).
    dice.push(4, 4, 3, 3, 2)
    out = io.StringIO()
    console = Console(service, out, channel_id=77)
    errors = await console.run(SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    assert errors == 2, text  # the fire in the movement phase; a test nobody owes
    assert "» Game created: Assault on the outpost (example) (Astral Legion, Raiders)." in text
    assert "== Difficult terrain ==" in text
    assert "Difficult terrain (2D6, highest): D6=3 D6=5 = 5 >= 6 (inches needed)" in text
    assert 'Outcome: The unit stops after 5"' in text
    assert "Outcome: Test failed (tank shock)" in text
    assert 'Outcome: The unit falls back 6"' in text
    assert (
        "[anna] /fire unit:squadra_tattica target:banda distance:10\n"
        "! This action belongs to the shooting phase." in text
    )
    assert "» Turn 1, Astral Legion: Shooting phase" in text
    assert "Odds — Shooting: No casualties: 88.9% · 1 casualty: 11.1%" in text
    assert "Rolls to hit (1 die, BS): D6=4 >= 3 (for each die)" in text
    assert "(dice entered by hand)" in text
    assert "» Bikers lost 1 of 3 models: morale check" not in text  # names come from the scenario
    assert "» Raider Bikers lost 1 of 3 models: morale check" in text
    assert "→ Morale of Raider Bikers: /morale unit:motopredoni" in text
    assert "Outcome: Test passed (25% casualties)" in text
    assert "» Turn 1, Astral Legion: Assault phase" in text
    # A Leadership test nobody owes is refused before its dice (issue 26).
    assert (
        "[anna] /test unit:devastatori modifier:-1 dice:6,1\n"
        "! Unit Devastators owes no test. Nothing is owed now." in text
    )
    assert "  veterani         Veterans in Heavy Armour 5/5  in reserve" in text
    assert re.search(r"\n  banda +Raider Mob +20/20  -  \[falling back\]", text)
    assert "Turn 1 — Assault phase of Astral Legion — to move: Astral Legion" in text
