"""A manovra turn on the battlefield through the application service (issue 16)."""

from __future__ import annotations

import pytest

from bot.service import GameService
from db.drivers.sqlite import SqliteStore
from rules.manovra.surface import PLAY
from tests.bot.conftest import QueuedDice
from tests.bot.service_table import ServiceTable

CHANNEL = 1616
REFEREE, ANNA, BRUNO = 1, 2, 3


@pytest.fixture()
async def store(tmp_path):
    opened = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield opened
    await opened.close()


@pytest.fixture()
def table(store) -> ServiceTable:
    dice = QueuedDice()
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL)


async def _units(store):
    record = await store.load(CHANNEL)
    return PLAY._state(PLAY.load_document(record.document)).units


async def test_a_turn_on_the_battlefield(table, store) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia_campo", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")
    # Step 2: the IF marker goes on the MG team's position.
    reply = await table(
        ANNA,
        "callarty",
        (6, 3),
        unit="comando_plotone",
        battery="batteria_105",
        target="mg_team",
        distance=20,
        link="stesso_plotone_radio",
    )
    assert reply.notices[-1].key == "manovra.turn.marker_placed"
    await table(ANNA, "turn.next")
    # Step 3: the tanks and the Panzer; IT 6, 5 for the Shermans, 1 for the Panzer.
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")
    await table(BRUNO, "manoeuvre.declare", (6, 5, 1), platoon="panzer")
    await table.refused(ANNA, "move", "error.manovra.move_needs_to", unit="sherman_1")
    await table.refused(ANNA, "move", "error.manovra.beyond_reach", unit="sherman_1", to="crocevia")
    reply = await table(ANNA, "move", unit="sherman_1", to="W 20")
    assert reply.notices[0].key == "manovra.field.moved"
    units = await _units(store)
    assert (units["sherman_1"].position.x, units["sherman_1"].position.y) == (120, 22)
    assert units["sherman_1"].terrain == "strade"
    choices = await table.service.choices(CHANNEL, ANNA, "destination", "")
    assert "crocevia" in choices and "toward panzer_iv 10" in choices
    await table(ANNA, "move", unit="sherman_2", to="toward panzer_iv 10")
    # A player's distance that is not the measured one is refused, with the measurement.
    error = await table.refused(
        BRUNO,
        "fire",
        "error.manovra.distance_differs",
        unit="panzer_iv",
        target="sherman_1",
        weapon="kwk40",
        distance=60,
    )
    assert error.params["measured"] == "75.2"
    # The Panzer fires from the edge of its wood (its own area never blocks): 75.2 cm is the
    # gun's efficace band (D10); a 1 misses.
    reply = await table(BRUNO, "fire", (1,), unit="panzer_iv", target="sherman_1", weapon="kwk40")
    assert [r.procedure for r in reply.resolutions] == ["measure", "observation", "heavy_fire"]
    assert reply.resolutions[0].outcome.code == "manovra.measure.cm(cm=75.2)"
    assert reply.resolutions[2].rolls[0].die.sides == 10
    units = await _units(store)
    assert units["sherman_2"].position is not None and units["sherman_2"].moved
    view = PLAY.map_view((await store.load(CHANNEL)).document, None, public=True)
    assert view is not None and {c.unit_id for c in view.counters} >= {"sherman_1", "panzer_iv"}
