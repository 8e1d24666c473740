"""A bundled campaign reads its sides in its own language at the console table: pzgren's
``ardennes_1944`` in English showed "Américains/Allemands" (its scenarios' French), and
linea_gotica's ``passo_giogo`` in French showed "Alleati/Tedeschi" (their Italian). The
game's status, the campaign's status and standings, the export's report and the campaign
map's data name the sides in the campaign's language, and never in another; the game's
document keeps every language, so the same game read in another language reads its own."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from bot.console.table import Console
from bot.service import GameService
from bot.service.campaign.export import map_view
from rules.campaign.state import CampaignState
from rules.core.ruleset import get_ruleset
from rules.core.words import names_in

# ruleset, book, language, the side that wins game 1, the sides as the language reads
# them, and as the other languages do (which must not be shown)
CASES = [
    (
        "pzgren",
        "ardennes_1944",
        "en",
        "us",
        {"us": "Americans", "de": "Germans"},
        ("Américains", "Allemands", "Americani", "Tedeschi"),
    ),
    (
        "linea_gotica",
        "passo_giogo",
        "fr",
        "alleati",
        {"alleati": "Alliés", "tedeschi": "Allemands"},
        ("Alleati", "Tedeschi", "Allies", "Germans"),
    ),
]


@pytest.mark.parametrize(("ruleset", "book", "language", "winner", "names", "foreign"), CASES)
async def test_a_campaign_names_its_sides_in_its_language(
    store,
    tmp_path: Path,
    ruleset: str,
    book: str,
    language: str,
    winner: str,
    names: dict[str, str],
    foreign: tuple[str, ...],
) -> None:
    out = io.StringIO()
    console = Console(GameService(store), out, language=language, files_dir=tmp_path)
    script = [
        f"/campaign new ruleset:{ruleset} name:Book book:{book} language:{language}",
        "/campaign game channel:2",
        "/channel 2",
        "/game status",
        f"/game end result:{winner} reason:held",
        "/channel 1",
        "/campaign status",
        "/campaign export",
    ]
    errors = await console.run(script, interactive=False)
    text = out.getvalue()
    assert errors == 0, text
    for name in names.values():
        assert name in text, (name, text)
    for name in foreign:
        assert name not in text, (name, text)
    # The standings' lines name the sides as the language reads them.
    standings = text[text.index("/campaign status") :]
    assert all(name in standings for name in names.values()), standings
    # The export's report, and the map's data the front ends draw (its holders, its legend).
    saved = await asyncio.to_thread(lambda: sorted(tmp_path.iterdir()))
    [report] = [path for path in saved if path.name.endswith("report.md")]
    written = report.read_text("utf-8")
    assert names[winner] in written and not any(name in written for name in foreign), written
    state = CampaignState.from_json((await store.load(1)).document)
    shown = map_view(state, language)
    assert shown is not None and dict(shown.sides) == names
    assert {area.holder_name for area in shown.areas} <= set(names.values())
    # The game's document keeps every language: read in Italian, it reads Italian's.
    document = (await store.load(2)).document
    play = get_ruleset(ruleset).play
    italian = {"us": "Americani", "de": "Tedeschi", "alleati": "Alleati", "tedeschi": "Tedeschi"}
    assert names_in(play.sides(document), "it") == {side: italian[side] for side in names}
