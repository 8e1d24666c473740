"""What the shared tests know of w40k4 (tests/rulesets.py)."""

from __future__ import annotations

from tests.rulesets import ConsoleCampaign, Grid, Objective, SideName, UnitName, Words

#: A bundled scenario with a battlefield (terrain, objectives on the map).
BATTLEFIELD = "avamposto_campo"
#: Its title in each language.
BATTLEFIELD_TITLE = Words(
    "Assalto all'avamposto, sul campo (esempio)",
    "Assault on the outpost, on the field (example)",
    "Assaut sur l'avant-poste, sur le terrain (exemple)",
)
#: A unit of the battlefield's scenario, its side and its name in each language.
UNIT_NAME = UnitName(
    "squadra_tattica", "legione", Words("Squadra tattica", "Tactical Squad", "Escouade tactique")
)
GRID: Grid = "table"
FIRST_OBJECTIVE = Objective(Words("L'avamposto", "The outpost", "L'avant-poste"), "legione")
SIDE_NAME = SideName("predoni", Words("Predoni", "Raiders", "Pillards"))
#: Units a side fields in every game of the ruleset's campaign book.
BOOK_CORE_UNITS = {
    "legione": {"squadra_tattica", "devastatori", "mezzo_corazzato"},
    "predoni": {"banda", "motopredoni", "carro_predone", "camminatore"},
}
#: The roll verbs a unit may be asked for (verb, options): each is refused unless owed
#: (the Leadership test).
ROLL_VERBS: list[tuple[str, dict[str, str]]] = [("morale", {}), ("test", {})]
#: A three-game campaign at the console (its seeded game 1 loses every casualty).
CONSOLE_CAMPAIGN = ConsoleCampaign(
    language="it",
    scenarios=("avamposto", "fuga", "relitto"),
    decided="predoni",
    conceding="predoni",
    heading="Classifica (giocate, vinte-pareggiate-perse, punti, differenza punti):",
    reduced=["squadra_tattica", "banda"],
    dead=["devastatori", "mezzo_corazzato", "motopredoni"],
)
