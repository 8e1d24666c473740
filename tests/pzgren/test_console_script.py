"""The console table plays a pzgren X with a choice to turn 3, players only.

After ``/game new`` the referee never speaks: the step loss the X leaves to the owner's
choice and the morale checks it owes are answered by the German player with /step and
/morale; ``/turn next`` is refused meanwhile, naming what is owed and by whom.
"""

from __future__ import annotations

import io

from bot.console.table import Console
from bot.service import GameService
from rules.core.seatview import REFEREE
from rules.pzgren.surface import PLAY
from tests.core.legal_loop import QueuedThenSeeded

CHANNEL = 3032
SCRIPT = """\
/game new ruleset:pzgren scenario:exemple_ardennes language:it
/as anna
/game join side:us
/as bruno
/game join side:de
/as anna
/fire unit:us_rifle_2 hex:6,3
/turn next
/as bruno
/turn next
/step unit:de_pzgren_1
/morale unit:de_pzgren_1
/morale unit:de_hmg
/turn next
/as anna
/turn next
/turn next
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


async def test_an_x_with_a_choice_to_turn_3_at_the_console(store):
    dice = QueuedThenSeeded(3)
    dice.push(1, 1)  # fire 6 from the adjacent hex (column 11): 2 reads X
    text, errors = await play_script(store, SCRIPT, dice)
    assert errors == 2, text  # /turn next by each player while the step is owed
    refusal = (
        "! Non ora: lo schieramento Tedeschi deve prima assegnare 1 passo di perdita in 6,3"
        " (/step)."
    )
    assert text.count(refusal) == 2
    assert "Ora puoi: /step." in text
    assert "» L'unità 1. Zug Panzergrenadiere perde un passo (ne restano 1)" in text
    assert "» Turno 3: attiva per primo lo schieramento Americani" in text
    document = (await store.load(CHANNEL)).document
    assert PLAY.view(document, REFEREE).status.turn == 3
    assert document["units"]["de_pzgren_1"]["steps"] == 1
    assert document["units"]["de_truck"]["steps"] == 0
