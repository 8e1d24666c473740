"""Crowded tables of each ruleset, as the channel's picture shows them (issue 26, item 14):
counters piled on one another and on terrain names, long names with accents, a stack of
three in one hex. The reference pictures of ``tests/bot/render/test_map.py`` draw them."""

from __future__ import annotations

from typing import Any

from bot.service import channel_map, status_caption, with_caption
from rules.core.battlefield import Point
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE
from rules.core.surface import Rules


def _view(ruleset: str, state: Any, language: str) -> Any:
    play: Rules = get_ruleset(ruleset).rules
    document = play._document(state)  # type: ignore[attr-defined]
    view = channel_map(play.load(document), ruleset, language)
    assert view is not None
    # The caption as /map writes it: the state of the game, then the last action.
    return with_caption(
        view, "", status_caption(play.view(document, REFEREE).status, ruleset, language)
    )


def _renamed(field: Any, names: dict[str, str]) -> Any:
    """The battlefield with some areas renamed (long names, accents)."""
    areas = tuple(
        area.model_copy(update={"name": names[area.id]}) if area.id in names else area
        for area in field.areas
    )
    return field.model_copy(update={"areas": areas})


def manovra(language: str = "fr") -> Any:
    """Normandy: five units crowding the farm and its name, one on the MG position."""
    play = get_ruleset("manovra").rules
    state = play._load_state(play.setup("esempio_normandia_campo")).model_copy(deep=True)
    state.title = "Normandie, décembre — Américains et Allemands"
    state.battlefield = _renamed(state.battlefield, {"fattoria": "Ferme fortifiée de l'Épine"})
    for unit_id, (x, y) in {
        "squadra_1": (70, 92),
        "squadra_2": (71, 93),
        "comando_plotone": (69, 91),
        "sherman_1": (72, 90),
        "gruppe_1": (70, 92),
        "mg_team": (100, 80),
    }.items():
        state.units[unit_id].position = Point(x=x, y=y)
    state.units["squadra_2"].statuses.append("panic")
    return _view("manovra", state, language)


def linea_gotica(language: str = "it") -> Any:
    """The Gothic Line: the belfry renamed to a long name, three units at its foot."""
    play = get_ruleset("linea_gotica").rules
    state = play._load_state(play.setup("esempio_gotica_campo")).model_copy(deep=True)
    state.title = "Linea Gotica — Żółć, settembre 1944"
    state.field = _renamed(state.field, {"campanile": "Torre di comunicazione del paese"})
    for unit_id, (x, y) in {
        "squadra_1": (150, 103),
        "bazooka": (151, 104),
        "osservatori": (149, 106),
        "sherman": (112, 90),
    }.items():
        state.positions[unit_id] = Point(x=x, y=y)
    return _view("linea_gotica", state, language)


def w40k4(language: str = "it") -> Any:
    """The outpost: the communication tower's name under a pile of units."""
    play = get_ruleset("w40k4").rules
    state = play._load_state(play.setup("avamposto_campo")).model_copy(deep=True)
    tower = next(a for a in state.battlefield.areas if a.id == "torre")
    shape = tower.shape
    at = shape.center if hasattr(shape, "center") else shape.points[0]
    for unit_id, (dx, dy) in {
        "squadra_tattica": (0, 0),
        "devastatori": (0.5, 0.5),
        "banda": (-0.5, 0.3),
        "motopredoni": (0.3, -0.4),
    }.items():
        state.units[unit_id].at = Point(x=at.x + dx, y=at.y + dy)
    return _view("w40k4", state, language)


def pzgren(language: str = "fr") -> Any:
    """The Ardennes: three units stacked in a woods hex with an entrenchment."""
    play = get_ruleset("pzgren").rules
    state = play._load_state(play.setup("exemple_ardennes")).model_copy(deep=True)
    for unit_id in ("de_pzgren_2", "de_hmg", "de_truck"):
        state.units[unit_id].hex = "7,3"
    return _view("pzgren", state, language)


CROWDED = {"manovra": manovra, "linea_gotica": linea_gotica, "w40k4": w40k4, "pzgren": pzgren}
