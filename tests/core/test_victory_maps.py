"""The objectives on the map: every bundled battlefield marks its scenario's objectives
with their holders now, and the picture draws them."""

from __future__ import annotations

import pytest

from bot.render.map import render_map
from rules.core.play import DocumentPlay
from rules.core.ruleset import get_ruleset
from tests.rulesets import fact, facts

#: Each ruleset's battlefield, its first objective's name (in the view's English), its holder
#: and its grid.
BATTLEFIELDS = [
    (key, fact(key, "BATTLEFIELD"), first.name.en, first.holder, fact(key, "GRID"))
    for key, first in facts("FIRST_OBJECTIVE").items()
]


def _play(ruleset: str) -> DocumentPlay:
    play = get_ruleset(ruleset).play
    assert isinstance(play, DocumentPlay)
    return play


@pytest.mark.parametrize(("ruleset", "scenario", "name", "holder", "grid"), BATTLEFIELDS)
def test_the_map_marks_each_objective_and_its_holder(
    ruleset: str, scenario: str, name: str, holder: str, grid: str
):
    play = _play(ruleset)
    document = play.new_game(scenario, None)
    view = play.map_view(document, None, public=False, language="en")  # the referee's
    assert view is not None
    state = play._state(document)
    conditions = state.victory.conditions
    assert conditions is not None
    assert len(view.objectives) == len(conditions.objectives)
    first = view.objectives[0]
    assert first.label.startswith(name) and first.holder == holder
    on_hexes = grid == "hexes"
    assert (first.shape is None) == on_hexes and bool(first.hexes) == on_hexes
    with_marks = render_map(view, "en", public=True)
    without = render_map(view.model_copy(update={"objectives": ()}), "en", public=True)
    assert with_marks.startswith(b"\x89PNG") and with_marks != without


def test_a_contested_objective_is_labelled_so():
    play = _play("w40k4")
    document = play.new_game("avamposto_campo", None)
    document["units"]["banda"]["at"] = {"x": 18.0, "y": 11.0}  # next to the outpost's defenders
    view = play.map_view(document, None, public=True, language="en")
    assert view is not None
    outpost = view.objectives[0]
    assert outpost.contested and outpost.holder is None and outpost.label.endswith("contested")


def test_units_hidden_from_a_viewer_do_not_show_on_its_objectives():
    play = _play("linea_gotica")
    document = play.new_game("esempio_gotica_campo", None)
    assert document["units"]["mg_casolare"]["hidden"]  # the MG in the farmhouse
    document["positions"]["squadra_1"] = {"x": 105.0, "y": 90.0}  # Allies in the farmhouse too

    def farmhouse(viewer: str | None, public: bool) -> tuple[str | None, bool]:
        view = play.map_view(document, viewer, public=public, language="en")
        assert view is not None
        mark = view.objectives[0]
        return mark.holder, mark.contested

    assert farmhouse(None, True) == ("alleati", False)  # the channel sees no MG
    assert farmhouse("alleati", False) == ("alleati", False)
    assert farmhouse("tedeschi", False) == (None, True)  # its owner knows
    assert farmhouse(None, False) == (None, True)  # and so does the referee
    assert play.score(document).lines[0].side is None  # the score counts every unit
