"""Campaign rosters at the console table: a roster file loaded by its path, the roster
shown, a bad file refused with its line, and the next game mustered from the roster."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console.table import Console
from bot.service import GameService

ROSTER = """\
side: alleati
entries:
  - {id: squadra_1, name: 1a squadra, strength: 6, full: 10, experience: 2, rank: veterani}
  - {id: fantasma, name: Nowhere, strength: 1, full: 1}
"""


async def test_a_roster_file_at_the_console(store, tmp_path: Path) -> None:
    good = tmp_path / "roster.yaml"
    good.write_text(ROSTER, encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(ROSTER.replace("strength: 6", "strength: 16"), encoding="utf-8")
    off_ladder = tmp_path / "ranked.yaml"
    off_ladder.write_text(ROSTER.replace("rank: veterani", "rank: sergente"), encoding="utf-8")
    script = f"""\
/campaign new ruleset:manovra name:Normandia language:en
/campaign invite user:anna side:alleati
/as anna
/campaign join side:alleati
/campaign roster file:{bad}
/campaign roster file:{off_ladder}
/campaign roster file:{good}
/campaign roster
/as arbitro
/campaign game scenario:normandia_incontro channel:#2
/campaign roster side:asse
"""
    out = io.StringIO()
    console = Console(GameService(store), out)
    errors = await console.run(script.splitlines(), interactive=False)
    text = out.getvalue()
    assert errors == 2, text
    # A rank off manovra's ladder (a leader's rank, not a training class) is refused.
    assert "'sergente' is not a rank of this ruleset's ladder: reclute, operativi" in text
    # Refused naming the file as given at the console, in the campaign's language.
    assert "bad.yaml, line 3: entries.0: strength 16 is more than full 10" in text
    assert "Roster of Allies set from the file: 2 units." in text
    assert "1a squadra (squadra_1): 6/10, casualties 0, experience 2, rank veterans, fit" in text
    assert "Nowhere (fantasma): 1/1" in text and "never musters" in text
    # The game musters the squad at 6; the Axis got the scenario's side as its roster.
    assert (await store.load(2)).document["units"]["squadra_1"]["models"] == 6
    assert "Mustered from the rosters (units per side): Allies 5, Axis 3; left behind: —;" in text
    assert "Roster of Axis (" in text


async def test_an_escape_never_reaches_the_terminal(store) -> None:
    # A side typed with an ANSI escape and a right-to-left override: the refusal names it,
    # and the console prints both inert, as their escapes.
    script = [
        "/campaign new ruleset:manovra name:Normandia language:en",
        "/campaign roster side:\x1b[2J\u202eevil",
    ]
    out = io.StringIO()
    errors = await Console(GameService(store), out).run(script, interactive=False)
    text = out.getvalue()
    assert errors == 1, text
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b[2J\\u202eevil" in text
