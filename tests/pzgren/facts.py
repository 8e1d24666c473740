"""What the shared tests know of pzgren (tests/rulesets.py)."""

from __future__ import annotations

from tests.rulesets import ConsoleCampaign, Grid, Objective, SideName, UnitName, Words

#: A bundled scenario with a battlefield (a hex map, objectives on it).
BATTLEFIELD = "exemple_ardennes"
#: Its title in each language.
BATTLEFIELD_TITLE = Words(
    "Ardenne, dicembre 1944 (esempio)",
    "Ardennes, December 1944 (example)",
    "Ardennes, décembre 1944 (exemple)",
)
#: A unit of the battlefield's scenario, its side and its name in each language.
UNIT_NAME = UnitName(
    "us_rifle_1",
    "us",
    Words("1° plotone fucilieri", "1st Rifle Platoon", "1re section de fusiliers"),
)
GRID: Grid = "hexes"
FIRST_OBJECTIVE = Objective(
    Words("Il villaggio trincerato", "The entrenched village", "Le village retranché"),
    "de",
)
SIDE_NAME = SideName("us", Words("Americani", "Americans", "Américains"))
#: Units a side fields in every game of the ruleset's campaign book.
BOOK_CORE_UNITS = {
    "us": {"us_rifle_1", "us_mortar", "us_m10"},
    "de": {"de_pzgren_1", "de_pzgren_2", "de_panther", "de_sdkfz251"},
}
#: The roll verbs a unit may be asked for (verb, options): each is refused unless owed.
ROLL_VERBS: list[tuple[str, dict[str, str]]] = [("morale", {})]
#: A three-game campaign at the console (its seeded game 1 loses every casualty, and only
#: destroys: no unit reduced).
CONSOLE_CAMPAIGN = ConsoleCampaign(
    language="fr",
    scenarios=("rencontre_hosingen", "percee_clervaux", "exemple_ardennes"),
    decided="us",
    conceding="us",
    heading="Classement (jouées, gagnées-nulles-perdues, points, différence de points)\u202f:",
    reduced=[],
    dead=["de_sdkfz251", "us_m10", "us_truck"],
)
