"""The console table plays manovra with Discord's commands and option names."""

from __future__ import annotations

import io

import pytest

from bot.console.table import Console
from bot.service import GameService
from db.drivers.sqlite import SqliteStore
from rules.core.dice import ScriptedDice

SCRIPT = """\
/game new scenario:esempio_normandia language:en
/as anna
/game join side:alleati
/as bruno
/game join side:asse
/turn next
/as anna
/turn next
/callarty unit:comando_plotone battery:batteria_105 target:"north wood" distance:20 link:stesso_plotone_radio dice:6,3
/turn next
/manoeuvre declare platoon:plotone_fucilieri
/morale unit:squadra_1 action:test dice:3,4
/as bruno
/confirm seq:5
/as anna
/test unit:squadra_1 kind:ct dice:3,4
/morale unit:squadra_1 action:panic
/help morale
"""


@pytest.fixture()
async def service(tmp_path):
    """The service on a real SQLite file; every die of the script is typed by hand."""
    store = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield GameService(store, dice=ScriptedDice([]))
    await store.close()


async def test_a_console_script_uses_discords_options(service):
    out = io.StringIO()
    console = Console(service, out, channel_id=79)
    errors = await console.run(SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    assert "Traceback" not in text
    # Asse at step 1, where Alleati move; the two tests nobody owes (issue 26); action:panic.
    assert errors == 4, text
    request = text.split("link:stesso_plotone_radio dice:6,3")[1].split("[anna]")[0]
    assert "1. IFR test: D6=6 +2 AD +2 CV = 10 >= 3 (D12)" in request
    assert "[bruno] /confirm seq:5\n» Dice of event #5 confirmed." in text
    # Choices are read as Discord offers them (action:test is the CT, ct is the choice CT),
    # and a test nobody owes is refused before its dice are read.
    assert text.count("! Unit 1st Squad owes no CT test. Nothing is owed now.") == 2
    assert "! action: 'panic' is not one of test, recover." in text
    assert "/morale — " in text and "  action [test | recover] — " in text
