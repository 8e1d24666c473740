"""Cheap rejections before expensive geometry, and listings capped (issue 23, item 4).

A move no ground could make short enough is refused from its straight distance before its
path is cut into legs; the listing measures no line of sight to a target beyond every
weapon's range, walks no assault approach toward an enemy out of reach, and lists fire
and assaults at the nearest :data:`MAX_TARGETS` targets that qualify.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from rules.core import geometry
from rules.core.battlefield import Point
from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.core.geometry import distance
from rules.manovra import field, legal
from rules.manovra import turn as g
from rules.manovra.commands import build_command
from rules.manovra.scenario import load_bundled, parse_scenario

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_availability.py"


class Counted:
    """Wraps a geometry function, counting its calls (and refusing them all if told)."""

    def __init__(self, original: Any, forbidden: bool = False) -> None:
        self.original, self.forbidden, self.calls = original, forbidden, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        assert not self.forbidden, "expensive geometry before the cheap test"
        return self.original(*args, **kwargs)


def _acting(state: g.ManovraState, unit: str) -> g.ManovraState:
    state.step = g.TurnStep.MANOEUVRE
    state.queue = [unit]
    return state


def test_a_move_beyond_any_reach_is_refused_before_its_legs_are_cut(monkeypatch) -> None:
    state = _acting(g.new_game(load_bundled("esempio_normandia_campo")), "squadra_1")
    monkeypatch.setattr(field, "path_legs", Counted(geometry.path_legs, forbidden=True))
    with pytest.raises(RulesError) as caught:
        g.apply(state, g.Move(unit="squadra_1", to="170,110"), SystemDice(), actor_side="alleati")
    assert caught.value.key == "error.manovra.beyond_reach"
    names = {"it": "1ª squadra", "en": "1st Squad", "fr": "1re escouade"}
    for language, name in names.items():
        assert name in caught.value.localized(language)
    assert "163.8 cm" in caught.value.localized("en")  # the straight cm, shown


def _crowd() -> g.ManovraState:
    """Ten riflemen facing 60 one-model units, most far beyond any weapon or move."""
    spec = importlib.util.spec_from_file_location("bench_availability_manovra", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = bench.manovra(1, 60, 2, 8, 0)
    state = g.new_game(parse_scenario(text, "crowd.yaml"))
    # Half the enemies close (within a tactical move and the rifles' range), half far.
    for index, unit in enumerate(u for u in state.units.values() if u.side == "asse"):
        unit.position = Point(x=10 + index % 30, y=12 if index < 30 else 118)
    state.units["all0"].position = Point(x=20, y=2)
    return _acting(state, "all0")


def test_the_listing_measures_only_what_is_within_reach(monkeypatch) -> None:
    state = _crowd()
    here = state.units["all0"].position
    assert here is not None
    near = [u for u in state.units.values() if u.side == "asse" and distance(here, u.position) < 90]
    sight = Counted(geometry.line_of_sight)
    legs = Counted(geometry.path_legs)
    monkeypatch.setattr(field, "line_of_sight", sight)
    monkeypatch.setattr(field, "path_legs", legs)
    actions = legal.legal_actions(state)
    # No line of sight beyond the rifles' 90 cm; no path walked toward the far enemies.
    assert 0 < sight.calls <= len(near)
    assert legs.calls <= 3 * legal.MAX_DESTINATIONS + len(near)
    fire_targets = {a.target for a in actions if a.verb == "fire"}
    assault_targets = {a.target for a in actions if a.verb == "assault"}
    assert 0 < len(fire_targets) <= legal.MAX_TARGETS
    assert 0 < len(assault_targets) <= legal.MAX_TARGETS
    # The nearest are the ones kept.
    kept = max(distance(here, state.units[t].position) for t in fire_targets)  # type: ignore[arg-type]
    assert all(
        distance(here, u.position) >= kept - 1e-9  # type: ignore[arg-type]
        for u in near
        if u.id not in fire_targets
    )


def test_every_capped_action_is_accepted() -> None:
    state = _crowd()
    actions = [a for a in legal.legal_actions(state) if a.verb in ("fire", "assault", "move")]
    assert {a.verb for a in actions} == {"fire", "assault", "move"}
    for action in actions:
        trial = state.model_copy(deep=True)
        command = build_command(action.verb, action.options)
        g.apply(trial, command, SystemDice(), actor_side=action.side)
