"""Through the application service: a roll nobody owes and a repeated /turn next
are refused before any die is rolled, and nothing is stored."""

from __future__ import annotations

import pytest

from rules.core.i18n import translate
from tests.bot.service_table import ServiceTable
from tests.linea_gotica.test_service import CHANNEL as GOTICA_CHANNEL
from tests.linea_gotica.test_service import setup as gotica_setup

CHANNEL = 4026
REFEREE, ANNA, BRUNO = 1, 2, 3


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def test_a_test_nobody_owes_is_refused_and_nothing_is_stored(table, store):
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    version = (await store.load(CHANNEL)).version
    # No face is queued: a die rolled would fail the test before the refusal.
    for verb, options in (
        ("morale", {"unit": "squadra_1"}),
        ("test", {"unit": "sherman_1", "kind": "CT"}),
    ):
        refusal = await table.refused(ANNA, verb, "error.manovra.test_not_owed", **options)
        assert translate("error.owed.nothing", "en") in refusal.localized("en")
    refusal = await table.refused(REFEREE, "morale", "error.manovra.test_not_owed", unit="pak")
    assert refusal.localized("en").startswith("Unit PaK 40 owes no CT test. Nothing is owed now.")
    assert (await store.load(CHANNEL)).version == version


async def test_a_repeated_turn_next_is_refused_and_nothing_is_stored(service, dice, store):
    table = ServiceTable(service, dice, GOTICA_CHANNEL)
    await gotica_setup(table)
    await table(ANNA, "turn.next", [8, 3])  # initiative: the Allies win
    await table(ANNA, "turn.next", order="first")
    for user in (ANNA, BRUNO, ANNA, BRUNO):  # covering fire, then movement
        await table(user, "turn.next")
    await table(ANNA, "turn.next")  # the Allies end their observation
    version = (await store.load(GOTICA_CHANNEL)).version
    for _ in range(3):
        refusal = await table.refused(ANNA, "turn.next", "error.linea_gotica.step_done")
    assert "Germans" in refusal.localized("en")
    assert (await store.load(GOTICA_CHANNEL)).version == version
    await table(BRUNO, "turn.next")  # the Germans end theirs: the fire phase begins
    assert (await store.load(GOTICA_CHANNEL)).version == version + 1
