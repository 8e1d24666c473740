"""A pzgren game through the service, players only, to turn 3: an X with a choice on the way.

The referee only opens the game. The step loss the X leaves to the owner is an owed legal
action of the owner, answered by that player; ``/turn next`` is refused meanwhile, naming
what is owed and by whom.
"""

from __future__ import annotations

import pytest

from bot.service import GameService
from rules.core.errors import RulesError
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.pzgren.surface import PLAY
from tests.bot.service_table import ServiceTable
from tests.core.legal_loop import QueuedThenSeeded, play_owed_then_pass

CHANNEL = 3031
REFEREE, ANNA, BRUNO = 1, 2, 3
PLAYERS = {"us": ANNA, "de": BRUNO}


@pytest.fixture()
def table(store) -> ServiceTable:
    dice = QueuedThenSeeded(5)
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL)


async def test_an_x_with_a_choice_through_to_turn_3_without_the_referee(table, store):
    await table(REFEREE, "game.new", ruleset="pzgren", scenario="exemple_ardennes", language="it")
    await table(ANNA, "game.join", side="us")
    await table(BRUNO, "game.join", side="de")
    # Fire 6 from the adjacent hex (+2: column 11); 1+1 reads X: one step of the two
    # platoons in 6,3 (the owner chooses), the truck's step is forced.
    reply = await table(ANNA, "fire", [1, 1], unit="us_rifle_2", hex="6,3")
    assert reply.resolutions[0].outcome.code == "pzgren.direct.result(result=X)"
    document = (await store.load(CHANNEL)).document
    owed = [a for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.owed]
    assert [(a.verb, a.side) for a in owed] == [("step", "de")]
    assert set(owed[0].free[0].choices) == {"de_pzgren_1", "de_hmg"}
    for user in (ANNA, BRUNO):
        with pytest.raises(RulesError) as caught:
            await table(user, "turn.next")
        assert caught.value.key == "error.pzgren.steps_owed"
        assert caught.value.localized("it").startswith(
            "Non ora: lo schieramento Tedeschi deve prima assegnare 1 passo di perdita in 6,3"
            " (/step)."
        )
    await table(BRUNO, "step", unit="de_pzgren_1")
    document = (await store.load(CHANNEL)).document
    assert document["units"]["de_pzgren_1"]["steps"] == 1
    owed = [a for a in PLAY.view(document, REFEREE_SEAT).every_legal if a.owed]
    assert {(a.verb, a.side, a.unit) for a in owed} == {
        ("morale", "de", "de_pzgren_1"),
        ("morale", "de", "de_hmg"),
    }
    verbs = await play_owed_then_pass(table, store, PLAY, PLAYERS, until_turn=3)
    assert verbs.count("morale") == 2
    document = (await store.load(CHANNEL)).document
    assert PLAY.view(document, REFEREE_SEAT).status.turn == 3
