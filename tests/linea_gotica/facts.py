"""What the shared tests know of linea_gotica (tests/rulesets.py)."""

from __future__ import annotations

from tests.rulesets import ConsoleCampaign, Grid, Objective, SideName, UnitName, Words

#: A bundled scenario with a battlefield (terrain, objectives on the map).
BATTLEFIELD = "esempio_gotica_campo"
#: Its title in each language.
BATTLEFIELD_TITLE = Words(
    "Linea Gotica, settembre 1944, sul campo (esempio)",
    "Gothic Line, September 1944, on the field (example)",
    "Ligne Gothique, septembre 1944, sur le terrain (exemple)",
)
#: A unit of the battlefield's scenario, its side and its name in each language.
UNIT_NAME = UnitName(
    "squadra_1",
    "alleati",
    Words("1ª squadra fucilieri", "1st Rifle Squad", "1re escouade de fusiliers"),
)
GRID: Grid = "table"
FIRST_OBJECTIVE = Objective(Words("Il casolare", "The farmhouse", "La ferme"), "tedeschi")
SIDE_NAME = SideName("tedeschi", Words("Tedeschi", "Germans", "Allemands"))
#: Units a side fields in every game of the ruleset's campaign book.
BOOK_CORE_UNITS = {
    "alleati": {"squadra_1", "bazooka", "sherman"},
    "tedeschi": {"gruppe", "mg_casolare", "stug"},
}
#: The roll verbs a unit may be asked for (verb, options): each is refused unless owed.
ROLL_VERBS: list[tuple[str, dict[str, str]]] = [("morale", {})]
#: A three-game campaign at the console (its seeded game 1 loses every casualty: none dead).
CONSOLE_CAMPAIGN = ConsoleCampaign(
    language="fr",
    scenarios=("gotica_incontro", "gotica_retroguardia", "esempio_gotica"),
    decided="alleati",
    conceding="tedeschi",
    heading="Classement (jouées, gagnées-nulles-perdues, points, différence de points)\u202f:",
    reduced=["squadra_1"],
    dead=[],
)
