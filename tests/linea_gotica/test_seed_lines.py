"""Seed lines of docs/seeds/004_linea_gotica.txt that no other test checks on their own."""

from __future__ import annotations

from rules.linea_gotica import turn as g
from rules.linea_gotica.scenario import parse_scenario
from tests.linea_gotica.test_game import SCENARIO


def test_one_figure_is_one_man() -> None:
    """Line 40: "1 soldatino = 1 uomo 1 veicolo e arma = 1 veicolo o arma": a squad of the
    scenario is one figure per man it lists, a vehicle is one unit with its weapons."""
    state = g.new_game(parse_scenario(SCENARIO))
    squad = state.units["squadra"]
    assert [f.n for f in squad.figures] == [1, 2, 3, 4, 5, 6]
    assert [f.weapon for f in squad.figures] == [
        "mitra",
        "fucile",
        "fucile",
        "fucile",
        "fiamme",
        "lmg",
    ]
    tank = state.units["carro"]
    assert (
        tank.vehicle is not None
        and tank.figures == []
        and tank.weapons == ["cannone", "mg", "fumo"]
    )
