"""The console table plays a w40k4 assault with a blast and a combat to turn 3, players only.

After ``/game new`` the referee never speaks: the template the blast owes, the combats the
assault owes (each player turn while the units stay locked), the reserves arriving and the
loser's morale check are answered by the players with /template, /combat, /move and /morale,
and ``/turn next`` is refused meanwhile, naming what is owed and by whom.
"""

from __future__ import annotations

import io

from bot.console.table import Console
from bot.service import GameService
from rules.core.seatview import REFEREE
from rules.w40k4.surface import PLAY
from tests.core.legal_loop import QueuedThenSeeded

CHANNEL = 4042
SCRIPT = """\
/game new ruleset:w40k4 scenario:avamposto language:en
/as anna
/game join side:legione
/as bruno
/game join side:predoni
/as anna
/turn next
/turn next
/turn next
/as bruno
/turn next
/fire unit:banda target:squadra_tattica distance:6 weapon:razzi
/turn next
/template unit:banda target:squadra_tattica models:1
/turn next
/assault unit:camminatore target:devastatori distance:5
/turn next
/combat unit:camminatore
/turn
/turn next
/as anna
/turn
/turn next
/move unit:veterani kind:deepstrike
/turn next
/turn next
/combat unit:devastatori
/turn next
/as bruno
/turn
/turn next
/turn next
/combat unit:camminatore
/as anna
/morale unit:devastatori
/as bruno
/turn next
/turn
"""


async def play_script(store, script: str, dice: QueuedThenSeeded) -> tuple[str, int]:
    """Run a console script at a table whose dice are seeded; returns its text and errors."""
    out = io.StringIO()
    console = Console(GameService(store, dice=dice), out, channel_id=CHANNEL)
    errors = await console.run(script.splitlines(), interactive=False)
    return out.getvalue(), errors


async def test_a_blast_and_a_combat_to_turn_3_at_the_console(store):
    text, errors = await play_script(store, SCRIPT, QueuedThenSeeded(3))
    # /turn next refused three times, each naming what is owed and by whom
    assert errors == 3, text
    assert "! Not now: Raiders must first place the template of Raider Mob (/template)." in text
    assert (
        "! Not now: Raiders must first resolve the combats: Devastators, Raider Walker"
        " (/combat)." in text
    )
    assert "! Not now: Astral Legion must first bring Veterans in Heavy Armour on the table" in text
    assert "== Reserve roll ==" in text and "== Deep strike ==" in text
    assert text.count("== Combat result ==") == 3  # the combat goes on each player turn
    assert "Outcome: Won by Raiders; lost by Astral Legion" in text
    assert "» Turn 3, Astral Legion: Movement phase" in text
    document = (await store.load(CHANNEL)).document
    assert PLAY.view(document, REFEREE).status.turn == 3
    assert PLAY.view(document, REFEREE).every_legal  # and play goes on
