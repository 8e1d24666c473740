"""The console table plays w40k4 with Discord's commands; dice are typed in the script.

The second script plays through an assault, a close combat (/combat), the loser's morale
(/morale action:test), a blast template that must be placed (/template) before the phase
ends, with the option names of the slash commands.
"""

from __future__ import annotations

import io

from bot.console import Console

SCRIPT = """\
/game new ruleset:w40k4 scenario:avamposto language:en
/as anna
/game join side:legione
/as bruno
/game join side:predoni
/as anna
/move unit:squadra_tattica distance:6 terrain:difficult cover:rovine dice:3,5
/move unit:mezzo_corazzato distance:10 target:banda dice:4,4,3,3
/fire unit:squadra_tattica target:banda distance:10
/turn next
/odds unit:squadra_tattica target:motopredoni distance:10 weapon:pistola
/fire unit:squadra_tattica target:motopredoni distance:10 weapon:pistola dice:4,5,2
/turn next
/as bruno
/morale unit:motopredoni dice:3,3
/as anna
/test unit:devastatori modifier:-1 dice:6,1
/turn
"""


async def test_a_console_script_plays_w40k4(service):
    out = io.StringIO()
    console = Console(service, out, channel_id=77)
    errors = await console.run(SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    assert errors == 1, text  # the fire in the movement phase
    assert "» Game created: Assalto all'avamposto (esempio) (Legione Astrale, Predoni)." in text
    assert "== Difficult terrain ==" in text
    assert "Difficult terrain (2D6, highest): D6=3 D6=5 = 5 >= 6 (inches needed)" in text
    assert 'Outcome: The unit stops after 5"' in text
    assert "Outcome: Test failed (tank shock)" in text
    assert 'Outcome: The unit falls back 6"' in text
    assert (
        "[anna] /fire unit:squadra_tattica target:banda distance:10\n"
        "! This action belongs to the shooting phase." in text
    )
    assert "» Turn 1, Legione Astrale: Shooting phase" in text
    assert "Odds — Shooting: No casualties: 88.9% · 1 casualties: 11.1%" in text
    assert "Rolls to hit (1 dice, BS): D6=4 >= 3 (for each die)" in text
    assert "(dice entered by hand)" in text
    assert "» Bikers lost 1 of 3 models: morale check" not in text  # names come from the scenario
    assert "» Motopredoni lost 1 of 3 models: morale check" in text
    assert "→ Morale of Motopredoni: /morale unit:motopredoni" in text
    assert "Outcome: Test passed (25% casualties)" in text
    assert "» Turn 1, Legione Astrale: Assault phase" in text
    assert "Outcome: Test passed (free test)" in text
    assert "  veterani         Veterani in armatura pesante 5/5  reserve" in text
    assert "  banda            Banda di predoni       20/20  -  [falling back]" in text
    assert "Turn 1 — Assault phase of Legione Astrale — to move: Legione Astrale" in text


COMBAT = ",".join(["1"] * 19 + ["6", "6", "5", "1", "1", "1", "1"])
ASSAULT_SCRIPT = f"""\
/game new ruleset:w40k4 scenario:avamposto language:en
/as anna
/game join side:legione
/as bruno
/game join side:predoni
/as anna
/move unit:squadra_tattica distance:6 terrain:difficult cover:rovine dice:3,5
/move unit:mezzo_corazzato distance:10 target:banda dice:4,4,3,3
/turn next
/fire unit:squadra_tattica target:motopredoni distance:10 weapon:pistola dice:4,5,2
/fire unit:devastatori target:carro_predone distance:30 facing:side weapon:cannone_laser dice:3,1,2,4
/turn next
/as bruno
/morale unit:motopredoni action:test dice:3,3
/as anna
/assault unit:squadra_tattica target:motopredoni distance:4
/turn next
/combat unit:squadra_tattica dice:{COMBAT}
/as bruno
/morale unit:motopredoni dice:6,6,1,1,3
/as anna
/turn next
/as bruno
/morale unit:banda action:test dice:2,3
/move unit:camminatore distance:6 terrain:difficult dice:6,2
/turn next
/fire unit:banda target:squadra_tattica distance:6 weapon:razzi,lanciafiamme models:3 dice:1,4,4,1,3,2
/turn next
/template unit:banda target:squadra_tattica models:2 partial:2 dice:4,1,2,2,2,4,1,6
/turn next
/turn
"""


async def test_a_console_script_plays_an_assault_a_combat_and_a_blast(service):
    out = io.StringIO()
    console = Console(service, out, channel_id=78)
    errors = await console.run(ASSAULT_SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    # Only the two /turn next that come too early: a combat and a template are owed.
    assert errors == 2, text
    assert "→ Resolve the combat of Squadra tattica: /combat unit:squadra_tattica" in text
    assert "[anna] /turn next\n! Combats remain to be resolved: Squadra tattica." in text
    assert "Outcome: Legione Astrale wins; Predoni loses" in text
    assert "→ Morale of Motopredoni (assault lost): /morale unit:motopredoni" in text
    assert "Outcome: The unit is caught and destroyed" in text
    assert "Outcome: Test passed (regrouping)" in text
    assert "Outcome: The template stays on target" in text
    assert "[bruno] /turn next\n! Banda di predoni must place its template first." in text
    placed = text.split("/template unit:banda")[1]
    assert "Outcome: 1 casualties" in placed.split("[bruno]")[0]
    assert "» Turn 1, Predoni: Assault phase" in placed
    assert "Turn 1 — Assault phase of Predoni — to move: Predoni" in placed
    # A certain outcome is shown once, as certain.
    assert 'Odds: certain: Assault made (up to 6")' in text
