"""A w40k4 game through the service, players only, to turn 3: a blast and a combat on the way.

The referee only opens the game. Every owed template, combat and test is listed as an owed
legal action of the side that owes it and answered by that side's player; ``/turn next``
is refused while something is owed, naming what and by whom.
"""

from __future__ import annotations

import pytest

from bot.service import GameService
from rules.core.errors import RulesError
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.w40k4.surface import PLAY
from tests.bot.service_table import ServiceTable
from tests.core.legal_loop import QueuedThenSeeded, play_owed_then_pass

CHANNEL = 4041
REFEREE, ANNA, BRUNO = 1, 2, 3
PLAYERS = {"legione": ANNA, "predoni": BRUNO}


@pytest.fixture()
def table(store) -> ServiceTable:
    dice = QueuedThenSeeded(11)
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL)


async def owed_by(store, side: str) -> list[str]:
    document = (await store.load(CHANNEL)).document
    return [
        a.verb for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.owed and a.side == side
    ]


async def test_a_blast_and_a_combat_through_to_turn_3_without_the_referee(table, store):
    await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto", language="it")
    await table(ANNA, "game.join", side="legione")
    await table(BRUNO, "game.join", side="predoni")
    for _ in range(3):
        await table(ANNA, "turn.next")
    await table(BRUNO, "turn.next")  # Predoni: movement done

    # A blast: the rockets scatter (the hit symbol), the template is owed by Predoni.
    await table(
        BRUNO, "fire", [1], unit="banda", target="squadra_tattica", distance="6", weapon="razzi"
    )
    assert await owed_by(store, "predoni") == ["template"]
    with pytest.raises(RulesError) as caught:
        await table(BRUNO, "turn.next")
    assert caught.value.key == "error.w40k4.template_owed"
    assert caught.value.localized("it").startswith(
        "Non ora: lo schieramento Predoni deve prima piazzare"
    )
    await table(BRUNO, "template", unit="banda", target="squadra_tattica", models="1")
    await table(BRUNO, "turn.next")  # the shooting phase closes (on its morale checks, if owed)
    await play_owed_then_pass(table, store, PLAY, PLAYERS, 9, pass_turns=False)
    document = (await store.load(CHANNEL)).document
    assert PLAY.view(document, REFEREE_SEAT).status.phase.code.endswith(
        "phase=assault,side=Predoni)"
    )

    # An assault that reaches its target: the combat is owed by Predoni.
    await table(BRUNO, "assault", unit="camminatore", target="devastatori", distance="5")
    assert await owed_by(store, "predoni") == ["combat"]
    with pytest.raises(RulesError) as caught:
        await table(BRUNO, "turn.next")
    assert caught.value.key == "error.w40k4.combats_left"
    await table(BRUNO, "combat", unit="camminatore")

    # The players answer what is owed (the loser's test, arrivals from reserve) and pass.
    verbs = await play_owed_then_pass(table, store, PLAY, PLAYERS, until_turn=3)
    document = (await store.load(CHANNEL)).document
    assert PLAY.view(document, REFEREE_SEAT).status.turn == 3
    assert "turn.next" in verbs
