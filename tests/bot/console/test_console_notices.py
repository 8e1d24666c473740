"""At the console a seat's direct messages are its inbox: ``/as NAME`` shows what waits for
that seat (a player who asked for direct messages), once; a seat with nothing waiting is
told nothing more than its seat."""

from __future__ import annotations

import io

from bot.console.table import Console, user_id_of
from bot.service.notices import records
from rules.core.i18n import translate


async def test_taking_a_seat_shows_its_notices_once(service, store) -> None:
    out = io.StringIO()
    console = Console(service, out, language="en")
    script = [
        "/game new ruleset:manovra scenario:esempio_normandia language:en",
        "/as anna",
        "/game join side:alleati",
        "/notify set kind:all via:dm",
        "/as bruno",
        "/game join side:asse",
        "/as arbitro",
        "/game end",
    ]
    await console.run(script, interactive=False)
    assert len(await records.pending(store, None, user_id_of("anna"))) == 1
    before = out.getvalue()
    assert translate("bot.console.notices", "en", seat="bruno") not in before
    await console.run(["/as anna"], interactive=False)
    shown = out.getvalue()[len(before) :]
    assert translate("bot.console.notices", "en", seat="anna") in shown
    assert "Normandy, June 1944 (example)" in shown  # the English game's title
    again = len(out.getvalue())
    await console.run(["/as anna"], interactive=False)
    assert translate("bot.console.notices", "en", seat="anna") not in out.getvalue()[again:]
