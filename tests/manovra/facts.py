"""What the shared tests know of manovra (tests/rulesets.py)."""

from __future__ import annotations

from tests.rulesets import ConsoleCampaign, Grid, Objective, SideName, UnitName, Words

#: A bundled scenario with a battlefield (terrain, objectives on the map).
BATTLEFIELD = "esempio_normandia_campo"
#: Its title in each language.
BATTLEFIELD_TITLE = Words(
    "Normandia, giugno 1944 — sul campo (esempio)",
    "Normandy, June 1944 — on the field (example)",
    "Normandie, juin 1944 — sur le terrain (exemple)",
)
#: A unit of the battlefield's scenario, its side and its name in each language.
UNIT_NAME = UnitName("squadra_1", "alleati", Words("1ª squadra", "1st Squad", "1re escouade"))
GRID: Grid = "table"
FIRST_OBJECTIVE = Objective(Words("La fattoria", "The farm", "La ferme"), "asse")
SIDE_NAME = SideName("asse", Words("Asse", "Axis", "Axe"))
#: Units a side fields in every game of the ruleset's campaign book.
BOOK_CORE_UNITS = {
    "alleati": {"squadra_1", "squadra_2", "comando_plotone", "sherman_1"},
    "asse": {"gruppe_1", "mg_team"},
}
#: The roll verbs a unit may be asked for (verb, options): each is refused unless owed.
ROLL_VERBS: list[tuple[str, dict[str, str]]] = [
    ("morale", {}),
    *(("test", {"kind": kind}) for kind in ("CT", "SF", "ET")),
]
#: A three-game campaign at the console (its seeded game 1 loses every casualty, and only
#: destroys: no unit reduced).
CONSOLE_CAMPAIGN = ConsoleCampaign(
    language="en",
    scenarios=("normandia_incontro", "normandia_sfondamento", "esempio_normandia"),
    decided="asse",
    conceding="alleati",
    heading="Standings (played, won-drawn-lost, points, points difference):",
    reduced=[],
    dead=["panzer_iv"],
)
